"""Ladder reading for Go's compiled search (``go_search``): whether a string that runs out of
atari is caught by a chase of ataris, read on copies of the board.

A ladder (shicho) is the chase where the attacker puts a string of two liberties in atari at
one of them and the defender extends on the other, again and again, until the string gains a
third liberty (it escapes) or is left with one (it is caught). Reading it: at each attacker
turn both liberties are tried (the string is caught when either atari catches it); the
defender answers an atari by capturing a chasing string in atari next to it (counted as an
escape, as the simple ladder readers of Pachi and GNU Go do) or else by extending. A read
ends undecided (not caught) past ``LEVELS`` boards or ``READS`` attacker moves.

The search uses it twice with ``ladders``: the tree prior of an extension out of atari that a
ladder catches is the self-atari's (lost visits) instead of the escape's, and the heavy
playouts do not run out of a ladder (the extension is skipped; the playout plays on).

Each level of the read is a board copy (``Ladder``'s rows, allocated once a ``run``): the
board has no undo, and a copy is a few hundred words.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from mcts_agents.compiled.cache import njit
from mcts_agents.compiled.go_board import (
    HEAD,
    TO_MOVE,
    capture_next_to,
    legal,
    play,
    two_liberties,
)

#: boards a read may stack (two a chase step: the atari, the extension)
LEVELS = 64
#: attacker moves a read may try before it gives up (undecided: not caught)
READS = 400


class Ladder(NamedTuple):
    """A ladder read's work space: a board per level, two liberties, the moves left."""

    col: np.ndarray  # int8[LEVELS, cells]
    bw: np.ndarray  # int64[LEVELS, 8, cells]
    st: np.ndarray  # int64[LEVELS, 6]
    libs: np.ndarray  # int64[2]
    tries: np.ndarray  # int64[LEVELS // 2, 3]
    left: np.ndarray  # int64[1]


@njit(cache=True)
def ladder_space(cells: int, levels: int) -> Ladder:
    """A work space of ``levels`` boards of ``cells`` cells (``LEVELS`` to read ladders; 1
    for a search that does not read them)."""
    return Ladder(
        np.empty((levels, cells), np.int8),
        np.empty((levels, 8, cells), np.int64),
        np.empty((levels, 6), np.int64),
        np.empty(2, np.int64),
        np.empty((levels // 2 + 1, 3), np.int64),
        np.empty(1, np.int64),
    )


@njit(cache=True)
def _copy(to: int, col: Any, bw: Any, st: Any, w: Any) -> None:
    w.col[to, :] = col
    w.bw[to, :, :] = bw
    w.st[to, :] = st


@njit(cache=True)
def _caught(cell: int, first: int, offs: Any, zob: Any, w: Any) -> bool:
    """On board 0 (the attacker to move), the string at ``cell`` has two liberties: whether a
    chase of ataris captures it (``first`` >= 0: the chase's first atari is there). Depth
    first, without recursion (numba's cache does not keep recursive functions): chase step
    ``d`` reads board ``2 d``; its atari at one liberty (board ``2 d + 1``) is answered by a
    capture of a chasing string next to the string (an escape) or by the extension at the
    other (board ``2 d + 2``): one liberty then is caught, three escape, two is step
    ``d + 1``. ``w.tries[d]``: step ``d``'s liberties and the next one to try."""
    col, bw, st = w.col[0], w.bw[0], w.st[0]
    if two_liberties(bw[HEAD, cell], col, bw, offs, w.libs) != 2:
        return False
    w.tries[0, 0] = w.libs[0]
    w.tries[0, 1] = w.libs[1]
    w.tries[0, 2] = 0
    attacker = st[TO_MOVE]
    defender = 3 - attacker
    d = 0
    while d >= 0:
        i = w.tries[d, 2]
        if i >= 2:
            d -= 1  # both ataris of this step fail: back to the step before
            continue
        if w.left[0] <= 0:
            return False
        w.tries[d, 2] = i + 1
        a = w.tries[d, i]
        e = w.tries[d, 1 - i]
        if d == 0 and first >= 0 and a != first:
            continue
        level = 2 * d
        col, bw, st = w.col[level], w.bw[level], w.st[level]
        if not legal(a, attacker, col, bw, st, offs):
            continue
        w.left[0] -= 1
        _copy(level + 1, col, bw, st, w)
        c1, b1, s1 = w.col[level + 1], w.bw[level + 1], w.st[level + 1]
        play(a, c1, b1, s1, offs, zob)
        g = b1[HEAD, cell]
        if two_liberties(g, c1, b1, offs, w.libs) != 1:
            continue  # the atari took a string of the defender's: not an atari now
        if capture_next_to(g, defender, c1, b1, s1, offs) >= 0:
            continue
        if not legal(e, defender, c1, b1, s1, offs):
            return True
        _copy(level + 2, c1, b1, s1, w)
        c2, b2, s2 = w.col[level + 2], w.bw[level + 2], w.st[level + 2]
        play(e, c2, b2, s2, offs, zob)
        n = two_liberties(b2[HEAD, cell], c2, b2, offs, w.libs)
        if n < 2:
            return True
        if n == 2 and level + 4 < w.col.shape[0]:
            d += 1
            w.tries[d, 0] = w.libs[0]
            w.tries[d, 1] = w.libs[1]
            w.tries[d, 2] = 0
    return False


@njit(cache=True)
def escape_caught(p: int, col: Any, bw: Any, st: Any, offs: Any, zob: Any, w: Any) -> bool:
    """Whether the side to move's stone at ``p`` (legal), joining an own string in atari,
    leaves a string that the opponent captures: one liberty, or two and caught in a ladder."""
    w.left[0] = READS
    _copy(0, col, bw, st, w)
    c0, b0, s0 = w.col[0], w.bw[0], w.st[0]
    play(p, c0, b0, s0, offs, zob)
    n = two_liberties(b0[HEAD, p], c0, b0, offs, w.libs)
    if n != 2:
        return n < 2
    return _caught(p, -1, offs, zob, w)


@njit(cache=True)
def atari_caught(p: int, col: Any, bw: Any, st: Any, offs: Any, zob: Any, w: Any) -> bool:
    """Whether the side to move's stone at ``p`` (legal) puts an opponent string next to it
    in atari that cannot get out: the first atari of a chase that catches it."""
    opp = 3 - st[TO_MOVE]
    for k in range(4):
        q = p + offs[k]
        if col[q] != opp or two_liberties(bw[HEAD, q], col, bw, offs, w.libs) != 2:
            continue
        w.left[0] = READS
        _copy(0, col, bw, st, w)
        if _caught(q, p, offs, zob, w):
            return True
    return False
