"""Nim as a PettingZoo AEC environment.

Action = ``pile * take_limit + (take - 1)`` with ``take_limit = min(max_take, max(piles))``
(``max(piles)`` when ``max_take`` is None). Observation planes: ``(num_piles,
largest_start_pile, 1)``, row ``i`` holding one 1 per chip left in pile ``i`` (the same for both
agents: Nim is impartial). See ``mcts_agents.envs.games.nim`` for the rules and parameters.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from mcts_agents.envs.core.aec import BoardGameEnv
from mcts_agents.envs.core.wrappers import env_fn
from mcts_agents.envs.games.nim import Nim

__all__ = ["NimEnv", "env", "raw_env"]


class NimEnv(BoardGameEnv):
    """Nim; default one pile of 15 chips, takes of 1..3, normal play (last chip wins)."""

    metadata: ClassVar[dict[str, Any]] = {
        **BoardGameEnv.metadata,
        "name": "nim_v0",
    }

    def __init__(
        self,
        piles: Sequence[int] = (15,),
        max_take: int | None = 3,
        misere: bool = False,
        render_mode: str | None = None,
    ) -> None:
        super().__init__(Nim(piles, max_take, misere), render_mode=render_mode)


raw_env = NimEnv
env = env_fn(NimEnv)
