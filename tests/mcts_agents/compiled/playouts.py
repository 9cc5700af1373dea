"""Checks shared by the tests of compiled playouts: outcome frequencies against the core's."""

from __future__ import annotations

import math
import random
from typing import Any


def outcome_counts(players: int, play: Any, state: Any, runs: int, seed: int) -> list[int]:
    """How often each player won, and (last) how often the game was drawn, in ``runs`` playouts
    ``play(state, rng)`` (a win is the one positive return)."""
    rng = random.Random(seed)
    counts = [0] * (players + 1)
    for _ in range(runs):
        values = list(play(state, rng))
        best = max(values)
        counts[values.index(best) if best > 0 else players] += 1
    return counts


def assert_same_outcomes(
    game: Any, play: Any, state: Any, runs: int, seed: int, reference: Any = None
) -> list[int]:
    """Each outcome's frequency under ``play`` agrees with ``reference``'s (``game.rollout`` by
    default) within 4.5 standard errors of the difference of two independent samples; returns
    ``play``'s counts."""
    ours = outcome_counts(game.num_players, play, state, runs, seed)
    reference = game.rollout if reference is None else reference
    theirs = outcome_counts(game.num_players, reference, state, runs, seed + 1000)
    assert sum(ours) == sum(theirs) == runs
    for mine, ref in zip(ours, theirs, strict=True):
        p = (mine + ref) / (2 * runs)
        se = math.sqrt(max(2 * p * (1 - p) / runs, 1e-12))
        assert abs(mine - ref) / runs <= 4.5 * se + 1e-9, (state, ours, theirs)
    return ours
