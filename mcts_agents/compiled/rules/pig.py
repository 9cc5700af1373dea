"""Compiled Pig playouts for the Python search (numba, the ``fast`` extra).

Pig's random playouts are long (about 180 decisions and dice from the start) and are most of
a simulation's time: 32 us in the best Python loop (``Pig.rollout``), 1-2 us here. The search
stays the Python ``MCTS`` (chance nodes, the solver, reuse); only its playouts run here. The
playout is the same play as ``Pig.rollout`` (each decision a fair coin between roll and stop,
stop forced at ``winscore``, a fair die, the horizon a draw) or ``Pig.decisive_rollout`` (roll
until the turn total reaches ``hold``), with its own generator
(SplitMix64, seeded by one ``getrandbits(63)`` of the search's generator per playout), so the
same search seed gives the same search, but not the same random numbers as the Python playout.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from mcts_agents.compiled.cache import njit
from mcts_agents.envs.games.pig import OVER, ROLLING, Pig

__all__ = ["pig_playout", "warm_up"]

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_UNIT = 1.0 / 9007199254740992.0  # 2**-53


@njit(cache=True)
def _playout(
    moves: int,
    player: int,
    total: int,
    rolling: bool,
    banked: np.ndarray,
    winscore: int,
    faces: int,
    piglet: bool,
    horizon: int,
    hold: int,
    seed: int,
) -> int:
    """Random play to the end: the winner's index, or -1 for a draw at the horizon."""
    scores = banked.copy()
    players = scores.shape[0]
    state = np.uint64(seed)
    while True:
        state += _GOLDEN  # SplitMix64
        z = (state ^ (state >> np.uint64(30))) * _MIX1
        z = (z ^ (z >> np.uint64(27))) * _MIX2
        z ^= z >> np.uint64(31)
        u = float(z >> np.uint64(11)) * _UNIT
        if rolling:
            rolling = False
            if piglet:
                face = 0 if u < 1.0 / faces else 1
                points = 1
            else:
                face = min(int(u * faces), faces - 1)
                points = face + 1
            if face == 0:  # a 1: the turn total is lost
                player = (player + 1) % players
                total = 0
            else:
                total += points
            continue
        moves += 1
        if scores[player] + total < winscore and (total < hold if hold else u < 0.5):  # roll
            if moves >= horizon:
                return -1
            rolling = True
            continue
        score = scores[player] + total  # stop (forced at winscore)
        scores[player] = score
        if score >= winscore:
            return player
        if moves >= horizon:
            return -1
        player = (player + 1) % players
        total = 0


def pig_playout(game: Pig, kind: str = "random") -> Callable[[Any, Any], tuple[float, ...]]:
    """``playout(state, rng)`` for ``game``: the returns of a playout from ``state`` drawn by
    the compiled loop with a seed from ``rng.getrandbits``: uniformly random decisions, or for
    ``kind="decisive"`` ``Pig.decisive_rollout``'s (roll until the turn total reaches
    ``game.hold``). Compiles (or loads) the loop now, so that it is never charged to a search's
    clock."""
    hold = game.hold if kind == "decisive" else 0
    warm_up()
    n = game.num_players
    wins = [
        game.returns((0, 0, 0, OVER, tuple(game.winscore if q == p else 0 for q in range(n))))
        for p in range(n)
    ]
    draw = (0.0,) * n
    winscore, faces, piglet, horizon = game.winscore, game.diceoutcomes, game.piglet, game.horizon

    def playout(state: Any, rng: Any) -> tuple[float, ...]:
        moves, player, total, node, banked = state
        if node == OVER:
            return game.returns(state)
        scores = np.array(banked, np.int64)
        rolling = node == ROLLING
        seed = rng.getrandbits(63)
        winner = _playout(
            moves, player, total, rolling, scores, winscore, faces, piglet, horizon, hold, seed
        )
        return draw if winner < 0 else wins[winner]

    return playout


_warm = False


def warm_up() -> None:
    """Compile (or load from numba's cache) the playout once per process."""
    global _warm
    if not _warm:
        _playout(0, 0, 0, False, np.zeros(2, np.int64), 10, 6, False, 100, 0, 1)
        _warm = True
