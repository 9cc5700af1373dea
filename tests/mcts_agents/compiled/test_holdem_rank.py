"""The compiled hand evaluator (``compiled.holdem_rank``) against the Python one
(``envs.games.holdem_eval``, itself checked against rlcard's ``compare_hands``): the same value,
bit for bit, on 100k seeded random seven-card hands (a third from a narrow deck, so that
flushes, straights, quads and full houses are common) and on the tie and kicker cases the Python
evaluator's tests use and more."""

from __future__ import annotations

import random
from collections import Counter

import numpy as np
import pytest

pytest.importorskip("numba")

from mcts_agents.compiled.holdem_rank import hand_value7, hand_values, seat_value
from mcts_agents.envs.games.holdem_eval import card_name, category, hand_value

INDEX = {card_name(c): c for c in range(52)}


def cards(text: str) -> list[int]:
    return [INDEX[name] for name in text.split()]


def test_random_hands_get_the_python_evaluators_values() -> None:
    rng = random.Random(26)
    narrow = [c for c in range(52) if c // 13 < 2 or c % 13 < 4]
    hands = np.array(
        [rng.sample(range(52) if i % 3 else narrow, 7) for i in range(100_000)], np.int64
    )
    compiled = hand_values(hands)
    python = [hand_value(row) for row in hands.tolist()]
    assert compiled.tolist() == python
    seen = Counter(category(v) for v in python)
    assert set(seen) == set(range(1, 10)) and min(seen.values()) > 50, seen


@pytest.mark.parametrize(
    ("better", "worse"),
    [
        ("SA S2 S3 S4 S5 HK DK", "H6 D7 C8 S9 HT C2 D3"),  # wheel flush > any straight
        ("H6 D7 C8 S9 HT C2 D3", "SA H2 D3 C4 S5 HK DK"),  # six-high straight > the wheel
        ("SK HK DK S2 H2 C9 D8", "SA SQ S9 S7 S4 H2 D3"),  # full house > flush
        ("S9 H9 D9 C9 S2 H3 D4", "SK HK DK SQ HQ DQ C2"),  # quads > full house
        ("SA HA D9 C9 S2 H3 D4", "SK HK DQ CQ SJ HJ C2"),  # two pairs: the top pair first
        ("SA HA DK C2 S3 H7 D8", "SA HA DQ CJ S3 H7 D8"),  # a pair's kicker
        ("S9 H9 D9 C9 SA H3 D4", "S9 H9 D9 C9 SK HQ DQ"),  # quads' kicker, not a pair
        ("SK HK DK S3 H3 C3 D2", "SK HK DK S2 H2 C9 D8"),  # two trips: the low trips as pair
        ("SQ HQ D5 C5 S3 H3 DA", "SQ HQ D5 C5 S3 H3 DK"),  # third pair: the best other card
        ("ST SJ SQ SK SA H2 D3", "S9 ST SJ SQ SK H2 D3"),  # royal > king-high straight flush
        ("SA S9 S7 S4 S2 HK DQ", "SK SQ SJ S9 S7 H2 D3"),  # flush: the five ranks
        ("S7 H7 D7 CA SK H2 D3", "S7 H7 D7 CA SQ HJ D3"),  # trips' second kicker
        ("SA HK DQ CJ S9 H7 D2", "SA HK DQ CJ S8 H7 D2"),  # high card: the fifth rank
    ],
)
def test_known_orders(better: str, worse: str) -> None:
    for hand in (better, worse):
        assert hand_value7(*cards(hand)) == hand_value(cards(hand)), hand
    assert hand_value7(*cards(better)) > hand_value7(*cards(worse))


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ("SA S2 H3 D4 C5 HK DK", "HA D2 C3 S4 H5 DQ CQ"),  # two wheels split (the pair plays not)
        ("S2 H3 D9 CT SJ HQ DK", "C2 D3 H9 ST HJ SQ CK"),  # the same five high cards
        ("SA HA DK CK SQ H2 D3", "CA DA HK SK CQ H3 D2"),  # the same two pairs and kicker
        ("S5 H6 D7 C8 S9 HA DA", "C5 D6 H7 S8 C9 SA HK"),  # the same straight, pairs aside
    ],
)
def test_ties_split(one: str, other: str) -> None:
    assert hand_value7(*cards(one)) == hand_value7(*cards(other)) == hand_value(cards(one))


def test_seat_value_reads_the_seats_hole_cards_and_the_board() -> None:
    rng = random.Random(5)
    for _ in range(200):
        world = rng.sample(range(52), 9)
        for seat in (0, 1):
            hand = [*world[2 * seat : 2 * seat + 2], *world[4:]]
            assert seat_value(np.array(world, np.int64), seat) == hand_value(hand)
