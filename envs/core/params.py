"""Checking rules-core parameters, with the bounds of what a core can represent.

Boards are bitboards in Python ints and observations are int8 planes, so a side of a million
cells would take the machine's memory before the first move; the bounds below say what the
cores support, and a bad value gets an ``InvalidParameterError`` naming it and the range.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mcts_agents.envs.core.errors import InvalidParameterError

__all__ = ["MAX_BOARD_SIDE", "MAX_COUNT", "check_int"]

#: The longest side of a board (rows or columns) a rules core accepts.
MAX_BOARD_SIDE = 64
#: The largest count (chips in a pile, a winning score, a horizon) a rules core accepts.
MAX_COUNT = 1_000_000


def check_int(name: str, value: Any, low: int, high: int | None = None, extra: str = "") -> int:
    """``value`` as an int in ``[low, high]`` (numpy ints too, never a bool), or an
    ``InvalidParameterError`` naming ``name``, the value and the range (``extra`` appended)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise InvalidParameterError(f"{name} must be an int{extra}, got {value!r}")
    if value < low or (high is not None and value > high):
        allowed = f">= {low}" if high is None else f"in [{low}, {high}]"
        raise InvalidParameterError(f"{name} must be {allowed}{extra}, got {value!r}")
    return int(value)
