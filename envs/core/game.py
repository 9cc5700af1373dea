"""The rules-core base class: a game as pure functions over immutable, hashable states.

A rules core is the search's view of a game (the Game protocol of the design notes) plus the few
extra things the AEC wrapper needs (observations, text and pixel rendering). It keeps no mutable
state of its own: a ``BoardGame`` instance holds only the game's parameters and precomputed
constant tables, so one instance can be shared by any number of environments and searches.

States are plain Python values (ints used as bitboards, small tuples). ``next_state`` never
changes its argument. Actions are ints in ``range(num_actions)``, the env's ``Discrete`` space.

Chance and hidden information (card and dice games) use the same interface:

- a chance node (``is_chance(state)``; ``to_play`` returns ``CHANCE``) has ``legal_actions``
  that are its outcomes and ``chance_outcomes`` with their probabilities; ``next_state`` applies
  an outcome like a move. The env samples chance nodes with its own seeded generator; a search
  samples them with its own, so it never reads the env's future dice.
- a game with private information sets ``perfect_information = False`` and implements
  ``information_set(state, player)`` (a hashable key of everything ``player`` has observed,
  perfect recall) and ``determinize(state, player, rng)`` (a full state drawn from what
  ``player`` may believe: consistent with that information set, using only it and ``rng``), and
  ``observation`` shows a player only what it may see.
- ``return_range`` is the lowest and highest return a player can get (chips, points), so that a
  search can normalise returns to [-1, 1] and call a result a win only at the top of the range.
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

#: ``to_play`` of a chance node.
CHANCE = -2


def draw_outcome(outcomes: Sequence[tuple[int, float]], rng: Any) -> int:
    """One outcome of ``(outcome, probability)`` pairs, drawn with ``rng.random()``."""
    u = rng.random()
    for outcome, probability in outcomes:
        u -= probability
        if u < 0.0:
            return outcome
    return outcomes[-1][0]  # rounding left u a hair above 0


class BoardGame(ABC, Generic[S]):
    """Pure rules of a turn-based game: perfect information and deterministic by default, with
    hooks for chance nodes and private information (see the module docstring).

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
    #: Some states are chance nodes (``is_chance``): dice, deals.
    has_chance: bool = False
    #: False: players hold private information (``information_set``, ``determinize``).
    perfect_information: bool = True
    #: The lowest and highest return any player can get.
    return_range: tuple[float, float] = (-1.0, 1.0)

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

    def check_state(self, state: Any) -> None:
        """Raise ``InvalidStateError`` naming the field and what was expected unless ``state``
        is a state of this game that play can reach, as far as cheap checks (O(board), like
        python-chess's ``Board.status()``) tell: shapes and types, ranges, stones on the board
        and on distinct cells, counters that agree with the pieces, the status with the lines.

        Sound: a state reached by play (or by ``determinize``) always passes. It must accept any
        junk without raising another exception. The env's ``restore_state`` calls it on a
        snapshot's state and its ``is_reachable(key)`` on the key (``check_key``); the search
        never does, its states come from ``next_state``. The default accepts every state; each
        core of this package overrides it.
        """

    def check_key(self, key: Any) -> None:
        """``check_state`` for a transposition key: keys are states unless ``key`` is
        overridden, and then (by default) any key is accepted."""
        if type(self).key is BoardGame.key:
            self.check_state(key)

    def rollout(self, state: S, rng: random.Random) -> tuple[float, ...]:
        """Play uniformly random moves (chance outcomes by their probabilities) from ``state``
        to the end and return the returns."""
        chance = self.has_chance
        while not self.is_terminal(state):
            if chance and self.is_chance(state):
                state = self.next_state(state, self.sample_chance(state, rng))
                continue
            actions = self.legal_actions(state)
            state = self.next_state(state, actions[int(rng.random() * len(actions))])
        return self.returns(state)

    # ----------------------------------------------------------------- chance and information
    def is_chance(self, state: S) -> bool:
        """Whether ``state`` is a chance node (its outcomes are drawn, not chosen)."""
        return False

    def chance_outcomes(self, state: S) -> list[tuple[int, float]]:
        """``(outcome, probability)`` pairs of a chance node, probabilities summing to 1."""
        raise TypeError(f"{self.name}: {state!r} is not a chance node")

    def sample_chance(self, state: S, rng: Any) -> int:
        """An outcome of the chance node ``state`` drawn with ``rng`` (anything with
        ``random()`` in [0, 1): ``random.Random``, or a numpy ``Generator``)."""
        return draw_outcome(self.chance_outcomes(state), rng)

    def information_set(self, state: S, player: int) -> Hashable:
        """A key of everything ``player`` has observed (perfect information: the state's key)."""
        return self.key(state)

    def determinize(self, state: S, player: int, rng: random.Random) -> S:
        """A full state drawn from what ``player`` may believe in ``state`` (perfect
        information: ``state`` itself). Must read only ``player``'s information and ``rng``."""
        return state

    # ----------------------------------------------------------------- checked moves
    def is_legal(self, state: S, action: int) -> bool:
        """Whether ``action`` (an int in range) is legal in ``state``."""
        return action in self.legal_actions(state)

    def check_action(self, state: S, action: Any) -> int:
        """Validate a caller's ``action`` for ``state`` and return it as a Python int.

        At a chance node the action is an outcome (``legal_actions`` are the outcomes, whose ids
        need not lie in ``range(num_actions)``).

        Raises:
            ActionTypeError: ``action`` is not an integer (bools are refused too).
            IllegalActionError: out of range, or not legal in ``state``.
            GameOverError: ``state`` is terminal.
        """
        if type(action) is int and 0 <= action < self.num_actions and self.is_legal(state, action):
            return action  # the common case, checked cheaply
        if self.has_chance and self.is_chance(state):
            outcome = self._as_int(action, "a chance outcome")
            if outcome not in self.legal_actions(state):
                raise IllegalActionError(
                    f"{self.name}: {outcome} is not an outcome of this chance node; outcomes: "
                    f"{self.legal_actions(state)}"
                )
            return outcome
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
        index = self._as_int(action, f"action must be an int in [0, {self.num_actions}), and it")
        if not 0 <= index < self.num_actions:
            raise IllegalActionError(
                f"{self.name}: action {index} is out of range; expected an int in "
                f"[0, {self.num_actions})"
            )
        return index

    def _as_int(self, action: Any, what: str) -> int:
        """``action`` as an int (numpy ints too); ``ActionTypeError`` naming ``what`` else."""
        if isinstance(action, (bool, np.bool_)):
            raise ActionTypeError(f"{self.name}: {what} is a bool, {action!r}; expected an int")
        try:
            return operator.index(action)
        except TypeError:
            raise ActionTypeError(
                f"{self.name}: {what} is {action!r} of type {type(action).__name__}; expected an "
                "int"
            ) from None

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

    def grid(self, state: S) -> np.ndarray:
        """Board as a 2-D int array for drawing: 0 empty, ``p + 1`` a piece of player ``p``.

        Board games implement it (the env's ``rgb_array`` rendering draws it); card games leave
        it and offer the ``ansi`` rendering only."""
        raise TypeError(f"{self.name} has no board to draw; render it as 'ansi'")

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
