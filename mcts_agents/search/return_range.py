"""The scale of a game's returns for the Python search: declared, given, or learned.

The search keeps values in [-1, 1] and calls a proven return a win only at 1 (``WIN``). A game
that declares ``return_range = (low, high)`` is mapped from it (a win is ``high``); so is any
game searched with ``SearchConfig.return_range``. A game that declares none but sets
``learn_return_range`` (the generic adapter's ``EnvGame``: someone else's env, whose rewards may
be anything) gets a range learned from the returns the search meets: it starts at [-1, 1] and
widens to take in each return outside it, and is mapped onto [-``LEARNED_BOUND``,
``LEARNED_BOUND``], so no return reaches a win or a loss: a higher return may still come, and
the solver only proves what a full expansion shows (``"exact"``). Each widening maps the node
table's statistics onto the new scale (sums of values, of squares, terminal and proven
returns), so every value in it keeps meaning the same return. Values not made from returns
(an evaluator's, ``cutoff_value``, the draw of a repeated position) are taken as on the scale
of the moment and move with it.

The result says which range the search used (``SearchResult.return_range`` and
``return_range_source``: ``"learned"`` or ``"option"``).

Every return is checked as it comes (``checked_normalizer``): a NaN or infinite return is an
``InvalidStateError`` naming the game (for anyone else's env, ``EnvGame`` names the env), and so
is a return outside a declared range (the game's ``return_range``, an env's
``metadata["return_range"]``, or the option). A declared range is a promise the search builds on
(a proof is a win only at ``high``, and values beyond [-1, 1] would break its bounds), so a
return that breaks it is a wrong declaration to fix, not a range to widen silently: declare the
range the rewards span, or none (anyone else's env: the search then learns it, as above).
The values of a playout stopped before the end (``game.Cutoff``: ``rollout_depth``, the
playout cap, the clock) are on the search's scale already and pass unchanged.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from mcts_agents.errors import InvalidOptionError, InvalidStateError
from mcts_agents.search.game import Cutoff, Game, range_normalizer
from mcts_agents.search.searcher import game_identity, game_name

__all__ = ["LEARNED_BOUND", "ReturnScale", "checked_normalizer"]

#: A learned range maps onto [-LEARNED_BOUND, LEARNED_BOUND]: never a win's 1 nor a loss's -1.
LEARNED_BOUND = 0.9

Normalizer = Callable[[Sequence[float]], tuple[float, ...]]


class ReturnScale:
    """How one search maps a game's returns onto the search's values."""

    def __init__(self, game: Game, option: tuple[float, float] | None) -> None:
        self.identity = game_identity(game)
        self.learned = option is None and (
            getattr(game, "return_range", None) is None
            and bool(getattr(game, "learn_return_range", False))
        )
        self.source = "learned" if self.learned else ("option" if option is not None else None)
        self.low, self.high = option if option is not None else (-1.0, 1.0)
        self._fixed: Normalizer | None = None
        self._name = game_name(game)
        if not self.learned:
            self._fixed = checked_normalizer(game, option)

    @classmethod
    def for_search(
        cls,
        previous: ReturnScale | None,
        game: Game,
        option: tuple[float, float] | None,
        kept: int,
    ) -> ReturnScale:
        """``previous`` if it learned the range of this game and the node table, valued on its
        scale, was ``kept`` (entries reused); else a new scale."""
        if previous is None or not (kept and previous.learned and option is None):
            return cls(game, option)
        return previous if previous.identity == game_identity(game) else cls(game, option)

    def normalizer(self, table: Iterable[Any]) -> Normalizer:
        """The map of returns onto values, each return checked (see the module), widening a
        learned range and rescaling ``table``'s nodes as returns outside it come."""
        if self._fixed is not None:
            return self._fixed

        def normalize(returns: Sequence[float]) -> tuple[float, ...]:
            if type(returns) is Cutoff:
                return returns
            if not all(math.isfinite(r) for r in returns):
                raise bad_return(self._name, returns, None)
            low, high = min(returns), max(returns)
            if low < self.low or high > self.high:
                self._widen(min(low, self.low), max(high, self.high), table)
            scale = 2.0 * LEARNED_BOUND / (self.high - self.low)
            return tuple((r - self.low) * scale - LEARNED_BOUND for r in returns)

        return normalize

    def _widen(self, low: float, high: float, table: Iterable[Any]) -> None:
        old = 2.0 * LEARNED_BOUND / (self.high - self.low)
        new = 2.0 * LEARNED_BOUND / (high - low)
        # value = (r - low) * scale - BOUND, so new value = a * old value + b
        a = new / old
        b = (self.low - low) * new + LEARNED_BOUND * (a - 1.0)
        self.low, self.high = low, high
        rescale(table, a, b)

    def describe(self) -> dict[str, Any]:
        """What the result says about the range (nothing for a declared one)."""
        if self.source is None:
            return {}
        return {"return_range": (self.low, self.high), "return_range_source": self.source}


def checked_normalizer(game: Game, option: tuple[float, float] | None = None) -> Normalizer:
    """The map of ``game``'s returns in the declared range (``option``, else the game's
    ``return_range``, else (-1, 1)) onto [-1, 1]; a return that is not finite or lies outside
    that range raises ``InvalidStateError`` naming the game (``Cutoff`` values pass as they
    are)."""
    declared = option if option is not None else getattr(game, "return_range", None)
    low, high = declared if declared is not None else (-1.0, 1.0)
    if not high > low:
        raise InvalidOptionError(f"{game!r}: return_range must be (low, high) with low < high")
    slack = 1e-9 * (high - low)  # rounding in a game's own arithmetic
    floor, ceiling = low - slack, high + slack
    mapped = None if (low, high) == (-1.0, 1.0) else range_normalizer(low, high)
    source = "option" if option is not None else "declared" if declared is not None else None
    name = game_name(game)

    def normalize(returns: Sequence[float]) -> tuple[float, ...]:
        if type(returns) is Cutoff:
            return returns
        for r in returns:
            if not floor <= r <= ceiling:  # NaN too
                raise bad_return(name, returns, (low, high, source))
        return tuple(returns) if mapped is None else mapped(returns)

    return normalize


def bad_return(
    name: str, returns: Sequence[float], declared: tuple[float, float, str | None] | None
) -> InvalidStateError:
    """The error for ``returns`` that the search cannot use (not finite, or outside
    ``declared``: ``(low, high, source)``)."""
    shown = tuple(float(r) for r in returns)
    if declared is None or not all(math.isfinite(r) for r in shown):
        return InvalidStateError(
            f"{name} paid the returns {shown}: a return must be a finite number (not NaN or "
            "infinite); check the rewards the game pays"
        )
    low, high, source = declared
    where = {
        "option": "the search's return_range option",
        "declared": "the range it declares (return_range; an env: metadata['return_range'])",
        None: "the range the search assumes for a game that declares none",
    }[source]
    return InvalidStateError(
        f"{name} paid the returns {shown}, outside [{low:g}, {high:g}], {where}; declare the "
        "range its rewards span (anyone else's env may declare none: the search then learns "
        "it)"
    )


def rescale(table: Iterable[Any], a: float, b: float) -> None:
    """Map every value stored in ``table``'s nodes ``v -> a * v + b``."""
    for node in table:
        if node.returns is not None:
            node.returns = tuple(a * v + b for v in node.returns)
        if node.proven is not None:
            node.proven = tuple(a * v + b for v in node.proven)
        if node.to_play < 0 or not node.edge_visits:  # chance and terminal nodes keep no values
            continue
        visits, sums, squares = node.edge_visits, node.edge_value, node.edge_value_sq
        if squares:
            for i, (n, s) in enumerate(zip(visits, sums, strict=False)):
                squares[i] = a * a * squares[i] + 2.0 * a * b * s + b * b * n
        for i, n in enumerate(visits):
            sums[i] = a * sums[i] + b * n
