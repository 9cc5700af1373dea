"""Ultimate tic-tac-toe rules on 81-bit boards (the rules of OpenSpiel's ``ultimate_tic_tac_toe``).

Nine small tic-tac-toe boards form a 3 x 3 big board; small boards and the cells inside each are
numbered 0..8 row-major. Action ``board * 9 + cell`` puts the mover's stone on ``cell`` of small
board ``board``, so the action is also the stone's bit index in the 81-bit boards below.

Rules: the cell played sends the opponent to the small board with the same index. If that board
is closed (won by anyone, or full), the opponent may play in any empty cell of any open board.
Three in a row wins a small board, which is closed at once: its empty cells can never be played.
A full small board without a line is closed too and counts for nobody. Three won small boards in
a row on the big board win the game; when every small board is closed without such a line the
game is a draw. Player 0 (X) moves first.

State: ``(stones_0, stones_1, won_0, won_1, closed, forced, ply, status)``: the players' 81-bit
stone boards, their 9-bit masks of won small boards, the 9-bit mask of closed small boards, the
small board the mover is sent to (``-1``: free choice, and always ``-1`` once the game is over),
the number of moves made, and ``status`` (0 running, 1 player 0 won, 2 player 1 won, 3 draw).
The state is its own transposition key: everything but ``forced`` is a function of the stones,
and ``forced`` must be in the key because two positions with equal stones but different forced
boards have different futures.
"""

from __future__ import annotations

import random
from collections.abc import Hashable

import numpy as np

from mcts_agents.envs.core.bits import BitPlanes
from mcts_agents.envs.core.checks import bits_field, int_field, invalid, state_fields
from mcts_agents.envs.core.game import BoardGame
from mcts_agents.envs.games.ultimate_order import order_problem

State = tuple[int, int, int, int, int, int, int, int]
RUNNING, WIN_0, WIN_1, DRAW = 0, 1, 2, 3
_RETURNS = {RUNNING: (0.0, 0.0), WIN_0: (1.0, -1.0), WIN_1: (-1.0, 1.0), DRAW: (0.0, 0.0)}
_WIN_RETURNS = ((1.0, -1.0), (-1.0, 1.0))

_ALL9 = 0x1FF
_LINES = (0o007, 0o070, 0o700, 0o111, 0o222, 0o444, 0o421, 0o124)  # rows, columns, diagonals
#: ``_HAS_LINE[m]``: whether the 9-bit mask ``m`` contains a tic-tac-toe line.
_HAS_LINE = tuple(any(m & line == line for line in _LINES) for m in range(512))
#: ``_BITS[m]``: the set bits of the 9-bit mask ``m``, ascending.
_BITS = tuple(tuple(i for i in range(9) if m >> i & 1) for m in range(512))
#: ``_ACTIONS[b][m]``: the actions of the cells in the 9-bit mask ``m`` of small board ``b``.
_ACTIONS = tuple(tuple(tuple(9 * b + c for c in _BITS[m]) for m in range(512)) for b in range(9))
#: ``_BOARD_MASK[m]``: the 81-bit mask of all cells of the small boards in the 9-bit mask ``m``.
_BOARD_MASK = tuple(sum(_ALL9 << (9 * b) for b in _BITS[m]) for m in range(512))
#: ``_WIN_CELLS[m]``: the cells outside the 9-bit mask ``m`` whose stone would give ``m`` a line
#: (``m`` a player's stones in a small board: its winning cells, if empty; ``m`` a player's won
#: small boards: the boards that would win the game).
_WIN_CELLS = tuple(
    sum(1 << c for c in range(9) if not m >> c & 1 and _HAS_LINE[m | 1 << c]) for m in range(512)
)

#: ``_CELL[c]``: the 81-bit mask of cell ``c`` of every small board.
_CELL = tuple(sum(1 << (9 * b + c) for b in range(9)) for c in range(9))


def _popcount(x: int) -> int:
    return bin(x).count("1")


def _safe_cells(board: int, mine: int, theirs: int, closed: int, danger: int) -> int:
    """The empty cells of open small ``board`` (the mover's and the opponent's stones there:
    ``mine``, ``theirs``) after which the opponent cannot win the game at once.

    ``danger`` (not 0) holds the open boards where the opponent has a cell that wins the game.
    A stone on cell ``c`` sends the opponent to board ``c``, or anywhere open if ``c`` is
    closed; it is safe if no board of ``danger`` is left, or if board ``c`` is open and out of
    ``danger``. Only ``board`` itself changes: closed by the move (won or filled: it leaves
    ``danger``, and ``c == board`` gives a free choice), or out of ``danger`` when the stone
    takes the opponent's only winning cell there.
    """
    empty = _ALL9 ^ (mine | theirs)
    bit = 1 << board
    safe = empty & ~(closed | danger)
    closing = _WIN_CELLS[mine] & empty
    if not empty & (empty - 1):  # the last empty cell fills the board
        closing = empty
    special = closing
    if danger & bit:
        theirs_win = _WIN_CELLS[theirs] & empty
        if not theirs_win & (theirs_win - 1):
            special |= theirs_win
    rest = danger & ~bit
    for cell in _BITS[special]:
        shut = closed | bit if closing >> cell & 1 else closed
        if rest and (shut | rest) >> cell & 1:
            safe &= ~(1 << cell)
        else:
            safe |= 1 << cell
    return safe


def _danger(theirs: list[int], mine: list[int], won_theirs: int, closed: int) -> int:
    """The open small boards where the opponent (stones ``theirs`` per board, won boards
    ``won_theirs``) has an empty cell that wins the game."""
    danger = 0
    for b in _BITS[_WIN_CELLS[won_theirs] & ~closed & _ALL9]:
        if _WIN_CELLS[theirs[b]] & ~mine[b]:
            danger |= 1 << b
    return danger


class UltimateTicTacToe(BoardGame[State]):
    """Ultimate tic-tac-toe: win three small boards in a row on the big board."""

    def __init__(self) -> None:
        # drawn layout: (row, col) -> action; small boards are 3 x 3 blocks
        layout = np.arange(81).reshape(3, 3, 3, 3).transpose(0, 2, 1, 3).reshape(9, 9)
        self._planes = BitPlanes(layout, 3)
        self._grid_planes = BitPlanes(layout, 2)
        self.name = "ultimate_tic_tac_toe"
        self.num_players = 2
        self.num_actions = 81
        self.observation_shape = (9, 9, 3)

    def params(self) -> dict[str, Hashable]:
        return {}

    # ------------------------------------------------------------------ rules
    def initial_state(self) -> State:
        return (0, 0, 0, 0, 0, -1, 0, RUNNING)

    def to_play(self, state: State) -> int:
        return state[6] & 1

    def legal_actions(self, state: State) -> list[int]:
        b0, b1, _, _, closed, forced, _, status = state
        if status:
            return []
        occupied = b0 | b1
        if forced >= 0:
            return list(_ACTIONS[forced][~(occupied >> (9 * forced)) & _ALL9])
        actions: list[int] = []
        for board in _BITS[~closed & _ALL9]:
            actions.extend(_ACTIONS[board][~(occupied >> (9 * board)) & _ALL9])
        return actions

    def is_legal(self, state: State, action: int) -> bool:
        b0, b1, _, _, closed, forced, _, status = state
        board = action // 9
        if status or (b0 | b1) >> action & 1:
            return False
        return board == forced if forced >= 0 else not closed >> board & 1

    def next_state(self, state: State, action: int) -> State:
        b0, b1, w0, w1, closed, _, ply, status = state
        board, cell = divmod(action, 9)
        shift = 9 * board
        bit = 1 << action
        if ply & 1:
            b1 |= bit
            if _HAS_LINE[(b1 >> shift) & _ALL9]:
                w1 |= 1 << board
                closed |= 1 << board
                if _HAS_LINE[w1]:
                    status = WIN_1
        else:
            b0 |= bit
            if _HAS_LINE[(b0 >> shift) & _ALL9]:
                w0 |= 1 << board
                closed |= 1 << board
                if _HAS_LINE[w0]:
                    status = WIN_0
        if ((b0 | b1) >> shift) & _ALL9 == _ALL9:
            closed |= 1 << board
        if not status and closed == _ALL9:
            status = DRAW
        forced = -1 if status or closed >> cell & 1 else cell
        return (b0, b1, w0, w1, closed, forced, ply + 1, status)

    def is_terminal(self, state: State) -> bool:
        return state[7] != RUNNING

    def returns(self, state: State) -> tuple[float, ...]:
        return _RETURNS[state[7]]

    def check_state(self, state: object) -> None:
        """The stones on distinct cells, X one ahead after an odd ply; each small board won
        by at most one player, by its last stone; the won and closed masks and the status agree
        with the stones; ``forced`` an open board, the cell of the last move; some order of
        play that puts the stones where they are with this ``forced`` board (``ultimate_order``:
        exact until a small board closes). See ``BoardGame.check_state``."""
        name = self.name
        fields = ("stones_0", "stones_1", "won_0", "won_1", "closed", "forced", "ply", "status")
        b0, b1, w0, w1, closed, forced, ply, status = state_fields(name, state, fields)
        cells = (1 << 81) - 1
        bits_field(name, "stones_0", b0, cells)
        bits_field(name, "stones_1", b1, cells)
        for field, value in (("won_0", w0), ("won_1", w1), ("closed", closed)):
            bits_field(name, field, value, _ALL9)
        int_field(name, "forced", forced, -1, 8)
        int_field(name, "ply", ply, 0, 81)
        int_field(name, "status", status, RUNNING, DRAW)
        if b0 & b1:
            invalid(name, f"two stones on one cell: {b0 & b1:#x}")
        n0, n1 = _popcount(b0), _popcount(b1)
        if ply != n0 + n1 or n0 != n1 + (ply & 1):
            invalid(name, f"ply {ply} with {n0} X and {n1} O stones")
        won, full = [0, 0], 0
        for board in range(9):
            small = [b0 >> (9 * board) & _ALL9, b1 >> (9 * board) & _ALL9]
            if small[0] | small[1] == _ALL9:
                full |= 1 << board
            for p in (0, 1):
                if _HAS_LINE[small[p]]:
                    if won[1 - p] >> board & 1 or not any(
                        not _HAS_LINE[small[p] ^ 1 << c] for c in _BITS[small[p]]
                    ):
                        invalid(name, f"small board {board} was won before its last stone")
                    won[p] |= 1 << board
        if (w0, w1) != (won[0], won[1]) or closed != won[0] | won[1] | full:
            invalid(name, f"won_0 {w0}, won_1 {w1}, closed {closed} do not match the stones")
        if _HAS_LINE[w0] and _HAS_LINE[w1]:
            invalid(name, "both players have three small boards in a row")
        expected = (
            WIN_0 if _HAS_LINE[w0] else WIN_1 if _HAS_LINE[w1] else DRAW if closed == _ALL9 else 0
        )
        if status != expected:
            invalid(name, f"status {status} does not match the boards won (expected {expected})")
        x_last = ply & 1 == 1  # X (player 0) moved last
        last = b0 if x_last else b1
        if status in (WIN_0, WIN_1) and (status == WIN_0) != x_last:
            invalid(name, f"status {status}, but the winner did not move last (ply {ply})")
        if forced >= 0 and (status or closed >> forced & 1 or not last & _CELL[forced]):
            invalid(name, f"forced board {forced} is closed, or not the last move's cell")
        problem = order_problem(b0, b1, closed, forced, ply, status == RUNNING)
        if problem:
            invalid(name, problem)

    def is_reachable(self, state: State, key: Hashable) -> bool:
        """Stones never leave; won boards stay won by their owner; closed boards take no stone.

        One move ahead the answer is exact (the key must be a legal successor); further ahead
        every stone, won board and closed board of ``state`` must be in ``key``, each player must
        have added the right number of stones, and no new stone may lie in a board closed now.
        """
        if not isinstance(key, tuple) or len(key) != 8 or key[6] < state[6]:
            return False
        if state[7] or key[6] == state[6]:
            return key == state
        k0, k1, kw0, kw1, kclosed, _, kply, _ = key
        b0, b1, w0, w1, closed, _, ply, _ = state
        if not (
            k0 & b0 == b0
            and k1 & b1 == b1
            and kw0 & w0 == w0
            and kw1 & w1 == w1
            and kclosed & closed == closed
        ):
            return False
        new0, new1 = k0 ^ b0, k1 ^ b1
        if (new0 | new1) & _BOARD_MASK[closed]:
            return False
        moves = kply - ply
        mover_moves = (moves + 1) // 2
        if ply & 1:
            if _popcount(new1) != mover_moves or _popcount(new0) != moves - mover_moves:
                return False
        elif _popcount(new0) != mover_moves or _popcount(new1) != moves - mover_moves:
            return False
        if moves == 1:
            action = (new0 | new1).bit_length() - 1
            return self.is_legal(state, action) and key == self.next_state(state, action)
        return True

    def rollout(self, state: State, rng: random.Random) -> tuple[float, ...]:
        b0, b1, w0, w1, closed, forced, ply, status = state
        if status:
            return _RETURNS[status]
        stones = [
            [(b0 >> (9 * b)) & _ALL9 for b in range(9)],
            [(b1 >> (9 * b)) & _ALL9 for b in range(9)],
        ]
        occupied = [s0 | s1 for s0, s1 in zip(stones[0], stones[1], strict=True)]
        won = [w0, w1]
        # number of empty cells in open boards: the legal moves under free choice
        free = sum(9 - _popcount(occupied[b]) for b in _BITS[~closed & _ALL9])
        player = ply & 1
        rand = rng.random
        bits, has_line = _BITS, _HAS_LINE
        while True:
            if forced >= 0:
                board = forced
                empty = bits[_ALL9 ^ occupied[board]]
                cell = empty[int(rand() * len(empty))]
            else:
                k = int(rand() * free)
                for board in bits[_ALL9 ^ closed]:
                    empty = bits[_ALL9 ^ occupied[board]]
                    if k < len(empty):
                        cell = empty[k]
                        break
                    k -= len(empty)
            bit = 1 << cell
            mine = stones[player]
            m = mine[board] | bit
            mine[board] = m
            o = occupied[board] | bit
            occupied[board] = o
            free -= 1
            if has_line[m]:
                board_bit = 1 << board
                w = won[player] | board_bit
                won[player] = w
                if has_line[w]:
                    return _WIN_RETURNS[player]
                closed |= board_bit
                free -= 9 - len(bits[o])
            elif o == _ALL9:
                closed |= 1 << board
            if closed == _ALL9:
                return (0.0, 0.0)
            forced = -1 if closed >> cell & 1 else cell
            player ^= 1

    def decisive_choices(self, state: State) -> list[int]:
        """The moves ``decisive_rollout`` picks uniformly from at ``state`` (not terminal): the
        moves that win the game if there are any, else the safe moves (after which the
        opponent cannot win the game at once), else every legal move."""
        b0, b1, w0, w1, closed, forced, ply, _ = state
        player = ply & 1
        stones = [
            [(b0 >> (9 * b)) & _ALL9 for b in range(9)],
            [(b1 >> (9 * b)) & _ALL9 for b in range(9)],
        ]
        mine, theirs = stones[player], stones[player ^ 1]
        won = (w0, w1)
        boards = 1 << forced if forced >= 0 else _ALL9 ^ closed
        wins = [
            a
            for b in _BITS[_WIN_CELLS[won[player]] & boards]
            for a in _ACTIONS[b][_WIN_CELLS[mine[b]] & ~(mine[b] | theirs[b])]
        ]
        if wins:
            return wins
        danger = _danger(theirs, mine, won[player ^ 1], closed)
        legal = self.legal_actions(state)
        if not danger:
            return legal
        safe = [
            a
            for b in _BITS[boards]
            for a in _ACTIONS[b][_safe_cells(b, mine[b], theirs[b], closed, danger)]
        ]
        return safe or legal

    def decisive_rollout(self, state: State, rng: random.Random) -> tuple[float, ...]:
        """The playout of ``playout="decisive"``: random moves that take a win of the game and
        avoid handing one to the opponent.

        At each ply the mover (1) wins the game at once if a legal move does: a cell that
        completes a line in a small board that completes a line of won boards (the playout
        ends there, a win whichever such move is played); (2) otherwise plays uniformly among
        the safe moves: those after which the opponent has no move that wins the game (the
        opponent's moves are in the board of the cell played, or in any open board if that
        board is closed, the board just played included); (3) if no move is safe, every move
        lets the opponent win at once, which it then does (its rule 1): the playout ends as a
        loss for the mover. Winning cells come from a table per 9-bit mask (``_WIN_CELLS``),
        so a ply costs bit operations on the boards where a player can win the game, not
        move generation. ``decisive_choices`` lists the moves of rules 1 to 3 at a position.
        """
        b0, b1, w0, w1, closed, forced, ply, status = state
        if status:
            return _RETURNS[status]
        stones = [
            [(b0 >> (9 * b)) & _ALL9 for b in range(9)],
            [(b1 >> (9 * b)) & _ALL9 for b in range(9)],
        ]
        occupied = [s0 | s1 for s0, s1 in zip(stones[0], stones[1], strict=True)]
        won = [w0, w1]
        free = sum(9 - _popcount(occupied[b]) for b in _BITS[~closed & _ALL9])
        player = ply & 1
        rand = rng.random
        bits, has_line, win_cells = _BITS, _HAS_LINE, _WIN_CELLS
        while True:
            mine, theirs = stones[player], stones[player ^ 1]
            boards = 1 << forced if forced >= 0 else _ALL9 ^ closed
            for b in bits[win_cells[won[player]] & boards]:
                if win_cells[mine[b]] & ~occupied[b]:
                    return _WIN_RETURNS[player]
            danger = _danger(theirs, mine, won[player ^ 1], closed)
            if danger:
                safe = [
                    (b, c)
                    for b in bits[boards]
                    for c in bits[_safe_cells(b, mine[b], theirs[b], closed, danger)]
                ]
                if not safe:  # every move lets the opponent win at once
                    return _WIN_RETURNS[player ^ 1]
                board, cell = safe[int(rand() * len(safe))]
            elif forced >= 0:
                board = forced
                empty = bits[_ALL9 ^ occupied[board]]
                cell = empty[int(rand() * len(empty))]
            else:
                k = int(rand() * free)
                for board in bits[_ALL9 ^ closed]:
                    empty = bits[_ALL9 ^ occupied[board]]
                    if k < len(empty):
                        cell = empty[k]
                        break
                    k -= len(empty)
            m = mine[board] | 1 << cell
            mine[board] = m
            o = occupied[board] | 1 << cell
            occupied[board] = o
            free -= 1
            if has_line[m]:  # a small board, not the game (rule 1 found no win)
                won[player] |= 1 << board
                closed |= 1 << board
                free -= 9 - len(bits[o])
            elif o == _ALL9:
                closed |= 1 << board
            if closed == _ALL9:
                return (0.0, 0.0)
            forced = -1 if closed >> cell & 1 else cell
            player ^= 1

    # ------------------------------------------------------------------ views
    def observation(self, state: State, player: int) -> np.ndarray:
        """Planes (9, 9, 3): own stones, opponent stones, cells the player to move may play now.

        Row ``3 * (board // 3) + cell // 3``, column ``3 * (board % 3) + cell % 3``. The third
        plane is the same for both observers (it shows where the forced board sends the mover)
        and is all zeros once the game is over.
        """
        own, other = (state[0], state[1]) if player == 0 else (state[1], state[0])
        legal = sum(1 << a for a in self.legal_actions(state))
        return self._planes(own, other, legal)

    def grid(self, state: State) -> np.ndarray:
        planes = self._grid_planes(state[0], state[1])
        return planes[..., 0] + 2 * planes[..., 1]

    def render_text(self, state: State) -> str:
        symbols = ".XO"
        lines = []
        for r, row in enumerate(self.grid(state)):
            if r and r % 3 == 0:
                lines.append("")
            cells = "".join(symbols[v] for v in row)
            lines.append(" ".join(cells[i : i + 3] for i in (0, 3, 6)))
        big = ""
        for board in range(9):
            if state[2] >> board & 1:
                big += "X"
            elif state[3] >> board & 1:
                big += "O"
            else:
                big += "-" if state[4] >> board & 1 else "."
        lines.append("")
        lines.append(f"big board: {big[0:3]} {big[3:6]} {big[6:9]}")
        status = state[7]
        if status == RUNNING:
            where = "any board" if state[5] < 0 else f"board {state[5]}"
            lines.append(f"{'XO'[state[6] & 1]} to play in {where}")
        else:
            lines.append({WIN_0: "X wins", WIN_1: "O wins", DRAW: "draw"}[status])
        return "\n".join(lines)

    def action_to_string(self, state: State, action: int) -> str:
        board, cell = divmod(action, 9)
        return f"board {board} cell {cell}"
