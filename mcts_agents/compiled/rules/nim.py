"""Nim's rules compiled (numba) for the kernel.

A position is the core's state ``(piles, to_play)`` as ``len(piles) + 1`` int64 words: the
pile sizes, then the player to move. Parameter words ``p``: ``(piles, take_limit, misere)``.
Action ``pile * take_limit + take - 1`` takes ``take`` chips from ``pile``, as in the core.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mcts_agents.compiled.cache import njit
from mcts_agents.compiled.common import UNKNOWN, random01
from mcts_agents.compiled.rules import Codec
from mcts_agents.envs.games.nim import Nim

#: The most piles, and the most actions times chips, the kernel plays.
MAX_PILES, MAX_ACTIONS_CHIPS = 64, 1 << 22


def supports(game: Nim) -> str | None:
    """``None`` if ``game`` has at most ``MAX_PILES`` piles and ``MAX_ACTIONS_CHIPS``."""
    if len(game.piles) > MAX_PILES or game.num_actions * sum(game.piles) > MAX_ACTIONS_CHIPS:
        return (
            "the compiled kernel plays Nim with up to 64 piles and actions x chips <= 2**22, "
            f"got piles={game.piles}, max_take={game.max_take}"
        )
    return None


def codec(game: Nim, game_id: int) -> Codec:
    """How ``game`` runs in the kernel (uniform playouts)."""
    return Codec(
        game_id, params(game), len(game.piles) + 1, encode, decode, game.num_actions,
        sum(game.piles),
    )  # fmt: skip


def params(game: Nim) -> np.ndarray:
    return np.array([len(game.piles), game.take_limit, int(game.misere)], np.int64)


def encode(state: Any) -> list[int]:
    return [*state[0], state[1]]


def decode(words: Any) -> tuple[tuple[int, ...], int]:
    values = [int(w) for w in words]
    return (tuple(values[:-1]), values[-1])


@njit(cache=True)
def legal(p: np.ndarray, s: np.ndarray, out: np.ndarray) -> int:
    n = 0
    limit = p[1]
    for pile in range(p[0]):
        for take in range(min(s[pile], limit)):
            out[n] = pile * limit + take
            n += 1
    return n


@njit(cache=True)
def _end_value(p: np.ndarray) -> int:
    """The value of an empty table for its player to move: the last chip was the other's."""
    return 1 if p[2] else -1


@njit(cache=True)
def play(p: np.ndarray, s: np.ndarray, action: int, t: np.ndarray) -> int:
    t[:] = s
    piles = p[0]
    t[action // p[1]] -= action % p[1] + 1
    t[piles] = 1 - s[piles]
    for pile in range(piles):
        if t[pile]:
            return UNKNOWN
    return _end_value(p)


@njit(cache=True)
def to_play(p: np.ndarray, s: np.ndarray) -> int:
    return s[p[0]]


@njit(cache=True)
def playout(
    p: np.ndarray, s: np.ndarray, buf: np.ndarray, decisive: bool, rng: np.ndarray
) -> float:
    """Uniformly random legal moves from ``s`` (not terminal) to the end (the core's
    ``rollout``): +1 or -1 for the player to move at ``s``."""
    piles, limit = p[0], p[1]
    t = buf[: piles + 1]
    t[:] = s
    sign = 1.0
    while True:
        total = 0
        for pile in range(piles):
            total += min(t[pile], limit)
        if total == 0:
            return sign * _end_value(p)
        k = int(random01(rng) * total)
        for pile in range(piles):
            options = min(t[pile], limit)
            if k < options:
                t[pile] -= k + 1
                break
            k -= options
        sign = -sign


@njit(cache=True)
def reachable(p: np.ndarray, root: np.ndarray, s: np.ndarray) -> bool:
    """The core's ``is_reachable(root, s)`` (exact)."""
    piles, limit = p[0], p[1]
    removed = 0
    fewest = 0
    for pile in range(piles):
        if s[pile] < 0 or s[pile] > root[pile]:
            return False
        d = root[pile] - s[pile]
        removed += d
        fewest += -(-d // limit)
    if removed == 0:
        return s[piles] == root[piles]
    turn_changes = (s[piles] - root[piles]) & 1
    return fewest < removed or (removed - turn_changes) % 2 == 0
