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

Files a user or a request names are checked here too: ``load_json``/``read_json`` read JSON
that may be hostile (bounded size and nesting depth, no NaN or infinity, every failure the
caller's file error naming the file and line), and ``check_output_file`` refuses an output
path that could not be written as a plain file (a folder, a FIFO or device, a dangling link)
before any work starts.
"""

from __future__ import annotations

import json
import math
import os
import stat
from collections.abc import Callable, Iterable
from pathlib import Path
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
    "check_output_file",
    "check_probability",
    "check_seed",
    "is_int",
    "is_number",
    "load_json",
    "read_capped",
    "read_json",
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


# ------------------------------------------------------------------------------ files
#: The deepest nesting of arrays and objects a JSON document from a file may have (ours hold
#: a few levels; a hostile one nested 200,000 deep would overflow the reader's stack).
MAX_JSON_DEPTH = 64
#: The most bytes ``read_json`` reads of one JSON file.
MAX_JSON_BYTES = 64 << 20


class _NotFinite(Exception):
    """A JSON number that is NaN or infinite (``NaN``, ``Infinity``, ``1e999``)."""


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _NotFinite(text)
    return value


def _constant(text: str) -> float:
    raise _NotFinite(text)


def _too_deep(value: Any, limit: int) -> bool:
    """Whether ``value``'s arrays and objects nest deeper than ``limit`` levels."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        children = item.values() if isinstance(item, dict) else item
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children if isinstance(child, (dict, list)))
    return False


def load_json(
    data: str | bytes,
    where: str,
    *,
    line: int | None = None,
    error: ErrorClass = InvalidOptionError,
    max_depth: int = MAX_JSON_DEPTH,
) -> Any:
    """The JSON document ``data`` (read from ``where``, at ``line`` if given), refused with
    ``error`` naming ``where`` and the line when it is not JSON, holds a NaN or an infinite
    number (``NaN``, ``Infinity``, ``1e999``), or nests arrays and objects deeper than
    ``max_depth`` (which would otherwise end in a ``RecursionError``).

    Raises ``error``: "``where``, line ``line``: nested deeper than 64 levels".
    """
    place = where if line is None else f"{where}, line {line}"
    try:
        value = json.loads(data, parse_float=_finite_float, parse_constant=_constant)
    except RecursionError:
        problem = f"nested deeper than {max_depth} levels"
    except _NotFinite as found:
        problem = f"the number {found.args[0]} is not finite"
    except (ValueError, TypeError) as found:  # JSONDecodeError, UnicodeDecodeError, huge ints
        problem = f"not valid JSON ({found})"
    else:
        if not isinstance(value, (dict, list)) or not _too_deep(value, max_depth):
            return value
        problem = f"nested deeper than {max_depth} levels"
    raise error(f"{place}: {problem}")


def read_json(
    path: str | os.PathLike[str],
    where: str | None = None,
    *,
    error: ErrorClass = InvalidOptionError,
    max_bytes: int = MAX_JSON_BYTES,
) -> Any:
    """The JSON document in the file ``path`` (named ``where`` in messages; default the path),
    read as ``load_json`` reads it; ``error`` too for a file that cannot be read or is over
    ``max_bytes``."""
    name = os.fspath(path) if where is None else where
    return load_json(read_capped(path, name, max_bytes, error), name, error=error)


def read_capped(
    path: str | os.PathLike[str], name: str, max_bytes: int, error: ErrorClass
) -> bytes:
    """The bytes of the file ``path`` (named ``name`` in messages), refused with ``error`` when
    it cannot be read or holds more than ``max_bytes`` (never read past that)."""
    try:
        with open(path, "rb") as handle:
            data = handle.read(max_bytes + 1)
    except OSError as found:
        raise error(f"cannot read {name}: {found.strerror or found}") from None
    if len(data) > max_bytes:
        raise error(f"{name} is over {max_bytes} bytes; not read")
    return data


def _kind(mode: int) -> str:
    for test, name in (
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
    ):
        if test(mode):
            return name
    return "not a regular file"


def check_output_file(
    text: str | os.PathLike[str],
    option: str,
    *,
    make_folders: bool = False,
    error: ErrorClass = InvalidOptionError,
) -> Path:
    """The path of an output file (``--out``, ``--plot``) if a plain file can be written
    there, checked before any work starts; else ``error`` naming ``option`` and the path.

    Refused: an empty name, a folder, anything but a regular file (a FIFO, whose opening would
    hang, a device, a socket), a link to nothing (writing would make its target, or replace
    the link), a folder that does not exist (made with ``make_folders``) and a place that
    cannot be written (tested by opening the file without blocking, a new one removed again).
    A link to a regular file is followed (the file is written).
    """
    name = os.fspath(text)
    if not name.strip():
        raise error(f"{option} is empty; give a file name")
    path = Path(name)
    try:
        if path.is_symlink():
            target = Path(os.path.realpath(path))
            if not target.exists():
                raise error(
                    f"{option} {name!r} is a link to {str(target)!r}, which does not exist; "
                    "give the file itself"
                )
            path = target
        if path.is_dir():
            raise error(f"{option} {name!r} is a folder; give a file name")
        if path.exists() and not path.is_file():
            raise error(f"{option} {name!r} is {_kind(path.stat().st_mode)}; give a file name")
        folder = path.parent
        if not folder.is_dir():
            existing = next((p for p in (folder, *folder.parents) if p.exists()), Path("."))
            if not existing.is_dir():
                raise error(f"{option} {name!r}: {str(existing)!r} is not a folder")
            if not make_folders:
                raise error(f"{option} {name!r}: folder {str(folder)!r} does not exist")
            folder.mkdir(parents=True, exist_ok=True)
        existed = path.exists()
        flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NONBLOCK", 0)
        if not existed:
            flags |= os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
        os.close(os.open(path, flags, 0o666))
    except (OSError, ValueError) as found:  # ValueError: a NUL in the name
        if isinstance(found, error):
            raise
        reason = getattr(found, "strerror", None) or str(found)
        raise error(f"{option} {name!r}: cannot write there ({reason})") from None
    if not existed:
        path.unlink()
    return path
