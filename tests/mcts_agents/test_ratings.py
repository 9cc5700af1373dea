"""Wilson intervals against published values; Bradley-Terry Elo against hand-derived values and
an independent brute-force maximisation of the likelihood."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from mcts_agents.ratings import (
    ELO_PER_NAT,
    bradley_terry_elo,
    elo_from_rate,
    mle_is_finite,
    wilson_interval,
)


# ---------------------------------------------------------------------------- Wilson
@pytest.mark.parametrize(
    ("successes", "n", "low", "high"),
    [
        (8, 10, 0.4902, 0.9433),  # the worked examples quoted in the brief
        (0, 10, 0.0, 0.2775),
        (10, 10, 0.7225, 1.0),
        (5, 10, 0.2366, 0.7634),
    ],
)
def test_wilson_matches_published_values(successes: int, n: int, low: float, high: float) -> None:
    got = wilson_interval(successes, n)
    assert got == pytest.approx((low, high), abs=1e-4)


def test_wilson_counts_a_draw_as_half_a_success() -> None:
    # 7 wins and 1 draw in 10 games is a score of 7.5: strictly between 7/10 and 8/10.
    low, high = wilson_interval(7.5, 10)
    assert wilson_interval(7, 10)[0] < low < wilson_interval(8, 10)[0]
    assert wilson_interval(7, 10)[1] < high < wilson_interval(8, 10)[1]
    # The interval contains the point estimate and is symmetric under p -> 1 - p.
    assert low < 0.75 < high
    mirrored = wilson_interval(2.5, 10)
    assert mirrored == pytest.approx((1 - high, 1 - low))


def test_wilson_of_no_games_is_uninformative() -> None:
    assert wilson_interval(0, 0) == (0.0, 1.0)


@pytest.mark.parametrize(("successes", "n"), [(1, -1), (11, 10), (-0.5, 10), (1, 2.5)])
def test_wilson_rejects_bad_input(successes: float, n: int) -> None:
    with pytest.raises(ValueError, match="must be"):
        wilson_interval(successes, n)


# ------------------------------------------------------------------------------- Elo
def test_two_players_at_75_percent_are_400_log10_3_apart() -> None:
    # 6 of 8 points (5 wins, 2 draws, 1 loss): p = 0.75 -> 400 * log10(0.75 / 0.25).
    results = [("a", "b", 1.0)] * 5 + [("a", "b", 0.5)] * 2 + [("b", "a", 1.0)]
    ratings = bradley_terry_elo(["a", "b"], results, anchor="b")
    elo, low, high = ratings["a"]
    assert elo == pytest.approx(400 * math.log10(3), abs=1e-6)
    assert elo == pytest.approx(190.85, abs=0.01)
    # Fisher information of one logistic parameter: n p (1 - p) = 8 * 0.1875 = 1.5.
    half = 1.959963984540054 * ELO_PER_NAT / math.sqrt(1.5)
    assert (low, high) == pytest.approx((elo - half, elo + half), abs=1e-6)
    assert ratings["b"] == (0.0, 0.0, 0.0)
    # The aggregated form gives the same answer, and anchoring the other way flips the sign.
    assert bradley_terry_elo(["a", "b"], [("a", "b", 6, 8)])["b"][0] == pytest.approx(-elo)


def test_equal_scores_give_equal_ratings() -> None:
    results = [("a", "b", 1.0), ("b", "a", 1.0), ("a", "b", 0.5), ("b", "a", 0.5)]
    assert bradley_terry_elo(["a", "b"], results)["b"][0] == pytest.approx(0.0, abs=1e-9)


def log_likelihood(r: np.ndarray, table: dict[tuple[int, int], tuple[float, float]]) -> float:
    total = 0.0
    for (i, j), (points, games) in table.items():
        p = 1 / (1 + math.exp(-(r[i] - r[j])))
        total += points * math.log(p) + (games - points) * math.log(1 - p)
    return total


def test_three_players_match_a_brute_force_maximum_likelihood() -> None:
    # a-b: a scores 6/8; b-c: b scores 5/8; a-c: a scores 7/8 (all finite).
    table = {(0, 1): (6.0, 8.0), (1, 2): (5.0, 8.0), (0, 2): (7.0, 8.0)}
    names = ["a", "b", "c"]
    results = [(names[i], names[j], p, g) for (i, j), (p, g) in table.items()]
    ratings = bradley_terry_elo(names, results, anchor="c")

    # Independent maximisation: a coarse grid, then a shrinking pattern search (c fixed at 0).
    grid = np.linspace(-4, 4, 81)
    best = max(
        itertools.product(grid, grid),
        key=lambda ab: log_likelihood(np.array([ab[0], ab[1], 0.0]), table),
    )
    r = np.array([best[0], best[1], 0.0])
    step = 0.1
    while step > 1e-9:
        moved = False
        for k, sign in itertools.product((0, 1), (1, -1)):
            trial = r.copy()
            trial[k] += sign * step
            if log_likelihood(trial, table) > log_likelihood(r, table):
                r, moved = trial, True
        if not moved:
            step /= 2
    assert ratings["a"][0] == pytest.approx(r[0] * ELO_PER_NAT, abs=1e-3)
    assert ratings["b"][0] == pytest.approx(r[1] * ELO_PER_NAT, abs=1e-3)
    assert ratings["c"] == (0.0, 0.0, 0.0)

    # The intervals: inverse of a finite-difference Hessian of the log-likelihood.
    h = 1e-4
    hessian = np.zeros((2, 2))
    for x, y in itertools.product(range(2), range(2)):

        def at(dx: float, dy: float, x: int = x, y: int = y) -> float:
            trial = r.copy()
            trial[x] += dx
            trial[y] += dy
            return log_likelihood(trial, table)

        hessian[x, y] = (at(h, h) - at(h, -h) - at(-h, h) + at(-h, -h)) / (4 * h * h)
    se = np.sqrt(np.diag(np.linalg.inv(-hessian))) * ELO_PER_NAT
    for k, name in enumerate(("a", "b")):
        elo, low, high = ratings[name]
        assert (high - elo) == pytest.approx(1.959963984540054 * se[k], rel=1e-4)
        assert (elo - low) == pytest.approx(high - elo)


def test_a_clean_sweep_gets_one_virtual_draw_not_infinity() -> None:
    # 10 wins of 10: the MLE is infinite; one virtual draw makes it 10.5 / 11.
    ratings = bradley_terry_elo(["a", "b"], [("a", "b", 10, 10)], anchor="b")
    assert ratings["a"][0] == pytest.approx(400 * math.log10(10.5 / 0.5), abs=1e-6)
    assert elo_from_rate(1.0) == math.inf
    assert not mle_is_finite(["a", "b"], [("a", "b", 10, 10)])
    assert mle_is_finite(["a", "b"], [("a", "b", 9.5, 10)])  # a draw is a point for each
    # An explicit prior is always used: 6 / 8 plus 2 virtual draws is 7 / 10.
    with_prior = bradley_terry_elo(["a", "b"], [("a", "b", 6, 8)], anchor="b", prior=2)
    assert with_prior["a"][0] == pytest.approx(400 * math.log10(7 / 3), abs=1e-6)


def test_a_player_who_lost_everything_in_a_group_still_gets_finite_ratings() -> None:
    results = [("a", "b", 3, 4), ("a", "c", 4, 4), ("b", "c", 4, 4)]
    ratings = bradley_terry_elo(["a", "b", "c"], results)
    assert all(math.isfinite(v) for value in ratings.values() for v in value)
    assert ratings["a"][0] == 0.0 > ratings["b"][0] > ratings["c"][0]


def test_elo_rejects_bad_input() -> None:
    with pytest.raises(ValueError, match="'z'"):
        bradley_terry_elo(["a", "b"], [("a", "z", 1.0)])
    with pytest.raises(ValueError, match="anchor 'q'"):
        bradley_terry_elo(["a", "b"], [("a", "b", 1.0)], anchor="q")
    with pytest.raises(ValueError, match=r"\['c'\]"):
        bradley_terry_elo(["a", "b", "c"], [("a", "b", 1.0), ("b", "a", 1.0)])
    with pytest.raises(ValueError, match="points must be"):
        bradley_terry_elo(["a", "b"], [("a", "b", 3, 2)])


def test_elo_from_rate() -> None:
    assert elo_from_rate(0.75) == pytest.approx(400 * math.log10(3))
    assert elo_from_rate(0.5) == 0.0
    with pytest.raises(ValueError, match=r"1\.5"):
        elo_from_rate(1.5)
