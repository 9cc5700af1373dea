"""Go's SVG drawing: a round region per point, the pass a button, stones as the state has
them, the star points of each board size, the ko point marked."""

from __future__ import annotations

import random
import xml.etree.ElementTree as ET

import pytest

from mcts_agents.envs.games.go import Go, parse_vertex
from mcts_agents.web.boards import seat_names
from mcts_agents.web.go_board import draw_go, star_points
from mcts_agents.web.svg import compose
from mcts_agents.web.tables import DRAWERS


@pytest.mark.parametrize(("size", "stars"), [(5, 1), (7, 1), (9, 5), (13, 5), (19, 9)])
def test_star_points(size: int, stars: int) -> None:
    points = star_points(size)
    assert len(points) == len(set(points)) == stars
    assert all(0 <= r < size and 0 <= c < size for r, c in points)
    assert (size // 2, size // 2) in points


def test_stones_regions_pass_button_and_ko_mark() -> None:
    game = Go(5)
    assert DRAWERS[Go] is draw_go and seat_names(game) == ["black", "white"]
    state = game.initial_state()
    for move in [
        "B4",
        "C4",
        "A3",
        "B3",
        "B2",
        "D3",
        "E5",
        "C2",
        "C3",
    ]:  # ends with black taking a ko
        state = game.apply(state, [parse_vertex(move, 5)])
    assert state[3] >= 0
    drawing = draw_go(game, state, None)
    assert sorted(drawing.regions) == list(range(25)) and drawing.round_regions
    legal = game.legal_actions(state)
    root = ET.fromstring(compose(drawing, legal))
    stones = [e.attrib["data-seat"] for e in root.iter() if "piece" in e.attrib.get("class", "")]
    assert stones.count("0") == state[0].bit_count() == 5
    assert stones.count("1") == state[1].bit_count() == 3
    clickable = [int(e.attrib["data-action"]) for e in root.iter() if "data-action" in e.attrib]
    assert sorted(clickable) == legal and game.pass_action in clickable  # the pass: a button
    ko_marks = [e for e in root.iter() if e.attrib.get("stroke") == "#b22222"]
    assert len(ko_marks) == 1


def test_random_positions_draw_every_stone() -> None:
    game = Go(9)
    rng = random.Random(0)
    state = game.initial_state()
    for _ in range(60):
        state = game.next_state(state, rng.choice(game.legal_actions(state)[:-1]))
    root = ET.fromstring(compose(draw_go(game, state, None)))
    stones = [e.attrib["data-seat"] for e in root.iter() if "piece" in e.attrib.get("class", "")]
    assert (stones.count("0"), stones.count("1")) == (
        state[0].bit_count(),
        state[1].bit_count(),
    )
