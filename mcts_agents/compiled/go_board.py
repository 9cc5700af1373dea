"""Go's board for the compiled tree search (``go_search``): incremental strings, Zobrist hash,
legality and tactics, on numba arrays (the area is ``go_playout.area``).

A board is three arrays: ``col`` (int8, one per cell of the board padded by one ring of
off-board cells: 0 empty, 1 black, 2 white, 3 off), ``bw`` (int64 rows ``HEAD .. EPOS``: each
stone's string head and next stone of its circular list, and at a head its stones and its
pseudo-liberties' count, sum and sum of squares, as ``go_playout``; the empty cells in a list
and each one's place in it) and ``st`` (int64 words ``N_EMPTY .. HASH``: the empty cells, the
simple-ko cell or -1, the passes in a row, the colour to move, the last move's cell or -1, and
the Zobrist hash of the stones, bit for bit the core's ``board_hash``). A simulation copies
the root's three arrays (a few hundred words) and plays on the copy.

Zobrist keys are the core's (``go_layout.zobrist_table``) by cell, so a hash here equals the
core's ``board_hash`` of the same stones: positional superko in the tree compares hashes with
the core's ``seen``.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from mcts_agents.compiled import entries
from mcts_agents.compiled.cache import njit
from mcts_agents.compiled.go_playout import (  # bw's rows: go_playout's
    EMPTIES,
    EPOS,
    HEAD,
    LSUM,
    LSUM2,
    NXT,
    PLIB,
    STONES,
    _lift,
    _place,
    atari,
    eye_faults,
    read_board,
)

# Go's kernels call across its files (the board's, the playouts', the tactics', the ladders'),
# which numba does not check: a changed helper empties their caches (the stamp's hash covers
# every file of this folder).
entries.check_sources("go")

__all__ = ["EMPTIES", "EPOS", "HEAD", "LSUM", "LSUM2", "NXT", "N_EMPTY", "PLIB", "STONES",
           "Board", "action_of", "atari", "board_from_core", "cell_of"]  # fmt: skip

OFF = 3
# st's words
N_EMPTY, KO, PASSES, TO_MOVE, LAST, HASH = range(6)


class Board(NamedTuple):
    """A board's three arrays, one record (numba passes it as one argument)."""

    col: np.ndarray  # int8[cells]
    bw: np.ndarray  # int64[8, cells]: rows HEAD .. EPOS
    st: np.ndarray  # int64[6]: words N_EMPTY .. HASH


@njit(cache=True, inline="always")
def liberty(h: int, bw: Any) -> int:
    """The liberty of string ``h`` in atari (its pseudo-liberties all name one cell)."""
    return bw[LSUM, h] // bw[PLIB, h]


@njit(cache=True)
def legal(p: int, c: int, col: Any, bw: Any, st: Any, offs: Any) -> bool:
    """Whether colour ``c`` may play the cell ``p`` under simple ko: empty, not the ko cell,
    and a liberty next to it, or an own string with another liberty, or a capture."""
    if col[p] != 0 or p == st[KO]:
        return False
    opp = 3 - c
    for k in range(4):
        q = p + offs[k]
        cq = col[q]
        if cq == 0:
            return True
        if cq == c and not atari(bw[HEAD, q], bw):
            return True
        if cq == opp and atari(bw[HEAD, q], bw):
            return True
    return False


@njit(cache=True, inline="always")
def _atari_head(q: int, opp: int, col: Any, bw: Any) -> int:
    """The head of the string of colour ``opp`` at ``q`` if it is in atari, else -1."""
    if col[q] == opp:
        h = bw[HEAD, q]
        if atari(h, bw):
            return h
    return -1


@njit(cache=True, inline="always")
def _taken(p: int, c: int, col: Any, bw: Any, offs: Any) -> tuple[int, int, int, int]:
    """The heads of the opponent's strings that colour ``c`` at ``p`` captures (its strings
    in atari next to ``p``), each once, -1 for none."""
    opp = 3 - c
    h0 = _atari_head(p + offs[0], opp, col, bw)
    h1 = _atari_head(p + offs[1], opp, col, bw)
    h2 = _atari_head(p + offs[2], opp, col, bw)
    h3 = _atari_head(p + offs[3], opp, col, bw)
    if h1 == h0:
        h1 = -1
    if h2 == h0 or h2 == h1:  # noqa: SIM109 (numba: no tuple test)
        h2 = -1
    if h3 == h0 or h3 == h1 or h3 == h2:  # noqa: SIM109
        h3 = -1
    return h0, h1, h2, h3


@njit(cache=True, inline="always")
def string_hash(g: int, keys: Any, bw: Any) -> np.uint64:
    """The Zobrist keys (``keys``: its colour's row) of string ``g``'s stones, xored."""
    h = np.uint64(0)
    s = g
    while True:
        h ^= keys[s]
        s = bw[NXT, s]
        if s == g:
            return h


@njit(cache=True)
def captures(p: int, c: int, col: Any, bw: Any, offs: Any) -> int:
    """The opponent's stones that colour ``c`` at ``p`` would capture."""
    total = 0
    for g in _taken(p, c, col, bw, offs):
        if g >= 0:
            total += bw[STONES, g]
    return total


@njit(cache=True)
def hash_after(p: int, c: int, col: Any, bw: Any, st: Any, offs: Any, zob: Any) -> np.uint64:
    """The Zobrist hash of the board after colour ``c`` plays ``p`` (a legal move)."""
    h = np.uint64(st[HASH]) ^ zob[c - 1, p]
    for g in _taken(p, c, col, bw, offs):
        if g >= 0:
            h ^= string_hash(g, zob[2 - c], bw)
    return h


@njit(cache=True)
def self_atari(p: int, c: int, col: Any, bw: Any, offs: Any) -> bool:
    """Whether colour ``c`` at ``p`` (legal) leaves a string of two stones or more with one
    liberty and captures nothing."""
    opp = 3 - c
    lib0 = -1
    joins = False
    for k in range(4):
        q = p + offs[k]
        cq = col[q]
        if cq == 0:
            if lib0 < 0:
                lib0 = q
            elif q != lib0:
                return False  # two liberties next to the stone
        elif cq == opp and atari(bw[HEAD, q], bw):
            return False  # a capture
        elif cq == c:
            joins = True
    if not joins:
        return False
    for k in range(4):
        q = p + offs[k]
        if col[q] != c:
            continue
        g = bw[HEAD, q]
        s = g
        while True:
            for j in range(4):
                r = s + offs[j]
                if col[r] == 0 and r != p:
                    if lib0 < 0:
                        lib0 = r
                    elif r != lib0:
                        return False
            s = bw[NXT, s]
            if s == g:
                break
    return True


@njit(cache=True)
def capture_next_to(g: int, c: int, col: Any, bw: Any, st: Any, offs: Any) -> int:
    """A legal capture of an opponent string in atari next to the own string ``g`` (which
    that saves or helps), -1 if none."""
    opp = 3 - c
    s = g
    while True:
        for j in range(4):
            r = s + offs[j]
            if col[r] == opp and atari(bw[HEAD, r], bw):
                p = liberty(bw[HEAD, r], bw)
                if legal(p, c, col, bw, st, offs):
                    return p
        s = bw[NXT, s]
        if s == g:
            return -1


@njit(cache=True)
def two_liberties(g: int, col: Any, bw: Any, offs: Any, out: Any) -> int:
    """The liberties of string ``g`` into ``out`` while there are at most two; returns their
    count (3: three or more)."""
    n = 0
    s = g
    while True:
        for j in range(4):
            r = s + offs[j]
            if col[r] == 0 and not (n > 0 and out[0] == r) and not (n > 1 and out[1] == r):
                if n == 2:
                    return 3
                out[n] = r
                n += 1
        s = bw[NXT, s]
        if s == g:
            return n


@njit(cache=True)
def own_eye(p: int, c: int, col: Any, edge: Any, width: int) -> bool:
    """Whether ``p`` is an eye of colour ``c``: its neighbours on the board all ``c``, at most
    one opponent stone on its diagonals, none when it is on the edge (``go_playout``'s test)."""
    for q in (p + 1, p - 1, p + width, p - width):
        if col[q] != c and col[q] != OFF:
            return False
    return eye_faults(p, 3 - c, col, edge, width) <= 1


@njit(cache=True)
def play(p: int, col: Any, bw: Any, st: Any, offs: Any, zob: Any) -> None:
    """The side to move plays the cell ``p`` (legal), or passes (``p < 0``)."""
    c = st[TO_MOVE]
    st[TO_MOVE] = 3 - c
    st[LAST] = p
    if p < 0:
        st[PASSES] += 1
        st[KO] = -1
        return
    st[PASSES] = 0
    opp = 3 - c
    koish = True
    for k in range(4):
        cq = col[p + offs[k]]
        if cq == 0 or cq == c:
            koish = False
    h = np.uint64(st[HASH]) ^ zob[c - 1, p]
    col[p] = c
    n_empty = _place(
        p, offs, col, bw[HEAD], bw[NXT], bw[STONES], bw[PLIB], bw[LSUM], bw[LSUM2], bw[EMPTIES],
        bw[EPOS], st[N_EMPTY],
    )  # fmt: skip
    captured = 0
    last = -1
    for k in range(4):
        q = p + offs[k]
        if col[q] == opp and bw[PLIB, bw[HEAD, q]] == 0:
            g = bw[HEAD, q]
            h ^= string_hash(g, zob[opp - 1], bw)
            before = n_empty
            n_empty = _lift(
                g, offs, col, bw[HEAD], bw[NXT], bw[PLIB], bw[LSUM], bw[LSUM2], bw[EMPTIES],
                bw[EPOS], n_empty,
            )  # fmt: skip
            captured += n_empty - before
            last = q
    st[N_EMPTY] = n_empty
    st[KO] = last if koish and captured == 1 else -1
    st[HASH] = np.int64(h)


def cell_of(action: int, size: int) -> int:
    """The padded cell of a core action (a point; not the pass)."""
    row, x = divmod(action, size)
    return (row + 1) * (size + 2) + x + 1


def action_of(cell: int, size: int) -> int:
    """The core action of a padded cell (``-1``: the pass)."""
    if cell < 0:
        return size * size
    row, x = divmod(cell, size + 2)
    return (row - 1) * size + x - 1


def board_from_core(game: Any, state: Any) -> Board:
    """The ``Board`` of a core state (the last move read from its history, -1 without)."""
    size = game.size
    cells = (size + 2) ** 2
    nbytes = (size * (size + 1) + 7) // 8
    black = np.frombuffer(state[0].to_bytes(nbytes, "little"), np.uint8)
    white = np.frombuffer(state[1].to_bytes(nbytes, "little"), np.uint8)
    col = np.empty(cells, np.int8)
    bw = np.zeros((8, cells), np.int64)
    st = np.zeros(6, np.int64)
    st[N_EMPTY] = read_board(size, black, white, offsets(size), col, bw)
    st[KO] = cell_of(state[3], size) if state[3] >= 0 else -1
    st[PASSES] = state[4]
    st[TO_MOVE] = 1 if state[2] == 0 else 2
    st[HASH] = _signed(state[5])
    last = -1
    if state[7] and not state[4]:  # the mover's opponent just placed a stone
        before = state[7][0][1 - state[2]]
        now = state[1 - state[2]]
        new = now & ~before
        if new and new & (new - 1) == 0:
            last = cell_of(game.bit_action[new.bit_length() - 1], size)
    st[LAST] = last
    return Board(col, bw, st)


def _signed(h: int) -> int:
    return h - (1 << 64) if h >= 1 << 63 else h


def offsets(size: int) -> np.ndarray:
    width = size + 2
    return np.array([1, -1, width, -width], np.int64)


def zobrist(game: Any) -> np.ndarray:
    """The core's Zobrist stone keys by padded cell: ``uint64[2, cells]``."""
    size = game.size
    z = np.zeros((2, (size + 2) ** 2), np.uint64)
    for colour in range(2):
        for a in range(size * size):
            z[colour, cell_of(a, size)] = game.zstone[colour][a]
    return z


def edges(size: int) -> np.ndarray:
    """Whether each padded cell is a point on the first line."""
    width = size + 2
    e = np.zeros(width * width, np.bool_)
    for r in range(size):
        for x in range(size):
            e[(r + 1) * width + x + 1] = r in (0, size - 1) or x in (0, size - 1)
    return e
