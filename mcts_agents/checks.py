"""Argument checks shared by the library: one place for "an int, not a bool", ranges and choices.

Each check returns the value it accepted and raises an exception from ``mcts_agents.errors``
(``InvalidOptionError`` unless the caller names another class with ``error=``) whose message
names the option, what was expected and the value given::

    check_int(0, "iterations", low=1)
    # InvalidOptionError: iterations must be an int >= 1, got 0
    check_number(float("nan"), "c", low=0)
    # InvalidOptionError: c must be a finite number >= 0, got nan

A ``bool`` is never accepted as a number (``True`` is an ``int`` to Python, not to a caller).
The environments have their own checks (``mcts_agents.envs.core.checks``): this module is the
planner's and is not imported below it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from typing import Any, TypeGuard

import numpy as np

from mcts_agents.errors import InvalidOptionError

__all__ = [
    "check_bool",
    "check_callable",
    "check_choice",
    "check_instance",
    "check_int",
    "check_number",
    "check_probability",
    "check_seed",
    "is_int",
    "is_number",
]

ErrorClass = type[Exception]


def is_int(value: Any, *, numpy_ints: bool = False) -> TypeGuard[int]:
    """Whether ``value`` is an ``int`` and not a ``bool`` (with ``numpy_ints``, numpy's too)."""
    kinds: tuple[type, ...] = (int, np.integer) if numpy_ints else (int,)
    return isinstance(value, kinds) and not isinstance(value, (bool, np.bool_))


def is_number(value: Any, *, finite: bool = True) -> TypeGuard[float]:
    """Whether ``value`` is an ``int`` or ``float`` (not a ``bool``), finite unless told not."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    return math.isfinite(value) or not finite


def _show(bound: float) -> str:
    return str(bound) if isinstance(bound, int) else f"{bound:g}"


def _bounds(low: float | None, high: float | None, low_open: bool, high_open: bool) -> str:
    """`` >= 1``, `` > 0``, `` <= 9``, `` in [0, 1]``, `` in [0, 1)`` or nothing."""
    if low is not None and high is not None:
        return (
            f" in {'(' if low_open else '['}{_show(low)}, {_show(high)}{')' if high_open else ']'}"
        )
    if low is not None:
        return f" {'>' if low_open else '>='} {_show(low)}"
    if high is not None:
        return f" {'<' if high_open else '<='} {_show(high)}"
    return ""


def _note(note: str) -> str:
    return f" ({note})" if note else ""


def _in_bounds(
    value: float, low: float | None, high: float | None, low_open: bool, high_open: bool
) -> bool:
    if low is not None and not (value > low if low_open else value >= low):
        return False
    return high is None or bool(value < high if high_open else value <= high)


def check_int(
    value: Any,
    name: str,
    *,
    low: int | None = None,
    high: int | None = None,
    optional: bool = False,
    numpy_ints: bool = False,
    note: str = "",
    error: ErrorClass = InvalidOptionError,
) -> Any:
    """``value`` if it is an int (not a bool) in ``[low, high]`` (``None`` too if ``optional``).

    Raises ``error``: "``name`` must be an int >= ``low`` [or None], got ``value!r``".
    ``numpy_ints`` accepts numpy's integers as well (returned as they are); ``note`` is added in
    brackets after what was expected.
    """
    if optional and value is None:
        return None
    if not is_int(value, numpy_ints=numpy_ints) or not _in_bounds(value, low, high, False, False):
        expected = f"an int{_bounds(low, high, False, False)}{' or None' if optional else ''}"
        raise error(f"{name} must be {expected}{_note(note)}, got {value!r}")
    return value


def check_number(
    value: Any,
    name: str,
    *,
    low: float | None = None,
    high: float | None = None,
    low_open: bool = False,
    high_open: bool = False,
    finite: bool = True,
    optional: bool = False,
    note: str = "",
    error: ErrorClass = InvalidOptionError,
) -> Any:
    """``value`` as a float if it is an int or float (not a bool), finite unless ``finite`` is
    False, within ``low``/``high`` (excluded with ``low_open``/``high_open``); ``None`` passes
    through if ``optional``. NaN is refused whatever the bounds; ``note`` is added in brackets
    after what was expected.

    Raises ``error``: "``name`` must be a finite number > 0 [or None], got ``value!r``".
    """
    if optional and value is None:
        return None
    if not (
        is_number(value, finite=finite)
        and not math.isnan(value)
        and _in_bounds(value, low, high, low_open, high_open)
    ):
        kind = "a finite number" if finite else "a number"
        expected = (
            f"{kind}{_bounds(low, high, low_open, high_open)}{' or None' if optional else ''}"
        )
        raise error(f"{name} must be {expected}{_note(note)}, got {value!r}")
    return float(value)


def check_probability(value: Any, name: str, *, error: ErrorClass = InvalidOptionError) -> float:
    """``value`` as a float if it is a number in ``[0, 1]`` (not a bool, not NaN).

    Raises ``error``: "``name`` must be a probability in [0, 1], got ``value!r``".
    """
    if not is_number(value) or not 0.0 <= value <= 1.0:
        raise error(f"{name} must be a probability in [0, 1], got {value!r}")
    return float(value)


def check_seed(
    value: Any,
    name: str = "seed",
    *,
    optional: bool = False,
    error: ErrorClass = InvalidOptionError,
) -> Any:
    """A seed: an int or a numpy integer (returned as an int; not a bool), or ``None`` if
    ``optional``.

    Raises ``error``: "seed must be an int [or None], got ``value!r``".
    """
    value = check_int(value, name, optional=optional, numpy_ints=True, error=error)
    return None if value is None else int(value)


def check_bool(value: Any, name: str, *, error: ErrorClass = InvalidOptionError) -> bool:
    """``value`` if it is ``True`` or ``False`` (not 0 or 1, not a string).

    Raises ``error``: "``name`` must be True or False, got ``value!r``".
    """
    if not isinstance(value, bool):
        raise error(f"{name} must be True or False, got {value!r}")
    return value


def _one_of(choices: list[Any]) -> str:
    """``'a', 'b' or 'c'``."""
    shown = [repr(c) for c in choices]
    return shown[0] if len(shown) == 1 else f"{', '.join(shown[:-1])} or {shown[-1]}"


def check_choice(
    value: Any, name: str, choices: Iterable[Any], *, error: ErrorClass = InvalidOptionError
) -> Any:
    """``value`` if it is one of ``choices`` (compared with ``==``; a bool never matches an int).

    Raises ``error``: "``name`` must be 'a', 'b' or 'c', got ``value!r``".
    """
    options = list(choices)
    if not any(isinstance(value, bool) == isinstance(c, bool) and value == c for c in options):
        raise error(f"{name} must be {_one_of(options)}, got {value!r}")
    return value


def check_instance(
    value: Any,
    name: str,
    kind: type | tuple[type, ...],
    *,
    what: str = "",
    optional: bool = False,
    error: ErrorClass = InvalidOptionError,
) -> Any:
    """``value`` if it is an instance of ``kind`` (or ``None`` if ``optional``).

    Raises ``error``: "``name`` must be a ``Kind`` [or None], got ``value!r``" (``what`` in
    place of "a ``Kind``" if given).
    """
    if optional and value is None:
        return None
    if not isinstance(value, kind):
        kinds = kind if isinstance(kind, tuple) else (kind,)
        expected = what or " or ".join(f"a {k.__name__}" for k in kinds)
        raise error(f"{name} must be {expected}{' or None' if optional else ''}, got {value!r}")
    return value


def check_callable(
    value: Any, name: str, *, what: str = "a callable", error: ErrorClass = InvalidOptionError
) -> Callable[..., Any]:
    """``value`` if it is callable.

    Raises ``error``: "``name`` must be ``what``, got ``value!r``".
    """
    if not callable(value):
        raise error(f"{name} must be {what}, got {value!r}")
    return value
