"""A faithful clone of any PettingZoo AEC env, verified against the live env (``clone_env``).

``copy.deepcopy`` cannot do this: PettingZoo's classic envs inherit ``gymnasium.utils.EzPickle``,
whose ``__setstate__`` rebuilds the object from its constructor arguments, so a deep copy taken
mid-game silently holds a fresh, never-reset board (PettingZoo issues #1186, #1271, #1307).
``clone_env`` copies the objects' ``__dict__``s itself, shares what must not be copied (modules,
functions, classes, pygame surfaces and clocks), refuses what cannot be copied faithfully
(generators, locks, open files, threads, sockets, objects with ``__del__``), turns rendering off
in the clone, and then checks the clone against the live env before anyone trusts it.
"""

from __future__ import annotations

import copy
import io
import socket
import sys
import threading
import types
import weakref
from collections.abc import Callable, Sequence
from enum import Enum
from typing import Any

import numpy as np
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv

from mcts_agents.adapters.aec import BOOKKEEPING, describe_env, info_mask, wrapper_chain
from mcts_agents.adapters.compare import is_rng, rng_state, set_rng_state, structurally_equal
from mcts_agents.errors import CloneError

__all__ = ["Memo", "clone_env", "clone_with_memo", "verified_clone"]

Memo = dict[int, Any]


class _Uncopyable(Exception):
    """Internal: a value that cannot be cloned; ``path`` is built innermost first."""

    def __init__(self, what: str, why: str) -> None:
        super().__init__(what, why)
        self.what, self.why = what, why
        self.path: list[str] = []


_Rule = Callable[[Any, Memo], Any]
_RULES: dict[type, _Rule] = {}  # per-class copy rule, classified once (see _rule_for)

_SHARED_TYPES: tuple[type, ...] = (
    type(None),
    bool,
    int,
    float,
    complex,
    str,
    bytes,
    range,
    type,
    types.BuiltinFunctionType,
    types.ModuleType,
    types.CodeType,
    types.MethodWrapperType,
    types.WrapperDescriptorType,
    types.MethodDescriptorType,
    type(Ellipsis),
    type(NotImplemented),
    property,
    weakref.ref,
    np.dtype,
    np.generic,
    Enum,
)
_REFUSED_TYPES: dict[type, str] = {
    types.GeneratorType: "a generator's position cannot be copied",
    types.CoroutineType: "a coroutine's position cannot be copied",
    types.AsyncGeneratorType: "an async generator's position cannot be copied",
    types.FrameType: "a frame cannot be copied",
    types.TracebackType: "a traceback cannot be copied",
    io.IOBase: "an open file or stream would be shared with the live env",
    socket.socket: "a socket would be shared with the live env",
    threading.Thread: "a thread cannot be copied",
    type(threading.Lock()): "a lock cannot be copied, and sharing it couples clone and env",
    type(threading.RLock()): "a lock cannot be copied, and sharing it couples clone and env",
}
_BUILTIN_CONTAINERS = (list, dict, tuple, set, frozenset, str, bytes, bytearray, int, float)


def _copy(x: Any, memo: Memo) -> Any:
    """Deep copy of ``x`` that bypasses EzPickle (see the module docstring)."""
    y = memo.get(id(x), memo)
    if y is not memo:
        return y
    rule = _RULES.get(type(x))
    if rule is None:
        rule = _RULES[type(x)] = _rule_for(type(x))
    return rule(x, memo)


def _rule_for(cls: type) -> _Rule:
    """Classify ``cls`` once: share, refuse, copy by hand, or fall back to ``copy.deepcopy``."""
    if cls is list:
        return _copy_list
    if cls is dict:
        return _copy_dict
    if cls is tuple:
        return _copy_tuple
    if issubclass(cls, _SHARED_TYPES) or cls.__module__.partition(".")[0] == "pygame":
        return _share
    for refused, why in _REFUSED_TYPES.items():
        if issubclass(cls, refused):
            return _refuser(cls, why)
    if cls is types.MethodType:
        return _copy_method
    if cls is types.FunctionType:
        return _copy_function
    if cls is np.ndarray:
        return _copy_array
    if issubclass(cls, _BUILTIN_CONTAINERS):
        return _fallback
    if getattr(cls, "__del__", None) is not None:
        return _refuser(cls, "it defines __del__, which every discarded clone would run")
    custom_copy = getattr(cls, "__deepcopy__", None) is not None
    if issubclass(cls, (AECEnv, EzPickle)) and not custom_copy:
        return _copy_env_object
    if _is_plain(cls) and not custom_copy:
        return _copy_instance
    return _fallback


def _is_plain(cls: type) -> bool:
    """Whether ``copy.deepcopy`` would copy ``cls`` instances by their ``__dict__`` alone."""
    return (
        cls.__reduce_ex__ is object.__reduce_ex__
        and cls.__reduce__ is object.__reduce__
        and getattr(cls, "__getstate__", None) is getattr(object, "__getstate__", None)
        and not hasattr(cls, "__setstate__")
        and not any("__slots__" in vars(base) for base in cls.__mro__)
        and getattr(cls, "__dictoffset__", 0) != 0  # instances have a __dict__
    )


def _share(x: Any, memo: Memo) -> Any:
    return x


def _refuser(cls: type, why: str) -> _Rule:
    def refuse(x: Any, memo: Memo) -> Any:
        if any(x is s for s in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__)):
            return x  # the standard streams are shared, as copy.deepcopy would not dare either
        raise _Uncopyable(cls.__name__, why)

    return refuse


def _fallback(x: Any, memo: Memo) -> Any:
    try:
        return copy.deepcopy(x, memo)
    except Exception as error:
        raise _Uncopyable(type(x).__name__, f"copy.deepcopy failed: {error!r}") from error


# Exact types whose instances are immutable: a list or dict of only these is copied shallowly.
_ATOMS = frozenset(
    {type(None), bool, int, float, complex, str, bytes}
    | {np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.float32, np.float64}
)


def _copy_list(x: list[Any], memo: Memo) -> list[Any]:
    if _ATOMS.issuperset(map(type, x)):
        y = memo[id(x)] = x[:]
        return y
    y = []
    memo[id(x)] = y
    try:
        for v in x:
            y.append(v if type(v) in _ATOMS else _copy(v, memo))
    except _Uncopyable as error:
        error.path.append(f"[{len(y)}]")
        raise
    return y


def _copy_dict(x: dict[Any, Any], memo: Memo) -> dict[Any, Any]:
    if _ATOMS.issuperset(map(type, x.values())) and _ATOMS.issuperset(map(type, x)):
        y = memo[id(x)] = x.copy()
        return y
    y = {}
    memo[id(x)] = y
    k: Any = None
    try:
        for k, v in x.items():
            y[k if type(k) in _ATOMS else _copy(k, memo)] = (
                v if type(v) in _ATOMS else _copy(v, memo)
            )
    except _Uncopyable as error:
        error.path.append(f"[{k!r}]")
        raise
    return y


def _copy_tuple(x: tuple[Any, ...], memo: Memo) -> tuple[Any, ...]:
    if _ATOMS.issuperset(map(type, x)):
        return x
    items: list[Any] = []
    try:
        for v in x:
            items.append(_copy(v, memo))
    except _Uncopyable as error:
        error.path.append(f"[{len(items)}]")
        raise
    if all(a is b for a, b in zip(items, x, strict=True)):
        return x
    if id(x) in memo:  # a cycle through this tuple was copied meanwhile
        return memo[id(x)]
    y = memo[id(x)] = tuple(items)
    return y


def _copy_array(x: np.ndarray, memo: Memo) -> np.ndarray:
    if x.dtype.hasobject:
        return _fallback(x, memo)
    y = x if not x.flags.writeable and x.flags.owndata else x.copy(order="K")
    memo[id(x)] = y
    return y


def _copy_method(x: types.MethodType, memo: Memo) -> types.MethodType:
    return types.MethodType(x.__func__, _copy(x.__self__, memo))


def _copy_function(x: types.FunctionType, memo: Memo) -> types.FunctionType:
    """A function is shared, unless it is a closure: then over copies of its cells' contents.

    A closure such as ``lambda: self.board`` must reach the clone's board, not the live one.
    Cells shared by several closures stay shared.
    """
    if not x.__closure__:
        return x
    fill = []
    cells = []
    for cell in x.__closure__:
        new = memo.get(id(cell))
        if new is None:
            new = memo[id(cell)] = types.CellType()
            fill.append((cell, new))
        cells.append(new)
    y = types.FunctionType(x.__code__, x.__globals__, x.__name__, x.__defaults__, tuple(cells))
    y.__kwdefaults__ = x.__kwdefaults__
    y.__dict__.update(x.__dict__)
    memo[id(x)] = y
    try:
        for cell, new in fill:
            try:
                contents = cell.cell_contents
            except ValueError:  # an empty cell
                continue
            new.cell_contents = _copy(contents, memo)
    except _Uncopyable as error:
        error.path.append(f".{x.__name__}.<closure>")
        raise
    return y


def _copy_instance(x: Any, memo: Memo) -> Any:
    cls: Any = type(x)
    try:
        y = cls.__new__(cls)
    except Exception as error:
        raise _Uncopyable(cls.__name__, f"{cls.__name__}.__new__() failed: {error!r}") from error
    memo[id(x)] = y
    fields = y.__dict__
    name = None
    try:
        for name, value in x.__dict__.items():
            fields[name] = value if type(value) in _ATOMS else _copy(value, memo)
    except _Uncopyable as error:
        error.path.append(f".{name}")
        raise
    return y


def _copy_env_object(x: Any, memo: Memo) -> Any:
    """An env or wrapper (or other EzPickle object): by its ``__dict__``, rendering off."""
    y = _copy_instance(x, memo)
    if y.__dict__.get("render_mode") is not None:
        y.__dict__["render_mode"] = None
    return y


def clone_with_memo(env: Any, memo: Memo) -> Any:
    """Unverified clone of ``env`` with ``memo`` (pre-seeded with objects to share)."""
    try:
        return _copy(env, memo)
    except _Uncopyable as error:
        where = "".join(reversed(error.path)) or "the env itself"
        raise CloneError(
            f"cannot clone {describe_env(env)}: {where} is a {error.what} ({error.why})"
        ) from error.__cause__
    except RecursionError as error:
        raise CloneError(f"cannot clone {describe_env(env)}: it nests too deeply") from error


def clone_env(env: Any) -> Any:
    """A verified deep copy of the AEC env ``env`` (every wrapper), with rendering turned off.

    Unlike ``copy.deepcopy``, the clone holds the current position of PettingZoo's EzPickle
    envs. The clone is checked against ``env`` (agent to move, agents, terminations,
    truncations, rewards, cumulative rewards, every live agent's observation and the mover's
    ``info["action_mask"]``); ``env`` is left bit for bit as it was.

    Raises:
        CloneError: something in ``env`` cannot be copied, or the clone does not match.
    """
    return verified_clone(env, {})


def verified_clone(env: Any, memo: Memo) -> Any:
    """``clone_with_memo``, then checked against ``env`` like ``clone_env``'s clone."""
    clone = clone_with_memo(env, memo)
    problem = _mismatch(env, clone)
    if problem is not None:
        raise CloneError(f"cannot clone {describe_env(env)} faithfully: {problem}")
    return clone


#: Compared between env and clone: the bookkeeping but the agent to move (compared first, with
#: its own message) and the infos (which may hold anything; the mover's mask is compared).
_COMPARED = (
    *(name for name in BOOKKEEPING if name not in ("agent_selection", "infos")),
    "_cumulative_rewards",
)


def _mismatch(env: Any, clone: Any) -> str | None:
    """How ``clone`` differs from ``env`` (None if it does not); observes ``env`` harmlessly."""
    missing = object()
    selected = getattr(env, "agent_selection", missing)
    if selected is missing:  # not reset: nothing observable to compare beyond the copy itself
        return None
    if getattr(clone, "agent_selection", missing) != selected:
        return f"agent to move {getattr(clone, 'agent_selection', None)!r} != {selected!r}"
    for name in _COMPARED:
        if not structurally_equal(getattr(clone, name, missing), getattr(env, name, missing)):
            return f"{name} differ"
    agents = list(env.agents)
    try:
        theirs = _observe_untouched(env, agents)
    except Exception as error:
        raise CloneError(
            f"cannot verify a clone of {describe_env(env)}: observing it raised {error!r}"
        ) from error
    try:
        ours = [clone.observe(agent) for agent in agents]
    except Exception as error:
        return f"observing the clone raised {error!r}"
    for agent, a, b in zip(agents, ours, theirs, strict=True):
        if not structurally_equal(a, b):
            return f"the observation of {agent!r} differs"
    if agents:
        live_mask = info_mask(env, selected)
        if not structurally_equal(info_mask(clone, selected), live_mask):
            return f"info['action_mask'] of {selected!r} differs"
    return None


def _observe_untouched(env: Any, agents: Sequence[Any]) -> list[Any]:
    """Observations of ``env`` for ``agents``, then every attribute of its wrappers put back.

    Observing can rebind wrapper attributes (``TerminateIllegalWrapper._prev_obs``); each object
    of the wrapper chain gets its ``__dict__`` restored (same objects, same order) and its random
    generators' states put back, so the live env ends bit for bit as it was.
    """
    chain = wrapper_chain(env)
    saved = [(vars(obj), dict(vars(obj))) for obj in chain]
    rngs = [(g, rng_state(g)) for obj in chain for g in vars(obj).values() if is_rng(g)]
    try:
        return [env.observe(agent) for agent in agents]
    finally:
        for fields, values in saved:
            fields.clear()
            fields.update(values)
        for generator, state in rngs:
            set_rng_state(generator, state)
