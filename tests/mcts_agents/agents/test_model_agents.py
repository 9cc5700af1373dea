"""Agents over a trained model (``mcts_agents.agents.models``), checked without torch: batch
evaluators written here and ``tests.reference.PerfectEvaluator`` (a solved tic-tac-toe) stand
in for networks. Truths: the perfect policy never loses and two of them draw; moves are legal in
the env's own mask; draws follow ``prior ** (1 / t)``; a model of another game is refused."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from mcts_agents import RandomAgent, play_game, play_match
from mcts_agents.adapters.aec import legal_actions
from mcts_agents.agents.models import (
    DEFAULT_SIMULATIONS,
    ModelInfo,
    PriorAgent,
    PUCTAgent,
    open_model,
)
from mcts_agents.envs import connect_four_v0, pig_v0, tic_tac_toe_v0
from mcts_agents.envs.games.mnk import MNK
from mcts_agents.errors import CheckpointError, InvalidOptionError
from mcts_agents.search.evaluators import check_batch
from tests.reference import PerfectEvaluator

TTT = MNK(3, 3, 3, name="tic_tac_toe")


class Weights:
    """The same priors for every position (the mover's value 0); counts its calls."""

    def __init__(self, weights: list[float]) -> None:
        self.weights = np.asarray(weights, dtype=np.float64)
        self.calls = 0

    def evaluate_batch(self, observations: np.ndarray, legal_masks: np.ndarray) -> Any:
        self.calls += 1
        return np.tile(self.weights, (len(observations), 1)), np.zeros(len(observations))


@pytest.fixture(scope="module")
def perfect() -> PerfectEvaluator:
    return PerfectEvaluator(TTT)


def fresh_env(seed: int = 0) -> Any:
    env = tic_tac_toe_v0.env()
    env.reset(seed=seed)
    return env


# ------------------------------------------------------------------------------ PriorAgent
def test_the_prior_agent_plays_the_most_probable_legal_move() -> None:
    agent = PriorAgent(Weights([0.0, 0.1, 0.0, 0.0, 0.5, 0.0, 0.0, 0.0, 0.4]))
    env = fresh_env()
    assert agent.act(env) == 4
    env.step(4)
    assert agent.act(env) == 8  # 4 is taken: the best legal one
    env.step(8)
    assert agent.act(env) == 1
    env.step(1)
    # no prior left on the legal moves but equal ones: the lowest
    flat = PriorAgent(Weights([1.0] * 9))
    assert flat.act(env) == min(legal_actions(env)) == 0
    assert agent.last_result is None


def test_the_perfect_policy_never_loses_and_draws_itself(perfect: PerfectEvaluator) -> None:
    for seed in range(4):
        env = fresh_env(seed)
        players = {"player_0": PriorAgent(perfect), "player_1": PriorAgent(perfect)}
        totals = play_game(env, players, check_legal=True)
        assert not env.agents and all(v == 0.0 for v in totals.values())  # over, a draw
    result = play_match(tic_tac_toe_v0.env, [PriorAgent(perfect), RandomAgent()], games=10, seed=1)
    stats = {s.name: s for s in result.standings()}
    assert stats["PriorAgent(temperature=0.0, seed=None)"].losses == 0


def test_temperature_draws_in_proportion_to_prior_to_the_one_over_t() -> None:
    weights = [0.0] * 9
    weights[2], weights[6] = 0.75, 0.25  # with t = 0.5: 0.75^2 : 0.25^2 = 9 : 1
    agent = PriorAgent(Weights(weights), temperature=0.5, seed=7)
    env = fresh_env()
    draws = Counter(agent.act(env) for _ in range(2000))
    assert set(draws) == {2, 6}
    assert draws[2] / 2000 == pytest.approx(0.9, abs=0.03)
    again = PriorAgent(Weights(weights), temperature=0.5, seed=7)
    first = [again.act(env) for _ in range(50)]
    again.reset(seed=7)
    assert [again.act(env) for _ in range(50)] == first
    hot = PriorAgent(Weights(weights), temperature=1.0, seed=3)
    share = Counter(hot.act(env) for _ in range(2000))[2] / 2000
    assert share == pytest.approx(0.75, abs=0.03)


def test_the_priors_are_the_checked_priors_of_the_movers_observation(
    perfect: PerfectEvaluator,
) -> None:
    env = fresh_env()
    env.step(4)
    game, state = env.unwrapped.game, env.unwrapped.state
    agent = PriorAgent(perfect)
    priors = agent.priors(game, state)
    mask = np.zeros((1, 9), dtype=bool)
    mask[0, list(game.legal_actions(state))] = True
    observation = np.asarray(game.observation(state, 1))[None]
    expected = check_batch(perfect, perfect.evaluate_batch(observation, mask), mask)[0][0]
    assert np.array_equal(priors, expected) and priors[4] == 0.0


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"temperature": -1}, "temperature must be a finite number >= 0"),
        ({"temperature": float("nan")}, "temperature"),
        ({"temperature": "hot"}, "temperature"),
        ({"seed": 1.5}, "seed must be an int"),
        ({"model": "tic_tac_toe"}, "model must be a ModelInfo"),
    ],
)
def test_bad_prior_agent_options(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(InvalidOptionError, match=message):
        PriorAgent(Weights([1.0] * 9), **kwargs)


def test_agents_need_a_batch_evaluator() -> None:
    for make in (PriorAgent, PUCTAgent):
        with pytest.raises(InvalidOptionError, match="must be a batch evaluator"):
            make(lambda game, state: ((0.0, 0.0), None))


def test_a_game_with_chance_nodes_is_refused() -> None:
    env = pig_v0.env()
    env.reset(seed=0)
    with pytest.raises(InvalidOptionError, match="chance nodes"):
        PriorAgent(Weights([1.0, 1.0])).act(env)


# ------------------------------------------------------------------------------ PUCTAgent
def test_the_puct_agent_searches_with_the_evaluator(perfect: PerfectEvaluator) -> None:
    agent = PUCTAgent(perfect, simulations=24, batch_size=4, seed=2)
    assert agent.config.selection == "puct" and agent.config.evaluator is perfect
    assert agent.config.batch_size == 4 and agent.config.c == 1.5
    assert agent.budget.iterations == 24
    result = agent.search(fresh_env())
    assert result.iterations == 24 and result.best_action in range(9)
    assert PUCTAgent(perfect).budget.iterations == DEFAULT_SIMULATIONS
    timed = PUCTAgent(perfect, time_limit=0.05)
    assert timed.budget.iterations is None and timed.budget.time_limit == 0.05
    match = play_match(
        tic_tac_toe_v0.env, [PUCTAgent(perfect, simulations=16), RandomAgent()], games=6, seed=3
    )
    stats = {s.name: s for s in match.standings()}
    assert stats["PUCTAgent(simulations=16, seed=None)"].losses == 0


def test_the_puct_agent_refuses_what_it_sets_itself() -> None:
    for option in ("selection", "iterations"):
        with pytest.raises(InvalidOptionError, match=f"sets {option} itself"):
            PUCTAgent(Weights([1.0] * 9), **{option: 1})
    with pytest.raises(InvalidOptionError, match="batch_size"):
        PUCTAgent(Weights([1.0] * 9), batch_size=0)


# ------------------------------------------------------------------------------- ModelInfo
def test_model_info_refuses_another_game() -> None:
    ModelInfo("m", repr(TTT), (3, 3, 2), 9).check(TTT)  # its own game passes
    with pytest.raises(CheckpointError, match=r"'m' was trained for MNK.*not for ConnectFour"):
        ModelInfo("m", repr(TTT)).check(connect_four_v0.env().unwrapped.game)
    with pytest.raises(CheckpointError, match=r"takes observations of shape \(6, 7, 2\)"):
        ModelInfo("m", None, (6, 7, 2), 7).check(TTT)
    with pytest.raises(CheckpointError, match=r"has 7 actions; .* has 9"):
        ModelInfo("m", None, None, 7).check(TTT)


def test_agents_with_a_model_of_another_game_refuse_to_play() -> None:
    model = ModelInfo("c4.pt", "ConnectFour(width=7, height=6, k=4)", (6, 7, 2), 7)
    uniform = Weights([1.0] * 9)
    for agent in (PriorAgent(uniform, model=model), PUCTAgent(uniform, model=model)):
        with pytest.raises(CheckpointError, match=r"'c4.pt' was trained for ConnectFour"):
            agent.act(fresh_env())
    assert uniform.calls == 0


# ------------------------------------------------------------------------------ open_model
def test_open_model_names_a_missing_path_without_torch(tmp_path: Path) -> None:
    with pytest.raises(InvalidOptionError, match=r"'.*nowhere' does not exist; expected a"):
        open_model(tmp_path / "nowhere")
    with pytest.raises(InvalidOptionError, match=r"holds no best\.pt"):
        open_model(tmp_path)
    for bad in ("", "  ", 3, None):
        with pytest.raises(InvalidOptionError, match="model must be a path"):
            open_model(bad)  # type: ignore[arg-type]
