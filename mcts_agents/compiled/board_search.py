"""``BoardSearch``: the opponents' trees of N boards kept as rules' words, searched in one batch.

The native vector env's fast path (``mcts_agents.rl.boards``) keeps each board as a row of its
rule set's words (``compiled.boards``). Board ``i``'s opponent searcher (a ``CompiledSearch``
or ``CompiledConnectFour`` that ``compiled.batch.batchable`` accepts) is ``attach`` ed once per
episode; ``moves(words, boards)`` then searches the given boards exactly as
``searcher.search(game, state)`` followed by ``best_action`` would, without a core state:

1. each searcher's seed drawn from its own generator (``KernelSearcher.begin``'s first line);
2. one compiled call over all the trees, in parallel (``board_trees.search_*``), each tree's
   search whole: its seed set, its root found, re-rooted or added (the root key kept here per
   board, as ``KernelSearcher._root_key`` is kept there), its simulations (the single kernel's
   ``run``) and its move by the final-move rule;
3. the trees whose arrays had to grow: grown, the rest of their simulations run in
   ``compiled.batch``'s kernels (again for those that grow again), their moves picked.

Same seeds, same moves, same trees: the per-seed equality tests of ``rl.vector`` check it
against the single-env wrapper, whose searches go through ``searcher.search``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import get_num_threads, typeof

from mcts_agents.compiled import batch, kernel
from mcts_agents.compiled import connect_four_kernel as c4_kernel
from mcts_agents.compiled.board_trees import (
    open_connect_four,
    open_shared,
    pick_connect_four,
    pick_shared,
    search_connect_four,
    search_connect_four_serial,
    search_shared,
    search_shared_serial,
)
from mcts_agents.compiled.boards import BoardRules, call_fixed
from mcts_agents.compiled.connect_four_searcher import CompiledConnectFour
from mcts_agents.compiled.searcher import CompiledSearch
from mcts_agents.compiled.tree_search import NO_LIMIT

__all__ = ["BoardSearch", "run_kernel", "searchable"]

_FINAL_MOVES = ("visits", "value")
_GROW_NODES = kernel.GROW_NODES  # this status and those above ask for bigger arrays (both kernels)
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


def run_kernel(kept: dict[Any, Any], function: Any, per_game: bool, *args: Any) -> Any:
    """``function(*args)``: a batch kernel, the searches of ``board_trees.search_*`` or
    ``compiled.batch``'s simulations (``per_game``: one compiled per game, ``rules``' game
    then passed first), through the compiled entry point kept in ``kept`` (the arguments of
    each ``function`` keep their types); the one place this module enters them
    (``benchmarks/vector.py`` times it)."""
    if per_game:
        return call_fixed(kept, function, kept["game"], *args)
    entry = kept.get(function)
    if entry is not None:
        return entry(*args)
    result = function(*args)
    found = function.overloads.get(tuple(typeof(a) for a in args))
    if found is not None:
        kept[function] = found.entry_point
    return result


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
        # each tree's root, simulations wanted and done, kernel status, in a batch's order
        self._roots = np.zeros(n, np.int64)
        self._want = np.zeros(n, np.int64)
        self._limit: int | None = None  # every board's iterations (-1: not all the same)
        size = self._size
        self._scratch = (
            np.zeros((n, size), np.int64),
            np.zeros((n, size)),
            np.zeros((n, size), np.int64),
            np.zeros((n, size), np.int64),
            np.zeros((n, size), np.bool_),
        )  # the picks' work space, a row a tree (visits, values, labels, edges, same mover)

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
        self.limits[i] = limit = searcher.budget.iterations
        if self._limit is None:
            self._limit = limit
        elif self._limit != limit:
            self._limit = -1
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
        seeds = np.fromiter([draw[i](64) for i in boards.tolist()], np.uint64, count)
        # (each searcher's seed from its own generator, as ``KernelSearcher.begin`` draws it;
        # ``| 1`` in the compiled call)
        first = self.searchers[int(boards[0])]
        c4 = self.kind is CompiledConnectFour
        pool = self._pool(first)
        roots, want = self._roots[:count], self._want[:count]
        done, status = self._done[:count], self._status[:count]
        moves = np.empty(count, np.int64)
        limit = self._limit
        total = (
            count * limit if limit is not None and limit >= 0 else int(self.limits[boards].sum())
        )
        parallel = count > 1 and total >= batch.PARALLEL_MIN and get_num_threads() > 1
        both = (
            self.trees, words, boards, self.keys, self.keyed, seeds, self.reuse, self.limits,
            self.c, self.solver, self.decisive, self.by_value,
        )  # fmt: skip
        if c4:
            search = search_connect_four if parallel else search_connect_four_serial
            grown = run_kernel(
                self._kept, search, False, pool.items, first.geometry, *both, roots, want, done,
                status, moves, self._scratch,
            )  # fmt: skip
        else:
            codec = self.rules.codec
            search = search_shared if parallel else search_shared_serial
            grown = run_kernel(
                self._kept, search, True, codec.params, pool.items, *both, codec.max_actions,
                codec.max_depth, roots, want, done, status, moves, self._scratch,
            )  # fmt: skip
        if grown:
            self._finish(c4, pool, boards, moves)
        for j in (moves < 0).nonzero()[0].tolist():  # no edge yet: the first legal move
            moves[j] = self.rules.legal_first(words[boards[j]])
        return moves

    def _finish(self, c4: bool, pool: Any, boards: np.ndarray, moves: np.ndarray) -> None:
        """The searches of a batch whose trees' arrays had to grow (``status >= GROW_NODES``):
        each grown (its slot in ``trees`` updated), the rest of its simulations run if its root
        is still open (one kernel call, again for those that grow again), its move picked."""
        count = len(boards)
        roots, status = self._roots[:count], self._status[:count]
        grew = (status >= _GROW_NODES).nonzero()[0]
        js, codes = grew, status[grew]
        left = self._want[:count][grew] - self._done[:count][grew]
        codec = self.rules.codec
        open_roots = open_connect_four if c4 else open_shared
        while True:
            for j, code in zip(js.tolist(), codes.tolist(), strict=True):
                i = int(boards[j])
                searcher = self.searchers[i]
                searcher._grow(code)
                self.trees[i] = pool.slot(searcher)
            unsolved = np.zeros(len(js), np.bool_)
            open_roots(pool.items, self.trees[boards[js]], roots[js], unsolved)
            keep = unsolved & (left > 0)
            js, left = js[keep], left[keep]
            n = len(js)
            if not n:
                break
            chosen = boards[js]
            trees = self.trees[chosen]
            done, codes = np.zeros(n, np.int64), np.zeros(n, np.int64)
            parallel = n > 1 and int(left.sum()) >= batch.PARALLEL_MIN and get_num_threads() > 1
            items, max_nodes = pool.items, self._no_limit[:n]
            c, solver, decisive = self.c[chosen], self.solver[chosen], self.decisive[chosen]
            if c4:
                run = _RUN_CONNECT_FOUR if parallel else _SERIAL_CONNECT_FOUR
                run_kernel(
                    self._kept, run, False, items, self.searchers[int(chosen[0])].geometry,
                    trees, roots[js], left, c, solver, decisive, max_nodes, done, codes,
                )  # fmt: skip
            else:
                shared = _RUN_SHARED if parallel else _SERIAL_SHARED
                run_kernel(
                    self._kept, shared, True, codec.params, items, trees, roots[js], left, c,
                    solver, decisive, max_nodes, codec.max_actions, codec.max_depth, False, done,
                    codes,
                )  # fmt: skip
            again = codes >= _GROW_NODES
            js, codes, left = js[again], codes[again], (left - done)[again]
            if not len(js):
                break
        picked = np.zeros(len(grew), np.int64)
        pick = pick_connect_four if c4 else pick_shared
        pick(pool.items, self.trees[boards[grew]], roots[grew], boards[grew], self.by_value,
             self._size, picked)  # fmt: skip
        moves[grew] = picked
