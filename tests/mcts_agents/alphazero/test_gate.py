"""The gate (``mcts_agents.alphazero.gate``): candidate against best, seats alternating, a score
threshold.

The truths used: a network gated against an exact copy of itself plays each pair of games move
for move alike from both seats, so it scores exactly one half; swapping candidate and best
mirrors every game; and a player that plays tic-tac-toe perfectly never loses, so a candidate
gated against it can never reach a threshold above one half. The perfect player is
``tests.reference.PerfectEvaluator`` (exhaustive search, no MCTS code): with one simulation per
move the search plays the highest prior, its optimal move.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from mcts_agents import SearchConfig
from mcts_agents.alphazero import GateResult
from mcts_agents.alphazero.gate import against_mcts, gate
from mcts_agents.envs.games.connect_four import ConnectFour
from mcts_agents.envs.games.mnk import MNK
from mcts_agents.errors import InvalidOptionError
from mcts_agents.ratings import wilson_interval
from tests.reference import PerfectEvaluator

TTT = MNK(3, 3, 3)


class Uniform:
    """Uniform priors over the legal moves, value 0."""

    def evaluate_batch(self, observations: np.ndarray, legal_masks: np.ndarray) -> Any:
        return legal_masks.astype(np.float64), np.zeros(len(observations))


class Center:
    """Priors that prefer the board's middle cells; values from the stone balance (a fixed,
    deterministic, not-uniform evaluator, so the games vary with the opening draws)."""

    def evaluate_batch(self, observations: np.ndarray, legal_masks: np.ndarray) -> Any:
        flat = observations.reshape(len(observations), -1, 2).astype(np.float64)
        cells = flat.shape[1]
        weights = 1.0 + np.minimum(np.arange(cells), cells - 1 - np.arange(cells))
        values = np.tanh(flat[:, :, 0] @ weights / 10.0 - flat[:, :, 1] @ weights / 10.0)
        actions = legal_masks.shape[1]
        middle = 1.0 + np.minimum(np.arange(actions), actions - 1 - np.arange(actions))
        return legal_masks * middle, values


@pytest.fixture(scope="module")
def perfect() -> PerfectEvaluator:
    return PerfectEvaluator(TTT)


def test_a_copy_of_itself_scores_exactly_one_half() -> None:
    evaluator = Center()
    result = gate(TTT, evaluator, evaluator, games=8, simulations=20, seed=3)
    # each pair is one game played from both seats: the candidate's two results sum to 1
    pairs = np.reshape(result.outcomes, (-1, 2))
    assert (pairs.sum(axis=1) == 1.0).all()
    assert result.score == 0.5
    assert result.wins == result.losses
    assert result.lengths[0::2] == result.lengths[1::2]
    assert len(set(result.lengths)) > 1  # the opening draws vary the pairs
    assert not result.promoted  # 0.5 < 0.55, the default threshold
    again = gate(TTT, evaluator, Center(), games=8, simulations=20, seed=3, threshold=0.5)
    assert again.promoted and again.outcomes == result.outcomes


def test_swapping_candidate_and_best_mirrors_every_game() -> None:
    a, b = Center(), Uniform()
    ab = gate(TTT, a, b, games=6, simulations=10, seed=11)
    ba = gate(TTT, b, a, games=6, simulations=10, seed=11)
    # game 2k of ab (a first) is game 2k + 1 of ba (a first, b second), and the other way
    swapped = np.reshape(ba.outcomes, (-1, 2))[:, ::-1].ravel()
    assert np.array_equal(1.0 - swapped, ab.outcomes)
    assert ab.score + ba.score == 1.0


def test_the_gate_refuses_a_candidate_worse_than_a_perfect_player(
    perfect: PerfectEvaluator,
) -> None:
    result = gate(TTT, Uniform(), perfect, games=10, simulations=1, seed=0)
    assert result.wins == 0  # nobody beats perfect play
    assert result.losses > 0  # and the uniform player's naive moves lose
    assert result.score < 0.5 and not result.promoted
    assert result.interval == wilson_interval(result.draws / 2, 10)
    # even a threshold of one half refuses it: it would need every game drawn
    assert not gate(TTT, Uniform(), perfect, 10, 1, 0, threshold=0.5).promoted


def test_the_perfect_candidate_is_promoted_over_the_uniform_best(
    perfect: PerfectEvaluator,
) -> None:
    result = gate(TTT, perfect, Uniform(), games=10, simulations=1, seed=0)
    assert result.losses == 0
    assert result.wins > 0 and result.score >= 0.55 and result.promoted
    assert "promoted" in str(result)
    assert result.to_dict()["games"] == 10


def test_same_seed_same_games() -> None:
    one = gate(TTT, Center(), Uniform(), games=4, simulations=8, seed=5)
    two = gate(TTT, Center(), Uniform(), games=4, simulations=8, seed=5)
    assert one == two
    assert isinstance(one, GateResult)


def test_the_search_config_is_used_with_batches() -> None:
    config = SearchConfig(selection="puct", c=2.0)
    result = gate(ConnectFour(5, 4, 4), Center(), Center(), 2, 16, 0, config=config, batch_size=4)
    assert result.score == 0.5


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"games": 3}, "games must be an even int >= 2"),
        ({"games": 0}, "games must be an even int >= 2"),
        ({"simulations": 0}, "simulations must be an int >= 1"),
        ({"seed": "x"}, "seed must be an int"),
        ({"threshold": 1.5}, r"threshold must be a finite number in \[0, 1\] \(a score\)"),
        ({"candidate": object()}, "the gate's candidate must be a batch evaluator"),
        ({"config": SearchConfig()}, "selection='puct'"),
        ({"opening": (1, 2)}, "temperature_schedule must be"),
        ({"batch_size": 0}, "batch_size must be an int >= 1"),
    ],
)
def test_bad_options_are_named(options: dict[str, Any], message: str) -> None:
    arguments: dict[str, Any] = {
        "candidate": Uniform(),
        "best": Uniform(),
        "games": 2,
        "simulations": 2,
        "seed": 0,
    }
    arguments.update(options)
    with pytest.raises(InvalidOptionError, match=message):
        gate(TTT, **arguments)


def test_three_players_are_refused() -> None:
    with pytest.raises(InvalidOptionError, match="batch evaluator"):
        gate(MNK(4, 4, 3, num_players=3), Uniform(), Uniform(), 2, 2, 0)


class RecordingPool:
    """A pool whose ``map`` runs here and remembers how many tasks it was given."""

    def __init__(self) -> None:
        self.tasks = 0

    def map(self, function: Any, tasks: Any) -> list[Any]:
        tasks = list(tasks)
        self.tasks += len(tasks)
        return [function(task) for task in reversed(tasks)][::-1]  # any order of work


def test_a_pool_plays_the_pairs_and_the_same_games() -> None:
    here = gate(TTT, Center(), Uniform(), games=8, simulations=12, seed=5)
    pool = RecordingPool()
    pooled = gate(TTT, Center(), Uniform(), games=8, simulations=12, seed=5, pool=pool)
    assert pool.tasks == 4  # one task per pair of games
    assert pooled == here


def test_perfect_play_never_loses_to_fixed_mcts(perfect: PerfectEvaluator) -> None:
    result = against_mcts(TTT, perfect, simulations=1, iterations=30, games=10, seed=2)
    assert result.games == 10 and result.losses == 0
    pool = RecordingPool()
    again = against_mcts(TTT, perfect, simulations=1, iterations=30, games=10, seed=2, pool=pool)
    assert again == result and pool.tasks == 5
    weak = against_mcts(TTT, Uniform(), simulations=1, iterations=200, games=10, seed=2)
    assert weak.score < result.score  # one simulation of uniform priors: near-random play


@pytest.mark.parametrize("iterations", [0, 1.5, True])
def test_bad_opponent_iterations_are_named(iterations: Any) -> None:
    with pytest.raises(InvalidOptionError, match="iterations"):
        against_mcts(TTT, Uniform(), 4, iterations, games=2, seed=0)
