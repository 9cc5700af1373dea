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


# ---------------------------------------------------------------------------- fixed ratings
def test_one_fixed_opponent_gives_the_closed_form_rating_and_interval() -> None:
    # 30 points out of 40 against a player held at 200: 200 + 400 log10(3); the interval's
    # half-width is z / sqrt(n p (1 - p)) natural units.
    fit = bradley_terry_elo(["new", "L"], [("new", "L", 30, 40)], fixed={"L": 200})
    elo, low, high = fit["new"]
    assert elo == pytest.approx(200 + 400 * math.log10(3))
    half = 1.959963984540054 / math.sqrt(40 * 0.75 * 0.25) * ELO_PER_NAT
    assert (high - elo, elo - low) == (pytest.approx(half), pytest.approx(half))
    assert fit["L"] == (200.0, 200.0, 200.0)


def test_one_fixed_player_equals_the_anchored_fit_shifted() -> None:
    names = ["a", "b", "c"]
    results = [("a", "b", 7, 12), ("b", "c", 5, 9), ("a", "c", 9, 11)]
    anchored = bradley_terry_elo(names, results, anchor="b")
    fixed = bradley_terry_elo(names, results, fixed={"b": 150.0})
    for name in names:
        assert fixed[name] == pytest.approx(tuple(v + 150.0 for v in anchored[name]))


def _ladder_games(
    rng: np.random.Generator, ladder: dict[str, float], true_elo: float, per_level: int
) -> list[tuple[str, str, float, int]]:
    results = []
    for name, elo in ladder.items():
        p = 1.0 / (1.0 + 10 ** ((elo - true_elo) / 400))
        results.append(("agent", name, float(rng.binomial(per_level, p)), per_level))
    return results


def test_a_rating_against_a_fixed_ladder_is_recovered_within_its_interval() -> None:
    ladder = {"L0": 0.0, "L1": 150.0, "L2": 320.0, "L3": 470.0, "L4": 600.0}
    rng = np.random.default_rng(2025)
    true_elo = 380.0
    results = _ladder_games(rng, ladder, true_elo, 400)
    fit = bradley_terry_elo(["agent", *ladder], results, fixed=ladder)
    _, low, high = fit["agent"]
    assert low <= true_elo <= high
    assert high - low < 80  # 2000 games pin it down
    for name, value in ladder.items():
        assert fit[name] == (value, value, value)


def test_fixed_ladder_intervals_cover_the_truth_about_95_percent_of_the_time() -> None:
    ladder = {"L0": 0.0, "L1": 200.0, "L2": 400.0}
    rng = np.random.default_rng(7)
    hits = 0
    runs = 400
    for _ in range(runs):
        true_elo = float(rng.uniform(0, 400))
        fit = bradley_terry_elo(
            ["agent", *ladder], _ladder_games(rng, ladder, true_elo, 60), fixed=ladder
        )
        _, low, high = fit["agent"]
        hits += low <= true_elo <= high
    assert 0.91 <= hits / runs <= 0.99


def test_games_between_fixed_players_do_not_move_the_free_ones() -> None:
    ladder = {"L0": 0.0, "L1": 300.0}
    games = [("x", "L0", 14, 20), ("x", "L1", 6, 20)]
    alone = bradley_terry_elo(["x", *ladder], games, fixed=ladder)
    with_ladder_games = bradley_terry_elo(
        ["x", *ladder], [*games, ("L0", "L1", 1, 50)], fixed=ladder
    )
    assert with_ladder_games["x"] == pytest.approx(alone["x"])


def test_two_free_players_against_a_fixed_ladder_match_a_brute_force_maximum() -> None:
    ladder = {"L0": 0.0, "L1": 250.0}
    results = [("x", "L0", 11, 16), ("x", "L1", 5, 16), ("y", "L1", 9, 14), ("x", "y", 3, 10)]
    fit = bradley_terry_elo(["x", "y", *ladder], results, fixed=ladder)

    def log_likelihood(x: float, y: float) -> float:
        elo = {"x": x, "y": y, **ladder}
        total = 0.0
        for a, b, points, n in results:
            p = 1.0 / (1.0 + 10 ** ((elo[b] - elo[a]) / 400))
            total += points * math.log(p) + (n - points) * math.log(1 - p)
        return total

    grid = np.arange(-200.0, 600.0, 2.0)
    best = max(itertools.product(grid, grid), key=lambda xy: log_likelihood(*xy))
    assert fit["x"][0] == pytest.approx(best[0], abs=2.0)
    assert fit["y"][0] == pytest.approx(best[1], abs=2.0)


def test_an_agent_that_beat_every_level_gets_a_finite_rating_from_the_prior() -> None:
    ladder = {"L0": 0.0, "L1": 200.0, "L2": 400.0}
    results = [("agent", name, 20, 20) for name in ladder]
    fit = bradley_terry_elo(["agent", *ladder], results, fixed=ladder)
    elo, low, high = fit["agent"]
    assert math.isfinite(low) and math.isfinite(high)
    assert 400 < elo < 1400  # above the top level, finite
    # With one level the prior is one virtual draw: 20.5 points out of 21.
    one = bradley_terry_elo(["agent", "L2"], [("agent", "L2", 20, 20)], fixed={"L2": 400.0})
    assert one["agent"][0] == pytest.approx(400 + 400 * math.log10(20.5 / 0.5))
    # And one that lost everything lands below the bottom.
    lost = bradley_terry_elo(["agent", *ladder], [("agent", n, 0, 20) for n in ladder],
                             fixed=ladder)  # fmt: skip
    assert lost["agent"][0] < 0


@pytest.mark.parametrize(
    ("fixed", "anchor", "match"),
    [
        ({}, None, "at least one"),
        ({"nobody": 0.0}, None, "not in"),
        ({"L0": math.nan}, None, "finite number"),
        ({"L0": math.inf}, None, "finite number"),
        ({"L0": "0"}, None, "finite number"),
        ({"L0": 0.0}, "L0", "not both"),
        ([("L0", 0.0)], None, "mapping"),
    ],
)
def test_bad_fixed_ratings_are_refused(fixed: object, anchor: str | None, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        bradley_terry_elo(
            ["x", "L0"],
            [("x", "L0", 1, 2)],
            anchor,
            fixed=fixed,  # type: ignore[arg-type]
        )


def test_a_free_player_without_games_against_the_ladder_is_refused() -> None:
    with pytest.raises(ValueError, match=r"no games connect \['y'\]"):
        bradley_terry_elo(["x", "y", "L0"], [("x", "L0", 1, 2)], fixed={"L0": 0.0})
