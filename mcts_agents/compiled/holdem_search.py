"""``HoldemISMCTS``: the Information Set MCTS of ``search.ismcts`` compiled for rlcard's heads-up
hold'em, limit (``LimitHoldem``, PettingZoo's ``texas_holdem_v4``) and no-limit
(``NoLimitHoldem``, ``texas_holdem_no_limit_v6``).

The same algorithm and options as the Python ``ISMCTS`` and the compiled Kuhn/Leduc search
(``compiled.ismcts``): multiple or single observer, Smooth UCT, ``search_from="here"`` or
``"start"`` (with the same fallback to a search from here where the self-play did not reach the
decision), tree reuse, budgets, final-move rules, the same ``SearchResult``. The rules are the
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

import random
from collections.abc import Hashable
from dataclasses import replace
from time import perf_counter
from typing import Any

import numpy as np

from mcts_agents.compiled.holdem_tables import HoldemTables, holdem_tables, supports
from mcts_agents.compiled.ismcts import option_problem, root_result
from mcts_agents.errors import InvalidOptionError, InvalidStateError
from mcts_agents.search.config import Budget, SearchConfig
from mcts_agents.search.ismcts import check_game
from mcts_agents.search.result import SearchResult
from mcts_agents.search.searcher import (
    Progress,
    StopCheck,
    check_room,
    game_identity,
    most_visited_is_best,
    reporter,
    run_budget,
)

__all__ = ["MAX_SLOTS", "HoldemISMCTS", "supports", "unsupported"]

#: Simulations per compiled call under a time limit or a ``should_stop``; else up to 1 << 16.
CHUNK = 1024
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
    from mcts_agents.compiled.registry import numba_available

    reason = supports(game)
    if reason is not None:
        return reason
    problem = option_problem(config, "the compiled hold'em ISMCTS")
    if problem is not None:
        return problem
    if not numba_available():
        return "numba is not installed (pip install '.[fast]')"
    return None


def _slots_for(nodes: int) -> int:
    """The smallest table (a power of two, within bounds) at most half full with ``nodes``."""
    slots = MIN_SLOTS
    while slots < MAX_SLOTS and slots // 2 < nodes + 4:
        slots *= 2
    return slots


class HoldemISMCTS:
    """Compiled Information Set MCTS over heads-up limit or no-limit hold'em; a ``Searcher``.

    Args:
        game: the rules core (``unsupported(game, config)`` must be ``None``).
        budget, config, seed: as ``search.ismcts.ISMCTS``'s.
    """

    def __init__(
        self, game: Any, budget: Budget, config: SearchConfig, seed: int | None = None
    ) -> None:
        reason = unsupported(game, config)
        if reason is not None:
            raise InvalidOptionError(
                f"the compiled hold'em ISMCTS cannot search {game!r}: {reason}"
            )
        from mcts_agents.compiled import holdem_kernel

        holdem_kernel.warm_up()  # loaded now, outside any search's clock
        self._kernel = holdem_kernel
        self.budget = budget
        self.config = config
        self.should_stop: StopCheck | None = None
        self.on_progress: Progress | None = None
        self.single_observer = config.information == "so_ismcts"
        self.from_start = config.search_from == "start"  # "auto": here (module docstring)
        self.rng = random.Random(seed)
        self._word = np.array([self.rng.getrandbits(64) | 1], np.uint64)
        self._tables: HoldemTables = holdem_tables(game)
        self._game_id: Hashable = game_identity(game)
        self._root_key = -1
        self._meta = np.zeros(2, np.int64)
        self._rehash_s = 0.0  # seconds the last rehash took
        t = self._tables
        c = config.c
        smooth = -1.0 if config.smooth is None else float(config.smooth)
        self._opts_f = np.array([c, smooth, t.low, t.high, holdem_kernel.SMOOTH_ETA,
                                 holdem_kernel.SMOOTH_D])  # fmt: skip
        self._allocate(MIN_SLOTS)

    def _allocate(self, slots: int) -> None:
        actions = self._tables.child.shape[1]
        self._keys = np.full(slots, -1, np.int64)
        self._visits = np.zeros(slots, np.int64)
        self._edge_n = np.zeros((slots, actions), np.int64)
        self._edge_w = np.zeros((slots, actions), np.float64)
        self._avail = np.zeros((slots, actions), np.int64)

    def _grow(self, nodes: int) -> None:
        """A table at most half full with ``nodes``, the stored nodes rehashed into it."""
        slots = _slots_for(nodes)
        if slots <= self._keys.shape[0]:
            return
        old = (self._keys, self._visits, self._edge_n, self._edge_w, self._avail)
        self._allocate(slots)
        self._kernel.rehash(*old, self._keys, self._visits, self._edge_n, self._edge_w,
                            self._avail)  # fmt: skip

    # ------------------------------------------------------------------ Searcher protocol
    def reset(self, seed: int | None = None) -> None:
        """Forget the table (between games); reseed if ``seed`` is given."""
        self._clear()
        if seed is not None:
            self.rng.seed(seed)
            self._word = np.array([self.rng.getrandbits(64) | 1], np.uint64)

    def _clear(self) -> None:
        self._allocate(MIN_SLOTS)
        self._meta[0] = 0
        self._root_key = -1

    def table_size(self) -> int:
        """Information-set nodes stored."""
        return int(self._meta[0])

    def table_keys(self) -> list[Hashable]:
        """Their keys, as ints (``holdem_kernel.info_key``)."""
        return [int(k) for k in self._keys[self._keys >= 0]]

    def close(self) -> None:
        """Nothing to release."""

    def prepare(self, game: Any) -> None:
        """Nothing to prepare (the kernel loaded when the searcher was built)."""

    def _root(self, state: Any, player: int) -> tuple[int, np.ndarray, int, int]:
        """``(node, own hole cards and board, board cards shown, key)``: all a search reads of
        the true state."""
        node, cards = state
        board = cards[4:]
        seen = np.zeros(7, np.int64)
        seen[0], seen[1] = cards[2 * player], cards[2 * player + 1]
        seen[2 : 2 + len(board)] = board
        key = int(self._kernel.root_key(seen, player, node, len(board)))
        return node, seen, len(board), key

    def _slot(self, key: int) -> int:
        """The slot of a stored ``key``, or -1."""
        slot = int(self._kernel.find(self._keys, key))
        return slot if self._keys[slot] == key else -1

    def search(self, game: Any, state: Any) -> SearchResult:
        """Search the decision of the player to move in ``state`` from its information set (or,
        with ``search_from="start"``, by self-play from the deal); reads of ``state`` only the
        public node, the mover's hole cards and the board."""
        start = perf_counter()
        if game.is_chance(state):
            raise InvalidStateError(
                f"a search starts where a player is to move, got a chance node of {game!r}"
            )
        if game_identity(game) != self._game_id:
            raise InvalidOptionError(
                f"this compiled ISMCTS was built for {self._game_id!r}, got {game!r}"
            )
        check_game(game, self.from_start, "so_ismcts" if self.single_observer else "mo_ismcts")
        player = game.to_play(state)
        legal = list(game.legal_actions(state))
        check_room(self.budget, len(legal))
        node, seen, shown, root = self._root(state, player)
        reused = self._prepare(root)
        budget = self.budget
        expected = self.table_size() + (budget.iterations or 0)
        if budget.iterations is None and budget.time_limit is not None:
            expected += int(RATE_GUESS * budget.time_limit)
        if budget.max_nodes:
            expected = min(expected, budget.max_nodes)
        self._grow(expected)
        deadline = start + budget.time_limit if budget.time_limit is not None else None
        if self._slot(root) < 0:
            self._keys[self._kernel.find(self._keys, root)] = root
            self._meta[0] += 1
        self._meta[1] = 0
        opts_i = np.array([int(self.from_start), int(self.single_observer), player, node, shown,
                           self.budget.max_nodes or 0, 0], np.int64)  # fmt: skip
        t = self._tables
        timed = self.budget.time_limit is not None or self.should_stop is not None

        def simulate(cap: int | None) -> int:
            n = CHUNK if timed else 1 << 16
            if cap is not None:
                n = max(1, min(n, cap))
            slots = self._keys.shape[0]
            # grow, unless the rehash (about twice the last one) would overrun the time limit
            if (
                self.table_size() + 4 >= slots // 2
                and slots < MAX_SLOTS
                and (deadline is None or perf_counter() + 2 * self._rehash_s < deadline)
            ):
                began = perf_counter()
                self._grow(self.table_size())
                self._rehash_s = perf_counter() - began
                slots = self._keys.shape[0]
            opts_i[6] = (
                slots // 2 if slots < MAX_SLOTS and self.table_size() + 4 < slots // 2 else 0
            )
            return int(
                self._kernel.simulate(
                    n, t.kind, t.to_play, t.child, t.deal_target, t.deal_next, t.blind_next,
                    t.fold_gain, t.stake, self._keys, self._visits, self._edge_n, self._edge_w,
                    self._avail, self._meta, self._opts_f, opts_i, seen, self._word,
                )
            )  # fmt: skip

        report = reporter(
            self.on_progress,
            lambda n: self._result(root, legal, player, n, perf_counter() - start, reused),
        )
        iterations = run_budget(
            self.budget,
            self.config.final_move,
            start,
            simulate,
            solved=lambda: False,
            robust_agrees=lambda: most_visited_is_best(*self._root_stats(root, legal)),
            table_size=self.table_size,
            should_stop=self.should_stop,
            progress=report,
        )
        if self.from_start and sum(self._root_stats(root, legal)[0]) < len(legal):
            return self._fallback(game, state, iterations, perf_counter() - start)
        return self._result(root, legal, player, iterations, perf_counter() - start, reused)

    def _prepare(self, root: int) -> int:
        """Keep or clear the table as ``ISMCTS`` does; returns the nodes kept (nodes a re-rooted
        Python table would prune are kept: no simulation from the new root reaches them)."""
        if not self.config.reuse or (
            not self.from_start and root != self._root_key and self._slot(root) < 0
        ):
            self._clear()
        self._root_key = root
        return self.table_size()

    def _fallback(self, game: Any, state: Any, iterations: int, spent: float) -> SearchResult:
        """As ``ISMCTS._fallback``: a search from here for a decision the self-play did not
        reach, with the same iteration budget or what is left of the time (at least a tenth)."""
        budget = self.budget
        if budget.time_limit is not None:
            budget = replace(budget, time_limit=max(budget.time_limit - spent,
                                                    budget.time_limit / 10))  # fmt: skip
        here = HoldemISMCTS(game, budget, replace(self.config, search_from="here"),
                            self.rng.getrandbits(64))  # fmt: skip
        here.should_stop, here.on_progress = self.should_stop, self.on_progress
        result = here.search(game, state)
        return replace(result, iterations=result.iterations + iterations,
                       elapsed=result.elapsed + spent, search_from="here",
                       self_play_iterations=iterations)  # fmt: skip

    def stored_policy(self, game: Any, state: Any) -> dict[int, float] | None:
        """The normalised visits stored at the information set of the player to move in
        ``state``, without searching; ``None`` where fewer visits than legal actions are
        stored."""
        player = game.to_play(state)
        legal = list(game.legal_actions(state))
        visits = self._root_stats(self._root(state, player)[3], legal)[0]
        total = sum(visits)
        if total < len(legal):
            return None
        return {a: n / total for a, n in zip(legal, visits, strict=True)}

    # ------------------------------------------------------------------ the answer
    def _root_stats(self, root: int, legal: list[int]) -> tuple[list[int], list[float]]:
        slot = self._slot(root)
        visits, values = [], []
        for action in legal:
            n = int(self._edge_n[slot, action]) if slot >= 0 else 0
            visits.append(n)
            values.append(float(self._edge_w[slot, action]) / n if n else 0.0)
        return visits, values

    def _result(
        self, root: int, legal: list[int], player: int, iterations: int, elapsed: float,
        reused: int,
    ) -> SearchResult:  # fmt: skip
        visits, values = self._root_stats(root, legal)
        return root_result(self, legal, visits, values, player, iterations, elapsed, reused)
