"""Leduc hold'em with rlcard's rules: the rules core of PettingZoo's ``leduc_holdem_v4``.

Not OpenSpiel's ``leduc_poker`` (that is ``leduc_holdem.LeducHoldem``): rlcard posts blinds of
1 and 2 chips (the small-blind seat drawn at random and acting first) instead of antes, lets a
player fold when it could check, and pays in big blinds. The betting is rlcard's limit betting
(``rlcard_poker``): raises of 2 chips in round 1 and 4 in round 2, at most two a round.

Cards are ranks: 0 J, 1 Q, 2 K, two of each (rlcard's suits never matter, and PettingZoo's
observation shows ranks only). ``cards`` in the state is ``(seat 0's card, seat 1's card,
public card)`` as far as dealt; each chance outcome is a rank, with probability its copies left
over the cards left. At the showdown a seat whose card pairs the public card wins, else the
higher card; equal cards split.

Observation of ``player``: PettingZoo's, as rlcard's ``LeducholdemEnv._extract_state`` builds
it (36 entries): ``[0, 3)`` own card, ``[3, 6)`` public card, ``6 + chips in by player``,
``21 + chips in by the other seat``, each one-hot.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

import numpy as np

from mcts_agents.envs.core.errors import InvalidStateError
from mcts_agents.envs.games.rlcard_poker import RLCardPoker, State

__all__ = ["RLCardLeduc"]

_RANKS = "JQK"


class RLCardLeduc(RLCardPoker):
    """Leduc hold'em as rlcard's ``LeducholdemGame`` plays it (two players)."""

    rounds = 2
    raise_amounts = (2, 4)
    raise_cap = 2
    hole = 1
    board_after = (1,)

    def __init__(self, players: int = 2) -> None:
        self.name = "rlcard_leduc_holdem"
        self.observation_shape = (36,)
        self._pools: dict[tuple[int, ...], tuple[int, ...]] = {}
        super().__init__(players)

    def _pool(self, cards: Any) -> tuple[int, ...]:
        """The cards left (ranks, one entry per copy) when ``cards`` are out."""
        key = tuple(sorted(cards))
        pool = self._pools.get(key)
        if pool is None:
            pool = self._pools[key] = tuple(
                r for r in range(3) for _ in range(max(0, 2 - key.count(r)))
            )
        return pool

    def deck_outcomes(self, cards: tuple[int, ...]) -> list[tuple[int, float]]:
        pool = self._pool(cards)
        return [(r, pool.count(r) / len(pool)) for r in range(3) if r in pool]

    def draw_card(self, cards: Any, rand: Any) -> int:
        pool = self._pool(cards)
        return pool[int(rand() * len(pool))]

    def determinize(self, state: State, player: int, rng: Any) -> State:
        """The other seat's card drawn again from the copies ``player`` has not seen."""
        node, cards = state
        if len(cards) < 2:
            return super().determinize(state, player, rng)
        own, public = cards[player], cards[2:]
        pool = self._pool((own, *public))
        other = pool[int(rng.random() * len(pool))]
        return (node, (own, other, *public)) if player == 0 else (node, (other, own, *public))

    def showdown(self, cards: tuple[int, ...]) -> int:
        c0, c1, public = cards
        if c0 == public:
            return 1
        if c1 == public:
            return -1
        return (c0 > c1) - (c0 < c1)

    def information_set(self, state: State, player: int) -> Hashable:
        """``(player, node, own card, public card)`` (-1 for a card not dealt yet)."""
        node, cards = state
        n = len(cards)
        own = cards[player] if n > player else -1
        return (player, node, own, cards[2] if n > 2 else -1)

    def check_cards(self, cards: tuple[int, ...]) -> None:
        if any(not 0 <= c < 3 for c in cards) or any(cards.count(r) > 2 for r in range(3)):
            raise InvalidStateError(
                f"{self.name}: cards must be ranks 0..2, at most two of each; got {cards!r}"
            )

    def card_name(self, card: int) -> str:
        return _RANKS[card] if 0 <= card < 3 else "?"

    def observation(self, state: State, player: int) -> np.ndarray:
        """PettingZoo's observation (module docstring); never the other seat's card."""
        node, cards = state
        obs = np.zeros(36, dtype=np.int8)
        if len(cards) > player:
            obs[cards[player]] = 1
        if len(cards) > 2:
            obs[3 + cards[2]] = 1
        fact = self._facts[node]
        chips = (0, 0) if fact is None else (fact[6], fact[7])
        mine, theirs = chips[player], chips[1 - player]
        obs[6 + mine] = 1
        obs[21 + theirs] = 1
        return obs
