"""SVG drawings of the board games: m,n,k (tic-tac-toe, Gomoku, 3-4 players), Connect Four,
Othello, ultimate tic-tac-toe, phantom m,n,k and Nim.

Each drawer takes the rules core, its state and the seat whose view to draw (``None``: everything,
as a spectator or after the game) and returns a ``svg.Drawing`` with the box of every action
that has a place on the board: a cell, a column, a chip. ``DRAWERS`` maps each rules core's type
to its drawer (``tables`` adds the card and dice games).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from mcts_agents.envs.games.connect_four import ConnectFour
from mcts_agents.envs.games.go import Go
from mcts_agents.envs.games.mnk import MNK
from mcts_agents.envs.games.nim import Nim
from mcts_agents.envs.games.othello import Othello
from mcts_agents.envs.games.phantom_mnk import PhantomMNK
from mcts_agents.envs.games.ultimate_tic_tac_toe import UltimateTicTacToe
from mcts_agents.web.svg import SEAT_COLOURS, Drawing, circle, rect, text

__all__ = ["BOARD_DRAWERS", "Drawer", "cell_size", "seat_names"]

#: ``(game, state, view) -> Drawing``; ``view`` is the seat whose view is drawn, or ``None``.
Drawer = Callable[[Any, Any, "int | None"], Drawing]

PAD = 10.0
CAPTION = 26.0


def cell_size(rows: int, cols: int, target: float = 480.0) -> float:
    """The side of a square so that the board is about ``target`` pixels wide."""
    return float(max(24, min(110, int(target / max(rows, cols)))))


def _mark(player: int, cx: float, cy: float, cell: float) -> str:
    """X (seat 0) or O (seat 1) as strokes."""
    r = cell * 0.3
    width = max(2.0, cell * 0.08)
    if player == 0:
        return (
            f'<g class="piece" data-seat="0" stroke="#1f3b8f" stroke-width="{width:g}" '
            f'stroke-linecap="round"><line x1="{cx - r:g}" y1="{cy - r:g}" x2="{cx + r:g}" '
            f'y2="{cy + r:g}"/><line x1="{cx - r:g}" y1="{cy + r:g}" x2="{cx + r:g}" '
            f'y2="{cy - r:g}"/></g>'
        )
    return circle(
        cx,
        cy,
        r,
        fill="none",
        stroke="#c0392b",
        stroke_width=width,
        class_="piece",
        data_seat=player,
    )


def _stone(player: int, cx: float, cy: float, radius: float, colours: tuple[str, ...]) -> str:
    return circle(
        cx,
        cy,
        radius,
        fill=colours[player % len(colours)],
        stroke="#333",
        stroke_width=1,
        class_="piece",
        data_seat=player,
    )


def _grid_board(
    grid: np.ndarray, marks: bool, background: str, line: str, block: int = 0
) -> tuple[Drawing, float]:
    """Squares with lines (thicker every ``block``), pieces from ``grid`` (``p + 1`` = seat
    ``p``) as marks or stones; regions: cell ``r * cols + c``."""
    rows, cols = grid.shape
    cell = cell_size(rows, cols)
    drawing = Drawing(cols * cell + 2 * PAD, rows * cell + 2 * PAD, round_regions=not marks)
    drawing.add(rect(0, 0, drawing.width, drawing.height, fill=background, rx=8))
    right, bottom = PAD + cols * cell, PAD + rows * cell
    for horizontal, count in ((True, rows), (False, cols)):
        for i in range(count + 1):
            at = PAD + i * cell
            x1, y1, x2, y2 = (PAD, at, right, at) if horizontal else (at, PAD, at, bottom)
            width = 3 if block and i % block == 0 else 1
            drawing.add(
                f'<line x1="{x1:g}" y1="{y1:g}" x2="{x2:g}" y2="{y2:g}" '
                f'stroke="{line}" stroke-width="{width}"/>'
            )
    for (r, c), value in np.ndenumerate(grid):
        drawing.regions[r * cols + c] = (PAD + c * cell, PAD + r * cell, cell, cell)
        if value > 0:
            cx, cy = PAD + (c + 0.5) * cell, PAD + (r + 0.5) * cell
            piece = (
                _mark(int(value) - 1, cx, cy, cell)
                if marks and value <= 2
                else _stone(int(value) - 1, cx, cy, cell * 0.42, SEAT_COLOURS)
            )
            drawing.pieces.append(piece)
    return drawing, cell


def _marks(game: Any) -> bool:
    """Small two-player boards use X and O; larger ones and 3-4 players use stones."""
    return bool(game.num_players == 2 and max(game.m, game.n) <= 5)


def draw_mnk(game: MNK, state: Any, view: int | None) -> Drawing:
    marks = _marks(game)
    background, line = ("#ffffff", "#444") if marks else ("#e3c16f", "#6b4f1d")
    return _grid_board(game.grid(state), marks, background, line)[0]


def draw_phantom(game: PhantomMNK, state: Any, view: int | None) -> Drawing:
    """The true board for ``view=None``; else the seat's own stones and the enemy stones it
    has bumped into (the others are unseen)."""
    grid = np.array(game.grid(state))
    if view is not None:
        known = state[1 + view]
        for (r, c), value in np.ndenumerate(grid):
            if value and value != view + 1 and not known >> (r * game.n + c) & 1:
                grid[r, c] = 0
    drawing, _ = _grid_board(grid, True, "#ffffff", "#444")
    note = "what you have seen" if view is not None else "the whole board"
    drawing.add(text(drawing.width / 2, drawing.height + CAPTION / 2, note, 12, fill="#555"))
    drawing.height += CAPTION
    return drawing


def draw_connect_four(game: ConnectFour, state: Any, view: int | None) -> Drawing:
    """A blue frame with holes under a strip for the search's heat; a region per column
    (action = column)."""
    grid = game.grid(state)
    rows, cols = grid.shape
    cell = cell_size(rows, cols, 470)
    strip = cell * 0.7
    top = PAD + strip
    drawing = Drawing(cols * cell + 2 * PAD, top + rows * cell + PAD)
    drawing.add(rect(PAD, PAD, cols * cell, strip - 4, fill="#eef2f8", rx=4))
    drawing.add(rect(0, top - PAD, drawing.width, rows * cell + 2 * PAD, fill="#1d4fa3", rx=10))
    colours = ("#d62728", "#f2c12e")
    for (r, c), value in np.ndenumerate(grid):
        cx, cy = PAD + (c + 0.5) * cell, top + (r + 0.5) * cell
        if value:
            drawing.pieces.append(_stone(int(value) - 1, cx, cy, cell * 0.4, colours))
        else:
            drawing.add(circle(cx, cy, cell * 0.4, fill="#ffffff"))
    for c in range(cols):
        drawing.regions[c] = (PAD + c * cell, PAD, cell, strip + rows * cell)
        drawing.heat_regions[c] = (PAD + c * cell, PAD, cell, strip - 4)
        filled = np.flatnonzero(grid[:, c])
        if filled.size:
            drawing.last_regions[c] = (PAD + c * cell, top + filled[0] * cell, cell, cell)
    return drawing


def draw_othello(game: Othello, state: Any, view: int | None) -> Drawing:
    """Green squares, black and white discs, the disc count under the board; pass is a button."""
    grid = game.grid(state)
    drawing, _ = _grid_board(grid, False, "#2e7d4f", "#123d26")
    black, white = int((grid == 1).sum()), int((grid == 2).sum())
    drawing.add(
        text(
            drawing.width / 2,
            drawing.height + CAPTION / 2,
            f"black {black}, white {white}",
            13,
            fill="#222",
        )
    )
    drawing.height += CAPTION
    return drawing


def _ultimate_cell(action: int) -> tuple[int, int]:
    """Row and column on the 9x9 grid of action ``board * 9 + cell``."""
    board, cell = divmod(action, 9)
    return 3 * (board // 3) + cell // 3, 3 * (board % 3) + cell % 3


def draw_ultimate(game: UltimateTicTacToe, state: Any, view: int | None) -> Drawing:
    """Nine small boards; a won one is shaded in its winner's colour, the board the mover is
    sent to is outlined."""
    grid = game.grid(state)
    drawing, cell = _grid_board(grid, True, "#ffffff", "#555", block=3)
    regions = {}
    for action in range(81):
        r, c = _ultimate_cell(action)
        regions[action] = (PAD + c * cell, PAD + r * cell, cell, cell)
    drawing.regions = regions
    won = (state[2], state[3])
    shades = ("#1f3b8f", "#c0392b")
    for board in range(9):
        x, y = PAD + 3 * cell * (board % 3), PAD + 3 * cell * (board // 3)
        for player in (0, 1):
            if won[player] >> board & 1:
                drawing.add(
                    rect(
                        x,
                        y,
                        3 * cell,
                        3 * cell,
                        fill=shades[player],
                        fill_opacity=0.18,
                        class_="won",
                        data_seat=player,
                    )
                )
        if state[5] == board:
            drawing.add(
                rect(
                    x + 2,
                    y + 2,
                    3 * cell - 4,
                    3 * cell - 4,
                    fill="none",
                    stroke="#f2a900",
                    stroke_width=4,
                    class_="forced",
                )
            )
    return drawing


def draw_nim(game: Nim, state: Any, view: int | None) -> Drawing:
    """A row of chips per pile; clicking the ``t``-th chip from the right takes ``t`` chips."""
    piles = state[0]
    width = max(max(game.piles), 1)
    chip = float(max(18, min(44, int(440 / width))))
    label = 70.0
    drawing = Drawing(label + width * chip + 2 * PAD, len(piles) * (chip + 8) + 2 * PAD)
    drawing.add(rect(0, 0, drawing.width, drawing.height, fill="#f5efe0", rx=8))
    for pile, size in enumerate(piles):
        y = PAD + pile * (chip + 8)
        drawing.add(
            text(PAD, y + chip / 2, f"pile {pile}: {size}", 13, fill="#333", text_anchor="start")
        )
        for i in range(size):
            x = PAD + label + i * chip
            drawing.add(
                circle(
                    x + chip / 2,
                    y + chip / 2,
                    chip * 0.4,
                    fill="#b5651d",
                    stroke="#5a3210",
                    class_="piece",
                )
            )
        for take in range(1, min(game.take_limit, size) + 1):
            x = PAD + label + (size - take) * chip
            drawing.regions[pile * game.take_limit + take - 1] = (x, y, chip, chip)
    drawing.round_regions = True
    return drawing


#: rules core type -> drawer (the card and dice games are added by ``tables``).
BOARD_DRAWERS: dict[type, Drawer] = {
    MNK: draw_mnk,
    PhantomMNK: draw_phantom,
    ConnectFour: draw_connect_four,
    Othello: draw_othello,
    UltimateTicTacToe: draw_ultimate,
    Nim: draw_nim,
}


def seat_names(game: Any) -> list[str]:
    """What each seat plays with, for the status line (``["X", "O"]``), else ``[]``."""
    if isinstance(game, ConnectFour):
        return ["red", "yellow"]
    if isinstance(game, (Othello, Go)):  # Go is drawn by web.go_board
        return ["black", "white"]
    if isinstance(game, (UltimateTicTacToe, PhantomMNK)) or (
        isinstance(game, MNK) and _marks(game)
    ):
        return ["X", "O"]
    if isinstance(game, MNK):
        return ["black", "white", "red", "yellow"][: game.num_players]
    return []
