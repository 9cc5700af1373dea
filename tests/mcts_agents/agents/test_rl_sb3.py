"""``mcts_agents.agents.sb3.SB3Evaluator``: a MaskablePPO trained briefly on the RL wrapper for
tic-tac-toe, as the search's batch evaluator. Checked from outside: ``check_batch`` accepts its
output, its priors are the model's own masked distribution (the argmax is ``predict``'s
deterministic action), zero on illegal moves; the wrapper's observations are the rules core's;
a search with it, and the ``az:``/``policy:`` specs over its ``.zip``, play legal moves."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest

sb3_contrib = pytest.importorskip("sb3_contrib")
torch = pytest.importorskip("torch")

from mcts_agents import RandomAgent, SingleAgentVsOpponent, make_agent, play_game  # noqa: E402
from mcts_agents.agents.models import PriorAgent, PUCTAgent  # noqa: E402
from mcts_agents.agents.sb3 import SB3Evaluator  # noqa: E402
from mcts_agents.envs import tic_tac_toe_v0  # noqa: E402
from mcts_agents.errors import InvalidOptionError  # noqa: E402
from mcts_agents.search.evaluators import check_batch  # noqa: E402

torch.set_num_threads(1)


def wrapper(seed: int = 0) -> SingleAgentVsOpponent:
    return SingleAgentVsOpponent(tic_tac_toe_v0.env(), RandomAgent(), learner="random", seed=seed)


@pytest.fixture(scope="module")
def model() -> Any:
    """A MaskablePPO trained for a few hundred steps (a second or two)."""
    ppo = sb3_contrib.MaskablePPO(
        "MlpPolicy", wrapper(), n_steps=128, batch_size=64, n_epochs=2, seed=0, device="cpu"
    )
    return ppo.learn(total_timesteps=256)


def positions(count: int, seed: int) -> tuple[Any, list[Any]]:
    """Random live tic-tac-toe positions of the rules core."""
    game = tic_tac_toe_v0.env().unwrapped.game
    rng = random.Random(seed)
    states = []
    while len(states) < count:
        state = game.initial_state()
        for _ in range(rng.randrange(8)):
            if game.is_terminal(state):
                break
            state = game.next_state(state, rng.choice(list(game.legal_actions(state))))
        if not game.is_terminal(state):
            states.append(state)
    return game, states


def batch(game: Any, states: list[Any]) -> tuple[np.ndarray, np.ndarray]:
    observations = np.stack([game.observation(s, game.to_play(s)) for s in states])
    masks = np.zeros((len(states), game.num_actions), dtype=bool)
    for row, state in enumerate(states):
        masks[row, list(game.legal_actions(state))] = True
    return observations, masks


def test_the_evaluator_passes_check_batch_with_no_prior_on_illegal_moves(model: Any) -> None:
    evaluator = SB3Evaluator(model)
    assert evaluator.observation_shape == (3, 3, 2) and evaluator.num_actions == 9
    game, states = positions(40, seed=1)
    observations, masks = batch(game, states)
    output = evaluator.evaluate_batch(observations, masks)
    priors, values = check_batch(evaluator, output, masks)
    assert np.all(output[0][~masks] == 0.0)
    assert np.allclose(output[0].sum(axis=1), 1.0)
    assert np.all(np.abs(values) <= 1.0)
    for row in range(len(states)):
        action, _ = model.predict(observations[row], action_masks=masks[row], deterministic=True)
        assert int(np.argmax(priors[row])) == int(action)


def test_values_are_the_value_head_scaled_and_clipped(model: Any) -> None:
    game, states = positions(20, seed=2)
    observations, masks = batch(game, states)
    with torch.no_grad():
        tensor, _ = model.policy.obs_to_tensor(observations)
        raw = model.policy.predict_values(tensor).numpy().reshape(-1).astype(np.float64)
    _, values = SB3Evaluator(model).evaluate_batch(observations, masks)
    assert np.allclose(values, np.clip(raw, -1, 1))
    _, scaled = SB3Evaluator(model, value_scale=1e-3).evaluate_batch(observations, masks)
    assert np.allclose(scaled, np.clip(raw * 1e3, -1, 1)) and np.any(np.abs(scaled) == 1.0)


def test_the_wrappers_observations_are_the_rules_cores() -> None:
    env = wrapper(seed=4)
    observation, _ = env.reset()
    for _ in range(3):
        core = env.aec_env.unwrapped
        mover = core.game.to_play(core.state)
        assert np.array_equal(observation, core.game.observation(core.state, mover))
        legal = np.flatnonzero(env.action_masks())
        observation, _, terminated, _, _ = env.step(int(legal[0]))
        if terminated:
            break


def test_a_search_with_the_policy_plays_legal_moves(model: Any, tmp_path: Path) -> None:
    evaluator = SB3Evaluator(model)
    agent = PUCTAgent(evaluator, simulations=32, batch_size=4, seed=0)
    env = tic_tac_toe_v0.env()
    env.reset(seed=0)
    result = agent.search(env)
    assert result.iterations == 32 and result.best_action in range(9)
    for seed in range(2):
        env.reset(seed=seed)
        players = {"player_0": RandomAgent(seed), "player_1": agent}
        play_game(env, players, check_legal=True)
        assert not env.agents
    model.save(tmp_path / "ppo.zip")
    searcher = make_agent(f"az:model={tmp_path / 'ppo.zip'},simulations=16,device=cpu", seed=1)
    policy = make_agent(f"policy:model={tmp_path / 'ppo.zip'}")
    assert isinstance(searcher, PUCTAgent) and isinstance(policy, PriorAgent)
    env.reset(seed=3)
    play_game(env, {"player_0": searcher, "player_1": policy}, check_legal=True)
    assert not env.agents


def test_a_policy_without_masks_is_masked_here() -> None:
    from stable_baselines3 import PPO

    evaluator = SB3Evaluator(PPO("MlpPolicy", wrapper(), n_steps=64, seed=0, device="cpu"))
    assert not evaluator.masked
    game, states = positions(10, seed=3)
    observations, masks = batch(game, states)
    priors, _ = evaluator.evaluate_batch(observations, masks)
    assert np.all(priors[~masks] == 0.0) and np.allclose(priors.sum(axis=1), 1.0)


def test_bad_models_and_inputs_are_named(model: Any) -> None:
    with pytest.raises(TypeError, match="needs a Stable-Baselines3 actor-critic model"):
        SB3Evaluator(object())
    for scale in (0, -1.0, float("inf"), True):
        with pytest.raises(InvalidOptionError, match="value_scale must be a finite number > 0"):
            SB3Evaluator(model, value_scale=scale)
    evaluator = SB3Evaluator(model)
    with pytest.raises(InvalidOptionError, match=r"this policy takes \[B, 3, 3, 2\]"):
        evaluator.evaluate_batch(np.zeros((1, 6, 7, 2)), np.ones((1, 9), dtype=bool))
    with pytest.raises(InvalidOptionError, match=r"expected \(1, 9\)"):
        evaluator.evaluate_batch(np.zeros((1, 3, 3, 2)), np.ones((1, 7), dtype=bool))


@pytest.mark.parametrize("masked", [True, False])
def test_the_probabilities_are_get_distributions_bit_for_bit(model: Any, masked: bool) -> None:
    from stable_baselines3 import PPO

    if not masked:
        model = PPO("MlpPolicy", wrapper(), n_steps=64, seed=0, device="cpu").learn(64)
    evaluator = SB3Evaluator(model)
    game, states = positions(30, seed=5)
    observations, masks = batch(game, states)
    with torch.no_grad():
        tensor, _ = model.policy.obs_to_tensor(observations)
        extra = {"action_masks": masks} if masked else {}
        probs = model.policy.get_distribution(tensor, **extra).distribution.probs.numpy()
    expected = np.where(masks, probs.astype(np.float64), 0.0)
    expected /= expected.sum(axis=1, keepdims=True)
    priors, _ = evaluator.evaluate_batch(observations, masks)
    assert np.array_equal(priors, expected)  # the same numbers, not close ones
    assert np.array_equal(evaluator.evaluate_priors(observations, masks), expected)


def test_the_priors_alone_run_no_value_head(model: Any, monkeypatch: Any) -> None:
    evaluator = SB3Evaluator(model)
    game, states = positions(5, seed=6)
    observations, masks = batch(game, states)
    expected = evaluator.evaluate_batch(observations, masks)[0]

    def refuse(*args: Any) -> None:
        raise AssertionError("the value head ran")

    monkeypatch.setattr(model.policy, "predict_values", refuse)
    assert np.array_equal(evaluator.evaluate_priors(observations, masks), expected)
    agent = PriorAgent(evaluator)  # plays SB3's deterministic action, without the value head
    for row in range(len(states)):
        action, _ = model.predict(observations[row], action_masks=masks[row], deterministic=True)
        assert agent.choose(agent.priors(game, states[row])) == int(action)
    with pytest.raises(InvalidOptionError, match=r"expected \(1, 9\)"):
        evaluator.evaluate_priors(np.zeros((1, 3, 3, 2)), np.ones((1, 7), dtype=bool))
