"""Exceptions of the planner; each subclasses ``ValueError`` or ``TypeError``."""

from __future__ import annotations

from mcts_agents.envs.core.errors import GameOverError, IllegalActionError, NotResetError


class InvalidOptionError(ValueError):
    """A bad agent or search option (names the option, the value and what was expected)."""


class NoLegalActionError(ValueError):
    """A live env whose agent to move has no legal action."""


class CloneError(TypeError):
    """An env that cannot be cloned faithfully (names the env class and why)."""


__all__ = [
    "CloneError",
    "GameOverError",
    "IllegalActionError",
    "InvalidOptionError",
    "NoLegalActionError",
    "NotResetError",
]
