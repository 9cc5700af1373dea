"""One compiled MCTS for every game with compiled rules (numba): the node table and the search.

The search is the one of ``MCTS`` restricted to UCB1 with classic first-play urgency (every
child once before any twice), random expansion order, the rules' playouts and MCTS-Solver
through transpositions. A game plugs in through ``dispatch`` (its id ``g`` and parameter words
``p``): legal moves, the next position and its terminal value, the player to move, a playout,
and a reachability test for tree reuse. ``searcher.CompiledSearch`` is the Python side (budgets,
growth, reuse, the result).

A position is a row of ``W`` int64 words (the rules' layout) and is its own transposition key.
Values are for the player to move at a node; an edge holds the sum of its mover's values, and a
value changes sign between a node and its parent only where the player to move changes (two
stones per turn, or a pass, keep or change the mover as the rules say).
Games of more than two players (``outcomes``) report outcome codes instead (``common.DRAW``,
``common.WIN + p``): an edge adds what the code pays its mover (max^n), and a node is proven
a win for its mover by a child proven so, else by its best proven child when all are.

Node columns (``nd``, indexed by node id; ``allocate`` makes them, named ``NODE_*``):
    NODE_STATES: the position (``[nodes, W]``).
    NODE_VISITS: simulations through the node.
    NODE_PROVEN: solver value for the player to move (-1, 0, 1) or ``UNKNOWN``.
    NODE_TERM: value of a terminal position for the player to move, or ``UNKNOWN``.
    NODE_PLAYER: the player to move.
    NODE_FIRST: the node's newest edge (-1: none), the head of its list of expanded moves.
    NODE_NACT: legal moves (-1 until the node's first selection counts them).
    NODE_NEXP: expanded moves (the length of the list).
Edge columns (``ed``, ``EDGE_*``): action, child id, next (the parent's previous edge, -1 at
the end of the list), visits, sum of the mover's values. Only expanded moves have edges: an
expansion generates the legal moves again and draws one of those without an edge, so a node
whose search stops after a few expansions costs no room for the rest (in Othello about one
edge a node instead of two; in Gomoku one instead of up to 225 for every selected node).
``meta`` (``common.META_*``) holds the nodes and edges in use and the summed path depth;
``slots`` is an open-addressing hash table of node ids (-1 empty, a power of two, at most half
full). Row sizes: ``8 W + 19`` bytes a node, 26 an edge, 4 to 8 a node in ``slots``. Action
ids are below the rules' ``max_actions``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mcts_agents.compiled import dispatch as games
from mcts_agents.compiled.cache import njit
from mcts_agents.compiled.common import META_DEPTH, META_EDGES, META_NODES, UNKNOWN, gain, random01

DONE, ROOT_PROVEN, GROW_NODES, GROW_EDGES, TABLE_FULL = 0, 1, 2, 3, 4

# The node table's columns (``nd``) and the edge table's (``ed``), by name (see ``allocate``);
# numba reads these module-level ints as constants.
NODE_STATES = 0
NODE_VISITS = 1
NODE_PROVEN = 2
NODE_TERM = 3
NODE_PLAYER = 4
NODE_FIRST = 5
NODE_NACT = 6
NODE_NEXP = 7
EDGE_ACTION = 0
EDGE_CHILD = 1
EDGE_NEXT = 2
EDGE_VISITS = 3
EDGE_VALUE = 4
#: Scratch words a playout may use (``games.BUFFER``).
BUFFER = games.BUFFER


def _ucb_tables(size: int) -> np.ndarray:
    """``sqrt(log n)``, ``1 / n`` and ``1 / sqrt(n)`` for ``n < size`` (row 0 unused): UCB1's
    square roots, logarithm and divisions become loads for the small counts that most nodes
    and edges have (tic-tac-toe: 2.9 -> 3.4 M simulations/s). Frozen into the compiled kernel.
    """
    n = np.arange(size, dtype=np.float64)
    n[0] = 1.0
    return np.stack([np.sqrt(np.log(n)), 1.0 / n, 1.0 / np.sqrt(n)])


UCB_TABLES = _ucb_tables(1 << 12)


def allocate(
    words: int, nodes: int, edges: int
) -> tuple[tuple[np.ndarray, ...], tuple[np.ndarray, ...], Any]:
    """Node columns for ``nodes``, edge columns for ``edges``, an empty hash table.

    The columns are uninitialised: the kernel writes every row before it reads it.
    """
    nd = (
        np.empty((nodes, words), np.int64),  # NODE_STATES
        np.empty(nodes, np.int64),  # NODE_VISITS (int64: hours of search overflow int32)
        np.empty(nodes, np.int8),  # NODE_PROVEN
        np.empty(nodes, np.int8),  # NODE_TERM
        np.empty(nodes, np.int8),  # NODE_PLAYER
        np.empty(nodes, np.int32),  # NODE_FIRST
        np.empty(nodes, np.int16),  # NODE_NACT
        np.empty(nodes, np.int16),  # NODE_NEXP
    )
    ed = (
        np.empty(edges, np.int16),  # EDGE_ACTION
        np.empty(edges, np.int32),  # EDGE_CHILD
        np.empty(edges, np.int32),  # EDGE_NEXT: the parent's previous edge
        np.empty(edges, np.int64),  # EDGE_VISITS
        np.empty(edges, np.float64),  # EDGE_VALUE: the sum of the mover's values
    )
    slots = np.full(2 * nodes, -1, np.int32)  # at most half full
    return nd, ed, slots


_SEED = np.uint64(0x243F6A8885A308D3)
_MUL = np.uint64(0x9E3779B97F4A7C15)


@njit(cache=True)
def _slot(slots: np.ndarray, states: np.ndarray, s: np.ndarray) -> int:
    """The hash slot of position ``s``: the one holding it, or the empty one it would take."""
    h = _SEED
    for i in range(s.shape[0]):
        h = (h ^ np.uint64(s[i])) * _MUL
        h ^= h >> np.uint64(29)
    size_mask = len(slots) - 1
    i = np.int64(h & np.uint64(size_mask))
    while True:
        nid = slots[i]
        if nid < 0:
            return i
        row = states[nid]
        same = True
        for w in range(s.shape[0]):
            if row[w] != s[w]:
                same = False
                break
        if same:
            return i
        i = (i + 1) & size_mask


@njit(cache=True)
def rehash(slots: np.ndarray, states: np.ndarray, n: int) -> None:
    """Fill the (new, bigger) ``slots`` with nodes ``0..n-1``."""
    slots[:] = -1
    for nid in range(n):
        slots[_slot(slots, states, states[nid])] = nid


@njit(cache=True)
def find(slots: np.ndarray, states: np.ndarray, s: np.ndarray) -> int:
    """The id of the node of position ``s``, or -1."""
    return slots[_slot(slots, states, s)]


@njit(cache=True)
def add_node(
    nd: tuple, slots: np.ndarray, meta: np.ndarray, s: np.ndarray, term: int, player: int,
    solver: bool,
) -> int:  # fmt: skip
    """Store a new node (the caller checked capacity); return its id."""
    states = nd[NODE_STATES]
    nid = meta[META_NODES]
    meta[META_NODES] = nid + 1
    states[nid, :] = s
    nd[NODE_VISITS][nid] = 0
    nd[NODE_TERM][nid] = term
    nd[NODE_PROVEN][nid] = term if solver else UNKNOWN
    nd[NODE_PLAYER][nid] = player
    nd[NODE_FIRST][nid] = -1
    nd[NODE_NACT][nid] = -1
    nd[NODE_NEXP][nid] = 0
    slots[_slot(slots, states, s)] = nid
    return nid


@njit(cache=True)
def _try_prove(nd: tuple, ed: tuple, node: int, outcomes: bool) -> bool:
    """Prove ``node`` from its children: a proven win for its mover, or all children proven
    (then the best for the mover: with ``outcomes``, the first best in list order)."""
    proven, players, first = nd[NODE_PROVEN], nd[NODE_PLAYER], nd[NODE_FIRST]
    nact, nexp = nd[NODE_NACT], nd[NODE_NEXP]
    ed_child, ed_next = ed[EDGE_CHILD], ed[EDGE_NEXT]
    e = first[node]
    if e < 0:
        return False
    mover = players[node]
    complete = nexp[node] == nact[node]
    best = -2.0
    best_proof = UNKNOWN
    while e >= 0:
        child = ed_child[e]
        e = ed_next[e]
        proof = proven[child]
        if proof == UNKNOWN:
            complete = False
            continue
        if outcomes:  # the proof is an outcome: what it pays the mover
            value = gain(proof, mover)
        else:  # the proof is a value for the child's mover
            value = float(proof) if players[child] == mover else -float(proof)
            proof = np.int8(value)
        if value >= 1:
            proven[node] = proof
            return True
        if value > best:
            best = value
            best_proof = proof
    if complete and best > -2:
        proven[node] = best_proof
        return True
    return False


@njit(cache=True)
def run(
    g: int, p: np.ndarray, nd: tuple, ed: tuple, slots: np.ndarray, meta: np.ndarray,
    rng: np.ndarray, root: int, iterations: int, c: float, solver: bool, decisive: bool,
    max_nodes: int, stop_when_full: bool, max_actions: int, max_depth: int, outcomes: bool,
) -> tuple:  # fmt: skip
    """Run up to ``iterations`` simulations from ``root``; return ``(done, status)``.

    ``status`` is ``DONE``, ``ROOT_PROVEN``, ``GROW_NODES``/``GROW_EDGES`` (the caller grows the
    arrays and calls again) or ``TABLE_FULL`` (``max_nodes`` nodes stored and
    ``stop_when_full``; otherwise a full table only stops growth, as in ``MCTS``).
    ``max_actions`` bounds the legal moves of a position, ``max_depth`` the moves of a game.
    ``outcomes``: the rules report outcome codes (``common.DRAW``, ``common.WIN + p``) instead
    of values for the player to move (games of more than two players): terminal values,
    playouts and proofs are codes, and an edge adds what the code pays its mover (max^n).
    """
    states, nd_visits, nd_proven = nd[NODE_STATES], nd[NODE_VISITS], nd[NODE_PROVEN]
    nd_term, nd_player, nd_first = nd[NODE_TERM], nd[NODE_PLAYER], nd[NODE_FIRST]
    nd_nact, nd_nexp = nd[NODE_NACT], nd[NODE_NEXP]
    ed_action, ed_child, ed_next = ed[EDGE_ACTION], ed[EDGE_CHILD], ed[EDGE_NEXT]
    ed_visits, ed_value = ed[EDGE_VISITS], ed[EDGE_VALUE]
    path_nodes = np.empty(max_depth + 1, np.int64)
    path_edges = np.empty(max_depth + 1, np.int64)
    actions = np.empty(max_actions, np.int64)
    tried = np.zeros(max_actions, np.bool_)
    after = np.empty(states.shape[1], np.int64)
    buf = np.empty(BUFFER, np.int64)
    headroom = max_depth + 1  # edges one simulation may open (transpositions descend)
    sqrt_log, inverse, inverse_sqrt = UCB_TABLES[0], UCB_TABLES[1], UCB_TABLES[2]
    small = UCB_TABLES.shape[1]
    done = 0
    while done < iterations:
        if nd_proven[root] != UNKNOWN:
            return done, ROOT_PROVEN
        if meta[META_NODES] >= len(nd_visits) and meta[META_NODES] < max_nodes:
            return done, GROW_NODES
        if meta[META_EDGES] + headroom > len(ed_child):
            return done, GROW_EDGES
        if stop_when_full and meta[META_NODES] >= max_nodes:
            return done, TABLE_FULL
        node = root
        depth = 0
        while True:
            if nd_proven[node] != UNKNOWN:
                value = float(nd_proven[node])
                break
            if nd_term[node] != UNKNOWN:
                value = float(nd_term[node])
                break
            k = nd_nexp[node]
            nact = nd_nact[node]
            if k != nact:  # expand a random untried move (first selection: count the moves)
                n = games.legal(g, p, states[node], actions)
                nd_nact[node] = n
                e = nd_first[node]
                while e >= 0:
                    tried[ed_action[e]] = True
                    e = ed_next[e]
                r = int(random01(rng) * (n - k))
                action = -1
                for i in range(n):
                    a = actions[i]
                    if not tried[a]:
                        if r == 0:
                            action = a
                            break
                        r -= 1
                e = nd_first[node]
                while e >= 0:
                    tried[ed_action[e]] = False
                    e = ed_next[e]
                term = games.play(g, p, states[node], action, after)
                child = find(slots, states, after)
                fresh = child < 0
                if fresh:
                    player = games.to_play(g, p, after)
                    if meta[META_NODES] >= max_nodes:  # table full: evaluate without storing
                        if term != UNKNOWN:
                            value = float(term)
                        else:
                            value = games.playout(g, p, after, buf, decisive, rng)
                        if not outcomes and player != nd_player[node]:
                            value = -value
                        break
                    child = add_node(nd, slots, meta, after, term, player, solver)
                e = meta[META_EDGES]
                meta[META_EDGES] = e + 1
                ed_action[e] = action
                ed_child[e] = child
                ed_next[e] = nd_first[node]
                ed_visits[e] = 0
                ed_value[e] = 0.0
                nd_first[node] = e
                nd_nexp[node] = k + 1
                path_nodes[depth] = node
                path_edges[depth] = e
                depth += 1
                if fresh:  # a new node: play it out
                    node = child
                    if term != UNKNOWN:
                        value = float(term)
                    else:
                        value = games.playout(g, p, after, buf, decisive, rng)
                    break
                node = child  # a transposition: keep descending
                continue
            visits = nd_visits[node]
            explore = c * (sqrt_log[visits] if visits < small else np.sqrt(np.log(visits)))
            best = -1
            best_score = -np.inf
            e = nd_first[node]
            while e >= 0:
                if nd_proven[ed_child[e]] == UNKNOWN:
                    n = ed_visits[e]
                    if n < small:
                        score = ed_value[e] * inverse[n] + explore * inverse_sqrt[n]
                    else:
                        score = ed_value[e] / n + explore / np.sqrt(n)
                    if score > best_score:
                        best = e
                        best_score = score
                e = ed_next[e]
            if best < 0:  # every child proven: so is this node
                _try_prove(nd, ed, node, outcomes)
                value = float(nd_proven[node])
                break
            path_nodes[depth] = node
            path_edges[depth] = best
            depth += 1
            node = ed_child[best]
        # back up: ``value`` is for the player to move at ``node`` (or an outcome code)
        nd_visits[node] += 1
        below = nd_player[node]
        for i in range(depth - 1, -1, -1):
            parent = path_nodes[i]
            e = path_edges[i]
            nd_visits[parent] += 1
            ed_visits[e] += 1
            if outcomes:
                ed_value[e] += gain(value, nd_player[parent])
                continue
            if nd_player[parent] != below:
                value = -value
                below = nd_player[parent]
            ed_value[e] += value
        if solver and nd_proven[node] != UNKNOWN:
            for i in range(depth - 1, -1, -1):
                parent = path_nodes[i]
                if nd_proven[parent] != UNKNOWN or not _try_prove(nd, ed, parent, outcomes):
                    break
        meta[META_DEPTH] += depth
        done += 1
    return done, DONE


@njit(cache=True)
def reroot(
    g: int, p: np.ndarray, nd: tuple, ed: tuple, slots: np.ndarray, meta: np.ndarray,
    root_state: np.ndarray,
) -> None:  # fmt: skip
    """Keep only the nodes that can still occur after ``root_state``, in place.

    A node is kept if the rules say it may follow the root (``games.reachable``), and so is
    every child of a kept node (the rules' tests are closed under moves; this makes sure no
    edge ever dangles). Kept nodes and kept edges slide down, each in its own id order (ids
    only decrease, so copying in increasing order never overwrites a row still to be read);
    ``meta`` gets the new counts and ``slots`` is rebuilt. Besides the table, it takes a few
    bytes per node and edge of scratch memory.
    """
    states, nd_visits, nd_proven = nd[NODE_STATES], nd[NODE_VISITS], nd[NODE_PROVEN]
    nd_term, nd_player, nd_first = nd[NODE_TERM], nd[NODE_PLAYER], nd[NODE_FIRST]
    nd_nact, nd_nexp = nd[NODE_NACT], nd[NODE_NEXP]
    ed_action, ed_child, ed_next = ed[EDGE_ACTION], ed[EDGE_CHILD], ed[EDGE_NEXT]
    ed_visits, ed_value = ed[EDGE_VISITS], ed[EDGE_VALUE]
    n = meta[META_NODES]
    keep = np.zeros(n, np.bool_)
    stack = np.empty(n, np.int64)
    top = 0
    for nid in range(n):
        if games.reachable(g, p, root_state, states[nid]):
            keep[nid] = True
            stack[top] = nid
            top += 1
    while top:  # children of kept nodes
        top -= 1
        e = nd_first[stack[top]]
        while e >= 0:
            child = ed_child[e]
            if not keep[child]:
                keep[child] = True
                stack[top] = child
                top += 1
            e = ed_next[e]
    remap = np.empty(n, np.int32)
    kept = 0
    for nid in range(n):
        if keep[nid]:
            remap[nid] = kept
            kept += 1
        else:
            remap[nid] = -1
    used = meta[META_EDGES]
    moved = np.full(used, -1, np.int32)  # an edge's new id, -1 if dropped
    for nid in range(n):
        if keep[nid]:
            e = nd_first[nid]
            while e >= 0:
                moved[e] = 0
                e = ed_next[e]
    write = 0
    for e in range(used):
        if moved[e] == 0:
            moved[e] = write
            write += 1
    for e in range(used):
        new = moved[e]
        if new < 0:
            continue
        ed_action[new] = ed_action[e]
        ed_child[new] = remap[ed_child[e]]
        following = ed_next[e]
        ed_next[new] = moved[following] if following >= 0 else -1
        ed_visits[new] = ed_visits[e]
        ed_value[new] = ed_value[e]
    for nid in range(n):
        new = remap[nid]
        if new < 0:
            continue
        states[new, :] = states[nid, :]
        nd_visits[new] = nd_visits[nid]
        nd_proven[new] = nd_proven[nid]
        nd_term[new] = nd_term[nid]
        nd_player[new] = nd_player[nid]
        head = nd_first[nid]
        nd_first[new] = moved[head] if head >= 0 else -1
        nd_nact[new] = nd_nact[nid]
        nd_nexp[new] = nd_nexp[nid]
    meta[META_NODES] = kept
    meta[META_EDGES] = write
    rehash(slots, states, kept)
