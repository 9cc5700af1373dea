"""Evaluator output is checked once per call (``mcts_agents.evaluators``): the audit found NaN
values failing with ``max() arg is an empty sequence``, wrong lengths with ``IndexError``,
``None`` values silently taken and values of 100 accepted."""

from __future__ import annotations

import math
from typing import Any

import pytest

from mcts_agents import MCTS, Budget, EvaluatorError, SearchConfig
from mcts_agents.envs.games.mnk import MNK

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
