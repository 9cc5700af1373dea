"""The Game protocol: the search's only view of a game.

A functional interface over immutable, hashable states. Our envs' rules cores
(``mcts_agents.envs.core.BoardGame``) implement it directly; ``mcts_agents.adapters``
implements it for anyone else's PettingZoo AEC env by cloning and stepping the env.
"""

from __future__ import annotations

import random
from collections.abc import Hashable
from typing import Any, Protocol, runtime_checkable

State = Any  # immutable and hashable for our cores; opaque (treated as immutable) for adapters


@runtime_checkable
class Game(Protocol):
    """What the search needs from a game.

    Optional members, looked up with ``getattr``: ``is_reachable(state, key) -> bool`` (could a
    state with ``key`` still occur at or after ``state``? never wrongly False) and
    ``rollout(state, rng) -> returns`` (a fast uniformly random playout).
    """

    num_players: int

    def to_play(self, state: State) -> int:
        """Index of the player to act."""
        ...

    def legal_actions(self, state: State) -> list[int]:
        """Legal actions (ints of the env's Discrete space); empty iff terminal."""
        ...

    def next_state(self, state: State, action: int) -> State:
        """A new state after ``action``; ``state`` is untouched."""
        ...

    def is_terminal(self, state: State) -> bool:
        """Whether the game is over."""
        ...

    def returns(self, state: State) -> tuple[float, ...]:
        """Per-player returns (+1 win, 0 draw, -1 loss, or scores) of a terminal state."""
        ...

    def key(self, state: State) -> Hashable:
        """Transposition key: equal for the same position reached by different move orders."""
        ...


def default_rollout(game: Game, state: State, rng: random.Random) -> tuple[float, ...]:
    """Uniformly random playout to the end, for games without a fast ``rollout``."""
    while not game.is_terminal(state):
        actions = game.legal_actions(state)
        state = game.next_state(state, actions[int(rng.random() * len(actions))])
    return game.returns(state)
