"""Small helpers for the rules cores' ``check_state``: each raises ``InvalidStateError`` naming
the game, the field and what was expected, and each accepts any junk value (no ``TypeError``
or ``IndexError`` escapes), so ``check_state`` can be called on anything."""

from __future__ import annotations

from typing import Any, NoReturn

from mcts_agents.envs.core.errors import InvalidStateError


def invalid(game: str, message: str) -> NoReturn:
    """Raise ``InvalidStateError("<game>: <message>")``."""
    raise InvalidStateError(f"{game}: {message}")


def short(value: Any) -> str:
    """``repr(value)``, cut to 80 characters (junk may be huge)."""
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def state_fields(game: str, state: Any, names: tuple[str, ...]) -> tuple[Any, ...]:
    """``state`` itself if it is a tuple of ``len(names)`` fields, else ``InvalidStateError``."""
    if type(state) is not tuple:
        invalid(game, f"a state is a tuple {names}, got {type(state).__name__} {short(state)}")
    if len(state) != len(names):
        invalid(
            game,
            f"a state is a tuple of {len(names)} fields {names}, got {len(state)}: {short(state)}",
        )
    return state


def int_field(game: str, name: str, value: Any, low: int, high: int) -> int:
    """``value`` if it is an int (not a bool) in ``[low, high]``."""
    if type(value) is not int:
        invalid(game, f"{name} must be an int in [{low}, {high}], got {short(value)}")
    if not low <= value <= high:
        invalid(game, f"{name} must be in [{low}, {high}], got {value}")
    return value


def bits_field(game: str, name: str, value: Any, board: int) -> int:
    """``value`` if it is a non-negative int whose set bits all lie in the mask ``board``."""
    if type(value) is not int or value < 0:
        invalid(game, f"{name} must be a non-negative int (a bitboard), got {short(value)}")
    if value & ~board:
        invalid(game, f"{name} has bits off the board: {value & ~board:#x}")
    return value


def ints_field(
    game: str, name: str, value: Any, length: int, low: int, high: int
) -> tuple[int, ...]:
    """``value`` if it is a tuple of ``length`` ints in ``[low, high]``."""
    if type(value) is not tuple or len(value) != length:
        invalid(game, f"{name} must be a tuple of {length} ints, got {short(value)}")
    for i, item in enumerate(value):
        int_field(game, f"{name}[{i}]", item, low, high)
    return value
