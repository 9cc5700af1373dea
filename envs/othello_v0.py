"""Othello as a PettingZoo AEC environment.

Action = ``row * size + col`` (row 0 at the top), and ``size * size`` to pass (legal only when
the player to move has no other move). Observation planes: ``(size, size, 2)``, the observing
agent's discs first. ``player_0`` plays black and moves first.
"""

from __future__ import annotations

from typing import Any, ClassVar

from mcts_agents.envs.core.aec import BoardGameEnv
from mcts_agents.envs.core.wrappers import env_fn
from mcts_agents.envs.games.othello import Othello

__all__ = ["OthelloEnv", "env", "raw_env"]


class OthelloEnv(BoardGameEnv):
    """Othello on a ``size`` x ``size`` board (even, 4 to 16; default 8)."""

    metadata: ClassVar[dict[str, Any]] = {
        **BoardGameEnv.metadata,
        "name": "othello_v0",
    }

    def __init__(self, size: int = 8, render_mode: str | None = None) -> None:
        super().__init__(Othello(size), render_mode=render_mode)


raw_env = OthelloEnv
env = env_fn(OthelloEnv)
