"""``LadderEvalCallback``: a Stable-Baselines3 callback that rates the model on the ladder.

Like SB3's ``EvalCallback``, but the evaluation is a rating on the game's calibrated ladder
(``ladder_tracker.LadderTracker``): at the end of the first rollout after each ``every``
timesteps the current model, wrapped by ``PolicyAgent.from_sb3``, is rated, and ``ladder/elo``,
``ladder/low``, ``ladder/high`` and ``ladder/games`` are recorded on the model's logger;
``history`` keeps the points. A rollout's boundary, not any step: the policy changes only
between rollouts (PPO trains after each), so ratings inside one rollout would rate the same
policy again and again. This module
imports Stable-Baselines3: import it only with the ``rl`` extra installed (``mcts_agents.rl``
does not import it).
"""

from __future__ import annotations

from typing import Any

from stable_baselines3.common.callbacks import BaseCallback

from mcts_agents.agents.policy import PolicyAgent
from mcts_agents.checks import check_bool
from mcts_agents.rl.ladder_tracker import LadderPoint, LadderTracker

__all__ = ["LadderEvalCallback"]


class LadderEvalCallback(BaseCallback):
    """Rate the model on ``env``'s ladder at the first rollout end after each ``every``
    timesteps (see the module).

    Args:
        env: the game (``"connect_four"``); refused at once if it has no ladder.
        every: timesteps between ratings (at least; a rating waits for the rollout's end).
        games: most games of one rating.
        seed: the seed of every rating (same seed, same rating).
        precision: stop a rating early at this half width of its interval (Elo).
        workers: processes playing a rating's games (the model must then be picklable).
        levels: a ladder (a ``Ladder`` or its levels) instead of the game's calibrated one.
        deterministic: the model's ``predict`` argument while it is rated.
        verbose: SB3's verbosity (each rating is also logged by ``logging``, at INFO).
    """

    def __init__(
        self,
        env: Any,
        every: int = 10_000,
        games: int = 100,
        seed: int = 0,
        *,
        precision: float | None = None,
        workers: int = 1,
        levels: Any = None,
        deterministic: bool = True,
        verbose: int = 0,
    ) -> None:
        super().__init__(verbose)
        self.tracker = LadderTracker(
            env, every, games, seed, precision=precision, workers=workers, levels=levels
        )
        self.deterministic = check_bool(deterministic, "deterministic")

    @property
    def history(self) -> list[LadderPoint]:
        """The ratings so far, in order."""
        return self.tracker.history

    def _on_step(self) -> bool:
        return True

    def _on_rollout_end(self) -> None:
        if self.tracker.due(self.num_timesteps):
            agent = PolicyAgent.from_sb3(self.model, deterministic=self.deterministic)
            point = self.tracker.rate(self.num_timesteps, agent)
            for key in ("elo", "low", "high", "games"):
                self.logger.record(f"ladder/{key}", getattr(point, key))
            self.logger.dump(self.num_timesteps)
