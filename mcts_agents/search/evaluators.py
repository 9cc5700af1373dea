"""Evaluators: what replaces random playouts (AlphaZero style), and the checks their output passes.

Two kinds are accepted wherever an evaluator is (``SearchConfig.evaluator``):

- a **position evaluator**, a callable ``(game, state) -> (values, priors)``: ``values`` holds one
  number per player, each in [-1, 1] (the search's scale: the mover's return of a win is 1);
  ``priors`` is ``None`` (uniform), a mapping action -> prior, or a sequence indexed by action,
  non-negative. ``evaluate`` calls it and checks what comes back.
- a **batch evaluator** (``BatchEvaluator``), an object with ``evaluate_batch(observations,
  legal_masks) -> (priors, values)`` over numpy arrays, so that any framework can serve a
  network on many positions at once; the Python search then evaluates its leaves in batches
  (``SearchConfig.batch_size``). ``check_batch`` checks its output; ``PositionEvaluator`` turns it
  into a position evaluator (one position per call).

Output is checked at every call, so that a bad evaluator is named at once instead of failing
deep in the search with an ``IndexError`` or a silent ``nan``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np

from mcts_agents.errors import EvaluatorError, InvalidOptionError

__all__ = [
    "BatchEvaluator",
    "PositionEvaluator",
    "check_batch",
    "check_batch_game",
    "check_batch_inputs",
    "evaluate",
    "evaluator_name",
    "is_batch_evaluator",
    "player_values",
]

TOLERANCE = 1e-9


@runtime_checkable
class BatchEvaluator(Protocol):
    """Priors and values of a batch of positions, from numpy arrays only.

    ``evaluate_batch(observations, legal_masks)`` gets

    - ``observations``: ``[B, *observation_shape]``, each position as the game's
      ``observation(state, player)`` from the view of the player to move (int8 planes for this
      library's games, own pieces first);
    - ``legal_masks``: ``[B, num_actions]`` bools, True where the action is legal;

    and returns ``(priors, values)``:

    - ``priors``: ``[B, num_actions]`` finite numbers >= 0 (probabilities; they need not sum to
      1). The mass on illegal actions is ignored and the legal ones renormalised to sum to 1,
      so a network's unmasked softmax will do; the legal actions of each position must carry
      some mass.
    - ``values``: ``[B]`` (or ``[B, 1]``) finite numbers in [-1, 1], each the expected return of
      the **player to move** at that position (1: that player wins).

    A value is one number, so it fixes every player's value only in a game of one player (its
    own) or two players, zero-sum: the mover gets ``v`` and the other player ``-v``
    (``player_values``). Searches refuse a batch evaluator on games of more players and on games
    with chance nodes (``check_batch_game``). Anything that converts to float64 arrays of these
    shapes is taken (numpy arrays, lists, a framework's CPU tensors).
    """

    def evaluate_batch(
        self, observations: np.ndarray, legal_masks: np.ndarray
    ) -> tuple[Any, Any]:  # (priors [B, num_actions], values [B])
        """Priors ``[B, num_actions]`` and values ``[B]`` of ``B`` positions."""
        ...


def is_batch_evaluator(evaluator: Any) -> bool:
    """Whether ``evaluator`` is a batch evaluator (it has a callable ``evaluate_batch``; that
    wins over ``__call__`` for an object that has both)."""
    return callable(getattr(evaluator, "evaluate_batch", None))


def evaluator_name(evaluator: Any) -> str:
    """How error messages name an evaluator: its qualified name, or its class's."""
    name = getattr(evaluator, "__qualname__", None)
    if name is None and is_batch_evaluator(evaluator):
        name = type(evaluator).__qualname__
    return name or repr(evaluator)


def player_values(value: float, mover: int, num_players: int) -> tuple[float, ...]:
    """Per-player values from the mover's ``value``: ``(v,)`` alone, ``(v, -v)`` from the
    mover's seat with two players (zero-sum)."""
    if num_players == 1:
        return (value,)
    return (value, -value) if mover == 0 else (-value, value)


def check_batch_game(game: Any, evaluator: Any) -> None:
    """``InvalidOptionError`` unless a batch evaluator can evaluate ``game``'s positions: it needs
    ``observation(state, player)`` and ``num_actions``, one or two players, and no chance nodes
    (a chance node has no player to move, so no view to show and no mover to value)."""
    name = evaluator_name(evaluator)
    if not callable(getattr(game, "observation", None)) or not isinstance(
        getattr(game, "num_actions", None), int
    ):
        raise InvalidOptionError(
            f"batch evaluator {name} needs a game with observation(state, player) and "
            f"num_actions; {game!r} lacks them (use a position evaluator, (game, state) -> "
            "(values, priors))"
        )
    if game.num_players not in (1, 2):
        raise InvalidOptionError(
            f"batch evaluator {name} gives one value per position (the mover's), which fixes "
            f"every player's value only with one or two players; {game!r} has "
            f"{game.num_players} (use a position evaluator, which returns one value per player)"
        )
    if getattr(game, "has_chance", False):
        raise InvalidOptionError(
            f"batch evaluator {name} cannot evaluate chance nodes, which {game!r} has (use a "
            "position evaluator)"
        )


def check_batch_inputs(
    observations: Any,
    legal_masks: Any,
    observation_shape: tuple[int, ...],
    num_actions: int,
    what: str,
) -> tuple[np.ndarray, np.ndarray]:
    """``observations`` and ``legal_masks`` as arrays, checked for a model (``what``: "this
    network", "this policy") taking ``[B, *observation_shape]`` and ``num_actions`` moves.

    Raises:
        InvalidOptionError: observations of another shape, or masks not ``[B, num_actions]``.
    """
    observations = np.asarray(observations)
    masks = np.asarray(legal_masks, dtype=bool)
    if observations.shape[1:] != tuple(observation_shape):
        raise InvalidOptionError(
            f"observations of shape {observations.shape}; {what} takes "
            f"[B, {', '.join(map(str, observation_shape))}]"
        )
    if masks.shape != (len(observations), num_actions):
        raise InvalidOptionError(
            f"legal_masks of shape {masks.shape}; expected ({len(observations)}, "
            f"{num_actions}) for {len(observations)} observations"
        )
    return observations, masks


def check_batch(evaluator: Any, output: Any, legal_masks: np.ndarray) -> tuple[Any, Any]:
    """Check ``evaluate_batch``'s ``output`` for ``legal_masks`` ``[B, num_actions]``.

    Returns:
        ``(priors, values)`` as float64 arrays: ``priors`` ``[B, num_actions]``, zero on illegal
        actions and summing to 1 over the legal ones; ``values`` ``[B]`` in [-1, 1].

    Raises:
        EvaluatorError: naming the evaluator, the field, what came (shape, row, value) and what
            was expected.
    """
    name = evaluator_name(evaluator)
    batch, actions = legal_masks.shape
    if not isinstance(output, (tuple, list)) or len(output) != 2:
        shown = f"a {type(output).__name__}" if isinstance(output, np.ndarray) else repr(output)
        raise EvaluatorError(
            f"batch evaluator {name} returned {shown}; expected a pair (priors, values)"
        )
    priors = _as_array(name, "priors", output[0], (batch, actions), "(batch, num_actions)")
    values = _as_array(name, "values", output[1], (batch,), "(batch,)")
    bad = ~np.isfinite(priors) | (priors < 0.0)
    if bad.any():
        row, action = (int(i) for i in np.argwhere(bad)[0])
        got = float(priors[row, action])
        raise EvaluatorError(
            f"batch evaluator {name} returned priors[{row}, {action}] = {got!r}; expected finite "
            "numbers >= 0"
        )
    bad = ~np.isfinite(values) | (np.abs(values) > 1.0 + TOLERANCE)
    if bad.any():
        row = int(np.argmax(bad))
        raise EvaluatorError(
            f"batch evaluator {name} returned values[{row}] = {float(values[row])!r}; expected a "
            "finite number in [-1, 1] (the expected return of the player to move)"
        )
    priors = np.where(legal_masks, priors, 0.0)
    mass = priors.sum(axis=1)
    empty = mass <= 0.0
    if empty.any():
        row = int(np.argmax(empty))
        raise EvaluatorError(
            f"batch evaluator {name} returned priors[{row}] with no mass on the legal actions "
            f"{np.flatnonzero(legal_masks[row]).tolist()}; expected some prior > 0 on them"
        )
    return priors / mass[:, None], np.clip(values, -1.0, 1.0)


def _as_array(name: str, field: str, raw: Any, shape: tuple[int, ...], axes: str) -> Any:
    try:
        array = np.asarray(raw, dtype=np.float64)
    except (TypeError, ValueError):
        raise EvaluatorError(
            f"batch evaluator {name} returned {field} {raw!r} that do not convert to a float64 "
            f"array; expected numbers of shape {shape} {axes}"
        ) from None
    if field == "values" and array.shape == (*shape, 1):  # a network's [B, 1] value head
        array = array[:, 0]
    if array.shape != shape:
        raise EvaluatorError(
            f"batch evaluator {name} returned {field} of shape {array.shape}; expected {shape} "
            f"{axes}"
        )
    return array


class PositionEvaluator:
    """A batch evaluator used as a position evaluator: ``(game, state) -> (values, priors)`` by
    one ``evaluate_batch`` call of one position (``B = 1``), checked by ``check_batch``.

    It pickles when the batch evaluator does (root parallelism sends it to worker processes).
    """

    def __init__(self, batch_evaluator: Any) -> None:
        if not is_batch_evaluator(batch_evaluator):
            raise InvalidOptionError(
                f"PositionEvaluator needs an object with evaluate_batch(observations, "
                f"legal_masks), got {batch_evaluator!r}"
            )
        self.batch_evaluator = batch_evaluator
        self.__qualname__ = f"PositionEvaluator({evaluator_name(batch_evaluator)})"

    def __call__(self, game: Any, state: Any) -> tuple[tuple[float, ...], Any]:
        """The checked values (one per player) and priors (indexed by action) of ``state``."""
        check_batch_game(game, self.batch_evaluator)
        mover = game.to_play(state)
        masks = np.zeros((1, game.num_actions), dtype=bool)
        masks[0, list(game.legal_actions(state))] = True
        observations = np.asarray(game.observation(state, mover))[None]
        output = self.batch_evaluator.evaluate_batch(observations, masks)
        priors, values = check_batch(self.batch_evaluator, output, masks)
        return player_values(float(values[0]), mover, game.num_players), priors[0]


def evaluate(
    evaluator: Any, game: Any, state: Any, legal: Sequence[int]
) -> tuple[tuple[float, ...], Mapping[int, float] | Sequence[float] | None]:
    """``evaluator(game, state)``, checked: per-player values in [-1, 1], usable priors.

    Raises:
        EvaluatorError: naming the evaluator and the bad field (not a pair, wrong length, not a
            number, NaN or infinite, out of [-1, 1], a missing or negative prior).
    """
    name = evaluator_name(evaluator)
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
