"""The SVG drawing of Go (``envs/games/go.py``): a wooden board, the grid's lines through the
points, the star points (hoshi), black and white stones, the GTP coordinates on the edges,
and the area score under the board; every point is a round region, the pass a button."""

from __future__ import annotations

from typing import Any

from mcts_agents.envs.games.go import COLUMNS, Go
from mcts_agents.web.boards import CAPTION, PAD, cell_size
from mcts_agents.web.svg import SEAT_COLOURS, Drawing, circle, rect, text

__all__ = ["draw_go", "star_points"]

#: room for the coordinates around the grid.
LABEL = 16.0


def star_points(size: int) -> list[tuple[int, int]]:
    """The hoshi ``(row, col)``: the 3-3 points below 13x13 (4-4 above), from 9x9 up; the
    centre on odd boards; the sides' midpoints from 15x15 up (odd)."""
    centre = size // 2
    points = []
    if size >= 9:
        d = 2 if size < 13 else 3
        points += [(r, c) for r in (d, size - 1 - d) for c in (d, size - 1 - d)]
        if size >= 15 and size % 2:
            points += [(d, centre), (size - 1 - d, centre), (centre, d), (centre, size - 1 - d)]
    if size % 2:
        points.append((centre, centre))
    return points


def draw_go(game: Go, state: Any, view: int | None) -> Drawing:
    """The position: stones on the points, the ko point marked with a small square."""
    size = game.size
    cell = cell_size(size, size)
    side = size * cell + 2 * (PAD + LABEL)
    drawing = Drawing(side, side + CAPTION, round_regions=True)
    drawing.add(rect(0, 0, side, side, fill="#dcb35c", rx=8))
    origin = PAD + LABEL + cell / 2  # the centre of point (0, 0)
    last = origin + (size - 1) * cell
    for i in range(size):
        at = origin + i * cell
        drawing.add(
            f'<line x1="{origin:g}" y1="{at:g}" x2="{last:g}" y2="{at:g}" stroke="#3b2a10"/>',
            f'<line x1="{at:g}" y1="{origin:g}" x2="{at:g}" y2="{last:g}" stroke="#3b2a10"/>',
            text(at, PAD + LABEL / 2, COLUMNS[i], 11, fill="#3b2a10"),
            text(PAD + LABEL / 2, at, size - i, 11, fill="#3b2a10"),
        )
    for r, c in star_points(size):
        dot = max(2.0, cell * 0.08)
        drawing.add(circle(origin + c * cell, origin + r * cell, dot, fill="#3b2a10"))
    grid = game.grid(state)
    for action in range(game.points):
        r, c = divmod(action, size)
        cx, cy = origin + c * cell, origin + r * cell
        drawing.regions[action] = (cx - cell / 2, cy - cell / 2, cell, cell)
        value = int(grid[r, c])
        if value:
            drawing.pieces.append(
                circle(
                    cx,
                    cy,
                    cell * 0.46,
                    fill=SEAT_COLOURS[value - 1],
                    stroke="#222",
                    stroke_width=1,
                    class_="piece",
                    data_seat=value - 1,
                )
            )
    if state[3] >= 0:  # the ko point: the mover may not take back there now
        r, c = divmod(state[3], size)
        q = cell * 0.18
        x, y = origin + c * cell - q, origin + r * cell - q
        drawing.add(rect(x, y, 2 * q, 2 * q, fill="none", stroke="#b22222", stroke_width=2))
    black, white = game.area(state[0], state[1])
    caption = f"area: black {black}, white {white} + komi {game.komi:g}"
    if state[4] == 1:
        caption += "; one pass"
    drawing.add(text(side / 2, side + CAPTION / 2, caption, 13, fill="#222"))
    return drawing
