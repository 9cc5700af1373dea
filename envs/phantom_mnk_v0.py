"""Phantom m,n,k (phantom tic-tac-toe, phantom 4,4,4) as a PettingZoo AEC environment.

Each player sees only its own stones and the enemy stones it has run into: a try on a cell
holding an unseen enemy stone reveals that stone to the mover, places nothing, and the same
agent tries again (it stays selected). The rules of OpenSpiel's ``phantom_ttt``
(``gameversion=classical``, ``obstype=reveal-nothing``) on an ``m`` x ``n`` board with ``k`` in a
row to win. Action = ``row * n + col`` (OpenSpiel's cell numbers for 3 x 3); the action mask
offers the cells the mover does not know to be occupied.

Observation planes: ``(m, n, 2)``, the observing agent's stones, then the enemy stones it has
discovered; never an unseen stone. ``information_set(agent)`` is the key of everything the agent
has observed. Renderings (``ansi``, ``rgb_array``) are a spectator's: they show the true board.

Presets (``PRESETS``): ``"phantom_ttt"`` (3, 3, 3), the default, and ``"phantom_444"``
(4, 4, 4).
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Any, ClassVar

from mcts_agents.envs.core.aec import BoardGameEnv
from mcts_agents.envs.core.errors import InvalidParameterError
from mcts_agents.envs.core.wrappers import env_fn
from mcts_agents.envs.games.phantom_mnk import PhantomMNK

__all__ = ["PRESETS", "PhantomMNKEnv", "env", "raw_env"]

#: Named boards: preset -> (m, n, k); ``"phantom_ttt"`` is the default.
PRESETS: MappingProxyType[str, tuple[int, int, int]] = MappingProxyType(
    {"phantom_ttt": (3, 3, 3), "phantom_444": (4, 4, 4)}
)


def resolve(
    m: int | None, n: int | None, k: int | None, preset: str | None
) -> tuple[int, int, int]:
    """``(m, n, k)`` of a preset (or phantom tic-tac-toe) overridden by explicit values.

    Raises:
        InvalidParameterError: unknown preset, or an explicit value that contradicts it.
    """
    if preset is not None and preset not in PRESETS:
        raise InvalidParameterError(
            f"unknown preset {preset!r}; expected None or one of {sorted(PRESETS)}"
        )
    base = PRESETS[preset or "phantom_ttt"]
    if preset is not None:
        conflicts = [
            f"{name}={value!r}"
            for name, value, own in zip("mnk", (m, n, k), base, strict=True)
            if value is not None and value != own
        ]
        if conflicts:
            raise InvalidParameterError(
                f"preset {preset!r} sets (m, n, k) = {base}; got conflicting "
                f"{', '.join(conflicts)} (drop them or the preset)"
            )
    return (
        base[0] if m is None else m,
        base[1] if n is None else n,
        base[2] if k is None else k,
    )


class PhantomMNKEnv(BoardGameEnv):
    """Phantom m,n,k-game: a ``preset`` or explicit ``m`` (rows), ``n`` (columns) and ``k``.

    Args:
        m: rows (default 3, or the preset's).
        n: columns (default 3, or the preset's).
        k: winning line length (default 3, or the preset's).
        preset: ``None`` or a key of ``PRESETS``; explicit values must agree with it.
        render_mode: ``None``, ``"ansi"``, ``"rgb_array"`` or ``"human"`` (the true board).
    """

    metadata: ClassVar[dict[str, Any]] = {
        **BoardGameEnv.metadata,
        "name": "phantom_mnk_v0",
    }

    def __init__(
        self,
        m: int | None = None,
        n: int | None = None,
        k: int | None = None,
        preset: str | None = None,
        render_mode: str | None = None,
    ) -> None:
        game = PhantomMNK(*resolve(m, n, k, preset))  # PhantomMNK checks the values
        super().__init__(game, render_mode=render_mode)


raw_env = PhantomMNKEnv
env = env_fn(PhantomMNKEnv)
