"""Gumbel AlphaZero's self-play (``selection="gumbel"``): the policy targets are the search's
improved policy and the moves its own, checked by replaying the game with the same search."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from mcts_agents import Budget, SearchConfig
from mcts_agents.alphazero import play_selfplay_game
from mcts_agents.alphazero.gate import gate
from mcts_agents.alphazero.targets import policy_target, select_move
from mcts_agents.envs.games.connect_four import ConnectFour
from mcts_agents.envs.games.mnk import MNK
from mcts_agents.errors import InvalidOptionError
from mcts_agents.search import MCTS
from mcts_agents.seeding import derive_seed
from tests.mcts_agents.alphazero.test_selfplay import check_against_the_core
from tests.mcts_agents.search.test_batched import Heuristic

TTT = MNK(3, 3, 3)
C4 = ConnectFour()


def gumbel(evaluator: Any) -> SearchConfig:
    return SearchConfig(selection="gumbel", batch_size=4, evaluator=evaluator)


def replayed_results(game: Any, evaluator: Any, actions: np.ndarray, seed: int, n: int) -> list:
    """The searches of the record's positions by the search self-play uses (same seed, same
    tree reuse), one after the other."""
    config = SearchConfig(selection="gumbel", batch_size=4, evaluator=evaluator, backend="python")
    search = MCTS(Budget(iterations=n), config, derive_seed(seed, 1))
    state, results = game.initial_state(), []
    for action in actions:
        results.append(search.search(game, state))
        state = game.next_state(state, int(action))
    return results


@pytest.mark.parametrize(("game", "seed"), [(TTT, 0), (TTT, 1), (C4, 2)])
def test_targets_are_the_improved_policy_and_moves_the_searchs(game: Any, seed: int) -> None:
    evaluator = Heuristic(game.observation_shape)
    record = play_selfplay_game(game, evaluator, gumbel(evaluator), 8, (4, 1.0, 0.0), seed)
    check_against_the_core(game, record)
    results = replayed_results(game, evaluator, record.actions, seed, 8)
    for t, result in enumerate(results):
        assert result.improved_policy
        expected = np.zeros(game.num_actions)
        for action, p in result.improved_policy:
            expected[action] = p
        assert np.allclose(record.policies[t], expected.astype(np.float32))
        assert record.actions[t] == result.best_action  # no temperature: the search's draw
        assert record.iterations[t] == result.iterations <= 8  # 0: a proven root
    # an improved policy, not visits: 8 simulations leave a tic-tac-toe move unvisited,
    # yet every legal move keeps some probability
    if game is TTT:
        assert any(c.visits == 0 for c in results[0].children)
    assert (record.policies[0][record.legal_masks[0]] > 0).all()


def test_same_seed_same_record() -> None:
    evaluator = Heuristic(TTT.observation_shape)
    one, two = (
        play_selfplay_game(TTT, evaluator, gumbel(evaluator), 8, (4, 1.0, 0.0), 5) for _ in "ab"
    )
    assert np.array_equal(one.actions, two.actions)
    assert np.array_equal(one.policies, two.policies)


def test_root_noise_is_refused_with_gumbel() -> None:
    with pytest.raises(InvalidOptionError, match="takes no root_noise"):
        SearchConfig(selection="gumbel", root_noise=(0.3, 0.25))


def test_policy_target_and_select_move_of_a_gumbel_result() -> None:
    evaluator = Heuristic(TTT.observation_shape)
    config = SearchConfig(selection="gumbel", evaluator=evaluator)
    result = MCTS(Budget(iterations=6), config, 0).search(TTT, TTT.initial_state())
    target = policy_target(result, 9)
    assert target.sum() == pytest.approx(1.0)
    assert target.tolist() == pytest.approx([dict(result.improved_policy)[a] for a in range(9)])
    assert select_move(result, 0.0, np.random.default_rng(0)) == result.best_action
    rng = np.random.default_rng(1)
    drawn = {select_move(result, 1.0, rng) for _ in range(300)}
    assert len(drawn) > 1  # a draw from the improved policy, unvisited moves included
    assert drawn <= set(range(9))


def test_the_gate_plays_gumbel_search() -> None:
    evaluator = Heuristic(TTT.observation_shape)
    result = gate(TTT, evaluator, evaluator, 2, 8, 0, config=SearchConfig(selection="gumbel"))
    assert result.games == 2
