"""Ultimate tic-tac-toe as a PettingZoo AEC environment.

Action = ``board * 9 + cell`` (81 actions): small board ``board`` and the cell inside it, both
numbered 0..8 row-major. Observation planes: ``(9, 9, 3)``: the observing agent's stones, the
opponent's stones, and the cells where the player to move may play now; row
``3 * (board // 3) + cell // 3``, column ``3 * (board % 3) + cell % 3``. Rules as OpenSpiel's
``ultimate_tic_tac_toe`` (see ``mcts_agents.envs.games.ultimate_tic_tac_toe``).
"""

from __future__ import annotations

from typing import Any, ClassVar

from mcts_agents.envs.core.aec import BoardGameEnv
from mcts_agents.envs.core.wrappers import env_fn
from mcts_agents.envs.games.ultimate_tic_tac_toe import UltimateTicTacToe

__all__ = ["UltimateTicTacToeEnv", "env", "raw_env"]


class UltimateTicTacToeEnv(BoardGameEnv):
    """Ultimate tic-tac-toe: nine small boards; the cell played picks the opponent's board."""

    metadata: ClassVar[dict[str, Any]] = {
        **BoardGameEnv.metadata,
        "name": "ultimate_tic_tac_toe_v0",
    }
    render_block: ClassVar[int] = 3

    def __init__(self, render_mode: str | None = None) -> None:
        super().__init__(UltimateTicTacToe(), render_mode=render_mode)


raw_env = UltimateTicTacToeEnv
env = env_fn(UltimateTicTacToeEnv)
