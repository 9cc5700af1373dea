"""``PoolCallback``: an ``OpponentPool`` through a Stable-Baselines3 run.

Every ``snapshot_every`` timesteps (at the first rollout end past each multiple) it adds the
model's current policy to the pool as a frozen opponent (``rl.snapshots.add_snapshot``, with
``cap`` and ``evict``); at every rollout end it records the learner's Elo on the ladder's
scale, fitted from its last ``elo_last`` games against the pool's ladder entries (2,000 by
default; ``None``: all of them) with the levels held fixed (``OpponentPool.elo``): the
strength of the policy as it plays in training, sampling its moves, which is weaker than its
most probable moves (what ``rate`` of a saved model plays); and each entry's score, on SB3's
logger (``pool/elo``, ``pool/low``, ``pool/high``, ``pool/score/<entry>``, ``pool/level`` under a
curriculum): every output the logger has, TensorBoard included when the run was given
``tensorboard_log``. ``history`` keeps ``(timesteps, elo, low, high)``. This module imports
Stable-Baselines3 (the ``rl`` extra).
"""

from __future__ import annotations

from stable_baselines3.common.callbacks import BaseCallback

from mcts_agents.checks import check_int
from mcts_agents.errors import InvalidOptionError, OptionTypeError
from mcts_agents.rl.pool import RECENT_GAMES, OpponentPool
from mcts_agents.rl.snapshots import EVICTIONS, add_snapshot

__all__ = ["PoolCallback"]


class PoolCallback(BaseCallback):
    """Snapshots into ``pool`` and its results on the logger (see the module).

    Args:
        pool: the ``OpponentPool`` the training env draws from.
        snapshot_every: timesteps between snapshots (``None``: none).
        cap: the most snapshots kept (``None``: all).
        evict: ``"oldest"`` or ``"pfsp"`` (``add_snapshot``).
        device: where the snapshots run (``"cuda"``, ``"cpu"``; default: where the model is).
        elo_last: the games the Elo is fitted from, the latest (``None``: all).
    """

    def __init__(
        self,
        pool: OpponentPool,
        snapshot_every: int | None = None,
        cap: int | None = None,
        evict: str = "oldest",
        device: str | None = None,
        verbose: int = 0,
        elo_last: int | None = 2_000,
    ) -> None:
        super().__init__(verbose)
        if not isinstance(pool, OpponentPool):
            raise OptionTypeError(f"pool must be an OpponentPool, got {type(pool).__name__}")
        if snapshot_every is not None:
            check_int(snapshot_every, "snapshot_every", low=1)
        if cap is not None:
            check_int(cap, "cap", low=1)
        if evict not in EVICTIONS:
            raise InvalidOptionError(f"evict must be one of {list(EVICTIONS)}, got {evict!r}")
        self.pool, self.every, self.cap, self.evict = pool, snapshot_every, cap, evict
        self.device = device
        if elo_last is not None:
            check_int(elo_last, "elo_last", low=1, high=RECENT_GAMES)
        self.elo_last = elo_last
        self.history: list[tuple[int, float, float, float]] = []
        self._next = snapshot_every

    def _on_step(self) -> bool:
        return True

    def _on_rollout_end(self) -> None:
        steps = self.num_timesteps
        if self._next is not None and self.every is not None and steps >= self._next:
            add_snapshot(self.pool, self.model, steps, self.cap, self.evict, self.device)
            self._next = (steps // self.every + 1) * self.every
        fit = self.pool.elo(last=self.elo_last)
        if fit is not None:
            self.history.append((steps, *fit))
            for key, value in zip(("elo", "low", "high"), fit, strict=True):
                self.logger.record(f"pool/{key}", value)
        for name, entry in self.pool.stats().items():
            if entry["score"] is not None:
                self.logger.record(f"pool/score/{name}", entry["score"])
        if self.pool.rule == "curriculum":
            self.logger.record("pool/level", self.pool.level)
