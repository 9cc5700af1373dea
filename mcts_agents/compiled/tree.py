"""The compiled search's tree: one record of named arrays, its hash table, growth and re-rooting.

A tree is a ``Tree`` (a ``collections.namedtuple``, which numba passes as one argument and
keeps in typed lists): node columns indexed by node id, edge columns indexed by edge id, the
hash table, the ``meta`` words, the generator word and the last root's key. ``core`` searches
it; ``searcher.CompiledSearch`` (one tree a searcher) and ``batch``/``board_trees`` (many) hold
it. ``Options`` is one search's settings, a record too (no positional lists).

A position is a row of ``W`` int64 words (the rules' layout) and is its own transposition key.
Node columns:
    states: the position (``[nodes, W]``).
    visits: simulations through the node (int64: hours of search overflow int32).
    proven: solver value for the player to move (-1, 0, 1; an outcome code with more than two
        players) or ``UNKNOWN``.
    term: value of a terminal position for the player to move (or its outcome), or ``UNKNOWN``.
    player: the player to move (no rows where two players alternate at every move:
        ``dispatch.alternates``).
    first: the node's first edge (-1: none yet).
    nact: legal moves (-1 until the node's first selection counts them).
    nexp: expanded moves.
Edge columns: action, child (-1: not expanded yet), next, edge_visits, value (the sum of the
mover's values). ``action``, ``nact`` and ``nexp`` are int8 for a game of at most 127 actions
(``allocate``'s ``narrow``), else int16.

The edge layout is the rule set's choice (``dispatch.blocks``, a constant while compiling):
- lists (``EDGE_BLOCKS`` absent or False): only expanded moves have edges; ``first`` is the
  newest and ``next`` the parent's previous one (-1 at the end), so a node whose search stops
  after a few expansions costs no room for the rest (Othello: about one edge a node instead of
  two; Gomoku: one instead of up to 225 for every selected node);
- blocks (``EDGE_BLOCKS = True``, Connect Four): at a node's first selection all its legal
  moves become the ``nact`` contiguous edges from ``first``, the expanded ones first (oldest
  first); ``next`` is unused (no rows).
``meta`` (``common.META_*``) holds the nodes and edges in use and the summed path depth;
``slots`` is an open-addressing hash table of node ids (-1 empty, a power of two, at most half
full); ``key[0]`` says whether ``key[1:]`` holds the last root searched (its table is pruned
to it), or ``FORGOTTEN``: the tree was emptied between games without its hash slots, which
the next search's ``core.begin`` clears (in parallel where trees are searched in a batch, not
one after another in the interpreter). The hash table's slot of a position (``slot``) is where
``store`` puts a new node (one probe finds or places it); its loops run over the rule set's
``WORDS`` as a constant.
Row sizes: ``8 W + 19`` bytes a node, 22 an edge (26 with lists), 4 to 8 a node in
``slots``; 2 bytes less a node and one an edge with ``narrow``, one less a node where the
players alternate (Connect Four: 32 a node, 21 an edge).
"""

from __future__ import annotations

from collections import namedtuple
from typing import Any

import numpy as np

from mcts_agents.compiled import dispatch as games
from mcts_agents.compiled.cache import njit
from mcts_agents.compiled.common import META_EDGES, META_NODES, UNKNOWN, meta_table, rng_state

__all__ = [
    "EDGE_COLUMNS",
    "FORGOTTEN",
    "NARROW_ACTIONS",
    "NARROW_COLUMNS",
    "NODE_COLUMNS",
    "Options",
    "Tree",
    "add_node",
    "allocate",
    "clear",
    "find",
    "forget",
    "grown",
    "rehash",
    "reroot",
    "slot",
    "store",
]

Tree = namedtuple(
    "Tree",
    [
        "states", "visits", "proven", "term", "player", "first", "nact", "nexp",
        "action", "child", "next", "edge_visits", "value",
        "slots", "meta", "rng", "key",
    ],
)  # fmt: skip
#: The node columns and the edge columns of a ``Tree``, by name (``grown`` copies them).
NODE_COLUMNS: tuple[str, ...] = Tree._fields[:8]
EDGE_COLUMNS: tuple[str, ...] = Tree._fields[8:13]

#: One search's settings (``searcher.CompiledSearch.options``): UCB1's ``c``, MCTS-Solver,
#: decisive playouts, tree reuse, the node limit and whether a full table ends the search, the
#: rules' bounds (legal moves of a position, moves of a game), outcome codes (more than two
#: players), the iterations of a batched search, the final move by value, the rules' words.
Options = namedtuple(
    "Options",
    [
        "c", "solver", "decisive", "reuse", "max_nodes", "stop_when_full", "max_actions",
        "max_depth", "outcomes", "iterations", "by_value", "params",
    ],
)  # fmt: skip

_DTYPES = {
    "visits": np.int64, "proven": np.int8, "term": np.int8, "player": np.int8,
    "first": np.int32, "nact": np.int16, "nexp": np.int16,
    "action": np.int16, "child": np.int32, "next": np.int32, "edge_visits": np.int64,
    "value": np.float64,
}  # fmt: skip


#: The columns that hold a move or a count of moves: int8 where every action id and count of a
#: game's legal moves fits (``allocate``'s ``narrow``), else int16.
NARROW_COLUMNS = ("action", "nact", "nexp")
#: The most actions a game may have for ``narrow`` columns.
NARROW_ACTIONS = 127


def _column(name: str, words: int, rows: int, dtype: Any = None) -> np.ndarray:
    if name == "states":
        return np.empty((rows, words), np.int64)
    return np.empty(rows, _DTYPES[name] if dtype is None else dtype)


def allocate(
    words: int, nodes: int, edges: int, blocks: bool, alternates: bool = False,
    narrow: bool = False,
) -> Any:  # fmt: skip
    """A ``Tree`` of ``nodes`` node rows and ``edges`` edge rows, an empty hash table, ``meta``
    zero. Columns a layout does not use have no rows: ``next`` with ``blocks``, ``player``
    where the players ``alternate``; ``narrow``: ``NARROW_COLUMNS`` in int8 (a game of at most
    ``NARROW_ACTIONS`` actions). Rows are uninitialised: the search writes every row before it
    reads it."""
    unused = {"next"} if blocks else set()
    if alternates:
        unused.add("player")
    columns = {}
    for names, rows in ((NODE_COLUMNS, nodes), (EDGE_COLUMNS, edges)):
        for name in names:
            dtype = np.int8 if narrow and name in NARROW_COLUMNS else None
            columns[name] = _column(name, words, 0 if name in unused else rows, dtype)
    return Tree(
        **columns,
        slots=np.full(2 * nodes, -1, np.int32),  # at most half full
        meta=meta_table(),
        rng=rng_state(),
        key=np.zeros(words + 1, np.int64),
    )


def grown(tree: Any, nodes: int, edges: int) -> Any:
    """``tree`` with ``nodes`` node rows and ``edges`` edge rows (at least those in use): every
    column copied (in its own dtype; a column without rows stays so), the hash table rebuilt
    where the nodes grew; ``meta``, ``rng`` and ``key`` are the same arrays."""
    words = tree.states.shape[1]
    used_nodes, used_edges = int(tree.meta[META_NODES]), int(tree.meta[META_EDGES])
    columns = {}
    for names, rows, used in ((NODE_COLUMNS, nodes, used_nodes), (EDGE_COLUMNS, edges, used_edges)):
        for name in names:
            old = getattr(tree, name)
            if len(old) == rows or len(old) == 0:  # (a column the layout does not use)
                columns[name] = old
                continue
            new = columns[name] = _column(name, words, rows, old.dtype)
            new[:used] = old[:used]
    if nodes == len(tree.visits):
        return tree._replace(**columns)
    slots = np.empty(2 * nodes, np.int32)
    rehash(slots, columns["states"], used_nodes)
    return tree._replace(**columns, slots=slots)


_SEED = np.uint64(0x243F6A8885A308D3)
_MUL = np.uint64(0x9E3779B97F4A7C15)


@njit(cache=True, _nrt=False, inline="always")
def _hash(s: np.ndarray, words: int) -> int:
    """The hash of a position's ``words`` words."""
    h = _SEED
    for i in range(words):
        h = (h ^ np.uint64(s[i])) * _MUL
        h ^= h >> np.uint64(29)
    return h


@njit(cache=True, _nrt=False, inline="always")
def _probe(slots: np.ndarray, states: np.ndarray, s: np.ndarray, words: int) -> int:
    """The hash slot of position ``s`` (``words`` words): the one holding it, or the empty one
    it would take."""
    size_mask = len(slots) - 1
    i = np.int64(_hash(s, words) & np.uint64(size_mask))
    while True:
        nid = slots[i]
        if nid < 0:
            return i
        same = True
        for w in range(words):
            if states[nid, w] != s[w]:
                same = False
                break
        if same:
            return i
        i = (i + 1) & size_mask


@njit(cache=True, _nrt=False)
def _slot(slots: np.ndarray, states: np.ndarray, s: np.ndarray) -> int:
    """``_probe`` of a row of any length (the same slots as ``slot``'s)."""
    return _probe(slots, states, s, s.shape[0])


@njit(cache=True, _nrt=False)
def slot(g: int, t: Any, s: np.ndarray) -> int:
    """The hash slot of position ``s`` in ``t``: the one holding it (``t.slots[slot]`` is its
    node) or the one it would take (``t.slots[slot]`` is -1, ``store`` puts it there). The
    words of game ``g``'s positions are a constant where its rule set says (``dispatch.words``:
    the loops unrolled)."""
    words = games.words(g)
    if words:
        return _probe(t.slots, t.states, s, words)
    return _probe(t.slots, t.states, s, s.shape[0])


@njit(cache=True)
def rehash(slots: np.ndarray, states: np.ndarray, n: int) -> None:
    """Fill ``slots`` (new, or stale) with nodes ``0..n-1``."""
    slots[:] = -1
    for nid in range(n):
        slots[_slot(slots, states, states[nid])] = nid


@njit(cache=True, _nrt=False)
def find(g: int, t: Any, s: np.ndarray) -> int:
    """The id of the node of position ``s``, or -1."""
    return t.slots[slot(g, t, s)]


@njit(cache=True, _nrt=False)
def store(g: int, t: Any, at: int, s: np.ndarray, term: int, player: int, solver: bool) -> int:
    """Store a new node of position ``s`` in hash slot ``at`` (``slot``'s answer for ``s``, no
    node added since; the caller checked capacity); return its id. The ``player`` column is
    written unless game ``g``'s players alternate (``dispatch.alternates``: none)."""
    nid = t.meta[META_NODES]
    t.meta[META_NODES] = nid + 1
    for w in range(s.shape[0]):  # (a loop: a slice's copy needs numba's runtime)
        t.states[nid, w] = s[w]
    t.visits[nid] = 0
    t.term[nid] = term
    t.proven[nid] = term if solver else UNKNOWN
    if not games.alternates(g):
        t.player[nid] = player
    t.first[nid] = -1
    t.nact[nid] = -1
    t.nexp[nid] = 0
    t.slots[at] = nid
    return nid


@njit(cache=True, _nrt=False)
def add_node(g: int, t: Any, s: np.ndarray, term: int, player: int, solver: bool) -> int:
    """Store a new node (the caller checked capacity); return its id."""
    return store(g, t, slot(g, t, s), s, term, player, solver)


#: ``key[0]`` of a tree that ``forget`` emptied: its hash slots are still to clear.
FORGOTTEN = 2


def forget(t: Any) -> None:
    """Empty the tree between games, in the interpreter, but for its hash slots: the next
    search's ``core.begin`` clears them (``clear``), inside the parallel kernel where trees
    are searched in a batch (a vector env starts ~30 episodes a step; clearing their 8,192-slot
    tables one after another took about a quarter of its time between kernel calls on 2
    cores)."""
    t.meta.fill(0)
    t.key[0] = FORGOTTEN


@njit(cache=True)
def clear(t: Any) -> None:
    """Empty the tree and forget its root (its hash slots are already empty when it holds no
    node, unless ``forget`` left them: ``core.begin`` clears such a tree first)."""
    if t.meta[META_NODES] != 0 or t.key[0] == FORGOTTEN:
        t.slots[:] = -1
    t.meta[:] = 0
    t.key[0] = 0


@njit(cache=True, _nrt=False)
def first_edge(g: int, t: Any, node: int) -> int:
    """``node``'s first expanded edge (blocks: the oldest; lists: the newest), or -1."""
    if games.blocks(g):
        return t.first[node] if t.nexp[node] > 0 else -1
    return t.first[node]


@njit(cache=True, _nrt=False)
def next_edge(g: int, t: Any, node: int, e: int) -> int:
    """The expanded edge of ``node`` after ``e`` (blocks: the next newer; lists: the next
    older), or -1."""
    if games.blocks(g):
        return e + 1 if e + 1 < t.first[node] + t.nexp[node] else -1
    return t.next[e]


@njit(cache=True)
def reroot(g: int, p: np.ndarray, t: Any, root_state: np.ndarray) -> None:
    """Keep only the nodes that can still occur after ``root_state``, in place.

    A node is kept if the rules say it may follow the root (``games.reachable``), and so is
    every child of a kept node (the rules' tests are closed under moves; this makes sure no
    edge ever dangles). Kept nodes and their edges (lists: the expanded ones; blocks: all
    ``nact`` of the block, which stays contiguous) slide down, each in its own id order (ids
    only decrease, so copying in increasing order never overwrites a row still to be read);
    ``first``, ``next`` and ``child`` are remapped, ``meta`` gets the new counts and ``slots``
    is rebuilt. Besides the table it takes a few bytes of scratch per node and edge: on a table
    of 10^6 nodes new arrays would cost more in page faults than the work itself.
    """
    blocks = games.blocks(g)
    n = t.meta[META_NODES]
    keep = np.zeros(n, np.bool_)
    stack = np.empty(n, np.int64)
    top = 0
    for nid in range(n):
        if games.reachable(g, p, root_state, t.states[nid]):
            keep[nid] = True
            stack[top] = nid
            top += 1
    while top:  # children of kept nodes
        top -= 1
        node = stack[top]
        e = first_edge(g, t, node)
        while e >= 0:
            child = t.child[e]
            if not keep[child]:
                keep[child] = True
                stack[top] = child
                top += 1
            e = next_edge(g, t, node, e)
    remap = np.empty(n, np.int32)
    kept = 0
    for nid in range(n):
        if keep[nid]:
            remap[nid] = kept
            kept += 1
        else:
            remap[nid] = -1
    used = t.meta[META_EDGES]
    moved = np.full(used, -1, np.int32)  # an edge's new id, -1 if dropped
    for nid in range(n):
        if keep[nid] and t.first[nid] >= 0:
            if blocks:  # the whole block
                moved[t.first[nid] : t.first[nid] + t.nact[nid]] = 0
                continue
            e = t.first[nid]
            while e >= 0:
                moved[e] = 0
                e = t.next[e]
    write = 0
    for e in range(used):
        if moved[e] == 0:
            moved[e] = write
            write += 1
    for e in range(used):
        new = moved[e]
        if new < 0:
            continue
        t.action[new] = t.action[e]
        child = t.child[e]
        t.child[new] = remap[child] if child >= 0 else -1
        if not blocks:
            following = t.next[e]
            t.next[new] = moved[following] if following >= 0 else -1
        t.edge_visits[new] = t.edge_visits[e]
        t.value[new] = t.value[e]
    for nid in range(n):
        new = remap[nid]
        if new < 0:
            continue
        t.states[new, :] = t.states[nid, :]
        t.visits[new] = t.visits[nid]
        t.proven[new] = t.proven[nid]
        t.term[new] = t.term[nid]
        if not games.alternates(g):
            t.player[new] = t.player[nid]
        head = t.first[nid]
        t.first[new] = moved[head] if head >= 0 else -1
        t.nact[new] = t.nact[nid]
        t.nexp[new] = t.nexp[nid]
    t.meta[META_NODES] = kept
    t.meta[META_EDGES] = write
    rehash(t.slots, t.states, kept)
