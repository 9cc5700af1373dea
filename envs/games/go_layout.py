"""Go's board layout, Zobrist tables and GTP vertices: plain functions the rules core
(``go.py``) builds on and a compiled kernel can share.

Layout: bit ``row * (size + 1) + col`` for the point of action ``row * size + col`` (row 0 at
the top); the guard column ``col == size`` is never a point, so neighbours are shifts by 1 and
by ``size + 1`` under one mask, with no wrapping at the edges.
"""

from __future__ import annotations

import random

__all__ = ["COLUMNS", "layout", "parse_vertex", "vertex", "zobrist_table"]

COLUMNS = "ABCDEFGHJKLMNOPQRST"  # GTP's column letters: no I


def layout(size: int) -> tuple[int, int, list[int], list[int]]:
    """``(width, board, action_bit, bit_action)``: the row stride (``size + 1``), the mask of
    the points, each action's bit, and each bit's action (-1 on the guard column)."""
    width = size + 1
    action_bit = [r * width + c for r in range(size) for c in range(size)]
    bit_action = [-1] * (size * width)
    for action, bit in enumerate(action_bit):
        bit_action[bit] = action
    board = sum(1 << b for b in action_bit)
    return width, board, action_bit, bit_action


def zobrist_table(size: int) -> tuple[list[list[int]], int, list[int], list[int]]:
    """``(stone[colour][action], white_to_move, ko[action], passes[0..2])``: 64-bit keys from
    a fixed seed, the same in every process and in the compiled kernel."""
    rng = random.Random(0x60 + size)
    points = size * size
    stone = [[rng.getrandbits(64) for _ in range(points)] for _ in range(2)]
    side = rng.getrandbits(64)
    ko = [rng.getrandbits(64) for _ in range(points)]
    passes = [0, rng.getrandbits(64), rng.getrandbits(64)]
    return stone, side, ko, passes


def vertex(action: int, size: int) -> str:
    """GTP's name of ``action``: ``pass``, or a column letter (no I) and the row from the bottom."""
    if action == size * size:
        return "pass"
    row, col = divmod(action, size)
    return f"{COLUMNS[col]}{size - row}"


def parse_vertex(text: str, size: int) -> int | None:
    """The action of GTP vertex ``text`` (``"D4"``, ``"pass"``, any case), or None if it is no
    point of a ``size`` board."""
    text = text.strip().upper()
    if text == "PASS":
        return size * size
    row = text[1:]
    if len(text) < 2 or text[0] not in COLUMNS[:size] or not (row.isascii() and row.isdigit()):
        return None
    row_from_bottom = int(row) if len(row.lstrip("0")) <= 2 else 0  # (int() refuses 4,300 digits)
    if not 1 <= row_from_bottom <= size:
        return None
    return (size - row_from_bottom) * size + COLUMNS.index(text[0])
