"""Kuhn poker as a PettingZoo AEC environment (the rules of OpenSpiel's ``kuhn_poker``).

Actions: 0 pass, 1 bet. The deal is drawn by the env's own seeded generator
(``reset(seed=...)``), so agents only ever act at betting decisions. Each agent's observation
shows its own card and the public betting, never another agent's card (layout in
``mcts_agents.envs.games.kuhn_poker``); rewards are the chips won or lost, paid at the end.
Renders as text only (``ansi``, ``human``), showing every card.
"""

from __future__ import annotations

from typing import Any, ClassVar

from mcts_agents.envs.core.aec import BoardGameEnv
from mcts_agents.envs.core.wrappers import env_fn
from mcts_agents.envs.games.kuhn_poker import KuhnPoker

__all__ = ["KuhnPokerEnv", "env", "raw_env"]


class KuhnPokerEnv(BoardGameEnv):
    """Kuhn poker; default two players (OpenSpiel allows 2..10, and so does this env)."""

    metadata: ClassVar[dict[str, Any]] = {
        **BoardGameEnv.metadata,
        "name": "kuhn_poker_v0",
        "render_modes": ["ansi", "human"],
    }

    def __init__(self, players: int = 2, render_mode: str | None = None) -> None:
        super().__init__(KuhnPoker(players), render_mode=render_mode)


raw_env = KuhnPokerEnv
env = env_fn(KuhnPokerEnv)
