"""PettingZoo's ``chess_v6`` searched on copies of its python-chess ``Board``, not of the env.

The env's rules, as its ``step`` applies them after every move, reproduced here exactly:

- legal moves and action ids are PettingZoo's own (``chess_utils.legal_moves``, which mirrors
  the board for black, and ``chess_utils.action_to_move``, which restores queen promotions);
- the game ends when the player to move can claim a draw (``Board.can_claim_draw``: the
  fifty-move rule, or threefold repetition now or after one of its moves), has no legal move
  (the env tests ``not any(action ids)``; id 0, a1 to the south-west, is never legal, so that is
  "no legal move"), or neither side can mate (``is_insufficient_material``);
- the returns are ``result_to_int(board.result(claim_draw=True))`` for ``player_0`` (white) and
  its negation for ``player_1``: +-1 for a checkmate, else a draw.

Threefold repetition looks back over the positions since the last irreversible move
(``Board.is_irreversible``), which python-chess finds by replaying the move stack. A state here
keeps a stackless ``Board`` and the transposition keys of those positions instead, and counts
them as python-chess does; no stack is copied or replayed.

The search's key is the position (``Board._transposition_key()``: pieces, side to move,
castling rights, a legal en passant square) and the end flag. Positions that differ only in
their history (the fifty-move clock, earlier repetitions) share a node, as in chess engines'
transposition tables; each state's own rules stay exact. Positions repeat, so ``acyclic`` is
False and the search scores a position repeated on its path as a draw.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Hashable
from typing import Any

import chess
from pettingzoo.classic.chess import chess_utils

from mcts_agents.errors import IllegalActionError

__all__ = ["ChessGame", "ChessState", "chess_game", "chess_state"]

_WHITE_WINS, _BLACK_WINS, _DRAW = (1.0, -1.0), (-1.0, 1.0), (0.0, 0.0)


class ChessState:
    """A chess position with what its rules need of the past; treated as immutable.

    Attributes:
        board: a ``chess.Board`` without a move stack (never changed once in a state).
        keys: transposition keys of the positions since the last irreversible move, this one
            last (what ``can_claim_threefold_repetition`` counts).
        repeated: some key occurs twice in ``keys`` (else no threefold claim is possible).
        legal: PettingZoo's action ids of the legal moves, ascending (empty at the end).
        terminal: the env would have ended the game here.
        returns: ``(player_0, player_1)`` returns when terminal, else zeros.
    """

    __slots__ = ("board", "key", "keys", "legal", "repeated", "returns", "terminal")

    def __init__(self, board: chess.Board, keys: tuple[Hashable, ...], repeated: bool) -> None:
        self.board = board
        self.keys = keys
        self.repeated = repeated
        legal: list[int] = sorted(chess_utils.legal_moves(board))  # ascending, as the mask
        over = _ends(board, any(legal), keys, repeated)  # ``any``: the env's very test
        self.terminal = over
        self.legal = [] if over else legal
        self.returns = _outcome(board) if over else _DRAW
        self.key: Hashable = (keys[-1], over)

    def __reduce__(self) -> tuple[Any, ...]:
        # rebuilt from the position: that also fills PettingZoo's move <-> id tables, which a
        # worker process that unpickles a state has not filled yet
        return (ChessState, (self.board, self.keys, self.repeated))


def _ends(board: chess.Board, has_moves: bool, keys: tuple[Hashable, ...], repeated: bool) -> bool:
    """The env's end test but for "no legal move": insufficient material or a claimable draw
    (``can_claim_draw``), with the repetitions counted from ``keys``."""
    if not has_moves or board.is_insufficient_material() or board.can_claim_fifty_moves():
        return True
    return repeated and _threefold(board, keys)


def _threefold(board: chess.Board, keys: tuple[Hashable, ...]) -> bool:
    """``Board.can_claim_threefold_repetition`` over the positions ``keys`` (``board``'s own
    last): the position occurs a third time, or a legal move makes one occur a third time."""
    counts = Counter(keys)
    if counts[keys[-1]] >= 3:
        return True
    for move in board.generate_legal_moves():
        board.push(move)
        try:
            if counts[board._transposition_key()] >= 2:
                return True
        finally:
            board.pop()
    return False


def _outcome(board: chess.Board) -> tuple[float, float]:
    """The returns of a finished game: a checkmate wins for the side that gave it, anything
    else the env ends on is a draw (``board.result(claim_draw=True)``)."""
    if board.is_checkmate():
        return _BLACK_WINS if board.turn == chess.WHITE else _WHITE_WINS
    return _DRAW


def _child(board: chess.Board, move: chess.Move) -> tuple[chess.Board, bool]:
    """``board`` after ``move`` (a stackless copy) and whether ``move`` was irreversible."""
    irreversible = board.is_irreversible(move)
    child = board.copy(stack=False)
    child.push(move)
    child.clear_stack()
    return child, irreversible


def chess_state(board: chess.Board) -> ChessState:
    """The state of a live ``board`` (left as it is), its repetition history read from its move
    stack as ``can_claim_threefold_repetition`` reads it."""
    replay = board.copy()
    keys = [replay._transposition_key()]
    while replay.move_stack:
        move = replay.pop()
        if replay.is_irreversible(move):
            break
        keys.append(replay._transposition_key())
    keys.reverse()
    return ChessState(board.copy(stack=False), tuple(keys), len(set(keys)) < len(keys))


class ChessGame:
    """``Game`` over ``ChessState``: PettingZoo's ``chess_v6`` rules (see the module docstring)."""

    num_players = 2
    acyclic = False
    spec = ("pettingzoo", "chess_v6")

    def to_play(self, state: ChessState) -> int:
        return 0 if state.board.turn == chess.WHITE else 1

    def legal_actions(self, state: ChessState) -> list[int]:
        return list(state.legal)

    def next_state(self, state: ChessState, action: int) -> ChessState:
        if action not in state.legal:
            raise IllegalActionError(
                f"action {action!r} is not legal in chess_v6 position {state.board.fen()}; "
                f"legal: {sorted(state.legal)}"
            )
        board = state.board
        player = 0 if board.turn == chess.WHITE else 1
        move = chess_utils.action_to_move(board, int(action), player)
        child, irreversible = _child(board, move)
        key = child._transposition_key()
        if irreversible:
            return ChessState(child, (key,), False)
        return ChessState(child, (*state.keys, key), state.repeated or key in state.keys)

    def is_terminal(self, state: ChessState) -> bool:
        return state.terminal

    def returns(self, state: ChessState) -> tuple[float, ...]:
        return state.returns

    def key(self, state: ChessState) -> Hashable:
        return state.key

    def rollout(self, state: ChessState, rng: random.Random) -> tuple[float, ...]:
        """Uniformly random legal moves on one private board until the env would end the game
        (the same rules as ``next_state``, without action ids or copies)."""
        if state.terminal:
            return state.returns
        board = state.board.copy(stack=False)
        keys = list(state.keys)
        repeated = state.repeated
        moves = list(board.generate_legal_moves())
        rand = rng.random
        while True:
            move = moves[int(rand() * len(moves))]
            if board.is_irreversible(move):
                keys.clear()
                repeated = False
                board.clear_stack()  # nothing before an irreversible move is looked at again
            board.push(move)
            key = board._transposition_key()
            repeated = repeated or key in keys
            keys.append(key)
            moves = list(board.generate_legal_moves())
            if _ends(board, bool(moves), tuple(keys) if repeated else (), repeated):
                return _outcome(board)

    def __repr__(self) -> str:
        return "ChessGame(pettingzoo chess_v6)"


def chess_game(env: Any, raw: Any, player: int) -> tuple[ChessGame, ChessState] | None:
    """The game and root state of a live ``chess_v6`` env (checked live by the caller), or
    ``None`` (the generic path takes it then) when its board is not a standard python-chess
    board whose side to move is ``player``, or is one the env would have ended."""
    board = raw.board
    if type(board) is not chess.Board or board.chess960:
        return None
    if (board.turn == chess.WHITE) != (player == 0):
        return None
    state = chess_state(board)
    if state.terminal:
        return None  # a board set by hand that the env would have ended: its own step decides
    return ChessGame(), state
