"""Oh Hell: a trick-taking card game for 3-7 players, with the rules of OpenSpiel's ``oh_hell``.

One deal: chance picks the number of tricks ``t`` (uniform over ``1..max_tricks``, or fixed),
then the dealer (uniform), then deals ``players * t`` cards one by one (card ``i`` of the deal
goes to player ``i % players``, whoever deals), then one more card: the trump card, whose suit
is trumps. Each player bids how many tricks they will take, starting left of the dealer; the
dealer bids last and may not make the bids sum to ``t``. The player left of the dealer leads the
first trick; players must follow the led suit if they can; the highest trump wins, else the
highest card of the led suit; the winner leads the next trick. Score: ``points_per_trick`` per
trick taken plus 10 for making the bid exactly; with ``off_bid_penalty`` a missed bid instead
scores ``-points_per_trick`` per trick off. Returns are these scores (general sum).

Cards and actions follow OpenSpiel one to one: card ``c`` has rank ``c // num_suits`` (0 = "2")
and suit ``c % num_suits`` (suits C, D, S, H); a deal outcome is a card id, the number-of-tricks
outcome is ``t``, the dealer outcome is the player, and bid ``b`` is action ``num_cards + b``.

State, a flat tuple (hands as bitmasks over card ids):
``(tricks, dealer, dealt, trump, hands, initial, history, to_play, won, trick, voids, played)``:
``tricks`` 0 until chosen; ``dealer`` -1 until chosen; ``dealt`` cards dealt (trump included);
``trump`` card or -1; ``hands`` / ``initial`` per-player masks of the current / dealt hands;
``history`` the public actions after the deal (bid actions in bidding order, then cards in play
order); ``to_play`` a player, ``CHANCE`` or ``TERMINAL``; ``won`` tricks per player; ``trick``
``(led suit, winning card, winning player)`` of the trick in progress or ``None``; ``voids``
bit ``player * num_suits + suit`` set once ``player`` failed to follow ``suit``; ``played`` the
mask of played cards.

Information set of ``player``: ``(player, tricks, dealer, dealt, trump, initial[player],
history)``: what it has seen, with perfect recall (its hand is dealt as a set, as OpenSpiel
shows it). It partitions histories exactly as OpenSpiel's ``information_state_string``.
"""

from __future__ import annotations

import random
from collections.abc import Hashable
from functools import lru_cache
from math import comb
from typing import Any

import numpy as np

from mcts_agents.envs.core.errors import InvalidParameterError
from mcts_agents.envs.core.game import CHANCE, BoardGame
from mcts_agents.envs.core.params import check_int
from mcts_agents.envs.games import oh_hell_states

State = tuple[Any, ...]
#: ``to_play`` of a finished game (OpenSpiel's terminal player id).
TERMINAL = -4
#: Bonus for taking exactly the number of tricks bid.
MADE_BID_BONUS = 10
SUITS = "CDSH"
RANKS = "23456789TJQKA"
#: The constructor's parameters, in order.
PARAMS = (
    "players",
    "num_suits",
    "num_cards_per_suit",
    "num_tricks_fixed",
    "off_bid_penalty",
    "points_per_trick",
)


#: ``_BYTES[k][b]``: the bit positions ``8 * k + i`` of the set bits ``i`` of the byte ``b``.
_BYTES = tuple(
    tuple(tuple(8 * k + i for i in range(8) if b >> i & 1) for b in range(256)) for k in range(7)
)


def _bits(mask: int) -> list[int]:
    """The set bits of ``mask`` (a hand: up to 52 bits) in ascending order, a byte at a time."""
    out: list[int] = []
    k = 0
    while mask:
        byte = mask & 255
        if byte:
            out += _BYTES[k][byte]
        mask >>= 8
        k += 1
    return out


def _draw(pool: list[int], k: int, rng: random.Random) -> list[int]:
    """``k`` cards drawn uniformly from ``pool`` (which is shuffled in part), in draw order."""
    rand = rng.random
    size = len(pool)
    for i in range(k):
        j = i + int(rand() * (size - i))
        pool[i], pool[j] = pool[j], pool[i]
    return pool[:k]


Classes = tuple[tuple[int, int], ...]


@lru_cache(maxsize=1 << 14)
def _splits(need: int, bounds: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
    """Every way to write ``need`` as a sum of parts ``k_j <= bounds[j]``."""
    if len(bounds) == 1:
        return ((need,),) if need <= bounds[0] else ()
    return tuple(
        (k, *tail)
        for k in range(min(need, bounds[0]) + 1)
        for tail in _splits(need - k, bounds[1:])
    )


@lru_cache(maxsize=1 << 16)
def _options(needs: tuple[int, ...], classes: Classes) -> tuple[tuple[int, Any, Classes], ...]:
    """The choices of the first of some constrained players who take ``needs`` cards each, in
    turn, and the number of consistent deals that follows each one.

    ``classes``: ``(signature, cards left)`` pairs, one per class of suits: the suits that the
    same players may hold (bit ``j`` of the signature: player ``j`` may). Later players cannot
    tell the suits of one class apart, so the count depends on the cards left in each class
    alone, and it is cached across calls (a search determinizes one root again and again).
    Returns ``(ways, cards taken per class the first player may hold, classes after)``.
    """
    mine = tuple(n for sig, n in classes if sig & 1)
    out = []
    for split in _splits(needs[0], mine):
        weight, taken = 1, iter(split)
        left = dict.fromkeys([sig >> 1 for sig, _ in classes], 0)
        for sig, n in classes:
            k = next(taken) if sig & 1 else 0
            weight *= comb(n, k)
            left[sig >> 1] += n - k
        after = tuple(sorted(left.items()))
        weight *= _ways(needs[1:], after)
        if weight:
            out.append((weight, split, after))
    return tuple(out)


def _ways(needs: tuple[int, ...], classes: Classes) -> int:
    """The number of ways players with ``needs`` can take their cards in turn (see above)."""
    if len(needs) == 1:
        return comb(sum(n for sig, n in classes if sig & 1), needs[0])
    return sum(w for w, _, _ in _options(needs, classes))


class OhHell(BoardGame[State]):
    """Bid the number of tricks you will take, then take exactly that many."""

    has_chance = True
    perfect_information = False
    acyclic = True

    def __init__(
        self,
        players: int = 3,
        num_suits: int = 4,
        num_cards_per_suit: int = 13,
        num_tricks_fixed: int = -1,
        off_bid_penalty: bool = False,
        points_per_trick: int = 1,
    ) -> None:
        n = check_int("players", players, 3, 7)
        suits = check_int("num_suits", num_suits, 1, 4)
        per_suit = check_int("num_cards_per_suit", num_cards_per_suit, 2, 13)
        cards = suits * per_suit
        if cards < n + 1:
            raise InvalidParameterError(
                f"the deck of num_suits * num_cards_per_suit = {cards} cards must hold at least "
                f"players + 1 = {n + 1} (a card each and the trump card)"
            )
        most = (cards - 1) // n
        fixed = num_tricks_fixed
        if isinstance(fixed, bool) or not isinstance(fixed, (int, np.integer)) or fixed != -1:
            fixed = check_int(
                "num_tricks_fixed", fixed, 1, most, f" or -1 (random; {n} players, {cards} cards)"
            )
        fixed = int(fixed)
        if not isinstance(off_bid_penalty, (bool, np.bool_)):
            raise InvalidParameterError(f"off_bid_penalty must be a bool, got {off_bid_penalty!r}")
        self.players, self.num_suits, self.num_cards_per_suit = n, suits, per_suit
        self.num_tricks_fixed = fixed
        self.off_bid_penalty = bool(off_bid_penalty)
        self.points_per_trick = check_int("points_per_trick", points_per_trick, 0, None)
        self.name = "oh_hell"
        self.num_players = n
        self.num_cards = cards
        #: the most tricks a deal can have (OpenSpiel's MaxNumTricks).
        self.max_tricks = most if fixed == -1 else fixed
        self.num_actions = cards + self.max_tricks + 1
        top = self.points_per_trick * self.max_tricks
        low = -top if self.off_bid_penalty else 0
        self.return_range = (float(low), float(top + MADE_BID_BONUS))
        self._full = (1 << cards) - 1
        self._suit = tuple(c % suits for c in range(cards))
        self._suit_mask = tuple(sum(1 << c for c in range(s, cards, suits)) for s in range(suits))
        self._void_mask = tuple(  # cards of the suits in a set of suits (bit s = suit s)
            sum(self._suit_mask[s] for s in range(suits) if v >> s & 1) for v in range(1 << suits)
        )
        self._bids = tuple(list(range(cards, cards + t + 1)) for t in range(self.max_tricks + 1))
        t = self.max_tricks
        # observation: hand, trump, current trick (per seat), played (per seat), bids (per seat,
        # "none" first), tricks won (per seat, thermometer), number of tricks, dealer (per seat)
        self.observation_shape = ((2 + 2 * n) * cards + n * (t + 2) + n * t + t + n,)

    def params(self) -> dict[str, Hashable]:
        return {name: getattr(self, name) for name in PARAMS}

    # ------------------------------------------------------------------ rules
    def initial_state(self) -> State:
        zeros = (0,) * self.players
        return (0, -1, 0, -1, zeros, zeros, (), CHANCE, zeros, None, 0, 0)

    def to_play(self, state: State) -> int:
        return int(state[7])

    def is_terminal(self, state: State) -> bool:
        return bool(state[7] == TERMINAL)

    def is_chance(self, state: State) -> bool:
        return bool(state[7] == CHANCE)

    def chance_outcomes(self, state: State) -> list[tuple[int, float]]:
        if state[7] != CHANCE:
            raise TypeError(f"{self.name}: {state!r} is not a chance node")
        outcomes = self.legal_actions(state)  # all equally likely
        return [(outcome, 1.0 / len(outcomes)) for outcome in outcomes]

    def sample_chance(self, state: State, rng: Any) -> int:
        outcomes = self.legal_actions(state)
        return outcomes[min(int(rng.random() * len(outcomes)), len(outcomes) - 1)]

    def legal_actions(self, state: State) -> list[int]:
        to_play = state[7]
        if to_play >= 0:
            history = state[6]
            n = self.players
            if len(history) >= n:  # play: follow suit if possible
                hand = state[4][to_play]
                trick = state[9]
                if trick is not None:
                    follow = hand & self._suit_mask[trick[0]]
                    if follow:
                        hand = follow
                return _bits(hand)
            tricks = state[0]
            bids = self._bids[tricks]
            if len(history) == n - 1:  # the dealer may not make the bids add up
                total = sum(history) - (n - 1) * self.num_cards
                if total <= tricks:
                    return [b for b in bids if b != self.num_cards + tricks - total]
            return bids[:]
        if to_play == CHANCE:
            if state[0] == 0:
                fixed = self.num_tricks_fixed
                return [fixed] if fixed > 0 else list(range(1, self.max_tricks + 1))
            if state[1] < 0:
                return list(range(self.players))
            dealt = 0 if state[3] < 0 else 1 << state[3]
            for hand in state[5]:
                dealt |= hand
            return _bits(self._full & ~dealt)
        return []

    def next_state(self, state: State, action: int) -> State:
        tricks, dealer, dealt, trump, hands, initial, history, to_play = state[:8]
        won, trick, voids, played = state[8:]
        n = self.players
        if to_play >= 0:
            if len(history) < n:  # a bid; the player left of the dealer leads after the last
                return (*state[:6], (*history, action), (to_play + 1) % n, *state[8:])
            suit = self._suit[action]
            bit = 1 << action
            hand = list(hands)
            hand[to_play] ^= bit
            if trick is None:
                trick = (suit, action, to_play)
            else:
                led, best, _ = trick  # a higher card of the winning suit, or the first trump
                if action > best if suit == self._suit[best] else suit == self._suit[trump]:
                    trick = (led, action, to_play)
                if suit != led:
                    voids |= 1 << (to_play * self.num_suits + led)
            history = (*history, action)
            if (len(history) - n) % n:
                to_play = (to_play + 1) % n
            else:  # trick complete: the winner leads the next one
                to_play = trick[2]
                score = list(won)
                score[to_play] += 1
                won = tuple(score)
                trick = None
                if len(history) == n * (tricks + 1):
                    to_play = TERMINAL
            new = (tuple(hand), initial, history, to_play, won, trick, voids, played | bit)
            return (*state[:4], *new)
        if tricks == 0:
            return (action, *state[1:])
        if dealer < 0:
            return (tricks, action, *state[2:])
        if dealt < n * tricks:  # card ``dealt`` of the deal goes to player ``dealt % n``
            new = tuple(h | 1 << action if q == dealt % n else h for q, h in enumerate(hands))
            return (tricks, dealer, dealt + 1, trump, new, new, *state[6:])
        first = (dealer + 1) % n  # the trump card is turned; left of the dealer bids first
        return (tricks, dealer, dealt + 1, action, *state[4:7], first, *state[8:])

    check_state = oh_hell_states.check_state  # exact: rebuilt from the deal and history
    is_reachable = oh_hell_states.is_reachable  # the deal and the history only grow

    def bids(self, state: State) -> tuple[int, ...]:
        """Each player's bid by seat (-1: not bid yet)."""
        n, dealer, history = self.players, state[1], state[6]
        return tuple(
            history[i] - self.num_cards if i < len(history) else -1
            for i in ((p - dealer - 1) % n for p in range(n))
        )

    def returns(self, state: State) -> tuple[float, ...]:
        if state[7] != TERMINAL:
            return (0.0,) * self.players
        ppt = self.points_per_trick
        out = []
        for bid, won in zip(self.bids(state), state[8], strict=True):
            if won == bid:
                out.append(float(ppt * won + MADE_BID_BONUS))
            else:
                out.append(float(-ppt * abs(won - bid) if self.off_bid_penalty else ppt * won))
        return tuple(out)

    # ------------------------------------------------------------------ information
    def information_set(self, state: State, player: int) -> Hashable:
        """``(player, tricks, dealer, dealt, trump, its dealt hand, public history)``."""
        return (player, state[0], state[1], state[2], state[3], state[5][player], state[6])

    def determinize(self, state: State, player: int, rng: random.Random) -> State:
        """Redeal the other players' unplayed cards uniformly over the deals ``player`` cannot
        rule out: from the cards it has not seen (not in its hand, not played, not the trump
        card), each player keeping its hand size and getting no card of a suit it has shown void
        in; the cards left over stay in the undealt deck.

        Exact: players with a void that matters draw first, in turn, each choosing how many cards
        to take from each class of suits with probability proportional to the number of
        consistent completions (``_options``), then the cards uniformly; the others share the
        rest uniformly. Reads only what ``player`` knows: its hand, the public history and what
        follows from it (cards played, voids, hand sizes).
        """
        hands = state[4]
        if state[7] == TERMINAL or not any(h for q, h in enumerate(hands) if q != player):
            return state
        seen = state[5][player] | state[11] | (0 if state[3] < 0 else 1 << state[3])
        unknown = self._full & ~seen
        suits, voids = self.num_suits, state[10]
        constrained, free = [], []
        for q, hand in enumerate(hands):
            need = hand.bit_count()
            if q == player or not need:
                continue
            void = voids >> (q * suits) & ((1 << suits) - 1)
            if not unknown & self._void_mask[void]:
                free.append((q, need))
            else:
                constrained.append((need, q, (1 << suits) - 1 & ~void))
        new = list(hands)
        if constrained:
            # the last constrained player is counted in closed form: give it the biggest need
            constrained.sort(key=lambda entry: entry[0])
            cards = [_bits(unknown & m) for m in self._suit_mask]
            for q, taken in self._deal_constrained(constrained, cards, rng):
                new[q] = taken
                unknown &= ~taken
        chosen = _draw(_bits(unknown), sum(need for _, need in free), rng)
        start = 0
        for q, need in free:
            new[q] = sum(1 << c for c in chosen[start : start + need])
            start += need
        old_initial = state[5]
        initial = tuple(
            old_initial[q] if q == player else new[q] | (old_initial[q] & ~hands[q])
            for q in range(self.players)
        )
        return (*state[:4], tuple(new), initial, *state[6:])

    def _deal_constrained(
        self, players: list[tuple[int, int, int]], cards: list[list[int]], rng: random.Random
    ) -> list[tuple[int, int]]:
        """Draw the hand of each ``(need, player, allowed suits mask)`` in turn out of ``cards``
        (the unseen cards by suit), uniformly over the consistent ways (see ``determinize``);
        return ``(player, hand mask)`` pairs. Player ``i`` picks how many cards to take from
        each class of suits (see ``_options``), then the cards of each class uniformly."""
        last = len(players) - 1
        needs = tuple(need for need, _, _ in players)
        suits = range(self.num_suits)
        hands = []
        for i, (need, q, allowed) in enumerate(players):
            if i == last:
                pool = sorted(c for s in suits if allowed >> s & 1 for c in cards[s])
                taken = _draw(pool, need, rng)
            else:
                later = [mask for _, _, mask in players[i:]]  # signature bit j: player i + j
                sigs = [sum(1 << j for j, mask in enumerate(later) if mask >> s & 1) for s in suits]
                left = dict.fromkeys(sigs, 0)
                for s in suits:
                    left[sigs[s]] += len(cards[s])
                choices = _options(needs[i:], tuple(sorted(left.items())))
                pick = rng.randrange(sum(w for w, _, _ in choices))
                index = 0
                while pick >= choices[index][0]:
                    pick -= choices[index][0]
                    index += 1
                mine = [sig for sig in sorted(left) if sig & 1]
                taken = []
                for sig, k in zip(mine, choices[index][1], strict=True):
                    pool = sorted(c for s in suits if sigs[s] == sig for c in cards[s])
                    taken += _draw(pool, k, rng)
            for c in taken:
                cards[c % self.num_suits].remove(c)
            hands.append((q, sum(1 << c for c in taken)))
        return hands

    # ------------------------------------------------------------------ views
    def observation(self, state: State, player: int) -> np.ndarray:
        """A flat int8 vector from ``player``'s seat (seat ``r`` below is player
        ``(player + r) % players``; ``C`` cards, ``T = max_tricks``):

        ``[0, C)`` own hand; ``C`` trump card (one-hot); ``n * C`` current trick, the card of
        each seat; ``n * C`` every card each seat has played; ``n * (T + 2)`` bids (index 0: not
        yet, ``b + 1``: bid ``b``); ``n * T`` tricks won (thermometer); ``T`` number of tricks
        (index ``t - 1``); ``n`` the dealer's seat. Never another player's unplayed cards.
        """
        n, c, t = self.players, self.num_cards, self.max_tricks
        tricks, dealer, _, trump, hands, initial, history, to_play = state[:8]
        out = np.zeros(self.observation_shape, dtype=np.int8)
        out[_bits(hands[player])] = 1
        if trump >= 0:
            out[c + trump] = 1
        seats = [(q - player) % n for q in range(n)]
        base = 2 * c
        if state[9] is not None:
            in_trick = (len(history) - n) % n
            leader = (to_play - in_trick) % n
            for i, card in enumerate(history[len(history) - in_trick :]):
                out[base + seats[(leader + i) % n] * c + card] = 1
        base += n * c
        for q in range(n):
            out[[base + seats[q] * c + card for card in _bits(initial[q] & ~hands[q])]] = 1
        base += n * c
        for q, bid in enumerate(self.bids(state)):
            out[base + seats[q] * (t + 2) + bid + 1] = 1
        base += n * (t + 2)
        for q, won in enumerate(state[8]):
            out[base + seats[q] * t : base + seats[q] * t + won] = 1
        base += n * t
        if tricks:
            out[base + tricks - 1] = 1
        if dealer >= 0:
            out[base + t + seats[dealer]] = 1
        return out

    def card_string(self, card: int) -> str:
        """Rank then suit: ``"QH"``, ``"TC"``, ``"2D"``."""
        return RANKS[card // self.num_suits] + SUITS[card % self.num_suits]

    def action_to_string(self, state: State, action: int) -> str:
        if state[7] == CHANCE and state[0] == 0:
            return f"{action} tricks"
        if state[7] == CHANCE and state[1] < 0:
            return f"dealer {action}"
        if action >= self.num_cards:
            return f"bid {action - self.num_cards}"
        return self.card_string(action)

    def render_text(self, state: State) -> str:
        tricks, dealer, _, trump, hands, _, history, to_play = state[:8]
        if not tricks:
            return "dealing: the number of tricks is not drawn yet"
        lines = [f"{tricks} tricks, dealer " + (f"player {dealer}" if dealer >= 0 else "?")]
        lines.append("trump " + (self.card_string(trump) if trump >= 0 else "not turned yet"))
        over = to_play == TERMINAL
        scores = self.returns(state)
        shown = state[5] if over else hands  # at the end: the hands as dealt
        for q, (bid, won) in enumerate(zip(self.bids(state), state[8], strict=True)):
            cards = sorted(_bits(shown[q]), key=lambda c: (c % self.num_suits, -c))
            hand = " ".join(self.card_string(c) for c in cards) or "-"
            bid_text = "-" if bid < 0 else str(bid)
            end = f", score {scores[q]:g}" if over else ""
            lines.append(f"player {q}: {hand:<{3 * tricks}} bid {bid_text} won {won}{end}")
        if state[9] is not None:
            in_trick = (len(history) - self.players) % self.players
            leader = (to_play - in_trick) % self.players
            played = " ".join(self.card_string(c) for c in history[len(history) - in_trick :])
            lines.append(f"trick led by player {leader}: {played}")
        if over:
            lines.append("game over")
        elif to_play >= 0:
            phase = "bid" if len(history) < self.players else "play"
            lines.append(f"player {to_play} to {phase}")
        else:
            lines.append("dealing")
        return "\n".join(lines)
