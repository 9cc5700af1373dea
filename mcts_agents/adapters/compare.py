"""Comparing env objects (a clone with its original, two clones) and reading random generators.

Used by the cloner, which verifies each clone, and by the generic adapter, which checks that an
env draws no hidden randomness (``adapters.generic``). ``GlobalRandom`` saves, reseeds and puts
back the process-wide generators (Python's ``random`` and numpy's legacy ``np.random``), which a
clone shares with the live program instead of copying.
"""

from __future__ import annotations

import ctypes
import random
import types
from collections.abc import Hashable
from typing import Any, cast

import numpy as np

__all__ = [
    "GlobalRandom",
    "fingerprint",
    "first_difference",
    "freeze",
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
    """The states of Python's global ``random`` and numpy's global ``np.random`` (saved at
    creation and by ``refresh``).

    ``moved()`` says whether either has drawn (or been reseeded) since; ``restore()`` puts both
    back, so that whatever ran in between leaves the program's random streams as they were.
    Reading a whole state costs ~0.1 ms (numpy's), too much for every step of a search: where
    CPython and numpy lay their generators out as expected (checked once, against their own
    ``getstate``), ``moved`` and ``refresh`` compare a copy of the raw generator memory instead
    (microseconds), and a state is read in full only when it has changed.
    """

    __slots__ = ("_mark", "_numpy", "_python")

    def __init__(self) -> None:
        self._python = random.getstate()
        self._numpy = _numpy_state()
        self._mark = _mark()

    def refresh(self) -> None:
        """Save the states again if anything moved them since they were saved."""
        mark = _mark()
        if mark is None or mark != self._mark:
            self._python = random.getstate()
            self._numpy = _numpy_state()
            self._mark = mark

    def moved(self) -> bool:
        mark = _mark()
        if mark is not None and self._mark is not None and not self._numpy[3]:
            return mark != self._mark  # (a cached Gaussian, [3], is outside the raw memory)
        numpy = _numpy_state()
        old = self._numpy
        return (
            random.getstate() != self._python
            or numpy[2:] != old[2:]
            or not np.array_equal(numpy[1], old[1])
        )

    def restore(self) -> None:
        random.setstate(self._python)
        np.random.set_state(self._numpy)

    @staticmethod
    def seed(seed: int) -> None:
        """Seed both global generators with ``seed`` (callers restore them afterwards)."""
        random.seed(seed)
        np.random.seed(seed & 0xFFFF_FFFF)


def _numpy_state() -> tuple[Any, ...]:
    """``np.random``'s legacy state: ``("MT19937", key, pos, has_gauss, gauss)``."""
    return cast("tuple[Any, ...]", np.random.get_state())


_MT_WORDS = 624  # the Mersenne Twister's state: 624 32-bit words and a position


def _raw_views() -> tuple[Any, Any] | None:
    """ctypes views of the raw state of ``random``'s and ``np.random``'s Mersenne Twisters, if
    they hold exactly what ``getstate`` says (CPython: a PyObject header, ``int index``,
    ``uint32_t state[624]``; numpy: ``uint32_t key[624]; int pos``), else ``None``."""
    try:
        size = 4 * (_MT_WORDS + 1)
        header = 2 * ctypes.sizeof(ctypes.c_void_p)  # reference count, type
        python = (ctypes.c_char * size).from_address(id(random._inst) + header)
        generator = np.random.mtrand._rand._bit_generator
        numpy = (ctypes.c_char * size).from_address(generator.ctypes.state_address)
        words = np.frombuffer(bytes(python), dtype=np.uint32)
        state = random.getstate()[1]
        if [int(w) for w in words[1:]] != list(state[:-1]) or int(words[0]) != state[-1]:
            return None
        key = np.frombuffer(bytes(numpy), dtype=np.uint32)
        legacy = _numpy_state()
        if not np.array_equal(key[:-1], legacy[1]) or int(key[-1]) != legacy[2]:
            return None
    except Exception:
        return None
    return python, numpy


_VIEWS = _raw_views()


def _mark() -> tuple[bytes, bytes, Any] | None:
    """A copy of both generators' raw state (and ``random``'s cached Gaussian), or ``None``."""
    if _VIEWS is None:
        return None
    return bytes(_VIEWS[0]), bytes(_VIEWS[1]), random._inst.gauss_next  # type: ignore[attr-defined]


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


def freeze(x: Any) -> Hashable:
    """A hashable, equality-preserving form of an observation."""
    if isinstance(x, np.ndarray):
        return (x.shape, x.tobytes()) if not x.dtype.hasobject else freeze(x.tolist())
    if isinstance(x, dict):
        return tuple((k, freeze(v)) for k, v in x.items())
    if isinstance(x, (list, tuple)):
        return tuple(freeze(v) for v in x)
    if isinstance(x, np.generic):
        return x.item()
    try:
        hash(x)
    except TypeError:
        return repr(x)
    return x


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
