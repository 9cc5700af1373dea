"""Kuhn poker: the rules of OpenSpiel's ``kuhn_poker``, chance nodes and information sets included.

A deck of ``players + 1`` cards (0 is the lowest; with two players J, Q, K). Everyone antes one
chip and gets one private card, dealt by chance nodes in seat order (outcome = the card, each
card left in the deck equally likely). Then each player in turn passes (action 0) or bets one
chip (action 1). Once someone has bet, the players after them and then those before them each
call (bet) or fold (pass) once. If nobody bets, the highest card wins the antes; otherwise the
highest card among those who bet wins the pot. Returns are chips won or lost, as OpenSpiel's
``returns()``; ``return_range`` is ``(-2, 2 * (players - 1))``, its ``min_utility`` and
``max_utility``. Actions, chance outcomes and their probabilities are OpenSpiel's, one to one.

State: ``(node, card_0, ..., card_{n-1})``: ``node`` indexes a precomputed table of the public
history (nodes ``0 .. n - 1``: dealing to that seat; from ``n`` on: betting sequences, ``n`` the
empty one), ``card_i`` is seat ``i``'s card or -1 before it is dealt. The state is its own key.

Information-set key of ``player``: ``(player, own card or -1, betting node)``, the betting node
being ``n`` (no bets yet) during the deal. It partitions histories exactly as OpenSpiel's
``information_state_string(player)``: a player's own card and the betting in order, nothing
about the deal's progress (so seat 0 cannot tell whether seat 1 has its card yet).

Observation of ``player`` (flat int8, length ``8n - 1``; 15 for two players):

- ``[0, n)``: the observing seat, one-hot;
- ``[n, 2n + 1)``: its own card, one-hot (zeros before it is dealt);
- ``[2n + 1, 6n - 1)``: the betting, ``2n - 1`` slots of ``(pass, bet)``, one-hot per action
  taken, in order;
- ``[6n - 1, 8n - 1)``: chips committed per seat, two thermometer bits each (ante, bet).

Never another seat's card: the observation is a function of the information set.
"""

from __future__ import annotations

import random
from collections.abc import Hashable
from typing import Any

import numpy as np

from mcts_agents.envs.core.checks import int_field, invalid, state_fields
from mcts_agents.envs.core.errors import InvalidParameterError
from mcts_agents.envs.core.game import CHANCE, BoardGame

State = tuple[int, ...]
PASS, BET = 0, 1
#: ``to_play`` of a terminal state.
TERMINAL = -1
MAX_PLAYERS = 10  # OpenSpiel's kuhn_poker allows 2..10


class KuhnPoker(BoardGame[State]):
    """Kuhn poker for ``players`` seats (default 2), with OpenSpiel's rules and action ids."""

    has_chance = True
    perfect_information = False
    acyclic = True

    def __init__(self, players: int = 2) -> None:
        if (
            isinstance(players, bool)
            or not isinstance(players, (int, np.integer))
            or not 2 <= players <= MAX_PLAYERS
        ):
            raise InvalidParameterError(
                f"players must be an int in [2, {MAX_PLAYERS}], got {players!r}"
            )
        n = self.players = int(players)
        self.name = "kuhn_poker"
        self.num_players = n
        self.num_actions = 2
        self.num_cards = n + 1
        self.observation_shape = (8 * n - 1,)
        self.return_range = (-2.0, 2.0 * (n - 1))
        self._zeros = (0.0,) * n
        self._initial: State = (0,) + (-1,) * n
        #: own card -> the other cards, for determinize
        self._rest = [tuple(c for c in range(n + 1) if c != own) for own in range(n + 1)]
        self._build_tree()

    def params(self) -> dict[str, Hashable]:
        return {"players": self.players}

    def _build_tree(self) -> None:
        """Tables of the public betting tree, one entry per node (see the module docstring)."""
        n = self.players
        empty: tuple[int, ...] = ()
        seqs = [empty] * (n + 1)
        index = {empty: n}
        to_play = [CHANCE] * n
        children: list[tuple[int, int] | None] = [None] * n
        terminal = [False] * n
        antes: list[tuple[int, ...]] = [(1,) * n] * n
        contenders: list[tuple[int, ...]] = [()] * n
        node = n
        while node < len(seqs):
            seq = seqs[node]
            first = seq.index(BET) if BET in seq else None  # the first bettor's seat
            over = len(seq) == (n if first is None else n + first)
            bets = [1] * n
            for i, action in enumerate(seq):
                bets[i % n] += action
            antes.append(tuple(bets))
            terminal.append(over)
            if over:
                to_play.append(TERMINAL)
                children.append(None)
                contenders.append(
                    tuple(range(n)) if first is None else tuple(p for p in range(n) if bets[p] == 2)
                )
            else:
                to_play.append(len(seq) % n)
                kids = []
                for action in (PASS, BET):
                    child = (*seq, action)
                    index[child] = len(seqs)
                    seqs.append(child)
                    kids.append(index[child])
                children.append((kids[0], kids[1]))
                contenders.append(())
            node += 1
        self._seqs = seqs
        self._to_play = to_play
        self._children = children
        self._terminal = terminal
        self._antes = antes
        self._contenders = contenders
        # returns of a terminal node when seat w wins: the pot less its own chips
        self._payoffs: list[list[tuple[float, ...]]] = []
        for chips in antes:
            pot = sum(chips)
            self._payoffs.append(
                [
                    tuple(float(pot - b if p == w else -b) for p, b in enumerate(chips))
                    for w in range(n)
                ]
            )
        # the public part of each node's observation: betting slots, then chips thermometers
        slots = 2 * n - 1
        public = np.zeros((len(seqs), 2 * slots + 2 * n), dtype=np.int8)
        for node, seq in enumerate(seqs):
            for i, action in enumerate(seq):
                public[node, 2 * i + action] = 1
            for p, b in enumerate(antes[node]):
                public[node, 2 * slots + 2 * p : 2 * slots + 2 * p + b] = 1
        self._public_obs = public

    # ------------------------------------------------------------------ rules
    def initial_state(self) -> State:
        return self._initial

    def to_play(self, state: State) -> int:
        """The seat to act, ``CHANCE`` while dealing, ``TERMINAL`` (-1) once the hand is over."""
        return self._to_play[state[0]]

    def is_chance(self, state: State) -> bool:
        return state[0] < self.players

    def is_terminal(self, state: State) -> bool:
        return self._terminal[state[0]]

    def legal_actions(self, state: State) -> list[int]:
        node = state[0]
        if node < self.players:
            dealt = state[1:]
            return [c for c in range(self.num_cards) if c not in dealt]
        return [] if self._terminal[node] else [PASS, BET]

    def is_legal(self, state: State, action: int) -> bool:
        node = state[0]
        if node < self.players:
            return 0 <= action < self.num_cards and action not in state[1:]
        return not self._terminal[node]  # both actions are always legal while betting

    def chance_outcomes(self, state: State) -> list[tuple[int, float]]:
        """The cards left in the deck, each with probability ``1 / cards left`` (OpenSpiel's
        ``1.0 / (players + 1 - dealt)``)."""
        node = state[0]
        if node >= self.players:
            raise TypeError(f"{self.name}: {state!r} is not a chance node")
        p = 1.0 / (self.num_cards - node)
        dealt = state[1:]
        return [(c, p) for c in range(self.num_cards) if c not in dealt]

    def sample_chance(self, state: State, rng: Any) -> int:
        dealt = state[1:]
        cards = [c for c in range(self.num_cards) if c not in dealt]
        return cards[int(rng.random() * len(cards))]

    def next_state(self, state: State, action: int) -> State:
        node = state[0]
        children = self._children[node]
        if children is not None:
            return (children[action],) + state[1:]  # noqa: RUF005 (faster than unpacking)
        # a deal: seat ``node`` gets card ``action``
        return (node + 1, *state[1 : node + 1], action, *state[node + 2 :])

    def returns(self, state: State) -> tuple[float, ...]:
        node = state[0]
        if not self._terminal[node]:
            return self._zeros
        best = winner = -1
        for p in self._contenders[node]:
            card = state[p + 1]
            if card > best:
                best, winner = card, p
        return self._payoffs[node][winner]

    def check_state(self, state: object) -> None:
        """Exact: the node one of the tree's, the seats before it dealt (all of them once the
        betting starts) and no further, each card of the deck at most once. See
        ``BoardGame.check_state``."""
        name, n = self.name, self.players
        fields = state_fields(name, state, ("node", *(f"card_{p}" for p in range(n))))
        node = int_field(name, "node", fields[0], 0, len(self._seqs) - 1)
        cards = fields[1:]
        for p, card in enumerate(cards):
            int_field(name, f"card_{p}", card, -1, self.num_cards - 1)
        dealt = min(node, n)  # the seats dealt so far
        if any(card < 0 for card in cards[:dealt]) or any(card >= 0 for card in cards[dealt:]):
            invalid(name, f"cards {cards} at node {node}: expected the first {dealt} seats dealt")
        if len(set(cards[:dealt])) < dealt:
            invalid(name, f"cards {cards}: a card is dealt twice")

    def is_reachable(self, state: State, key: Hashable) -> bool:
        """Dealt cards stay and the betting only grows: the key's cards agree with every card
        dealt in ``state``, and its node is ``state``'s node or below it in the tree."""
        if not isinstance(key, tuple) or len(key) != len(state):
            return False
        if any(card >= 0 and key[i] != card for i, card in enumerate(state) if i):
            return False
        node, later, n = state[0], key[0], self.players
        if later < n or node < n:
            return later >= node
        seq = self._seqs[node]
        return self._seqs[later][: len(seq)] == seq

    def rollout(self, state: State, rng: random.Random) -> tuple[float, ...]:
        """Uniformly random play to the end, the deals drawn uniformly from the deck."""
        rand = rng.random
        while state[0] < self.players:  # finish the deal
            state = self.next_state(state, self.sample_chance(state, rng))
        node = state[0]
        children, terminal = self._children, self._terminal
        while not terminal[node]:
            node = children[node][int(rand() * 2)]  # type: ignore[index]
        return self.returns((node, *state[1:]))

    # ------------------------------------------------------------------ information
    def information_set(self, state: State, player: int) -> Hashable:
        """``(player, own card or -1, betting node)``: see the module docstring."""
        node = state[0]
        n = self.players
        return (player, state[player + 1], node if node >= n else n)

    def determinize(self, state: State, player: int, rng: random.Random) -> State:
        """A fully dealt state drawn uniformly from those ``player`` cannot tell from ``state``.

        The other seats' cards are a uniformly random arrangement of the cards ``player`` has
        not seen, whether or not they are dealt yet (seat 0 cannot tell), so a state during the
        deal comes back as a state at the first bet. A player without a card has seen nothing:
        the initial state. Reads only ``player``'s card, the betting and ``rng``.
        """
        n = self.players
        own = state[player + 1]
        if own < 0:
            return self._initial
        node = state[0]
        if node < n:
            node = n
        if n == 2:
            other = self._rest[own][int(rng.random() * 2)]
            return (node, own, other) if player == 0 else (node, other, own)
        pool = list(self._rest[own])
        cards = [node]
        left = n
        for seat in range(n):
            if seat == player:
                cards.append(own)
                continue
            j = int(rng.random() * left)
            cards.append(pool[j])
            left -= 1
            pool[j] = pool[left]
        return tuple(cards)

    # ------------------------------------------------------------------ views
    def observation(self, state: State, player: int) -> np.ndarray:
        """Flat int8 planes (layout in the module docstring): what ``player`` has seen."""
        n = self.players
        obs = np.zeros(self.observation_shape, dtype=np.int8)
        obs[player] = 1
        own = state[player + 1]
        if own >= 0:
            obs[n + own] = 1
        node = state[0]
        obs[2 * n + 1 :] = self._public_obs[node if node >= n else n]
        return obs

    def card_name(self, card: int) -> str:
        """``J``, ``Q``, ``K`` with two players (OpenSpiel's cards 0, 1, 2), else the number."""
        if card < 0:
            return "?"
        return "JQK"[card] if self.num_cards == 3 else str(card)

    def render_text(self, state: State) -> str:
        """All cards (a spectator's view), the betting, the pot and who acts or won."""
        n = self.players
        node = state[0]
        cards = ", ".join(f"player {p} {self.card_name(state[p + 1])}" for p in range(n))
        seq = self._seqs[node] if node >= n else ()
        betting = " ".join("bet" if a else "pass" for a in seq) or "-"
        antes = self._antes[node]
        lines = [
            f"cards: {cards}",
            f"betting: {betting}",
            f"pot {sum(antes)}; chips in: {' '.join(map(str, antes))}",
        ]
        if node < n:
            lines.append(f"dealing to player {node}")
        elif self._terminal[node]:
            returns = self.returns(state)
            winner = max(range(n), key=returns.__getitem__)
            lines.append(f"player {winner} wins {returns[winner]:g}")
        else:
            lines.append(f"player {self._to_play[node]} to play")
        return "\n".join(lines)

    def action_to_string(self, state: State, action: int) -> str:
        node = state[0]
        if node < self.players:
            return f"deal {self.card_name(action)} to player {node}"
        return "bet" if action == BET else "pass"
