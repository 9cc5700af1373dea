"""The betting rules rlcard's limit poker games share: the base of ``RLCardLeduc`` and
``LimitHoldem``, the rules cores of PettingZoo's ``leduc_holdem_v4`` and ``texas_holdem_v4``.

rlcard's ``LimitHoldemRound`` (Leduc's round is the same class) as PettingZoo's envs run it with
two players, read from rlcard 1.2's source:

- Every card is dealt first (one or two hole cards per seat); then seat ``s``, drawn uniformly
  (``np_random.randint``), posts the small blind of 1 chip and the other seat the big blind of
  2. Seat ``s`` acts first in the first round (hold'em's "next to the big blind" is ``s`` with
  two players; Leduc's "small blind first" too).
- Actions are PettingZoo's ids, rlcard's ``['call', 'raise', 'fold', 'check']``: 0 call (only
  when behind in the round), 1 raise (while the round has had fewer than the cap of raises: 2
  in Leduc, 4 in hold'em; the blinds are not raises), 2 fold (always legal, even when a check
  is), 3 check (only when not behind). A raise puts in what the seat is behind plus the round's
  raise amount (Leduc 2 then 4; hold'em 2, 2, 4, 4).
- A round ends after two actions without a raise since the last raise (rlcard counts the raise
  itself as one: ``not_raise_num``). The next round is opened by the seat after the one that
  closed the previous round (rlcard keeps its game pointer; there is no fixed button), with
  the round's raised chips back at zero and the public cards dealt (Leduc: one after round 1;
  hold'em: three, one, one). A fold ends the hand: the other seat wins what the folder put in.
  After the last round (Leduc's second, hold'em's fourth) the showdown: the better hand wins
  what the other put in, equal hands split (each gets its chips back).
- Payoffs are chips over the big blind (rlcard's ``get_payoffs``), as PettingZoo's rewards.

State: ``(node, cards)``. ``node`` indexes precomputed tables of the public betting state:
node 0 deals the hole cards (a chance node per card), node 1 draws the small-blind seat (a
chance node, outcomes 0 and 1), then betting nodes, deal nodes between rounds and terminal
nodes. A betting node stands for rlcard's whole public betting state (round, seat to act, chips
in this round and in total, raises and calls this round; in hold'em also the raises of the
earlier rounds, which its observation shows), so the same state reached by other bets is one
node. ``cards`` is the tuple of cards dealt so far, hole cards first (seat 0's, then seat 1's),
then the public cards in the order dealt; the subclass says what a card is.

Information-set key of ``player``: ``(player, node, own cards, public cards)``, own cards and
the flop as sorted tuples (PettingZoo's observations show cards as sets). It never holds the
opponent's cards, and ``determinize`` redeals exactly those, from the cards the player has not
seen, with the search's generator.
"""

from __future__ import annotations

import random
from collections.abc import Hashable
from typing import Any

import numpy as np

from mcts_agents.envs.core.checks import int_field, invalid, short, state_fields
from mcts_agents.envs.core.errors import InvalidParameterError
from mcts_agents.envs.core.game import CHANCE, BoardGame

State = tuple[int, tuple[int, ...]]
CALL, RAISE, FOLD, CHECK = 0, 1, 2, 3
ACTION_NAMES = ("call", "raise", "fold", "check")
#: ``to_play`` of a terminal state.
TERMINAL = -1
SMALL_BLIND, BIG_BLIND = 1, 2
# node kinds
DEAL, BLIND, BET, FOLDED, SHOWDOWN = range(5)
#: a betting node's public facts, a tuple whose first two fields are the round and the seat to
#: act. Limit betting: round, seat to act, chips raised this round by seat 0 and 1, raises and
#: calls this round, chips in by seat 0 and 1, raises of the earlier rounds.
Facts = tuple[Any, ...]


class RLCardPoker(BoardGame[State]):
    """rlcard's two-player betting over a deck the subclass defines (see the module docstring):
    limit betting here; a subclass may replace the betting hooks (``_root_facts``,
    ``_legal_in``, ``_after``, ``_chips``). Subclasses set the class attributes below and the
    card methods."""

    has_chance = True
    perfect_information = False
    acyclic = True
    num_actions = 4
    #: betting rounds, raise amount of each, the most raises a round
    rounds: int
    raise_amounts: tuple[int, ...]
    raise_cap: int
    #: hole cards per seat; public cards dealt after each round but the last
    hole: int
    board_after: tuple[int, ...]
    #: keep the raises of the earlier rounds in the node (the observation shows them)
    keep_raise_history: bool = False
    #: chips per unit of payoff (rlcard's limit games pay in big blinds)
    payoff_unit: int = BIG_BLIND

    def __init__(self, players: int = 2) -> None:
        if isinstance(players, bool) or players != 2:
            raise InvalidParameterError(
                f"players must be 2 (rlcard's {type(self).__name__} rules are implemented for "
                f"two players; PettingZoo's other counts are searched by cloning), got {players!r}"
            )
        self.num_players = 2
        most = self._max_chips()
        #: the most chips one seat can put in
        self.max_chips = most
        self.return_range = (-most / self.payoff_unit, most / self.payoff_unit)
        self._build_tree()

    def params(self) -> dict[str, Hashable]:
        return {"players": 2}

    # ------------------------------------------------------------------ the betting tree
    def _build_tree(self) -> None:
        """Every public betting state reachable from the two blind seatings, as tables."""
        hole_total = 2 * self.hole
        width = self.num_actions
        kinds: list[int] = [DEAL, BLIND]
        facts: list[Facts | None] = [None, None]
        extra: list[int] = [0, 0]  # folder of a FOLDED node
        ids: dict[tuple[int, Facts, int], int] = {}
        cards = [0, hole_total]  # cards dealt at the node (a deal node: when it starts)
        self._deal_target = [hole_total, 0]
        self._deal_next = [1, -1]
        children: list[tuple[int, ...] | None] = [None, None]

        def node_of(kind: int, fact: Facts, folder: int = 0, dealt: int = hole_total) -> int:
            key = (kind, fact, folder)
            found = ids.get(key)
            if found is None:
                found = ids[key] = len(kinds)
                kinds.append(kind)
                facts.append(fact)
                extra.append(folder)
                children.append(None)
                cards.append(dealt)
                self._deal_target.append(0)
                self._deal_next.append(-1)
            return found

        self._blind_next = tuple(node_of(BET, fact) for fact in self._root_facts())
        i = 0
        while i < len(kinds):
            fact = facts[i]
            if kinds[i] == BET and fact is not None:
                kids = [-1] * width
                for action in self._legal_in(fact):
                    kind, after, folder, needed = self._after(fact, action)
                    child = node_of(kind, after, folder, max(needed, cards[i]))
                    if needed > cards[i]:  # cards are dealt first: a deal node before it
                        deal = node_of(DEAL, (kind, after, folder), 0, cards[i])
                        self._deal_target[deal] = needed
                        self._deal_next[deal] = child
                        child = deal
                    kids[action] = child
                children[i] = tuple(kids)
            i += 1
        self._kind = kinds
        self._facts = [f[1] if k == DEAL and f else f for k, f in zip(kinds, facts, strict=True)]
        self._cards = cards
        self._children = children
        self._legal: list[tuple[int, ...] | None] = [
            None if kids is None else tuple(a for a in range(width) if kids[a] >= 0)
            for kids in children
        ]
        self._to_play = [
            CHANCE if kind in (DEAL, BLIND) else (f[1] if kind == BET and f else TERMINAL)
            for kind, f in zip(kinds, facts, strict=True)
        ]
        self._terminal = [kind in (FOLDED, SHOWDOWN) for kind in kinds]
        self._is_chance = [kind in (DEAL, BLIND) for kind in kinds]
        self._fixed_returns: list[tuple[float, float] | None] = []
        self._stake: list[float] = []
        unit = self.payoff_unit
        for kind, f, folder in zip(kinds, self._facts, extra, strict=True):
            chips = (0, 0) if f is None else self._chips(f)
            lost = chips[folder] / unit
            if kind == FOLDED:
                self._fixed_returns.append((-lost, lost) if folder == 0 else (lost, -lost))
            elif kind == SHOWDOWN:
                self._fixed_returns.append(None)
            else:
                self._fixed_returns.append((0.0, 0.0))
            self._stake.append(min(chips) / unit)  # equal at a showdown
        self._folder = extra

    def _max_chips(self) -> int:
        return BIG_BLIND + sum(a * self.raise_cap for a in self.raise_amounts)

    def _chips(self, fact: Facts) -> tuple[int, int]:
        """The chips each seat has put in."""
        return (fact[6], fact[7])

    def _root_facts(self) -> tuple[Facts, Facts]:
        """The first betting state for each outcome of the blind draw (seat 0 or 1 small)."""
        roots = []
        for s in (0, 1):
            chips = (SMALL_BLIND, BIG_BLIND) if s == 0 else (BIG_BLIND, SMALL_BLIND)
            roots.append((0, s, *chips, 0, 0, *chips, ()))
        return (roots[0], roots[1])

    def _legal_in(self, fact: Facts) -> list[int]:
        """rlcard's ``get_legal_actions`` (as PettingZoo's ids, ascending)."""
        _, ptr, r0, r1, raises, _, _, _, _ = fact
        mine, top = (r0, r1)[ptr], max(r0, r1)
        legal = []
        if mine < top:
            legal.append(CALL)
        if raises < self.raise_cap:
            legal.append(RAISE)
        legal.append(FOLD)
        if mine == top:
            legal.append(CHECK)
        return legal

    def _after(self, fact: Facts, action: int) -> tuple[int, Facts, int, int]:
        """rlcard's ``proceed_round`` then the game's round change: the next node's kind, facts
        and folder, and the cards dealt when it is reached (more than now: a deal first)."""
        rnd, ptr, r0, r1, raises, calls, i0, i1, history = fact
        raised, chips = [r0, r1], [i0, i1]
        top = max(raised)
        if action == CALL:
            chips[ptr] += top - raised[ptr]
            raised[ptr] = top
            calls += 1
        elif action == RAISE:
            chips[ptr] += top - raised[ptr] + self.raise_amounts[rnd]
            raised[ptr] = top + self.raise_amounts[rnd]
            raises += 1
            calls = 1
        elif action == CHECK:
            calls += 1
        nxt = 1 - ptr
        after: Facts = (rnd, nxt, raised[0], raised[1], raises, calls, chips[0], chips[1], history)
        dealt = 2 * self.hole + sum(self.board_after[:rnd])
        if action == FOLD:
            return FOLDED, after, ptr, dealt
        if calls < 2:
            return BET, after, 0, dealt
        if rnd == self.rounds - 1:
            return SHOWDOWN, after, 0, dealt
        kept = (*history, raises) if self.keep_raise_history else ()
        nxt_fact = (rnd + 1, nxt, 0, 0, 0, 0, chips[0], chips[1], kept)
        return BET, nxt_fact, 0, dealt + self.board_after[rnd]

    @property
    def num_nodes(self) -> int:
        """How many nodes the public betting tables have."""
        return len(self._kind)

    def node_facts(self, node: int) -> Facts | None:
        """The public betting facts of a node (``None`` at the first two chance nodes)."""
        return self._facts[node]

    def betting_node(self, fact: Facts) -> int | None:
        """The betting node of rlcard's public betting state ``fact``, or None if no game of
        these rules reaches it."""
        if not hasattr(self, "_bet_ids"):
            self._bet_ids = {
                f: n for n, (k, f) in enumerate(zip(self._kind, self._facts, strict=True))
                if k == BET
            }  # fmt: skip
        return self._bet_ids.get(fact)

    # ------------------------------------------------------------------ rules
    def initial_state(self) -> State:
        return (0, ())

    def to_play(self, state: State) -> int:
        """The seat to act, ``CHANCE`` at a deal, ``TERMINAL`` (-1) once the hand is over."""
        return self._to_play[state[0]]

    def is_chance(self, state: State) -> bool:
        return self._is_chance[state[0]]

    def is_terminal(self, state: State) -> bool:
        return self._terminal[state[0]]

    def legal_actions(self, state: State) -> list[int]:
        moves = self._legal[state[0]]
        if moves is not None:
            return list(moves)
        if self._terminal[state[0]]:
            return []
        return [outcome for outcome, _ in self.chance_outcomes(state)]

    def is_legal(self, state: State, action: int) -> bool:
        moves = self._legal[state[0]]
        if moves is not None:
            return action in moves
        return action in self.legal_actions(state)

    def chance_outcomes(self, state: State) -> list[tuple[int, float]]:
        """The blind seat (0 or 1, even odds) or the cards left in the deck, each card alike."""
        node = state[0]
        if not self._is_chance[node]:
            raise TypeError(f"{self.name}: {state!r} is not a chance node")
        if self._kind[node] == BLIND:
            return [(0, 0.5), (1, 0.5)]
        return self.deck_outcomes(state[1])

    def next_state(self, state: State, action: int) -> State:
        node, cards = state
        kids = self._children[node]
        if kids is not None:
            return (kids[action], cards)
        if node == 1:
            return (self._blind_next[action], cards)
        cards = (*cards, action)
        return (self._deal_next[node] if len(cards) == self._deal_target[node] else node, cards)

    def returns(self, state: State) -> tuple[float, ...]:
        node = state[0]
        fixed = self._fixed_returns[node]
        if fixed is not None:
            return fixed
        better = self.showdown(state[1])  # 1: seat 0's hand wins, -1: seat 1's, 0: split
        stake = self._stake[node]
        return (better * stake, -better * stake) if better else (0.0, 0.0)

    def rollout(self, state: State, rng: random.Random) -> tuple[float, ...]:
        """Uniformly random play to the end, chance outcomes by their probabilities."""
        node, cards = state
        rand = rng.random
        children, legal, kinds = self._children, self._legal, self._kind
        while True:
            kids = children[node]
            if kids is not None:
                moves = legal[node] or ()  # a betting node: never empty
                node = kids[moves[int(rand() * len(moves))]]
                continue
            kind = kinds[node]
            if kind == DEAL:
                cards = (*cards, self.draw_card(cards, rand))
                if len(cards) == self._deal_target[node]:
                    node = self._deal_next[node]
            elif kind == BLIND:
                node = self._blind_next[int(rand() * 2)]
            else:
                return self.returns((node, cards))

    def sample_chance(self, state: State, rng: Any) -> int:
        if self._kind[state[0]] == BLIND:
            return int(rng.random() * 2)
        return self.draw_card(state[1], rng.random)

    # ------------------------------------------------------------------ information
    def information_set(self, state: State, player: int) -> Hashable:
        """``(player, node, own cards, public cards)``: see the module docstring."""
        node, cards = state
        return (player, node, self.own_cards(cards, player), self.public_cards(cards))

    def determinize(self, state: State, player: int, rng: random.Random) -> State:
        """``state`` with the other seat's dealt hole cards drawn again, uniformly from the cards
        ``player`` has not seen, with ``rng``. Reads only ``player``'s information."""
        node, cards = state
        other = 1 - player
        hidden = [i for i in range(other * self.hole, (other + 1) * self.hole) if i < len(cards)]
        if not hidden:
            return state
        seen = [c for i, c in enumerate(cards) if i not in hidden]
        dealt = list(cards)
        rand = rng.random
        for i in hidden:
            card = self.draw_card(seen, rand)
            seen.append(card)
            dealt[i] = card
        return (node, tuple(dealt))

    def own_cards(self, cards: tuple[int, ...], player: int) -> tuple[int, ...]:
        """``player``'s dealt hole cards, sorted."""
        return tuple(sorted(cards[player * self.hole : (player + 1) * self.hole]))

    def public_cards(self, cards: tuple[int, ...]) -> tuple[int, ...]:
        """The public cards dealt, the first deal (hold'em's flop) sorted."""
        board = cards[2 * self.hole :]
        first = self.board_after[0]
        return (*sorted(board[:first]), *board[first:])

    # ------------------------------------------------------------------ the deck (subclass)
    def deck_outcomes(self, cards: tuple[int, ...]) -> list[tuple[int, float]]:
        """Chance outcomes of the next card after ``cards``."""
        raise NotImplementedError

    def draw_card(self, cards: Any, rand: Any) -> int:
        """A card of the deck without ``cards``, drawn with ``rand()`` by its probability."""
        raise NotImplementedError

    def showdown(self, cards: tuple[int, ...]) -> int:
        """1 if seat 0's hand beats seat 1's, -1 if it loses, 0 for a split."""
        raise NotImplementedError

    # ------------------------------------------------------------------ checks and views
    def check_state(self, state: Any) -> None:
        """The node one of the tables', as many cards dealt as it needs (a deal node: up to its
        target), each a card of the deck (``check_cards``). See ``BoardGame.check_state``."""
        name = self.name
        node, cards = state_fields(name, state, ("node", "cards"))
        node = int_field(name, "node", node, 0, len(self._kind) - 1)
        if not isinstance(cards, tuple) or not all(type(c) is int for c in cards):
            invalid(name, f"cards must be a tuple of ints, got {short(cards)}")
        count = self._cards[node]
        if self._kind[node] == DEAL:
            expected = range(count, self._deal_target[node])
        else:
            expected = range(count, count + 1)
        if len(cards) not in expected:
            invalid(name, f"node {node} needs {list(expected)} cards dealt, got {len(cards)}")
        self.check_cards(cards)

    def check_cards(self, cards: tuple[int, ...]) -> None:
        """Raise ``InvalidStateError`` unless ``cards`` could be dealt from the deck."""
        raise NotImplementedError

    def legal_mask(self, state: State) -> np.ndarray:
        mask = np.zeros(self.num_actions, dtype=np.int8)
        moves = self._legal[state[0]]
        if moves:
            mask[list(moves)] = 1
        return mask

    def action_to_string(self, state: State, action: int) -> str:
        node = state[0]
        if self._kind[node] == BLIND:
            return f"player {action} posts the small blind"
        if self._kind[node] == DEAL:
            return f"deal {self.card_name(action)}"
        return ACTION_NAMES[action] if 0 <= action < 4 else str(action)

    def card_name(self, card: int) -> str:
        """A card's name."""
        return str(card)

    def render_text(self, state: State) -> str:
        """Every card (a spectator's view), the chips in and who acts or won."""
        node, cards = state
        names = [self.card_name(c) for c in cards]
        hole = self.hole
        lines = [
            f"player 0: {' '.join(names[:hole]) or '-'}",
            f"player 1: {' '.join(names[hole : 2 * hole]) or '-'}",
            f"public: {' '.join(names[2 * hole :]) or '-'}",
        ]
        fact = self._facts[node]
        if fact is not None:
            chips = self._chips(fact)
            lines.append(f"round {fact[0] + 1}; chips in: {chips[0]} {chips[1]}")
        kind = self._kind[node]
        if kind == DEAL:
            lines.append("dealing")
        elif kind == BLIND:
            lines.append("drawing the small blind")
        elif self._terminal[node]:
            if kind == FOLDED:
                lines.append(f"player {self._folder[node]} folded")
            r0 = self.returns(state)[0]
            lines.append(
                "split pot" if r0 == 0 else f"player {0 if r0 > 0 else 1} wins {abs(r0):g}"
            )
        else:
            lines.append(f"player {self._to_play[node]} to play")
        return "\n".join(lines)
