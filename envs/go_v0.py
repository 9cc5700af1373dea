"""Go as a PettingZoo AEC environment (our rules core, ``envs/games/go.py``).

Action = ``row * size + col`` (row 0 at the top), and ``size * size`` to pass, as in
PettingZoo's ``go_v5``. ``player_0`` plays black and moves first; two passes in a row end the
game; area scoring with ``komi`` (a tie goes to white, as ``go_v5`` pays). ``superko=True``
(default) forbids recreating any earlier board (positional superko); ``superko=False`` plays
``go_v5``'s simple ko. Observation planes: ``(size, size, 17)`` as ``go_v5``'s (the observer's
and the opponent's stones now and for the seven boards before, and a plane of ones for white;
``go_v5``'s own pairs put the last mover's stones first, so their order alternates from one
board to the next: ours are always the observer's first, AlphaZero's order).
"""

from __future__ import annotations

from typing import Any, ClassVar

from mcts_agents.envs.core.aec import BoardGameEnv
from mcts_agents.envs.core.wrappers import env_fn
from mcts_agents.envs.games.go import Go

__all__ = ["GoEnv", "env", "raw_env"]


class GoEnv(BoardGameEnv):
    """Go on a ``size`` x ``size`` board (5 to 19; default 19 as ``go_v5``) with ``komi``."""

    metadata: ClassVar[dict[str, Any]] = {
        **BoardGameEnv.metadata,
        "name": "go_v0",
    }

    def __init__(
        self,
        size: int = 19,
        komi: float = 7.5,
        superko: bool = True,
        render_mode: str | None = None,
    ) -> None:
        super().__init__(Go(size, komi, superko), render_mode=render_mode)


raw_env = GoEnv
env = env_fn(GoEnv)
