"""Which searcher runs a search: ``make_searcher(game, budget, config, seed, workers)``.

- ``factory``: ``make_searcher``, the one place that chooses a searcher for a game;
- ``choice``: one process's searcher (a compiled kernel where one implements the game and the
  options, else the Python ``MCTS``, ``ISMCTS`` or ``PIMC``);
- ``parallel``: ``RootParallelSearch``, independent searches in worker processes;
- ``merge``: their root statistics merged into one result.

The names below are imported on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mcts_agents._lazy import lazy_exports

if TYPE_CHECKING:
    from mcts_agents.planner.factory import make_searcher
    from mcts_agents.planner.merge import merge_results
    from mcts_agents.planner.parallel import RootParallelSearch

__all__ = ["RootParallelSearch", "make_searcher", "merge_results"]

__getattr__, __dir__ = lazy_exports(__name__)
