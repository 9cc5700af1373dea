"""``mcts_agents.rl.sb3_vec``: the native vector env as a Stable-Baselines3 ``VecEnv``."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported

from mcts_agents.errors import InvalidOptionError
from mcts_agents.rl.sb3_vec import SB3VecEnv, sb3_vec_env
from mcts_agents.rl.vector import VectorVsOpponent


def test_steps_are_the_same_step_vector_envs_with_terminal_observations() -> None:
    """SB3's view (dones, terminal_observation) of the steps the vector env takes."""
    kwargs = {"opponent": "mcts:iterations=10", "learner": "random"}
    env = sb3_vec_env(3, "tic_tac_toe", **kwargs)
    reference = VectorVsOpponent(3, "tic_tac_toe", autoreset_mode="SameStep", **kwargs)
    env.seed(8)
    observations = env.reset()
    expected, _ = reference.reset(seed=8)
    assert np.array_equal(observations, expected)
    assert is_masking_supported(env)
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(20):
        masks = get_action_masks(env)
        assert masks.shape == (3, 9) and np.array_equal(masks, reference.action_masks())
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        env.step_async(actions)
        observations, rewards, dones, infos = env.step_wait()
        want = reference.step(actions)
        assert np.array_equal(observations, want[0])
        assert np.array_equal(rewards, want[1].astype(np.float32))
        assert np.array_equal(dones, want[2] | want[3])
        for i in np.flatnonzero(dones):
            assert np.array_equal(infos[i]["terminal_observation"], want[4]["final_obs"][i])
            ended += 1
        assert all("terminal_observation" not in infos[i] for i in np.flatnonzero(~dones))
    assert ended > 0


def test_env_method_reaches_the_sub_envs() -> None:
    env = sb3_vec_env(2, "tic_tac_toe", opponent="random")
    env.reset()
    env.env_method("set_opponent", "mcts:iterations=4", indices=[1])
    env.reset()
    assert env.get_attr("opponent_spec") == ["random", "mcts:iterations=4"]
    assert env.env_is_wrapped(object) == [False, False]


def test_next_step_vector_env_is_refused_naming_the_mode() -> None:
    with pytest.raises(InvalidOptionError, match="SAME_STEP"):
        SB3VecEnv(VectorVsOpponent(2, "tic_tac_toe", opponent="random"))


def test_what_gymnasium_make_vec_builds_plugs_into_maskable_ppo() -> None:
    """``gymnasium.make_vec`` of our id, in SB3's autoreset mode, through ``SB3VecEnv``; in
    gymnasium's default mode the refusal gives that recipe; anything else is refused by type."""
    import gymnasium

    from mcts_agents.errors import OptionTypeError
    from mcts_agents.rl import gym_id

    made = gymnasium.make_vec(gym_id("tic_tac_toe"), num_envs=2, opponent="random", seed=0)
    with pytest.raises(InvalidOptionError, match=r'make_vec.*autoreset_mode="SameStep"'):
        SB3VecEnv(made)
    for wrong in (made.envs[0], "tic_tac_toe"):
        with pytest.raises(OptionTypeError, match=r"VectorVsOpponent.*make_vec"):
            SB3VecEnv(wrong)  # type: ignore[arg-type]
    made = gymnasium.make_vec(
        gym_id("tic_tac_toe"), num_envs=2, autoreset_mode="SameStep", opponent="random", seed=0
    )
    env = SB3VecEnv(made)
    model = MaskablePPO("MlpPolicy", env, n_steps=16, batch_size=32, n_epochs=1, seed=0)
    model.learn(total_timesteps=32)
    assert model.num_timesteps >= 32


def test_maskable_ppo_trains_on_it() -> None:
    env = sb3_vec_env(4, "tic_tac_toe", opponent="mcts:iterations=3", learner="random", seed=0)
    model = MaskablePPO("MlpPolicy", env, n_steps=32, batch_size=64, n_epochs=1, seed=0)
    model.learn(total_timesteps=256)
    assert model.num_timesteps >= 256
    observations = env.reset()
    actions, _ = model.predict(observations, action_masks=get_action_masks(env))
    masks = get_action_masks(env)
    assert all(masks[i, a] for i, a in enumerate(actions))  # masked: only legal moves
