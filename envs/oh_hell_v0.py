"""Oh Hell as a PettingZoo AEC environment (3-7 players; the rules of OpenSpiel's ``oh_hell``).

The env deals with its own generator (``reset(seed=...)``): agents act only to bid and to play
cards, never at the chance nodes (number of tricks, dealer, deal, trump card). Actions are
OpenSpiel's: card ``c`` (rank ``c // num_suits``, suit ``c % num_suits``) plays it, and
``num_cards + b`` bids ``b``. Each agent's observation is a flat int8 vector from its seat that
shows only what it may see (its hand, the trump card, bids, tricks won, the cards played); see
``OhHell.observation``. Rewards, paid at the end, are the scores (general sum). Rendering is text
only (``ansi``, ``human``). See ``mcts_agents.envs.games.oh_hell`` for rules and parameters.
"""

from __future__ import annotations

from typing import Any, ClassVar

from mcts_agents.envs.core.aec import BoardGameEnv
from mcts_agents.envs.core.wrappers import env_fn
from mcts_agents.envs.games.oh_hell import OhHell

__all__ = ["OhHellEnv", "env", "raw_env"]


class OhHellEnv(BoardGameEnv):
    """Oh Hell; default 3 players, a 52-card deck and a random number of tricks."""

    metadata: ClassVar[dict[str, Any]] = {
        **BoardGameEnv.metadata,
        "render_modes": ["ansi", "human"],
        "name": "oh_hell_v0",
    }

    def __init__(
        self,
        players: int = 3,
        num_suits: int = 4,
        num_cards_per_suit: int = 13,
        num_tricks_fixed: int = -1,
        off_bid_penalty: bool = False,
        points_per_trick: int = 1,
        render_mode: str | None = None,
    ) -> None:
        game = OhHell(
            players=players,
            num_suits=num_suits,
            num_cards_per_suit=num_cards_per_suit,
            num_tricks_fixed=num_tricks_fixed,
            off_bid_penalty=off_bid_penalty,
            points_per_trick=points_per_trick,
        )
        super().__init__(game, render_mode=render_mode)


raw_env = OhHellEnv
env = env_fn(OhHellEnv)
