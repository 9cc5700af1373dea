"""Texas hold'em hand values: the best five of seven cards as one comparable int.

Cards are rlcard's indices (``rlcard/games/limitholdem/card2index.json``): card ``c`` has suit
``c // 13`` (spades, hearts, diamonds, clubs) and rank position ``c % 13`` (A, 2, ..., K). Poker
ranks here run 0 (deuce) to 12 (ace): ``rank(c) = (c % 13 - 1) % 13``.

``hand_value(cards)`` of seven cards is ``category << 20`` plus the tie-breaking ranks, four bits
each, most significant first; a larger value wins, equal values split. Categories as rlcard's
``Hand.category``: 9 straight flush, 8 four of a kind, 7 full house, 6 flush, 5 straight, 4
three of a kind, 3 two pairs, 2 one pair, 1 high card. Tie-breaks: the straight's top card (the
wheel A-2-3-4-5 is a five-high straight); quads then the best kicker; the trips then the pair
(of the other trips or the best pair); the flush's five ranks; trips then two kickers; the two
best pairs then the best other card; a pair then three kickers; five high cards.

The rank part (everything but flushes) depends only on how many cards of each rank there are:
it is computed once per rank multiset (at most 49,205 of them) and kept in a table, so a value
costs a few additions and one dictionary lookup.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = [
    "CATEGORY_NAMES",
    "card_name",
    "category",
    "hand_value",
    "rank_of",
    "straight_top",
]

CATEGORY_NAMES = (
    "",
    "high card",
    "one pair",
    "two pairs",
    "three of a kind",
    "straight",
    "flush",
    "full house",
    "four of a kind",
    "straight flush",
)
_SUITS = "SHDC"
_RANK_CHARS = "A23456789TJQK"  # rlcard's order within a suit


def rank_of(card: int) -> int:
    """Poker rank 0 (deuce) .. 12 (ace) of rlcard's card index ``card``."""
    return (card % 13 - 1) % 13


def card_name(card: int) -> str:
    """rlcard's name of a card index (suit then rank: ``"SA"``, ``"HT"``, ``"C2"``)."""
    return _SUITS[card // 13] + _RANK_CHARS[card % 13]


def _straight_top(mask: int) -> int:
    """The top rank of the best straight in a 13-bit rank mask, or -1 (the wheel tops at 3)."""
    for top in range(12, 3, -1):
        run = 0b11111 << (top - 4)
        if mask & run == run:
            return top
    wheel = 0b1000000001111  # A, 2, 3, 4, 5
    return 3 if mask & wheel == wheel else -1


_STRAIGHT_TOP = [_straight_top(mask) for mask in range(1 << 13)]


def straight_top(mask: int) -> int:
    """The top rank of the best straight in a 13-bit rank mask (bit ``r`` for rank ``r``)."""
    return _STRAIGHT_TOP[mask]


def _pack(cat: int, ranks: Sequence[int]) -> int:
    value = cat
    for i in range(5):
        value = (value << 4) | (ranks[i] if i < len(ranks) else 0)
    return value


def _rank_value(key: int) -> int:
    """The value of the rank multiset ``key`` (3 bits of count per rank) without flushes."""
    counts = [(key >> (3 * r)) & 7 for r in range(13)]
    desc = [r for r in range(12, -1, -1) for _ in range(counts[r])]  # every card, high first
    quads = [r for r in range(12, -1, -1) if counts[r] == 4]
    trips = [r for r in range(12, -1, -1) if counts[r] == 3]
    pairs = [r for r in range(12, -1, -1) if counts[r] == 2]
    if quads:
        q = quads[0]
        return _pack(8, [q, next(r for r in desc if r != q)])
    if trips and (len(trips) > 1 or pairs):
        t = trips[0]
        return _pack(7, [t, max([*trips[1:], *pairs])])
    mask = sum(1 << r for r in range(13) if counts[r])
    top = _STRAIGHT_TOP[mask]
    if top >= 0:
        return _pack(5, [top])
    if trips:
        t = trips[0]
        return _pack(4, [t, *[r for r in desc if r != t][:2]])
    if len(pairs) >= 2:
        high, low = pairs[0], pairs[1]
        return _pack(3, [high, low, next(r for r in desc if r not in (high, low))])
    if pairs:
        p = pairs[0]
        return _pack(2, [p, *[r for r in desc if r != p][:3]])
    return _pack(1, desc[:5])


_RANK_VALUES: dict[int, int] = {}  # filled on demand: rank key -> value without flushes
_RANK_KEY = [1 << (3 * rank_of(c)) for c in range(52)]
_SUIT_KEY = [1 << (3 * (c // 13)) for c in range(52)]
_RANK_BIT = [1 << rank_of(c) for c in range(52)]
#: suit key (3 bits of count per suit) -> the suit with five or more cards, or -1
_FLUSH_SUIT = [
    next((s for s in range(4) if (key >> (3 * s)) & 7 >= 5), -1) for key in range(1 << 12)
]


def hand_value(cards: Sequence[int]) -> int:
    """The value of the best five of ``cards`` (seven distinct card indices; see the module
    docstring): larger wins, equal splits."""
    rank_key = suit_key = 0
    for c in cards:
        rank_key += _RANK_KEY[c]
        suit_key += _SUIT_KEY[c]
    value = _RANK_VALUES.get(rank_key)
    if value is None:
        value = _RANK_VALUES[rank_key] = _rank_value(rank_key)
    suit = _FLUSH_SUIT[suit_key]
    if suit < 0:
        return value
    mask = 0
    for c in cards:
        if c // 13 == suit:
            mask |= _RANK_BIT[c]
    top = _STRAIGHT_TOP[mask]
    if top >= 0:
        return _pack(9, [top])
    if value >= 7 << 20:  # quads or a full house beat any flush but a straight flush
        return value
    ranks = [r for r in range(12, -1, -1) if mask >> r & 1][:5]
    return _pack(6, ranks)


def category(value: int) -> int:
    """The category (1 high card .. 9 straight flush) of a ``hand_value``."""
    return value >> 20
