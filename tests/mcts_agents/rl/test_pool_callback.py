"""``PoolCallback``: snapshots of a MaskablePPO learner into the pool every K steps (capped,
frozen SB3 policies that then play as opponents), and the pool's Elo and scores on SB3's
logger."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from sb3_contrib import MaskablePPO

from mcts_agents.errors import InvalidOptionError, OptionTypeError
from mcts_agents.rl.pool import OpponentPool
from mcts_agents.rl.pool_callback import PoolCallback
from mcts_agents.rl.sb3_vec import sb3_vec_env
from mcts_agents.rl.snapshots import FrozenPolicy, snapshot_names


def test_snapshots_every_k_steps_capped_and_logged() -> None:
    pool = OpponentPool(["ladder:connect_four:L0", "ladder:connect_four:L1"], seed=0)
    env = sb3_vec_env(4, "connect_four", opponent=pool, seed=0)
    model = MaskablePPO("MlpPolicy", env, n_steps=16, batch_size=64, n_epochs=1, seed=0)
    callback = PoolCallback(pool, snapshot_every=64, cap=2)
    model.learn(total_timesteps=256, callback=callback)
    snapshots = snapshot_names(pool)
    assert len(snapshots) == 2 and snapshots[-1] == "snapshot-256"
    frozen = pool.entry(snapshots[-1])
    assert isinstance(frozen, FrozenPolicy) and frozen.kind == "sb3"
    assert not any(p.requires_grad for p in frozen.module.parameters())
    observations = env.reset()
    masks = np.stack(env.env_method("action_masks"))
    assert all(masks[i, a] for i, a in enumerate(frozen.batch(observations, masks)))
    games = sum(entry["games"] for entry in pool.stats().values())
    assert games > 0
    fit = pool.elo(
        last=callback.elo_last
    )  # None where the learner won (or lost) every game: no finite fit
    assert (callback.history[-1][1:] if callback.history else None) == fit


def test_bad_arguments_are_refused() -> None:
    pool = OpponentPool(["random"])
    with pytest.raises(OptionTypeError, match="pool"):
        PoolCallback("random")  # type: ignore[arg-type]
    with pytest.raises(InvalidOptionError, match="snapshot_every"):
        PoolCallback(pool, snapshot_every=0)
    with pytest.raises(InvalidOptionError, match="evict"):
        PoolCallback(pool, evict="newest")
    with pytest.raises(InvalidOptionError, match="elo_last"):
        PoolCallback(pool, elo_last=0)
