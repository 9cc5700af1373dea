"""No-limit Texas hold'em with rlcard's rules: the rules core of PettingZoo's
``texas_holdem_no_limit_v6`` (two players, rlcard's default stacks of 100 chips).

rlcard's ``NolimitholdemGame`` and ``NolimitholdemRound`` as they run in PettingZoo, read from
rlcard 1.2's source, quirks included:

- The cards are dealt, then the dealer seat ``d`` is drawn (a chance node, outcomes 0 and 1;
  rlcard draws it once and keeps it for later hands reset without a seed, which a single hand
  cannot tell). With two players the dealer posts the big blind (2 chips) and the other seat
  the small blind (1) and acts first; every later round is opened by the non-dealer.
- Actions (PettingZoo's ids): 0 fold (always legal), 1 check or call, 2 raise half the pot
  (``pot // 2`` chips added to the seat's chips of this round), 3 raise the pot, 4 all in. The
  pot is every chip put in. Facing a bet at least as large as its stack, a seat may only fold
  or call; otherwise a raise of the pot needs a stack of at least the pot, half the pot a stack
  of at least half and must top the largest bet of the round.
- A round ends when the actions without a raise since the last raise (the raise counted as one)
  plus the seats folded or all in (counted over the whole hand) reach two. A fold ends the
  hand; if it also ends the round (any action came before it in the round), rlcard deals the
  rest of the board first (the observation shows it). Two seats all in: the rest of the board
  is dealt and the hand is shown down.
- Payoffs are chips (not big blinds): the winner gets what the loser put in; equal hands split.

Observation of ``player`` (54 entries, PettingZoo's): ``[0, 52)`` its hole cards and the board
(rlcard's indices), 52 its chips in, 53 the largest chips in of a seat.
"""

from __future__ import annotations

import numpy as np

from mcts_agents.envs.games.limit_holdem import LimitHoldem
from mcts_agents.envs.games.rlcard_poker import (
    BET,
    BIG_BLIND,
    FOLDED,
    SHOWDOWN,
    SMALL_BLIND,
    Facts,
    State,
)

__all__ = ["NoLimitHoldem"]

FOLD, CHECK_CALL, RAISE_HALF_POT, RAISE_POT, ALL_IN = range(5)
ACTION_NAMES = ("fold", "check/call", "raise half pot", "raise pot", "all in")
ALIVE, OUT, ALLIN = 0, 1, 2  # rlcard's PlayerStatus: alive, folded, all in
STACK = 100  # rlcard's chips_for_each


class NoLimitHoldem(LimitHoldem):
    """Heads-up no-limit Texas hold'em as rlcard's ``NolimitholdemGame`` plays it.

    Betting facts: round, seat to act, chips raised this round by seat 0 and 1, chips in by seat
    0 and 1, rlcard's ``not_raise_num`` and ``not_playing_num``, each seat's status (0 alive, 1
    folded, 2 all in) and the dealer seat.
    """

    num_actions = 5
    payoff_unit = 1
    keep_raise_history = False

    def __init__(self, players: int = 2) -> None:
        super().__init__(players)
        self.name = "nolimit_holdem"
        self.observation_shape = (54,)

    def _max_chips(self) -> int:
        return STACK

    def _chips(self, fact: Facts) -> tuple[int, int]:
        return (fact[4], fact[5])

    def _root_facts(self) -> tuple[Facts, Facts]:
        roots = []
        for dealer in (0, 1):
            small = 1 - dealer
            chips = (SMALL_BLIND, BIG_BLIND) if small == 0 else (BIG_BLIND, SMALL_BLIND)
            roots.append((0, small, *chips, *chips, 0, 0, ALIVE, ALIVE, dealer))
        return (roots[0], roots[1])

    def _legal_in(self, fact: Facts) -> list[int]:
        """rlcard's ``get_nolimit_legal_actions``."""
        _, ptr, r0, r1, i0, i1, _, _, _, _, _ = fact
        raised, top = (r0, r1), max(r0, r1)
        left, pot = STACK - (i0, i1)[ptr], i0 + i1
        behind = top - raised[ptr]
        if behind > 0 and behind >= left:
            return [FOLD, CHECK_CALL]
        legal = [FOLD, CHECK_CALL]
        if pot // 2 <= left and pot // 2 + raised[ptr] > top:
            legal.append(RAISE_HALF_POT)
        if pot <= left:
            legal.append(RAISE_POT)
        legal.append(ALL_IN)
        return legal

    def _after(self, fact: Facts, action: int) -> tuple[int, Facts, int, int]:
        """rlcard's ``proceed_round`` and the game's ``step`` (round change, runout)."""
        rnd, ptr, r0, r1, i0, i1, calm, out, s0, s1, dealer = fact
        raised, chips, status = [r0, r1], [i0, i1], [s0, s1]
        top, left, pot = max(raised), STACK - chips[ptr], i0 + i1
        if action == CHECK_CALL:
            raised[ptr] = top
            chips[ptr] += min(top - (r0, r1)[ptr], left)
            calm += 1
        elif action == FOLD:
            status[ptr] = OUT
        else:
            put = {RAISE_HALF_POT: pot // 2, RAISE_POT: pot, ALL_IN: left}[action]
            raised[ptr] += put
            chips[ptr] += min(put, left)
            calm = 1
        if chips[ptr] == STACK and status[ptr] != OUT:
            status[ptr] = ALLIN
        if status[ptr] == ALLIN:
            out, calm = out + 1, calm - 1
        elif status[ptr] == OUT:
            out += 1
        nxt = 1 - ptr
        dealt = 4 + (0, 3, 4, 5)[rnd]
        folder = status.index(OUT) if OUT in status else -1
        after: Facts = (rnd, nxt, *raised, *chips, calm, out, *status, dealer)
        if calm + out < 2:  # the round goes on (or a fold ended the hand)
            return (FOLDED, after, folder, dealt) if folder >= 0 else (BET, after, 0, dealt)
        bypass = [s != ALIVE for s in status]
        if sum(bypass) == 1:
            last = bypass.index(False)
            if raised[last] >= max(raised):
                bypass[last] = True
        if all(bypass):  # the rest of the board, then the end
            return (FOLDED, after, folder, 9) if folder >= 0 else (SHOWDOWN, after, 0, 9)
        if rnd == self.rounds - 1:
            return SHOWDOWN, after, 0, dealt
        opener = (dealer + 1) % 2
        while bypass[opener]:
            opener = 1 - opener
        following = (rnd + 1, opener, 0, 0, *chips, 0, out, *status, dealer)
        return BET, following, 0, 4 + (0, 3, 4, 5)[rnd + 1]

    def observation(self, state: State, player: int) -> np.ndarray:
        """PettingZoo's observation (module docstring); never the other seat's cards."""
        node, cards = state
        obs = np.zeros(54, dtype=np.int8)
        for c in (*cards[2 * player : 2 * player + 2], *cards[4:]):
            obs[c] = 1
        fact = self._facts[node]
        chips = (0, 0) if fact is None else self._chips(fact)
        obs[52], obs[53] = chips[player], max(chips)
        return obs

    def action_to_string(self, state: State, action: int) -> str:
        if self._kind[state[0]] == BET:
            return ACTION_NAMES[action] if 0 <= action < 5 else str(action)
        if state[0] == 1:
            return f"player {action} deals (posts the big blind)"
        return super().action_to_string(state, action)
