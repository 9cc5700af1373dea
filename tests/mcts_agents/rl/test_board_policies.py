"""Learned opponents on the rules' words (``rl.board_policies``): the vector env keeps sub-envs
whose opponent is a batched policy on the words, and they play exactly the games the AEC path
plays (same observations, rewards, ends and pool draws), mixed with searches and with several
snapshots; an illegal reply is refused naming the sub-env."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from mcts_agents.errors import IllegalActionError  # noqa: E402
from mcts_agents.rl import VectorVsOpponent  # noqa: E402
from mcts_agents.rl.pool import OpponentPool  # noqa: E402
from mcts_agents.rl.snapshots import FrozenPolicy  # noqa: E402


def network(cells: int, actions: int, seed: int) -> Any:
    torch.manual_seed(seed)
    return torch.nn.Sequential(
        torch.nn.Flatten(), torch.nn.Linear(cells * 2, 32), torch.nn.Tanh(),
        torch.nn.Linear(32, actions),
    )  # fmt: skip


class Counting(FrozenPolicy):
    calls = 0

    def batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        Counting.calls += 1
        return super().batch(observations, masks)


def pool_of(env: str, seed: int) -> OpponentPool:
    cells, actions = {"tic_tac_toe": (9, 9), "connect_four": (42, 7)}[env]
    return OpponentPool(
        {
            "a": Counting(network(cells, actions, 1), "a", 0),
            "b": FrozenPolicy(network(cells, actions, 2), "b", 0),
            "mcts": "mcts:iterations=4",
        },
        rule="pfsp_even",
        seed=seed,
    )


def run(env_name: str, fast_path: bool, steps: int = 40, n: int = 6) -> tuple[list[Any], Any]:
    env = VectorVsOpponent(n, env_name, opponent=pool_of(env_name, 5), seed=3, fast_path=fast_path)
    observations, _ = env.reset()
    rng = np.random.default_rng(3)
    found: list[Any] = [observations]
    for _ in range(steps):
        masks = env.action_masks()
        actions = [int(rng.choice(np.flatnonzero(m))) if m.any() else 0 for m in masks]
        observations, rewards, terminated, truncated, infos = env.step(np.array(actions))
        found += [observations, rewards, terminated, truncated]
        found.append(infos.get("pool_entry", np.full(n, None, dtype=object)).tolist())
    return found, env


@pytest.mark.parametrize("env_name", ["tic_tac_toe", "connect_four"])
def test_learned_opponents_stay_on_the_words_and_play_the_aec_paths_games(env_name: str) -> None:
    Counting.calls = 0
    words, env = run(env_name, fast_path=True)
    assert env._fast is not None and env._fast.on.all()  # no sub-env left the words
    assert Counting.calls > 0
    aec, _ = run(env_name, fast_path=False)
    assert len(words) == len(aec)
    for a, b in zip(words, aec, strict=True):
        assert np.array_equal(np.asarray(a), np.asarray(b))
    entries = {e for step in words[5::5] for e in step if e is not None}
    assert {"a", "b", "mcts"} <= entries  # both snapshots and the search were played


def test_one_forward_pass_per_policy_and_round_for_every_board() -> None:
    frozen = Counting(network(42, 7, 1), "a", 0)
    env = VectorVsOpponent(16, "connect_four", opponent=OpponentPool([frozen]), seed=0)
    env.reset()
    Counting.calls = 0
    env.step(np.zeros(16, np.int64))  # every learner plays column 0; one reply each
    assert Counting.calls == 1


class Illegal(FrozenPolicy):
    def batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        found = super().batch(observations, masks)
        found[-1] = int(np.flatnonzero(~masks[-1])[0]) if (~masks[-1]).any() else 99
        return found


def test_an_illegal_reply_of_a_batched_policy_is_refused_naming_the_sub_env() -> None:
    env = VectorVsOpponent(
        3, "tic_tac_toe", opponent=OpponentPool([Illegal(network(9, 9, 1), "bad", 0)]), seed=0
    )
    with pytest.raises(IllegalActionError, match=r"played the illegal action \d+ .*sub-env \d"):
        env.reset()
        env.step(np.array([int(np.flatnonzero(m)[0]) for m in env.action_masks()]))
