"""Leduc hold'em as a PettingZoo AEC environment (the rules of OpenSpiel's ``leduc_poker``).

Actions: 0 fold, 1 call/check, 2 raise. The private cards and the public card are drawn by the
env's own seeded generator (``reset(seed=...)``), so agents only ever act at betting decisions.
Each agent's observation shows its own card, the public card once dealt, the betting and the
chips committed, never the opponent's card (layout in
``mcts_agents.envs.games.leduc_holdem``); rewards are the chips won or lost, paid at the end.
Renders as text only (``ansi``, ``human``), showing every card.
"""

from __future__ import annotations

from typing import Any, ClassVar

from mcts_agents.envs.core.aec import BoardGameEnv
from mcts_agents.envs.core.wrappers import env_fn
from mcts_agents.envs.games.leduc_holdem import LeducHoldem

__all__ = ["LeducHoldemEnv", "env", "raw_env"]


class LeducHoldemEnv(BoardGameEnv):
    """Leduc hold'em for two players; OpenSpiel's parameters ``action_mapping``,
    ``suit_isomorphism`` and ``starting_player`` (``players`` must be 2)."""

    metadata: ClassVar[dict[str, Any]] = {
        **BoardGameEnv.metadata,
        "name": "leduc_holdem_v0",
        "render_modes": ["ansi", "human"],
    }

    def __init__(
        self,
        players: int = 2,
        action_mapping: bool = False,
        suit_isomorphism: bool = False,
        starting_player: int = 0,
        render_mode: str | None = None,
    ) -> None:
        super().__init__(
            LeducHoldem(players, action_mapping, suit_isomorphism, starting_player),
            render_mode=render_mode,
        )


raw_env = LeducHoldemEnv
env = env_fn(LeducHoldemEnv)
