"""Comparing env objects (a clone with its original, two clones) and reading random generators.

Used by the cloner, which verifies each clone, and by the generic adapter, which checks that an
env draws no hidden randomness (``adapters.generic``). ``GlobalRandom`` saves, reseeds and puts
back the process-wide generators (Python's ``random`` and numpy's legacy ``np.random``), which a
clone shares with the live program instead of copying.
"""

from __future__ import annotations

import random
import types
from typing import Any

import numpy as np

__all__ = [
    "GlobalRandom",
    "fingerprint",
    "first_difference",
    "is_rng",
    "rng_state",
    "set_rng_state",
    "structurally_equal",
]


def is_rng(x: Any) -> bool:
    """Whether ``x`` is a random generator (numpy ``Generator``/``RandomState``, ``random``)."""
    return isinstance(x, (np.random.Generator, np.random.RandomState, random.Random))


def rng_state(g: Any) -> Any:
    """The state of generator ``g`` (compare with ``_same``)."""
    if isinstance(g, np.random.Generator):
        return g.bit_generator.state
    return g.get_state() if isinstance(g, np.random.RandomState) else g.getstate()


def set_rng_state(g: Any, state: Any) -> None:
    if isinstance(g, np.random.Generator):
        g.bit_generator.state = state
    elif isinstance(g, np.random.RandomState):
        g.set_state(state)
    else:
        g.setstate(state)


class GlobalRandom:
    """The states of Python's global ``random`` and numpy's global ``np.random`` at creation.

    ``moved()`` says whether either has drawn (or been reseeded) since; ``restore()`` puts both
    back, so that whatever ran in between leaves the program's random streams as they were.
    """

    __slots__ = ("_numpy", "_python")

    def __init__(self) -> None:
        self._python = random.getstate()
        self._numpy: dict[str, Any] = np.random.get_state(legacy=False)

    def moved(self) -> bool:
        numpy: dict[str, Any] = np.random.get_state(legacy=False)
        old = self._numpy
        return (
            random.getstate() != self._python
            or numpy["state"]["pos"] != old["state"]["pos"]
            or (numpy["has_gauss"], numpy["gauss"]) != (old["has_gauss"], old["gauss"])
            or not np.array_equal(numpy["state"]["key"], old["state"]["key"])
        )

    def restore(self) -> None:
        random.setstate(self._python)
        np.random.set_state(self._numpy)

    @staticmethod
    def seed(seed: int) -> None:
        """Seed both global generators with ``seed`` (callers restore them afterwards)."""
        random.seed(seed)
        np.random.seed(seed & 0xFFFF_FFFF)


def structurally_equal(a: Any, b: Any) -> bool:
    """Structural equality: arrays by dtype, shape and bytes; containers item by item; other
    values by ``==``."""
    if a is b:
        return True
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        if not (isinstance(a, np.ndarray) and isinstance(b, np.ndarray)):
            return False
        if a.dtype != b.dtype or a.shape != b.shape:
            return False
        if a.dtype.hasobject:
            return structurally_equal(a.tolist(), b.tolist())
        return a.tobytes() == b.tobytes()
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(structurally_equal(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(structurally_equal(u, v) for u, v in zip(a, b, strict=True))
    try:
        return bool(a == b)
    except Exception:
        return False


def first_difference(
    a: Any, b: Any, path: str = "env", skip: frozenset[str] = frozenset()
) -> str | None:
    """Where two clones of one env differ (a dotted path), or ``None``.

    Objects are compared field by field through their ``__dict__`` and slots, containers item
    by item, arrays by dtype, shape and bytes. Random generators, and fields whose name holds
    ``seed``, are skipped: two resets with different seeds differ there by design; so are
    objects' fields named in ``skip``.
    """
    return _difference(a, b, path, set(), skip)


def _difference(
    a: Any, b: Any, path: str, seen: set[tuple[int, int]], skip: frozenset[str] = frozenset()
) -> str | None:
    if a is b or (is_rng(a) and is_rng(b)):
        return None
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray) or type(a) is not type(b):
        return None if structurally_equal(a, b) else path
    if isinstance(a, dict):
        if list(a) != list(b):
            return path
        for k in a:
            found = _difference(a[k], b[k], f"{path}[{k!r}]", seen, skip)
            if found is not None:
                return found
        return None
    if isinstance(a, (list, tuple)):
        if len(a) != len(b):
            return path
        for i, (u, v) in enumerate(zip(a, b, strict=True)):
            found = _difference(u, v, f"{path}[{i}]", seen, skip)
            if found is not None:
                return found
        return None
    if isinstance(a, types.MethodType):
        if a.__func__ is not b.__func__:
            return path
        return _difference(a.__self__, b.__self__, f"{path}.__self__", seen, skip)
    if isinstance(a, types.FunctionType) and a is not b:  # e.g. a closure made at reset
        if a.__code__ is not b.__code__:
            return path
        cells = zip(a.__closure__ or (), b.__closure__ or (), strict=True)
        for i, (u, v) in enumerate(cells):
            try:
                found = _difference(u.cell_contents, v.cell_contents, f"{path}<{i}>", seen, skip)
            except ValueError:  # an empty cell
                continue
            if found is not None:
                return found
        return None
    fields = _fields(a)
    if fields is None:
        return None if structurally_equal(a, b) else path
    pair = (id(a), id(b))
    if pair in seen:
        return None
    seen.add(pair)
    other = _fields(b) or {}
    if list(fields) != list(other):
        return path
    for name, value in fields.items():
        if "seed" in name or name in skip:
            continue
        found = _difference(value, other[name], f"{path}.{name}", seen, skip)
        if found is not None:
            return found
    return None


def _fields(x: Any) -> dict[str, Any] | None:
    """The instance fields of a plain object (``__dict__`` and slots), else ``None``."""
    if isinstance(x, (type, types.ModuleType, types.FunctionType, types.MethodType)):
        return None
    fields = dict(getattr(x, "__dict__", {}))
    for cls in type(x).__mro__:
        for name in vars(cls).get("__slots__", ()):
            if hasattr(x, name):
                fields[name] = getattr(x, name)
    return fields if fields or hasattr(x, "__dict__") else None


def fingerprint(obj: Any) -> Any:
    """A hashable digest of ``obj``'s structure: equal for objects ``first_difference`` finds
    no difference between (generators and seed fields left out, as there)."""
    return _digest(obj, {})


def _digest(x: Any, seen: dict[int, int]) -> Any:
    if is_rng(x):
        return "<rng>"
    if isinstance(x, (type(None), bool, int, float, complex, str, bytes)):
        return x
    if isinstance(x, np.ndarray):
        return ("ndarray", str(x.dtype), x.shape, x.tobytes() if not x.dtype.hasobject else None)
    if isinstance(x, np.generic):
        return x.item()
    if id(x) in seen:  # a cycle, or an object met before: its position in the walk
        return ("seen", seen[id(x)])
    seen[id(x)] = len(seen)
    if isinstance(x, dict):
        return ("dict", tuple((_digest(k, seen), _digest(v, seen)) for k, v in x.items()))
    if isinstance(x, (list, tuple)):
        return (type(x).__name__, tuple(_digest(v, seen) for v in x))
    if isinstance(x, (set, frozenset)):
        return ("set", tuple(sorted(repr(v) for v in x)))
    if isinstance(x, types.MethodType):
        return ("method", x.__func__.__qualname__, _digest(x.__self__, seen))
    if isinstance(x, types.FunctionType):
        cells = []
        for cell in x.__closure__ or ():
            try:
                cells.append(_digest(cell.cell_contents, seen))
            except ValueError:  # an empty cell
                cells.append(None)
        return ("function", x.__code__, tuple(cells))
    fields = _fields(x)
    if fields is None:
        return ("object", type(x).__qualname__, id(x))  # shared objects: the same one or not
    return (
        type(x).__qualname__,
        tuple((k, _digest(v, seen)) for k, v in fields.items() if "seed" not in k),
    )
