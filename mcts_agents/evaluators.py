"""Evaluators: what replaces random playouts (AlphaZero style), and the checks their output passes.

An evaluator is a callable ``(game, state) -> (values, priors)``: ``values`` holds one number per
player, each in [-1, 1] (the search's scale: the mover's return of a win is 1); ``priors`` is
``None`` (uniform), a mapping action -> prior, or a sequence indexed by action, non-negative.
``evaluate`` calls it and checks what comes back once per call, so that a bad evaluator is named
at once instead of failing deep in the search with an ``IndexError`` or a silent ``nan``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from mcts_agents.errors import EvaluatorError

__all__ = ["evaluate"]

TOLERANCE = 1e-9


def evaluate(
    evaluator: Any, game: Any, state: Any, legal: Sequence[int]
) -> tuple[tuple[float, ...], Mapping[int, float] | Sequence[float] | None]:
    """``evaluator(game, state)``, checked: per-player values in [-1, 1], usable priors.

    Raises:
        EvaluatorError: naming the evaluator and the bad field (not a pair, wrong length, not a
            number, NaN or infinite, out of [-1, 1], a missing or negative prior).
    """
    name = getattr(evaluator, "__qualname__", None) or repr(evaluator)
    output = evaluator(game, state)
    if not isinstance(output, (tuple, list)) or len(output) != 2:
        raise EvaluatorError(
            f"evaluator {name} returned {output!r}; expected a pair (values, priors)"
        )
    raw_values, priors = output
    players = game.num_players
    try:
        values = tuple(float(v) for v in raw_values)
    except (TypeError, ValueError):
        raise EvaluatorError(
            f"evaluator {name} returned values {raw_values!r}; expected {players} numbers"
        ) from None
    if len(values) != players:
        raise EvaluatorError(
            f"evaluator {name} returned {len(values)} values {values}; expected one per "
            f"player ({players})"
        )
    for player, value in enumerate(values):
        if not math.isfinite(value) or abs(value) > 1.0 + TOLERANCE:
            raise EvaluatorError(
                f"evaluator {name} returned value {value!r} for player {player}; expected a "
                "finite number in [-1, 1] (the search's scale)"
            )
    if priors is not None:
        _check_priors(name, priors, legal)
    return values, priors


def _check_priors(name: str, priors: Any, legal: Sequence[int]) -> None:
    for action in legal:
        try:
            prior = float(priors.get(action, 0.0) if hasattr(priors, "get") else priors[action])
        except (IndexError, KeyError, TypeError, ValueError):
            raise EvaluatorError(
                f"evaluator {name} returned priors {priors!r} with no number for legal action "
                f"{action}; expected a mapping action -> prior or a sequence indexed by action"
            ) from None
        if not math.isfinite(prior) or prior < 0.0:
            raise EvaluatorError(
                f"evaluator {name} returned prior {prior!r} for action {action}; expected a "
                "finite number >= 0"
            )
