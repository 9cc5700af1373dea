"""Exceptions raised by the environments and rules cores.

Each one subclasses ``ValueError`` or ``TypeError`` so callers that already catch those keep
working, and each message names the bad value and what was expected.
"""

from __future__ import annotations


class IllegalActionError(ValueError):
    """An action that is not legal in the current position (or is out of the action range)."""


class ActionTypeError(TypeError):
    """An action that is not an integer (floats, strings, bools and arrays are refused)."""


class GameOverError(ValueError):
    """An action was given for a game that has already ended."""


class InvalidParameterError(ValueError):
    """A bad constructor parameter (board size, k, number of players, ...)."""


class NotResetError(ValueError, AssertionError):
    """The env was used before ``reset()``.

    Also an ``AssertionError``, the type PettingZoo's order-enforcing wrapper raises, so code
    written against PettingZoo's envs keeps catching it.
    """


class InvalidSnapshotError(TypeError):
    """``restore_state`` got something that is not a snapshot of this environment's game."""


class InvalidStateError(ValueError):
    """A value that is not a state this game can reach (a forged or damaged snapshot's state or
    bookkeeping), or a state a search cannot start from (the planner raises it too).

    The message names the field and what was expected.
    """
