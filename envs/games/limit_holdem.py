"""Limit Texas hold'em with rlcard's rules: the rules core of PettingZoo's ``texas_holdem_v4``.

rlcard's ``LimitHoldemGame`` for two players (the betting in ``rlcard_poker``): blinds of 1
and 2 chips, the small-blind seat drawn at random and acting first before the flop; raises of
2 chips before the flop and on it, 4 on the turn and the river, at most four a round; two hole
cards each, then the flop (three cards), the turn and the river. The showdown ranks the best
five of each seat's seven cards (``holdem_eval``, checked against rlcard's own evaluator);
equal hands split the pot.

Cards are rlcard's indices 0..51 (``holdem_eval``). ``cards`` in the state is seat 0's two hole
cards, seat 1's two, then the board in the order dealt; each chance outcome is a card left in
the deck, all equally likely.

Observation of ``player``: PettingZoo's, as rlcard's ``LimitholdemEnv._extract_state`` builds it
(72 entries): ``[0, 52)`` the player's hole cards and the board, ``52 + 5 * r + k`` for the
``k`` raises of round ``r`` (each of the four rounds one-hot; rounds not reached show 0).
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

import numpy as np

from mcts_agents.envs.core.errors import InvalidStateError
from mcts_agents.envs.games.holdem_eval import card_name, hand_value
from mcts_agents.envs.games.rlcard_poker import RLCardPoker, State

__all__ = ["LimitHoldem"]


#: cards dealt -> every card with the probability of one of the cards left
_EVERY_CARD = [tuple((c, 1.0 / (52 - n)) for c in range(52)) for n in range(10)]


class LimitHoldem(RLCardPoker):
    """Heads-up limit Texas hold'em as rlcard's ``LimitHoldemGame`` plays it."""

    rounds = 4
    raise_amounts = (2, 2, 4, 4)
    raise_cap = 4
    hole = 2
    board_after = (3, 1, 1)
    keep_raise_history = True

    def __init__(self, players: int = 2) -> None:
        self.name = "limit_holdem"
        self.observation_shape = (72,)
        super().__init__(players)

    def deck_outcomes(self, cards: tuple[int, ...]) -> list[tuple[int, float]]:
        outcomes = list(_EVERY_CARD[len(cards)])  # each card at 1 / (cards left), in order
        for c in sorted(cards, reverse=True):
            del outcomes[c]
        return outcomes

    def draw_card(self, cards: Any, rand: Any) -> int:
        card = int(rand() * 52)
        while card in cards:
            card = int(rand() * 52)
        return card

    def determinize(self, state: State, player: int, rng: Any) -> State:
        """The other seat's two hole cards drawn again, uniformly from the cards ``player`` has
        not seen (its own and the board)."""
        node, cards = state
        if len(cards) < 4:
            return super().determinize(state, player, rng)
        rand = rng.random
        seen = cards[2:] if player else (*cards[:2], *cards[4:])
        a = int(rand() * 52)
        while a in seen:
            a = int(rand() * 52)
        b = int(rand() * 52)
        while b == a or b in seen:
            b = int(rand() * 52)
        if player:
            return (node, (a, b, *cards[2:]))
        return (node, (*cards[:2], a, b, *cards[4:]))

    def showdown(self, cards: tuple[int, ...]) -> int:
        board = cards[4:]
        v0 = hand_value((cards[0], cards[1], *board))
        v1 = hand_value((cards[2], cards[3], *board))
        return (v0 > v1) - (v0 < v1)

    def information_set(self, state: State, player: int) -> Hashable:
        """``(player, node, own hole cards, flop sorted, turn, river)`` as far as dealt."""
        node, cards = state
        n = len(cards)
        if n < 4:
            return (player, node, tuple(sorted(cards[2 * player : 2 * player + 2])))
        a, b = (cards[2], cards[3]) if player else (cards[0], cards[1])
        own = a * 52 + b if a < b else b * 52 + a
        if n == 4:
            return (player, node, own)
        return (player, node, own, *sorted(cards[4:7]), *cards[7:])

    def check_cards(self, cards: tuple[int, ...]) -> None:
        if any(not 0 <= c < 52 for c in cards) or len(set(cards)) != len(cards):
            raise InvalidStateError(
                f"{self.name}: cards must be distinct card indices in [0, 52); got {cards!r}"
            )

    def card_name(self, card: int) -> str:
        return card_name(card) if 0 <= card < 52 else "?"

    def observation(self, state: State, player: int) -> np.ndarray:
        """PettingZoo's observation (module docstring); never the other seat's cards."""
        node, cards = state
        obs = np.zeros(72, dtype=np.int8)
        for c in (*cards[2 * player : 2 * player + 2], *cards[4:]):
            obs[c] = 1
        fact = self._facts[node]
        if fact is None:
            raises = [0, 0, 0, 0]
        else:
            raises = [*fact[8], fact[4]]
            raises += [0] * (4 - len(raises))
        for r, k in enumerate(raises[:4]):
            obs[52 + 5 * r + k] = 1
        return obs
