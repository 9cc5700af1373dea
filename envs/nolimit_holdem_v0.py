"""Heads-up no-limit Texas hold'em with rlcard's rules (PettingZoo's ``texas_holdem_no_limit_v6``)
as an AEC env of ours.

The same game as PettingZoo's two-player ``texas_holdem_no_limit_v6``, action for action: 0 fold,
1 check/call, 2 raise half the pot, 3 raise the pot, 4 all in; stacks of 100 chips, blinds of 1
and 2, the dealer seat (the big blind) drawn at random; observations are PettingZoo's 54 entries
(own hole cards and the board, own chips in, the largest chips in; never the other hand);
rewards are the chips won or lost, paid at the end (rules in
``mcts_agents.envs.games.nolimit_holdem``). The deal and the dealer are drawn by the env's own
seeded generator (``reset(seed=...)``), and the env adds O(1) ``save_state``/``restore_state``.
Renders as text only (``ansi``, ``human``), showing every card.
"""

from __future__ import annotations

from typing import Any, ClassVar

from mcts_agents.envs.core.aec import BoardGameEnv
from mcts_agents.envs.core.wrappers import env_fn
from mcts_agents.envs.games.nolimit_holdem import NoLimitHoldem

__all__ = ["NoLimitHoldemEnv", "env", "raw_env"]


class NoLimitHoldemEnv(BoardGameEnv):
    """rlcard's no-limit Texas hold'em for two players."""

    metadata: ClassVar[dict[str, Any]] = {
        **BoardGameEnv.metadata,
        "name": "nolimit_holdem_v0",
        "render_modes": ["ansi", "human"],
    }

    def __init__(self, players: int = 2, render_mode: str | None = None) -> None:
        super().__init__(NoLimitHoldem(players), render_mode=render_mode)


raw_env = NoLimitHoldemEnv
env = env_fn(NoLimitHoldemEnv)
