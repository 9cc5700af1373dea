"""Compiled Othello playouts for the Python search (numba, the ``fast`` extra).

A uniformly random Othello playout is 60 plies of move generation and flips: most of a Python
simulation's time. Here the playout is one ``@njit`` loop over unsigned 64-bit boards (sizes
4, 6 and 8) that calls the rules core's own move and flip generators (``othello._kernels``,
built with ``numpy.uint64`` constants and compiled: one source for both), draws a uniformly
random legal move each ply (a player without one passes; two passes in a row end the game) and
returns the disc difference. Its generator is SplitMix64, seeded by one ``getrandbits(63)`` of
the search's generator per playout: the same search seed gives the same search, though not the
same random numbers as the Python playout (tests compare the outcome distributions).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any

import numpy as np
from numba import njit

from mcts_agents.envs.games.othello import TERMINAL, Othello, _kernels

__all__ = ["MAX_SQUARES", "othello_playout", "warm_up"]

#: The largest board whose discs fit one unsigned 64-bit word.
MAX_SQUARES = 64

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_UNIT = 1.0 / 9007199254740992.0  # 2**-53
_ONE = np.uint64(1)


@njit(cache=True)
def _popcount(x: Any) -> int:
    """Set bits of an unsigned 64-bit word (SWAR)."""
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return np.int64((x * np.uint64(0x0101010101010101)) >> np.uint64(56))


@cache
def _loop(size: int) -> Callable[[np.uint64, np.uint64, int], int]:
    """The compiled playout for one board size: ``(own, other, seed) -> disc difference`` for
    the player to move at the start, at the end of uniformly random play."""
    moves, flips = (njit(cache=True)(f) for f in _kernels(size, np.uint64))

    @njit(cache=True)
    def playout(own: np.uint64, other: np.uint64, seed: int) -> int:
        state = np.uint64(seed)
        passed = False
        plies = 0
        while True:
            legal = moves(own, other)
            if legal == 0:
                if passed:
                    break
                passed = True
                own, other = other, own
                plies += 1
                continue
            passed = False
            state += _GOLDEN  # SplitMix64
            z = (state ^ (state >> np.uint64(30))) * _MIX1
            z = (z ^ (z >> np.uint64(27))) * _MIX2
            z ^= z >> np.uint64(31)
            k = int(float(z >> np.uint64(11)) * _UNIT * _popcount(legal))
            while k:
                legal &= legal - _ONE
                k -= 1
            move = legal & (~legal + _ONE)  # the lowest set bit left
            flipped = flips(own, other, move)
            own, other = other ^ flipped, own | move | flipped
            plies += 1
        difference = _popcount(own) - _popcount(other)
        return difference if plies % 2 == 0 else -difference

    return playout


def othello_playout(
    game: Othello, kind: str = "random"
) -> Callable[[Any, Any], tuple[float, ...]] | None:
    """``playout(state, rng)`` for ``game``: the returns of a uniformly random playout from
    ``state`` (Othello has no decisive playout: ``kind`` is either), or ``None`` for a board of
    more than 64 squares. Compiles (or loads) the loop now, so that it is never charged to a
    search's clock."""
    if game.size * game.size > MAX_SQUARES:
        return None
    loop = _loop(game.size)
    loop(np.uint64(0), np.uint64(0), 1)  # compile or load now
    black_wins, white_wins, draw = (1.0, -1.0), (-1.0, 1.0), (0.0, 0.0)

    def playout(state: Any, rng: Any) -> tuple[float, ...]:
        own, other, to_play, legal = state
        if legal == TERMINAL:
            return game.returns(state)
        difference = loop(np.uint64(own), np.uint64(other), rng.getrandbits(63))
        if difference == 0:
            return draw
        return black_wins if (difference > 0) == (to_play == 0) else white_wins

    return playout


def warm_up() -> None:
    """Compile (or load from numba's cache) the 8x8 playout once per process."""
    othello_playout(Othello(8))
