"""An exact solver for standard 7x6 Connect Four positions with few empty cells.

Negamax with alpha-beta over win/draw/loss only (values +1, 0, -1 for the side to move), on
bitboards laid out like our rules core (``envs/games/connect_four.py``): bit ``7 * col + row``,
row 0 at the bottom, one spare bit on top of each column. It uses:

- a transposition table of bounds, keyed by ``own + mask`` (unique per position);
- immediate-win detection (a move onto one of our open "threat" squares wins);
- forced replies: if the opponent has a threat we can play on, we must block it, and two such
  threats lose; a move directly below an opponent threat is never tried (it loses at once);
- move ordering: the moves that make the most new threats first, ties broken centre-first.

In pure Python this solves random positions with 14-20 empty cells in well under a second
each (the ``benchmarks/data/c4_positions.jsonl`` set); it is meant for positions late in the
game, not the empty board.

``solve(state)`` takes the rules core's state ``(stones_0, stones_1, ply, status)``;
``solve_moves(moves)`` replays columns from the empty board.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

WIDTH, HEIGHT = 7, 6
STRIDE = HEIGHT + 1
CELLS = WIDTH * HEIGHT
BOTTOM = sum(1 << (c * STRIDE) for c in range(WIDTH))
BOARD = BOTTOM * ((1 << HEIGHT) - 1)  # every playable cell
TOP = tuple(1 << (c * STRIDE + HEIGHT - 1) for c in range(WIDTH))
COLUMN = tuple(((1 << HEIGHT) - 1) << (c * STRIDE) for c in range(WIDTH))
ORDER = (3, 2, 4, 1, 5, 0, 6)  # centre first

WIN, DRAW, LOSS = 1, 0, -1


class SolverError(ValueError):
    """The position cannot be solved: not a legal, running 7x6 position."""


@dataclass(frozen=True)
class Solution:
    """The game-theoretic result of a position.

    Attributes:
        value: +1 the side to move wins, 0 draw, -1 the side to move loses (perfect play).
        move_values: value (for the side to move) of each legal column, by column.
        best_moves: the columns that keep ``value`` (sorted).
        nodes: positions searched for this answer (a cost measure).
    """

    value: int
    move_values: dict[int, int]
    best_moves: tuple[int, ...]
    nodes: int


def threats(own: int, mask: int) -> int:
    """Empty cells where a stone of ``own`` would complete four in a row (any height)."""
    # vertical: three below
    r = (own << 1) & (own << 2) & (own << 3)
    for d in (STRIDE, STRIDE - 1, STRIDE + 1):  # horizontal and both diagonals
        p = (own << d) & (own << 2 * d)
        r |= p & (own << 3 * d)  # three on one side
        r |= p & (own >> d)  # two on one side, one on the other
        p = (own >> d) & (own >> 2 * d)
        r |= p & (own << d)
        r |= p & (own >> 3 * d)
    return r & (BOARD ^ mask)


def popcount(x: int) -> int:
    return x.bit_count()


def _bit(x: int) -> int:
    return x & -x


def has_won(stones: int) -> bool:
    """Four in a row in ``stones``."""
    for d in (1, STRIDE, STRIDE - 1, STRIDE + 1):
        m = stones & (stones >> d)
        if m & (m >> 2 * d):
            return True
    return False


class Solver:
    """Alpha-beta negamax with a transposition table (kept between calls, bounded)."""

    def __init__(self, max_entries: int = 2_000_000) -> None:
        self.table: dict[int, tuple[int, int]] = {}
        self.max_entries = max_entries
        self.nodes = 0

    def negamax(self, own: int, mask: int, alpha: int, beta: int) -> int:
        """Value for the player owning ``own`` (to move) at ``mask``; no one has won yet.

        Fail-hard within ``[alpha, beta]``: a result ``<= alpha`` is an upper bound, one
        ``>= beta`` a lower bound.
        """
        self.nodes += 1
        empty = CELLS - popcount(mask)
        possible = (mask + BOTTOM) & BOARD
        if threats(own, mask) & possible:
            return WIN
        if empty <= 1:  # our one move does not win and fills the board
            return DRAW
        other = own ^ mask
        their = threats(other, mask)
        forced = their & possible
        if forced:
            if forced & (forced - 1):  # two threats to block at once
                return LOSS
            possible = forced
        possible &= ~(their >> 1)  # never play right below an opponent's threat
        if not possible:
            return LOSS
        if empty <= 2:  # we play a safe move, the opponent fills the last cell: a draw
            return DRAW
        key = own + mask
        low, high = self.table.get(key, (LOSS, WIN))
        if low >= beta:
            return low
        if high <= alpha:
            return high
        a0, b0 = alpha, beta
        alpha, beta = max(alpha, low), min(beta, high)
        if alpha >= beta:
            return alpha
        # order: most threats after the move first, centre first among equals
        moves = []
        for i, c in enumerate(ORDER):
            move = possible & COLUMN[c]
            if move:
                score = popcount(threats(own | move, mask | move))
                moves.append((-score, i, move))
        moves.sort()
        best = LOSS
        for _, _, move in moves:
            value = -self.negamax(other, mask | move, -beta, -alpha)
            if value > best:
                best = value
                if value > alpha:
                    alpha = value
                    if alpha >= beta:
                        break
        if len(self.table) >= self.max_entries:
            self.table.clear()
        if best <= a0:
            self.table[key] = (low, min(high, best))
        elif best >= b0:
            self.table[key] = (max(low, best), high)
        else:
            self.table[key] = (best, best)
        return best

    def value(self, own: int, mask: int) -> int:
        """The exact value of a running position for the side to move (+1, 0, -1)."""
        return self.negamax(own, mask, LOSS, WIN)

    def solve(self, state: tuple[int, int, int, int]) -> Solution:
        """The value of our rules core's ``state`` and the moves that keep it."""
        b0, b1, ply, status = state
        mask = b0 | b1
        if status or b0 & b1 or mask & ~BOARD:
            raise SolverError(f"not a running 7x6 position: {state!r}")
        if ply != popcount(mask) or has_won(b0) or has_won(b1) or mask == BOARD:
            raise SolverError(f"inconsistent or finished position: {state!r}")
        if (mask + BOTTOM) & BOARD & mask:  # not stacked
            raise SolverError(f"stones are not stacked from the bottom: {state!r}")
        own = b1 if ply & 1 else b0
        other = own ^ mask
        start = self.nodes
        move_values: dict[int, int] = {}
        for c in range(WIDTH):
            if mask & TOP[c]:
                continue
            move = (mask + BOTTOM) & COLUMN[c]
            if has_won(own | move):
                move_values[c] = WIN
            elif popcount(mask) + 1 == CELLS:
                move_values[c] = DRAW
            else:
                move_values[c] = -self.value(other, mask | move)
        value = max(move_values.values())
        best = tuple(c for c, v in sorted(move_values.items()) if v == value)
        return Solution(value, move_values, best, self.nodes - start)


def state_after(moves: Sequence[int]) -> tuple[int, int, int, int]:
    """The rules core's state after ``moves`` (columns) from the empty board."""
    boards = [0, 0]
    mask = 0
    for ply, c in enumerate(moves):
        if not 0 <= c < WIDTH or mask & TOP[c]:
            raise SolverError(f"illegal move {c!r} at ply {ply} of {list(moves)}")
        move = (mask + BOTTOM) & COLUMN[c]
        mask |= move
        boards[ply & 1] |= move
        if has_won(boards[ply & 1]) and ply != len(moves) - 1:
            raise SolverError(f"the game ended at ply {ply} of {list(moves)}")
    status = 0
    if has_won(boards[0]):
        status = 1
    elif has_won(boards[1]):
        status = 2
    elif mask == BOARD:
        status = 3
    return (boards[0], boards[1], len(moves), status)


def solve_moves(moves: Sequence[int], solver: Solver | None = None) -> Solution:
    """Solve the position after ``moves`` (columns from the empty board)."""
    return (solver or Solver()).solve(state_after(moves))
