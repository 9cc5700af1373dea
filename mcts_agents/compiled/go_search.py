"""Go's compiled tree search (numba): the tree in arrays, the board copied per simulation from
the root, RAVE/AMAF, tree priors and heavy playouts. The Python side is ``go_searcher``.

The tree: node ``i`` has its visits and wins (``N``, ``W``: wins of the player who moved into
it, 1 a win, 0 a loss), prior visits and wins (``PN``, ``PW``: virtual results from Go
knowledge, used in selection only), AMAF visits and wins (``AN``, ``AW``), the cell of its move
(``MOVE``; -1 the pass), and once expanded, its children as one block (``FIRST``, ``COUNT``):
every legal move of its position, the pass last. The tree is a tree (no transpositions): a
node's path from the root fixes its history, so positional superko is exact in the tree (a
move whose board is one of the root's earlier boards, the core's ``seen``, or a board on the
path, is not a child). Playouts keep simple ko only, as ``go_playout``'s.

A simulation copies the root's board, descends by the selection rule, expands a leaf visited
``expand`` times (the root at once) while the table has room, plays out to two passes in a
row (at most ``3 * points`` plies, then scored as it stands) and backs up: the result is the
Tromp-Taylor area of the end, black wins when its area minus white's exceeds komi.

Selection (win rates in [0, 1]): ``q = (W + PW) / (N + PN)``; with RAVE (Gelly and Silver
2007) ``q = (1 - beta) q + beta AW / AN`` with Silver's ``beta = AN / (AN + n + AN n /
equiv)`` (his ``4 b^2 = 1 / equiv``); then ``q + c sqrt(ln(N_parent + 1) / n)``; a child
with ``n == 0`` is tried first. AMAF: after a simulation, each tree node's children whose cell
was played first (after that node) by the player to move there get one AMAF visit and that
player's result.

Priors (``priors``): every child ``even`` visits at one half; captures and escapes from atari
``capture``/``escape`` won visits; moves next to the last move ``near`` won visits; first-line
moves while over half the board is empty ``edge`` lost visits; self-ataris of two stones or
more ``self_atari`` lost visits; filling an own eye ``eye`` lost visits; the pass ``pass_n``
lost visits while over half the board is empty (else the even prior), and where it ends the
game (the opponent passed) ``pass_n`` visits won or lost as the board's area says now.

Playouts (``heavy``): after the opponent's last move, capture its string if it is in atari,
else save an own string next to it in atari by extending (not into atari again); else
(``patterns``) a point next to the last move that matches one of MoGo's 3x3 shapes
(``go_patterns``), legal and no self-atari, drawn uniformly among them; else a random
move (a partial Fisher-Yates shuffle of the empty cells) that is legal, not an own eye, and not
a self-atari of two stones or more; the pass when nothing is left. Without ``heavy``: the
decisive playout of ``go_playout`` (legal, no own eye).

Records (namedtuples, one argument each in numba): ``Options`` (the settings, by name),
``Tables`` (a board size's constant arrays), ``Tree`` (the node rows and ``meta``) and the
board, ``go_board.Board``. ``run`` unpacks them once a call and passes plain arrays to what
runs every node or every ply (``_select``, ``play``, the legality and tactics tests): a record
read there would make numba count references to each of its arrays at every call. ``_expand``
and ``_playout``, once a simulation each, take the records.
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple, get_type_hints

import numpy as np

from mcts_agents.compiled.cache import njit
from mcts_agents.compiled.go_board import (
    EMPTIES,
    EPOS,
    HASH,
    HEAD,
    LAST,
    N_EMPTY,
    PASSES,
    TO_MOVE,
    Board,
    atari,
    captures,
    hash_after,
    legal,
    own_eye,
    play,
    self_atari,
)
from mcts_agents.compiled.go_ladder import LEVELS, atari_caught, escape_caught, ladder_space
from mcts_agents.compiled.go_playout import _below, area
from mcts_agents.compiled.go_tactics import _pattern, _tactic

# nodes: int rows (``Tree.ni``) and float rows (``Tree.nf``)
N, FIRST, COUNT, MOVE = range(4)
W, PN, PW, AN, AW = range(5)
# meta words
META_NODES, META_DEPTH, META_FULL = range(3)


class Options(NamedTuple):
    """A search's settings as the kernel reads them (``GoOptions``'s, see the module
    docstring, and the game's); build it with ``options``."""

    size: int
    superko: bool
    rave: bool
    priors: bool
    heavy: bool
    expand: int
    patterns: bool
    defend: bool
    ladders: bool
    komi: float
    c: float
    equiv: float
    even: float
    capture: float
    escape: float
    near: float
    edge: float
    self_atari: float
    eye: float
    pass_n: float


#: each field's type, in order
_KINDS = tuple(get_type_hints(Options)[name] for name in Options._fields)


def options(**fields: float | bool | int) -> Options:
    """``Options(**fields)`` with each field cast to its declared type (another type would
    compile the kernel again)."""
    record = Options(**fields)  # type: ignore[arg-type]
    return Options(*(kind(value) for kind, value in zip(_KINDS, record, strict=True)))


class Tables(NamedTuple):
    """A board size's constant arrays (``go_board``'s): the neighbours' offsets, the Zobrist
    keys by colour and cell, whether a cell is on the first line; ``go_patterns``' table."""

    offs: np.ndarray
    zob: np.ndarray
    edges: np.ndarray
    pat: np.ndarray


class Tree(NamedTuple):
    """The node table: int rows ``N .. MOVE`` and float rows ``W .. AW`` by node, and the
    ``META_*`` words."""

    ni: np.ndarray  # int32[4, capacity]
    nf: np.ndarray  # float32[5, capacity]
    meta: np.ndarray  # int64[3]


def allocate(capacity: int, meta: np.ndarray) -> Tree:
    """A table of ``capacity`` empty nodes over ``meta``."""
    return Tree(np.zeros((4, capacity), np.int32), np.zeros((5, capacity), np.float32), meta)


@njit(cache=True)
def new_root(tree: Any) -> None:
    """Make the table one root node (unexpanded, unvisited)."""
    ni, nf, meta = tree
    ni[N, 0] = 0
    ni[FIRST, 0] = -1
    ni[COUNT, 0] = 0
    ni[MOVE, 0] = -1
    for r in range(5):
        nf[r, 0] = 0.0
    meta[META_NODES] = 1


@njit(cache=True)
def _select(node: int, ni: Any, nf: Any, o: Any, rng: Any) -> int:
    first = ni[FIRST, node]
    log_n = math.log(ni[N, node] + 1.0)
    c = o.c
    equiv = o.equiv
    rave = o.rave
    best = -1
    best_v = -1e300
    for i in range(first, first + ni[COUNT, node]):
        n = ni[N, i] + nf[PN, i]
        if n <= 0.0:
            v = 1e9 + _below(rng, 1 << 20)  # untried: first, in random order
        else:
            q = (nf[W, i] + nf[PW, i]) / n
            if rave and nf[AN, i] > 0.0:
                an = nf[AN, i]
                beta = an / (an + n + an * n / equiv)
                q = (1.0 - beta) * q + beta * nf[AW, i] / an
            v = q + c * math.sqrt(log_n / n)
        if v > best_v:
            best_v = v
            best = i
    return best


@njit(cache=True)
def _expand(
    node: int, tree: Any, board: Any, tables: Any, o: Any, seen: Any, path_hash: Any, depth: int,
    stack: Any, scratch: Any, w: Any,
) -> bool:  # fmt: skip
    """Give ``node`` (the board's position) its children; False when the table is full."""
    ni, nf, meta = tree
    col, bw, st = board
    offs, zob, edge = tables.offs, tables.zob, tables.edges
    points = o.size * o.size
    start = meta[META_NODES]
    if start + points + 1 > ni.shape[1]:
        meta[META_FULL] = 1
        return False
    c = st[TO_MOVE]
    width = o.size + 2
    superko = o.superko
    priors = o.priors
    ladders = o.ladders
    last = st[LAST]
    early = st[N_EMPTY] * 2 > points
    k = start
    for j in range(st[N_EMPTY]):
        p = bw[EMPTIES, j]
        if not legal(p, c, col, bw, st, offs):
            continue
        if superko:
            h = hash_after(p, c, col, bw, st, offs, zob)
            i = np.searchsorted(seen, h)
            if i < seen.shape[0] and seen[i] == h:
                continue
            repeat = False
            for d in range(depth + 1):
                if path_hash[d] == h:
                    repeat = True
                    break
            if repeat:
                continue
        ni[N, k] = 0
        ni[FIRST, k] = -1
        ni[COUNT, k] = 0
        ni[MOVE, k] = p
        pn = 0.0
        pw = 0.0
        if priors:
            pn = o.even
            pw = 0.5 * o.even
            if captures(p, c, col, bw, offs) > 0:
                pn += o.capture
                pw += o.capture
            if own_eye(p, c, col, edge, width):
                pn += o.eye
            elif self_atari(p, c, col, bw, offs):
                pn += o.self_atari
            else:
                for d in range(4):  # an escape: an own string next to p in atari
                    q = p + offs[d]
                    if col[q] == c and atari(bw[HEAD, q], bw):
                        if ladders and escape_caught(p, col, bw, st, offs, zob, w):
                            pn += o.self_atari  # running out of a ladder
                        else:
                            pn += o.escape
                            pw += o.escape
                        break
                if ladders and atari_caught(p, col, bw, st, offs, zob, w):
                    pn += o.capture  # an atari the string cannot get out of
                    pw += o.capture
            if last >= 0:
                dr = abs(p // width - last // width)
                dc = abs(p % width - last % width)
                if dr + dc <= 2:
                    pn += o.near
                    pw += o.near
            if early and edge[p]:
                pn += o.edge
        nf[W, k] = 0.0
        nf[PN, k] = pn
        nf[PW, k] = pw
        nf[AN, k] = 0.0
        nf[AW, k] = 0.0
        k += 1
    ni[N, k] = 0  # the pass
    ni[FIRST, k] = -1
    ni[COUNT, k] = 0
    ni[MOVE, k] = -1
    nf[W, k] = 0.0
    nf[PN, k] = 0.0
    nf[PW, k] = 0.0
    if priors:  # lost visits while over half the board is empty, else the even prior
        nf[PN, k] = o.pass_n if early else o.even
        nf[PW, k] = 0.0 if early else 0.5 * o.even
    if priors and st[PASSES] == 1:  # the pass ends the game: a won end is a won prior
        black_won = area(col, offs, stack, scratch) - o.komi > 0
        nf[PN, k] = o.pass_n
        nf[PW, k] = o.pass_n if black_won == (c == 1) else 0.0
    nf[AN, k] = 0.0
    nf[AW, k] = 0.0
    k += 1
    ni[FIRST, node] = start
    ni[COUNT, node] = k - start
    meta[META_NODES] = k
    return True


@njit(cache=True)
def _playout(
    board: Any, tables: Any, o: Any, rng: Any, seq_p: Any, seq_c: Any, length: int, cap: int,
    w: Any,
) -> int:  # fmt: skip
    """Play out the board to two passes in a row (or ``cap`` plies); the moves go into
    ``seq_p``/``seq_c`` from ``length``. Returns the sequence's new length."""
    col, bw, st = board
    offs, zob, edge, pat = tables
    width = o.size + 2
    heavy = o.heavy
    patterns = o.patterns
    defend = o.defend
    ladders = o.ladders
    libs = np.empty(2, np.int64)
    plies = 0
    while plies < cap and st[PASSES] < 2:
        c = st[TO_MOVE]
        chosen = -1
        if heavy:
            chosen = _tactic(c, col, bw, st, offs, zob, defend, ladders, libs, w)
        if chosen < 0 and patterns:
            chosen = _pattern(c, col, bw, st, offs, pat, rng)
        if chosen < 0:
            n = st[N_EMPTY]
            i = 0
            while i < n:
                j = i + _below(rng, n - i)
                p = bw[EMPTIES, j]
                q = bw[EMPTIES, i]
                bw[EMPTIES, j] = q
                bw[EPOS, q] = j
                bw[EMPTIES, i] = p
                bw[EPOS, p] = i
                i += 1
                if not legal(p, c, col, bw, st, offs):
                    continue
                if own_eye(p, c, col, edge, width):
                    continue
                if heavy and self_atari(p, c, col, bw, offs):
                    continue
                chosen = p
                break
        play(chosen, col, bw, st, offs, zob)
        if chosen >= 0:
            seq_p[length] = chosen
            seq_c[length] = c
            length += 1
        plies += 1
    return length


@njit(cache=True)
def run(tree: Any, root: Any, tables: Any, o: Any, seen: Any, rng: Any, count: int) -> int:
    """``count`` simulations from node 0 (the board ``root``; ``seen``: the earlier boards'
    hashes, sorted, for superko). Returns how many ran."""
    ni, nf, meta = tree
    root_col, root_bw, root_st = root
    offs, zob = tables.offs, tables.zob
    points = o.size * o.size
    cells = root_col.shape[0]
    max_depth = 4 * points
    col = root_col.copy()
    bw = root_bw.copy()
    st = root_st.copy()
    board = Board(col, bw, st)
    path = np.empty(max_depth + 2, np.int64)
    path_hash = np.empty(max_depth + 2, np.uint64)
    seq_p = np.empty(max_depth + 3 * points + 4, np.int64)
    seq_c = np.empty(max_depth + 3 * points + 4, np.int64)
    first_col = np.zeros(cells, np.int64)
    stamp = np.zeros(cells, np.int64)
    stack = np.empty(cells, np.int64)
    scratch = np.empty(cells, np.bool_)
    w = ladder_space(cells, LEVELS if o.ladders else 1)
    komi = o.komi
    rave = o.rave
    expand_at = o.expand
    for sim in range(count):
        col[:] = root_col
        bw[:] = root_bw
        st[:] = root_st
        node = 0
        depth = 0
        path[0] = 0
        path_hash[0] = np.uint64(st[HASH])
        length = 0
        while st[PASSES] < 2 and depth < max_depth:
            fresh = ni[FIRST, node] < 0  # a leaf: grown here (then one step into it) or not
            if fresh and not (
                (node == 0 or ni[N, node] >= expand_at)
                and _expand(node, tree, board, tables, o, seen, path_hash, depth, stack, scratch, w)
            ):
                break
            child = _select(node, ni, nf, o, rng)
            p = ni[MOVE, child]
            seq_p[length] = p
            seq_c[length] = st[TO_MOVE]
            length += 1
            play(p, col, bw, st, offs, zob)
            depth += 1
            path[depth] = child
            path_hash[depth] = np.uint64(st[HASH])
            node = child
            if fresh:
                break
        if st[PASSES] < 2:
            length = _playout(board, tables, o, rng, seq_p, seq_c, length, 3 * points, w)
        black_won = area(col, offs, stack, scratch) - komi > 0
        meta[META_DEPTH] += depth
        for d in range(depth + 1):
            i = path[d]
            ni[N, i] += 1
            if d > 0 and (seq_c[d - 1] == 1) == black_won:
                nf[W, i] += 1.0
        if rave:  # the first player of each cell, from the end back to each tree node
            tag = sim + 1
            for t in range(length - 1, -1, -1):
                p = seq_p[t]
                if p >= 0:
                    first_col[p] = seq_c[t]
                    stamp[p] = tag
                if t < depth:
                    parent = path[t]
                    mover = seq_c[t]
                    won = 1.0 if (mover == 1) == black_won else 0.0
                    f = ni[FIRST, parent]
                    for i in range(f, f + ni[COUNT, parent]):
                        q = ni[MOVE, i]
                        if q >= 0 and stamp[q] == tag and first_col[q] == mover:
                            nf[AN, i] += 1.0
                            nf[AW, i] += won
    return count


@njit(cache=True)
def subtree(tree: Any, new_root: int, to: Any) -> int:
    """Copy the subtree of ``new_root`` into the table ``to`` with the new root at 0 (children
    blocks kept whole, breadth first). Returns the nodes copied."""
    ni, nf = tree.ni, tree.nf
    to_i, to_f = to.ni, to.nf
    queue = np.empty(ni.shape[1], np.int64)  # old indices, in their new order
    queue[0] = new_root
    for r in range(4):
        to_i[r, 0] = ni[r, new_root]
    for r in range(5):
        to_f[r, 0] = nf[r, new_root]
    head = 0
    tail = 1
    while head < tail:
        old = queue[head]
        new = head
        head += 1
        f = ni[FIRST, old]
        if f < 0:
            continue
        count = ni[COUNT, old]
        to_i[FIRST, new] = tail
        for j in range(count):
            queue[tail] = f + j
            for r in range(4):
                to_i[r, tail] = ni[r, f + j]
            for r in range(5):
                to_f[r, tail] = nf[r, f + j]
            tail += 1
    return tail


@njit(cache=True)
def playout_record(board: Any, tables: Any, o: Any, rng: Any, seq_p: Any, seq_c: Any) -> int:
    """A playout from the board (changed in place), its stones' cells and colours recorded
    (for tests: the passes are not recorded); returns how many."""
    w = ladder_space(board.col.shape[0], LEVELS if o.ladders else 1)
    return _playout(board, tables, o, rng, seq_p, seq_c, 0, 3 * o.size * o.size, w)
