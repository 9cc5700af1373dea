"""Leduc hold'em: the rules of OpenSpiel's ``leduc_poker`` (two players), chance nodes included.

Six cards, two suits of J, Q, K: card ``c`` has rank ``c // 2`` (OpenSpiel's ids: 0 J1, 1 J2,
2 Q1, 3 Q2, 4 K1, 5 K2). Each player antes one chip and gets a private card (chance nodes, seat
0 first; outcome = the card, each card left equally likely). Round 1 of betting, a public card
(a chance node), round 2. Actions are OpenSpiel's: 0 fold (only when facing a raise), 1
call/check, 2 raise (2 chips in round 1, 4 in round 2, at most two raises a round). A round
ends when both checked or a raise was called; a fold ends the hand. At showdown a pair with the
public card wins, else the higher rank; equal ranks split the pot. Returns are chips won or
lost, as OpenSpiel's ``returns()``; ``return_range`` is (-13, 13), its utility range.

Parameters as OpenSpiel's: ``starting_player`` (the seat that opens both rounds),
``action_mapping`` (every action is always legal; an illegal fold or a third raise plays as a
call) and ``suit_isomorphism`` (suits are dropped: cards, chance outcomes and observations are
the ranks 0, 1, 2, an outcome's probability its copies left over the cards left). ``players``
is fixed at 2 (OpenSpiel allows more); other values are refused.

State: ``(node, card_0, card_1, public)``: ``node`` indexes a precomputed table of the public
history (0: dealing to seat 0, 1: dealing to seat 1, 2: round 1's first bet, then the betting
sequences, each round-1 end a chance node for the public card); cards are -1 until dealt. The
state is its own key.

Information-set key of ``player``: ``(player, node, own card, public card, result)``, where
``result`` is 0 except at a showdown, where it is +1, 0 or -1 as ``player`` won, split or lost
(OpenSpiel's information state shows the chips after the showdown, so the result is seen,
though not the opponent's card). A player without a card has seen nothing yet: its key is
``(player, 0, -1, -1, 0)`` at the root and while seat 0 is dealt. This partitions histories
exactly as OpenSpiel's ``information_state_string(player)``.

Observation of ``player`` (flat int8; ``K`` = 6 cards, or 3 ranks with ``suit_isomorphism``):

- ``[0, 2)``: the observing seat, one-hot;
- ``[2, 2 + K)``: its own card, one-hot (zeros before it is dealt);
- ``[2 + K, 2 + 2K)``: the public card, one-hot (zeros before it is dealt);
- next 2: the seat to act, one-hot (zeros at chance nodes and at the end);
- next 24: the betting, 2 rounds x 4 slots x (fold, call, raise), one-hot per action taken;
- next 26: chips committed per seat, a 13-long thermometer each;
- last 3: the hand's result for ``player`` once it is over: won, split, lost.

Length 69 (63 with ``suit_isomorphism``). Never the opponent's card: the observation is a
function of the information set.
"""

from __future__ import annotations

import random
from collections.abc import Hashable
from typing import Any

import numpy as np

from mcts_agents.envs.core.errors import InvalidParameterError
from mcts_agents.envs.core.game import CHANCE, BoardGame
from mcts_agents.envs.games import leduc_states

State = tuple[int, int, int, int]
FOLD, CALL, RAISE = 0, 1, 2
#: ``to_play`` of a terminal state.
TERMINAL = -1
ANTE = 1
RAISE_AMOUNTS = (2, 4)  # round 1, round 2
MAX_RAISES = 2  # per round
MAX_CHIPS = ANTE + MAX_RAISES * sum(RAISE_AMOUNTS)  # 13: the most one seat can put in
SLOTS = 4  # the longest betting sequence of a round (call raise raise call)
# node kinds
_DEAL_0, _DEAL_1, _BET, _PUBLIC, _FOLDED, _SHOWDOWN = range(6)
_RANKS = "JQK"


class LeducHoldem(BoardGame[State]):
    """Leduc hold'em for two players with OpenSpiel's rules, action ids and chance outcomes."""

    has_chance = True
    perfect_information = False
    acyclic = True
    return_range = (-float(MAX_CHIPS), float(MAX_CHIPS))

    def __init__(
        self,
        players: int = 2,
        action_mapping: bool = False,
        suit_isomorphism: bool = False,
        starting_player: int = 0,
    ) -> None:
        if isinstance(players, bool) or players != 2:
            raise InvalidParameterError(
                f"players must be 2 (OpenSpiel's leduc_poker allows 2..10; this env implements "
                f"the two-player game only), got {players!r}"
            )
        if not isinstance(action_mapping, (bool, np.bool_)):
            raise InvalidParameterError(f"action_mapping must be a bool, got {action_mapping!r}")
        if not isinstance(suit_isomorphism, (bool, np.bool_)):
            raise InvalidParameterError(
                f"suit_isomorphism must be a bool, got {suit_isomorphism!r}"
            )
        if (
            isinstance(starting_player, bool)
            or not isinstance(starting_player, (int, np.integer))
            or starting_player not in (0, 1)
        ):
            raise InvalidParameterError(f"starting_player must be 0 or 1, got {starting_player!r}")
        self.action_mapping = bool(action_mapping)
        self.suit_isomorphism = bool(suit_isomorphism)
        self.starting_player = int(starting_player)
        self.name = "leduc_holdem"
        self.num_players = 2
        self.num_actions = 3
        #: distinct card ids: 6 cards, or 3 ranks with suit isomorphism
        self.num_cards = 3 if self.suit_isomorphism else 6
        k = self.num_cards
        self.observation_shape = (2 + 2 * k + 2 + 2 * SLOTS * 3 + 2 * MAX_CHIPS + 3,)
        self._initial: State = (0, -1, -1, -1)
        self._build_cards()
        self._build_tree()

    def params(self) -> dict[str, Hashable]:
        return {
            "players": 2,
            "action_mapping": self.action_mapping,
            "suit_isomorphism": self.suit_isomorphism,
            "starting_player": self.starting_player,
        }

    # ------------------------------------------------------------------ tables
    def _hand_rank(self, public: int, own: int) -> int:
        """OpenSpiel's ``RankHand``: pairs above every high card, then the higher rank."""
        low, high = sorted((public, own))
        if self.suit_isomorphism:
            return 9 + low if low == high else high * 3 + low
        if low % 2 == 0 and high == low + 1:
            return 36 + low
        return (high // 2) * 6 + low // 2

    def _build_cards(self) -> None:
        """Chance outcomes by cards dealt, showdown results, the cards a player has not seen."""
        k = self.num_cards
        copies = 2 if self.suit_isomorphism else 1
        w = self._width = k + 1  # index of dealt cards (c0, c1), -1 allowed: (c0 + 1) * w + c1 + 1
        self._deal_cards: list[tuple[int, ...]] = []
        self._deal_pool: list[tuple[int, ...]] = []
        self._deal_outcomes: list[tuple[tuple[int, float], ...]] = []
        for i in range(w * w):
            dealt = (i // w - 1, i % w - 1)
            left = {c: copies - dealt.count(c) for c in range(k)}
            pool = tuple(c for c in range(k) for _ in range(max(left[c], 0)))
            p = 1.0 / len(pool) if pool else 0.0  # OpenSpiel: copies left * (1.0 / cards left)
            self._deal_pool.append(pool)
            self._deal_cards.append(tuple(c for c in range(k) if left[c] > 0))
            self._deal_outcomes.append(tuple((c, p * left[c]) for c in range(k) if left[c] > 0))
        # +1, 0, -1: seat 0 wins, splits, loses the showdown of (c0, c1, public)
        self._result = [0] * (k * k * k)
        for c0 in range(k):
            for c1 in range(k):
                for pub in range(k):
                    r0, r1 = self._hand_rank(pub, c0), self._hand_rank(pub, c1)
                    self._result[(c0 * k + c1) * k + pub] = (r0 > r1) - (r0 < r1)
        # the opponent's possible cards (with multiplicity: uniform over physical cards) given
        # own and public (-1: not dealt), and at a showdown also the result for the player
        self._unseen: list[tuple[int, ...]] = []
        for own in range(k):
            for pub in range(-1, k):
                self._unseen.append(
                    tuple(
                        c for c in range(k) for _ in range(max(copies - (c == own) - (c == pub), 0))
                    )
                )
        self._showdown_pool: list[tuple[int, ...]] = []
        for own in range(k):
            for pub in range(k):
                for result in (-1, 0, 1):
                    self._showdown_pool.append(
                        tuple(
                            c
                            for c in self._unseen[own * w + pub + 1]
                            if self._result[(own * k + c) * k + pub] == result
                        )
                    )

    def _build_tree(self) -> None:
        """The public betting tree as tables indexed by node, simulating OpenSpiel's rules."""
        start = self.starting_player
        # a node's public facts: kind, to play, round, seq1, seq2, stakes, antes, raises, calls
        nodes: list[dict[str, Any]] = [
            {"kind": _DEAL_0, "to_play": CHANCE, "seqs": ((), ()), "antes": (1, 1), "stakes": 1},
            {"kind": _DEAL_1, "to_play": CHANCE, "seqs": ((), ()), "antes": (1, 1), "stakes": 1},
        ]
        first = {
            "kind": _BET,
            "to_play": start,
            "round": 0,
            "seqs": ((), ()),
            "antes": (1, 1),
            "stakes": 1,
            "raises": 0,
            "calls": 0,
        }
        nodes.append(first)
        children: list[tuple[int, int, int] | None] = [None, None]
        after_public = [-1, -1]
        legal: list[tuple[int, ...] | None] = [None, None]
        i = 2
        while i < len(nodes):
            node = nodes[i]
            if node["kind"] == _BET:
                played = [self._played(node, action) for action in (FOLD, CALL, RAISE)]
                child_of = {}
                for move in sorted({move for move in played if move is not None}):
                    nodes.append(self._after(node, move))
                    child_of[move] = len(nodes) - 1
                kids = [-1 if move is None else child_of[move] for move in played]
                moves = [action for action, move in enumerate(played) if move is not None]
                children.append((kids[0], kids[1], kids[2]))
                legal.append(tuple(moves))
                after_public.append(-1)
            elif node["kind"] == _PUBLIC:
                nodes.append({**node, "kind": _BET, "to_play": start})
                children.append(None)
                legal.append(None)
                after_public.append(len(nodes) - 1)
            else:
                children.append(None)
                legal.append(())
                after_public.append(-1)
            i += 1
        self._nodes = nodes
        self._children = children
        self._legal = legal
        self._moves = [moves or () for moves in legal]  # the same, () at chance nodes
        self._after_public = after_public
        self._kind = [node["kind"] for node in nodes]
        self._to_play = [node["to_play"] for node in nodes]
        self._terminal = [kind in (_FOLDED, _SHOWDOWN) for kind in self._kind]
        self._is_chance = [kind in (_DEAL_0, _DEAL_1, _PUBLIC) for kind in self._kind]
        self._showdown = [kind == _SHOWDOWN for kind in self._kind]
        self._fixed_returns: list[tuple[float, float] | None] = []
        self._showdown_returns: list[tuple[tuple[float, float], ...]] = []
        for node in nodes:
            a0, a1 = node["antes"]
            if node["kind"] == _FOLDED:  # the folder loses what it put in
                folder = node["folder"]
                self._fixed_returns.append(
                    (-float(a0), float(a0)) if folder == 0 else (float(a1), -float(a1))
                )
            elif node["kind"] == _SHOWDOWN:
                self._fixed_returns.append(None)
            else:
                self._fixed_returns.append((0.0, 0.0))
            stake = float(min(a0, a1))  # equal at a showdown
            self._showdown_returns.append(((-stake, stake), (0.0, 0.0), (stake, -stake)))
        # the public part of each node's observation: to play, betting, chips
        public = np.zeros((len(nodes), 2 + 2 * SLOTS * 3 + 2 * MAX_CHIPS), dtype=np.int8)
        for n, node in enumerate(nodes):
            if node["to_play"] >= 0:
                public[n, node["to_play"]] = 1
            for r, seq in enumerate(node["seqs"]):
                for j, action in enumerate(seq):
                    public[n, 2 + (r * SLOTS + j) * 3 + action] = 1
            for p, chips in enumerate(node["antes"]):
                offset = 2 + 2 * SLOTS * 3 + p * MAX_CHIPS
                public[n, offset : offset + chips] = 1
        self._public_obs = public
        self._parent = leduc_states.parents(self)

    def _played(self, node: dict[str, Any], action: int) -> int | None:
        """The move ``action`` plays at a betting node (None: illegal); mapped if so set."""
        facing = node["stakes"] > node["antes"][node["to_play"]]
        allowed = (
            (action == FOLD and facing)
            or action == CALL
            or (action == RAISE and node["raises"] < MAX_RAISES)
        )
        if allowed:
            return action
        return CALL if self.action_mapping else None

    def _after(self, node: dict[str, Any], move: int) -> dict[str, Any]:
        """The public facts after ``move`` at a betting node (OpenSpiel's ``DoApplyAction``)."""
        cur, rnd = node["to_play"], node["round"]
        antes = list(node["antes"])
        seqs = list(node["seqs"])
        seqs[rnd] = (*seqs[rnd], move)
        out = {**node, "seqs": tuple(seqs)}
        if move == FOLD:
            return {**out, "kind": _FOLDED, "to_play": TERMINAL, "folder": cur}
        stakes, raises, calls = node["stakes"], node["raises"], node["calls"]
        antes[cur] = stakes  # call (or match before raising)
        if move == RAISE:
            stakes += RAISE_AMOUNTS[rnd]
            antes[cur] = stakes
            raises, calls = raises + 1, 0
        else:
            calls += 1
        out.update(antes=tuple(antes), stakes=stakes, raises=raises, calls=calls)
        ready = (raises == 0 and calls == 2) or (raises > 0 and calls == 1)
        if not ready:
            return {**out, "to_play": 1 - cur}
        if rnd == 1:
            return {**out, "kind": _SHOWDOWN, "to_play": TERMINAL}
        return {**out, "kind": _PUBLIC, "to_play": CHANCE, "round": 1, "raises": 0, "calls": 0}

    # ------------------------------------------------------------------ rules
    def initial_state(self) -> State:
        return self._initial

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
        return list(self._deal_cards[(state[1] + 1) * self._width + state[2] + 1])

    def is_legal(self, state: State, action: int) -> bool:
        moves = self._legal[state[0]]
        if moves is not None:
            return action in moves
        return action in self._deal_cards[(state[1] + 1) * self._width + state[2] + 1]

    def chance_outcomes(self, state: State) -> list[tuple[int, float]]:
        """The cards left (ranks with ``suit_isomorphism``) with OpenSpiel's probabilities."""
        if not self._is_chance[state[0]]:
            raise TypeError(f"{self.name}: {state!r} is not a chance node")
        return list(self._deal_outcomes[(state[1] + 1) * self._width + state[2] + 1])

    def sample_chance(self, state: State, rng: Any) -> int:
        pool = self._deal_pool[(state[1] + 1) * self._width + state[2] + 1]
        return pool[int(rng.random() * len(pool))]

    def next_state(self, state: State, action: int) -> State:
        node, c0, c1, pub = state
        children = self._children[node]
        if children is not None:
            return (children[action], c0, c1, pub)
        if node == 0:
            return (1, action, -1, -1)
        if node == 1:
            return (2, c0, action, -1)
        return (self._after_public[node], c0, c1, action)

    def returns(self, state: State) -> tuple[float, ...]:
        node = state[0]
        fixed = self._fixed_returns[node]
        if fixed is not None:
            return fixed
        k = self.num_cards
        return self._showdown_returns[node][
            self._result[(state[1] * k + state[2]) * k + state[3]] + 1
        ]

    check_state = leduc_states.check_state  # exact
    is_reachable = leduc_states.is_reachable  # dealt cards stay, the betting only grows

    def rollout(self, state: State, rng: random.Random) -> tuple[float, ...]:
        """Uniformly random play to the end, chance outcomes by their probabilities."""
        node, c0, c1, pub = state
        rand = rng.random
        children, legal, terminal = self._children, self._moves, self._terminal
        pools, w = self._deal_pool, self._width
        while True:
            kids = children[node]
            if kids is not None:
                moves = legal[node]
                node = kids[moves[int(rand() * len(moves))]]
            elif terminal[node]:
                return self.returns((node, c0, c1, pub))
            else:
                pool = pools[(c0 + 1) * w + c1 + 1]
                card = pool[int(rand() * len(pool))]
                if node == 0:
                    node, c0 = 1, card
                elif node == 1:
                    node, c1 = 2, card
                else:
                    node, pub = self._after_public[node], card

    # ------------------------------------------------------------------ information
    def information_set(self, state: State, player: int) -> Hashable:
        """``(player, node, own card, public card, result)``: see the module docstring."""
        node, c0, c1, pub = state
        own = c1 if player else c0
        if own < 0:
            return (player, 0, -1, -1, 0)
        if self._showdown[node]:
            k = self.num_cards
            result = self._result[(c0 * k + c1) * k + pub]
            return (player, node, own, pub, -result if player else result)
        return (player, node, own, pub, 0)

    def determinize(self, state: State, player: int, rng: random.Random) -> State:
        """A state drawn uniformly from those ``player`` cannot tell from ``state``.

        The opponent's card is drawn uniformly from the cards ``player`` has not seen (its own
        and the public card; at a showdown, from those that give the result it saw). A player
        without a card has seen nothing: the initial state. Reads only ``player``'s
        information set and ``rng``.
        """
        node, c0, c1, pub = state
        own = c1 if player else c0
        if own < 0:
            return self._initial
        if node == 1:  # seat 0 has its card, seat 1 not yet: nothing is hidden
            return (1, own, -1, -1)
        if self._showdown[node]:
            k = self.num_cards
            result = self._result[(c0 * k + c1) * k + pub]
            if player:
                result = -result
            pool = self._showdown_pool[(own * k + pub) * 3 + result + 1]
        else:
            pool = self._unseen[own * self._width + pub + 1]
        other = pool[int(rng.random() * len(pool))]
        return (node, own, other, pub) if player == 0 else (node, other, own, pub)

    # ------------------------------------------------------------------ views
    def observation(self, state: State, player: int) -> np.ndarray:
        """Flat int8 planes (layout in the module docstring): what ``player`` has seen."""
        node, c0, c1, pub = state
        k = self.num_cards
        obs = np.zeros(self.observation_shape, dtype=np.int8)
        obs[player] = 1
        own = c1 if player else c0
        if own >= 0:
            obs[2 + own] = 1
        if pub >= 0:
            obs[2 + k + pub] = 1
        public = self._public_obs[node]
        obs[2 + 2 * k : 2 + 2 * k + len(public)] = public
        if self._terminal[node]:
            mine = self.returns(state)[player]
            obs[-2 if mine == 0 else (-3 if mine > 0 else -1)] = 1
        return obs

    def card_name(self, card: int) -> str:
        """``J1`` .. ``K2`` (rank and suit of OpenSpiel's ids); ``J``, ``Q``, ``K`` for ranks."""
        if card < 0:
            return "?"
        if self.suit_isomorphism:
            return _RANKS[card]
        return f"{_RANKS[card // 2]}{card % 2 + 1}"

    def render_text(self, state: State) -> str:
        """All cards (a spectator's view), the betting, the pot and who acts or won."""
        node, c0, c1, pub = state
        facts = self._nodes[node]
        names = ("fold", "call", "raise")
        antes = facts["antes"]
        lines = [
            f"cards: player 0 {self.card_name(c0)}, player 1 {self.card_name(c1)}, "
            f"public {self.card_name(pub)}",
            *(
                f"round {r + 1}: {' '.join(names[a] for a in seq) or '-'}"
                for r, seq in enumerate(facts["seqs"])
            ),
            f"pot {sum(antes)}; chips in: {antes[0]} {antes[1]}",
        ]
        kind = self._kind[node]
        if kind in (_DEAL_0, _DEAL_1):
            lines.append(f"dealing to player {kind - _DEAL_0}")
        elif kind == _PUBLIC:
            lines.append("dealing the public card")
        elif self._terminal[node]:
            r0 = self.returns(state)[0]
            if r0 == 0:
                lines.append("split pot")
            else:
                winner = 0 if r0 > 0 else 1
                lines.append(f"player {winner} wins {abs(r0):g}")
        else:
            lines.append(f"player {self._to_play[node]} to play")
        return "\n".join(lines)

    def action_to_string(self, state: State, action: int) -> str:
        """``fold``, ``call`` (``check`` when nothing is owed) or ``raise``; a deal names its
        card. With ``action_mapping``, a move that is played as another says so."""
        node = state[0]
        kind = self._kind[node]
        if kind in (_DEAL_0, _DEAL_1):
            return f"deal {self.card_name(action)} to player {kind - _DEAL_0}"
        if kind == _PUBLIC:
            return f"public card {self.card_name(action)}"
        names = ["fold", "call", "raise"]
        if kind == _BET:
            facts = self._nodes[node]
            if facts["stakes"] == facts["antes"][facts["to_play"]]:
                names[CALL] = "check"
            played = self._played(facts, action)
            if played is not None and played != action:
                return f"{names[action]} (plays as {names[played]})"
        return names[action]
