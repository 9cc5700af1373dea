"""``BoardSearch``: the opponents' trees of N boards kept as rules' words, searched in one batch.

The native vector env's fast path (``mcts_agents.rl.boards``) keeps each board as a row of its
rule set's words (``compiled.boards``). Board ``i``'s opponent searcher (a ``CompiledSearch``
or ``CompiledConnectFour`` that ``compiled.batch.batchable`` accepts) is ``attach`` ed once per
episode; ``moves(words, boards)`` then searches the given boards exactly as
``searcher.search(game, state)`` followed by ``best_action`` would, without a core state:

1. each searcher's seed drawn from its own generator (``KernelSearcher.begin``'s first line);
2. every seed set and every root found, re-rooted or added in one compiled call
   (``board_trees.prepare_*``, in parallel from ``PREPARE_PARALLEL_MIN`` trees; the root key
   kept here per board, as ``KernelSearcher._root_key`` is kept there);
3. the simulations of all the trees in ``compiled.batch``'s kernels (one parallel call, again
   for the trees whose arrays grew);
4. every move by the final-move rule in one compiled call (``board_trees.pick_*``).

Same seeds, same moves, same trees: the per-seed equality tests of ``rl.vector`` check it
against the single-env wrapper, whose searches go through ``searcher.search``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import get_num_threads

from mcts_agents.compiled import batch, kernel
from mcts_agents.compiled import connect_four_kernel as c4_kernel
from mcts_agents.compiled.board_trees import (
    open_connect_four,
    open_shared,
    pick_connect_four,
    pick_shared,
    prepare_connect_four,
    prepare_connect_four_serial,
)
from mcts_agents.compiled.boards import BoardRules, call_fixed
from mcts_agents.compiled.connect_four_searcher import CompiledConnectFour
from mcts_agents.compiled.searcher import CompiledSearch
from mcts_agents.compiled.tree_search import NO_LIMIT

__all__ = ["BoardSearch", "run_kernel", "searchable"]

_FINAL_MOVES = ("visits", "value")
_GROW_NODES = kernel.GROW_NODES  # this status and those above ask for bigger arrays (both kernels)
#: Fewer trees than this are prepared (seeds, roots) on one thread. Waking the other threads
#: for a second parallel region in a step costs more than it saves on a busy machine: measured
#: (Connect Four, N = 64, 2 cores, load average 5.5) 2,000-2,300 learner steps/s with the
#: parallel twin from 32 trees against 3,600-3,800 on one thread (the kernel's own parallel
#: call waits for its threads as well).
PREPARE_PARALLEL_MIN = 1024
assert c4_kernel.GROW_NODES == _GROW_NODES and c4_kernel.GROW_EDGES == kernel.GROW_EDGES


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
    call_fixed(kept, shared, kept["game"], *args)


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
        self._size = max(rules.codec.max_actions, 1)
        self._no_limit = np.full(n, NO_LIMIT, np.int64)
        self._done = np.zeros(n, np.int64)  # each kernel call's simulations and status per tree
        self._status = np.zeros(n, np.int64)
        self._draw: list[Any] = [None] * n  # each searcher's ``rng.getrandbits``
        # roots, want, c, solver, decisive of a batch (views of their first rows)
        self._work = (
            np.zeros(n, np.int64), np.zeros(n, np.int64), np.zeros(n, np.float64),
            np.zeros(n, np.bool_), np.zeros(n, np.bool_),
        )  # fmt: skip

    def attach(self, i: int, searcher: Any, fresh: bool = False) -> None:
        """Search board ``i`` with ``searcher`` from its current root key on. ``fresh``: the
        board was searched here until its ``detach`` and its searcher has searched nowhere else
        since (its arrays are those its pool slot holds)."""
        if self.kind is None:
            self.kind = type(searcher)
        if not (fresh and searcher is self._last[i]):
            self.trees[i] = self._pool(searcher).slot(searcher)
        self._draw[i] = searcher.rng.getrandbits
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
        draw = self._draw
        seeds = np.fromiter([draw[i](64) | 1 for i in boards.tolist()], np.uint64, count)
        # (each searcher's seed from its own generator, as ``KernelSearcher.begin`` draws it)
        trees = self.trees[boards]
        c4 = self.kind is CompiledConnectFour
        pool = self._pool(self.searchers[int(boards[0])])
        work = self._work
        roots, want, c = work[0][:count], work[1][:count], work[2][:count]
        solver, decisive = work[3][:count], work[4][:count]
        both = (
            trees, words, boards, self.keys, self.keyed, seeds, self.reuse, self.limits, self.c,
            self.solver, self.decisive, roots, want, c, solver, decisive,
        )  # fmt: skip
        parallel = count >= PREPARE_PARALLEL_MIN and get_num_threads() > 1
        if c4:
            prepare = prepare_connect_four if parallel else prepare_connect_four_serial
            active, total = prepare(pool.items, *both)
        else:
            active, total = self.rules.prepare(parallel, pool.items, *both)
        if active:
            self._run(c4, pool, boards, trees, roots, want, c, solver, decisive, active, total)
        moves = np.zeros(count, np.int64)
        pick = pick_connect_four if c4 else pick_shared
        pick(pool.items, trees, roots, boards, self.by_value, self._size, moves)
        for j in (moves < 0).nonzero()[0].tolist():  # no edge yet: the first legal move
            moves[j] = self.rules.legal_first(words[boards[j]])
        return moves

    def _run(
        self, c4: bool, pool: Any, boards: np.ndarray, trees: np.ndarray, roots: np.ndarray,
        want: np.ndarray, c: np.ndarray, solver: np.ndarray, decisive: np.ndarray, active: int,
        total: int,
    ) -> None:  # fmt: skip
        """The simulations of the trees with ``want[j] > 0`` (``active`` of them, ``total``
        simulations): one kernel call, then again for the trees whose arrays had to grow
        (their slots in ``trees`` updated)."""
        count = len(boards)
        chosen: Any = slice(None) if active == count else want.nonzero()[0]
        ran = None
        codec = self.rules.codec
        while True:
            run_trees, run_roots, run_want = trees[chosen], roots[chosen], want[chosen]
            n = len(run_trees)
            done, status = self._done[:n], self._status[:n]
            max_nodes = self._no_limit[:n]
            parallel = n > 1 and total >= batch.PARALLEL_MIN and get_num_threads() > 1
            items = pool.items
            if c4:
                run_kernel(
                    self._kept, c4, parallel, items, self.searchers[int(boards[0])].geometry,
                    run_trees, run_roots, run_want, c[chosen], solver[chosen], decisive[chosen],
                    max_nodes, done, status,
                )  # fmt: skip
            else:
                run_kernel(
                    self._kept, c4, parallel, codec.params, items, run_trees, run_roots, run_want,
                    c[chosen], solver[chosen], decisive[chosen], max_nodes, codec.max_actions,
                    codec.max_depth, False, done, status,
                )  # fmt: skip
            if not np.count_nonzero(status >= _GROW_NODES):  # (no TABLE_FULL: no node limit)
                return
            if ran is None:
                ran = np.zeros(count, np.int64)
            grown = np.flatnonzero(status >= _GROW_NODES)
            picked = np.arange(count)[chosen]
            ran[picked] += done
            for j in grown.tolist():
                k = int(picked[j])
                searcher = self.searchers[int(boards[k])]
                searcher._grow(int(status[j]))
                trees[k] = self.trees[boards[k]] = pool.slot(searcher)
            again = picked[grown]
            unsolved = np.zeros(len(again), np.bool_)
            open_roots = open_connect_four if c4 else open_shared
            open_roots(pool.items, trees[again], roots[again], unsolved)
            want[again] = np.where(unsolved, want[again] - ran[again], 0)
            ran[again] = 0
            chosen = again[want[again] > 0]
            if not len(chosen):
                return
            total = int(want[chosen].sum())
