"""Connect Four rules compiled (numba) for the tree core: any width, height and ``k`` whose
board fits in one word (``width * (height + 1) <= 62``).

A position is two int64 words ``(cur, mask)``: the stones of the player to move and all
stones, bit ``col * stride + row`` as in the rules core (``stride = height + 1``, a spare bit on
top of every column). The core's state ``(stones_0, stones_1, ply, status)`` follows from them
(``ply`` is the number of stones, ``status`` from the lines), so the two words are a
transposition key. The line tests are the core's ``won4`` (k = 4) and ``won`` (any k), compiled;
for k = 4 the playouts are ``_rollout`` (uniform, or decisive through the core's ``threats4``).
Parameter words ``p``: ``(width, height, stride, k, full, bottom, cells)``.

The tree keeps a node's legal moves as one block of edges (``EDGE_BLOCKS``: at most seven, all
of them soon expanded), as Connect Four's own kernel did before the tree core took it over.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mcts_agents.compiled.cache import njit
from mcts_agents.compiled.common import UNKNOWN, pick_bit, popcount, same_words
from mcts_agents.compiled.rules import Codec
from mcts_agents.envs.games.connect_four import ConnectFour, threats4, won, won4

WORDS = 2
#: The most bits a board may span (``width * (height + 1)``), spare bits included.
MAX_BITS = 62
#: The tree's edge layout (``compiled.tree``): a node's legal moves as one block.
EDGE_BLOCKS = True
#: The functions allocate nothing and need no numba runtime (``dispatch``): compiled so.
RUNTIME_FREE = True
#: The two players alternate at every move: the tree stores no player column (``dispatch``).
ALTERNATES = True

# The rules core's own bit functions, compiled for int64 (one source for both).
_won = njit(cache=True, _nrt=False)(won)
_won4 = njit(cache=True, _nrt=False)(won4)
_threats = njit(cache=True, _nrt=False)(threats4)


def fits(game: ConnectFour) -> bool:
    return game.width * (game.height + 1) <= MAX_BITS


def supports(game: ConnectFour) -> str | None:
    """``None`` if the kernels play ``game`` (a board of at most ``MAX_BITS`` bits)."""
    layout = game.layout
    if layout.bits > MAX_BITS:
        return (
            f"the compiled kernels play Connect Four with width * (height + 1) <= {MAX_BITS}, "
            f"got width={layout.width}, height={layout.height}"
        )
    return None


def codec(game: ConnectFour, game_id: int) -> Codec:
    """How ``game`` runs in the tree core (``k == 4``: decisive playouts)."""
    cells = game.width * game.height
    return Codec(
        game_id, params(game), WORDS, lambda s: encode(game, s), lambda w: decode(game, w),
        game.width, cells, decisive=game.k == 4,
    )  # fmt: skip


def params(game: ConnectFour) -> np.ndarray:
    layout = game.layout
    values = [game.width, game.height, layout.stride, game.k, layout.full, layout.bottom_row]
    return np.array([*values, game.width * game.height], np.int64)


def encode(game: ConnectFour, state: Any) -> list[int]:
    return list(game.position(state))


def decode(game: ConnectFour, words: Any) -> Any:
    return game.state_from_position(int(words[0]), int(words[1]))


@njit(cache=True, _nrt=False)
def _wins(p: np.ndarray, board: int) -> bool:
    if p[3] == 4:
        return _won4(board, p[2])
    return _won(board, p[2], p[3])


@njit(cache=True, _nrt=False)
def _over(p: np.ndarray, s: np.ndarray) -> bool:
    """Whether the game is over at ``s``: the player who just moved has a line, or no cell is
    left (the kernel asks only of stored positions, whose terminal value it keeps)."""
    return s[1] == p[4] or _wins(p, s[0] ^ s[1])


@njit(cache=True, _nrt=False)
def legal(p: np.ndarray, s: np.ndarray, out: np.ndarray) -> int:
    possible = (s[1] + p[5]) & p[4]
    stride = p[2]
    n = 0
    for column in range(p[0]):
        if (possible >> (column * stride)) & ((1 << stride) - 1):
            out[n] = column
            n += 1
    return n


@njit(cache=True, _nrt=False)
def play(p: np.ndarray, s: np.ndarray, action: int, t: np.ndarray) -> int:
    cur, mask = s[0], s[1]
    stride = p[2]
    column = ((1 << stride) - 1) << (action * stride)
    move = (mask + p[5]) & p[4] & column
    cur |= move
    mask |= move
    t[0] = cur ^ mask  # the opponent moves next
    t[1] = mask
    if _wins(p, cur):
        return -1  # the player to move has lost
    if mask == p[4]:
        return 0
    return UNKNOWN


@njit(cache=True, _nrt=False)
def to_play(p: np.ndarray, s: np.ndarray) -> int:
    return popcount(s[1]) & 1


@njit(cache=True, _nrt=False)
def playout(
    p: np.ndarray, s: np.ndarray, buf: np.ndarray, decisive: bool, rng: np.ndarray
) -> float:
    """A playout to the end; the value for the player to move at ``s`` (not terminal):
    ``_rollout`` (decisive for k = 4 only, as the core's ``decisive_rollout``)."""
    return _rollout(s[0], s[1], p[2], p[3], p[4], p[5], decisive and p[3] == 4, rng)


@njit(cache=True, _nrt=False)
def _rollout(
    cur: int, mask: int, stride: int, k: int, full: int, bottom: int, decisive: bool,
    rng: np.ndarray,
) -> float:  # fmt: skip
    """A playout to the end; the value for the player to move at ``(cur, mask)``.

    Uniform (the core's ``rollout``): a uniformly random playable column each ply. Decisive
    (k = 4): win at once when possible, block the opponent's single immediate win (two lose at
    once), else a random column that does not play under an opponent's winning cell while any
    other is left.
    """
    sign = 1.0  # the mover's value, relative to the player to move at the start
    if not decisive:
        while True:
            possible = (mask + bottom) & full
            if not possible:
                return 0.0
            move = pick_bit(possible, rng)
            cur |= move
            mask |= move
            if _won4(cur, stride) if k == 4 else _won(cur, stride, k):
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
            move = pick_bit(safe if safe else possible, rng)
        cur |= move
        mask |= move
        mine = _threats(cur, full & ~mask, stride)
        theirs &= ~move
        cur ^= mask
        mine, theirs = theirs, mine
        sign = -sign


@njit(cache=True, _nrt=False)
def reachable(p: np.ndarray, root: np.ndarray, s: np.ndarray) -> bool:
    """The core's test: a finished game reaches only itself; else every stone of ``root``
    stays, each player's where it was."""
    if _over(p, root):
        return same_words(s, root, 2)
    if s[1] & root[1] != root[1]:
        return False
    # the stones at ``s`` of the player to move at ``root`` (``s[0]`` if the same player moves)
    own = s[0] if (popcount(s[1]) - popcount(root[1])) & 1 == 0 else s[0] ^ s[1]
    theirs = root[0] ^ root[1]
    return own & root[0] == root[0] and (own ^ s[1]) & theirs == theirs
