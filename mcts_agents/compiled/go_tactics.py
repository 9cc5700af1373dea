"""The heavy playouts' move rules of Go's compiled search (``go_search``): the answer to the
last move (capture its string in atari, save an own string in atari; with ``defend``, Fuego's
atari defence by capture and low-liberty lengthening; with ``ladders``, no running out of a
ladder) and MoGo's 3x3 patterns next to it.
"""

from __future__ import annotations

from typing import Any

from mcts_agents.compiled.cache import njit
from mcts_agents.compiled.go_board import (
    HEAD,
    LAST,
    STONES,
    atari,
    capture_next_to,
    captures,
    legal,
    liberty,
    self_atari,
    two_liberties,
)
from mcts_agents.compiled.go_ladder import escape_caught
from mcts_agents.compiled.go_playout import _below


@njit(cache=True)
def _lengthen(g: int, c: int, col: Any, bw: Any, st: Any, offs: Any, libs: Any) -> int:
    """For the own string ``g`` of two liberties: a capture next to it, else the liberty
    whose stone leaves it three liberties or more (legal); -1 if none."""
    if two_liberties(g, col, bw, offs, libs) != 2:
        return -1
    p = capture_next_to(g, c, col, bw, st, offs)
    if p >= 0:
        return p
    for i in range(2):
        p = libs[i]
        other = libs[1 - i]
        gained = 1  # the other liberty stays
        for j in range(4):
            r = p + offs[j]
            if col[r] == 0 and r != other:
                gained += 1
        if gained >= 3 and legal(p, c, col, bw, st, offs):
            return p
    return -1


@njit(cache=True)
def _tactic(
    c: int, col: Any, bw: Any, st: Any, offs: Any, zob: Any, defend: bool, ladders: bool,
    libs: Any, w: Any,
) -> int:  # fmt: skip
    """A heavy playout's answer to the last move: capture its string in atari, else save an
    own string next to it in atari (``defend``: by capturing a string next to it in atari
    first) by extending out of atari (``ladders``: not when a ladder catches the extension,
    ``go_ladder``'s read in the work space ``w``); then (``defend``) an own string of two
    stones or more next to it left with two liberties is lengthened (a capture next to it,
    or a liberty that leaves it three); -1 if none."""
    last = st[LAST]
    if last < 0:
        return -1
    h = bw[HEAD, last]
    if col[last] == 3 - c and atari(h, bw):
        p = liberty(h, bw)
        if legal(p, c, col, bw, st, offs):
            return p
    for k in range(4):
        q = last + offs[k]
        if col[q] == c and atari(bw[HEAD, q], bw):
            if defend:
                p = capture_next_to(bw[HEAD, q], c, col, bw, st, offs)
                if p >= 0:
                    return p
            p = liberty(bw[HEAD, q], bw)
            if legal(p, c, col, bw, st, offs) and not self_atari(p, c, col, bw, offs):
                # an extension with one stone alone is still in atari unless it gains liberties
                free = 0
                for j in range(4):
                    if col[p + offs[j]] == 0:
                        free += 1
                if (free >= 2 or captures(p, c, col, bw, offs) > 0) and not (
                    ladders and escape_caught(p, col, bw, st, offs, zob, w)
                ):
                    return p
    if defend:
        for k in range(4):
            q = last + offs[k]
            if col[q] == c and bw[STONES, bw[HEAD, q]] >= 2:
                p = _lengthen(bw[HEAD, q], c, col, bw, st, offs, libs)
                if p >= 0:
                    return p
    return -1


@njit(cache=True)
def _pattern(c: int, col: Any, bw: Any, st: Any, offs: Any, pat: Any, rng: Any) -> int:
    """A heavy playout's pattern move: one of the empty points next to the last move (its
    eight neighbours) whose 3x3 shape is one of ``go_patterns``' (``pat``), legal and no
    self-atari, drawn uniformly; -1 if none."""
    last = st[LAST]
    if last < 0:
        return -1
    width = offs[2]
    found = 0
    chosen = -1
    for dr in range(-1, 2):
        for dc in range(-1, 2):
            p = last + dr * width + dc
            if (dr == 0 and dc == 0) or col[p] != 0:
                continue
            code = 0
            scale = 1
            for er in range(-1, 2):
                for ec in range(-1, 2):
                    if er == 0 and ec == 0:
                        continue
                    code += col[p + er * width + ec] * scale
                    scale *= 4
            if not pat[code]:
                continue
            if not legal(p, c, col, bw, st, offs) or self_atari(p, c, col, bw, offs):
                continue
            found += 1
            if _below(rng, found) == 0:  # reservoir sampling: uniform over the matches
                chosen = p
    return chosen
