"""``make_searcher``: the one place that chooses a searcher for a game.

With ``workers == 1`` it is the backend's searcher for the game (``backends.local_searcher``: a
compiled kernel or the Python ``MCTS``); with more, a ``RootParallelSearch`` whose searches in
every process are chosen the same way.
"""

from __future__ import annotations

from mcts_agents.planner.choice import local_searcher
from mcts_agents.planner.parallel import RootParallelSearch, validate_workers
from mcts_agents.search.config import Budget, SearchConfig
from mcts_agents.search.game import Game
from mcts_agents.search.searcher import Searcher

__all__ = ["make_searcher"]


def make_searcher(
    game: Game,
    budget: Budget,
    config: SearchConfig | None = None,
    seed: int | None = None,
    workers: int = 1,
) -> Searcher:
    """A searcher for ``game`` (``search(game, state)``, tree kept until ``reset``).

    Args:
        game: the game it will search (its backend is chosen for it).
        budget: the budget of each search.
        config: how to search (default ``SearchConfig()``); ``config.backend`` picks the backend.
        seed: seed of the search's random numbers.
        workers: independent searches merged at the root (``RootParallelSearch``), one in this
            process and the rest in worker processes.

    Raises:
        InvalidOptionError: a bad ``workers``, a configuration that cannot go to worker
            processes, or ``backend="numba"`` for a game or options no kernel implements.
    """
    config = SearchConfig() if config is None else config
    if validate_workers(workers) == 1:
        return local_searcher(game, budget, config, seed)
    searcher = RootParallelSearch(budget, config, seed, workers)
    searcher.local_for(game)  # builds the local search now: a bad backend raises here
    return searcher
