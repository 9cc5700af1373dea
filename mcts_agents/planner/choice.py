"""Which searcher runs one game in one process.

``SearchConfig.information`` decides first. A game with private information gets Information
Set MCTS (``ismcts.ISMCTS``, multiple-observer by default, single-observer on request; the
compiled ``compiled.ismcts.CompiledISMCTS`` for Kuhn and Leduc poker and
``compiled.holdem_search.HoldemISMCTS`` for rlcard's limit and no-limit hold'em where ``backend``
allows), PIMC
(``pimc.PIMC``) or, only when asked for by name, the ``"oracle"``: ``MCTS`` on the true hidden
state. Searching such a game as if it were visible (``"perfect"``) is refused. Every other game
gets the perfect-information search, where ``SearchConfig.backend`` decides: ``"python"`` always
runs ``MCTS``; ``"numba"`` runs the kernel registered for the game (``mcts_agents.compiled``) or
raises ``InvalidOptionError`` saying why it cannot; ``"auto"`` (the default) runs the kernel
where one can, else ``MCTS``, with the game's compiled playouts where some are registered
(Pig). An evaluator (position or batch) runs only in the Python search: ``"auto"`` picks
``MCTS`` for it and ``"numba"`` refuses it. ``mcts_agents.planner.factory.make_searcher`` adds root
parallelism.
"""

from __future__ import annotations

from mcts_agents import compiled
from mcts_agents.compiled import holdem_search
from mcts_agents.compiled import ismcts as compiled_ismcts
from mcts_agents.errors import InvalidOptionError, InvalidStateError
from mcts_agents.search.config import Budget, SearchConfig
from mcts_agents.search.game import Game, is_perfect_information
from mcts_agents.search.ismcts import ISMCTS
from mcts_agents.search.mcts import MCTS
from mcts_agents.search.pimc import PIMC
from mcts_agents.search.searcher import Searcher

__all__ = ["local_searcher"]


def local_searcher(
    game: Game, budget: Budget, config: SearchConfig, seed: int | None = None
) -> Searcher:
    """The searcher for ``game`` in this process, by ``config.backend`` (see the module).

    Building a compiled searcher loads its kernel (0.3-0.6 s from numba's cache the first time
    in a process), so do it before any clock starts.

    Raises:
        InvalidOptionError: ``backend="numba"`` and no kernel can run this game or options
            (with an evaluator: always); ``kernel_options`` where no kernel that takes them
            can run the search; ``root_noise`` for ISMCTS.
        InvalidStateError: ``information="perfect"`` for a game with private information.
    """
    if config.kernel_options:  # a kernel's own settings: only that kernel may run the search
        reason = (
            "backend='python'" if config.backend == "python" else compiled.unsupported(game, config)
        )
        if reason is not None:
            raise InvalidOptionError(
                f"kernel_options {dict(config.kernel_options)!r} are a compiled kernel's "
                f"settings, and no kernel that takes them can search {game!r}: {reason}"
            )
    mode = config.information
    ismcts = mode in ("mo_ismcts", "so_ismcts") or (
        mode == "auto" and not is_perfect_information(game)
    )
    if ismcts and config.root_noise is not None:
        raise InvalidOptionError(
            f"root_noise is the Python search's (MCTS, PIMC); ISMCTS (information={mode!r} for "
            f"{game!r}) takes none, got root_noise={config.root_noise!r}"
        )
    if not is_perfect_information(game):
        if mode in ("auto", "mo_ismcts", "so_ismcts"):
            if config.backend != "python":  # the compiled ISMCTS where it plays the game
                holdem = holdem_search.supports(game) is None
                kernel = holdem_search if holdem else compiled_ismcts
                reason = kernel.unsupported(game, config)
                if reason is None:
                    if holdem:
                        return holdem_search.HoldemISMCTS(game, budget, config, seed)
                    return compiled_ismcts.CompiledISMCTS(game, budget, config, seed)
                if config.backend == "numba":
                    raise InvalidOptionError(f"backend='numba' cannot search {game!r}: {reason}")
            return ISMCTS(budget, config, seed)
        if mode == "pimc":
            return PIMC(budget, config, seed)
        if mode == "perfect":
            raise InvalidStateError(
                f"{game!r} hides information: information='perfect' would search the hidden "
                "cards; use 'mo_ismcts' (the default), 'so_ismcts' or 'pimc', or "
                "information='oracle' to search the true state on purpose"
            )
        if config.search_from not in ("auto", "here") or config.smooth is not None:
            raise InvalidOptionError(
                f"information='oracle' searches the true state with MCTS; search_from and "
                f"smooth are Information Set MCTS's (got search_from={config.search_from!r}, "
                f"smooth={config.smooth!r})"
            )
        return MCTS(budget, config, seed)  # "oracle", asked for by name
    if mode in ("mo_ismcts", "so_ismcts", "pimc"):  # allowed: a state is its own information set
        if not callable(getattr(game, "determinize", None)):
            raise InvalidOptionError(
                f"information={mode!r} needs a game with information_set and determinize; "
                f"{type(game).__name__} has none (it has no hidden information: use 'auto')"
            )
        return PIMC(budget, config, seed) if mode == "pimc" else ISMCTS(budget, config, seed)
    if config.backend == "numba" and config.evaluator is not None:
        raise InvalidOptionError(
            f"backend='numba' takes no evaluator (the compiled kernels run playouts), got "
            f"{config.evaluator!r}; use backend='auto' or 'python' (the Python search)"
        )
    if config.backend != "python":
        reason = compiled.unsupported(game, config)
        if reason is None:
            return compiled.make_compiled_searcher(game, budget, config, seed)
        if config.backend == "numba":
            raise InvalidOptionError(f"backend='numba' cannot search {game!r}: {reason}")
    playout = compiled.compiled_playout(game, config)  # loaded now, outside any clock
    return MCTS(budget, config, seed, None if playout is None else (game, playout))
