"""Which searcher runs one game in one process: a compiled kernel or the Python search.

``SearchConfig.backend`` decides: ``"python"`` always runs ``MCTS``; ``"numba"`` runs the kernel
registered for the game (``mcts_agents.compiled``) or raises ``InvalidOptionError`` saying why it
cannot; ``"auto"`` (the default) runs the kernel where one can, else ``MCTS``.
``mcts_agents.factory.make_searcher`` adds root parallelism on top.
"""

from __future__ import annotations

from mcts_agents import compiled
from mcts_agents.config import Budget, SearchConfig
from mcts_agents.errors import InvalidOptionError
from mcts_agents.game import Game
from mcts_agents.mcts import MCTS
from mcts_agents.searcher import Searcher

__all__ = ["local_searcher"]


def local_searcher(
    game: Game, budget: Budget, config: SearchConfig, seed: int | None = None
) -> Searcher:
    """The searcher for ``game`` in this process, by ``config.backend`` (see the module).

    Building a compiled searcher loads its kernel (0.3-0.6 s from numba's cache the first time
    in a process), so do it before any clock starts.

    Raises:
        InvalidOptionError: ``backend="numba"`` and no kernel can run this game or options.
    """
    if config.backend != "python":
        reason = compiled.unsupported(game, config)
        if reason is None:
            return compiled.make_compiled_searcher(game, budget, config, seed)
        if config.backend == "numba":
            raise InvalidOptionError(f"backend='numba' cannot search {game!r}: {reason}")
    return MCTS(budget, config, seed)
