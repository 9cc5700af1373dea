"""``rl.vector``'s fast path (``rl.boards``): sub-envs played on arrays of the rules' words.

The reference is the single-env wrapper itself (``gymnasium.make`` of the same id, one per
sub-env, reset with seed ``s + i`` and stepped by hand with next-step autoreset): each
sub-env on the words must play exactly its games, whatever its opponent (curricula mixing
words and AEC sub-envs), across episode ends, and after the AEC envs were read mid-episode.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import data_equivalence

pytest.importorskip("numba")

from mcts_agents.rl import gym_id
from mcts_agents.rl.vector import VectorVsOpponent

TTT, C4, OTHELLO = gym_id("tic_tac_toe"), gym_id("connect_four"), gym_id("othello")


def picks(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    return np.array([rng.choice(np.flatnonzero(row)) if row.any() else 0 for row in masks])


class Singles:
    """One single-env wrapper per sub-env, stepped as a next-step autoreset vector env."""

    def __init__(self, env_id: str, specs: list[str], **kwargs: Any) -> None:
        self.envs = [gymnasium.make(env_id, opponent=spec, **kwargs) for spec in specs]
        self.done = [False] * len(specs)

    def reset(self, seed: int) -> np.ndarray:
        self.done = [False] * len(self.envs)
        return np.stack([env.reset(seed=seed + i)[0] for i, env in enumerate(self.envs)])

    def masks(self) -> np.ndarray:
        return np.stack([env.unwrapped.action_masks() for env in self.envs])

    def step(self, actions: np.ndarray) -> tuple[np.ndarray, ...]:
        observations, rewards, ended = [], [], []
        for i, env in enumerate(self.envs):
            if self.done[i]:
                observations.append(env.reset()[0])
                rewards.append(0.0)
                ended.append(False)
            else:
                observation, reward, terminated, truncated, _ = env.step(int(actions[i]))
                observations.append(observation)
                rewards.append(float(reward))
                ended.append(terminated or truncated)
        self.done = ended
        return np.stack(observations), np.array(rewards), np.array(ended)


def play_both(
    env: VectorVsOpponent, singles: Singles, steps: int, seed: int, between: Any = None
) -> int:
    """Step both with the same random legal actions; assert equal data; the episodes ended."""
    got, _ = env.reset(seed=seed)
    assert data_equivalence(got, singles.reset(seed), exact=True)
    rng = np.random.default_rng(seed)
    ended = 0
    for step in range(steps):
        masks = env.action_masks()
        assert np.array_equal(masks, singles.masks())
        actions = picks(masks, rng)
        observations, rewards, terminated, truncated, _ = env.step(actions)
        want = singles.step(actions)
        assert data_equivalence(observations, want[0], exact=True)
        assert data_equivalence(rewards, want[1], exact=True)
        assert np.array_equal(terminated | truncated, want[2])
        ended += int(want[2].sum())
        if between is not None:
            between(step)
    return ended


@pytest.mark.parametrize(
    ("env_id", "specs", "steps"),
    [
        (TTT, ["mcts:iterations=25", "random", "mcts:iterations=25,final_move=value",
               "mcts:iterations=25,reuse=false"], 14),
        (C4, ["mcts:iterations=25", "mcts:iterations=40,solver=off", "random",
              "mcts:iterations=25,c=0.5"], 16),
        (OTHELLO, ["mcts:iterations=15", "random", "mcts:iterations=15,final_move=value"], 34),
    ],
)  # fmt: skip
def test_a_curriculum_of_words_and_aec_sub_envs_plays_the_single_wrappers_games(
    env_id: str, specs: list[str], steps: int
) -> None:
    env = gymnasium.make_vec(env_id, num_envs=len(specs), opponent=specs, learner="random")
    singles = Singles(env_id, specs, learner="random")
    env.reset(seed=0)
    searched = [not spec.startswith("random") for spec in specs]
    assert list(env._fast.on) == searched  # the compiled opponents' sub-envs are on the words
    ended = play_both(env, singles, steps, seed=3)
    assert ended > 0


def test_reading_the_sub_envs_mid_episode_moves_them_to_their_aec_envs_unchanged() -> None:
    """``envs`` (and ``call``, ``get_attr``) bring the AEC envs up to date: the rest of the
    episode is played there, the same games; the next episode is on the words again."""
    specs = ["mcts:iterations=20"] * 3
    env = gymnasium.make_vec(C4, num_envs=3, opponent=specs)
    singles = Singles(C4, specs)
    seen = []

    def read(step: int) -> None:
        if step == 2:
            seats = env.get_attr("seat")
            assert seats == ("player_0",) * 3
            for sub, single in zip(env.envs, singles.envs, strict=True):
                if not sub._done:  # the AEC env holds the words' position
                    assert sub.aec_env.unwrapped.state == single.unwrapped.aec_env.unwrapped.state
            seen.append(env._fast.on.copy())

    play_both(env, singles, 24, seed=5, between=read)
    assert not seen[0].any()
    assert env._fast.on.any()  # back on the words after their resets


def test_render_shows_sub_env_0_as_its_single_wrapper_does() -> None:
    env = gymnasium.make_vec(TTT, num_envs=2, opponent="mcts:iterations=10", render_mode="ansi")
    single = gymnasium.make(TTT, opponent="mcts:iterations=10", render_mode="ansi")
    env.reset(seed=8)
    single.reset(seed=8)
    actions = picks(env.action_masks(), np.random.default_rng(0))
    env.step(actions)
    single.step(int(actions[0]))
    assert env._fast.on[0]
    assert env.render() == single.render()
    assert env._fast.on[0]  # rendering reads the AEC env without leaving the words


def test_fast_path_off_or_a_game_without_words_plays_the_aec_envs() -> None:
    assert gymnasium.make_vec(TTT, num_envs=2, opponent="random", fast_path=False)._fast is None
    for name in ("nim", "kuhn_poker", "gomoku", "ultimate_tic_tac_toe"):
        env = gymnasium.make_vec(gym_id(name), num_envs=2, opponent="mcts:iterations=5")
        assert env._fast is None, name
    env = gymnasium.make_vec(C4, num_envs=2, opponent="mcts:iterations=5,backend=python")
    env.reset(seed=0)
    assert not env._fast.on.any()  # the Python search's opponents: the AEC path


def test_set_opponent_moves_a_sub_env_between_the_paths_at_its_next_reset() -> None:
    env = gymnasium.make_vec(TTT, num_envs=2, opponent="random")
    env.reset(seed=0)
    assert not env._fast.on.any()
    env.set_opponent(["mcts:iterations=10", "random"])
    assert not env._fast.on.any()  # mid-episode: nothing changes yet
    env.reset(seed=1)
    assert list(env._fast.on) == [True, False]


def test_call_set_opponent_and_masks_and_settings_keep_the_words() -> None:
    env = gymnasium.make_vec(C4, num_envs=2, opponent="mcts:iterations=10")
    env.reset(seed=0)
    env.call("set_opponent", "mcts:iterations=12")
    masks = env.call("action_masks")
    assert np.array_equal(np.stack(masks), env.action_masks())
    assert env.get_attr("opponent_spec") == ("mcts:iterations=10",) * 2
    assert env._fast.on.all()  # none of these read an AEC env
    env.get_attr("aec_env")
    assert not env._fast.on.any()
    env.reset(seed=1)
    assert env.get_attr("opponent_spec") == ("mcts:iterations=12",) * 2
    assert env._fast.on.all()


@pytest.mark.parametrize("env", ["mnk:m=5,n=5,k=4,stones_per_turn=2", "connect_four:k=3"])
def test_variants_play_the_same_games_on_the_words_as_through_the_aec_envs(env: str) -> None:
    """Two stones a turn (the learner and the opponent each move twice in a row) and Connect
    Four with k = 3 (the shared kernel, not Connect Four's own): the AEC path's games."""
    kwargs: dict[str, Any] = {"opponent": "mcts:iterations=15", "learner": "random"}
    words = VectorVsOpponent(3, env, **kwargs)
    aec = VectorVsOpponent(3, env, fast_path=False, **kwargs)
    assert data_equivalence(words.reset(seed=4)[0], aec.reset(seed=4)[0], exact=True)
    assert words._fast.on.all() and aec._fast is None
    rng = np.random.default_rng(4)
    for _ in range(12):
        actions = picks(words.action_masks(), rng)
        for a, b in zip(words.step(actions)[:4], aec.step(actions)[:4], strict=True):
            assert data_equivalence(a, b, exact=True)
        assert np.array_equal(words.action_masks(), aec.action_masks())


def test_a_restart_that_leaves_the_words_mid_step_plays_as_the_aec_path_does() -> None:
    """Every sub-env on the words, then new opponents from the next episodes on: sub-env 0's
    is still a compiled search, 1 and 2 are not. The step whose restart moves one of them off
    the words (the others staying) and every step after it give the data of the same vector
    env with every sub-env on its AEC env."""
    kwargs: dict[str, Any] = {"opponent": "mcts:iterations=15", "learner": "random"}
    words = VectorVsOpponent(3, "tic_tac_toe", **kwargs)
    aec = VectorVsOpponent(3, "tic_tac_toe", fast_path=False, **kwargs)
    assert data_equivalence(words.reset(seed=5)[0], aec.reset(seed=5)[0], exact=True)
    assert words._fast.on.all()
    switch = ["mcts:iterations=15", "random", "mcts:iterations=15,backend=python"]
    words.set_opponent(switch)
    aec.set_opponent(switch)
    rng = np.random.default_rng(5)
    seen = set()
    for _ in range(16):
        actions = picks(words.action_masks(), rng)
        for a, b in zip(words.step(actions)[:4], aec.step(actions)[:4], strict=True):
            assert data_equivalence(a, b, exact=True)
        assert np.array_equal(words.action_masks(), aec.action_masks())
        seen.add(tuple(words._fast.on.tolist()))
    assert (True, False, True) in seen or (True, True, False) in seen  # one left, one not yet
    assert tuple(words._fast.on.tolist()) == (True, False, False)
