"""Shared machinery: the rules-core base class, the generic AEC env, wrappers, drawing, errors."""

from envs.core.aec import BoardGameEnv, EnvSnapshot
from envs.core.errors import (
    ActionTypeError,
    GameOverError,
    IllegalActionError,
    InvalidParameterError,
    InvalidSnapshotError,
    NotResetError,
)
from envs.core.game import BoardGame

__all__ = [
    "ActionTypeError",
    "BoardGame",
    "BoardGameEnv",
    "EnvSnapshot",
    "GameOverError",
    "IllegalActionError",
    "InvalidParameterError",
    "InvalidSnapshotError",
    "NotResetError",
]
