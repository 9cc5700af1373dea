"""The rules-core base class: a game as pure functions over immutable, hashable states.

A rules core is the search's view of a game (the Game protocol of the design notes) plus the few
extra things the AEC wrapper needs (observations, text and pixel rendering). It keeps no mutable
state of its own: a ``BoardGame`` instance holds only the game's parameters and precomputed
constant tables, so one instance can be shared by any number of environments and searches.

States are plain Python values (ints used as bitboards, small tuples). ``next_state`` never
changes its argument. Actions are ints in ``range(num_actions)``, the env's ``Discrete`` space.
"""

from __future__ import annotations

import operator
import random
from abc import ABC, abstractmethod
from collections.abc import Hashable, Sequence
from typing import Any, Generic, TypeVar

import numpy as np

from mcts_agents.envs.core.errors import ActionTypeError, GameOverError, IllegalActionError

S = TypeVar("S", bound=Hashable)


class BoardGame(ABC, Generic[S]):
    """Pure rules of a turn-based, perfect-information game.

    Subclasses set ``name``, ``num_players``, ``num_actions`` and ``observation_shape`` in
    ``__init__`` and implement the abstract methods. Everything else has a correct default that
    a subclass may replace with a faster one.
    """

    name: str
    num_players: int
    #: No position can repeat within a game (true of every game here: stones are only added,
    #: chips only removed). A core whose positions can repeat must set this to False so the
    #: search guards against cycles.
    acyclic: bool = True
    num_actions: int
    observation_shape: tuple[int, ...]

    # ----------------------------------------------------------------- the Game protocol
    @abstractmethod
    def initial_state(self) -> S:
        """The state at the start of a game."""

    @abstractmethod
    def to_play(self, state: S) -> int:
        """Index of the player to act in ``state`` (undefined for a terminal state)."""

    @abstractmethod
    def legal_actions(self, state: S) -> list[int]:
        """Legal actions in ascending order; empty exactly when ``state`` is terminal."""

    @abstractmethod
    def next_state(self, state: S, action: int) -> S:
        """The state after ``action``; unchecked (``action`` must be legal), ``state`` untouched."""

    @abstractmethod
    def is_terminal(self, state: S) -> bool:
        """Whether the game is over."""

    @abstractmethod
    def returns(self, state: S) -> tuple[float, ...]:
        """Per-player returns of a terminal state (+1 win, -1 loss, 0 draw); zeros otherwise."""

    def key(self, state: S) -> Hashable:
        """Transposition key: equal for the same position reached by different move orders."""
        return state

    def is_reachable(self, state: S, key: Hashable) -> bool:
        """Could a state with ``key`` occur at or after ``state`` in this game?

        Must never answer False for a state that can still occur; the default says True always.
        """
        return True

    def rollout(self, state: S, rng: random.Random) -> tuple[float, ...]:
        """Play uniformly random moves from ``state`` to the end and return the returns."""
        while not self.is_terminal(state):
            actions = self.legal_actions(state)
            state = self.next_state(state, actions[int(rng.random() * len(actions))])
        return self.returns(state)

    # ----------------------------------------------------------------- checked moves
    def is_legal(self, state: S, action: int) -> bool:
        """Whether ``action`` (an int in range) is legal in ``state``."""
        return action in self.legal_actions(state)

    def check_action(self, state: S, action: Any) -> int:
        """Validate a caller's ``action`` for ``state`` and return it as a Python int.

        Raises:
            ActionTypeError: ``action`` is not an integer (bools are refused too).
            IllegalActionError: out of range, or not legal in ``state``.
            GameOverError: ``state`` is terminal.
        """
        if type(action) is int and 0 <= action < self.num_actions and self.is_legal(state, action):
            return action  # the common case, checked cheaply
        index = self.action_index(action)
        if self.is_terminal(state):
            raise GameOverError(
                f"{self.name}: the game is over; no action (got {index}) can be played"
            )
        if not self.is_legal(state, index):
            raise IllegalActionError(
                f"{self.name}: action {index} ({self.action_to_string(state, index)}) is not "
                f"legal here; legal actions: {self.legal_actions(state)}"
            )
        return index

    def action_index(self, action: Any) -> int:
        """Type- and range-check ``action`` (not its legality) and return it as an int."""
        if isinstance(action, (bool, np.bool_)):
            raise ActionTypeError(
                f"{self.name}: action must be an int in [0, {self.num_actions}), "
                f"got bool {action!r}"
            )
        try:
            index = operator.index(action)
        except TypeError:
            raise ActionTypeError(
                f"{self.name}: action must be an int in [0, {self.num_actions}), "
                f"got {action!r} of type {type(action).__name__}"
            ) from None
        if not 0 <= index < self.num_actions:
            raise IllegalActionError(
                f"{self.name}: action {index} is out of range; expected an int in "
                f"[0, {self.num_actions})"
            )
        return index

    def apply(self, state: S, actions: Sequence[int]) -> S:
        """Play ``actions`` from ``state`` with full checking (handy for tests and scripts)."""
        for action in actions:
            state = self.next_state(state, self.check_action(state, action))
        return state

    # ----------------------------------------------------------------- env-facing extras
    def legal_mask(self, state: S) -> np.ndarray:
        """Legal actions as an int8 mask of length ``num_actions``."""
        mask = np.zeros(self.num_actions, dtype=np.int8)
        mask[self.legal_actions(state)] = 1
        return mask

    @abstractmethod
    def observation(self, state: S, player: int) -> np.ndarray:
        """Int8 planes of ``observation_shape`` from ``player``'s view (own pieces first)."""

    @abstractmethod
    def grid(self, state: S) -> np.ndarray:
        """Board as a 2-D int array for drawing: 0 empty, ``p + 1`` a piece of player ``p``."""

    @abstractmethod
    def render_text(self, state: S) -> str:
        """A human-readable board."""

    def action_to_string(self, state: S, action: int) -> str:
        """A short human-readable name of ``action``."""
        return str(action)

    @property
    def spec(self) -> tuple[Hashable, ...]:
        """The game's identity: its name and parameters (equal specs mean the same rules)."""
        return (self.name, *sorted(self.params().items()))

    @abstractmethod
    def params(self) -> dict[str, Hashable]:
        """The constructor parameters, for ``spec`` and ``repr``."""

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.params().items())
        return f"{type(self).__name__}({args})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, BoardGame) and self.spec == other.spec

    def __hash__(self) -> int:
        return hash(self.spec)
