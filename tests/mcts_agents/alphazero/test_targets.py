"""Policy targets and move choice from root visits (``mcts_agents.alphazero.targets``)."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest

from mcts_agents import Budget, SearchConfig, SearchResult
from mcts_agents.alphazero import select_move, visit_distribution
from mcts_agents.envs.games.mnk import MNK
from mcts_agents.errors import InvalidOptionError
from mcts_agents.search import MCTS, ChildStats

TTT = MNK(3, 3, 3)


def result_of(*children: tuple[int, int, float] | tuple[int, int, float, Any]) -> SearchResult:
    """A hand-built result: ``(action, visits, value[, proven])`` per root action."""
    stats = tuple(
        ChildStats(c[0], c[1], c[2], None, c[3] if len(c) > 3 else None)  # type: ignore[misc]
        for c in children
    )
    return SearchResult(
        best_action=stats[0].action,
        iterations=sum(c.visits for c in stats),
        elapsed=0.0,
        nodes=1,
        reused_nodes=0,
        pruned_nodes=0,
        children=stats,
        principal_variation=(stats[0].action,),
        root_value=0.0,
    )


def test_the_policy_target_is_visits_over_total_and_zero_elsewhere() -> None:
    state = TTT.apply(TTT.initial_state(), [4, 0, 8])  # three cells taken
    config = SearchConfig(selection="puct", solver=False)  # a proof would stop the search early
    result = MCTS(Budget(iterations=300), config, 1).search(TTT, state)
    target = visit_distribution(result, TTT.num_actions)
    assert target.shape == (9,)
    assert target.sum() == pytest.approx(1.0)
    total = sum(c.visits for c in result.children)
    assert total == 300
    for action in range(9):
        visits = result.child(action).visits if action in TTT.legal_actions(state) else 0
        assert target[action] == pytest.approx(visits / total)
    assert target[[0, 4, 8]].tolist() == [0.0, 0.0, 0.0]


def test_a_hand_built_result_gives_its_distribution() -> None:
    target = visit_distribution(result_of((5, 7, 0.1), (2, 3, 0.0), (0, 0, 0.0)), 6)
    assert target.tolist() == pytest.approx([0.0, 0.0, 0.3, 0.0, 0.0, 0.7])


def test_no_visits_give_the_uniform_distribution_over_root_actions() -> None:
    target = visit_distribution(result_of((1, 0, 0.0), (3, 0, 0.0)), 4)
    assert target.tolist() == [0.0, 0.5, 0.0, 0.5]


@pytest.mark.parametrize("num_actions", [0, -1, 2.5, True, None])
def test_bad_num_actions_are_refused(num_actions: Any) -> None:
    with pytest.raises(InvalidOptionError, match="num_actions"):
        visit_distribution(result_of((0, 1, 0.0)), num_actions)


def test_an_action_outside_the_space_is_refused() -> None:
    with pytest.raises(InvalidOptionError, match=r"\[7\].*range\(5\)"):
        visit_distribution(result_of((7, 1, 0.0)), 5)


# ----------------------------------------------------------------------------- move choice
def test_temperature_zero_plays_the_most_visited_move() -> None:
    result = result_of((3, 40, -0.2), (1, 25, 0.9), (6, 35, 0.5))
    assert select_move(result, 0, np.random.default_rng(0)) == 3
    assert select_move(result, 0.0, None) == 3  # no random number drawn


def test_temperature_zero_breaks_ties_by_value_then_action_and_plays_proven_wins() -> None:
    assert select_move(result_of((4, 10, 0.1), (2, 10, 0.3)), 0, None) == 2
    assert select_move(result_of((4, 10, 0.3), (2, 10, 0.3)), 0, None) == 4  # first listed
    assert select_move(result_of((4, 10, 0.3), (2, 3, 1.0, "win")), 0, None) == 2
    assert select_move(result_of((4, 10, -1.0, "loss"), (2, 3, 0.0)), 0, None) == 2


def frequencies(result: SearchResult, temperature: float, draws: int, rng: Any) -> np.ndarray:
    counts = np.zeros(max(c.action for c in result.children) + 1)
    for _ in range(draws):
        counts[select_move(result, temperature, rng)] += 1
    return counts / draws


def test_temperature_one_draws_in_proportion_to_visits() -> None:
    result = result_of((0, 60, 0.0), (1, 30, 0.0), (2, 10, 0.0), (3, 0, 0.0))
    freq = frequencies(result, 1.0, 8000, np.random.default_rng(3))
    # binomial standard deviation at 8000 draws is under 0.006
    assert freq.tolist() == pytest.approx([0.6, 0.3, 0.1, 0.0], abs=0.025)


def test_a_large_temperature_approaches_uniform_over_visited_moves() -> None:
    result = result_of((0, 90, 0.0), (1, 9, 0.0), (2, 1, 0.0), (3, 0, 0.0))
    freq = frequencies(result, 1e6, 9000, random.Random(4))  # random.Random works too
    assert freq[3] == 0.0  # never an unvisited move
    assert freq[:3].tolist() == pytest.approx([1 / 3] * 3, abs=0.03)


def test_a_tiny_temperature_plays_the_most_visited_move() -> None:
    result = result_of((0, 5, 0.0), (1, 6, 0.0), (2, 4, 0.0))
    freq = frequencies(result, 1e-300, 200, np.random.default_rng(5))
    assert freq.tolist() == [0.0, 1.0, 0.0]


def test_same_generator_state_same_moves() -> None:
    result = result_of((0, 5, 0.0), (1, 6, 0.0), (2, 4, 0.0))
    a = [select_move(result, 1.0, rng) for rng in [np.random.default_rng(8)] for _ in range(50)]
    b = [select_move(result, 1.0, rng) for rng in [np.random.default_rng(8)] for _ in range(50)]
    assert a == b


@pytest.mark.parametrize("temperature", [-0.5, float("nan"), float("inf"), "1", True, None])
def test_bad_temperatures_are_refused(temperature: Any) -> None:
    with pytest.raises(InvalidOptionError, match="temperature must be a finite number >= 0"):
        select_move(result_of((0, 1, 0.0)), temperature, np.random.default_rng(0))
