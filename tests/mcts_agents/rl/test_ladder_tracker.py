"""``LadderTracker`` and ``LadderEvalCallback``: a rating every K steps, each with the same seed,
recorded in ``history`` (and on SB3's logger); bad arguments and games without a ladder refused
at once. ``rate`` is replaced by a recorder where only the schedule is under test; a
hand-written ladder stands in for a calibrated one."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import mcts_agents.arena.rating as rating_module
from mcts_agents.agents.policy import PolicyAgent
from mcts_agents.arena.rating import Rating
from mcts_agents.errors import InvalidOptionError
from mcts_agents.rl import LadderPoint, LadderTracker
from tests.mcts_agents.tiny_ladder import TINY

GAME = "tic_tac_toe"


class Recorder:
    """Stands in for ``rate``: records its calls, returns the n-th call's rating ``100 * n``."""

    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []

    def __call__(self, agent: Any, env: Any, **options: Any) -> Rating:
        self.calls.append({"agent": agent, "env": env, **options})
        elo = 100.0 * len(self.calls)
        return Rating(elo=elo, low=elo - 40, high=elo + 40, games=12, scores={}, game=str(env))


def first_legal(observation: Any, mask: np.ndarray) -> int:
    return int(np.flatnonzero(mask)[0])


def test_rates_at_each_multiple_of_every_with_the_same_seed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    recorder = Recorder()
    monkeypatch.setattr(rating_module, "rate", recorder)
    tracker = LadderTracker(GAME, every=100, games=12, seed=7, precision=30.0, levels=TINY)
    agent = PolicyAgent(first_legal)
    rated = [step for step in range(0, 360, 30) if tracker(step, agent) is not None]
    assert rated == [120, 210, 300]  # the first step at or past 100, 200, 300
    assert tracker.history == [
        LadderPoint(120, 100.0, 60.0, 140.0, 12),
        LadderPoint(210, 200.0, 160.0, 240.0, 12),
        LadderPoint(300, 300.0, 260.0, 340.0, 12),
    ]
    expected = {"agent": agent, "env": GAME, "games": 12, "seed": 7}
    expected |= {"precision": 30.0, "workers": 1, "levels": TINY.levels}
    assert recorder.calls == [expected] * 3
    assert not tracker.due(399) and tracker.due(400)


def test_rating_now_moves_the_next_rating_on(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(rating_module, "rate", Recorder())
    tracker = LadderTracker(GAME, every=50, levels=TINY)
    tracker.rate(70, "random")
    assert not tracker.due(99) and tracker.due(100)


@pytest.mark.parametrize(
    ("kwargs", "named"),
    [
        ({"every": 0}, "every"),
        ({"every": 1.5}, "every"),
        ({"every": 10, "games": 0}, "games"),
        ({"every": 10, "seed": "x"}, "seed"),
        ({"every": 10, "precision": -1.0}, "precision"),
        ({"every": 10, "workers": 0}, "workers"),
    ],
)
def test_bad_arguments_are_refused(kwargs: dict[str, Any], named: str) -> None:
    with pytest.raises(InvalidOptionError, match=named):
        LadderTracker(GAME, levels=TINY, **kwargs)


def test_a_game_without_a_ladder_is_refused_at_once() -> None:
    with pytest.raises(InvalidOptionError, match="pig"):
        LadderTracker("pig", every=10)


def test_a_real_rating_of_a_policy_lands_in_history() -> None:
    tracker = LadderTracker(GAME, every=10, games=20, seed=3, levels=TINY)
    point = tracker(10, PolicyAgent(first_legal, name="first legal"))
    assert point is not None and tracker.history == [point]
    assert point.low <= point.elo <= point.high and point.games == 20
    again = LadderTracker(GAME, every=10, games=20, seed=3, levels=TINY.levels)
    assert again.rate(10, PolicyAgent(first_legal)) == point  # same seed, same rating
    strong = again.rate(20, "mcts:iterations=256")  # beats the first-legal player
    assert strong.elo > point.high and again.history == [point, strong]


def test_the_sb3_callback_rates_the_model_and_logs_it(monkeypatch: pytest.MonkeyPatch) -> None:
    sb3_contrib = pytest.importorskip("sb3_contrib")
    from stable_baselines3.common.logger import Logger

    from mcts_agents import RandomAgent, SingleAgentVsOpponent
    from mcts_agents.envs import tic_tac_toe_v0
    from mcts_agents.rl.ladder_callback import LadderEvalCallback

    recorder = Recorder()
    monkeypatch.setattr(rating_module, "rate", recorder)
    recorded: dict[str, list[Any]] = {}

    def record(self: Any, key: str, value: Any, exclude: Any = None) -> None:
        recorded.setdefault(key, []).append(value)

    monkeypatch.setattr(Logger, "record", record)
    env = SingleAgentVsOpponent(tic_tac_toe_v0.env(), RandomAgent(), learner="random", seed=0)
    model = sb3_contrib.MaskablePPO(
        "MlpPolicy", env, n_steps=64, batch_size=64, n_epochs=1, seed=0, device="cpu"
    )
    callback = LadderEvalCallback(GAME, every=64, games=12, seed=5, levels=TINY)
    model.learn(total_timesteps=128, callback=callback)
    assert [p.step for p in callback.history] == [64, 128]
    assert recorded["ladder/elo"] == [100.0, 200.0]
    assert recorded["ladder/games"] == [12, 12]
    agent = recorder.calls[0]["agent"]
    assert isinstance(agent, PolicyAgent) and recorder.calls[0]["seed"] == 5
    board = tic_tac_toe_v0.env()
    board.reset(seed=0)
    assert agent.act(board) in np.flatnonzero(board.observe(board.agent_selection)["action_mask"])


def test_the_sb3_callback_rates_once_per_rollout_each_time_a_new_policy(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``every`` shorter than a rollout: ratings come at rollout ends only, so no two rate the
    same policy (rated inside one rollout, the first 64 steps' four ratings were all of the
    untrained policy, the same number four times)."""
    sb3_contrib = pytest.importorskip("sb3_contrib")
    import torch

    from mcts_agents import RandomAgent, SingleAgentVsOpponent
    from mcts_agents.envs import tic_tac_toe_v0
    from mcts_agents.rl.ladder_callback import LadderEvalCallback

    env = SingleAgentVsOpponent(tic_tac_toe_v0.env(), RandomAgent(), learner="random", seed=0)
    model = sb3_contrib.MaskablePPO(
        "MlpPolicy", env, n_steps=64, batch_size=64, n_epochs=1, seed=0, device="cpu"
    )
    policies: list[torch.Tensor] = []  # the policy's weights at each rating
    recorder = Recorder()

    def rate(agent: Any, env: Any, **options: Any) -> Rating:
        policies.append(torch.cat([p.detach().flatten() for p in model.policy.parameters()]))
        return recorder(agent, env, **options)

    monkeypatch.setattr(rating_module, "rate", rate)
    callback = LadderEvalCallback(GAME, every=16, games=12, seed=5, levels=TINY)
    model.learn(total_timesteps=192, callback=callback)
    assert [p.step for p in callback.history] == [64, 128, 192]  # the rollouts' ends
    for i in range(len(policies)):
        for j in range(i):
            assert not torch.equal(policies[i], policies[j]), (j, i)
