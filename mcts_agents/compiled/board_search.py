"""``BoardSearch``: the opponents' trees of N boards kept as rules' words, searched in one batch.

The native vector env's fast path (``mcts_agents.rl.boards``) keeps each board as a row of its
rule set's words (``compiled.boards``). Board ``i``'s opponent searcher (a ``CompiledSearch``
or ``CompiledConnectFour`` that ``compiled.batch.batchable`` accepts) is ``attach`` ed once per
episode; ``moves(words, boards)`` then searches the given boards exactly as
``searcher.search(game, state)`` followed by ``best_action`` would, without a core state:

1. each searcher's seed drawn from its own generator (``KernelSearcher.begin``'s first line);
2. every root found, re-rooted or added in one compiled call (``boards.begin_*``, the root key
   kept here per board, as ``KernelSearcher._root_key`` is kept there);
3. the simulations of all the trees in ``compiled.batch``'s kernels (one parallel call, again
   for the trees whose arrays grew);
4. every move by the final-move rule in one compiled call (``boards.pick_*``).

Same seeds, same moves, same trees: the per-seed equality tests of ``rl.vector`` check it
against the single-env wrapper, whose searches go through ``searcher.search``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import get_num_threads

from mcts_agents.compiled import batch
from mcts_agents.compiled.boards import (
    BoardRules,
    begin_connect_four,
    call,
    open_connect_four,
    open_shared,
    pick_connect_four,
    pick_shared,
)
from mcts_agents.compiled.connect_four_searcher import CompiledConnectFour
from mcts_agents.compiled.searcher import CompiledSearch
from mcts_agents.compiled.tree_search import NO_LIMIT

__all__ = ["BoardSearch", "run_kernel", "searchable"]

_FINAL_MOVES = ("visits", "value")


def searchable(searcher: Any, rules: BoardRules) -> bool:
    """Whether ``BoardSearch`` can search for ``searcher`` on ``rules``' words: a batchable
    compiled searcher of two players whose positions are those words, an iteration budget
    without a node limit, and the ``"visits"`` or ``"value"`` final move."""
    if not batch.batchable(searcher) or searcher.budget.max_nodes is not None:
        return False
    if searcher.config.final_move not in _FINAL_MOVES:
        return False
    if type(searcher) is CompiledConnectFour:
        return rules.codec.words == 2 and rules.kind == 0
    return (
        type(searcher) is CompiledSearch
        and searcher.codec.game_id == rules.g
        and searcher.codec.players == 2
        and np.array_equal(searcher.codec.params, rules.p)
    )


def run_kernel(kept: dict[Any, Any], c4: bool, parallel: bool, *args: Any) -> None:
    """One call of ``compiled.batch``'s kernels (Connect Four's, or the shared one for
    ``rules``' game: ``args`` then start with its parameter words); the one place this module
    enters them (``benchmarks/vector.py`` times it)."""
    if c4:
        run = _RUN_CONNECT_FOUR if parallel else _SERIAL_CONNECT_FOUR
        run(*args)
        return
    shared = _RUN_SHARED if parallel else _SERIAL_SHARED
    call(kept, shared, kept["game"], *args)


# Bound here, not looked up in ``batch`` at each call: a benchmark that times ``batch``'s
# kernels (the AEC path's searches) and ``run_kernel`` counts each call once.
_RUN_CONNECT_FOUR, _SERIAL_CONNECT_FOUR = batch._run_connect_four, batch._serial_connect_four
_RUN_SHARED, _SERIAL_SHARED = batch._run_shared, batch._serial_shared


class BoardSearch:
    """The searchers of ``num_boards`` boards of one game (see the module)."""

    def __init__(self, rules: BoardRules, num_boards: int) -> None:
        self.rules = rules
        n = num_boards
        self.searchers: list[Any] = [None] * n
        self._last: list[Any] = [None] * n  # each board's last searcher (its settings below)
        self.trees = np.zeros(n, np.int64)  # each searcher's slot in its class's pool
        self.keys = np.zeros((n, rules.codec.words), np.int64)  # each tree's root key
        self.keyed = np.zeros(n, np.bool_)
        self.limits = np.zeros(n, np.int64)
        self.c = np.zeros(n, np.float64)
        self.solver = np.zeros(n, np.bool_)
        self.decisive = np.zeros(n, np.bool_)
        self.reuse = np.zeros(n, np.bool_)
        self.by_value = np.zeros(n, np.bool_)
        self.kind: type | None = None
        self._kept: dict[Any, Any] = {"game": rules.g}  # the shared kernel's entry points

    def attach(self, i: int, searcher: Any) -> None:
        """Search board ``i`` with ``searcher`` from its current root key on."""
        if self.kind is None:
            self.kind = type(searcher)
        self.trees[i] = self._pool(searcher).slot(searcher)
        key = searcher._root_key
        self.keyed[i] = key is not None
        if key is not None:
            self.keys[i] = key
        if searcher is self._last[i]:  # the same searcher as last episode: same settings
            self.searchers[i] = searcher
            return
        self.searchers[i] = self._last[i] = searcher
        config = searcher.config
        self.limits[i] = searcher.budget.iterations
        self.c[i] = config.c
        self.solver[i] = config.solver
        self.decisive[i] = searcher._decisive()
        self.reuse[i] = config.reuse
        self.by_value[i] = config.final_move == "value"

    def detach(self, i: int, keep: bool = True) -> None:
        """Board ``i`` no longer searched here; its searcher's root key is written back
        (``keep``; not after the searcher's ``reset``, which forgot it)."""
        searcher = self.searchers[i]
        if searcher is not None and keep:
            searcher._root_key = tuple(int(w) for w in self.keys[i]) if self.keyed[i] else None
        self.searchers[i] = None

    @staticmethod
    def _pool(searcher: Any) -> Any:
        kind = type(searcher)
        pool = batch._POOLS.get(kind)
        if pool is None:
            pool = batch._POOLS[kind] = batch._Pool(searcher)
        return pool

    def moves(self, words: np.ndarray, boards: np.ndarray) -> np.ndarray:
        """The move of board ``boards[j]``'s searcher at ``words[boards[j]]`` for every ``j``
        (none over), each searched as its own ``search`` would."""
        count = len(boards)
        searchers = [self.searchers[i] for i in boards.tolist()]
        for s in searchers:
            s.rng_state[0] = s.rng.getrandbits(64) | 1
        trees = self.trees[boards]
        c4 = self.kind is CompiledConnectFour
        pool = self._pool(searchers[0])
        nds, eds, slots, metas, rngs = pool.lists
        roots = np.zeros(count, np.int64)
        reuse = self.reuse[boards]
        if c4:
            begin_connect_four(
                nds, eds, slots, metas, trees, words, boards, self.keys, self.keyed, reuse, roots
            )
        else:
            self.rules.begin(
                nds, eds, slots, metas, trees, words, boards, self.keys, self.keyed, reuse, roots
            )
        limits = self.limits[boards]
        c, solver = self.c[boards], self.solver[boards]
        decisive = self.decisive[boards]
        max_nodes = np.full(count, NO_LIMIT, np.int64)
        ran = np.zeros(count, np.int64)
        unsolved = np.zeros(count, np.bool_)
        open_roots = open_connect_four if c4 else open_shared
        while True:
            open_roots(nds, trees, roots, unsolved)
            active = np.flatnonzero(unsolved & (ran < limits))
            if not len(active):
                break
            done = np.zeros(len(active), np.int64)
            status = np.zeros(len(active), np.int64)
            want = limits[active] - ran[active]
            parallel = (
                len(active) > 1 and int(want.sum()) >= batch.PARALLEL_MIN and get_num_threads() > 1
            )
            if c4:
                run_kernel(
                    self._kept, c4, parallel, nds, eds, slots, metas, rngs,
                    searchers[0].geometry, trees[active], roots[active], want, c[active],
                    solver[active], decisive[active], max_nodes[active], done, status,
                )  # fmt: skip
            else:
                codec = self.rules.codec
                run_kernel(
                    self._kept, c4, parallel, codec.params, nds, eds, slots, metas, rngs,
                    trees[active], roots[active], want, c[active], solver[active],
                    decisive[active], max_nodes[active], codec.max_actions, codec.max_depth,
                    False, done, status,
                )  # fmt: skip
            ran[active] += done
            for j in np.flatnonzero(status).tolist():
                k = int(active[j])
                searcher = searchers[k]
                searcher._grow(int(status[j]))
                tree = pool.slot(searcher)
                trees[k] = self.trees[boards[k]] = tree
            if np.any(status):
                nds, eds, slots, metas, rngs = pool.lists
        moves = np.zeros(count, np.int64)
        by_value = self.by_value[boards]
        pick = pick_connect_four if c4 else pick_shared
        size = max(self.rules.codec.max_actions, 1)
        for value in (False, True):
            chosen = np.flatnonzero(by_value == value)
            if len(chosen):
                picked = np.zeros(len(chosen), np.int64)
                pick(nds, eds, trees[chosen], roots[chosen], value, size, picked)
                moves[chosen] = picked
        for j in np.flatnonzero(moves < 0).tolist():  # no edge yet: the first legal move
            moves[j] = self.rules.legal_first(words[boards[j]])
        return moves
