"""Self-play snapshots: frozen (later training does not change them), capped with the oldest or
the best-beaten one evicted, and a learned opponent batched over the sub-envs (one forward pass
per policy) playing the same moves as position by position."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from mcts_agents.agents.batch import act_batch  # noqa: E402
from mcts_agents.agents.policy import PolicyAgent  # noqa: E402
from mcts_agents.agents.specs import make_env  # noqa: E402
from mcts_agents.errors import InvalidOptionError, OptionTypeError  # noqa: E402
from mcts_agents.rl import VectorVsOpponent  # noqa: E402
from mcts_agents.rl.pool import OpponentPool  # noqa: E402
from mcts_agents.rl.snapshots import FrozenPolicy, add_snapshot, snapshot_names  # noqa: E402
from tests.mcts_agents.rl.vector_play import random_play  # noqa: E402

ENV = "tic_tac_toe"


def network(seed: int = 0) -> Any:
    torch.manual_seed(seed)
    return torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(18, 9))


def test_a_snapshot_is_frozen_against_later_training() -> None:
    learner = network()
    pool = OpponentPool(["random"])
    name = add_snapshot(pool, learner, step=100)
    frozen = pool.entry(name)
    assert isinstance(frozen, FrozenPolicy) and name == "snapshot-100"
    assert not frozen.module.training
    assert not any(p.requires_grad for p in frozen.module.parameters())
    observations = np.random.default_rng(0).integers(0, 2, (6, 3, 3, 2)).astype(np.float32)
    masks = np.ones((6, 9), dtype=bool)
    before = frozen.batch(observations, masks)
    logits_before = frozen.module(torch.as_tensor(observations)).clone()
    optimizer = torch.optim.SGD(learner.parameters(), lr=10.0)
    for _ in range(3):  # train the learner
        optimizer.zero_grad()
        learner(torch.as_tensor(observations)).pow(2).sum().backward()
        optimizer.step()
    assert not torch.equal(learner(torch.as_tensor(observations)), logits_before)
    assert torch.equal(frozen.module(torch.as_tensor(observations)), logits_before)
    assert frozen.batch(observations, masks).tolist() == before.tolist()


def test_a_snapshot_plays_only_legal_actions() -> None:
    frozen = FrozenPolicy(network(), "n", 0)
    masks = np.zeros((4, 9), dtype=bool)
    masks[np.arange(4), [0, 3, 5, 8]] = True
    assert frozen.batch(np.zeros((4, 3, 3, 2), np.float32), masks).tolist() == [0, 3, 5, 8]


def test_the_cap_evicts_the_oldest_or_the_best_beaten() -> None:
    pool = OpponentPool(["random"])
    for step in (10, 20, 30):
        add_snapshot(pool, network(step), step=step, cap=2)
    assert snapshot_names(pool) == ["snapshot-20", "snapshot-30"] and "random" in pool.names
    pool.record("snapshot-20", 0.0)
    pool.record("snapshot-30", 1.0)  # beaten: the lowest PFSP weight
    add_snapshot(pool, network(40), step=40, cap=2, evict="pfsp")
    assert snapshot_names(pool) == ["snapshot-20", "snapshot-40"]


def test_bad_snapshots_are_refused() -> None:
    pool = OpponentPool(["random"])
    with pytest.raises(OptionTypeError, match="int"):
        add_snapshot(pool, 42)
    with pytest.raises(InvalidOptionError, match="evict"):
        add_snapshot(pool, network(), evict="newest")
    with pytest.raises(InvalidOptionError, match="cap"):
        add_snapshot(pool, network(), cap=0)
    add_snapshot(pool, network(), step=5)
    with pytest.raises(InvalidOptionError, match="snapshot-5"):
        add_snapshot(pool, network(), step=5)


class Counting(FrozenPolicy):
    calls = 0

    def batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        Counting.calls += 1
        return super().batch(observations, masks)


def test_act_batch_evaluates_one_policy_in_one_call_with_the_same_moves() -> None:
    agent = PolicyAgent(Counting(network(3), "n", 0))
    envs = []
    for seed in range(5):
        env = make_env(ENV)
        env.reset(seed=seed)
        for action in np.random.default_rng(seed).choice(9, size=seed % 3, replace=False):
            env.step(int(action))
        envs.append(env)
    Counting.calls = 0
    batched = act_batch([agent] * 5, envs)
    assert Counting.calls == 1
    assert batched == [agent.act(env) for env in envs]  # act: one position at a time


def run(opponent: Any) -> list[Any]:
    return random_play(VectorVsOpponent(6, ENV, opponent=OpponentPool([opponent]), seed=4), 20, 4)


def test_a_batched_learned_opponent_plays_as_the_per_sub_env_one() -> None:
    frozen = FrozenPolicy(network(7), "net", 0)

    def one_by_one(observation: Any, mask: np.ndarray) -> int:  # no batch: act per sub-env
        return frozen(observation, mask)

    Counting.calls = 0
    batched = run(Counting(network(7), "net", 0))
    assert Counting.calls > 0
    alone = run(one_by_one)
    assert len(batched) == len(alone)
    assert all(np.array_equal(a, b) for a, b in zip(batched, alone, strict=True))
