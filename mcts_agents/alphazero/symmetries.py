"""Symmetries of the board games' rules, to multiply training data (data augmentation).

A ``Symmetry`` maps a position to an equivalent one: a permutation of the board's cells in the
observation planes and the matching permutation of the actions. If a position's observation,
legal mask, policy target and value are ``(o, m, p, v)``, the symmetric position's are
``(sym.observations(o), sym.actions_of(m), sym.actions_of(p), v)``.

``symmetries(game)`` lists a game's symmetries, identity first; the identity alone for a game
with none registered. Registered, by the game's exact type (a subclass may observe differently):

- ``ConnectFour``: the left-right mirror (gravity rules out the others): the planes flipped on
  the width axis, column ``a`` becomes ``width - 1 - a``.
- ``MNK``: the eight symmetries of the square (rotations and reflections) when ``m == n``, the
  four of the rectangle otherwise (identity, both mirrors, the half turn); actions are cells.
- ``Othello``: the eight symmetries of the square over the cells; the pass action stays last.
  The rules are symmetric under all eight; the starting position under four of them (identity,
  half turn, both diagonal reflections); the other four swap its colours.
- ``Go``: the eight symmetries of the square, as Othello's (cells, then the pass kept last);
  the rules, komi and the empty start are symmetric under all eight.

Observations are channels-last, ``[..., rows, columns, channels]`` (the cores'
``observation_shape``), and cell actions are ``row * columns + column``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from mcts_agents.envs.games.connect_four import ConnectFour
from mcts_agents.envs.games.go import Go
from mcts_agents.envs.games.mnk import MNK
from mcts_agents.envs.games.othello import Othello
from mcts_agents.errors import InvalidOptionError

__all__ = [
    "SYMMETRY_BUILDERS",
    "Symmetry",
    "identity",
    "register_symmetries",
    "symmetries",
]

#: The maps of a rows x columns grid of cells, as array operations on the grid. The first four
#: keep a rectangle a rectangle of the same shape; the last four need a square.
GRID_MAPS: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "identity": lambda g: g,
    "flip_columns": lambda g: g[:, ::-1],  # left-right mirror
    "flip_rows": lambda g: g[::-1, :],  # top-bottom mirror
    "rotate_180": lambda g: g[::-1, ::-1],
    "rotate_90": lambda g: np.rot90(g, 1),  # counterclockwise
    "rotate_270": lambda g: np.rot90(g, 3),
    "transpose": lambda g: g.T,  # reflection in the main diagonal
    "anti_transpose": lambda g: g[::-1, ::-1].T,  # reflection in the other diagonal
}
RECTANGLE = ("identity", "flip_columns", "flip_rows", "rotate_180")
SQUARE = tuple(GRID_MAPS)


class Symmetry:
    """One symmetry of a game: a permutation of the board's cells and of the actions.

    Attributes:
        name: what it does (``"identity"``, ``"flip_columns"``, ``"rotate_90"``, ...).
        cells: for each cell of the transformed board (row-major), the cell of the original it
            shows; ``None`` for the identity (any observation shape).
        board: ``(rows, columns)`` of the cells (``None`` with ``cells``).
        actions: ``actions[a]`` is the action in the transformed position that does what ``a``
            does in the original, a permutation of ``range(num_actions)``.
    """

    __slots__ = ("_inverse", "actions", "board", "cells", "name")

    def __init__(
        self,
        name: str,
        actions: np.ndarray,
        cells: np.ndarray | None = None,
        board: tuple[int, int] | None = None,
    ) -> None:
        actions = np.asarray(actions, dtype=np.int64)
        if sorted(actions.tolist()) != list(range(len(actions))):
            raise InvalidOptionError(
                f"symmetry {name!r}: actions must be a permutation of range({len(actions)}), "
                f"got {actions.tolist()}"
            )
        if (cells is None) != (board is None):
            raise InvalidOptionError(f"symmetry {name!r}: give both cells and board, or neither")
        if cells is not None and board is not None:
            cells = np.asarray(cells, dtype=np.int64)
            if sorted(cells.tolist()) != list(range(board[0] * board[1])):
                raise InvalidOptionError(
                    f"symmetry {name!r}: cells must be a permutation of the {board} board's "
                    f"{board[0] * board[1]} cells, got {cells.tolist()}"
                )
        self.name = name
        self.actions = actions
        self.cells = cells
        self.board = board
        self._inverse = np.argsort(actions)

    def observations(self, observations: np.ndarray) -> np.ndarray:
        """The transformed observation(s): an array ``[..., rows, columns, channels]`` (any
        leading batch axes), a new array (the identity returns its input)."""
        if self.cells is None or self.board is None:
            return observations
        rows, columns = self.board
        shape = observations.shape
        if len(shape) < 3 or shape[-3:-1] != (rows, columns):
            raise InvalidOptionError(
                f"symmetry {self.name!r} maps observations [..., {rows}, {columns}, channels]; "
                f"got shape {shape}"
            )
        flat = observations.reshape(*shape[:-3], rows * columns, shape[-1])
        return flat[..., self.cells, :].reshape(shape)

    def actions_of(self, values: np.ndarray) -> np.ndarray:
        """Per-action values (a policy, a legal mask: ``[..., num_actions]``) moved to the
        transformed position's actions: ``out[..., actions[a]] = values[..., a]``."""
        if values.shape[-1:] != self.actions.shape:
            raise InvalidOptionError(
                f"symmetry {self.name!r} maps arrays [..., {len(self.actions)}] (one entry per "
                f"action); got shape {values.shape}"
            )
        return values[..., self._inverse]

    def __repr__(self) -> str:
        return f"Symmetry({self.name!r})"


def identity(num_actions: int) -> Symmetry:
    """The symmetry that changes nothing, for a game of ``num_actions`` actions."""
    return Symmetry("identity", np.arange(num_actions))


def grid_symmetry(name: str, rows: int, columns: int, extra: int = 0) -> Symmetry:
    """A map of ``GRID_MAPS`` over a board whose actions are its cells (row-major), followed
    by ``extra`` actions that every map keeps in place (Othello's pass)."""
    grid = np.arange(rows * columns).reshape(rows, columns)
    mapped = GRID_MAPS[name](grid)
    if mapped.shape != grid.shape:
        raise InvalidOptionError(f"{name} needs a square board, got {rows}x{columns}")
    cells = mapped.ravel()  # transformed cell i shows original cell cells[i]
    actions = np.empty(rows * columns + extra, dtype=np.int64)
    actions[cells] = np.arange(rows * columns)  # original cell cells[i] becomes cell i
    actions[rows * columns :] = np.arange(rows * columns, rows * columns + extra)
    return Symmetry(name, actions, cells, (rows, columns))


def _connect_four(game: Any) -> list[Symmetry]:
    rows, columns = game.height, game.width
    grid = np.arange(rows * columns).reshape(rows, columns)
    mirror = Symmetry(
        "flip_columns", np.arange(columns)[::-1], grid[:, ::-1].ravel(), (rows, columns)
    )
    return [identity(columns), mirror]


def _mnk(game: Any) -> list[Symmetry]:
    names = SQUARE if game.m == game.n else RECTANGLE
    return [grid_symmetry(name, game.m, game.n) for name in names]


def _othello(game: Any) -> list[Symmetry]:
    return [grid_symmetry(name, game.size, game.size, extra=1) for name in SQUARE]


#: Game type (exact) -> the function that lists its symmetries, identity first.
SYMMETRY_BUILDERS: dict[type, Callable[[Any], list[Symmetry]]] = {
    ConnectFour: _connect_four,
    MNK: _mnk,
    Othello: _othello,
    Go: _othello,  # the same square of cells with a pass after them
}


def register_symmetries(game_type: type, builder: Callable[[Any], Sequence[Symmetry]]) -> None:
    """Register (or replace) the symmetries of ``game_type``: ``builder(game)`` lists them,
    identity first (``identity(game.num_actions)``)."""
    if not isinstance(game_type, type) or not callable(builder):
        raise InvalidOptionError(
            f"register_symmetries needs a game type and a callable, got {game_type!r}, {builder!r}"
        )
    SYMMETRY_BUILDERS[game_type] = lambda game: list(builder(game))


def symmetries(game: Any) -> list[Symmetry]:
    """The symmetries of ``game``'s rules, identity first (only it for unregistered games)."""
    builder = SYMMETRY_BUILDERS.get(type(game))
    if builder is None:
        return [identity(game.num_actions)]
    return builder(game)
