"""Heads-up limit Texas hold'em with rlcard's rules (PettingZoo's ``texas_holdem_v4``) as an AEC
env of ours.

The same game as PettingZoo's two-player ``texas_holdem_v4``, action for action: 0 call, 1 raise,
2 fold, 3 check; blinds of 1 and 2 chips, the small-blind seat drawn at random; observations are
PettingZoo's 72 entries (own hole cards and the board, raises per round; never the other hand);
rewards are the chips won or lost in big blinds, paid at the end (rules in
``mcts_agents.envs.games.limit_holdem``). The deal and the blinds are drawn by the env's own
seeded generator (``reset(seed=...)``), and the env adds O(1) ``save_state``/``restore_state``.
Renders as text only (``ansi``, ``human``), showing every card.
"""

from __future__ import annotations

from typing import Any, ClassVar

from mcts_agents.envs.core.aec import BoardGameEnv
from mcts_agents.envs.core.wrappers import env_fn
from mcts_agents.envs.games.limit_holdem import LimitHoldem

__all__ = ["LimitHoldemEnv", "env", "raw_env"]


class LimitHoldemEnv(BoardGameEnv):
    """rlcard's limit Texas hold'em for two players."""

    metadata: ClassVar[dict[str, Any]] = {
        **BoardGameEnv.metadata,
        "name": "limit_holdem_v0",
        "render_modes": ["ansi", "human"],
    }

    def __init__(self, players: int = 2, render_mode: str | None = None) -> None:
        super().__init__(LimitHoldem(players), render_mode=render_mode)


raw_env = LimitHoldemEnv
env = env_fn(LimitHoldemEnv)
