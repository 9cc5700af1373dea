"""Othello's rules compiled (numba, the ``fast`` extra): for the kernel and the Python search.

Boards of up to 64 squares (4x4, 6x6, 8x8). The move and flip generators are the rules
core's own (``othello_bits.moves``/``flips``, compiled for unsigned 64-bit words: one source
for both). A position is the core's state ``(own, other, to_play, moves)`` in four int64
words, a board stored bit for bit (``moves`` is ``TERMINAL`` = -1 at the end, which no set of
legal moves can equal). Parameter words ``p``: ``(size, full, not_first, not_last, e, se, s,
sw)`` (``params``).

The playout draws a uniformly random legal move each ply (a player without one passes; two
passes in a row end the game) and returns the sign of the disc difference. The Python search
gets it through ``othello_playout`` (its generator seeded by one ``getrandbits(63)`` of the
search's generator per playout: the same search seed gives the same search, though not the
same random numbers as the Python playout; tests compare the outcome distributions).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from mcts_agents.compiled.cache import njit
from mcts_agents.compiled.common import UNKNOWN, bit_index, pick_bit, popcount, same_words
from mcts_agents.compiled.rules import Codec
from mcts_agents.envs.games import othello_bits
from mcts_agents.envs.games.othello import TERMINAL, Othello

__all__ = ["MAX_SQUARES", "WORDS", "codec", "othello_playout", "params", "supports", "warm_up"]

#: The largest board whose discs fit one unsigned 64-bit word.
MAX_SQUARES = 64
#: Words of a position: own, other, to_play, moves.
WORDS = 4

_moves = njit(cache=True)(othello_bits.moves)
_flips = njit(cache=True)(othello_bits.flips)


def params(game: Othello) -> np.ndarray:
    """The parameter words of ``game``, as int64: its size, ``othello_bits.masks`` (7 words),
    then for the decisive playout the core's corners and its four (X-square, corner) pairs."""
    pairs = [w for pair in game.x_squares for w in pair]
    words = [game.size, *othello_bits.masks(game.size), game.corners, *pairs]
    return np.array([w - (1 << 64) if w >= 1 << 63 else w for w in words], np.int64)


def supports(game: Othello) -> str | None:
    """``None`` if ``game``'s discs fit one word (up to 8x8; ``othello_wide`` plays more)."""
    if game.size * game.size > MAX_SQUARES:
        return f"the compiled kernel plays Othello up to 8x8 in one word, got size={game.size}"
    return None


def codec(game: Othello, game_id: int) -> Codec:
    """How ``game`` runs in the kernel (decisive playouts: corners first, the core's
    ``decisive_rollout``; A/B: run 8)."""
    cells = game.size * game.size
    return Codec(
        game_id, params(game), WORDS, encode, decode, cells + 1, 2 * cells + 2, decisive=True
    )


def encode(state: Any) -> list[int]:
    """The core's state as int64 words."""
    return [w - (1 << 64) if w >= 1 << 63 else w for w in state]


def decode(words: Any) -> tuple[int, int, int, int]:
    """The core's state of a row of int64 words."""
    own, other, player, moves = (int(w) for w in words)
    mask = (1 << 64) - 1
    return (own & mask, other & mask, player, TERMINAL if moves == TERMINAL else moves & mask)


@njit(cache=True)
def _gen_moves(p: np.ndarray, own: Any, other: Any) -> Any:
    return _moves(
        own, other, np.uint64(p[1]), np.uint64(p[2]), np.uint64(p[3]), np.uint64(p[4]),
        np.uint64(p[5]), np.uint64(p[6]), np.uint64(p[7]),
    )  # fmt: skip


@njit(cache=True)
def _gen_flips(p: np.ndarray, own: Any, other: Any, move: Any) -> Any:
    return _flips(
        own, other, move, np.uint64(p[2]), np.uint64(p[3]), np.uint64(p[4]), np.uint64(p[5]),
        np.uint64(p[6]), np.uint64(p[7]),
    )  # fmt: skip


@njit(cache=True)
def legal(p: np.ndarray, s: np.ndarray, out: np.ndarray) -> int:
    """The legal actions of position ``s`` into ``out``; their number."""
    bits = s[3]
    if bits == 0:
        out[0] = p[0] * p[0]  # pass
        return 1
    n = 0
    while bits:
        low = bits & -bits
        out[n] = bit_index(low)
        n += 1
        bits ^= low
    return n


@njit(cache=True)
def play(p: np.ndarray, s: np.ndarray, action: int, t: np.ndarray) -> int:
    """The position after ``action`` into ``t``; its value for its mover if terminal, else
    ``UNKNOWN`` (the core's ``next_state``)."""
    own = np.uint64(s[0])
    other = np.uint64(s[1])
    player = s[2]
    if action == p[0] * p[0]:
        t[0] = s[1]
        t[1] = s[0]
        t[2] = 1 - player
        t[3] = np.int64(_gen_moves(p, other, own))
        return UNKNOWN
    move = np.uint64(1) << np.uint64(action)
    flipped = _gen_flips(p, own, other, move)
    own |= move | flipped
    other ^= flipped
    reply = _gen_moves(p, other, own)
    if reply or _gen_moves(p, own, other):
        t[0] = np.int64(other)
        t[1] = np.int64(own)
        t[2] = 1 - player
        t[3] = np.int64(reply)
        return UNKNOWN
    black, white = (own, other) if player == 0 else (other, own)
    t[0] = np.int64(black)
    t[1] = np.int64(white)
    t[2] = 0
    t[3] = TERMINAL
    diff = popcount(np.int64(black)) - popcount(np.int64(white))
    return 1 if diff > 0 else (-1 if diff < 0 else 0)


@njit(cache=True)
def to_play(p: np.ndarray, s: np.ndarray) -> int:
    return s[2]


@njit(cache=True)
def _decisive_choices(p: np.ndarray, own: Any, other: Any, moves: Any) -> Any:
    """The core's ``Othello.decisive_choices``: corners first, X-squares of empty corners last."""
    corners = moves & np.uint64(p[8])
    if corners:
        return corners
    empty = ~(own | other)
    bad = np.uint64(0)
    for i in range(9, 17, 2):
        if empty & np.uint64(p[i + 1]):
            bad |= np.uint64(p[i])
    safe = moves & ~bad
    return safe if safe else moves


@njit(cache=True)
def playout(
    p: np.ndarray, s: np.ndarray, buf: np.ndarray, decisive: bool, rng: np.ndarray
) -> float:
    """``dispatch``'s playout: ``_playout`` (no scratch words needed)."""
    return _playout(p, s, rng, decisive)


@njit(cache=True)
def _playout(p: np.ndarray, s: np.ndarray, rng: np.ndarray, decisive: bool = False) -> float:
    """Random play from ``s`` (not terminal) to the end: +1, 0 or -1 for its mover. Uniform,
    or with ``decisive`` the core's ``decisive_rollout`` (a uniform move among
    ``_decisive_choices``). ``othello_wide.playout`` is its twin on four words a bitboard
    (why two: that module's docstring)."""
    own = np.uint64(s[0])
    other = np.uint64(s[1])
    legal_bits = np.uint64(s[3])
    passed = False
    plies = 0
    while True:
        if legal_bits == 0:
            if passed:
                break
            passed = True
            own, other = other, own
            plies += 1
            legal_bits = _gen_moves(p, own, other)
            continue
        passed = False
        choice = _decisive_choices(p, own, other, legal_bits) if decisive else legal_bits
        move = np.uint64(pick_bit(np.int64(choice), rng))
        flipped = _gen_flips(p, own, other, move)
        own, other = other ^ flipped, own | move | flipped
        plies += 1
        legal_bits = _gen_moves(p, own, other)
    diff = popcount(np.int64(own)) - popcount(np.int64(other))
    if plies % 2:
        diff = -diff
    return 1.0 if diff > 0 else (-1.0 if diff < 0 else 0.0)


@njit(cache=True)
def reachable(p: np.ndarray, root: np.ndarray, s: np.ndarray) -> bool:
    """Whether ``s`` may follow ``root`` (the core's ``is_reachable``)."""
    if root[3] == TERMINAL:
        return same_words(s, root, WORDS)
    occupied = root[0] | root[1]
    key_occupied = s[0] | s[1]
    if key_occupied & occupied != occupied:
        return False
    if key_occupied != occupied:
        return True
    if same_words(s, root, WORDS):
        return True
    return root[3] == 0 and s[0] == root[1] and s[1] == root[0] and s[2] == 1 - root[2]


@njit(cache=True)
def _playout_from(p: np.ndarray, s: np.ndarray, seed: int, decisive: bool) -> float:
    rng = np.empty(1, np.uint64)
    rng[0] = np.uint64(seed) | np.uint64(1)
    return _playout(p, s, rng, decisive)


def othello_playout(
    game: Othello, kind: str = "random"
) -> Callable[[Any, Any], tuple[float, ...]] | None:
    """``playout(state, rng)`` for ``game``'s Python search: the returns of a playout from
    ``state``, uniform (``kind="random"``) or the core's ``decisive_rollout``
    (``kind="decisive"``), or ``None`` for a board of more than 64 squares. Loads the compiled
    code now, outside any clock."""
    if game.size * game.size > MAX_SQUARES:
        return None
    p = params(game)
    words = np.zeros(WORDS, np.int64)
    start = encode(game.initial_state())
    words[:] = start
    decisive = kind == "decisive"
    _playout_from(p, words, 1, decisive)  # compile or load now
    outcomes = {1.0: (1.0, -1.0), -1.0: (-1.0, 1.0), 0.0: (0.0, 0.0)}

    def run_playout(state: Any, rng: Any) -> tuple[float, ...]:
        if state[3] == TERMINAL:
            return game.returns(state)
        words[:] = encode(state)
        value = _playout_from(p, words, rng.getrandbits(63), decisive)
        return outcomes[value if state[2] == 0 else -value]

    return run_playout


def warm_up() -> None:
    """Compile (or load from numba's cache) the 8x8 playout once per process."""
    othello_playout(Othello(8))
