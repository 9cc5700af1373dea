"""Pig, the dice game, as a PettingZoo AEC environment (the rules of OpenSpiel's ``pig``).

Actions: ``0`` roll, ``1`` stop. The env rolls the die itself, with its own generator seeded by
``reset(seed=...)``, so agents are only ever asked to roll or stop; ``save_state`` keeps the
generator too, so a restored env rolls the same dice again. Observation planes:
``(2 * players, winscore + 1)`` one-hot bins (see ``Pig.observation``): the scores, the
observing agent's first, then the turn total in the row of the player whose turn it is. Rewards
at the end: the winner +1, the others ``-1 / (players - 1)``; all 0 when the game reaches its
``horizon`` of player decisions.
"""

from __future__ import annotations

from typing import Any, ClassVar

from mcts_agents.envs.core.aec import BoardGameEnv
from mcts_agents.envs.core.wrappers import env_fn
from mcts_agents.envs.games.pig import Pig

__all__ = ["PigEnv", "env", "raw_env"]


class PigEnv(BoardGameEnv):
    """Pig with OpenSpiel's parameters (and defaults).

    Args:
        players: 2 to 10 (default 2).
        winscore: the score that wins (default 100).
        diceoutcomes: faces of the die (default 6).
        horizon: player decisions before the game ends as a draw (default 1000).
        piglet: every face but the 1 scores one point (default False).
        render_mode: ``None``, ``"ansi"``, ``"rgb_array"`` (score tracks) or ``"human"``.
    """

    metadata: ClassVar[dict[str, Any]] = {
        **BoardGameEnv.metadata,
        "name": "pig_v0",
    }

    def __init__(
        self,
        players: int = 2,
        winscore: int = 100,
        diceoutcomes: int = 6,
        horizon: int = 1000,
        piglet: bool = False,
        render_mode: str | None = None,
    ) -> None:
        game = Pig(players, winscore, diceoutcomes, horizon, piglet)
        super().__init__(game, render_mode=render_mode)


raw_env = PigEnv
env = env_fn(PigEnv)
