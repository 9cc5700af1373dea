"""Connect Four rules on bitboards (any width, height and k).

Bit ``c * (height + 1) + r`` is column ``c``, row ``r`` (row 0 at the bottom); each column has
one spare bit on top so that shifts never carry a line from one column into the next.

State: ``(stones_0, stones_1, ply, status)``: the two players' stone bitboards, the number of
moves made, and ``status`` (0 running, 1 player 0 won, 2 player 1 won, 3 draw). ``ply`` and
``status`` are functions of the stones, so the state is its own transposition key.

The bit tricks for k = 4 (``won4``, ``threats4``) are plain functions of ints, written once: the
rules core calls them on Python ints, and the compiled search compiles the same functions with
numba for int64 (``mcts_agents.compiled``), reading the board geometry from ``ConnectFourLayout``.
"""

from __future__ import annotations

import random
from collections.abc import Hashable
from dataclasses import dataclass

import numpy as np

from mcts_agents.envs.core.bits import BitPlanes
from mcts_agents.envs.core.checks import bits_field, int_field, invalid, state_fields
from mcts_agents.envs.core.errors import InvalidParameterError
from mcts_agents.envs.core.game import BoardGame
from mcts_agents.envs.core.params import MAX_BOARD_SIDE, check_int

State = tuple[int, int, int, int]
RUNNING, WIN_0, WIN_1, DRAW = 0, 1, 2, 3
_RETURNS = {RUNNING: (0.0, 0.0), WIN_0: (1.0, -1.0), WIN_1: (-1.0, 1.0), DRAW: (0.0, 0.0)}


def won4(board: int, stride: int) -> bool:
    """Four in a row among the stones of ``board`` (``stride = height + 1``).

    The spare bit on top of every column is never a stone, so a shifted line cannot run from
    the top of one column into the next.
    """
    m = board & (board >> 1)  # vertical
    if m & (m >> 2):
        return True
    m = board & (board >> stride)  # horizontal
    if m & (m >> (2 * stride)):
        return True
    m = board & (board >> (stride - 1))  # one diagonal
    if m & (m >> (2 * (stride - 1))):
        return True
    m = board & (board >> (stride + 1))  # the other
    return (m & (m >> (2 * (stride + 1)))) != 0


def won(board: int, stride: int, k: int) -> bool:
    """``k`` in a row among the stones of ``board``, for any ``k`` (``won4`` is faster for 4)."""
    for d in (1, stride, stride - 1, stride + 1):  # |, -, \, /
        m = board
        for i in range(1, k):
            m &= board >> (i * d)
            if not m:
                break
        if m:
            return True
    return False


def threats4(board: int, empty: int, stride: int) -> int:
    """The cells of ``empty`` where one more stone of ``board`` makes four in a row.

    Lines through the spare top bit of a column are never complete, so shifted bits that wrap
    into the next column cannot create false threats. Left shifts may carry bits past the board
    (past bit 63 in an int64); the result is masked with ``empty``, so those never matter.
    """
    r = (board << 1) & (board << 2) & (board << 3)  # vertical: three stones below
    for d in (stride, stride - 1, stride + 1):  # horizontal and the two diagonals
        x = board << d
        y = board >> d
        r |= (x & (board << (2 * d))) & ((board << (3 * d)) | y)
        r |= (y & (board >> (2 * d))) & ((board >> (3 * d)) | x)
    return r & empty


@dataclass(frozen=True, slots=True)
class ConnectFourLayout:
    """How ``ConnectFour`` lays a position out in bits: what a compiled search needs to know.

    Attributes:
        width, height, k: the rules' parameters.
        stride: ``height + 1``; cell (column ``c``, row ``r``, row 0 at the bottom) is bit
            ``c * stride + r``, and bit ``c * stride + height`` (the spare bit) is always 0.
        full: every cell of the board.
        bottom_row: the bottom cell of every column; ``(occupied + bottom_row) & full`` is the
            set of cells a stone can be dropped into.
        bits: the highest bit index used, plus one (``width * stride``).
    """

    width: int
    height: int
    k: int
    stride: int
    full: int
    bottom_row: int
    bits: int


class ConnectFour(BoardGame[State]):
    """Two players drop stones into columns; the first with ``k`` in a row wins."""

    def __init__(self, width: int = 7, height: int = 6, k: int = 4) -> None:
        width = check_int("width", width, 1, MAX_BOARD_SIDE)
        height = check_int("height", height, 1, MAX_BOARD_SIDE)
        k = check_int("k", k, 1)
        if k < 2 or k > max(width, height):
            raise InvalidParameterError(
                f"k must be in [2, max(width, height)] = [2, {max(width, height)}], got {k}"
            )
        self.width, self.height, self.k = width, height, k
        self.name = "connect_four"
        self.num_players = 2
        self.num_actions = width
        self.observation_shape = (height, width, 2)
        stride = height + 1
        self._stride = stride
        self._bottom = tuple(1 << (c * stride) for c in range(width))
        self._bottom_row = sum(1 << (c * stride) for c in range(width))
        self._top = tuple(1 << (c * stride + height - 1) for c in range(width))
        self._full = sum(((1 << height) - 1) << (c * stride) for c in range(width))
        self.layout = ConnectFourLayout(
            width, height, k, stride, self._full, self._bottom_row, width * stride
        )
        self._cells = width * height
        # (row from the top, column) -> bit index, for observations and drawing
        bit_index = np.array(
            [[c * stride + height - 1 - r for c in range(width)] for r in range(height)]
        )
        self._planes = BitPlanes(bit_index, 2)

    def params(self) -> dict[str, Hashable]:
        return {"width": self.width, "height": self.height, "k": self.k}

    # ------------------------------------------------------------------ rules
    def initial_state(self) -> State:
        return (0, 0, 0, RUNNING)

    def to_play(self, state: State) -> int:
        return state[2] & 1

    def legal_actions(self, state: State) -> list[int]:
        if state[3]:
            return []
        mask = state[0] | state[1]
        return [c for c, top in enumerate(self._top) if not mask & top]

    def is_legal(self, state: State, action: int) -> bool:
        return not state[3] and not (state[0] | state[1]) & self._top[action]

    def _wins(self, board: int) -> bool:
        if self.k == 4:
            return won4(board, self._stride)
        return won(board, self._stride, self.k)

    def next_state(self, state: State, action: int) -> State:
        b0, b1, ply, _ = state
        mask = b0 | b1
        move = (mask + self._bottom[action]) & ~mask
        ply += 1
        if ply & 1:  # player 0 moved
            b0 |= move
            status = WIN_0 if self._wins(b0) else RUNNING
        else:
            b1 |= move
            status = WIN_1 if self._wins(b1) else RUNNING
        if not status and ply == self._cells:
            status = DRAW
        return (b0, b1, ply, status)

    def is_terminal(self, state: State) -> bool:
        return state[3] != RUNNING

    def returns(self, state: State) -> tuple[float, ...]:
        return _RETURNS[state[3]]

    def position(self, state: State) -> tuple[int, int]:
        """``(current, occupied)``: the stones of the player to move, and all stones."""
        b0, b1, ply, _ = state
        return (b1 if ply & 1 else b0), b0 | b1

    def state_from_position(self, current: int, occupied: int) -> State:
        """The state of ``position``'s ``(current, occupied)`` bitboards."""
        other = current ^ occupied
        if occupied.bit_count() & 1:  # player 1 is to move
            return self.state_from_stones(other, current)
        return self.state_from_stones(current, other)

    def state_from_stones(self, b0: int, b1: int) -> State:
        """The state with these stone bitboards (ply and status follow from the stones)."""
        ply = (b0 | b1).bit_count()
        if self._wins(b0):
            status = WIN_0
        elif self._wins(b1):
            status = WIN_1
        else:
            status = DRAW if ply == self._cells else RUNNING
        return (b0, b1, ply, status)

    def check_state(self, state: object) -> None:
        """The stones on the board, on distinct cells, none floating; the ply and the stone
        counts agree (player 0 moves first); the status agrees with the lines, and a won game
        was won by its last stone. See ``BoardGame.check_state``."""
        name = self.name
        b0, b1, ply, status = state_fields(name, state, ("stones_0", "stones_1", "ply", "status"))
        full = self._full
        bits_field(name, "stones_0", b0, full)
        bits_field(name, "stones_1", b1, full)
        int_field(name, "ply", ply, 0, self._cells)
        int_field(name, "status", status, RUNNING, DRAW)
        if b0 & b1:
            invalid(name, f"two stones on one cell: {b0 & b1:#x} is in both players' stones")
        occupied = b0 | b1
        if (occupied + self._bottom_row) & occupied:
            invalid(name, "a floating stone: a column's stones must fill it from the bottom")
        n0, n1 = b0.bit_count(), b1.bit_count()
        if ply != n0 + n1 or n0 != n1 + (ply & 1):
            invalid(
                name,
                f"ply {ply} with {n0} stones of player 0 and {n1} of player 1; expected the ply "
                "to be the number of stones, player 0 one ahead after an odd ply",
            )
        wins = self._wins(b0), self._wins(b1)
        if wins[0] and wins[1]:
            invalid(name, "both players have a line")
        expected = WIN_0 if wins[0] else WIN_1 if wins[1] else DRAW if ply == self._cells else 0
        if status != expected:
            invalid(name, f"status {status} does not match the stones (expected {expected})")
        if wins[0] or wins[1]:
            winner = 0 if wins[0] else 1
            if (ply & 1) != (winner == 0):
                invalid(name, f"player {winner} has a line, but player {1 - winner} moved last")
            stones = b0 if winner == 0 else b1
            tops = stones & ~(occupied >> 1)  # the winner's stones on top of their columns
            last = tops
            while last:
                bit = last & -last
                if not self._wins(stones ^ bit):
                    return
                last ^= bit
            invalid(name, f"player {winner}'s line was complete before its last stone")

    def is_reachable(self, state: State, key: Hashable) -> bool:
        """Stones never leave the board: every stone of ``state`` must be in ``key``."""
        if not isinstance(key, tuple) or len(key) != 4:
            return False
        k0, k1, ply, _ = key
        b0, b1, own_ply, status = state
        if status:
            return key == state
        return ply >= own_ply and k0 & b0 == b0 and k1 & b1 == b1

    def rollout(self, state: State, rng: random.Random) -> tuple[float, ...]:
        b0, b1, ply, status = state
        if status:
            return _RETURNS[status]
        if self.k != 4:
            return super().rollout(state, rng)
        mask = b0 | b1
        top, bottom, cells, stride = self._top, self._bottom, self._cells, self._stride
        columns = [c for c in range(self.width) if not mask & top[c]]
        rand = rng.random
        boards = [b0, b1]
        while True:
            i = int(rand() * len(columns))
            c = columns[i]
            move = (mask + bottom[c]) & ~mask
            mask |= move
            if mask & top[c]:
                columns[i] = columns[-1]
                columns.pop()
            player = ply & 1
            ply += 1
            b = boards[player] | move
            boards[player] = b
            if ply > 6 and won4(b, stride):
                return (1.0, -1.0) if player == 0 else (-1.0, 1.0)
            if ply == cells:
                return (0.0, 0.0)

    def decisive_rollout(self, state: State, rng: random.Random) -> tuple[float, ...]:
        """Random playout with decisive and anti-decisive moves (``k == 4``; else uniform).

        At each ply the player to move wins at once if it can; otherwise blocks the
        opponent's only immediate win (two of them lose at once); otherwise plays a uniformly
        random column, avoiding cells directly below an opponent's winning cell when any other
        column is left. Stronger playouts per simulation than uniform random ones.
        """
        b0, b1, ply, status = state
        if status:
            return _RETURNS[status]
        if self.k != 4:
            return super().rollout(state, rng)
        full, bottom, stride = self._full, self._bottom_row, self._stride
        mask = b0 | b1
        empty = full ^ mask
        threats = [threats4(b0, empty, stride), threats4(b1, empty, stride)]
        boards = [b0, b1]
        player = ply & 1
        rand = rng.random
        while True:
            possible = (mask + bottom) & full
            if not possible:
                return (0.0, 0.0)
            if threats[player] & possible:
                return (1.0, -1.0) if player == 0 else (-1.0, 1.0)
            other = player ^ 1
            forced = threats[other] & possible
            if forced:
                if forced & (forced - 1):  # two immediate wins for the opponent: lost
                    return (-1.0, 1.0) if player == 0 else (1.0, -1.0)
                move = forced
            else:
                safe = possible & ~(threats[other] >> 1)
                if safe:
                    possible = safe
                k = int(rand() * possible.bit_count())
                while k:
                    possible &= possible - 1
                    k -= 1
                move = possible & -possible
            mask |= move
            b = boards[player] | move
            boards[player] = b
            threats[player] = threats4(b, full & ~mask, stride)
            threats[other] &= ~move
            player = other

    # ------------------------------------------------------------------ views
    def observation(self, state: State, player: int) -> np.ndarray:
        own, other = (state[0], state[1]) if player == 0 else (state[1], state[0])
        return self._planes(own, other)

    def grid(self, state: State) -> np.ndarray:
        planes = self._planes(state[0], state[1])
        return planes[..., 0] + 2 * planes[..., 1]

    def render_text(self, state: State) -> str:
        symbols = ".XO"
        rows = ["".join(symbols[v] for v in row) for row in self.grid(state)]
        footer = "".join(str(c % 10) for c in range(self.width))
        status = {
            RUNNING: f"{'XO'[state[2] & 1]} to play",
            WIN_0: "X wins",
            WIN_1: "O wins",
            DRAW: "draw",
        }[state[3]]
        return "\n".join([*rows, footer, status])

    def action_to_string(self, state: State, action: int) -> str:
        return f"column {action}"
