"""Tic-tac-toe as a PettingZoo AEC environment.

Action = ``row * 3 + col`` (0-based, row 0 at the top; as in OpenSpiel's ``tic_tac_toe``).
Observation planes: ``(3, 3, 2)``, the observing agent's marks first. ``player_0`` plays X and
moves first.
"""

from __future__ import annotations

from typing import Any, ClassVar

from mcts_agents.envs.core.aec import BoardGameEnv
from mcts_agents.envs.core.wrappers import env_fn
from mcts_agents.envs.games.mnk import MNK

__all__ = ["TicTacToeEnv", "env", "raw_env"]


class TicTacToeEnv(BoardGameEnv):
    """Tic-tac-toe: the m,n,k-game with m = n = k = 3."""

    metadata: ClassVar[dict[str, Any]] = {
        **BoardGameEnv.metadata,
        "name": "tic_tac_toe_v0",
    }

    def __init__(self, render_mode: str | None = None) -> None:
        super().__init__(MNK(3, 3, 3, name="tic_tac_toe"), render_mode=render_mode)


raw_env = TicTacToeEnv
env = env_fn(TicTacToeEnv)
