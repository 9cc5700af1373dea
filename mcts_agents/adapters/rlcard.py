"""PettingZoo's rlcard poker envs (``leduc_holdem_v4``, ``texas_holdem_v4``,
``texas_holdem_no_limit_v6``) as games with private information, searched without peeking.

The states are verified clones of the env (``generic.EnvGame``), which hold every hand and the
dealer's deck: reading them would be cheating. Information Set MCTS reads them only through:

- ``information_set(state, player)``: the player's own hand, the public cards and the public
  betting state (chips in, statuses, the round's raise counts, whose turn); all of it is seen by
  the player, and it fixes everything that can happen next but the unseen cards;
- ``determinize(state, player, rng)``: a clone in which every card the player has not seen (the
  other hands and the deck, whose order is the env's future) is shuffled with the search's
  generator and dealt again into the same places, and the clone's random generator is reseeded
  from it, so nothing of the env's hidden cards or future draws survives.

Other rlcard games are refused: no redeal is written for them.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Hashable
from typing import Any

from mcts_agents.adapters.aec import bookkeeping, check_live, describe_env
from mcts_agents.adapters.cloning import Memo, verified_clone
from mcts_agents.adapters.generic import EnvGame, EnvState
from mcts_agents.errors import CloneError, GameOverError

__all__ = ["RLCardGame", "rlcard_env_type", "rlcard_game"]

#: rlcard game class -> (the most chips one player can put in, chips per payoff unit).
_HOLDEM = {
    "LeducholdemGame": (14, 2),  # blinds 1/2, 2 raises of 2 then of 4; payoffs in big blinds
    "LimitHoldemGame": (50, 2),  # big blind 2, 4 raises of 2, 2, 4, 4 a round; in big blinds
    "NolimitholdemGame": (None, 1),  # every stack (init_chips) can go in; payoffs in chips
}


def rlcard_env_type() -> type | None:
    """PettingZoo's rlcard base env class if it is loaded (an env of it implies it is)."""
    module = sys.modules.get("pettingzoo.classic.rlcard_envs.rlcard_base")
    return getattr(module, "RLCardBase", None)


def _card(card: Any) -> str:
    return str(card.get_index())


def _hand(player: Any) -> tuple[str, ...]:
    hand = player.hand
    return tuple(_card(c) for c in hand) if isinstance(hand, list) else (_card(hand),)


def _ints(obj: Any) -> tuple[tuple[str, Any], ...]:
    """The public int and list-of-int fields of an rlcard object (betting state), sorted."""
    fields: list[tuple[str, Any]] = []
    for name, value in sorted(vars(obj).items()):
        if isinstance(value, (bool, int, str)) or value is None:
            fields.append((name, value))
        elif isinstance(value, list) and all(isinstance(v, int) for v in value):
            fields.append((name, tuple(value)))
        elif hasattr(value, "value") and type(value).__module__.startswith("rlcard"):
            fields.append((name, str(value)))  # an enum: a player's status, the stage
    return tuple(fields)


class RLCardGame(EnvGame):
    """``EnvGame`` over an rlcard poker env, with information sets and redealing (see the
    module docstring)."""

    perfect_information = False

    def __init__(self, env: Any, memo: Memo, return_range: tuple[float, float]) -> None:
        super().__init__(env, memo)
        self.return_range = return_range
        self.spec = ("pettingzoo-rlcard", env.unwrapped.metadata.get("name"), self.num_players)

    @staticmethod
    def _rlcard(state: EnvState) -> Any:
        return state.env.unwrapped.env.game

    def information_set(self, state: EnvState, player: int) -> Hashable:
        game = self._rlcard(state)
        public = getattr(game, "public_cards", None)
        if public is None:
            card = getattr(game, "public_card", None)
            public = [] if card is None else [card]
        return (
            _hand(game.players[player]),
            tuple(_card(c) for c in public),
            tuple(_ints(p) for p in game.players),
            _ints(game.round),
            getattr(game, "round_counter", None),
            getattr(game, "game_pointer", None),
            str(getattr(game, "stage", "")),
        )

    def determinize(self, state: EnvState, player: int, rng: random.Random) -> EnvState:
        env, book = self.clone_state(state)
        game = env.unwrapped.env.game
        others = [p for i, p in enumerate(game.players) if i != player]
        unseen = [c for p in others for c in _cards(p.hand)] + list(game.dealer.deck)
        unseen.sort(key=_card)  # a canonical order first: the true order is hidden information
        rng.shuffle(unseen)
        dealt = iter(unseen)
        for p in others:
            if isinstance(p.hand, list):
                p.hand = [next(dealt) for _ in p.hand]
            else:
                p.hand = next(dealt)
        game.dealer.deck = list(dealt)
        game.np_random.seed(rng.getrandbits(32))  # one RandomState, shared by the dealer
        world = self._state(env, book, list(state.rewards))
        return world


def _cards(hand: Any) -> list[Any]:
    return list(hand) if isinstance(hand, list) else [hand]


def rlcard_game(env: Any, raw: Any) -> tuple[RLCardGame, EnvState]:
    """The game and root state for a live rlcard poker env (``CloneError`` for other games)."""
    agents, selected, terminations, truncations = bookkeeping(env)
    check_live(env, agents, selected, terminations, truncations)
    game_type = type(raw.env.game).__name__
    if game_type not in _HOLDEM:
        raise CloneError(
            f"{describe_env(env)} hides its players' cards and no redeal is written for "
            f"rlcard's {game_type}, so it cannot be searched without peeking; supported: "
            "leduc_holdem_v4, texas_holdem_v4, texas_holdem_no_limit_v6 "
            "(information='oracle' searches the true state, a cheat, only on purpose)"
        )
    most, unit = _HOLDEM[game_type]
    if most is None:
        most = max(raw.env.game.init_chips)
    players = raw.num_players
    return_range = (-most / unit, (players - 1) * most / unit)
    memo: Memo = {}
    clone = verified_clone(env, memo)
    game = RLCardGame(clone, memo, return_range)
    root = game.root(clone)
    if root.terminal:
        raise GameOverError(f"the game in {env} is over")
    game.legal_actions(root)  # raises NoLegalActionError for a stuck live env
    return game, root
