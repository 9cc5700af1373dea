"""``BoardSearch``: the opponents' trees of N boards kept as rules' words, searched in one batch.

The native vector env's fast path (``mcts_agents.rl.boards``) keeps each board as a row of its
rule set's words (``compiled.boards``). Board ``i``'s opponent searcher (a ``CompiledSearch``
that ``compiled.batch.batchable`` accepts) is ``attach`` ed once per episode; ``moves(words,
boards)`` then searches the given boards exactly as ``searcher.search(game, state)`` followed
by ``best_action`` would, without a core state:

1. each searcher's seed drawn from its own generator (``CompiledSearch.begin``'s first line);
2. one compiled call over all the trees, in parallel (``board_trees.search_trees``), each
   tree's search whole through the core's phases: ``core.begin`` (its seed set, its root found,
   re-rooted or added, the root key kept in its tree as its searcher keeps it),
   ``core.search_tree`` and ``core.pick`` (the final-move rule), with its searcher's options;
3. the trees that had to grow: grown, the rest of their simulations run in
   ``compiled.batch.run_trees`` (again for those that grow again), their moves picked.

Same seeds, same moves, same trees: the per-seed equality tests of ``rl.vector`` check it
against the single-env wrapper, whose searches go through ``searcher.search``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import typeof

from mcts_agents.compiled import batch
from mcts_agents.compiled.board_trees import (
    open_trees,
    pick_trees,
    search_trees,
    search_trees_serial,
)
from mcts_agents.compiled.boards import BoardRules, call_fixed
from mcts_agents.compiled.core import GROW_NODES
from mcts_agents.compiled.searcher import CompiledSearch
from mcts_agents.compiled.threads import chunked

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
    each ``function`` keep their types), the trees handed out to numba's threads
    ``threads.CHUNK_SIZE`` at a time; the one place this module enters them
    (``benchmarks/vector.py`` times it)."""
    if per_game:
        return chunked(call_fixed, kept, function, kept["game"], *args)
    entry = kept.get(function)
    if entry is not None:
        return chunked(entry, *args)
    result = chunked(function, *args)
    found = function.overloads.get(tuple(typeof(a) for a in args))
    if found is not None:
        kept[function] = found.entry_point
    return result


# Bound here, not looked up in ``batch`` at each call: a benchmark that times ``batch``'s
# kernels (the AEC path's searches) and ``run_kernel`` counts each call once.
_RUN_TREES, _RUN_TREES_SERIAL = batch.run_trees, batch.run_trees_serial


class BoardSearch:
    """The searchers of ``num_boards`` boards of one game (see the module)."""

    def __init__(self, rules: BoardRules, num_boards: int) -> None:
        self.rules = rules
        n = num_boards
        self.searchers: list[Any] = [None] * n
        self._last: list[Any] = [None] * n  # each board's last searcher (its settings below)
        self.trees = np.zeros(n, np.int64)  # each searcher's slot in its class's pool
        self.limits = np.zeros(n, np.int64)
        self.kind: type | None = None
        self._kept: dict[Any, Any] = {"game": rules.g}  # the core's entry points
        self._done = np.zeros(n, np.int64)  # each core call's simulations and status per tree
        self._status = np.zeros(n, np.int64)
        self._draw: list[Any] = [None] * n  # each searcher's ``rng.getrandbits``
        # each tree's root, simulations wanted and done, core status, in a batch's order
        self._roots = np.zeros(n, np.int64)
        self._want = np.zeros(n, np.int64)
        self._limit: int | None = None  # every board's iterations (-1: not all the same)
        size = max(rules.codec.max_actions, 1)
        self._scratch = (
            np.zeros((n, size), np.int64),
            np.zeros((n, size), np.int64),
            np.zeros((n, size)),
            np.zeros((n, size), np.int64),
        )  # the picks' work space, a row a tree (edges, visits, values, labels)

    def attach(self, i: int, searcher: Any, fresh: bool = False) -> None:
        """Search board ``i`` with ``searcher`` (its tree and options, its root key kept in its
        tree). ``fresh``: the board was searched here until its ``detach`` and its searcher has
        searched nowhere else since (its tree is the one its pool slot holds)."""
        if self.kind is None:
            self.kind = type(searcher)
        if not (fresh and searcher is self._last[i]):
            self.trees[i] = self._pool(searcher).slot(searcher)
        self._draw[i] = searcher.rng.getrandbits
        if searcher is self._last[i]:  # the same searcher as last episode: same settings
            self.searchers[i] = searcher
            return
        self.searchers[i] = self._last[i] = searcher
        self.limits[i] = limit = searcher.budget.iterations
        if self._limit is None:
            self._limit = limit
        elif self._limit != limit:
            self._limit = -1

    def detach(self, i: int, keep: bool = True) -> None:
        """Board ``i`` no longer searched here (its searcher's tree, root key included, is its
        own: nothing to write back, ``keep`` or not)."""
        self.searchers[i] = None

    @staticmethod
    def _pool(searcher: Any) -> Any:
        return batch.pool_for(searcher)

    def moves(self, words: np.ndarray, boards: np.ndarray) -> np.ndarray:
        """The move of board ``boards[j]``'s searcher at ``words[boards[j]]`` for every ``j``
        (none over), each searched as its own ``search`` would."""
        count = len(boards)
        draw = self._draw
        # each searcher's seed from its own generator, as ``CompiledSearch.begin`` draws it
        seeds = np.fromiter([draw[i](64) for i in boards.tolist()], np.uint64, count)
        pool = self._pool(self.searchers[int(boards[0])])
        roots, want = self._roots[:count], self._want[:count]
        done, status = self._done[:count], self._status[:count]
        moves = np.empty(count, np.int64)
        limit = self._limit
        total = (
            count * limit if limit is not None and limit >= 0 else int(self.limits[boards].sum())
        )
        parallel = count > 1 and total >= batch.PARALLEL_MIN and batch.thread_count() > 1
        search = search_trees if parallel else search_trees_serial
        grown = run_kernel(
            self._kept, search, True, pool.items, self.trees, words, boards, seeds, roots, want,
            done, status, moves, self._scratch,
        )  # fmt: skip
        if grown:
            self._finish(pool, boards, moves)
        for j in (moves < 0).nonzero()[0].tolist():  # no edge yet: the first legal move
            moves[j] = self.rules.legal_first(words[boards[j]])
        return moves

    def _finish(self, pool: Any, boards: np.ndarray, moves: np.ndarray) -> None:
        """The searches of a batch whose trees had to grow (``status >= GROW_NODES``): each
        grown (its slot in ``trees`` updated), the rest of its simulations run if its root is
        still open (one core call, again for those that grow again), its move picked."""
        count = len(boards)
        roots, status = self._roots[:count], self._status[:count]
        grew = (status >= GROW_NODES).nonzero()[0]
        js, codes = grew, status[grew]
        left = self._want[:count][grew] - self._done[:count][grew]
        while True:
            for j, code in zip(js.tolist(), codes.tolist(), strict=True):
                i = int(boards[j])
                searcher = self.searchers[i]
                searcher._grow(code)
                self.trees[i] = pool.slot(searcher)
            unsolved = np.zeros(len(js), np.bool_)
            run_kernel(self._kept, open_trees, False, pool.items, self.trees[boards[js]],
                       roots[js], unsolved)  # fmt: skip
            keep = unsolved & (left > 0)
            js, left = js[keep], left[keep]
            n = len(js)
            if not n:
                break
            trees = self.trees[boards[js]]
            done, codes = np.zeros(n, np.int64), np.zeros(n, np.int64)
            parallel = n > 1 and int(left.sum()) >= batch.PARALLEL_MIN and batch.thread_count() > 1
            run = _RUN_TREES if parallel else _RUN_TREES_SERIAL
            run_kernel(self._kept, run, True, pool.items, trees, roots[js], left, done, codes)
            again = codes >= GROW_NODES
            js, codes, left = js[again], codes[again], (left - done)[again]
            if not len(js):
                break
        picked = np.zeros(len(grew), np.int64)
        run_kernel(self._kept, pick_trees, True, pool.items, self.trees[boards[grew]],
                   roots[grew], self._scratch, picked)  # fmt: skip
        moves[grew] = picked
