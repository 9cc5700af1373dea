"""m,n,k rules compiled (numba) for the kernel: 2 to 4 players, one or two stones per turn.

A position is the core's state ``(stones_0, ..., stones_P-1, count, status)`` in ``P Q + 2``
int64 words: each player's board split into ``Q = ceil(m n / 64)`` words of 64 bits (bit
``cell & 63`` of word ``cell >> 6``), then the stone count and the status (0 running, ``p + 1``
player ``p`` won, ``P + 1`` draw). Boards of up to 256 cells (Gomoku 15x15 is 225). Parameter
words ``p``: ``(m, n, k, cells, stones_per_turn, first_win, Q, W, P)``, then the windows.

Two players: terminal values and playouts are values for the player to move (+1, 0, -1).
More players: they are outcome codes (``common.DRAW``, ``common.WIN + p``), and the kernel
backs up what a code pays each mover (max^n).

A win is checked through the stone just placed, counting the player's stones along the four
lines through it (``k`` or more wins, as in the core). The playout places uniformly random
stones on empty cells; the decisive playout first completes a line of the player to move if
one stone can, else blocks the opponent's only one-stone win (two such cells lose).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mcts_agents.compiled.cache import njit
from mcts_agents.compiled.common import covers, random01, same_words, status_result
from mcts_agents.compiled.rules import Codec
from mcts_agents.envs.games.mnk import MNK

#: The most cells a board may have in the kernel (four words a player).
MAX_CELLS = 256
_WORD = (1 << 64) - 1


def supports(game: MNK) -> str | None:
    """``None`` if ``game``'s board has at most ``MAX_CELLS`` cells."""
    if game.m * game.n > MAX_CELLS:
        return f"the compiled kernel plays m,n,k on up to {MAX_CELLS} cells, got {game.m}x{game.n}"
    return None


def codec(game: MNK, game_id: int) -> Codec:
    """How ``game`` runs in the kernel (uniform playouts: the decisive one lost its A/Bs)."""
    cells = game.m * game.n
    return Codec(
        game_id, params(game), game.num_players * words_per_player(game) + 2,
        lambda s: encode(game, s), lambda w: decode(game, w), cells, cells,
        players=game.num_players,
    )  # fmt: skip


def words_per_player(game: MNK) -> int:
    return -(-(game.m * game.n) // 64)


def params(game: MNK) -> np.ndarray:
    """``(m, n, k, cells, stones_per_turn, first_win, Q, W, P)``, then on boards of one word
    (up to 64 cells) ``W`` windows per cell: the core's own ``k``-cell windows through each
    cell as masks (``MNK._windows``; a cell with fewer repeats its first)."""
    q = words_per_player(game)
    cells = game.m * game.n
    windows = game._windows if q == 1 else ()
    most = max((len(w) for w in windows), default=0)
    values = [game.m, game.n, game.k, cells, game.stones_per_turn, game._first_win, q, most]
    values.append(game.num_players)
    for through in windows:
        values += [_signed(w) for w in through] + [_signed(through[0])] * (most - len(through))
    return np.array(values, np.int64)


def _signed(w: int) -> int:
    return w - (1 << 64) if w >= 1 << 63 else w


def encode(game: MNK, state: Any) -> list[int]:
    q = words_per_player(game)
    out = []
    players = game.num_players
    for board in state[:players]:
        out += [_signed((board >> (64 * i)) & _WORD) for i in range(q)]
    return [*out, state[players], state[players + 1]]


def decode(game: MNK, words: Any) -> tuple[int, ...]:
    q = words_per_player(game)
    values = [int(w) for w in words]
    players = game.num_players
    boards = tuple(
        sum((values[b * q + i] & _WORD) << (64 * i) for i in range(q)) for b in range(players)
    )
    return (*boards, values[players * q], values[players * q + 1])


@njit(cache=True)
def _mover(p: np.ndarray, count: int) -> int:
    return count % p[8] if p[4] == 1 else (count + 1) // 2 % p[8]


@njit(cache=True)
def _has(s: np.ndarray, base: int, cell: int) -> bool:
    return (s[base + (cell >> 6)] >> (cell & 63)) & 1 == 1


@njit(cache=True)
def _empty(s: np.ndarray, p: np.ndarray, cell: int) -> bool:
    q = p[6]
    word = cell >> 6
    stones = s[word]
    for player in range(1, p[8]):
        stones |= s[player * q + word]
    return (stones >> (cell & 63)) & 1 == 0


@njit(cache=True)
def _line(p: np.ndarray, s: np.ndarray, base: int, cell: int) -> bool:
    """Whether the stones at ``s[base:]`` (holding ``cell``) have ``k`` in a row through it:
    the core's windows on one-word boards, else counted along the four lines."""
    most = p[7]
    if most:
        board = s[base]
        start = 9 + cell * most
        for i in range(start, start + most):  # noqa: SIM110 (numba: a plain loop)
            if board & p[i] == p[i]:
                return True
        return False
    m, n, k = p[0], p[1], p[2]
    r0, c0 = cell // n, cell % n
    for d in range(4):
        dr, dc = (0, 1) if d == 0 else ((1, 0) if d == 1 else ((1, 1) if d == 2 else (1, -1)))
        count = 1
        r, c = r0 + dr, c0 + dc
        while count < k and 0 <= r < m and 0 <= c < n and _has(s, base, r * n + c):
            count += 1
            r += dr
            c += dc
        r, c = r0 - dr, c0 - dc
        while count < k and 0 <= r < m and 0 <= c < n and _has(s, base, r * n + c):
            count += 1
            r -= dr
            c -= dc
        if count >= k:
            return True
    return False


@njit(cache=True)
def legal(p: np.ndarray, s: np.ndarray, out: np.ndarray) -> int:
    n = 0
    for cell in range(p[3]):
        if _empty(s, p, cell):
            out[n] = cell
            n += 1
    return n


@njit(cache=True)
def _place(p: np.ndarray, t: np.ndarray, cell: int) -> int:
    """Place the mover's stone on ``cell`` of ``t`` in place; the new status."""
    q = p[6]
    at = p[8] * q  # the count's word; the status follows
    count = t[at]
    player = _mover(p, count)
    base = player * q
    t[base + (cell >> 6)] |= np.int64(1) << (cell & 63)
    count += 1
    t[at] = count
    if count >= p[5] and _line(p, t, base, cell):
        status = player + 1
    elif count == p[3]:
        status = p[8] + 1
    else:
        status = 0
    t[at + 1] = status
    return status


@njit(cache=True)
def play(p: np.ndarray, s: np.ndarray, action: int, t: np.ndarray) -> int:
    t[:] = s
    status = _place(p, t, action)
    return status_result(status, p[8], _mover(p, t[p[8] * p[6]]))


@njit(cache=True)
def to_play(p: np.ndarray, s: np.ndarray) -> int:
    return _mover(p, s[p[8] * p[6]])


@njit(cache=True)
def _wins_at(p: np.ndarray, t: np.ndarray, base: int, cell: int) -> bool:
    """Whether a stone of the player at ``t[base:]`` on the empty ``cell`` makes a line."""
    word = base + (cell >> 6)
    bit = np.int64(1) << (cell & 63)
    t[word] |= bit
    won = _line(p, t, base, cell)
    t[word] ^= bit
    return won


@njit(cache=True)
def playout(
    p: np.ndarray, s: np.ndarray, buf: np.ndarray, decisive: bool, rng: np.ndarray
) -> float:
    """Play from ``s`` (not terminal) to the end: +1, 0 or -1 for the player to move at ``s``
    (more than two players: the outcome code). Decisive playouts for two players only."""
    q = p[6]
    at = p[8] * q
    words = at + 2
    t = buf[:words]
    t[:] = s
    empty = buf[words:]
    count = 0
    for cell in range(p[3]):
        if _empty(s, p, cell):
            empty[count] = cell
            count += 1
    start = _mover(p, s[at])
    decisive = decisive and p[8] == 2
    while True:
        player = _mover(p, t[at])
        i = -1
        if decisive and t[at] + 2 >= p[5]:
            for j in range(count):
                if _wins_at(p, t, player * q, empty[j]):
                    return 1.0 if player == start else -1.0
            threats = 0
            for j in range(count):
                if _wins_at(p, t, (1 - player) * q, empty[j]):
                    threats += 1
                    i = j
            if threats > 1 and p[4] == 1:
                return -1.0 if player == start else 1.0
        if i < 0:
            i = int(random01(rng) * count)
        cell = empty[i]
        count -= 1
        empty[i] = empty[count]
        status = _place(p, t, cell)
        if status:
            return float(status_result(status, p[8], start))


@njit(cache=True)
def reachable(p: np.ndarray, root: np.ndarray, s: np.ndarray) -> bool:
    at = p[8] * p[6]
    if root[at + 1] != 0:
        return same_words(s, root, at + 2)
    return s[at] >= root[at] and covers(s, root, at)
