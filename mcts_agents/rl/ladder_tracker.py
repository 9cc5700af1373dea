"""``LadderTracker``: rate a policy on the game's calibrated ladder every K steps of training.

The curve of a training run on a fixed scale: every ``every`` steps the current agent is rated
with ``mcts_agents.arena.rating.rate`` (the ladder's Elo held fixed) and the point
``(step, elo, low, high, games)`` is appended to ``history`` and logged. Every rating uses the
same seed (same seed, same rating), so two points differ only because the policy did.
``ladder_callback.LadderEvalCallback`` is the Stable-Baselines3 callback built on it; this
module imports neither Stable-Baselines3 nor torch.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from mcts_agents.checks import check_int, check_number, check_seed

__all__ = ["LadderPoint", "LadderTracker"]

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class LadderPoint:
    """One rating of a training run: after ``step`` steps, Elo ``elo`` in ``[low, high]`` (95%)
    from ``games`` games."""

    step: int
    elo: float
    low: float
    high: float
    games: int


class LadderTracker:
    """Rate an agent on ``env``'s ladder every ``every`` steps (see the module).

    In a custom loop: ``tracker(step, agent)`` after each step (or batch of steps) rates
    ``agent`` when ``step`` has reached the next multiple of ``every``, and returns the new
    point (else ``None``); ``tracker.rate(step, agent)`` rates now. ``agent`` is anything the
    arena takes: an agent spec, an object with ``act(env)`` (``PolicyAgent(policy)`` or
    ``PolicyAgent.from_sb3(model)`` for a policy), or a factory.

    Args:
        env: the game, as ``mcts_agents.ladder`` takes it (``"connect_four"``); refused at once
            if it has no ladder.
        every: steps between ratings (an int >= 1).
        games: most games of one rating (``rate``'s ``games``).
        seed: the seed of every rating.
        precision: stop a rating early when its interval's half width is at most this (Elo).
        workers: processes playing a rating's games (objects must then be picklable).
        levels: a ladder (a ``Ladder`` or its levels) instead of the game's calibrated one.
    """

    def __init__(
        self,
        env: Any,
        every: int,
        games: int = 100,
        seed: int = 0,
        *,
        precision: float | None = None,
        workers: int = 1,
        levels: Any = None,
    ) -> None:
        from mcts_agents.agents.ladder import Ladder, ladder

        self.every = check_int(every, "every", low=1)
        self.games = check_int(games, "games", low=1)
        self.seed = check_seed(seed)
        self.precision = check_number(precision, "precision", low=0.0, low_open=True, optional=True)
        self.workers = check_int(workers, "workers", low=1)
        self.env = env
        if levels is None:
            levels = ladder(env)  # InvalidOptionError naming the games with a ladder
        self.levels = levels.levels if isinstance(levels, Ladder) else tuple(levels)
        self.history: list[LadderPoint] = []
        self._next = self.every

    def due(self, step: int) -> bool:
        """Whether ``step`` has reached the next rating."""
        return check_int(step, "step", low=0) >= self._next

    def rate(self, step: int, agent: Any) -> LadderPoint:
        """Rate ``agent`` now as of ``step``; the next rating is due ``every`` steps later."""
        from mcts_agents.arena.rating import rate

        step = check_int(step, "step", low=0)
        rating = rate(
            agent,
            self.env,
            games=self.games,
            seed=self.seed,
            precision=self.precision,
            workers=self.workers,
            levels=self.levels,
        )
        point = LadderPoint(step, rating.elo, rating.low, rating.high, rating.games)
        self.history.append(point)
        self._next = (step // self.every + 1) * self.every
        logger.info(
            "step %d: Elo %.0f [%.0f, %.0f] on the %s ladder (%d games)",
            step,
            point.elo,
            point.low,
            point.high,
            self.env,
            point.games,
        )
        return point

    def __call__(self, step: int, agent: Any) -> LadderPoint | None:
        """Rate ``agent`` if a rating is due at ``step``; the new point, else ``None``."""
        return self.rate(step, agent) if self.due(step) else None
