"""The compiled tree search, every phase written once: one MCTS for every game with compiled rules.

The search is the one of ``MCTS`` restricted to UCB1 with classic first-play urgency (every
child once before any twice), random expansion order, the rules' playouts and MCTS-Solver
through transpositions. It runs over one ``tree.Tree`` with one ``tree.Options``; a game plugs
in through ``dispatch`` (its id ``g``, a constant while compiling, and parameter words
``Options.params``): legal moves, the next position and its terminal value, the player to move,
a playout, a reachability test for tree reuse, and its edge layout (``blocks``). The phases:

- ``begin``: seed the generator, find, add or re-root the root (``tree.reroot``);
- ``select``: UCB1 over a node's expanded edges (``UCB_TABLES``: one formula for every game);
- expand: ``draw`` a random untried move (lists: among the legal moves without an edge;
  blocks: swapped into place inside the node's block, made at its first selection), the rules'
  next position, ``tree.store`` where it is new (in the hash slot where ``tree.slot`` did not
  find it), ``add_edge``;
- evaluate: a terminal value or the rules' playout (in ``search_tree``, where the rules are
  called);
- ``backup``: the value up the path, its sign changing where the player to move changes (at
  every step where the players alternate, ``dispatch.alternates``: no ``player`` read);
- ``prove``: MCTS-Solver (two players: values; more: outcome codes, max^n);
- ``pick``: the final-move rule (``search.searcher.pick_index``, compiled: written once);
- ``search_tree``: the loop over simulations, with its status (``DONE``, ``ROOT_PROVEN``,
  ``GROW_NODES``/``GROW_EDGES``: the caller grows the tree and calls again, ``TABLE_FULL``).

``searcher.CompiledSearch``, ``batch`` and ``board_trees`` all run ``begin``, ``search_tree`` and
the final-move rule, so a batched search is each tree's own search by construction.

Speed: numba increfs every array of a function's arguments on entry and decrefs them on exit,
which for a record of some twenty arrays costs more than the work of a small phase (measured:
tic-tac-toe at 0.61x the speed of the positional kernel before). The phases that run in every
simulation and call no rule (``select``, ``draw``, ``add_edge``, ``backup``, ``prove``,
``tree.slot``, ``tree.store``) are therefore compiled without numba's runtime
(``_nrt=False``): they borrow the caller's arrays and allocate nothing. The rules are called from
``search_tree`` itself, over arrays named once: a function compiled without the runtime compiles
its callees without it too, and some rule sets' functions need it; those that do not
(``RUNTIME_FREE``, Connect Four) are called without it (``dispatch``).

Values are for the player to move at a node; an edge holds the sum of its mover's values, and a
value changes sign between a node and its parent only where the player to move changes (two
stones per turn, or a pass, keep or change the mover as the rules say). Games of more than two
players (``Options.outcomes``) report outcome codes instead (``common.DRAW``, ``common.WIN +
p``): an edge adds what the code pays its mover (max^n), and a node is proven a win for its
mover by a child proven so, else by its best proven child when all are.

Connect Four's own kernel (deleted) scored UCB1 as ``value / n + explore / sqrt(n)``; the core's
tables (``value * (1 / n) + explore * (1 / sqrt(n))``) round differently in the last bit, so a
Connect Four search of a given seed may take another path than before (same draws, same
proofs, same strength); every other game's search is unchanged bit for bit.
"""

from __future__ import annotations

from collections import namedtuple
from typing import Any

import numpy as np

from mcts_agents.compiled import dispatch as games
from mcts_agents.compiled.cache import njit
from mcts_agents.compiled.common import META_DEPTH, META_EDGES, META_NODES, UNKNOWN, gain, random01
from mcts_agents.compiled.tree import (
    FORGOTTEN,
    add_node,
    clear,
    first_edge,
    next_edge,
    reroot,
    slot,
    store,
)
from mcts_agents.search.searcher import LABEL_LOSS, LABEL_NONE, LABEL_OTHER, LABEL_WIN, pick_index

__all__ = [
    "DONE",
    "GROW_EDGES",
    "GROW_NODES",
    "ROOT_PROVEN",
    "TABLE_FULL",
    "UCB_TABLES",
    "add_edge",
    "backup",
    "begin",
    "draw",
    "pick",
    "prove",
    "same_mover",
    "search_tree",
    "select",
]

DONE, ROOT_PROVEN, GROW_NODES, GROW_EDGES, TABLE_FULL = 0, 1, 2, 3, 4
#: Scratch words a playout may use (``games.BUFFER``).
BUFFER = games.BUFFER


def _ucb_tables(size: int) -> np.ndarray:
    """``sqrt(log n)``, ``1 / n`` and ``1 / sqrt(n)`` for ``n < size`` (row 0 unused): UCB1's
    square roots, logarithm and divisions become loads for the small counts that most nodes
    and edges have (tic-tac-toe: 2.9 -> 3.4 M simulations/s). Frozen into the compiled code.
    """
    n = np.arange(size, dtype=np.float64)
    n[0] = 1.0
    return np.stack([np.sqrt(np.log(n)), 1.0 / n, 1.0 / np.sqrt(n)])


UCB_TABLES = _ucb_tables(1 << 12)
_SQRT_LOG, _INVERSE, _INVERSE_SQRT = UCB_TABLES[0], UCB_TABLES[1], UCB_TABLES[2]
_SMALL = UCB_TABLES.shape[1]

#: One call's work space (``scratch``): the path's nodes and edges, the legal moves, the
#: moves with an edge (lists), the position expanded and the next one, a playout's words.
Scratch = namedtuple(
    "Scratch", ["path_nodes", "path_edges", "actions", "tried", "here", "after", "buf"]
)


@njit(cache=True)
def scratch(o: Any, words: int) -> Any:
    """A ``Scratch`` for the options ``o`` and positions of ``words`` words."""
    return Scratch(
        np.empty(o.max_depth + 1, np.int64),
        np.empty(o.max_depth + 1, np.int64),
        np.empty(o.max_actions, np.int64),
        np.zeros(o.max_actions, np.bool_),
        np.empty(words, np.int64),
        np.empty(words, np.int64),
        np.empty(BUFFER, np.int64),
    )


@njit(cache=True, _nrt=False)
def _consider(t: Any, e: int, explore: float, best: int, best_score: float) -> tuple:
    """UCB1's score of edge ``e`` against the best so far (a proven child is never chosen)."""
    if t.proven[t.child[e]] != UNKNOWN:
        return best, best_score
    n = t.edge_visits[e]
    if n < _SMALL:
        score = t.value[e] * _INVERSE[n] + explore * _INVERSE_SQRT[n]
    else:
        score = t.value[e] / n + explore / np.sqrt(n)
    if score > best_score:
        return e, score
    return best, best_score


@njit(cache=True, _nrt=False)
def select(g: int, t: Any, node: int, c: float) -> int:
    """UCB1 over ``node``'s expanded edges (every legal move has one): the best unproven one,
    the first of ties in the layout's order (blocks: oldest first; lists: newest first); -1
    when every child is proven."""
    visits = t.visits[node]
    explore = c * (_SQRT_LOG[visits] if visits < _SMALL else np.sqrt(np.log(visits)))
    best = -1
    best_score = -np.inf
    if games.blocks(g):
        first = t.first[node]
        for e in range(first, first + t.nexp[node]):
            best, best_score = _consider(t, e, explore, best, best_score)
        return best
    e = t.first[node]
    while e >= 0:
        best, best_score = _consider(t, e, explore, best, best_score)
        e = t.next[e]
    return best


@njit(cache=True, _nrt=False)
def draw(g: int, t: Any, node: int, actions: np.ndarray, n: int, tried: np.ndarray) -> int:
    """A random untried move of ``node`` (``expand``'s draw): lists: ``actions[:n]`` are its
    legal moves, generated again, and the draw is among those without an edge (``tried``: a
    zeroed flag per action, zeroed again after); blocks: at its first selection ``actions[:n]``
    become its block of edges, and the move drawn among the block's untried ones is swapped into
    the next place (one draw, ``common.random01``, either way)."""
    k = t.nexp[node]
    if games.blocks(g):
        first = t.first[node]
        if first < 0:  # first selection: the legal moves become a block of edges
            first = t.meta[META_EDGES]
            for i in range(n):
                t.action[first + i] = actions[i]
                t.child[first + i] = -1
                t.edge_visits[first + i] = 0
                t.value[first + i] = 0.0
            t.meta[META_EDGES] = first + n
            t.first[node] = first
            t.nact[node] = n
        e = first + k
        j = e + int(random01(t.rng) * (t.nact[node] - k))
        action = t.action[j]
        t.action[j] = t.action[e]
        t.action[e] = action
        return action
    t.nact[node] = n
    e = t.first[node]
    while e >= 0:
        tried[t.action[e]] = True
        e = t.next[e]
    r = int(random01(t.rng) * (n - k))
    action = -1
    for i in range(n):
        a = actions[i]
        if not tried[a]:
            if r == 0:
                action = a
                break
            r -= 1
    e = t.first[node]
    while e >= 0:
        tried[t.action[e]] = False
        e = t.next[e]
    return action


@njit(cache=True, _nrt=False)
def add_edge(g: int, t: Any, node: int, action: int, child: int) -> int:
    """The edge of ``node``'s move ``action`` (just drawn) to ``child``: blocks: the block's next
    place; lists: a new edge at the head of the list. Returns it."""
    k = t.nexp[node]
    if games.blocks(g):
        e = t.first[node] + k
    else:
        e = t.meta[META_EDGES]
        t.meta[META_EDGES] = e + 1
        t.action[e] = action
        t.next[e] = t.first[node]
        t.edge_visits[e] = 0
        t.value[e] = 0.0
        t.first[node] = e
    t.child[e] = child
    t.nexp[node] = k + 1
    return e


@njit(cache=True, _nrt=False)
def same_mover(g: int, t: Any, a: int, b: int) -> bool:
    """Whether the same player moves at nodes ``a`` and ``b``, a parent and its child (never,
    where the players alternate: ``dispatch.alternates``)."""
    if games.alternates(g):
        return False
    return t.player[a] == t.player[b]


@njit(cache=True, _nrt=False)
def backup(g: int, t: Any, o: Any, sc: Any, depth: int, node: int, value: float) -> None:
    """``value`` (for the player to move at ``node``, or an outcome code) up the path of
    ``depth`` edges that ended at ``node``."""
    t.visits[node] += 1
    if games.alternates(g):  # the sign changes at every step
        for i in range(depth - 1, -1, -1):
            value = -value
            e = sc.path_edges[i]
            t.visits[sc.path_nodes[i]] += 1
            t.edge_visits[e] += 1
            t.value[e] += value
        return
    below = t.player[node]
    for i in range(depth - 1, -1, -1):
        parent = sc.path_nodes[i]
        e = sc.path_edges[i]
        t.visits[parent] += 1
        t.edge_visits[e] += 1
        if o.outcomes:
            t.value[e] += gain(value, t.player[parent])
            continue
        if t.player[parent] != below:
            value = -value
            below = t.player[parent]
        t.value[e] += value


@njit(cache=True, _nrt=False)
def prove(g: int, t: Any, node: int, outcomes: bool) -> bool:
    """Prove ``node`` from its children: a proven win for its mover, or all children proven
    (then the best for the mover: with ``outcomes``, the first best in the layout's order)."""
    complete = t.nexp[node] == t.nact[node]
    best = -2.0
    best_proof = UNKNOWN
    e = first_edge(g, t, node)
    if e < 0:
        return False
    while e >= 0:
        child = t.child[e]
        e = next_edge(g, t, node, e)
        proof = t.proven[child]
        if proof == UNKNOWN:
            complete = False
            continue
        if outcomes:  # the proof is an outcome: what it pays the mover
            value = gain(proof, t.player[node])
        else:  # the proof is a value for the child's mover
            value = float(proof) if same_mover(g, t, child, node) else -float(proof)
            proof = np.int8(value)
        if value >= 1:
            t.proven[node] = proof
            return True
        if value > best:
            best = value
            best_proof = proof
    if complete and best > -2:
        t.proven[node] = best_proof
        return True
    return False


@njit(cache=True)
def begin(g: int, t: Any, o: Any, s: np.ndarray, seed: np.uint64) -> tuple:
    """Start a search from position ``s``: the generator seeded (``seed | 1``), the root found,
    added (a new table) or re-rooted (tree reuse with reachability pruning; nothing to prune
    when ``s`` is the last root again); ``(root, reused nodes, pruned nodes)``."""
    t.rng[0] = seed | np.uint64(1)
    t.meta[META_DEPTH] = 0
    if not o.reuse or t.key[0] == FORGOTTEN:  # (a forgotten tree: its hash slots cleared here)
        clear(t)
    root = t.slots[slot(g, t, s)]
    if root < 0:
        clear(t)
        t.key[1:] = s
        t.key[0] = 1
        return add_node(g, t, s, UNKNOWN, games.to_play(g, o.params, s), True), 0, 0
    if t.key[0] and np.all(t.key[1:] == s):  # the same position again: nothing to prune
        return root, t.meta[META_NODES], 0
    t.key[1:] = s
    t.key[0] = 1
    before = t.meta[META_NODES]
    reroot(g, o.params, t, s)
    return t.slots[slot(g, t, s)], t.meta[META_NODES], before - t.meta[META_NODES]


_pick_index = njit(cache=True)(pick_index)


@njit(cache=True)
def _label(value: float) -> int:
    if value >= 1.0:
        return LABEL_WIN
    if value <= -1.0:
        return LABEL_LOSS
    return LABEL_OTHER


@njit(cache=True)
def pick(g: int, t: Any, root: int, by_value: bool, edges: np.ndarray, buf: tuple) -> int:
    """The action of the final-move rule at ``root`` (two players; ``CompiledSearch.
    best_action``), or -1 before any edge; ``edges`` and ``buf`` (visits, values, labels):
    work space of the most legal moves of a position."""
    visits, values, labels = buf
    n = 0
    e = first_edge(g, t, root)
    while e >= 0:
        edges[n] = e
        n += 1
        e = next_edge(g, t, root, e)
    if n == 0:
        return -1
    if not games.blocks(g):  # oldest first
        for k in range(n // 2):
            edges[k], edges[n - 1 - k] = edges[n - 1 - k], edges[k]
    for k in range(n):
        e = edges[k]
        count = t.edge_visits[e]
        child = t.child[e]
        proven = t.proven[child]
        visits[k] = count
        if proven != UNKNOWN:
            value = float(proven) if same_mover(g, t, child, root) else -float(proven)
            values[k] = value
            labels[k] = _label(value)
        else:
            values[k] = t.value[e] / count if count else 0.0
            labels[k] = LABEL_NONE
    return t.action[edges[_pick_index(visits, values, labels, n, by_value)]]


@njit(cache=True)
def search_tree(g: int, t: Any, o: Any, root: int, iterations: int) -> tuple:
    """Run up to ``iterations`` simulations from ``root``; return ``(done, status)``.

    ``status`` is ``DONE``, ``ROOT_PROVEN``, ``GROW_NODES``/``GROW_EDGES`` (the caller grows the
    tree and calls again) or ``TABLE_FULL`` (``o.max_nodes`` nodes stored and
    ``o.stop_when_full``; otherwise a full table only stops growth, as in ``MCTS``).
    """
    sc = scratch(o, t.states.shape[1])
    p, blocks, alternates = o.params, games.blocks(g), games.alternates(g)
    # the arrays the rules get, named once (each ``record.field`` in the loop would count a
    # reference around every call)
    states, rng, actions, here, after, buf = t.states, t.rng, sc.actions, sc.here, sc.after, sc.buf
    words = states.shape[1]
    # the edges one simulation may open (transpositions descend): a block a node, or one
    headroom = (o.max_depth + 1) * (o.max_actions if blocks else 1)
    done = 0
    while done < iterations:
        if t.proven[root] != UNKNOWN:
            return done, ROOT_PROVEN
        nodes = t.meta[META_NODES]
        if nodes >= len(t.visits) and nodes < o.max_nodes:
            return done, GROW_NODES
        if t.meta[META_EDGES] + headroom > len(t.child):
            return done, GROW_EDGES
        if o.stop_when_full and nodes >= o.max_nodes:
            return done, TABLE_FULL
        node = root
        depth = 0
        value = 0.0
        term = UNKNOWN
        new = False  # ``after`` is a new position, to evaluate (``negate``: for ``node``'s mover)
        negate = False
        while True:
            if t.proven[node] != UNKNOWN:
                value = float(t.proven[node])
                break
            if t.term[node] != UNKNOWN:
                value = float(t.term[node])
                break
            if t.nexp[node] != t.nact[node]:  # expand an untried move (first: count the moves)
                for w in range(words):  # (word by word: a row's view counts a reference)
                    here[w] = states[node, w]
                n = 0
                if not (blocks and t.first[node] >= 0):  # (a block holds them already)
                    n = games.legal(g, p, here, actions)
                action = draw(g, t, node, actions, n, sc.tried)
                term = games.play(g, p, here, action, after)
                at = slot(g, t, after)  # where it is, or where it goes
                child = t.slots[at]
                fresh = child < 0
                if fresh:
                    mover = 0 if alternates else games.to_play(g, p, after)
                    if t.meta[META_NODES] >= o.max_nodes:  # full: evaluated, not stored
                        new = True
                        negate = not o.outcomes and (alternates or mover != t.player[node])
                        break
                    child = store(g, t, at, after, term, mover, o.solver)
                sc.path_nodes[depth] = node
                sc.path_edges[depth] = add_edge(g, t, node, action, child)
                depth += 1
                node = child
                if fresh:  # a new node: play it out
                    new = True
                    break
                continue  # a transposition: keep descending
            best = select(g, t, node, o.c)
            if best < 0:  # every child proven: so is this node
                prove(g, t, node, o.outcomes)
                value = float(t.proven[node])
                break
            sc.path_nodes[depth] = node
            sc.path_edges[depth] = best
            depth += 1
            node = t.child[best]
        if new:  # evaluate: a terminal value or the rules' playout
            value = (
                float(term) if term != UNKNOWN else games.playout(g, p, after, buf, o.decisive, rng)
            )
            if negate:
                value = -value
        backup(g, t, o, sc, depth, node, value)
        if o.solver and t.proven[node] != UNKNOWN:
            for i in range(depth - 1, -1, -1):
                parent = sc.path_nodes[i]
                if t.proven[parent] != UNKNOWN or not prove(g, t, parent, o.outcomes):
                    break
        t.meta[META_DEPTH] += depth
        done += 1
    return done, DONE
