"""The search, in Python: the ``Game`` protocol it sees, its options, result and searchers.

- ``game``: the ``Game`` protocol (immutable, hashable states), chance, return ranges;
- ``config``: ``SearchConfig`` (the options, checked) and ``Budget`` (iterations, time, nodes);
- ``result``: ``SearchResult`` and its per-action ``ChildStats``;
- ``searcher``: the ``Searcher`` protocol every searcher implements, budgets, the final move;
- ``mcts``: ``MCTS``, the Python search for any ``Game`` (with ``tree``, ``selection``,
  ``solver``, ``noise``, ``return_range`` and ``leaf_batch``, its parts);
- ``ismcts`` and ``pimc``: ``ISMCTS`` and ``PIMC`` for games with hidden information;
- ``evaluators``: ``PositionEvaluator`` and ``BatchEvaluator``, what replaces playouts.

Which searcher runs for a game (a compiled kernel, root parallelism) is
``mcts_agents.planner.make_searcher``'s choice. Nothing here imports numba; the names below are
imported on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mcts_agents._lazy import lazy_exports

if TYPE_CHECKING:
    from mcts_agents.search.config import Budget, SearchConfig
    from mcts_agents.search.evaluators import BatchEvaluator, PositionEvaluator
    from mcts_agents.search.game import Game, State
    from mcts_agents.search.ismcts import ISMCTS
    from mcts_agents.search.mcts import MCTS
    from mcts_agents.search.pimc import PIMC
    from mcts_agents.search.result import ChildStats, SearchResult
    from mcts_agents.search.searcher import Searcher

__all__ = [
    "ISMCTS",
    "MCTS",
    "PIMC",
    "BatchEvaluator",
    "Budget",
    "ChildStats",
    "Game",
    "PositionEvaluator",
    "SearchConfig",
    "SearchResult",
    "Searcher",
    "State",
]

__getattr__, __dir__ = lazy_exports(__name__)
