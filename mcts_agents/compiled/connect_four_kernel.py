"""Connect Four MCTS compiled by numba: the same search as ``mcts_agents.search``, in arrays.

Everything here is ``@njit`` code over a structure-of-arrays node table (the win and threat
tests are the rules core's ``won4``/``threats4``, compiled); ``connect_four_searcher.py`` holds
the Python side (budgets, growth, tree reuse, the result). The search is the one of ``MCTS``
restricted to UCB1 with classic first-play urgency (every child once before any twice),
random expansion order, random or decisive playouts and MCTS-Solver through transpositions.

Positions are ``(cur, mask)`` bitboards in int64: ``cur`` the stones of the player to move,
``mask`` all stones; bit ``col * stride + row`` as in ``mcts_agents.envs.games.connect_four``.
Values are from the view of the player to move at a node; an edge holds the sum of its mover's
returns.

Node columns (``nd``, indexed by node id, named ``NODE_*``) and edge columns (``ed``,
``EDGE_*``; a node's legal moves are the ``nact`` edges from ``first``), made by ``allocate``:
    nd_cur, nd_mask: the position (its transposition key).
    nd_visits: simulations through the node.
    nd_proven: solver value for the player to move (-1, 0, 1) or ``UNKNOWN``.
    nd_term: value of a terminal position for the player to move, or ``UNKNOWN``.
    nd_first, nd_nact, nd_nexp: first edge (-1 until first selected), legal moves, expanded.
    ed_action, ed_child, ed_visits, ed_value: column, child id, visits, sum of mover returns.
``meta`` (``common.META_*``) holds the nodes and edges in use and the summed path depth;
``slots`` is an open-addressing hash table of node ids (-1 empty, size a power of two, at most
half full).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mcts_agents.compiled import common
from mcts_agents.compiled.cache import njit
from mcts_agents.compiled.common import (
    META_DEPTH,
    META_EDGES,
    META_NODES,
    pick_bit,
    popcount,
    random01,
)
from mcts_agents.envs.games.connect_four import threats4, won4

UNKNOWN = common.UNKNOWN
DONE, ROOT_PROVEN, GROW_NODES, GROW_EDGES, TABLE_FULL = 0, 1, 2, 3, 4
MAX_DEPTH = 64  # longer than any Connect Four game the kernel accepts (<= 62 cells)

# The node table's columns (``nd``) and the edge table's (``ed``), by name (see ``allocate``);
# numba reads these module-level ints as constants.
NODE_CUR = 0
NODE_MASK = 1
NODE_VISITS = 2
NODE_PROVEN = 3
NODE_TERM = 4
NODE_FIRST = 5
NODE_NACT = 6
NODE_NEXP = 7
EDGE_ACTION = 0
EDGE_CHILD = 1
EDGE_VISITS = 2
EDGE_VALUE = 3


def allocate(nodes: int, edges: int) -> tuple[tuple[np.ndarray, ...], tuple[np.ndarray, ...], Any]:
    """Node columns for ``nodes``, edge columns for ``edges``, an empty hash table.

    The columns are uninitialised: the kernel writes every row before it reads it.
    """
    nd = (
        np.empty(nodes, np.int64),  # NODE_CUR
        np.empty(nodes, np.int64),  # NODE_MASK
        np.empty(nodes, np.int64),  # NODE_VISITS (int64: hours of search overflow int32)
        np.empty(nodes, np.int8),  # NODE_PROVEN
        np.empty(nodes, np.int8),  # NODE_TERM
        np.empty(nodes, np.int32),  # NODE_FIRST
        np.empty(nodes, np.int8),  # NODE_NACT
        np.empty(nodes, np.int8),  # NODE_NEXP
    )
    ed = (
        np.empty(edges, np.int8),  # EDGE_ACTION
        np.empty(edges, np.int32),  # EDGE_CHILD
        np.empty(edges, np.int64),  # EDGE_VISITS
        np.empty(edges, np.float64),  # EDGE_VALUE: the sum of the mover's returns
    )
    slots = np.full(2 * nodes, -1, np.int32)  # at most half full
    return nd, ed, slots


_H1 = np.int64(-7046029254386353131)  # 0x9E3779B97F4A7C15 as a signed 64-bit int
_H2 = np.int64(-4417276706812531889)  # 0xC2B2AE3D27D4EB4F


# The shared helpers (``compiled.common``): xorshift64*, popcount, a random set bit.
_random = random01
_popcount = popcount
_pick_bit = pick_bit


# The rules core's own bit functions, compiled for int64 (one source for both).
_won = njit(cache=True)(won4)
_threats = njit(cache=True)(threats4)


@njit(cache=True)
def _rollout(
    cur: int, mask: int, stride: int, full: int, bottom: int, decisive: bool, rng: np.ndarray
) -> float:
    """A playout to the end; the value for the player to move at ``(cur, mask)``.

    Uniform: a uniformly random playable column each ply. Decisive: win at once when possible,
    block the opponent's single immediate win (two lose at once), else a random column that
    does not play under an opponent's winning cell while any other is left.
    """
    sign = 1.0  # the mover's value, relative to the player to move at the start
    if not decisive:
        while True:
            possible = (mask + bottom) & full
            if not possible:
                return 0.0
            move = _pick_bit(possible, rng)
            cur |= move
            mask |= move
            if _won(cur, stride):
                return sign
            cur ^= mask
            sign = -sign
    empty = full & ~mask
    mine = _threats(cur, empty, stride)
    theirs = _threats(cur ^ mask, empty, stride)
    while True:
        possible = (mask + bottom) & full
        if not possible:
            return 0.0
        if mine & possible:
            return sign
        forced = theirs & possible
        if forced:
            if forced & (forced - 1):
                return -sign
            move = forced
        else:
            safe = possible & ~(theirs >> 1)
            move = _pick_bit(safe if safe else possible, rng)
        cur |= move
        mask |= move
        mine = _threats(cur, full & ~mask, stride)
        theirs &= ~move
        cur ^= mask
        mine, theirs = theirs, mine
        sign = -sign


@njit(cache=True)
def _slot(slots: np.ndarray, nd_cur: np.ndarray, nd_mask: np.ndarray, cur: int, mask: int) -> int:
    """The hash slot of ``(cur, mask)``: the one holding it, or the empty one it would take."""
    h = cur * _H1 ^ mask * _H2
    size_mask = len(slots) - 1
    i = (h ^ (h >> 29)) & size_mask
    while True:
        nid = slots[i]
        if nid < 0 or (nd_cur[nid] == cur and nd_mask[nid] == mask):
            return i
        i = (i + 1) & size_mask


@njit(cache=True)
def rehash(slots: np.ndarray, nd_cur: np.ndarray, nd_mask: np.ndarray, n: int) -> None:
    """Fill the (new, bigger) ``slots`` with nodes ``0..n-1``."""
    slots[:] = -1
    for nid in range(n):
        slots[_slot(slots, nd_cur, nd_mask, nd_cur[nid], nd_mask[nid])] = nid


@njit(cache=True)
def find(slots: np.ndarray, nd_cur: np.ndarray, nd_mask: np.ndarray, cur: int, mask: int) -> int:
    """The id of the node ``(cur, mask)``, or -1."""
    return slots[_slot(slots, nd_cur, nd_mask, cur, mask)]


@njit(cache=True)
def add_node(
    nd: tuple, slots: np.ndarray, meta: np.ndarray, cur: int, mask: int, term: int, solver: bool
) -> int:
    """Store a new node (the caller checked capacity); return its id."""
    nd_cur, nd_mask = nd[NODE_CUR], nd[NODE_MASK]
    nid = meta[META_NODES]
    meta[META_NODES] = nid + 1
    nd_cur[nid] = cur
    nd_mask[nid] = mask
    nd[NODE_VISITS][nid] = 0
    nd[NODE_TERM][nid] = term
    nd[NODE_PROVEN][nid] = term if solver else UNKNOWN
    nd[NODE_FIRST][nid] = -1
    nd[NODE_NACT][nid] = 0
    nd[NODE_NEXP][nid] = 0
    slots[_slot(slots, nd_cur, nd_mask, cur, mask)] = nid
    return nid


@njit(cache=True)
def _try_prove(nd: tuple, ed: tuple, node: int) -> bool:
    """Prove ``node`` from its children: a proven win for its mover, or all children proven."""
    nd_proven, nd_first = nd[NODE_PROVEN], nd[NODE_FIRST]
    nd_nact, nd_nexp = nd[NODE_NACT], nd[NODE_NEXP]
    ed_child = ed[EDGE_CHILD]
    first = nd_first[node]
    if first < 0:
        return False
    complete = nd_nexp[node] == nd_nact[node]
    best = -2
    for e in range(first, first + nd_nexp[node]):
        proven = nd_proven[ed_child[e]]
        if proven == UNKNOWN:
            complete = False
            continue
        if -proven >= 1:
            nd_proven[node] = 1
            return True
        best = max(best, -proven)
    if complete and best > -2:
        nd_proven[node] = best
        return True
    return False


@njit(cache=True)
def run(
    nd: tuple,
    ed: tuple,
    slots: np.ndarray,
    meta: np.ndarray,
    rng: np.ndarray,
    geometry: tuple,
    root: int,
    iterations: int,
    c: float,
    solver: bool,
    decisive: bool,
    max_nodes: int,
    stop_when_full: bool,
) -> tuple:
    """Run up to ``iterations`` simulations from ``root``; return ``(done, status)``.

    ``status`` is ``DONE``, ``ROOT_PROVEN``, ``GROW_NODES``/``GROW_EDGES`` (the caller grows the
    arrays and calls again) or ``TABLE_FULL`` (``max_nodes`` nodes stored and
    ``stop_when_full``; otherwise a full table only stops growth, as in ``MCTS``).
    """
    nd_cur, nd_mask, nd_visits = nd[NODE_CUR], nd[NODE_MASK], nd[NODE_VISITS]
    nd_proven, nd_term, nd_first = nd[NODE_PROVEN], nd[NODE_TERM], nd[NODE_FIRST]
    nd_nact, nd_nexp = nd[NODE_NACT], nd[NODE_NEXP]
    ed_action, ed_child = ed[EDGE_ACTION], ed[EDGE_CHILD]
    ed_visits, ed_value = ed[EDGE_VISITS], ed[EDGE_VALUE]
    width, height, stride, full, bottom = geometry
    path_nodes = np.empty(MAX_DEPTH, np.int64)
    path_edges = np.empty(MAX_DEPTH, np.int64)
    root_cur = nd_cur[root]
    root_mask = nd_mask[root]
    done = 0
    while done < iterations:
        if nd_proven[root] != UNKNOWN:
            return done, ROOT_PROVEN
        if meta[META_NODES] >= len(nd_cur) and meta[META_NODES] < max_nodes:
            return done, GROW_NODES
        if meta[META_EDGES] + width * MAX_DEPTH > len(ed_child):  # it may open MAX_DEPTH nodes
            return done, GROW_EDGES
        if stop_when_full and meta[META_NODES] >= max_nodes:
            return done, TABLE_FULL
        node = root
        cur = root_cur
        mask = root_mask
        depth = 0
        while True:
            if nd_proven[node] != UNKNOWN:
                value = float(nd_proven[node])
                break
            if nd_term[node] != UNKNOWN:
                value = float(nd_term[node])
                break
            first = nd_first[node]
            if first < 0:  # first selection: the legal moves become edges
                first = meta[META_EDGES]
                n = 0
                for col in range(width):
                    if not mask & (1 << (col * stride + height - 1)):
                        e = first + n
                        ed_action[e] = col
                        ed_child[e] = -1
                        ed_visits[e] = 0
                        ed_value[e] = 0.0
                        n += 1
                meta[META_EDGES] = first + n
                nd_first[node] = first
                nd_nact[node] = n
            k = nd_nexp[node]
            nact = nd_nact[node]
            if k < nact:  # expand a random untried move
                e = first + k
                j = e + int(_random(rng) * (nact - k))
                col = ed_action[j]
                ed_action[j] = ed_action[e]
                ed_action[e] = col
                move = (mask + (1 << (col * stride))) & ~mask
                mover = cur | move
                mask |= move
                cur = mover ^ mask
                child = find(slots, nd_cur, nd_mask, cur, mask)
                if child < 0:
                    if _won(mover, stride):
                        term = -1
                    elif mask == full:
                        term = 0
                    else:
                        term = UNKNOWN
                    if meta[META_NODES] >= max_nodes:  # table full: evaluate without storing
                        if term != UNKNOWN:
                            value = -float(term)
                        else:
                            value = -_rollout(cur, mask, stride, full, bottom, decisive, rng)
                        break
                    child = add_node(nd, slots, meta, cur, mask, term, solver)
                    ed_child[e] = child
                    nd_nexp[node] = k + 1
                    path_nodes[depth] = node
                    path_edges[depth] = e
                    depth += 1
                    node = child
                    if term != UNKNOWN:
                        value = float(term)
                    else:
                        value = _rollout(cur, mask, stride, full, bottom, decisive, rng)
                    break
                ed_child[e] = child  # a transposition: keep descending
                nd_nexp[node] = k + 1
                path_nodes[depth] = node
                path_edges[depth] = e
                depth += 1
                node = child
                continue
            visits = nd_visits[node]
            explore = c * np.sqrt(np.log(visits)) if visits > 1 else 0.0
            best = -1
            best_score = -np.inf
            for e in range(first, first + nact):
                if nd_proven[ed_child[e]] != UNKNOWN:
                    continue
                n = ed_visits[e]
                score = ed_value[e] / n + explore / np.sqrt(n)
                if score > best_score:
                    best = e
                    best_score = score
            if best < 0:  # every child proven: so is this node
                _try_prove(nd, ed, node)
                value = float(nd_proven[node])
                break
            path_nodes[depth] = node
            path_edges[depth] = best
            depth += 1
            move = (mask + (1 << (ed_action[best] * stride))) & ~mask
            mask |= move
            cur = (cur | move) ^ mask
            node = ed_child[best]
        # back up: ``value`` is for the player to move at ``node``; the players alternate
        nd_visits[node] += 1
        for i in range(depth - 1, -1, -1):
            value = -value
            parent = path_nodes[i]
            e = path_edges[i]
            nd_visits[parent] += 1
            ed_visits[e] += 1
            ed_value[e] += value
        if solver and nd_proven[node] != UNKNOWN:
            for i in range(depth - 1, -1, -1):
                parent = path_nodes[i]
                if nd_proven[parent] != UNKNOWN or not _try_prove(nd, ed, parent):
                    break
        meta[META_DEPTH] += depth
        done += 1
    return done, DONE


@njit(cache=True)
def reroot(
    nd: tuple, ed: tuple, slots: np.ndarray, meta: np.ndarray, root_cur: int, root_mask: int
) -> None:
    """Keep only the nodes that can still occur after ``(root_cur, root_mask)``, in place.

    A position can follow the root only if it holds every stone of the root, each of its own
    colour. Children of a kept node are kept too, so edges stay valid after renumbering. Kept
    nodes and their edge blocks slide down (ids only decrease, so copying in increasing order
    never overwrites a row still to be read); ``meta`` gets the new counts and ``slots`` is
    rebuilt. Working in place touches no fresh memory: on a table of 10^6 nodes new arrays
    cost more in page faults than the work itself.
    """
    nd_cur, nd_mask, nd_visits = nd[NODE_CUR], nd[NODE_MASK], nd[NODE_VISITS]
    nd_proven, nd_term, nd_first = nd[NODE_PROVEN], nd[NODE_TERM], nd[NODE_FIRST]
    nd_nact, nd_nexp = nd[NODE_NACT], nd[NODE_NEXP]
    ed_action, ed_child = ed[EDGE_ACTION], ed[EDGE_CHILD]
    ed_visits, ed_value = ed[EDGE_VISITS], ed[EDGE_VALUE]
    n = meta[META_NODES]
    remap = np.empty(n, np.int32)
    root_other = root_cur ^ root_mask
    parity = _popcount(root_mask) & 1
    kept = 0
    for nid in range(n):
        cur = nd_cur[nid]
        mask = nd_mask[nid]
        other = cur ^ mask
        if _popcount(mask) & 1 == parity:
            ok = (cur & root_cur) == root_cur and (other & root_other) == root_other
        else:
            ok = (cur & root_other) == root_other and (other & root_cur) == root_cur
        if ok:
            remap[nid] = kept
            kept += 1
        else:
            remap[nid] = -1
    # edge blocks in pool order: owner[first edge] = node
    used = meta[META_EDGES]
    owner = np.full(used, -1, np.int32)
    for nid in range(n):
        if nd_first[nid] >= 0:
            owner[nd_first[nid]] = nid
    write = 0
    e = 0
    while e < used:
        nid = owner[e]
        size = nd_nact[nid]
        if remap[nid] >= 0:
            nd_first[nid] = write
            for k in range(size):
                ed_action[write + k] = ed_action[e + k]
                child = ed_child[e + k]
                ed_child[write + k] = remap[child] if child >= 0 else -1
                ed_visits[write + k] = ed_visits[e + k]
                ed_value[write + k] = ed_value[e + k]
            write += size
        e += size
    for nid in range(n):
        new = remap[nid]
        if new < 0:
            continue
        nd_cur[new] = nd_cur[nid]
        nd_mask[new] = nd_mask[nid]
        nd_visits[new] = nd_visits[nid]
        nd_proven[new] = nd_proven[nid]
        nd_term[new] = nd_term[nid]
        nd_first[new] = nd_first[nid]
        nd_nact[new] = nd_nact[nid]
        nd_nexp[new] = nd_nexp[nid]
    meta[META_NODES] = kept
    meta[META_EDGES] = write
    rehash(slots, nd_cur, nd_mask, kept)
