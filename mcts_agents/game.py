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

    The members below are required. The searchers also look up these optional members with
    ``getattr`` and do without them when they are missing:

    ============================================  ==========================================
    optional member                               what the search does with it
    ============================================  ==========================================
    ``spec: Hashable``                            the rules' identity: a new ``spec`` drops
                                                  the kept tree, and workers get the game
                                                  again; without it, the game's type
    ``acyclic: bool``                             True: no position can repeat, so the
                                                  search skips its cycle check (default
                                                  False: a repeated position on the path
                                                  scores a draw)
    ``is_reachable(state, key) -> bool``          tree reuse keeps only the entries that can
                                                  still occur after ``state``; must never
                                                  say False wrongly (else: a walk of the
                                                  stored graph from the new root)
    ``rollout(state, rng) -> returns``            a fast uniformly random playout (else
                                                  ``default_rollout``)
    ``decisive_rollout(state, rng) -> returns``   the playout of ``playout="decisive"``:
                                                  win at once, block the only threat (else
                                                  ``rollout``)
    ============================================  ==========================================

    Compiled kernels read more, per game type, through the rules core's public layout (see
    ``mcts_agents.compiled``).
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
