"""Confidence intervals for score rates and Bradley-Terry Elo ratings by maximum likelihood.

Draws count as half a win throughout: a match of 3 wins, 2 draws and 5 losses is a score of
4 out of 10.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
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


def _maximise(
    r: np.ndarray, free: Sequence[int], points: np.ndarray, games: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The log-likelihood maximised over the ``free`` ratings from ``r`` (Newton's method with
    a line search; the others stay), and each rating's variance from the inverse observed
    Fisher information of the free ones (0 for the others)."""
    free = list(free)

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
    variances = np.zeros(len(r))
    if free:
        covariance = np.linalg.inv(information[np.ix_(free, free)])
        variances[free] = np.diag(covariance)
    return r, variances


def bradley_terry_elo(
    names: Sequence[str],
    results: Iterable[Sequence[Any]],
    anchor: str | None = None,
    *,
    prior: float | None = None,
    z: float = Z95,
    fixed: Mapping[str, float] | None = None,
) -> dict[str, tuple[float, float, float]]:
    """Elo ratings by maximum likelihood under the Bradley-Terry (logistic) model.

    ``P(i beats j) = 1 / (1 + 10 ** ((elo_j - elo_i) / 400))``; draws are half a win each way.
    The ratings maximise the likelihood (Newton's method with a line search; the
    log-likelihood is concave) with the ``anchor`` fixed at 0. The interval is
    ``elo +- z * se`` where ``se`` comes from the inverse of the observed Fisher information
    with the anchor fixed, so it is the uncertainty of each rating *relative to the anchor*.

    With ``fixed`` (``{name: elo}``, e.g. a calibrated ladder) those players keep the given
    ratings, there is no anchor, and only the others are fitted; the intervals come from the
    Fisher information of the free players alone (the fixed ratings are taken as exact), so a
    free player's interval is its uncertainty on the fixed players' scale.

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
        fixed: players whose ratings are held at the given Elo (finite numbers); at least one
            name, all in ``names``; not together with ``anchor``.

    Returns:
        ``{name: (elo, low, high)}`` in the order of ``names``; the anchor gets ``(0, 0, 0)``,
        a fixed player ``(elo, elo, elo)``.

    Raises:
        InvalidOptionError (a ValueError): unknown names, bad scores, an unknown anchor, or
            players not connected to the anchor (or to a fixed player) by games (their ratings
            are undefined); ``fixed`` empty, naming unknown players, holding a value that is
            not a finite number, or given with ``anchor``.
    """
    names = list(names)
    if not names:
        raise InvalidOptionError("names must not be empty")
    points, games = _tables(names, results)
    if fixed is not None:
        return _fit_fixed(names, points, games, _check_fixed(fixed, names, anchor), prior, z)
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
    r, variances = _maximise(np.zeros(len(names)), free, points, games)
    out: dict[str, tuple[float, float, float]] = {}
    for i, name in enumerate(names):
        elo = float(r[i] - r[a]) * ELO_PER_NAT
        half = z * math.sqrt(max(float(variances[i]), 0.0)) * ELO_PER_NAT
        out[name] = (elo, elo - half, elo + half)
    return out


def _check_fixed(
    fixed: Mapping[str, float], names: Sequence[str], anchor: str | None
) -> dict[str, float]:
    if not isinstance(fixed, Mapping):
        raise InvalidOptionError(f"fixed must be a mapping name -> Elo, got {fixed!r}")
    if anchor is not None:
        raise InvalidOptionError(
            f"give either anchor ({anchor!r}) or fixed ratings, not both: fixed ratings set "
            "the scale"
        )
    if not fixed:
        raise InvalidOptionError("fixed must name at least one player (or be None)")
    unknown = [name for name in fixed if name not in names]
    if unknown:
        raise InvalidOptionError(f"fixed names {unknown}, which are not in {list(names)}")
    out = {}
    for name, value in fixed.items():
        if (
            isinstance(value, bool)
            or not isinstance(value, (int, float, np.integer, np.floating))
            or not math.isfinite(value)
        ):
            raise InvalidOptionError(
                f"fixed rating of {name!r} must be a finite number, got {value!r}"
            )
        out[name] = float(value)
    return out


def _finite_with_fixed(points: np.ndarray, held: Sequence[int]) -> bool:
    """The free players' MLE is finite iff the "took points from" graph is strongly connected
    once the fixed players are merged into one node (their ratings are known)."""
    k = len(points)
    merged = [i for i in range(k) if i not in held] + [-1]
    where = {i: (len(merged) - 1 if i in held else merged.index(i)) for i in range(k)}
    took = np.zeros((len(merged), len(merged)), dtype=bool)
    for i, j in zip(*np.nonzero(points > 0), strict=True):
        took[where[int(i)], where[int(j)]] = True
    np.fill_diagonal(took, False)
    return _finite(took.astype(float))


def _fit_fixed(
    names: list[str],
    points: np.ndarray,
    games: np.ndarray,
    fixed: dict[str, float],
    prior: float | None,
    z: float,
) -> dict[str, tuple[float, float, float]]:
    """``bradley_terry_elo`` with the players of ``fixed`` held at their ratings."""
    held = [names.index(name) for name in fixed]
    free = [i for i in range(len(names)) if i not in held]
    connected: set[int] = set()
    for i in held:
        connected |= _reachable(games > 0, i)
    missing = [names[i] for i in free if i not in connected]
    if missing:
        raise InvalidOptionError(
            f"no games connect {missing} to the fixed players {list(fixed)}; Elo is undefined"
        )
    if prior is not None and prior < 0:
        raise InvalidOptionError(f"prior must be >= 0, got {prior!r}")
    if prior is None and free and not _finite_with_fixed(points, held):
        prior = 1.0
    if prior:
        played = games > 0
        points = points + 0.5 * prior * played
        games = games + prior * played
    start = np.zeros(len(names))
    for name, elo in fixed.items():
        start[names.index(name)] = elo / ELO_PER_NAT
    if free:  # the free players start at the mean of the fixed ones
        start[free] = float(np.mean([start[i] for i in held]))
    r, variances = _maximise(start, free, points, games)
    out: dict[str, tuple[float, float, float]] = {}
    for i, name in enumerate(names):
        if name in fixed:
            out[name] = (fixed[name], fixed[name], fixed[name])
            continue
        elo = float(r[i]) * ELO_PER_NAT
        half = z * math.sqrt(max(float(variances[i]), 0.0)) * ELO_PER_NAT
        out[name] = (elo, elo - half, elo + half)
    return out
