"""Othello's rules compiled (numba) for the kernel on boards of 10x10 to 16x16.

Boards of more than 64 squares (``othello`` plays up to 8x8 in one word). A square is the
core's bit ``row * size + col``, here bit ``cell & 63`` of word ``cell >> 6``. The generators
work on four unsigned 64-bit words (256 bits, a tuple: registers, not memory), the words above
a smaller board zero: the algorithm of ``othello_bits.moves``/``flips`` (runs of the opponent's
discs one direction at a time, the column masks of ``othello_bits.masks`` stopping wraps around
the board's edge) with shifts that carry bits from word to word.

A position is the core's state ``(own, other, to_play, moves)`` in ``3 Q + 1`` int64 words,
``Q = ceil(size * size / 64)`` words a bitboard (2 on 10x10, 3 on 12x12, 4 on 14x14 and 16x16):
``own``'s words, ``other``'s, ``to_play``, ``moves``'s. A finished game is the core's
``(black, white, 0, TERMINAL)`` with ``TERMINAL`` (-1) in every word of ``moves``: no set of
legal moves has its first word all ones (square 0 would be legal with its neighbours 1, size
and size + 1, all in the first word, empty). ``moves`` is a function of the rest: the position
is its own transposition key. Parameter words ``p``: ``(size, Q, cells, se, s, sw)`` and the
masks ``full``, ``not_first``, ``not_last`` in four words each (``params``).

The playout draws a uniformly random legal move each ply (a player without one passes; two
passes in a row end the game), the core's ``rollout`` in distribution, and returns the sign of
the disc difference.

A numba twin kept on purpose: ``playout`` is ``othello._playout``'s loop (a player without a
move passes, two passes end the game, the sign of the disc difference for the first mover)
over another layout: a bitboard is a tuple of four ``uint64`` registers here, one ``uint64``
there. One body for both would take each bit operation (``_moves``, ``_flips``, ``_pick``,
``_any``, ``_or``, ``_xor``, ``_count``) as a function argument, in the 8x8 playout that is
the inner loop of Othello's search and of the Python search's compiled playouts.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mcts_agents.compiled.cache import njit
from mcts_agents.compiled.common import (
    UNKNOWN,
    bit_index,
    nth_bit,
    popcount,
    random01,
    same_words,
)
from mcts_agents.compiled.rules import Codec
from mcts_agents.envs.games import othello_bits
from mcts_agents.envs.games.othello import TERMINAL, Othello

__all__ = [
    "MAX_SQUARES",
    "MIN_SQUARES",
    "codec",
    "decode",
    "encode",
    "params",
    "supports",
    "words_per_board",
]

#: Boards this rule set plays: more squares than one word holds, at most four words.
MIN_SQUARES, MAX_SQUARES = 65, 256
_WORD = (1 << 64) - 1
_FULL, _NOT_FIRST, _NOT_LAST = 6, 10, 14  # where the masks' words start in ``p``


def words_per_board(game: Othello) -> int:
    """``Q``: the 64-bit words of one bitboard of ``game``."""
    return -(-(game.size * game.size) // 64)


def supports(game: Othello) -> str | None:
    """``None`` if ``game`` fits four words a bitboard (up to 16x16, the core's largest)."""
    if game.size * game.size > MAX_SQUARES:
        return f"the compiled kernel plays Othello up to 16x16, got size={game.size}"
    return None


def codec(game: Othello, game_id: int) -> Codec:
    """How ``game`` runs in the kernel (uniform playouts)."""
    cells = game.size * game.size
    return Codec(
        game_id, params(game), 3 * words_per_board(game) + 1, lambda s: encode(game, s),
        lambda w: decode(game, w), cells + 1, 2 * cells + 2,
    )  # fmt: skip


def _split(x: int, n: int) -> list[int]:
    """``x``'s low ``64 n`` bits as ``n`` int64 words, the low word first."""
    words = [(x >> (64 * i)) & _WORD for i in range(n)]
    return [w - (1 << 64) if w >= 1 << 63 else w for w in words]


def _join(words: Any) -> int:
    return sum((int(w) & _WORD) << (64 * i) for i, w in enumerate(words))


def params(game: Othello) -> np.ndarray:
    """The parameter words of ``game``: its size, ``Q``, squares, the three shifts of
    ``othello_bits.masks`` beyond 1, and its masks in four words each."""
    full, not_first, not_last, _, se, s, sw = othello_bits.masks(game.size)
    cells = game.size * game.size
    values = [game.size, words_per_board(game), cells, se, s, sw]
    for mask in (full, not_first, not_last):
        values += _split(mask, 4)
    return np.array(values, np.int64)


def encode(game: Othello, state: Any) -> list[int]:
    """The core's state as ``3 Q + 1`` int64 words."""
    q = words_per_board(game)
    own, other, player, moves = state
    tail = [TERMINAL] * q if moves == TERMINAL else _split(moves, q)
    return [*_split(own, q), *_split(other, q), player, *tail]


def decode(game: Othello, words: Any) -> tuple[int, int, int, int]:
    """The core's state of a row of int64 words."""
    q = words_per_board(game)
    values = [int(w) for w in words]
    moves = TERMINAL if values[2 * q + 1] == TERMINAL else _join(values[2 * q + 1 :])
    return (_join(values[:q]), _join(values[q : 2 * q]), values[2 * q], moves)


# ---------------------------------------------------------------- 256-bit words as 4-tuples
@njit(cache=True)
def _mask(p: np.ndarray, at: int) -> Any:
    return (np.uint64(p[at]), np.uint64(p[at + 1]), np.uint64(p[at + 2]), np.uint64(p[at + 3]))


@njit(cache=True)
def _load(p: np.ndarray, s: np.ndarray, at: int) -> Any:
    """The bitboard of ``Q`` words at ``s[at:]`` (``Q >= 2``) as four words."""
    q = p[1]
    zero = np.uint64(0)
    w2 = np.uint64(s[at + 2]) if q > 2 else zero
    w3 = np.uint64(s[at + 3]) if q > 3 else zero
    return (np.uint64(s[at]), np.uint64(s[at + 1]), w2, w3)


@njit(cache=True)
def _store(p: np.ndarray, t: np.ndarray, at: int, x: Any) -> None:
    for i in range(p[1]):
        t[at + i] = np.int64(x[i])


@njit(cache=True)
def _shift(x: Any, k: Any, up: bool) -> Any:
    """``x`` shifted by ``k`` (1 to 17) bits towards the high squares if ``up``, else down."""
    r = np.uint64(64) - k
    if up:
        return (
            x[0] << k, (x[1] << k) | (x[0] >> r), (x[2] << k) | (x[1] >> r),
            (x[3] << k) | (x[2] >> r),
        )  # fmt: skip
    return (
        (x[0] >> k) | (x[1] << r), (x[1] >> k) | (x[2] << r), (x[2] >> k) | (x[3] << r),
        x[3] >> k,
    )  # fmt: skip


@njit(cache=True)
def _and(x: Any, y: Any) -> Any:
    return (x[0] & y[0], x[1] & y[1], x[2] & y[2], x[3] & y[3])


@njit(cache=True)
def _or(x: Any, y: Any) -> Any:
    return (x[0] | y[0], x[1] | y[1], x[2] | y[2], x[3] | y[3])


@njit(cache=True)
def _xor(x: Any, y: Any) -> Any:
    return (x[0] ^ y[0], x[1] ^ y[1], x[2] ^ y[2], x[3] ^ y[3])


@njit(cache=True)
def _any(x: Any) -> bool:
    return (x[0] | x[1] | x[2] | x[3]) != np.uint64(0)


@njit(cache=True)
def _count(x: Any) -> int:
    return (
        popcount(np.int64(x[0])) + popcount(np.int64(x[1])) + popcount(np.int64(x[2]))
        + popcount(np.int64(x[3]))
    )  # fmt: skip


@njit(cache=True)
def _square(word: int, bit: Any) -> Any:
    """The four words with only ``bit`` (a one-bit uint64) in word ``word``."""
    zero = np.uint64(0)
    return (
        bit if word == 0 else zero, bit if word == 1 else zero, bit if word == 2 else zero,
        bit if word == 3 else zero,
    )  # fmt: skip


# ---------------------------------------------------------------- the generators
@njit(cache=True)
def _ends(own: Any, run: Any, k: Any, up: bool) -> Any:
    """The squares one step (``k`` bits, ``up`` or down) past each run of ``run`` squares
    that starts next to a disc of ``own`` (``othello_bits.moves``'s loop for one direction)."""
    t = _and(_shift(own, k, up), run)
    ends = (np.uint64(0), np.uint64(0), np.uint64(0), np.uint64(0))
    while _any(t):
        t = _shift(t, k, up)
        ends = _or(ends, t)
        t = _and(t, run)
    return ends


@njit(cache=True)
def _moves(p: np.ndarray, own: Any, other: Any) -> Any:
    """Squares where the owner of ``own`` may place (``othello_bits.moves``)."""
    one, se, s, sw = np.uint64(1), np.uint64(p[3]), np.uint64(p[4]), np.uint64(p[5])
    not_first, not_last = _mask(p, _NOT_FIRST), _mask(p, _NOT_LAST)
    oe = _and(other, not_first)
    ow = _and(other, not_last)
    east = _or(_or(_ends(own, oe, one, True), _ends(own, oe, se, True)), _ends(own, oe, sw, False))
    west = _or(_or(_ends(own, ow, one, False), _ends(own, ow, se, False)), _ends(own, ow, sw, True))
    vert = _or(_ends(own, other, s, True), _ends(own, other, s, False))
    reach = _or(_or(_and(east, not_first), _and(west, not_last)), vert)
    return _and(reach, _xor(_mask(p, _FULL), _or(own, other)))


@njit(cache=True)
def _line(move: Any, run: Any, end: Any, k: Any, up: bool) -> Any:
    """The discs of ``run`` flipped in one direction by a disc placed on ``move``: the run
    next to it, if a square of ``end`` closes it."""
    x = _shift(move, k, up)
    flipped = (np.uint64(0), np.uint64(0), np.uint64(0), np.uint64(0))
    while _any(_and(x, run)):
        flipped = _or(flipped, x)
        x = _shift(x, k, up)
    if _any(_and(x, end)):
        return flipped
    return (np.uint64(0), np.uint64(0), np.uint64(0), np.uint64(0))


@njit(cache=True)
def _flips(p: np.ndarray, own: Any, other: Any, move: Any) -> Any:
    """Discs of ``other`` flipped when the owner of ``own`` places on ``move``
    (``othello_bits.flips``)."""
    one, se, s, sw = np.uint64(1), np.uint64(p[3]), np.uint64(p[4]), np.uint64(p[5])
    not_first, not_last = _mask(p, _NOT_FIRST), _mask(p, _NOT_LAST)
    oe, ow = _and(other, not_first), _and(other, not_last)
    pe, pw = _and(own, not_first), _and(own, not_last)
    east = _or(_line(move, oe, pe, one, True), _line(move, oe, pe, se, True))
    east = _or(east, _line(move, oe, pe, sw, False))
    west = _or(_line(move, ow, pw, one, False), _line(move, ow, pw, se, False))
    west = _or(west, _line(move, ow, pw, sw, True))
    vert = _or(_line(move, other, own, s, True), _line(move, other, own, s, False))
    return _or(_or(east, west), vert)


# ---------------------------------------------------------------- the rule set
@njit(cache=True)
def legal(p: np.ndarray, s: np.ndarray, out: np.ndarray) -> int:
    """The legal actions of position ``s`` into ``out``; their number."""
    q = p[1]
    n = 0
    for w in range(q):
        bits = s[2 * q + 1 + w]
        while bits:
            low = bits & -bits
            out[n] = 64 * w + bit_index(low)
            n += 1
            bits ^= low
    if n == 0:
        out[0] = p[2]  # pass
        return 1
    return n


@njit(cache=True)
def play(p: np.ndarray, s: np.ndarray, action: int, t: np.ndarray) -> int:
    """The position after ``action`` into ``t``; its value for its mover if terminal, else
    ``UNKNOWN`` (the core's ``next_state``)."""
    q = p[1]
    own = _load(p, s, 0)
    other = _load(p, s, q)
    player = s[2 * q]
    if action == p[2]:  # pass
        _store(p, t, 0, other)
        _store(p, t, q, own)
        t[2 * q] = 1 - player
        _store(p, t, 2 * q + 1, _moves(p, other, own))
        return UNKNOWN
    move = _square(action >> 6, np.uint64(1) << np.uint64(action & 63))
    flipped = _flips(p, own, other, move)
    own = _or(own, _or(move, flipped))
    other = _xor(other, flipped)
    reply = _moves(p, other, own)
    if _any(reply) or _any(_moves(p, own, other)):
        _store(p, t, 0, other)
        _store(p, t, q, own)
        t[2 * q] = 1 - player
        _store(p, t, 2 * q + 1, reply)
        return UNKNOWN
    black, white = (own, other) if player == 0 else (other, own)
    _store(p, t, 0, black)
    _store(p, t, q, white)
    t[2 * q] = 0
    for i in range(q):
        t[2 * q + 1 + i] = TERMINAL
    diff = _count(black) - _count(white)
    return 1 if diff > 0 else (-1 if diff < 0 else 0)


@njit(cache=True)
def to_play(p: np.ndarray, s: np.ndarray) -> int:
    return s[2 * p[1]]


@njit(cache=True)
def _pick(x: Any, rng: np.ndarray) -> Any:
    """A uniformly random square of the non-empty ``x``."""
    k = int(random01(rng) * _count(x))
    for w in range(3):
        n = popcount(np.int64(x[w]))
        if k < n:
            return _square(w, np.uint64(nth_bit(np.int64(x[w]), k)))
        k -= n
    return _square(3, np.uint64(nth_bit(np.int64(x[3]), k)))


@njit(cache=True)
def playout(
    p: np.ndarray, s: np.ndarray, buf: np.ndarray, decisive: bool, rng: np.ndarray
) -> float:
    """Uniformly random play from ``s`` (not terminal) to the end: +1, 0 or -1 for its mover
    (``decisive`` too: no decisive playout here; no scratch words needed)."""
    q = p[1]
    own = _load(p, s, 0)
    other = _load(p, s, q)
    moves = _load(p, s, 2 * q + 1)
    passed = False
    plies = 0
    while True:
        if not _any(moves):
            if passed:
                break
            passed = True
            own, other = other, own
            plies += 1
            moves = _moves(p, own, other)
            continue
        passed = False
        move = _pick(moves, rng)
        flipped = _flips(p, own, other, move)
        own, other = _xor(other, flipped), _or(own, _or(move, flipped))
        plies += 1
        moves = _moves(p, own, other)
    diff = _count(own) - _count(other)
    if plies % 2:
        diff = -diff
    return 1.0 if diff > 0 else (-1.0 if diff < 0 else 0.0)


@njit(cache=True)
def reachable(p: np.ndarray, root: np.ndarray, s: np.ndarray) -> bool:
    """Whether ``s`` may follow ``root`` (the core's ``is_reachable``): occupied squares stay
    occupied; with no disc more, only ``root`` itself or, if its mover must pass, the pass."""
    q = p[1]
    words = 3 * q + 1
    if root[2 * q + 1] == TERMINAL:
        return same_words(s, root, words)
    more = False
    for i in range(q):
        occupied = root[i] | root[q + i]
        key = s[i] | s[q + i]
        if key & occupied != occupied:
            return False
        more |= key != occupied
    if more or same_words(s, root, words):
        return True
    if s[2 * q + 1] == TERMINAL or s[2 * q] != 1 - root[2 * q]:
        return False
    for i in range(q):
        if root[2 * q + 1 + i] != 0 or s[i] != root[q + i] or s[q + i] != root[i]:
            return False
    return True
