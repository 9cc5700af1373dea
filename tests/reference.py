"""Reference solvers used as outside truth in tests (exhaustive search, no MCTS code)."""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any


def exact_returns(game: Any) -> Callable[[Any], tuple[float, ...]]:
    """Return ``solve(state)``: the game-theoretic returns under perfect play.

    Exhaustive max-n search (the mover maximises its own return; for two-player zero-sum games
    this is minimax) with a memo keyed by ``game.key``. Fine for tic-tac-toe-sized games.
    """
    memo: dict[Hashable, tuple[float, ...]] = {}

    def solve(state: Any) -> tuple[float, ...]:
        key = game.key(state)
        found = memo.get(key)
        if found is not None:
            return found
        if game.is_terminal(state):
            result = tuple(game.returns(state))
        else:
            me = game.to_play(state)
            result = max(
                (solve(game.next_state(state, a)) for a in game.legal_actions(state)),
                key=lambda r: r[me],
            )
        memo[key] = result
        return result

    return solve


def optimal_actions(game: Any, state: Any, solve: Callable[[Any], tuple[float, ...]]) -> list[int]:
    """All actions that keep the mover's game-theoretic value."""
    me = game.to_play(state)
    target = solve(state)[me]
    return [a for a in game.legal_actions(state) if solve(game.next_state(state, a))[me] == target]
