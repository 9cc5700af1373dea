"""The opponents' trees of N boards (``compiled.board_search``): each step's searches, one
compiled call over all the trees.

- ``search_*``: for each tree, in parallel over the trees (a serial twin for small batches),
  the whole of ``KernelSearcher.search`` up to its move: its seed set and its root found,
  re-rooted or added exactly as ``KernelSearcher.begin`` does (its root key kept in the
  caller's arrays), its simulations (the single kernel's ``run``), and its move by the
  final-move rule (``searcher.pick_child``, two players); a tree whose arrays must grow is left
  to the caller, which grows them, runs the rest of its simulations (``compiled.batch``'s
  kernels) and picks its move (``pick_*``);
- ``pick_*``: each tree's move by the final-move rule;
- ``open_*``: whether each tree's root is unproven.

The trees are ``compiled.batch``'s pool items ``(nd, ed, slots, meta, rng_state)``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import literally, prange

from mcts_agents.compiled import connect_four_kernel as c4_kernel
from mcts_agents.compiled import dispatch, entries, kernel
from mcts_agents.compiled.cache import njit
from mcts_agents.compiled.common import META_DEPTH, META_NODES, UNKNOWN

__all__ = [
    "open_connect_four",
    "open_shared",
    "pick_connect_four",
    "pick_shared",
    "search_connect_four",
    "search_connect_four_serial",
    "search_shared",
    "search_shared_serial",
]

_NO_LIMIT = 1 << 62  # (``tree_search.NO_LIMIT``: no node limit)
assert kernel.GROW_NODES == c4_kernel.GROW_NODES and kernel.DONE == c4_kernel.DONE


@njit(cache=True)
def _clear(meta, sl):
    """Empty a tree (``KernelSearcher.reset``'s table part). Its hash slots are already empty
    when it holds no node (every path that empties a table empties both: the searcher's
    ``reset``, its ``begin``, this), as after the reset at each episode's start."""
    if meta[META_NODES] != 0:
        sl[:] = -1
    meta[:] = 0


def _search_over_trees(name: str, parallel: bool) -> Any:
    """``KernelSearcher.search`` and ``best_action`` of tree ``slots_of[i]`` at board
    ``i = boards[j]`` for every ``j`` (the shared kernel, game ``g``, two players): its seed
    ``seeds[j]`` (drawn from its searcher's own generator; ``| 1`` here), its root found,
    re-rooted or added (the root key kept in ``keys``/``keyed``) into ``roots[j]``, ``want[j]``
    simulations (its iterations, 0 when its root is proven) of which ``done[j]`` ran with the
    kernel's ``status[j]``, and its move into ``moves[j]`` (-1: no edge, or arrays to grow:
    ``status[j] >= GROW_NODES``). ``scratch``: five ``[len(boards) or more, size]`` rows of
    work space for the picks. In parallel over the trees, or on one thread (small batches);
    one body, two compiled functions cached under their own ``name`` s. Returns how many
    trees must grow."""

    def search(
        g, p, items, slots_of, words, boards, keys, keyed, seeds, reuse, limits, c_all,
        solver_all, decisive_all, by_value, max_actions, max_depth, roots, want, done, status,
        moves, scratch,
    ):  # fmt: skip
        literally(g)
        grown = 0
        visits_b, values_b, labels_b, edges_b, same_b = scratch
        for j in prange(len(boards)):
            i = boards[j]
            nd, ed, sl, meta, rng = items[slots_of[i]]
            rng[0] = seeds[j] | np.uint64(1)
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
            done[j] = 0
            status[j] = kernel.DONE
            if want[j] > 0:
                done[j], status[j] = kernel.run(
                    g, p, nd, ed, sl, meta, rng, root, want[j], c_all[i], solver_all[i],
                    decisive_all[i], _NO_LIMIT, False, max_actions, max_depth, False,
                )  # fmt: skip
            if status[j] >= kernel.GROW_NODES:
                moves[j] = -1
                grown += 1
            else:
                moves[j] = _pick_shared_one(
                    nd, ed, root, by_value[i], edges_b[j], same_b[j],
                    (visits_b[j], values_b[j], labels_b[j]),
                )  # fmt: skip
        return grown

    search.__name__ = search.__qualname__ = name
    return njit(cache=True, parallel=parallel)(search)


def _search_connect_four_over_trees(name: str, parallel: bool) -> Any:
    """``_search_over_trees`` for the Connect Four kernel's trees (``CompiledConnectFour``)."""

    def search(
        items, geometry, slots_of, words, boards, keys, keyed, seeds, reuse, limits, c_all,
        solver_all, decisive_all, by_value, roots, want, done, status, moves, scratch,
    ):  # fmt: skip
        grown = 0
        visits_b, values_b, labels_b, edges_b, same_b = scratch
        for j in prange(len(boards)):
            i = boards[j]
            nd, ed, sl, meta, rng = items[slots_of[i]]
            rng[0] = seeds[j] | np.uint64(1)
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
            done[j] = 0
            status[j] = c4_kernel.DONE
            if want[j] > 0:
                done[j], status[j] = c4_kernel.run(
                    nd, ed, sl, meta, rng, geometry, root, want[j], c_all[i], solver_all[i],
                    decisive_all[i], _NO_LIMIT, False,
                )  # fmt: skip
            if status[j] >= c4_kernel.GROW_NODES:
                moves[j] = -1
                grown += 1
            else:
                moves[j] = _pick_connect_four_one(
                    nd, ed, root, by_value[i], edges_b[j], same_b[j],
                    (visits_b[j], values_b[j], labels_b[j]),
                )  # fmt: skip
        return grown

    search.__name__ = search.__qualname__ = name
    return njit(cache=True, parallel=parallel)(search)


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
def _pick_shared_one(nd, ed, root, by_value, edges, same, buf):
    """``KernelSearcher.best_action`` (two players) at ``root`` of a shared kernel's tree (-1: no
    edge yet); ``edges``, ``same``, ``buf``: work space of the most legal moves of a
    position."""
    player = nd[kernel.NODE_PLAYER]
    n = 0
    e = nd[kernel.NODE_FIRST][root]
    while e >= 0:  # newest first
        edges[n] = e
        n += 1
        e = ed[kernel.EDGE_NEXT][e]
    if n == 0:
        return -1
    for k in range(n // 2):  # oldest first
        edges[k], edges[n - 1 - k] = edges[n - 1 - k], edges[k]
    for k in range(n):
        same[k] = player[ed[kernel.EDGE_CHILD][edges[k]]] == player[root]
    return _choose(
        ed[kernel.EDGE_VISITS], ed[kernel.EDGE_VALUE], ed[kernel.EDGE_ACTION],
        ed[kernel.EDGE_CHILD], nd[kernel.NODE_PROVEN], same, edges, n, by_value, buf,
    )  # fmt: skip


@njit(cache=True)
def _pick_connect_four_one(nd, ed, root, by_value, edges, same, buf):
    """``_pick_shared_one`` for the Connect Four kernel's trees (a node's edges are one block;
    ``same`` all False: the players alternate)."""
    first = nd[c4_kernel.NODE_FIRST][root]
    n = nd[c4_kernel.NODE_NEXP][root] if first >= 0 else 0
    if n == 0:
        return -1
    for k in range(n):
        edges[k] = first + k
        same[k] = False
    return _choose(
        ed[c4_kernel.EDGE_VISITS], ed[c4_kernel.EDGE_VALUE], ed[c4_kernel.EDGE_ACTION],
        ed[c4_kernel.EDGE_CHILD], nd[c4_kernel.NODE_PROVEN], same, edges, n, by_value, buf,
    )  # fmt: skip


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
        moves[j] = _pick_shared_one(nd, ed, roots[j], by_value[boards[j]], edges, same, buf)


@njit(cache=True)
def pick_connect_four(items, trees, roots, boards, by_value, size, moves):
    """``pick_shared`` for the Connect Four kernel's trees."""
    buf = _buffers(size)
    edges = np.zeros(size, np.int64)
    same = np.zeros(size, np.bool_)
    for j in range(len(trees)):
        nd, ed = items[trees[j]][:2]
        moves[j] = _pick_connect_four_one(nd, ed, roots[j], by_value[boards[j]], edges, same, buf)


search_shared = _search_over_trees("search_shared", parallel=True)
search_shared_serial = _search_over_trees("search_shared_serial", parallel=False)
search_connect_four = _search_connect_four_over_trees("search_connect_four", parallel=True)
search_connect_four_serial = _search_connect_four_over_trees(
    "search_connect_four_serial", parallel=False
)


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
    search_shared, search_shared_serial, search_connect_four, search_connect_four_serial,
    pick_shared, pick_connect_four, open_shared, open_connect_four,
)  # fmt: skip
entries.check_sources("board_trees")
