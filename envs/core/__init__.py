"""Shared machinery: the rules-core base class, the generic AEC env, wrappers, drawing, errors."""

from mcts_agents.envs.core.aec import BoardGameEnv, EnvSnapshot
from mcts_agents.envs.core.errors import (
    ActionTypeError,
    GameOverError,
    IllegalActionError,
    InvalidParameterError,
    InvalidSnapshotError,
    InvalidStateError,
    NotResetError,
)
from mcts_agents.envs.core.game import BoardGame

__all__ = [
    "ActionTypeError",
    "BoardGame",
    "BoardGameEnv",
    "EnvSnapshot",
    "GameOverError",
    "IllegalActionError",
    "InvalidParameterError",
    "InvalidSnapshotError",
    "InvalidStateError",
    "NotResetError",
]
