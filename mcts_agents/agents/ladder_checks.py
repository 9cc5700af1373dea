"""What a ladder's data must hold (``agents.ladder``): a ladder file's fields, each level's Elo
and interval, the rise in Elo from level to level, and specs that play unattended in one
process. Checked alike for a ladder file, a ``Ladder``, a ``Level`` and ``rate(levels=...)``."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from mcts_agents.agents.spec_text import parse_value, split_spec
from mcts_agents.checks import is_int
from mcts_agents.errors import InvalidOptionError, SpecError

__all__ = [
    "FIELDS",
    "LEVEL_FIELDS",
    "MAX_ELO",
    "MAX_LEVEL_WORKERS",
    "OPTIONAL",
    "check_level_spec",
    "check_levels",
    "data_problem",
    "level_problem",
]

#: A ladder file's fields, those it may lack (written before they existed), a level's fields.
FIELDS = ("game", "levels", "date", "version", "command", "games", "notes", "hands")
OPTIONAL = {"hands": 1}
LEVEL_FIELDS = ("name", "spec", "elo", "low", "high")
#: The largest Elo (and interval bound), either side of 0, that a level may have.
MAX_ELO = 10_000.0
#: The most ``workers`` (root-parallel processes) a level's agent may use: one, so that a
#: ladder costs one process a game (``rate --workers`` plays games in parallel).
MAX_LEVEL_WORKERS = 1


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def level_problem(level: Any) -> str | None:
    """What is wrong with one ``Level``'s fields (``None``: nothing)."""
    if not isinstance(level.name, str) or not level.name.strip():
        return f"name should be a non-empty string, got {level.name!r}"
    if not isinstance(level.spec, str) or not level.spec.strip():
        return f"spec should be a non-empty string, got {level.spec!r}"
    values = (level.elo, level.low, level.high)
    if not all(_is_number(v) and abs(v) <= MAX_ELO for v in values):
        return f"elo, low and high should be finite numbers within +/-{MAX_ELO:g}, got {values}"
    if not level.low <= level.elo <= level.high:
        return f"low <= elo <= high does not hold for (elo, low, high) = {values}"
    return None


def check_level_spec(spec: str, where: str = "level") -> None:
    """``InvalidOptionError`` naming ``where`` unless ``spec`` is an agent spec that plays
    unattended in one process: it reads as ``kind[:key=value,...]`` (``spec_text``; the kind
    and the options' values are checked where the agent is made), is not ``human`` (which
    waits for typed moves), and asks for at most ``MAX_LEVEL_WORKERS`` workers."""
    if spec.strip().partition(":")[0].strip() == "ladder":
        return  # a calibrated level (ladder:GAME:LEVEL), checked with its own ladder
    try:
        kind, raw = split_spec(spec, "agent")
    except SpecError as error:
        raise InvalidOptionError(f"{where}'s spec: {error}") from None
    if kind == "human":
        raise InvalidOptionError(
            f"{where}'s spec {spec!r} is a human, who waits for typed moves; a level must "
            "play unattended"
        )
    workers = parse_value(raw["workers"]) if "workers" in raw else 1
    if not (is_int(workers) and 1 <= workers <= MAX_LEVEL_WORKERS):
        raise InvalidOptionError(
            f"{where}'s spec {spec!r} asks for workers={workers!r}; a level plays in at most "
            f"{MAX_LEVEL_WORKERS} process (rate --workers plays games in parallel)"
        )


def check_levels(levels: Sequence[Any], where: str = "levels") -> None:
    """``InvalidOptionError`` naming ``where`` and the level unless ``levels`` (``Level``
    objects, weakest first) rise strictly in Elo and every spec passes ``check_level_spec``."""
    for i, level in enumerate(levels):
        check_level_spec(level.spec, f"{where}: {level.name}")
        if i and not level.elo > levels[i - 1].elo:
            below = levels[i - 1]
            raise InvalidOptionError(
                f"{where}: {level.name}'s Elo {level.elo:g} is not above {below.name}'s "
                f"{below.elo:g}; a ladder's levels rise in Elo, weakest first"
            )


def data_problem(data: Any) -> str | None:
    """What is wrong with a ladder file's JSON (its fields and their types; ``None``: nothing)."""
    if not isinstance(data, dict):
        return f"expected a JSON object, got {type(data).__name__}"
    missing = [k for k in FIELDS if k not in data and k not in OPTIONAL]
    if missing:
        return f"it lacks {missing}"
    unknown = sorted(set(data) - set(FIELDS))
    if unknown:
        return f"unknown fields {unknown}"
    for key in ("game", "date", "version", "command", "notes"):
        if not isinstance(data[key], str):
            return f"{key!r} should be a string, got {data[key]!r}"
    for key in ("games", *OPTIONAL):
        value = data.get(key, OPTIONAL.get(key))
        if not isinstance(value, int) or isinstance(value, bool):
            return f"{key!r} should be an int, got {value!r}"
    levels = data["levels"]
    if not isinstance(levels, list) or not levels:
        return f"'levels' should be a non-empty list, got {levels!r}"
    for i, level in enumerate(levels):
        if not isinstance(level, dict) or sorted(level) != sorted(LEVEL_FIELDS):
            return f"level {i} should be an object with {list(LEVEL_FIELDS)}, got {level!r}"
    return None
