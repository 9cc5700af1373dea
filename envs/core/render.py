"""Pixel rendering with numpy only (no pygame): a board grid with round pieces."""

from __future__ import annotations

import numpy as np

# RGB colours for players 0..3 (black, white, red, yellow), then board and line colours.
PIECE_COLOURS = np.array(
    [[20, 20, 20], [240, 240, 240], [200, 40, 40], [240, 200, 30]], dtype=np.uint8
)
BOARD_COLOUR = np.array([40, 120, 70], dtype=np.uint8)
LINE_COLOUR = np.array([15, 50, 30], dtype=np.uint8)


def draw_grid(grid: np.ndarray, cell: int = 40, block: int = 0) -> np.ndarray:
    """Draw ``grid`` (0 empty, ``p + 1`` a piece of player ``p``) as an RGB uint8 image.

    Args:
        grid: 2-D int array, row 0 drawn at the top.
        cell: pixel size of one square.
        block: if > 0, draw a thicker line every ``block`` squares (ultimate tic-tac-toe).
    """
    rows, cols = grid.shape
    image = np.empty((rows * cell + 1, cols * cell + 1, 3), dtype=np.uint8)
    image[:] = BOARD_COLOUR
    for r in range(rows + 1):
        width = 3 if block and r % block == 0 else 1
        image[max(0, r * cell - width // 2) : r * cell + width // 2 + 1, :] = LINE_COLOUR
    for c in range(cols + 1):
        width = 3 if block and c % block == 0 else 1
        image[:, max(0, c * cell - width // 2) : c * cell + width // 2 + 1] = LINE_COLOUR
    yy, xx = np.mgrid[0:cell, 0:cell]
    centre = (cell - 1) / 2
    disc = (yy - centre) ** 2 + (xx - centre) ** 2 <= (0.4 * cell) ** 2
    for (r, c), value in np.ndenumerate(grid):
        if value > 0:
            square = image[r * cell : (r + 1) * cell, c * cell : (c + 1) * cell]
            square[disc] = PIECE_COLOURS[(int(value) - 1) % len(PIECE_COLOURS)]
    return image
