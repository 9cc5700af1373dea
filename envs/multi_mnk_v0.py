"""The m,n,k-game for 2 to 4 players as a PettingZoo AEC environment.

Players take turns in seat order, each with a mark of their own; the first to make ``k`` or
more in a row wins (+1) and every other player loses (-1); a full board without a line is a
draw (all 0). Default: 3 players on a 6 x 6 board, k = 4. Action = ``row * n + col``.
Observation planes: ``(m, n, num_players)``, the observing agent's stones first, then the
other players' in turn order after it.
"""

from __future__ import annotations

from typing import Any, ClassVar

from mcts_agents.envs.core.aec import BoardGameEnv
from mcts_agents.envs.core.wrappers import env_fn
from mcts_agents.envs.games.mnk import MNK

__all__ = ["MultiMNKEnv", "env", "raw_env"]


class MultiMNKEnv(BoardGameEnv):
    """Multi-player m,n,k-game: ``num_players`` (2 to 4) on ``m`` rows by ``n`` columns."""

    metadata: ClassVar[dict[str, Any]] = {
        **BoardGameEnv.metadata,
        "name": "multi_mnk_v0",
    }

    def __init__(
        self,
        m: int = 6,
        n: int = 6,
        k: int = 4,
        num_players: int = 3,
        render_mode: str | None = None,
    ) -> None:
        game = MNK(m, n, k, num_players=num_players, name="multi_mnk")
        super().__init__(game, render_mode=render_mode)


raw_env = MultiMNKEnv
env = env_fn(MultiMNKEnv)
