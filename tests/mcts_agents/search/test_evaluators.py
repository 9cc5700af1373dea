"""Evaluator output is checked once per call (``mcts_agents.search.evaluators``): the audit found
NaN values failing with ``max() arg is an empty sequence``, wrong lengths with ``IndexError``,
``None`` values silently taken and values of 100 accepted."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

from mcts_agents import Budget, SearchConfig
from mcts_agents.envs.games.mnk import MNK
from mcts_agents.errors import EvaluatorError
from mcts_agents.search import MCTS
from mcts_agents.search.evaluators import PositionEvaluator, check_batch

GAME = MNK(3, 3, 3)


def search_with(evaluator: Any) -> Any:
    config = SearchConfig(evaluator=evaluator, selection="puct")
    return MCTS(Budget(iterations=50), config, seed=0).search(GAME, GAME.initial_state())


def returns(values: Any, priors: Any = None) -> Any:
    def evaluator(game: Any, state: Any) -> Any:
        return values, priors

    return evaluator


@pytest.mark.parametrize(
    ("values", "priors", "message"),
    [
        ([math.nan, 0.0], None, r"value nan for player 0.*finite number in \[-1, 1\]"),
        ([0.0], None, r"returned 1 values.*one per player \(2\)"),
        (None, None, r"values None; expected 2 numbers"),
        ([100.0, -100.0], None, r"value 100.0 for player 0"),
        ([0.0, 0.0], [0.5, 0.5], r"no number for legal action 2"),
        ([0.0, 0.0], {0: -1.0}, r"prior -1.0 for action 0.*>= 0"),
        ([0.0, 0.0], [math.inf] * 9, r"prior inf for action 0"),
    ],
    ids=[
        "nan-value",
        "wrong-length",
        "none-values",
        "out-of-range",
        "short-priors",
        "negative-prior",
        "infinite-prior",
    ],
)
def test_bad_evaluator_output_names_the_evaluator_and_the_field(
    values: Any, priors: Any, message: str
) -> None:
    with pytest.raises(EvaluatorError, match=r"evaluator .*evaluator.*" + message):
        search_with(returns(values, priors))


def test_an_evaluator_that_returns_no_pair_is_named() -> None:
    def lonely(game: Any, state: Any) -> Any:
        return 0.5

    with pytest.raises(EvaluatorError, match=r"evaluator .*lonely returned 0.5; expected a pair"):
        search_with(lonely)


def test_good_output_is_taken_as_given() -> None:
    """Priors as a sequence or mapping; the search follows them (the centre first)."""
    priors = [0.0] * 9
    priors[4] = 1.0
    result = search_with(returns((0.0, 0.0), priors))
    assert result.children[0].action == 4 and result.children[0].prior == pytest.approx(1.0)
    assert issubclass(EvaluatorError, ValueError)


# ------------------------------------------------------------------ batch evaluators
class Fixed:
    """A batch evaluator that returns what it is given, whatever the batch."""

    def __init__(self, priors: Any, values: Any) -> None:
        self.priors, self.values = priors, values

    def evaluate_batch(self, observations: np.ndarray, legal_masks: np.ndarray) -> Any:
        priors = self.priors(len(observations)) if callable(self.priors) else self.priors
        values = self.values(len(observations)) if callable(self.values) else self.values
        return priors, values


def uniform(batch: int) -> np.ndarray:
    return np.ones((batch, 9))


def zeros(batch: int) -> np.ndarray:
    return np.zeros(batch)


def with_entry(make: Any, index: Any, value: float) -> Any:
    def build(batch: int) -> np.ndarray:
        array = make(batch)
        array[index] = value
        return array

    return build


CENTRE_TAKEN = GAME.apply(GAME.initial_state(), [4])  # legal: every cell but 4


@pytest.mark.parametrize(
    ("priors", "values", "message"),
    [
        (np.ones((1, 8)), zeros, r"priors of shape \(1, 8\); expected \(\d, 9\)"),
        (uniform, np.zeros((1, 2)), r"values of shape \(1, 2\); expected \(\d,\) \(batch,\)"),
        (uniform, lambda b: np.zeros(b + 1), r"values of shape \(\d,\); expected \(\d,\)"),
        (uniform, with_entry(zeros, 0, math.nan), r"values\[0\] = nan; expected a finite"),
        (uniform, with_entry(zeros, 0, 1.5), r"values\[0\] = 1.5; expected .* in \[-1, 1\]"),
        (uniform, with_entry(zeros, 0, -math.inf), r"values\[0\] = -inf"),
        (with_entry(uniform, (0, 3), -0.5), zeros, r"priors\[0, 3\] = -0.5; expected .*>= 0"),
        (with_entry(uniform, (0, 3), math.nan), zeros, r"priors\[0, 3\] = nan"),
        (
            lambda b: np.eye(9)[[4] * b],
            zeros,
            r"priors\[0\] with no mass on the legal actions \[0, 1, 2, 3, 5, 6, 7, 8\]",
        ),
        (lambda b: np.zeros((b, 9)), zeros, r"priors\[0\] with no mass"),
        ([["a"] * 9], zeros, r"priors \[\['a'.*do not convert to a float64 array"),
    ],
    ids=[
        "priors-shape",
        "values-2d",
        "values-length",
        "nan-value",
        "value-above-1",
        "infinite-value",
        "negative-prior",
        "nan-prior",
        "mass-only-on-illegal",
        "all-zero-priors",
        "not-numbers",
    ],
)
@pytest.mark.parametrize("batch_size", [1, 4])
def test_bad_batch_output_names_the_evaluator_the_field_and_what_was_expected(
    priors: Any, values: Any, message: str, batch_size: int
) -> None:
    config = SearchConfig(evaluator=Fixed(priors, values), selection="puct", batch_size=batch_size)
    search = MCTS(Budget(iterations=20), config, seed=0)
    with pytest.raises(EvaluatorError, match=r"^batch evaluator Fixed returned " + message):
        search.search(GAME, CENTRE_TAKEN)


def test_a_batch_output_that_is_not_a_pair_is_named() -> None:
    class Single:
        def evaluate_batch(self, observations: np.ndarray, legal_masks: np.ndarray) -> Any:
            return np.zeros(len(observations))

    with pytest.raises(EvaluatorError, match=r"Single returned a ndarray; expected a pair"):
        PositionEvaluator(Single())(GAME, CENTRE_TAKEN)


def test_batch_output_illegal_mass_is_dropped_and_the_rest_renormalised() -> None:
    masks = np.array([[True, False, True], [False, True, True]])
    raw_priors = [[1.0, 5.0, 3.0], [2.0, 1.0, 1.0]]
    priors, values = check_batch(Fixed(None, None), (raw_priors, [[0.5], [-1.0]]), masks)
    assert priors.tolist() == [[0.25, 0.0, 0.75], [0.0, 0.5, 0.5]]
    assert values.tolist() == [0.5, -1.0]  # a [B, 1] value head is taken as [B]
    _, clipped = check_batch(Fixed(None, None), (raw_priors, [1.0 + 1e-12, 0.0]), masks)
    assert clipped.tolist() == [1.0, 0.0]  # within the tolerance of the per-position check


def test_position_evaluator_gives_the_mover_v_and_the_other_player_minus_v() -> None:
    """The batch value is the mover's: player 1 to move here, so values are (-v, v)."""
    seen: list[np.ndarray] = []

    class Reads:
        def evaluate_batch(self, observations: np.ndarray, legal_masks: np.ndarray) -> Any:
            seen.append(observations)
            priors = np.arange(9.0)[None]
            return priors, np.array([0.25])

    values, priors = PositionEvaluator(Reads())(GAME, CENTRE_TAKEN)
    assert values == (-0.25, 0.25)
    legal = [0, 1, 2, 3, 5, 6, 7, 8]
    assert priors[4] == 0.0 and priors[legal].tolist() == pytest.approx([a / 32 for a in legal])
    # the observation is the mover's (player 1's) view: its own plane empty, X in the centre
    assert seen[0].shape == (1, 3, 3, 2)
    assert seen[0][0, ..., 0].sum() == 0 and seen[0][0, 1, 1, 1] == 1
