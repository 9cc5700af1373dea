"""Connect Four as a PettingZoo AEC environment.

Action = column (0-based). Observation planes: ``(height, width, 2)``, the observing agent's
stones first, row 0 at the top (as in PettingZoo's ``connect_four_v3``).
"""

from __future__ import annotations

from typing import Any, ClassVar

from mcts_agents.envs.core.aec import BoardGameEnv
from mcts_agents.envs.core.wrappers import env_fn
from mcts_agents.envs.games.connect_four import ConnectFour

__all__ = ["ConnectFourEnv", "env", "raw_env"]


class ConnectFourEnv(BoardGameEnv):
    """Connect Four; ``width`` x ``height`` board (default 7 x 6), ``k`` in a row (default 4)."""

    metadata: ClassVar[dict[str, Any]] = {
        **BoardGameEnv.metadata,
        "name": "connect_four_v0",
    }

    def __init__(
        self, width: int = 7, height: int = 6, k: int = 4, render_mode: str | None = None
    ) -> None:
        super().__init__(ConnectFour(width, height, k), render_mode=render_mode)


raw_env = ConnectFourEnv
env = env_fn(ConnectFourEnv)
