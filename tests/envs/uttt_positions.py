"""Hand-built ultimate tic-tac-toe positions for the tests of decisive playouts.

In all of them O has won small boards 0 and 1 and holds cells 3 and 4 of board 2 (cell 5 of
board 2 wins O the game), and X has won boards 3 and 4 and holds cells 0 and 1 of board 5
(cell 2 of board 5 wins X the game). X is to move; only the board X is sent to differs.
"""

from __future__ import annotations

from mcts_agents.envs.games.ultimate_tic_tac_toe import RUNNING

#: The eight lines of a 3 x 3 board, cells numbered row-major.
LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))


def has_line(cells: set[int]) -> bool:
    return any(set(line) <= cells for line in LINES)


def position(
    x: dict[int, tuple[int, ...]], o: dict[int, tuple[int, ...]], forced: int
) -> tuple[int, ...]:
    """The state with X's and O's stones (``{board: cells}``) and X to move, sent to board
    ``forced`` (``-1``: any open board); won and closed boards follow from the stones."""
    stones = [sum(1 << (9 * b + c) for b, cells in side.items() for c in cells) for side in (x, o)]
    won = [sum(1 << b for b, cells in side.items() if has_line(set(cells))) for side in (x, o)]
    full = sum(1 << b for b in range(9) if len(x.get(b, ())) + len(o.get(b, ())) == 9)
    ply = sum(len(cells) for side in (x, o) for cells in side.values())
    assert ply % 2 == 0 and not has_line({b for b in range(9) if won[0] >> b & 1})
    assert not has_line({b for b in range(9) if won[1] >> b & 1})
    return (*stones, *won, won[0] | won[1] | full, forced, ply, RUNNING)


_O = {0: (0, 1, 2), 1: (0, 1, 2), 2: (3, 4), 7: (1, 4, 6, 8), 8: (1, 3, 4, 8)}
_X = {3: (0, 1, 2), 4: (0, 1, 2), 5: (0, 1), 6: (0,), 7: (0, 2, 3, 7), 8: (0, 5, 6)}

#: X sent to board 5: cell 2 there wins X the game.
CAN_WIN = position(_X, _O, 5)
#: X free to play anywhere open: board 5 cell 2 wins X the game.
CAN_WIN_ANYWHERE = position(_X, _O, -1)
#: X sent to board 8 (cells 2 and 7 empty). Cell 2 sends O to board 2, where O wins the game;
#: cell 7 is safe: it sends O to board 7, whose only empty cell sends X to board 5, where X
#: wins the game. Decisive playouts from here are X wins, every one.
ONE_SAFE = position(_X, _O, 8)
#: X sent to board 8 (cells 1 and 2 empty): cell 2 sends O to board 2, cell 1 to board 1, won
#: by O, so O may play anywhere, board 2 included. No move is safe: decisive playouts from here
#: are O wins, every one.
NONE_SAFE = position(
    {**_X, 6: (), 8: (0, 5, 6, 7)}, {**_O, 6: (4,), 8: (3, 4, 8)}, 8
)  # fmt: skip
