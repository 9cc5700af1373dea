"""Ultimate tic-tac-toe rules compiled (numba) for the kernel.

A position is the core's state ``(stones_0, stones_1, won_0, won_1, closed, forced, ply,
status)`` in four int64 words (every field exact: the words are the position's key):

- word 0: player 0's stones on bits 0-62 (small boards 0-6: action ``a`` is bit ``a``);
- word 1: player 1's stones on bits 0-62;
- word 2: player 0's stones on bits 63-80 (boards 7-8) at bits 0-17, player 1's at bits
  18-35, ``won_0`` at bits 36-44, ``won_1`` at bits 45-53;
- word 3: ``closed`` at bits 0-8, ``forced + 1`` (0 for a free choice) at bits 9-12, ``ply``
  at bits 13-19, ``status`` at bits 20-21.

Words 0-2 hold what only grows along a game (stones, won boards), word 3 the rest. The
accessors and setters below (``_board``, ``_won``, ``_closed``, ...) are the only readers of
the layout. The parameter words are the core's tables over 9-bit masks (one source): whether a
mask holds a tic-tac-toe line (``p[m]``, ``ultimate_tic_tac_toe._HAS_LINE``), then the cells
that would complete one (``p[WIN + m]``, ``_WIN_CELLS``), which the decisive playout reads.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mcts_agents.compiled.cache import njit
from mcts_agents.compiled.common import covers, popcount, random01, same_words, status_result
from mcts_agents.compiled.rules import Codec
from mcts_agents.envs.games import ultimate_tic_tac_toe as core

WORDS = 4
#: Word 2: the stones of boards 7-8 (18 bits a player, player 1's above), then the won boards.
HIGH, HIGH_BITS, WON_SHIFT = 2, 18, 36
#: Word 3: closed boards, then ``forced + 1``, ``ply`` and ``status`` from these bits.
FIELDS, FORCED_SHIFT, PLY_SHIFT, STATUS_SHIFT = 3, 9, 13, 20
_LOW = (1 << 63) - 1
_HIGH18 = (1 << HIGH_BITS) - 1
ALL9 = 0x1FF
#: Where the table of winning cells starts in the parameter words.
WIN = 512


def supports(game: core.UltimateTicTacToe) -> str | None:
    """Every ultimate tic-tac-toe (it has no parameters)."""
    return None


def codec(game: core.UltimateTicTacToe, game_id: int) -> Codec:
    """How ``game`` runs in the kernel (decisive playouts, as the Python search plays the
    core's ``decisive_rollout``)."""
    return Codec(game_id, params(game), WORDS, encode, decode, 81, 81, decisive=True)


def params(game: core.UltimateTicTacToe) -> np.ndarray:
    """The core's line table, then its winning-cell table: one word per 9-bit mask each."""
    return np.array((*core._HAS_LINE, *core._WIN_CELLS), np.int64)


def encode(state: Any) -> list[int]:
    """The four words of the core's state (see the module docstring)."""
    b0, b1, won0, won1, closed, forced, ply, status = state
    high = b0 >> 63 | b1 >> 63 << HIGH_BITS | won0 << WON_SHIFT | won1 << WON_SHIFT + 9
    fields = closed | (forced + 1) << FORCED_SHIFT | ply << PLY_SHIFT | status << STATUS_SHIFT
    return [b0 & _LOW, b1 & _LOW, high, fields]


def decode(words: Any) -> tuple[int, ...]:
    """The core's state of four words."""
    w0, w1, high, fields = (int(x) for x in words)
    return (
        w0 | (high & _HIGH18) << 63,
        w1 | (high >> HIGH_BITS & _HIGH18) << 63,
        high >> WON_SHIFT & ALL9,
        high >> WON_SHIFT + 9 & ALL9,
        fields & ALL9,
        (fields >> FORCED_SHIFT & 15) - 1,
        fields >> PLY_SHIFT & 127,
        fields >> STATUS_SHIFT & 3,
    )


@njit(cache=True)
def _board(s: np.ndarray, player: int, board: int) -> int:
    """The 9-bit mask of ``player``'s stones in small board ``board``."""
    if board < 7:
        return (s[player] >> (9 * board)) & ALL9
    return (s[HIGH] >> (9 * board - 63 + HIGH_BITS * player)) & ALL9


@njit(cache=True)
def _occupied(s: np.ndarray, board: int) -> int:
    return _board(s, 0, board) | _board(s, 1, board)


@njit(cache=True)
def _add_stone(t: np.ndarray, player: int, action: int) -> None:
    """``player``'s stone on ``action``, in place."""
    if action < 63:
        t[player] |= np.int64(1) << action
    else:
        t[HIGH] |= np.int64(1) << (action - 63 + HIGH_BITS * player)


@njit(cache=True)
def _won(s: np.ndarray, player: int) -> int:
    """The 9-bit mask of the small boards ``player`` won."""
    return (s[HIGH] >> (WON_SHIFT + 9 * player)) & ALL9


@njit(cache=True)
def _add_won(t: np.ndarray, player: int, board: int) -> None:
    """Small board ``board`` won by ``player``, in place."""
    t[HIGH] |= np.int64(1) << (WON_SHIFT + 9 * player + board)


@njit(cache=True)
def _closed(s: np.ndarray) -> int:
    return s[FIELDS] & ALL9


@njit(cache=True)
def _forced(s: np.ndarray) -> int:
    """The small board the mover is sent to, or -1 (a free choice)."""
    return ((s[FIELDS] >> FORCED_SHIFT) & 15) - 1


@njit(cache=True)
def _ply(s: np.ndarray) -> int:
    return (s[FIELDS] >> PLY_SHIFT) & 127


@njit(cache=True)
def _status(s: np.ndarray) -> int:
    return (s[FIELDS] >> STATUS_SHIFT) & 3


@njit(cache=True)
def _fields(closed: int, forced: int, ply: int, status: int) -> int:
    """Word 3 of these fields."""
    return closed | ((forced + 1) << FORCED_SHIFT) | (ply << PLY_SHIFT) | (status << STATUS_SHIFT)


@njit(cache=True)
def legal(p: np.ndarray, s: np.ndarray, out: np.ndarray) -> int:
    n = 0
    forced = _forced(s)
    closed = _closed(s)
    for board in range(9):
        if (forced >= 0 and board != forced) or (forced < 0 and (closed >> board) & 1):
            continue
        free = ~_occupied(s, board) & ALL9
        for cell in range(9):
            if (free >> cell) & 1:
                out[n] = 9 * board + cell
                n += 1
    return n


@njit(cache=True)
def _place(p: np.ndarray, t: np.ndarray, action: int) -> int:
    """The mover's stone on ``action`` in ``t``, in place (the core's ``next_state``); the
    new status (0 running, 1 or 2 that player won, 3 draw)."""
    board = action // 9
    cell = action % 9
    ply = _ply(t)
    player = ply & 1
    _add_stone(t, player, action)
    closed = _closed(t)
    status = 0
    if p[_board(t, player, board)]:
        _add_won(t, player, board)
        closed |= 1 << board
        if p[_won(t, player)]:
            status = 1 + player
    if _occupied(t, board) == ALL9:
        closed |= 1 << board
    if status == 0 and closed == ALL9:
        status = 3
    forced = -1 if status or (closed >> cell) & 1 else cell
    t[FIELDS] = _fields(closed, forced, ply + 1, status)
    return status


@njit(cache=True)
def play(p: np.ndarray, s: np.ndarray, action: int, t: np.ndarray) -> int:
    t[:] = s
    return status_result(_place(p, t, action), 2, _ply(t) & 1)


@njit(cache=True)
def to_play(p: np.ndarray, s: np.ndarray) -> int:
    return _ply(s) & 1


@njit(cache=True)
def _danger(p: np.ndarray, theirs: np.ndarray, mine: np.ndarray, won: int, closed: int) -> int:
    """The open small boards where the player with stones ``theirs`` and won boards ``won``
    has an empty cell that wins the game (the core's ``_danger``)."""
    danger = 0
    boards = p[WIN + won] & ~closed & ALL9
    while boards:
        bit = boards & -boards
        boards ^= bit
        board = popcount(bit - 1)
        if p[WIN + theirs[board]] & ~mine[board]:
            danger |= bit
    return danger


@njit(cache=True)
def _safe_cells(p: np.ndarray, board: int, mine: int, theirs: int, closed: int, danger: int) -> int:
    """The empty cells of ``board`` after which the opponent cannot win the game at once (the
    core's ``_safe_cells``; ``danger`` is not 0)."""
    empty = ALL9 ^ (mine | theirs)
    bit = 1 << board
    safe = empty & ~(closed | danger)
    closing = p[WIN + mine] & empty
    if not empty & (empty - 1):  # the last empty cell fills the board
        closing = empty
    special = closing
    if danger & bit:
        theirs_win = p[WIN + theirs] & empty
        if not theirs_win & (theirs_win - 1):
            special |= theirs_win
    rest = danger & ~bit
    while special:
        cell_bit = special & -special
        special ^= cell_bit
        shut = closed | bit if closing & cell_bit else closed
        if rest and (shut | rest) & cell_bit:
            safe &= ~cell_bit
        else:
            safe |= cell_bit
    return safe


@njit(cache=True)
def playout(
    p: np.ndarray, s: np.ndarray, buf: np.ndarray, decisive: bool, rng: np.ndarray
) -> float:
    """Random moves from ``s`` (not terminal) to the end on 9-bit masks per small board: +1, 0
    or -1 for the player to move at ``s``. Uniform, as the core's ``rollout`` plays them; with
    ``decisive`` as its ``decisive_rollout``: win the game at once when a move does, else a
    uniformly random safe move (after which the opponent cannot win at once), with none a loss.
    """
    mine = buf[0:9]  # the mover's stones per small board, then the other's
    theirs = buf[9:18]
    safe = buf[18:27]  # decisive: safe cells per board
    for board in range(9):
        mine[board] = _board(s, 0, board)
        theirs[board] = _board(s, 1, board)
    won_mine, won_theirs = _won(s, 0), _won(s, 1)
    if _ply(s) & 1:
        mine, theirs = theirs, mine
        won_mine, won_theirs = won_theirs, won_mine
    closed = _closed(s)
    forced = _forced(s)
    free = 0  # empty cells of open boards: the moves under a free choice
    for board in range(9):
        if not (closed >> board) & 1:
            free += 9 - popcount(mine[board] | theirs[board])
    sign = 1.0  # the mover's value for the player to move at ``s``
    while True:
        danger = boards = 0
        if decisive:
            boards = (1 << forced) if forced >= 0 else ALL9 ^ closed
            winning = p[WIN + won_mine] & boards
            while winning:
                bit = winning & -winning
                winning ^= bit
                board = popcount(bit - 1)
                if p[WIN + mine[board]] & ~theirs[board]:
                    return sign
            danger = _danger(p, theirs, mine, won_theirs, closed)
        if danger:
            total = 0
            for board in range(9):
                cells = 0
                if (boards >> board) & 1:
                    cells = _safe_cells(p, board, mine[board], theirs[board], closed, danger)
                safe[board] = cells
                total += popcount(cells)
            if total == 0:  # every move lets the opponent win at once
                return -sign
            k = int(random01(rng) * total)
            for board in range(9):
                empty = safe[board]
                n = popcount(empty)
                if k < n:
                    break
                k -= n
        elif forced >= 0:
            board = forced
            empty = ALL9 ^ (mine[board] | theirs[board])
            k = int(random01(rng) * popcount(empty))
        else:
            k = int(random01(rng) * free)
            for board in range(9):
                if (closed >> board) & 1:
                    continue
                empty = ALL9 ^ (mine[board] | theirs[board])
                n = popcount(empty)
                if k < n:
                    break
                k -= n
        while k:
            empty &= empty - 1
            k -= 1
        bit = empty & -empty
        cell = popcount(bit - 1)
        stones = mine[board] | bit
        mine[board] = stones
        occupied = stones | theirs[board]
        free -= 1
        if p[stones]:
            won_mine |= 1 << board
            if p[won_mine]:  # (never with ``decisive``: such a move was taken above)
                return sign
            closed |= 1 << board
            free -= 9 - popcount(occupied)
        elif occupied == ALL9:
            closed |= 1 << board
        if closed == ALL9:
            return 0.0
        forced = -1 if (closed >> cell) & 1 else cell
        mine, theirs = theirs, mine
        won_mine, won_theirs = won_theirs, won_mine
        sign = -sign


@njit(cache=True)
def reachable(p: np.ndarray, root: np.ndarray, s: np.ndarray) -> bool:
    """The core's ``is_reachable(root, s)``."""
    ply = _ply(root)
    if _ply(s) < ply:
        return False
    if _status(root) or _ply(s) == ply:
        return same_words(s, root, WORDS)
    closed = _closed(root)
    if not covers(s, root, FIELDS) or _closed(s) & closed != closed:
        return False  # a stone or won board of ``root`` is missing, or a closed board opened
    closed_low = 0  # the cells of the closed boards, in words 0-1 and in word 2
    closed_high = 0
    for board in range(9):
        if (closed >> board) & 1:
            if board < 7:
                closed_low |= ALL9 << (9 * board)
            else:
                shift = 9 * board - 63
                closed_high |= (ALL9 << shift) | (ALL9 << (shift + HIGH_BITS))
    new0 = s[0] ^ root[0]
    new1 = s[1] ^ root[1]
    new_high = (s[HIGH] ^ root[HIGH]) & ((1 << (2 * HIGH_BITS)) - 1)
    if (new0 | new1) & closed_low or new_high & closed_high:
        return False
    moves = _ply(s) - ply
    mover_moves = (moves + 1) // 2
    count0 = popcount(new0) + popcount(new_high & _HIGH18)
    count1 = popcount(new1) + popcount(new_high >> HIGH_BITS)
    if ply & 1:
        count0, count1 = count1, count0
    if count0 != mover_moves or count1 != moves - mover_moves:
        return False
    if moves == 1:
        low, high = new0 | new1, (new_high | (new_high >> HIGH_BITS)) & _HIGH18
        action = popcount(low - 1) if low else 63 + popcount(high - 1)
        board = action // 9
        forced = _forced(root)
        if (forced >= 0 and board != forced) or (forced < 0 and (closed >> board) & 1):
            return False
        t = root.copy()
        _place(p, t, action)
        return same_words(s, t, WORDS)
    return True
