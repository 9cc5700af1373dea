"""The opponents' trees of N boards (``compiled.board_search``): each step's preparation and
picks, each one compiled call over all the trees.

- ``prepare_*``: each tree's seed and root, found, re-rooted or added exactly as
  ``KernelSearcher.begin`` does (its root key kept in the caller's arrays), and the settings the
  kernel call needs, in parallel over the trees (a serial twin for small batches);
- ``pick_*``: each tree's move by the final-move rule (``searcher.pick_child``, two players);
- ``open_*``: whether each tree's root is unproven.

The trees are ``compiled.batch``'s pool items ``(nd, ed, slots, meta, rng_state)``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import literally, njit, prange

from mcts_agents.compiled import connect_four_kernel as c4_kernel
from mcts_agents.compiled import dispatch, entries, kernel
from mcts_agents.compiled.common import META_DEPTH, META_NODES, UNKNOWN

__all__ = [
    "open_connect_four",
    "open_shared",
    "pick_connect_four",
    "pick_shared",
    "prepare_connect_four",
    "prepare_connect_four_serial",
    "prepare_shared",
    "prepare_shared_serial",
]


@njit(cache=True)
def _clear(meta, sl):
    """Empty a tree (``KernelSearcher.reset``'s table part). Its hash slots are already empty
    when it holds no node (every path that empties a table empties both: the searcher's
    ``reset``, its ``begin``, this), as after the reset at each episode's start."""
    if meta[META_NODES] != 0:
        sl[:] = -1
    meta[:] = 0


def _prepare_over_trees(name: str, parallel: bool) -> Any:
    """``KernelSearcher.begin`` of tree ``trees[j]`` at board ``boards[j]`` for every ``j``
    (the shared kernel, game ``g``): its seed ``seeds[j]`` (drawn from its searcher's own
    generator), its root found, re-rooted or added (the root key kept in ``keys``/``keyed``)
    into ``roots[j]``, and the board's settings gathered for the kernel (``want[j]``: its
    iterations, 0 when its root is proven). In parallel over the trees, or on one thread (small
    batches); one body, two compiled functions cached under their own ``name`` s. Returns
    how many trees want simulations and how many they want in all."""

    def prepare(
        g, p, items, trees, words, boards, keys, keyed, seeds, reuse, limits, c_all, solver_all,
        decisive_all, roots, want, c, solver, decisive,
    ):  # fmt: skip
        literally(g)
        active = 0
        total = 0
        for j in prange(len(trees)):
            i = boards[j]
            nd, ed, sl, meta, rng = items[trees[j]]
            rng[0] = seeds[j]
            s = words[i]
            meta[META_DEPTH] = 0
            if not reuse[i]:
                _clear(meta, sl)
                keyed[i] = False
            states = nd[kernel.NODE_STATES]
            root = kernel.find(sl, states, s)
            if root < 0:
                _clear(meta, sl)
                keys[i, :] = s
                keyed[i] = True
                root = kernel.add_node(nd, sl, meta, s, UNKNOWN, dispatch.to_play(g, p, s), True)
            elif not (keyed[i] and np.all(keys[i] == s)):
                keys[i, :] = s
                keyed[i] = True
                kernel.reroot(g, p, nd, ed, sl, meta, s)
                root = kernel.find(sl, states, s)
            roots[j] = root
            want[j] = limits[i] if nd[kernel.NODE_PROVEN][root] == UNKNOWN else 0
            c[j], solver[j], decisive[j] = c_all[i], solver_all[i], decisive_all[i]
            if want[j] > 0:
                active += 1
                total += want[j]
        return active, total

    prepare.__name__ = prepare.__qualname__ = name
    return njit(cache=True, parallel=parallel)(prepare)


def _prepare_connect_four_over_trees(name: str, parallel: bool) -> Any:
    """``_prepare_over_trees`` for the Connect Four kernel's trees (``CompiledConnectFour``)."""

    def prepare(
        items, trees, words, boards, keys, keyed, seeds, reuse, limits, c_all, solver_all,
        decisive_all, roots, want, c, solver, decisive,
    ):  # fmt: skip
        active = 0
        total = 0
        for j in prange(len(trees)):
            i = boards[j]
            nd, ed, sl, meta, rng = items[trees[j]]
            rng[0] = seeds[j]
            cur, mask = words[i, 0], words[i, 1]
            meta[META_DEPTH] = 0
            if not reuse[i]:
                _clear(meta, sl)
                keyed[i] = False
            cur_col, mask_col = nd[c4_kernel.NODE_CUR], nd[c4_kernel.NODE_MASK]
            root = c4_kernel.find(sl, cur_col, mask_col, cur, mask)
            if root < 0:
                _clear(meta, sl)
                keys[i, 0] = cur
                keys[i, 1] = mask
                keyed[i] = True
                root = c4_kernel.add_node(nd, sl, meta, cur, mask, UNKNOWN, True)
            elif not (keyed[i] and keys[i, 0] == cur and keys[i, 1] == mask):
                keys[i, 0] = cur
                keys[i, 1] = mask
                keyed[i] = True
                c4_kernel.reroot(nd, ed, sl, meta, cur, mask)
                root = c4_kernel.find(sl, cur_col, mask_col, cur, mask)
            roots[j] = root
            want[j] = limits[i] if nd[c4_kernel.NODE_PROVEN][root] == UNKNOWN else 0
            c[j], solver[j], decisive[j] = c_all[i], solver_all[i], decisive_all[i]
            if want[j] > 0:
                active += 1
                total += want[j]
        return active, total

    prepare.__name__ = prepare.__qualname__ = name
    return njit(cache=True, parallel=parallel)(prepare)


prepare_shared = _prepare_over_trees("prepare_shared", parallel=True)
prepare_shared_serial = _prepare_over_trees("prepare_shared_serial", parallel=False)
prepare_connect_four = _prepare_connect_four_over_trees("prepare_connect_four", parallel=True)
prepare_connect_four_serial = _prepare_connect_four_over_trees(
    "prepare_connect_four_serial", parallel=False
)


@njit(cache=True)
def _pick(visits, values, labels, n, by_value):
    """``searcher.pick_child`` over ``n`` children (labels: 0 none, 1 win, 2 loss, 3 other)."""
    best = -1
    for i in range(n):  # a proven win at once: the most visited of them
        if labels[i] == 1 and (best < 0 or visits[i] > visits[best]):
            best = i
    if best >= 0:
        return best
    some = False
    for i in range(n):
        if labels[i] != 2:
            some = True
    pick = -1
    for i in range(n):
        if some and labels[i] == 2:
            continue
        if pick < 0:
            pick = i
            continue
        a, b = (values[i], visits[i]) if by_value else (visits[i], values[i])
        x, y = (values[pick], visits[pick]) if by_value else (visits[pick], values[pick])
        if a > x or (a == x and b > y):
            pick = i
    safest = -1
    for i in range(n):
        if (some and labels[i] == 2) or labels[i] == 0:
            continue
        if safest < 0 or values[i] > values[safest]:
            safest = i
    if safest >= 0 and values[safest] >= values[pick]:
        pick = safest
    return pick


@njit(cache=True)
def _label(value: float) -> int:
    if value >= 1.0:
        return 1
    if value <= -1.0:
        return 2
    return 3


@njit(cache=True)
def _choose(
    visits_col, value_col, action_col, child_col, proven_col, same, edges, n, by_value, buf
):
    """The action of the final-move rule over edges ``edges[:n]`` (oldest first); ``same[k]``:
    whether edge ``k``'s child has the root's mover (its proven value is then its own)."""
    visits, values, labels = buf
    for k in range(n):
        e = edges[k]
        count = visits_col[e]
        proven = proven_col[child_col[e]]
        visits[k] = count
        if proven != UNKNOWN:
            value = float(proven) if same[k] else -float(proven)
            values[k] = value
            labels[k] = _label(value)
        else:
            values[k] = value_col[e] / count if count else 0.0
            labels[k] = 0
    return action_col[edges[_pick(visits, values, labels, n, by_value)]]


@njit(cache=True)
def _buffers(size):
    return (np.zeros(size, np.int64), np.zeros(size), np.zeros(size, np.int64))


@njit(cache=True)
def pick_shared(items, trees, roots, boards, by_value, size, moves):
    """``KernelSearcher.best_action`` (two players) at ``roots[j]`` of the shared kernel's
    tree ``trees[j]`` (board ``boards[j]``, final move by value where ``by_value`` says so),
    for every ``j``, into ``moves[j]`` (-1: no edge yet); ``size``: the most legal moves of a
    position."""
    buf = _buffers(size)
    edges = np.zeros(size, np.int64)
    same = np.zeros(size, np.bool_)
    for j in range(len(trees)):
        nd, ed = items[trees[j]][:2]
        root = roots[j]
        player = nd[kernel.NODE_PLAYER]
        n = 0
        e = nd[kernel.NODE_FIRST][root]
        while e >= 0:  # newest first
            edges[n] = e
            n += 1
            e = ed[kernel.EDGE_NEXT][e]
        if n == 0:
            moves[j] = -1
            continue
        edges[:n] = edges[:n][::-1].copy()
        for k in range(n):
            same[k] = player[ed[kernel.EDGE_CHILD][edges[k]]] == player[root]
        moves[j] = _choose(
            ed[kernel.EDGE_VISITS], ed[kernel.EDGE_VALUE], ed[kernel.EDGE_ACTION],
            ed[kernel.EDGE_CHILD], nd[kernel.NODE_PROVEN], same, edges, n, by_value[boards[j]],
            buf,
        )  # fmt: skip


@njit(cache=True)
def pick_connect_four(items, trees, roots, boards, by_value, size, moves):
    """``pick_shared`` for the Connect Four kernel's trees (a node's edges are one block)."""
    buf = _buffers(size)
    edges = np.zeros(size, np.int64)
    same = np.zeros(size, np.bool_)  # the players alternate
    for j in range(len(trees)):
        nd, ed = items[trees[j]][:2]
        root = roots[j]
        first = nd[c4_kernel.NODE_FIRST][root]
        n = nd[c4_kernel.NODE_NEXP][root] if first >= 0 else 0
        if n == 0:
            moves[j] = -1
            continue
        for k in range(n):
            edges[k] = first + k
        moves[j] = _choose(
            ed[c4_kernel.EDGE_VISITS], ed[c4_kernel.EDGE_VALUE], ed[c4_kernel.EDGE_ACTION],
            ed[c4_kernel.EDGE_CHILD], nd[c4_kernel.NODE_PROVEN], same, edges, n,
            by_value[boards[j]], buf,
        )  # fmt: skip


@njit(cache=True)
def open_shared(items, trees, roots, out):
    """``out[j]``: whether the root of the shared kernel's tree ``trees[j]`` is unproven."""
    for j in range(len(trees)):
        out[j] = items[trees[j]][0][kernel.NODE_PROVEN][roots[j]] == UNKNOWN


@njit(cache=True)
def open_connect_four(items, trees, roots, out):
    """``open_shared`` for the Connect Four kernel's trees."""
    for j in range(len(trees)):
        out[j] = items[trees[j]][0][c4_kernel.NODE_PROVEN][roots[j]] == UNKNOWN


# Compiled into this module's own cache: emptied with the kernels' when the sources change.
entries.GROUPS["board_trees"] = (
    prepare_shared, prepare_shared_serial, prepare_connect_four, prepare_connect_four_serial,
    pick_shared, pick_connect_four, open_shared, open_connect_four,
)  # fmt: skip
entries.check_sources("board_trees")
