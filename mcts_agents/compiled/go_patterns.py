"""Go's 3x3 playout patterns (MoGo's, Gelly, Wang, Munos and Teytaud 2006: hane, cut and edge
shapes around an empty point), as a table of the point's eight neighbours for ``go_search``.

A pattern is three rows of three around the candidate point (the centre, empty): ``X`` and
``O`` are stones of the two colours, ``.`` an empty point, `` `` (a space) off the board, ``?``
anything, ``x`` anything but ``X`` on the board or off it, ``o`` likewise for ``O``. Each
pattern holds in its eight orientations and with the colours swapped (the shape is good for
either player), so the table does not depend on who is to move.

The table has one entry per neighbourhood code ``sum(v_i * 4**i)`` over the eight neighbours
in the order ``NEIGHBOURS`` (``v``: 0 empty, 1 black, 2 white, 3 off the board).
"""

from __future__ import annotations

import functools
import itertools

import numpy as np

__all__ = ["NEIGHBOURS", "PATTERNS", "pattern_table"]

#: (row, column) offsets of the eight neighbours, in the code's order.
NEIGHBOURS = ((-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1))

PATTERNS = (
    ("XOX", "...", "???"),  # hane: enclosing hane
    ("XO.", "...", "?.?"),  # hane: non-cutting hane
    ("XO?", "X..", "x.?"),  # hane: magari
    (".O.", "X..", "..."),  # katatsuke or diagonal attachment
    ("XO?", "O.o", "?o?"),  # cut: unprotected
    ("XO?", "O.X", "???"),  # cut: peeped
    ("?X?", "O.O", "ooo"),  # cut: de
    ("OX?", "o.O", "???"),  # cut: keima
    ("X.?", "O.?", "   "),  # edge: chase
    ("OX?", "X.O", "   "),  # edge: block side cut
    ("?X?", "x.O", "   "),  # edge: block side connection
    ("?XO", "x.x", "   "),  # edge: sagari
    ("?OX", "X.O", "   "),  # edge: cut
)

_CHOICES = {".": (0,), "X": (1,), "O": (2,), " ": (3,), "?": (0, 1, 2, 3), "x": (0, 2, 3)}
_CHOICES["o"] = (0, 1, 3)


def _orientations(rows: tuple[str, str, str]) -> list[np.ndarray]:
    grid = np.array([list(r) for r in rows])
    out = []
    for turn in range(4):
        g = np.rot90(grid, turn)
        out.extend([g, g[:, ::-1]])
    return out


def _swap(grid: np.ndarray) -> np.ndarray:
    table = str.maketrans("XOxo", "OXox")
    return np.array([[c.translate(table) for c in row] for row in grid])


@functools.cache
def pattern_table() -> np.ndarray:
    """``table[code]``: whether the neighbourhood ``code`` matches a pattern (bool, 4**8)."""
    table = np.zeros(4**8, np.bool_)
    for rows in PATTERNS:
        for grid in _orientations(rows):
            for g in (grid, _swap(grid)):
                cells = [g[1 + dr, 1 + dc] for dr, dc in NEIGHBOURS]
                for values in itertools.product(*(_CHOICES[c] for c in cells)):
                    table[sum(v * 4**i for i, v in enumerate(values))] = True
    return table
