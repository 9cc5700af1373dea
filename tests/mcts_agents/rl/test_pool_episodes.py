"""An ``OpponentPool`` as the opponent of the single-agent and the vector env: an entry drawn at
each episode start, the same seed giving the same draws, ``pool_stats()`` equal to a hand count
of the episodes' ``info``, an illegal action counted as a loss."""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np
import pytest

from mcts_agents.agents.specs import make_env
from mcts_agents.rl import SingleAgentVsOpponent, VectorVsOpponent
from mcts_agents.rl.pool import OpponentPool
from mcts_agents.rl.pool_episodes import learner_score

ENV = "tic_tac_toe"


def first_legal(observation: Any, mask: np.ndarray) -> int:
    return int(np.flatnonzero(mask)[0])


def last_legal(observation: Any, mask: np.ndarray) -> int:
    return int(np.flatnonzero(mask)[-1])


def make_pool(seed: int) -> OpponentPool:
    return OpponentPool(["mcts:iterations=3", "random", first_legal], rule="pfsp_hard", seed=seed)


def single_episodes(seed: int, episodes: int) -> tuple[list[tuple[str, float]], Any]:
    env = SingleAgentVsOpponent(make_env(ENV), make_pool(seed), seed=seed)
    rng = np.random.default_rng(seed)
    ends = []
    for _ in range(episodes):
        env.reset()
        while True:
            action = int(rng.choice(np.flatnonzero(env.action_masks())))
            _, _, terminated, truncated, info = env.step(action)
            if terminated or truncated:
                ends.append((info["pool_entry"], info["pool_score"]))
                assert info["pool_score"] == learner_score(info["returns"], env.seat, env.seats)
                break
    return ends, env


def hand_count(ends: list[tuple[str, float]]) -> dict[str, tuple[int, int, int]]:
    count: dict[str, list[int]] = {}
    for name, score in ends:
        count.setdefault(name, [0, 0, 0])[{1.0: 0, 0.5: 1, 0.0: 2}[score]] += 1
    return {name: (wins, draws, losses) for name, (wins, draws, losses) in count.items()}


def test_single_agent_env_draws_per_episode_and_counts_like_a_hand_count() -> None:
    ends, env = single_episodes(seed=5, episodes=24)
    assert len({name for name, _ in ends}) >= 2  # the entries change between episodes
    stats = env.pool_stats()
    counted = hand_count(ends)
    for name, entry in stats.items():
        wins, draws, losses = counted.get(name, (0, 0, 0))
        assert (entry["wins"], entry["draws"], entry["losses"]) == (wins, draws, losses)
        assert entry["games"] == wins + draws + losses
    assert sum(entry["games"] for entry in stats.values()) == 24
    again, _ = single_episodes(seed=5, episodes=24)
    assert again == ends  # the same seed: the same draws and the same games


def test_single_agent_env_counts_an_illegal_action_as_a_loss() -> None:
    pool = OpponentPool([first_legal])
    env = SingleAgentVsOpponent(make_env(ENV), pool, seed=0)
    env.reset()
    taken = int(np.flatnonzero(~env.action_masks())[0]) if not env.action_masks().all() else None
    if taken is None:  # the learner moves first: play one move to make a cell illegal
        env.step(int(np.flatnonzero(env.action_masks())[0]))
        taken = int(np.flatnonzero(~env.action_masks())[0])
    _, _, terminated, _, info = env.step(taken)
    assert terminated and info["pool_score"] == 0.0
    assert env.pool_stats()["first_legal"]["losses"] == 1


def vector_run(seed: int, fast_path: bool, steps: int = 40) -> tuple[list[Any], dict[str, Any]]:
    pool = OpponentPool(["mcts:iterations=3", first_legal, last_legal], seed=seed)
    env = VectorVsOpponent(4, ENV, opponent=pool, seed=seed, fast_path=fast_path)
    env.reset()
    rng = np.random.default_rng(seed)
    ends: list[Any] = []
    for _ in range(steps):
        actions = [int(rng.choice(np.flatnonzero(m))) if m.any() else 0 for m in env.action_masks()]
        _, _, terminated, truncated, info = env.step(np.array(actions))
        if "pool_entry" in info:
            assert info["_pool_entry"].tolist() == (terminated | truncated).tolist()
            for i in np.flatnonzero(info["_pool_entry"]).tolist():
                ends.append((i, info["pool_entry"][i], float(info["pool_score"][i])))
    env.close()
    return ends, pool.stats()


@pytest.mark.parametrize("fast_path", [True, False])
def test_vector_env_draws_per_sub_env_episode_and_counts_like_a_hand_count(
    fast_path: bool,
) -> None:
    ends, stats = vector_run(3, fast_path)
    assert len(ends) >= 8 and len({name for _, name, _ in ends}) == 3
    counted = hand_count([(name, score) for _, name, score in ends])
    for name, entry in stats.items():
        assert (entry["wins"], entry["draws"], entry["losses"]) == counted.get(name, (0, 0, 0))
    assert vector_run(3, fast_path) == (ends, stats)  # same seed, same draws


def test_vector_env_fast_path_plays_the_same_pool_games() -> None:
    assert vector_run(9, True) == vector_run(9, False)


def test_set_opponent_swaps_a_pool_for_a_spec_and_back() -> None:
    pool = OpponentPool([first_legal])
    env = VectorVsOpponent(2, ENV, opponent="random", seed=0)
    env.reset()
    assert env.pool_stats() == {}
    env.set_opponent(pool)
    env.reset(seed=1)
    assert env.get_attr("pool_entry") == ("first_legal", "first_legal")
    env.set_opponent("random")
    env.reset(seed=2)
    assert env.pool_stats() == {} and Counter(env.get_attr("opponent_spec")) == {"random": 2}
