"""Confidence intervals for score rates and Bradley-Terry Elo ratings by maximum likelihood.

Draws count as half a win throughout: a match of 3 wins, 2 draws and 5 losses is a score of
4 out of 10.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from mcts_agents.checks import check_int
from mcts_agents.errors import InvalidOptionError

__all__ = [
    "ELO_PER_NAT",
    "Z95",
    "bradley_terry_elo",
    "elo_from_rate",
    "mle_is_finite",
    "wilson_interval",
]

#: the two-sided 95% normal quantile.
Z95 = 1.959963984540054
#: Elo points per unit of the logistic model's natural scale (400 / ln 10).
ELO_PER_NAT = 400.0 / math.log(10.0)


def wilson_interval(successes: float, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of a success rate (default 95%).

    Args:
        successes: wins plus half the draws, so a half-integer is allowed (0 <= successes <= n).
        n: number of games (0 gives the uninformative ``(0.0, 1.0)``).
        z: normal quantile of the confidence level.

    Raises:
        InvalidOptionError (a ValueError): ``n < 0``, ``successes`` outside ``[0, n]``, or
            ``z <= 0``.
    """
    check_int(n, "n", low=0, numpy_ints=True)
    if not isinstance(successes, (int, float, np.integer, np.floating)) or not (
        0 <= successes <= n
    ):
        raise InvalidOptionError(f"successes must be a number in [0, n={n}], got {successes!r}")
    if not z > 0:
        raise InvalidOptionError(f"z must be > 0, got {z!r}")
    if n == 0:
        return 0.0, 1.0
    p = successes / n
    z2 = z * z
    denominator = 1.0 + z2 / n
    center = (p + z2 / (2 * n)) / denominator
    half = z / denominator * math.sqrt(p * (1.0 - p) / n + z2 / (4.0 * n * n))
    low = 0.0 if successes == 0 else max(0.0, center - half)
    high = 1.0 if successes == n else min(1.0, center + half)
    return low, high


def elo_from_rate(rate: float) -> float:
    """Elo difference that gives the expected score ``rate`` (``+-inf`` at 1 and 0)."""
    if not 0.0 <= rate <= 1.0:
        raise InvalidOptionError(f"rate must be in [0, 1], got {rate!r}")
    if rate in (0.0, 1.0):
        return math.inf if rate == 1.0 else -math.inf
    return 400.0 * math.log10(rate / (1.0 - rate))


def _tables(
    names: Sequence[str], results: Iterable[Sequence[Any]]
) -> tuple[np.ndarray, np.ndarray]:
    """Points ``W[i, j]`` of ``i`` against ``j`` and games ``N[i, j]`` (symmetric)."""
    index = {name: i for i, name in enumerate(names)}
    if len(index) != len(names):
        raise InvalidOptionError(f"names must be unique, got {list(names)}")
    k = len(names)
    points = np.zeros((k, k))
    games = np.zeros((k, k))
    for item in results:
        if len(item) == 3:
            a, b, score = item
            count = 1.0
        elif len(item) == 4:
            a, b, score, count = item
        else:
            raise InvalidOptionError(
                f"a result must be (a, b, score_a) or (a, b, points_a, games), got {item!r}"
            )
        for who in (a, b):
            if who not in index:
                raise InvalidOptionError(
                    f"result {item!r} names {who!r}, which is not in {list(names)}"
                )
        if a == b:
            raise InvalidOptionError(f"result {item!r} pairs {a!r} with itself")
        if not count >= 0 or not 0 <= score <= count:
            raise InvalidOptionError(
                f"result {item!r}: points must be in [0, games] and games >= 0"
            )
        i, j = index[a], index[b]
        points[i, j] += score
        points[j, i] += count - score
        games[i, j] += count
        games[j, i] += count
    return points, games


def _reachable(adjacency: np.ndarray, start: int) -> set[int]:
    seen = {start}
    stack = [start]
    while stack:
        i = stack.pop()
        for j in np.flatnonzero(adjacency[i]):
            if int(j) not in seen:
                seen.add(int(j))
                stack.append(int(j))
    return seen


def _finite(points: np.ndarray) -> bool:
    """The MLE is finite iff the "took points from" graph is strongly connected."""
    took = points > 0
    return all(len(_reachable(took, i)) == len(points) for i in range(len(points)))


def mle_is_finite(names: Sequence[str], results: Iterable[Sequence[Any]]) -> bool:
    """Whether ``bradley_terry_elo`` can return the exact MLE (no one swept a group).

    When this is false and no ``prior`` is given, ``bradley_terry_elo`` adds one virtual draw
    to every pair that played.
    """
    points, _ = _tables(list(names), results)
    return _finite(points)


def _log_likelihood(r: np.ndarray, points: np.ndarray) -> float:
    diff = r[:, None] - r[None, :]
    # log sigma(x) = -log(1 + exp(-x)); the diagonal has no points.
    return float(-(points * np.logaddexp(0.0, -diff)).sum())


def bradley_terry_elo(
    names: Sequence[str],
    results: Iterable[Sequence[Any]],
    anchor: str | None = None,
    *,
    prior: float | None = None,
    z: float = Z95,
) -> dict[str, tuple[float, float, float]]:
    """Elo ratings by maximum likelihood under the Bradley-Terry (logistic) model.

    ``P(i beats j) = 1 / (1 + 10 ** ((elo_j - elo_i) / 400))``; draws are half a win each way.
    The ratings maximise the likelihood (Newton's method with a line search; the
    log-likelihood is concave) with the ``anchor`` fixed at 0. The interval is
    ``elo +- z * se`` where ``se`` comes from the inverse of the observed Fisher information
    with the anchor fixed, so it is the uncertainty of each rating *relative to the anchor*.

    When someone won (or lost) every point against a group of players the MLE is infinite.
    Then, and whenever ``prior`` is given, ``prior`` virtual draws (default 1) are added to
    every pair that played, which keeps every rating finite (10 wins out of 10 give
    ``400 * log10(10.5 / 0.5)`` ~ 529 instead of infinity). With a finite MLE and no ``prior``
    the exact MLE is returned.

    Args:
        names: the players; all results must name players from here.
        results: ``(a, b, score_a)`` per game (``score_a`` = 1 win, 0.5 draw, 0 loss), or
            ``(a, b, points_a, games)`` for many games at once.
        anchor: the player rated 0 (default: ``names[0]``).
        prior: virtual draws added to every pair that played (see above).
        z: normal quantile of the interval (default 95%).

    Returns:
        ``{name: (elo, low, high)}`` in the order of ``names``; the anchor gets ``(0, 0, 0)``.

    Raises:
        InvalidOptionError (a ValueError): unknown names, bad scores, an unknown anchor, or
            players not connected to the anchor by games (their ratings are undefined).
    """
    names = list(names)
    if not names:
        raise InvalidOptionError("names must not be empty")
    points, games = _tables(names, results)
    anchor = names[0] if anchor is None else anchor
    if anchor not in names:
        raise InvalidOptionError(f"anchor {anchor!r} is not one of {names}")
    a = names.index(anchor)
    connected = _reachable(games > 0, a)
    if len(connected) != len(names):
        missing = [n for i, n in enumerate(names) if i not in connected]
        raise InvalidOptionError(
            f"no games connect {missing} to the anchor {anchor!r}; Elo is undefined"
        )
    if prior is None and not _finite(points):
        prior = 1.0
    if prior:
        if prior < 0:
            raise InvalidOptionError(f"prior must be >= 0, got {prior!r}")
        played = games > 0
        points = points + 0.5 * prior * played
        games = games + prior * played

    free = [i for i in range(len(names)) if i != a]
    r = np.zeros(len(names))

    def hessian_parts(r: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        p = 1.0 / (1.0 + np.exp(-(r[:, None] - r[None, :])))
        gradient = (points - games * p).sum(axis=1)
        weight = games * p * (1.0 - p)
        information = np.diag(weight.sum(axis=1)) - weight
        return gradient, information

    for _ in range(200):
        gradient, information = hessian_parts(r)
        g = gradient[free]
        if not free or np.abs(g).max() < 1e-12:
            break
        step = np.linalg.solve(information[np.ix_(free, free)], g)
        current = _log_likelihood(r, points)
        scale = 1.0
        while scale > 1e-10:
            trial = r.copy()
            trial[free] += scale * step
            if _log_likelihood(trial, points) >= current - 1e-12:
                break
            scale /= 2
        r = trial
        if np.abs(scale * step).max() < 1e-12:
            break
    _, information = hessian_parts(r)
    variances = np.zeros(len(names))
    if free:
        covariance = np.linalg.inv(information[np.ix_(free, free)])
        variances[free] = np.diag(covariance)
    out: dict[str, tuple[float, float, float]] = {}
    for i, name in enumerate(names):
        elo = float(r[i] - r[a]) * ELO_PER_NAT
        half = z * math.sqrt(max(float(variances[i]), 0.0)) * ELO_PER_NAT
        out[name] = (elo, elo - half, elo + half)
    return out
