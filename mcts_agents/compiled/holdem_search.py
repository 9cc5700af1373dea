"""``HoldemISMCTS``: the Information Set MCTS of ``search.ismcts`` compiled for rlcard's heads-up
hold'em, limit (``LimitHoldem``, PettingZoo's ``texas_holdem_v4``) and no-limit
(``NoLimitHoldem``, ``texas_holdem_no_limit_v6``).

The same algorithm and options as the Python ``ISMCTS`` and the compiled Kuhn/Leduc search
(``compiled.ismcts``): multiple or single observer, Smooth UCT, ``search_from="here"`` or
``"start"`` (with the same fallback to a search from here where the self-play did not reach the
decision), tree reuse, budgets, final-move rules, the same ``SearchResult``: the Python side is
``ismcts_base.InformationSetSearch``, shared with that search. The rules are the
cores' own tables (``holdem_tables``), the simulations one compiled loop (``holdem_kernel``)
over a hashed node table sized from the budget that grows (doubling, rehashed between compiled
calls) up to ``MAX_SLOTS`` slots and then stops taking new nodes, as a full ``max_nodes`` table
does: the search goes on with the nodes it has. Its random numbers are its own (same seed, same
result within this backend). ``planner.choice.local_searcher`` picks it for the two cores where
``SearchConfig.backend`` allows (``"auto"``, ``"numba"``) and numba is installed.

``search_from="auto"`` searches from here: hold'em has about 10^14 information sets, far too
many for self-play from the deal to reach the current one within a move's budget (Leduc's
``auto`` plays from the start at large budgets; here that would always fall back).

The search reads the true state only through the public betting node, the player to move's two
hole cards and the board: the opponent's cards never reach the kernel.
"""

from __future__ import annotations

from collections.abc import Hashable
from time import perf_counter
from typing import Any

import numpy as np

from mcts_agents.compiled.holdem_tables import HoldemTables, holdem_tables, supports
from mcts_agents.compiled.ismcts_base import InformationSetSearch, unsupported_by
from mcts_agents.search.config import SearchConfig

__all__ = ["MAX_SLOTS", "HoldemISMCTS", "supports", "unsupported"]

#: The node table's slots: at least ``MIN_SLOTS``; doubled while it is over half full, up to
#: ``MAX_SLOTS`` (about 235 MB in limit hold'em, 285 MB in no-limit); a table that cannot grow
#: (``MAX_SLOTS``, or a rehash that would overrun the time limit) takes nodes until it is three
#: quarters full (about 1.5 million information sets at ``MAX_SLOTS``), then no more.
MIN_SLOTS = 1 << 12
MAX_SLOTS = 1 << 21
#: simulations per second assumed when a time limit sizes the table before a search (about the
#: fastest measured; a larger table than needed costs only address space: its pages are zero
#: until a node lands there), so that a timed search seldom rehashes (a rehash of a million
#: slots takes a quarter of a second on a loaded core)
RATE_GUESS = 2_000_000


def unsupported(game: Any, config: SearchConfig) -> str | None:
    """Why ``HoldemISMCTS`` cannot run this search (a sentence), or ``None`` if it can."""
    return unsupported_by(game, config, supports, HoldemISMCTS.NAME)


def _slots_for(nodes: int) -> int:
    """The smallest table (a power of two, within bounds) at most half full with ``nodes``."""
    slots = MIN_SLOTS
    while slots < MAX_SLOTS and slots // 2 < nodes + 4:
        slots *= 2
    return slots


class HoldemISMCTS(InformationSetSearch):
    """Compiled Information Set MCTS over heads-up limit or no-limit hold'em; a ``Searcher``
    built as ``InformationSetSearch`` (``game``, ``budget``, ``config``, ``seed``);
    ``search_from="auto"`` searches from here (the module docstring)."""

    NAME = "the compiled hold'em ISMCTS"
    unsupported = staticmethod(unsupported)

    def _setup(self, game: Any) -> None:
        self._tables: HoldemTables = holdem_tables(game)
        self._rehash_s = 0.0  # seconds the last rehash took
        self._deadline: float | None = None
        self._allocate(MIN_SLOTS)

    def _load(self) -> Any:
        from mcts_agents.compiled import holdem_kernel

        holdem_kernel.warm_up()
        return holdem_kernel

    def _allocate(self, slots: int) -> None:
        from mcts_agents.compiled.ismcts_core import new_tree

        self._tree = new_tree(np.full(slots, -1, np.int64), self._tables.child.shape[1],
                              self._meta)  # fmt: skip

    def _grow(self, nodes: int) -> None:
        """A table at most half full with ``nodes``, the stored nodes rehashed into it."""
        slots = _slots_for(nodes)
        if slots <= self._tree.stored.shape[0]:
            return
        old = self._tree
        self._allocate(slots)
        self._kernel.rehash(old, self._tree)

    # ------------------------------------------------------------------ the node table
    def _clear_table(self) -> None:
        self._allocate(MIN_SLOTS)

    def table_keys(self) -> list[Hashable]:
        """Their keys, as ints (``holdem_kernel.info_key``)."""
        keys = self._tree.stored
        return [int(k) for k in keys[keys >= 0]]

    def _slot(self, key: int) -> int:
        keys = self._tree.stored
        slot = int(self._kernel.find(keys, key))
        return slot if keys[slot] == key else -1

    def _store(self, key: int) -> None:
        self._tree.stored[self._kernel.find(self._tree.stored, key)] = key

    def _locate(self, state: Any, player: int) -> tuple[int, tuple[Any, ...]]:
        """The root's key and ``(node, board cards shown, own hole cards and board)``: all a
        search reads of the true state."""
        node, cards = state
        board = cards[4:]
        seen = np.zeros(7, np.int64)
        seen[0], seen[1] = cards[2 * player], cards[2 * player + 1]
        seen[2 : 2 + len(board)] = board
        key = int(self._kernel.root_key(seen, player, node, len(board)))
        return key, (node, len(board), seen)

    def _open(self, start: float, player: int) -> None:
        """The table sized for the budget (from a guess of the rate under a time limit), and
        the kernel's settings."""
        from mcts_agents.compiled.ismcts_core import SMOOTH_D, SMOOTH_ETA, options

        budget = self.budget
        expected = self.table_size() + (budget.iterations or 0)
        if budget.iterations is None and budget.time_limit is not None:
            expected += int(RATE_GUESS * budget.time_limit)
        if budget.max_nodes:
            expected = min(expected, budget.max_nodes)
        self._grow(expected)
        self._deadline = start + budget.time_limit if budget.time_limit is not None else None
        config, t = self.config, self._tables
        self._options = options(
            c=config.c, smooth=-1.0 if config.smooth is None else config.smooth, low=t.low,
            high=t.high, eta=SMOOTH_ETA, decay=SMOOTH_D,
            from_start=self.from_start, single=self.single_observer, player=player,
            max_nodes=budget.max_nodes or 0,
        )  # fmt: skip

    def _simulate(self, n: int) -> int:
        """One kernel call; the table grown first where it is half full, unless the rehash
        (about twice the last one) would overrun the time limit."""
        slots = self._tree.stored.shape[0]
        if (
            self.table_size() + 4 >= slots // 2
            and slots < MAX_SLOTS
            and (self._deadline is None or perf_counter() + 2 * self._rehash_s < self._deadline)
        ):
            began = perf_counter()
            self._grow(self.table_size())
            self._rehash_s = perf_counter() - began
            slots = self._tree.stored.shape[0]
        load = slots // 2 if slots < MAX_SLOTS and self.table_size() + 4 < slots // 2 else 0
        node, shown, seen = self._root
        return int(self._kernel.simulate(n, self._tables, self._tree, self._options, node, shown,
                                         seen, load, self._word))  # fmt: skip
