"""PettingZoo's own classic board envs, searched without cloning the env.

``connect_four_v3`` and ``tictactoe_v3`` have exactly our rules, so their position is read into
our rules cores (``ConnectFour(7, 6, 4)``, ``MNK(3, 3, 3)``) and the search (for Connect Four
the compiled kernel too) runs there. Their action ids are ours:

- ``connect_four_v3``: ``board[r * 7 + c]`` (row ``r`` from the top, 1 for ``player_0``, 2 for
  ``player_1``) and action ``c`` drops into column ``c``, the lowest empty cell, as in ours; the
  cell is our bit ``c * 7 + (5 - r)``.
- ``tictactoe_v3``: ``board.squares[i]`` is the cell of action ``i``; its eight winning lines are
  exactly ours for action ``row * 3 + col`` (a transposed reading would give the same set), so
  cell ``i`` is our bit ``i`` and the games are the same game, action for action.

``chess_v6`` has rules of its own: ``pettingzoo_chess`` searches copies of its python-chess
``Board``; ``go_v5``'s position is read into our Go core by ``pettingzoo_go``.

Only the exact PettingZoo classes are taken, wrapped only by PettingZoo's standard wrappers
(which do not change a game of legal moves); a subclass or another wrapper, or a position these
rules could not reach or would have ended (a board set by hand), goes down the generic, cloning
path, which steps the env's own code.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Sequence
from typing import Any

from mcts_agents.adapters.aec import bookkeeping, check_live, wrapper_chain
from mcts_agents.envs.games.connect_four import ConnectFour, won4
from mcts_agents.envs.games.mnk import MNK
from mcts_agents.search.game import Game, State

__all__ = [
    "CLASSIC_ENVS",
    "classic_env_name",
    "classic_game",
    "connect_four_core",
    "connect_four_state",
    "tictactoe_core",
    "tictactoe_state",
]

#: PettingZoo env name -> the module defining its ``raw_env`` class.
CLASSIC_ENVS = {
    "connect_four_v3": "pettingzoo.classic.connect_four.connect_four",
    "tictactoe_v3": "pettingzoo.classic.tictactoe.tictactoe",
    "chess_v6": "pettingzoo.classic.chess.chess",
    "go_v5": "pettingzoo.classic.go.go",
}

#: PettingZoo's wrappers that leave a game of legal moves as it is (exact classes).
_PLAIN_WRAPPERS = {
    "pettingzoo.utils.wrappers.base.BaseWrapper",
    "pettingzoo.utils.wrappers.order_enforcing.OrderEnforcingWrapper",
    "pettingzoo.utils.wrappers.assert_out_of_bounds.AssertOutOfBoundsWrapper",
    "pettingzoo.utils.wrappers.terminate_illegal.TerminateIllegalWrapper",
    "pettingzoo.utils.wrappers.clip_out_of_bounds.ClipOutOfBoundsWrapper",
    "pettingzoo.utils.wrappers.capture_stdout.CaptureStdoutWrapper",
}


def classic_env_name(env: Any) -> str | None:
    """The name of the PettingZoo classic env ``env`` is, if it takes the fast path here.

    ``None`` unless ``env.unwrapped`` is exactly one of ``CLASSIC_ENVS``' ``raw_env`` classes
    and every wrapper around it is a plain PettingZoo wrapper. Nothing is imported: an env of
    such a class implies its module is loaded.
    """
    raw = env.unwrapped
    found = None
    for name, module_name in CLASSIC_ENVS.items():
        module = sys.modules.get(module_name)
        if module is not None and type(raw) is getattr(module, "raw_env", None):
            found = name
    if found is None:
        return None
    for obj in wrapper_chain(env)[:-1]:
        cls = type(obj)
        if f"{cls.__module__}.{cls.__qualname__}" not in _PLAIN_WRAPPERS:
            return None
    return found


def classic_game(env: Any) -> tuple[Game, State] | None:
    """The game and root state of a live PettingZoo classic board env, or ``None`` when it
    does not take this path (see ``classic_env_name``) and goes down the generic one.

    Raises:
        GameOverError: the game in ``env`` is over (the env says so).
        CloneError: ``go_v5``'s board size was overwritten by another go env (see
            ``pettingzoo_go``).
    """
    name = classic_env_name(env)
    if name is None:
        return None
    agents, selected, terminations, truncations = bookkeeping(env)
    check_live(env, agents, selected, terminations, truncations)
    raw = env.unwrapped
    if list(agents) != list(raw.possible_agents):
        return None  # an agent left before the end: not a position of these rules
    player = raw.possible_agents.index(selected)
    if name == "chess_v6":
        from mcts_agents.adapters.pettingzoo_chess import chess_game

        return chess_game(env, raw, player)
    if name == "go_v5":
        from mcts_agents.adapters.pettingzoo_go import go_game

        return go_game(env, raw, player)
    if name == "connect_four_v3":
        return _live(connect_four_core(), connect_four_state(raw.board), player)
    return _live(tictactoe_core(), tictactoe_state(raw.board.squares), player)


def _live(game: Game, state: State | None, player: int) -> tuple[Game, State] | None:
    """``(game, state)`` if ``state`` is a running position with ``player`` to move, else
    ``None``: a board set by hand, which the env plays on by its own ``step``."""
    if state is None or game.to_play(state) != player or game.is_terminal(state):
        return None
    return game, state


# --------------------------------------------------------------------------- Connect Four
@functools.cache
def connect_four_core() -> ConnectFour:
    """Our Connect Four rules with ``connect_four_v3``'s parameters (7 wide, 6 high, k = 4)."""
    return ConnectFour(7, 6, 4)


def connect_four_state(board: Sequence[int]) -> tuple[int, int, int, int] | None:
    """Our ``ConnectFour`` state of ``connect_four_v3``'s ``board`` (42 cells, row 0 on top).

    ``None`` if no game of the rules reaches it: a cell other than 0, 1, 2, a stone with an
    empty cell below it, or stone counts that do not alternate from ``player_0``.
    """
    if len(board) != 42:
        return None
    stones = [0, 0, 0]
    for i, value in enumerate(board):
        if value not in (0, 1, 2):
            return None
        row, column = divmod(i, 7)
        stones[value] |= 1 << (column * 7 + 5 - row)
    _, b0, b1 = stones
    occupied = b0 | b1
    for column in range(7):
        cells = (occupied >> (column * 7)) & 0x3F
        if cells & (cells + 1):  # stones must fill a column from the bottom up
            return None
    if not 0 <= b0.bit_count() - b1.bit_count() <= 1:
        return None
    if won4(b1 if occupied.bit_count() & 1 else b0, 7):
        return None  # the game ends at the first four: only the last mover can have one
    return connect_four_core().state_from_stones(b0, b1)


# --------------------------------------------------------------------------- tic-tac-toe
@functools.cache
def tictactoe_core() -> MNK:
    """Our m,n,k rules with ``tictactoe_v3``'s parameters: (3, 3, 3)."""
    return MNK(3, 3, 3, name="tic_tac_toe")


def tictactoe_state(squares: Sequence[int]) -> tuple[int, ...] | None:
    """Our ``MNK(3, 3, 3)`` state of ``tictactoe_v3``'s ``board.squares`` (cell ``i`` is action
    ``i``; 1 for ``player_1``, 2 for ``player_2``), or ``None`` if no game reaches it."""
    if len(squares) != 9 or any(value not in (0, 1, 2) for value in squares):
        return None
    boards = [0, 0]
    for i, value in enumerate(squares):
        if value:
            boards[value - 1] |= 1 << i
    b0, b1 = boards
    count = b0.bit_count() + b1.bit_count()
    if not 0 <= b0.bit_count() - b1.bit_count() <= 1:
        return None
    game = tictactoe_core()
    wins = [any(game.wins_with(b, a) for a in range(9) if b >> a & 1) for b in boards]
    last = (count - 1) % 2  # the player who placed the last stone
    if wins[1 - last]:
        return None  # the game ends at the first line: only the last mover can have one
    status = last + 1 if wins[last] else (3 if count == 9 else 0)
    return (b0, b1, count, status)
