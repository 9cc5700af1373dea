"""Texas hold'em hand values compiled: ``envs.games.holdem_eval.hand_value`` as ``@njit`` code.

The same value, bit for bit: ``category << 20`` plus five tie-breaking ranks of four bits each,
most significant first (a larger value wins, equal values split), cards as rlcard's indices
(suit ``c // 13``, rank position ``c % 13`` from the ace; poker rank ``(c % 13 - 1) % 13``, 0 the
deuce, 12 the ace). The rules are ``holdem_eval``'s (its module docstring has them); here they run
on a rank-count array instead of a table of rank multisets, so that a showdown in the compiled
ISMCTS for hold'em (``holdem_kernel``) costs a few hundred machine instructions and no Python.

``hand_values(hands)`` ranks the rows of an ``int64[n, 7]`` array (the tests compare it with the
Python evaluator); ``seat_value(cards, seat)`` is the kernel's: seat ``seat``'s two hole cards in
``cards[2 * seat : 2 * seat + 2]`` and the five board cards in ``cards[4:9]``.
"""

from __future__ import annotations

import numpy as np

from mcts_agents.compiled.cache import njit

__all__ = ["hand_value7", "hand_values", "seat_value"]

_WHEEL = 0b1000000001111  # A, 2, 3, 4, 5


@njit(cache=True)
def _straight_top(mask: int) -> int:
    """The top rank of the best straight in a 13-bit rank mask, or -1 (the wheel tops at 3)."""
    for top in range(12, 3, -1):
        run = 0b11111 << (top - 4)
        if mask & run == run:
            return top
    return 3 if mask & _WHEEL == _WHEEL else -1


@njit(cache=True)
def _pack(cat: int, r0: int, r1: int, r2: int, r3: int, r4: int) -> int:
    return (((((cat << 4 | r0) << 4 | r1) << 4 | r2) << 4 | r3) << 4) | r4


@njit(cache=True)
def _top_ranks(counts: np.ndarray, skip_a: int, skip_b: int, out: np.ndarray) -> None:
    """Fill ``out`` with the highest ranks of every card (a rank once per card), the ranks
    ``skip_a`` and ``skip_b`` left out; unfilled entries stay 0."""
    k = 0
    for r in range(12, -1, -1):
        if r in (skip_a, skip_b):
            continue
        for _ in range(counts[r]):
            if k < out.shape[0]:
                out[k] = r
                k += 1
    for i in range(k, out.shape[0]):
        out[i] = 0


@njit(cache=True)
def _rank_value(counts: np.ndarray, mask: int) -> int:
    """``holdem_eval._rank_value``: the value of the rank counts without flushes."""
    quad = trip = trip2 = pair = pair2 = -1
    for r in range(12, -1, -1):
        n = counts[r]
        if n == 4 and quad < 0:
            quad = r
        elif n == 3:
            if trip < 0:
                trip = r
            elif trip2 < 0:
                trip2 = r
        elif n == 2:
            if pair < 0:
                pair = r
            elif pair2 < 0:
                pair2 = r
    kick = np.zeros(5, np.int64)
    if quad >= 0:
        _top_ranks(counts, quad, -1, kick)
        return _pack(8, quad, kick[0], 0, 0, 0)
    if trip >= 0 and (trip2 >= 0 or pair >= 0):
        return _pack(7, trip, max(trip2, pair), 0, 0, 0)
    top = _straight_top(mask)
    if top >= 0:
        return _pack(5, top, 0, 0, 0, 0)
    if trip >= 0:
        _top_ranks(counts, trip, -1, kick)
        return _pack(4, trip, kick[0], kick[1], 0, 0)
    if pair2 >= 0:
        _top_ranks(counts, pair, pair2, kick)
        return _pack(3, pair, pair2, kick[0], 0, 0)
    if pair >= 0:
        _top_ranks(counts, pair, -1, kick)
        return _pack(2, pair, kick[0], kick[1], kick[2], 0)
    _top_ranks(counts, -1, -1, kick)
    return _pack(1, kick[0], kick[1], kick[2], kick[3], kick[4])


@njit(cache=True)
def hand_value7(
    c0: int, c1: int, c2: int, c3: int, c4: int, c5: int, c6: int
) -> int:  # fmt: skip
    """``holdem_eval.hand_value`` of seven distinct card indices."""
    counts = np.zeros(13, np.int64)
    suits = np.zeros(4, np.int64)
    suit_mask = np.zeros(4, np.int64)
    mask = 0
    for c in (c0, c1, c2, c3, c4, c5, c6):
        r = (c % 13 + 12) % 13
        s = c // 13
        counts[r] += 1
        suits[s] += 1
        suit_mask[s] |= 1 << r
        mask |= 1 << r
    value = _rank_value(counts, mask)
    for s in range(4):
        if suits[s] >= 5:
            flush = suit_mask[s]
            top = _straight_top(flush)
            if top >= 0:
                return _pack(9, top, 0, 0, 0, 0)
            if value >= 7 << 20:  # quads or a full house beat any flush but a straight flush
                return value
            ranks = np.zeros(5, np.int64)
            k = 0
            for r in range(12, -1, -1):
                if flush >> r & 1 and k < 5:
                    ranks[k] = r
                    k += 1
            return _pack(6, ranks[0], ranks[1], ranks[2], ranks[3], ranks[4])
    return value


@njit(cache=True)
def seat_value(cards: np.ndarray, seat: int) -> int:
    """The value of seat ``seat``'s hand in a dealt world: its two hole cards
    (``cards[2 * seat]``, ``cards[2 * seat + 1]``) and the board ``cards[4:9]``."""
    return hand_value7(
        cards[2 * seat], cards[2 * seat + 1], cards[4], cards[5], cards[6], cards[7], cards[8]
    )


@njit(cache=True)
def hand_values(hands: np.ndarray) -> np.ndarray:
    """``hand_value7`` of every row of an ``int64[n, 7]`` array."""
    out = np.empty(hands.shape[0], np.int64)
    for i in range(hands.shape[0]):
        h = hands[i]
        out[i] = hand_value7(h[0], h[1], h[2], h[3], h[4], h[5], h[6])
    return out
