"""Reference solvers used as outside truth in tests (exhaustive search, no MCTS code)."""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any

import numpy as np


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


class PerfectEvaluator:
    """A batch evaluator that plays perfectly: every position reachable in ``game`` (small games
    only) is solved with ``exact_returns``; the value is the mover's exact return and the prior
    is one-hot on the lowest optimal action. Positions are told by their observation, so the
    game's observation must tell its positions apart (true of m,n,k: both players' planes).
    """

    def __init__(self, game: Any) -> None:
        solve = exact_returns(game)
        self.table: dict[bytes, tuple[Any, float]] = {}
        seen = set()
        stack = [game.initial_state()]
        while stack:
            state = stack.pop()
            key = game.key(state)
            if key in seen or game.is_terminal(state):
                continue
            seen.add(key)
            mover = game.to_play(state)
            priors = [0.0] * game.num_actions
            priors[min(optimal_actions(game, state, solve))] = 1.0
            observation = np.asarray(game.observation(state, mover)).tobytes()
            self.table[observation] = (priors, float(solve(state)[mover]))
            stack.extend(game.next_state(state, a) for a in game.legal_actions(state))

    def evaluate_batch(self, observations: Any, legal_masks: Any) -> tuple[Any, Any]:
        rows = [self.table[np.asarray(o).tobytes()] for o in observations]
        return [r[0] for r in rows], [r[1] for r in rows]
