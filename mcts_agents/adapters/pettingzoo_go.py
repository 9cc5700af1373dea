"""PettingZoo's ``go_v5`` read into our Go rules core (the fast path), or searched on copies
of its ``go_base.Position`` (``position_game``: the reference the fast path is checked and
measured against).

The fast path: ``go_game`` reads the live env's position into ``Go(size, komi,
superko=False)`` (``envs/games/go.py``), whose rules are ``go_v5``'s (tested move by move
against it): the stones, the side to move, the simple-ko point, whether the last move was a
pass, and the boards of ``board_deltas`` (the observation's history). The search then runs on
bitboards, never touching ``go_base``.

The env's rules, as its ``step`` applies them, are the position object's own:
``Position.play_move`` (a copy; action ``N * N`` is a pass, action ``i`` the point
``divmod(i, N)``), ``Position.all_legal_moves`` (empty points that are not suicide and not the
simple-ko point, and the pass; no superko), the end after two passes in a row
(``is_game_over``), and the returns of the env's ``_encode_rewards``: ``(1, -1)`` when black's
area score minus komi is positive (``result() == 1``), else ``(-1, 1)``: a tie goes to white.

The key is what decides the rest of the game: the stones, the side to move, the ko point and
whether the last move was a pass (a second one ends the game), with the end flag. The same
position can come back (no superko), so ``acyclic`` is False.

PettingZoo's go keeps its board size in module globals of ``go_base`` (``N``, ``NEIGHBORS``,
...), which every new ``go_v5`` env overwrites; a search of an env whose size is no longer the
module's would be wrong (the env is then broken too), so it is refused.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Hashable
from typing import Any

import numpy as np
from pettingzoo.classic.go import go_base

from mcts_agents.envs.games.go import HISTORY, Go
from mcts_agents.envs.games.go import State as CoreState
from mcts_agents.errors import CloneError, IllegalActionError

__all__ = ["GoGame", "GoState", "core_state", "go_game", "position_game", "random_point"]

_BLACK_WINS, _WHITE_WINS = (1.0, -1.0), (-1.0, 1.0)


class GoState:
    """A go position (``position``: a ``go_base.Position``, never changed once in a state)."""

    __slots__ = ("_key", "_legal", "position", "terminal")

    def __init__(self, position: Any) -> None:
        self.position = position
        self.terminal = bool(position.is_game_over())
        self._legal: list[int] | None = [] if self.terminal else None
        self._key: Hashable | None = None


def _last_was_pass(position: Any) -> bool:
    return bool(position.recent) and position.recent[-1].move is None


def random_point(position: Any, rng: random.Random) -> tuple[int, int] | None:
    """A uniformly random legal move of ``position`` (a point, or ``None`` for the pass).

    The first legal one in a random order of the empty points and the pass (a lazy
    Fisher-Yates shuffle): every legal move is equally likely, as in the env's mask, for a
    legality test or two instead of a list of every legal move.
    """
    size = position.board.shape[0]
    candidates: list[int] = np.flatnonzero(position.board.ravel() == go_base.EMPTY).tolist()
    pass_action = size * size
    candidates.append(pass_action)
    n = len(candidates)
    rand = rng.random
    for i in range(n):  # ends: the pass is always legal
        j = i + int(rand() * (n - i))
        action = candidates[j]
        candidates[j] = candidates[i]
        if action == pass_action:
            return None
        point = divmod(action, size)
        if position.is_move_legal(point):
            return point
    raise AssertionError("unreachable: the pass is always legal")


class GoGame:
    """``Game`` over ``GoState``: PettingZoo's ``go_v5`` rules on a ``size`` board with
    ``komi`` (see the module docstring)."""

    num_players = 2
    acyclic = False

    def __init__(self, size: int, komi: float) -> None:
        self.size = size
        self.komi = komi
        self.pass_action = size * size
        self.spec = ("pettingzoo", "go_v5", size, komi)

    def __setstate__(self, fields: dict[str, Any]) -> None:
        """Unpickled (in a worker process of a root-parallel search): give ``go_base`` this
        board size if it has another, as a new ``go_v5`` env of this size would."""
        self.__dict__.update(fields)
        if self.size != go_base.N:
            from pettingzoo.classic.go.go import raw_env

            raw_env(board_size=self.size, komi=self.komi)

    def _check_size(self) -> None:
        if self.size != go_base.N:
            raise CloneError(
                f"go_v5's rules module now plays {go_base.N}x{go_base.N} boards, but this game "
                f"is {self.size}x{self.size}: PettingZoo's go keeps the board size in module "
                "globals, which the last go_v5 env created overwrote (that env breaks the older "
                "ones too); search one board size per process"
            )

    def to_play(self, state: GoState) -> int:
        return 0 if state.position.to_play == go_base.BLACK else 1

    def legal_actions(self, state: GoState) -> list[int]:
        legal = state._legal
        if legal is None:
            self._check_size()
            legal = state._legal = np.flatnonzero(state.position.all_legal_moves()).tolist()
        return list(legal)

    def _point(self, action: int) -> tuple[int, int] | None:
        return None if action == self.pass_action else divmod(action, self.size)

    def next_state(self, state: GoState, action: int) -> GoState:
        legal = state._legal if state._legal is not None else self.legal_actions(state)
        if action not in legal:
            raise IllegalActionError(
                f"action {action!r} is not legal in this go_v5 position; legal: {legal}"
            )
        return GoState(state.position.play_move(self._point(int(action))))

    def is_terminal(self, state: GoState) -> bool:
        return state.terminal

    def returns(self, state: GoState) -> tuple[float, ...]:
        if not state.terminal:
            return (0.0, 0.0)
        return _BLACK_WINS if state.position.result() == 1 else _WHITE_WINS

    def key(self, state: GoState) -> Hashable:
        key = state._key
        if key is None:
            position = state.position
            key = state._key = (
                position.board.tobytes(),
                int(position.to_play),
                position.ko,
                _last_was_pass(position),
                state.terminal,
            )
        return key

    def rollout(self, state: GoState, rng: random.Random) -> tuple[float, ...]:
        """Uniformly random legal moves (``random_point``) on one private copy until two
        passes in a row."""
        if state.terminal:
            return self.returns(state)
        self._check_size()
        position = copy.deepcopy(state.position)
        passes = 1 if _last_was_pass(position) else 0
        while True:
            point = random_point(position, rng)
            position.play_move(point, mutate=True)
            passes = passes + 1 if point is None else 0
            if passes >= 2:
                return _BLACK_WINS if position.result() == 1 else _WHITE_WINS

    def __repr__(self) -> str:
        return f"GoGame(pettingzoo go_v5, size={self.size}, komi={self.komi})"


def position_game(env: Any, raw: Any, player: int) -> tuple[GoGame, GoState] | None:
    """``GoGame`` and a copy of the live ``go_v5`` env's position (the reference path), or
    ``None`` when the position's side to move is not ``player`` or the position is over.

    Raises:
        CloneError: ``go_base``'s board size is no longer the env's (module docstring).
    """
    game = GoGame(int(raw._N), float(raw._komi))
    game._check_size()
    position = raw._go
    if type(position) is not go_base.Position or position.board.shape != (game.size, game.size):
        return None
    if (position.to_play == go_base.BLACK) != (player == 0) or position.komi != raw._komi:
        return None
    state = GoState(copy.deepcopy(position))
    if state.terminal:
        return None  # two passes set by hand: the env plays on by its own step
    return game, state


def core_state(game: Go, position: Any) -> CoreState:
    """Our core's state of a ``go_base.Position`` of ``game``'s size (simple ko): the stones,
    the side to move, the ko point, a pass pending, the Zobrist hash, and up to seven earlier
    boards rebuilt from ``board_deltas`` (``board - delta`` is the board before each move)."""
    size = game.size
    board = position.board
    black = game.stones(np.flatnonzero(board.ravel() == go_base.BLACK).tolist())
    white = game.stones(np.flatnonzero(board.ravel() == go_base.WHITE).tolist())
    ko = -1 if position.ko is None else position.ko[0] * size + position.ko[1]
    passes = 0
    recent = position.recent
    if recent and recent[-1].move is None:
        passes = 2 if len(recent) >= 2 and recent[-2].move is None else 1
    boards = []
    earlier = board
    for delta in position.board_deltas[:HISTORY]:
        earlier = earlier - delta
        flat = earlier.ravel()
        boards.append(
            (
                game.stones(np.flatnonzero(flat == go_base.BLACK).tolist()),
                game.stones(np.flatnonzero(flat == go_base.WHITE).tolist()),
            )
        )
    plain = game.state_from_stones(black, white, 0 if position.to_play == go_base.BLACK else 1)
    return (*plain[:3], ko, passes, plain[5], plain[6], tuple(boards))


def go_game(env: Any, raw: Any, player: int) -> tuple[Go, CoreState] | None:
    """Our Go core (``go_v5``'s size and komi, simple ko) and the live ``go_v5`` env's
    position read into it (``core_state``), or ``None`` (the generic path takes it then) when
    the position's side to move is not ``player``, the position is over, or it is no position
    of these rules (a board set by hand: a group without a liberty).

    Raises:
        CloneError: ``go_base``'s board size is no longer the env's (module docstring).
    """
    reference = GoGame(int(raw._N), float(raw._komi))
    reference._check_size()
    position = raw._go
    size = reference.size
    if type(position) is not go_base.Position or position.board.shape != (size, size):
        return None
    if (position.to_play == go_base.BLACK) != (player == 0) or position.komi != raw._komi:
        return None
    if not 5 <= size <= 19 or position.is_game_over():
        return None
    game = _core(size, reference.komi)
    try:
        state = core_state(game, position)
    except ValueError:  # InvalidStateError: not a position of the rules
        return None
    return game, state


_CORES: dict[tuple[int, float], Go] = {}


def _core(size: int, komi: float) -> Go:
    """One shared core per size and komi (its tables are built once)."""
    game = _CORES.get((size, komi))
    if game is None:
        game = _CORES[(size, komi)] = Go(size, komi, superko=False)
    return game
