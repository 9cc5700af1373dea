"""The m,n,k-game (and Gomoku, tic-tac-toe deluxe) as a PettingZoo AEC environment.

``m`` rows, ``n`` columns, ``k`` or more in a row wins. Action = ``row * n + col`` (0-based,
row 0 at the top). Observation planes: ``(m, n, 2)``, the observing agent's stones first.

Without a preset the board is OpenSpiel's ``mnk`` default, 15 x 15 with k = 5 (so
``pyspiel.load_game("mnk")`` and ``MNKEnv()`` play the same game; note that OpenSpiel's ``m`` is
the number of *columns*). Presets (``PRESETS``):

- ``"gomoku"``: free-style Gomoku, 15 x 15, five or more in a row wins.
- ``"5x5x4"``: 5 x 5, k = 4.
- ``"deluxe"``: tic-tac-toe deluxe, 8 x 8, k = 4, two stones per turn; ``player_0`` places one
  stone on its first turn, then every turn is two stones, one env step each (the same agent
  stays selected for its second stone). The game ends as soon as a line is made.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Any, ClassVar

from mcts_agents.envs.core.aec import BoardGameEnv
from mcts_agents.envs.core.errors import InvalidParameterError
from mcts_agents.envs.core.wrappers import env_fn
from mcts_agents.envs.games.mnk import MNK

__all__ = ["DEFAULTS", "PRESETS", "MNKEnv", "env", "raw_env"]

#: Board without a preset: OpenSpiel's mnk default.
DEFAULTS: MappingProxyType[str, Any] = MappingProxyType(
    {"m": 15, "n": 15, "k": 5, "stones_per_turn": 1, "name": "mnk"}
)

#: Named rule sets: preset -> MNK parameters.
PRESETS: MappingProxyType[str, MappingProxyType[str, Any]] = MappingProxyType(
    {
        "gomoku": MappingProxyType(
            {"m": 15, "n": 15, "k": 5, "stones_per_turn": 1, "name": "gomoku"}
        ),
        "5x5x4": MappingProxyType({"m": 5, "n": 5, "k": 4, "stones_per_turn": 1, "name": "mnk"}),
        "deluxe": MappingProxyType(
            {"m": 8, "n": 8, "k": 4, "stones_per_turn": 2, "name": "tic_tac_toe_deluxe"}
        ),
    }
)


def resolve(
    m: int | None, n: int | None, k: int | None, stones_per_turn: int | None, preset: str | None
) -> dict[str, Any]:
    """The MNK parameters for a preset (or the defaults) overridden by explicit values.

    Raises:
        InvalidParameterError: unknown preset, or an explicit value that contradicts it.
    """
    explicit = {"m": m, "n": n, "k": k, "stones_per_turn": stones_per_turn}
    given = {name: value for name, value in explicit.items() if value is not None}
    if preset is None:
        return {**DEFAULTS, **given}
    if preset not in PRESETS:
        raise InvalidParameterError(
            f"unknown preset {preset!r}; expected None or one of {sorted(PRESETS)}"
        )
    params = dict(PRESETS[preset])
    conflicts = {name: value for name, value in given.items() if value != params[name]}
    if conflicts:
        wanted = ", ".join(f"{name}={params[name]!r}" for name in conflicts)
        got = ", ".join(f"{name}={value!r}" for name, value in conflicts.items())
        raise InvalidParameterError(
            f"preset {preset!r} sets {wanted}; got conflicting {got} (drop them or the preset)"
        )
    return {**params, **given}  # equal values, but MNK still checks their types


class MNKEnv(BoardGameEnv):
    """The m,n,k-game; a ``preset`` or explicit ``m`` (rows), ``n`` (columns) and ``k``.

    Args:
        m: rows (default 15, or the preset's).
        n: columns (default 15, or the preset's).
        k: winning line length (default 5, or the preset's).
        stones_per_turn: 1, or 2 for the Connect6 rule (default 1, or the preset's).
        preset: ``None`` or a key of ``PRESETS``; explicit values must agree with it.
        render_mode: ``None``, ``"ansi"``, ``"rgb_array"`` or ``"human"``.
    """

    metadata: ClassVar[dict[str, Any]] = {
        **BoardGameEnv.metadata,
        "name": "mnk_v0",
    }

    def __init__(
        self,
        m: int | None = None,
        n: int | None = None,
        k: int | None = None,
        stones_per_turn: int | None = None,
        preset: str | None = None,
        render_mode: str | None = None,
    ) -> None:
        game = MNK(**resolve(m, n, k, stones_per_turn, preset))
        super().__init__(game, render_mode=render_mode)


raw_env = MNKEnv
env = env_fn(MNKEnv)
