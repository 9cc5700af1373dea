"""What an arena run says: standings with Wilson intervals, the score matrix, Elo ratings.

``MatchResult`` (``play_match``) and ``TournamentResult`` (``tournament``) share one base,
``ArenaResult``: standings, score matrix, ratings, tables, dicts and plots come from the records.
"""

from __future__ import annotations

import math
import os
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, ClassVar

import numpy as np

from mcts_agents.arena.plots import plot_ratings
from mcts_agents.arena.tasks import Record
from mcts_agents.errors import InvalidOptionError
from mcts_agents.ratings import Z95, bradley_terry_elo, mle_is_finite, wilson_interval

__all__ = ["AgentStats", "ArenaResult", "MatchResult", "TournamentResult", "mean_interval"]


@dataclass(frozen=True)
class AgentStats:
    """One agent's results: games, wins, draws, losses, score (draw = 1/2), rate with 95% CI,
    and its mean return per game with a 95% interval (the chips or points won, for games that
    pay more than win, draw or loss)."""

    name: str
    games: int
    wins: int
    draws: int
    losses: int
    score: float
    rate: float
    low: float
    high: float
    mean_move_time: float
    mean_return: float = math.nan
    return_low: float = math.nan
    return_high: float = math.nan


def mean_interval(values: Sequence[float], z: float = Z95) -> tuple[float, float, float]:
    """Mean of ``values`` and its normal-approximation 95% interval (``nan`` without values;
    a zero-width interval from one value)."""
    n = len(values)
    if not n:
        return math.nan, math.nan, math.nan
    mean = sum(values) / n
    if n == 1:
        return mean, mean, mean
    variance = sum((v - mean) ** 2 for v in values) / (n - 1)
    half = z * math.sqrt(variance / n)
    return mean, mean - half, mean + half


def _standings(names: Sequence[str], records: Sequence[Record]) -> list[AgentStats]:
    tally = {name: [0, 0, 0, 0.0] for name in names}
    clock = {name: [0.0, 0] for name in names}
    returns: dict[str, list[float]] = {name: [] for name in names}
    for record in records:
        for seat, name in enumerate(record["seats"]):
            score = record["scores"][seat]
            t = tally[name]
            t[0 if score == 1.0 else 1 if score == 0.5 else 2] += 1
            t[3] += score
            returns[name].append(float(record["returns"][seat]))
        for seat, seconds in zip(record["movers"], record["times"], strict=True):
            clock[record["seats"][seat]][0] += seconds
            clock[record["seats"][seat]][1] += 1
    stats = []
    for name in names:
        wins, draws, losses, score = tally[name]
        games = int(wins + draws + losses)
        low, high = wilson_interval(score, games)
        seconds, count = clock[name]
        stats.append(
            AgentStats(
                name, games, int(wins), int(draws), int(losses), float(score),
                score / games if games else math.nan, low, high,
                seconds / count if count else math.nan, *mean_interval(returns[name]),
            )
        )  # fmt: skip
    return stats


def _pays_more_than_win_or_loss(records: Sequence[Record]) -> bool:
    """Whether any return is other than -1, 0 or 1 (chips, points): then means are shown."""
    return any(r not in (-1.0, 0.0, 1.0) for record in records for r in record["returns"])


_PRIOR_NOTE = (
    "(someone won or lost every game against others, where the maximum-likelihood Elo is "
    "infinite: one virtual draw per pair is added)"
)


def _pair_results(records: Sequence[Record]) -> list[tuple[str, str, float]]:
    return [
        (r["seats"][0], r["seats"][1], float(r["scores"][0]))
        for r in records
        if len(r["seats"]) == 2
    ]


def _standings_table(
    stats: Sequence[AgentStats],
    elo: Mapping[str, tuple[float, float, float]] | None,
    returns: bool = False,
) -> list[str]:
    width = max([5, *(len(s.name) for s in stats)])
    head = (
        f"{'agent':<{width}}  {'games':>5} {'wins':>5} {'draws':>5} {'losses':>6} "
        f"{'score':>6}  {'rate':>5}  95% CI        {'s/move':>7}"
    )
    if returns:
        head += f"  {'return':>8}  95% CI"
    if elo is not None:
        head += f"  {'Elo':>7}  95% CI"
    lines = [head, "-" * len(head)]
    for s in stats:
        line = (
            f"{s.name:<{width}}  {s.games:>5} {s.wins:>5} {s.draws:>5} {s.losses:>6} "
            f"{s.score:>6g}  {s.rate:>5.3f}  [{s.low:.3f}, {s.high:.3f}]  {s.mean_move_time:>7.4f}"
        )
        if returns:
            line += f"  {s.mean_return:>+8.3f}  [{s.return_low:+.3f}, {s.return_high:+.3f}]"
        if elo is not None:
            e, low, high = elo[s.name]
            line += f"  {e:>+7.1f}  [{low:+.0f}, {high:+.0f}]"
        lines.append(line)
    return lines


def _matrix(names: Sequence[str], records: Sequence[Record]) -> list[list[float | None]]:
    index = {name: i for i, name in enumerate(names)}
    points = np.zeros((len(names), len(names)))
    games = np.zeros((len(names), len(names)))
    for a, b, score in _pair_results(records):
        i, j = index[a], index[b]
        points[i, j] += score
        points[j, i] += 1.0 - score
        games[i, j] += 1
        games[j, i] += 1
    return [
        [float(points[i, j] / games[i, j]) if games[i, j] else None for j in range(len(names))]
        for i in range(len(names))
    ]


@dataclass
class ArenaResult(ABC):
    """The games of an arena run (ordered by index) and what they say.

    Attributes:
        env: the env's name (its spec string, or its metadata name).
        agents: the agents' display names.
        seed: the run's seed.
        records: one dict per game: ``index``, ``seed``, ``env``, ``seats`` (agent names in seat
            order), ``specs``, ``moves``, ``movers`` (seat of each move), ``times`` (seconds per
            move), ``iterations`` (per move, or ``None``), ``returns`` and ``scores`` (per
            seat), ``outcome`` (``"win"``/``"draw"``), ``winner`` (a name or ``None``), ``length``.
    """

    kind: ClassVar[str] = "arena"

    env: str
    agents: list[str]
    seed: int
    records: list[Record] = field(default_factory=list)

    @abstractmethod
    def anchor_name(self) -> str:
        """The agent rated Elo 0 by default."""

    def standings(self) -> list[AgentStats]:
        """Per agent over all its games: wins, draws, losses, score and rate with a 95% CI."""
        return _standings(self.agents, self.records)

    def matrix(self) -> list[list[float | None]]:
        """``matrix()[i][j]``: agent ``i``'s score rate against ``j`` (``None`` without games)."""
        return _matrix(self.agents, self.records)

    def ratings(self, anchor: str | None = None) -> dict[str, tuple[float, float, float]]:
        """``{name: (elo, low, high)}``: Bradley-Terry Elo with 95% CIs from the 2-player games,
        ``anchor`` (default ``anchor_name()``) at 0."""
        anchor = self.anchor_name() if anchor is None else anchor
        return bradley_terry_elo(self.agents, _pair_results(self.records), anchor)

    def elo_is_finite(self) -> bool:
        """False when someone won or lost every game (the table then notes the virtual draws)."""
        return mle_is_finite(self.agents, _pair_results(self.records))

    @abstractmethod
    def table(self) -> str:
        """A text table of what the games say."""

    def __str__(self) -> str:
        return self.table()

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable dict: env, agents, seed, standings, records (and per kind more)."""
        return {
            "kind": self.kind,
            "env": self.env,
            "agents": list(self.agents),
            "seed": self.seed,
            "standings": [asdict(s) for s in self.standings()],
            "records": list(self.records),
        }

    def plot(self, path: str | os.PathLike[str]) -> None:
        """Save one figure: Elo with 95% error bars, and the pairwise score matrix."""
        anchor = self.anchor_name()
        plot_ratings(path, self.agents, self.ratings(anchor), self.matrix(), self.env, anchor)


@dataclass
class MatchResult(ArenaResult):
    """The games of ``play_match``; ``records`` as in ``ArenaResult``."""

    kind: ClassVar[str] = "match"

    def anchor_name(self) -> str:
        """The second agent."""
        return self.agents[1]

    def ratings(self, anchor: str | None = None) -> dict[str, tuple[float, float, float]]:
        """Bradley-Terry Elo with 95% CIs (2-player games only), ``anchor`` (default: the
        second agent) at 0."""
        if len(self.agents) != 2:
            raise InvalidOptionError(f"Elo needs a 2-player match, got agents {self.agents}")
        return super().ratings(anchor)

    def elo_difference(self) -> tuple[float, float, float]:
        """Elo of the first agent minus the second, with a 95% CI: ``(diff, low, high)``."""
        return self.ratings()[self.agents[0]]

    def table(self) -> str:
        """A text table of the standings (and the Elo difference for two agents)."""
        lines = [f"{self.env}: {len(self.records)} games, seed {self.seed}"]
        lines += _standings_table(self.standings(), None, _pays_more_than_win_or_loss(self.records))
        if len(self.agents) == 2 and self.records:
            diff, low, high = self.elo_difference()
            lines.append(
                f"Elo {self.agents[0]} - {self.agents[1]}: {diff:+.1f} "
                f"(95% CI {low:+.1f} .. {high:+.1f})"
            )
            if not self.elo_is_finite():
                lines.append(_PRIOR_NOTE)
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        """``ArenaResult.to_dict`` plus the Elo difference (two agents)."""
        data = super().to_dict()
        if len(self.agents) == 2 and self.records:
            data["elo_difference"] = list(self.elo_difference())
        return data


@dataclass
class TournamentResult(ArenaResult):
    """The games of a round robin (``tournament``); ``records`` as in ``ArenaResult``.

    Attributes:
        games_per_pair: games each pair played (seats swapped game by game).
        anchor: the agent rated Elo 0.
    """

    kind: ClassVar[str] = "tournament"

    games_per_pair: int = field(kw_only=True)
    anchor: str = field(kw_only=True)

    def anchor_name(self) -> str:
        """The ``anchor`` given to ``tournament`` (default: the first agent)."""
        return self.anchor

    def table(self) -> str:
        """Standings sorted by Elo, then the pairwise score matrix."""
        ratings = self.ratings()
        stats = sorted(self.standings(), key=lambda s: -ratings[s.name][0])
        lines = [
            f"{self.env}: round robin, {self.games_per_pair} games per pair, "
            f"{len(self.records)} games, seed {self.seed}, Elo anchored at {self.anchor!r} "
            f"(95% CIs)"
        ]
        lines += _standings_table(stats, ratings, _pays_more_than_win_or_loss(self.records))
        lines.append("")
        lines.append("score rate of row against column:")
        width = max(len(name) for name in self.agents)
        lines.append(" " * (width + 4) + " ".join(f"{j + 1:>6}" for j in range(len(self.agents))))
        for i, row in enumerate(self.matrix()):
            cells = " ".join(f"{'-':>6}" if v is None else f"{v:>6.3f}" for v in row)
            lines.append(f"{i + 1:>2} {self.agents[i]:<{width}} {cells}")
        if not self.elo_is_finite():
            lines.append(_PRIOR_NOTE)
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        """``ArenaResult.to_dict`` plus games per pair, anchor, score matrix and ratings."""
        data = super().to_dict()
        data.update(
            games_per_pair=self.games_per_pair,
            anchor=self.anchor,
            matrix=self.matrix(),
            ratings={name: list(value) for name, value in self.ratings().items()},
        )
        return data
