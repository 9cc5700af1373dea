"""What a game page draws: PettingZoo's Connect Four and tic-tac-toe on our own boards (a move
region over each column or cell, not a row of buttons under a picture), and the heat map of a
search only over the position it searched (never one player's search over the other's turn)."""

from __future__ import annotations

import time
import xml.etree.ElementTree as ET
from dataclasses import replace
from typing import Any

from mcts_agents.web.session import Session
from mcts_agents.web.store import new_play, new_watch
from mcts_agents.web.views import board_svg, game_json

SVG = "{http://www.w3.org/2000/svg}"
FAST = "mcts:iterations=60,backend=python"


def settled(session: Session, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while session.running:
        assert time.monotonic() < deadline, "the agent never finished"
        time.sleep(0.01)


def move_boxes(svg: str) -> dict[int, tuple[float, float, float, float]]:
    """Each clickable move's box ``(x, y, width, height)``."""
    boxes = {}
    for group in ET.fromstring(svg).iter(f"{SVG}g"):
        if group.get("class") == "move":
            target = group.find(f"{SVG}rect")
            assert target is not None
            x, y, w, h = (float(target.get(k, "nan")) for k in ("x", "y", "width", "height"))
            boxes[int(group.get("data-action", "-1"))] = (x, y, w, h)
    return boxes


def circles(svg: str) -> list[tuple[float, float, dict[str, str]]]:
    return [
        (float(c.get("cx", "nan")), float(c.get("cy", "nan")), dict(c.attrib))
        for c in ET.fromstring(svg).iter(f"{SVG}circle")
    ]


def inside(x: float, y: float, box: tuple[float, float, float, float]) -> bool:
    bx, by, w, h = box
    return bx <= x <= bx + w and by <= y <= by + h


def test_pettingzoo_connect_four_is_drawn_with_a_move_over_each_column() -> None:
    session = new_play("classic/connect_four-v3", FAST, 0, seed=0)
    try:
        svg = game_json(session)["board"]
        assert 'class="pixels"' not in svg  # our board, not the env's picture
        boxes = move_boxes(svg)
        assert sorted(boxes) == list(range(7))
        holes = [(x, y) for x, y, attrs in circles(svg) if attrs.get("fill") == "#ffffff"]
        assert len(holes) == 42
        for column, box in boxes.items():  # the move of column c covers c's six holes, no other
            covered = [(x, y) for x, y in holes if inside(x, y, box)]
            assert len(covered) == 6 and len({x for x, _ in covered}) == 1
            assert sorted({x for x, _ in holes}).index(covered[0][0]) == column
        assert session.play(5) is None
        settled(session)
        after = game_json(session)
        pieces = [(x, y, a) for x, y, a in circles(after["board"]) if a.get("class") == "piece"]
        mine = [(x, y) for x, y, a in pieces if a.get("data-seat") == "0"]
        assert len(mine) == 1 and inside(*mine[0], move_boxes(after["board"])[5])
        assert after["moves"][0]["label"] == "column 5"  # named by our rules core
    finally:
        session.close()


def test_pettingzoo_tic_tac_toe_is_drawn_with_a_move_over_each_cell() -> None:
    session = new_play("classic/tictactoe-v3", FAST, 0, seed=0)
    try:
        svg = game_json(session)["board"]
        assert 'class="pixels"' not in svg
        boxes = move_boxes(svg)
        assert sorted(boxes) == list(range(9))
        for a, (x, y, w, h) in boxes.items():  # a 3 x 3 grid of equal cells, action = cell
            assert w == h and boxes[a % 3][0] == x and boxes[3 * (a // 3)][1] == y
        assert session.play(7) is None
        settled(session)
        state = game_json(session)
        answer = state["moves"][1]["action"]  # the agent's reply, outlined as the last move
        root = ET.fromstring(state["board"])
        outline = next(r for r in root.iter(f"{SVG}rect") if r.get("class") == "last-move")
        ox, oy = float(outline.get("x", "nan")), float(outline.get("y", "nan"))
        assert inside(ox + 3, oy + 3, boxes[answer])
        crosses = [g for g in root.iter(f"{SVG}g") if g.get("data-seat") == "0"]
        assert len(crosses) == 1  # the person's X, in the cell that move 7 covered
        line = crosses[0].find(f"{SVG}line")
        assert line is not None
        assert inside(float(line.get("x1", "nan")), float(line.get("y1", "nan")), boxes[7])
    finally:
        session.close()


def heat_actions(svg: str) -> list[int]:
    return [
        int(g.get("data-heat", "-1"))
        for g in ET.fromstring(svg).iter(f"{SVG}g")
        if g.get("data-heat") is not None
    ]


def test_the_search_of_a_played_move_is_not_drawn_over_the_next_players_turn() -> None:
    session = new_play("connect_four", FAST, 1, seed=2)  # the agent opens
    try:
        settled(session)
        state = game_json(session)
        assert state["ply"] == 1 and state["your_turn"]
        search: dict[str, Any] = state["search"]
        assert search["ply"] == 0 and search["current"] is False  # the agent's, of the opening
        assert heat_actions(state["board"]) == []  # none over the person's position
        snap = session.snapshot()
        assert snap.search is not None
        here = replace(snap, search=replace(snap.search, ply=snap.position.ply))
        assert sorted(heat_actions(board_svg(here))) == list(range(7))  # a search of this one
    finally:
        session.close()


def test_watching_draws_only_the_search_of_the_player_to_move() -> None:
    session = new_watch("tic_tac_toe", [FAST, FAST], seed=1, delay=0.0)
    try:
        settled(session)
        state = game_json(session)
        assert state["over"] and state["search"]["current"] is False
        assert heat_actions(state["board"]) == []
    finally:
        session.close()
