"""From a live PettingZoo AEC env to the search's view of it: a ``Game`` and a root state.

``game_from_env(env)`` picks the fastest faithful path, and never changes ``env``:

1. our envs (``env.unwrapped`` is an ``envs.core.BoardGameEnv``): the rules core and its
   immutable state, with no AEC overhead;
2. Shimmy's OpenSpiel wrapper: a ``Game`` over cloned ``pyspiel`` states;
3. anyone else's AEC env: a ``Game`` over verified clones of the whole wrapper chain.

``copy.deepcopy`` cannot do path 3: PettingZoo's classic envs inherit ``gymnasium.utils.EzPickle``,
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
import operator
import random
import socket
import sys
import threading
import types
import weakref
from collections.abc import Callable, Hashable, Sequence
from enum import Enum
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv

from envs.core.aec import BoardGameEnv
from mcts_agents.errors import (
    CloneError,
    GameOverError,
    IllegalActionError,
    NoLegalActionError,
    NotResetError,
)
from mcts_agents.game import Game, State

__all__ = [
    "EnvGame",
    "EnvState",
    "OpenSpielGame",
    "clone_env",
    "game_from_env",
]

Memo = dict[int, Any]


def game_from_env(env: Any) -> tuple[Game, State]:
    """The ``Game`` and root state for the position of the live AEC env ``env``.

    Args:
        env: any PettingZoo AEC env, possibly wrapped, reset and not finished.

    Returns:
        ``(game, state)``: for our envs the rules core and its state (the env's own immutable
        state object); for Shimmy's OpenSpiel wrapper an ``OpenSpielGame`` and a clone of the
        ``pyspiel`` state; otherwise an ``EnvGame`` and an ``EnvState`` over a verified clone.

    Raises:
        GameOverError: no agents remain, or the agent to move is terminated or truncated.
        NoLegalActionError: the agent to move has no legal action.
        NotResetError: the env has not been reset.
        CloneError: the env cannot be adapted (not an AEC env, uncopyable contents, a clone that
            does not match the original, an OpenSpiel game with chance or simultaneous moves).
    """
    if not isinstance(env, AECEnv):
        raise CloneError(
            f"game_from_env expects a PettingZoo AECEnv, got {type(env).__name__} "
            "(wrap a ParallelEnv with pettingzoo.utils.parallel_to_aec)"
        )
    raw = env.unwrapped
    if isinstance(raw, BoardGameEnv):
        _check_live(env, raw.agents, raw.agent_selection, raw.terminations, raw.truncations)
        game, state = raw.game, raw.state
        if game.is_terminal(state):
            raise GameOverError(f"the game in {env} is over")
        if not game.legal_actions(state):
            raise NoLegalActionError(f"{raw.agent_selection} has no legal action in {env}")
        return game, state
    openspiel_type = _openspiel_env_type()
    if openspiel_type is not None and isinstance(raw, openspiel_type):
        return _openspiel_game(env, raw)
    return _env_game(env)


# ---------------------------------------------------------------------------- liveness checks
def _bookkeeping(env: Any) -> tuple[list[Any], Any, dict[Any, bool], dict[Any, bool]]:
    try:
        return env.agents, env.agent_selection, env.terminations, env.truncations
    except AttributeError as error:
        raise NotResetError(
            f"{_describe(env)} has no game in progress ({error}); call env.reset() first"
        ) from None


def _check_live(
    env: Any,
    agents: Sequence[Any],
    selected: Any,
    terminations: dict[Any, bool],
    truncations: dict[Any, bool],
) -> None:
    if not agents:
        raise GameOverError(f"no agents remain in {env}: the game is over; reset() for a new one")
    if terminations.get(selected, False) or truncations.get(selected, False):
        raise GameOverError(
            f"{selected} is done in {env}: step(None) to remove finished agents or reset()"
        )


# ---------------------------------------------------------------------------- OpenSpiel path
def _openspiel_env_type() -> type | None:
    """Shimmy's OpenSpiel env class if Shimmy is loaded (an env of it implies it is)."""
    module = sys.modules.get("shimmy.openspiel_compatibility")
    return getattr(module, "OpenSpielCompatibilityV0", None)


class OpenSpielGame:
    """``Game`` over ``pyspiel`` states of a deterministic, sequential, perfect-information game.

    States are ``pyspiel.State`` objects, never mutated: ``next_state`` clones then applies.
    Player ``i`` of OpenSpiel is ``possible_agents[i]`` of Shimmy's env (``"player_i"``). The key
    is ``(current player, str(state))``: OpenSpiel's text of a board game's position, equal for
    transposed move orders (``serialize()`` is the move history, which is not).
    """

    def __init__(self, game: Any) -> None:
        self.game = game
        self.num_players: int = game.num_players()

    def to_play(self, state: Any) -> int:
        return int(state.current_player())

    def legal_actions(self, state: Any) -> list[int]:
        return list(state.legal_actions())

    def next_state(self, state: Any, action: int) -> Any:
        if action not in state.legal_actions():
            raise IllegalActionError(
                f"{self.game}: action {action} is not legal here; legal: {state.legal_actions()}"
            )
        child = state.clone()
        child.apply_action(action)
        return child

    def is_terminal(self, state: Any) -> bool:
        return bool(state.is_terminal())

    def returns(self, state: Any) -> tuple[float, ...]:
        return tuple(state.returns())

    def key(self, state: Any) -> Hashable:
        return (state.current_player(), str(state))

    def rollout(self, state: Any, rng: random.Random) -> tuple[float, ...]:
        """Uniformly random playout on one private clone (same moves as ``default_rollout``)."""
        state = state.clone()
        while not state.is_terminal():
            actions = state.legal_actions()
            state.apply_action(actions[int(rng.random() * len(actions))])
        return tuple(state.returns())


def _openspiel_game(env: Any, raw: Any) -> tuple[OpenSpielGame, Any]:
    agents, selected, terminations, truncations = _bookkeeping(env)
    if not hasattr(raw, "game_state"):
        raise NotResetError(f"{type(raw).__name__} has no game in progress; call env.reset()")
    _check_live(env, agents, selected, terminations, truncations)
    import pyspiel  # present: Shimmy's OpenSpiel module imports it

    state = raw.game_state
    game = state.get_game()
    kind = game.get_type()
    refusals = []
    if kind.dynamics != pyspiel.GameType.Dynamics.SEQUENTIAL:
        refusals.append("simultaneous moves")
    if kind.chance_mode != pyspiel.GameType.ChanceMode.DETERMINISTIC:
        refusals.append("chance nodes (the search would see the env's future dice)")
    if kind.information != pyspiel.GameType.Information.PERFECT_INFORMATION:
        refusals.append("imperfect information (the search would see hidden state)")
    if refusals:
        raise CloneError(
            f"{type(raw).__name__} plays OpenSpiel's {kind.short_name!r}, which has "
            f"{' and '.join(refusals)}; the search supports deterministic, sequential, "
            "perfect-information games"
        )
    if state.is_terminal():
        raise GameOverError(f"the game in {env} is over")
    expected = [f"player_{i}" for i in range(game.num_players())]
    player = state.current_player()
    if list(env.possible_agents) != expected or not 0 <= player < len(expected):
        raise CloneError(
            f"{type(raw).__name__}: agents {env.possible_agents} do not map onto OpenSpiel "
            f"players {expected} (current player {player})"
        )
    if selected != expected[player]:
        raise CloneError(
            f"{type(raw).__name__}: agent to move {selected!r} is not OpenSpiel's current player "
            f"{player}"
        )
    if not state.legal_actions():
        raise NoLegalActionError(f"{selected} has no legal action in {env}")
    return OpenSpielGame(game), state.clone()


# ---------------------------------------------------------------------------- the cloner
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


def _clone(env: Any, memo: Memo) -> Any:
    """Unverified clone of ``env`` with ``memo`` (pre-seeded with objects to share)."""
    try:
        return _copy(env, memo)
    except _Uncopyable as error:
        where = "".join(reversed(error.path)) or "the env itself"
        raise CloneError(
            f"cannot clone {_describe(env)}: {where} is a {error.what} ({error.why})"
        ) from error.__cause__
    except RecursionError as error:
        raise CloneError(f"cannot clone {_describe(env)}: it nests too deeply") from error


def _describe(env: Any) -> str:
    """The wrapper chain's class names and the env's registered name, for messages."""
    chain = ">".join(type(obj).__name__ for obj in _wrapper_chain(env))
    name = getattr(env.unwrapped, "metadata", {}).get("name")
    return f"{chain} ({name})" if name else chain


def clone_env(env: Any) -> Any:
    """A verified deep copy of the AEC env ``env`` (every wrapper), with rendering turned off.

    Unlike ``copy.deepcopy``, the clone holds the current position of PettingZoo's EzPickle
    envs. The clone is checked against ``env`` (agent to move, agents, terminations,
    truncations, rewards, cumulative rewards, every live agent's observation and the mover's
    ``info["action_mask"]``); ``env`` is left bit for bit as it was.

    Raises:
        CloneError: something in ``env`` cannot be copied, or the clone does not match.
    """
    return _verified_clone(env, {})


def _verified_clone(env: Any, memo: Memo) -> Any:
    clone = _clone(env, memo)
    problem = _mismatch(env, clone)
    if problem is not None:
        raise CloneError(f"cannot clone {_describe(env)} faithfully: {problem}")
    return clone


_BOOKKEEPING = ("agents", "terminations", "truncations", "rewards", "_cumulative_rewards")


def _mismatch(env: Any, clone: Any) -> str | None:
    """How ``clone`` differs from ``env`` (None if it does not); observes ``env`` harmlessly."""
    missing = object()
    selected = getattr(env, "agent_selection", missing)
    if selected is missing:  # not reset: nothing observable to compare beyond the copy itself
        return None
    if getattr(clone, "agent_selection", missing) != selected:
        return f"agent to move {getattr(clone, 'agent_selection', None)!r} != {selected!r}"
    for name in _BOOKKEEPING:
        if not _same(getattr(clone, name, missing), getattr(env, name, missing)):
            return f"{name} differ"
    agents = list(env.agents)
    try:
        theirs = _observe_untouched(env, agents)
    except Exception as error:
        raise CloneError(
            f"cannot verify a clone of {_describe(env)}: observing it raised {error!r}"
        ) from error
    try:
        ours = [clone.observe(agent) for agent in agents]
    except Exception as error:
        return f"observing the clone raised {error!r}"
    for agent, a, b in zip(agents, ours, theirs, strict=True):
        if not _same(a, b):
            return f"the observation of {agent!r} differs"
    if agents:
        info_mask = _info_mask(env, selected)
        if not _same(_info_mask(clone, selected), info_mask):
            return f"info['action_mask'] of {selected!r} differs"
    return None


def _info_mask(env: Any, agent: Any) -> Any:
    info = getattr(env, "infos", {}).get(agent)
    return info.get("action_mask") if isinstance(info, dict) else None


def _observe_untouched(env: Any, agents: Sequence[Any]) -> list[Any]:
    """Observations of ``env`` for ``agents``, then every attribute of its wrappers put back.

    Observing can rebind wrapper attributes (``TerminateIllegalWrapper._prev_obs``); each object
    of the wrapper chain gets its ``__dict__`` restored (same objects, same order) and its random
    generators' states put back, so the live env ends bit for bit as it was.
    """
    chain = _wrapper_chain(env)
    saved = [(vars(obj), dict(vars(obj))) for obj in chain]
    rngs = [(g, _rng_state(g)) for obj in chain for g in vars(obj).values() if _is_rng(g)]
    try:
        return [env.observe(agent) for agent in agents]
    finally:
        for fields, values in saved:
            fields.clear()
            fields.update(values)
        for generator, state in rngs:
            _set_rng_state(generator, state)


def _wrapper_chain(env: Any) -> list[Any]:
    chain = [env]
    while isinstance(vars(chain[-1]).get("env"), AECEnv) and len(chain) < 100:
        chain.append(vars(chain[-1])["env"])
    return chain


def _is_rng(x: Any) -> bool:
    return isinstance(x, (np.random.Generator, np.random.RandomState, random.Random))


def _rng_state(g: Any) -> Any:
    if isinstance(g, np.random.Generator):
        return g.bit_generator.state
    return g.get_state() if isinstance(g, np.random.RandomState) else g.getstate()


def _set_rng_state(g: Any, state: Any) -> None:
    if isinstance(g, np.random.Generator):
        g.bit_generator.state = state
    elif isinstance(g, np.random.RandomState):
        g.set_state(state)
    else:
        g.setstate(state)


def _same(a: Any, b: Any) -> bool:
    """Structural equality: arrays by dtype, shape and bytes; containers item by item."""
    if a is b:
        return True
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        if not (isinstance(a, np.ndarray) and isinstance(b, np.ndarray)):
            return False
        if a.dtype != b.dtype or a.shape != b.shape:
            return False
        if a.dtype.hasobject:
            return _same(a.tolist(), b.tolist())
        return a.tobytes() == b.tobytes()
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(_same(u, v) for u, v in zip(a, b, strict=True))
    try:
        return bool(a == b)
    except Exception:
        return False


# ---------------------------------------------------------------------------- the generic Game
class EnvState:
    """A position of an env clone, treated as immutable (``EnvGame`` clones before stepping).

    Attributes:
        env: the clone (never stepped once it is in a state).
        book: the object of ``env``'s wrapper chain that holds the AEC bookkeeping (``agents``,
            ``agent_selection``, ...), read directly to skip the wrappers' ``__getattr__``.
        rewards: per-player sum of ``env.rewards`` over the steps since the search's root.
        player: index of the agent to move in ``possible_agents`` (-1 when none is left).
        terminal: no agents remain, or every remaining agent is terminated or truncated.
    """

    __slots__ = ("_key", "_legal", "book", "env", "player", "rewards", "terminal")

    def __init__(
        self, env: Any, book: Any, rewards: list[float], player: int, terminal: bool
    ) -> None:
        self.env = env
        self.book = book
        self.rewards = rewards
        self.player = player
        self.terminal = terminal
        self._legal: list[int] | None = None
        self._key: Hashable | None = None


_BOOK_NAMES = ("agents", "agent_selection", "terminations", "truncations", "rewards", "infos")


def _bookkeeper(env: Any) -> Any:
    """The outermost object of ``env``'s chain that defines the bookkeeping attributes.

    PettingZoo's wrappers forward them to the unwrapped env with ``__getattr__``; a wrapper that
    defines any of them itself is the owner. Falls back to ``env`` unless reading the owner gives
    the very same objects as reading ``env``.
    """
    for obj in _wrapper_chain(env):
        own = vars(obj).keys() | {
            name for cls in type(obj).__mro__ if cls not in (AECEnv, object) for name in vars(cls)
        }
        if own.intersection(_BOOK_NAMES):
            break
    else:
        return env
    missing = object()
    if all(getattr(obj, n, missing) is getattr(env, n, missing) for n in _BOOK_NAMES):
        return obj
    return env


class EnvGame:
    """``Game`` over clones of any AEC env (the generic, slower path).

    ``next_state`` clones the state's env and steps the clone; a dead agent whose turn comes up
    while others play on is stepped with ``None``, as the AEC loop does. Legal actions come from
    ``observation["action_mask"]``, else ``info["action_mask"]``, else (no mask at all) every
    action of a ``Discrete`` space. Returns are the rewards summed since the root (PettingZoo's
    classic games pay at the end). The key is the unwrapped env's ``state_key()`` if it has one,
    else the agent to move, the agents left and the bytes of every agent's observation.

    Gymnasium spaces are copied from the live env once, then shared by all clones of a search.
    """

    def __init__(self, env: Any, memo: Memo) -> None:
        self.agents: tuple[Any, ...] = tuple(env.possible_agents)
        self.num_players = len(self.agents)
        self._index = {agent: i for i, agent in enumerate(self.agents)}
        # Spaces are specs, not position: copied once from the live env, shared by the clones.
        self._shared: Memo = {id(v): v for v in memo.values() if isinstance(v, spaces.Space)}
        raw = env.unwrapped
        self._state_key = callable(getattr(raw, "state_key", None))
        self._mask_source = self._find_mask_source(env)
        # A mask's index i is action ``start + i`` of a Discrete space (start is usually 0).
        self._start = {a: int(getattr(env.action_space(a), "start", 0)) for a in self.agents}

    def _find_mask_source(self, env: Any) -> str:
        agent = env.agent_selection
        observation = env.observe(agent)
        if isinstance(observation, dict) and "action_mask" in observation:
            return "observation"
        if _info_mask(env, agent) is not None:
            return "info"
        space = env.action_space(agent)
        if isinstance(space, spaces.Discrete):
            return "all"
        raise CloneError(
            f"{type(env.unwrapped).__name__} has no action mask and a {type(space).__name__} "
            "action space; the search needs a Discrete space or a mask"
        )

    # -------------------------------------------------------------- states
    def root(self, env: Any) -> EnvState:
        """The root state over ``env`` (a verified clone, from now on never stepped)."""
        return self._state(env, _bookkeeper(env), [0.0] * self.num_players)

    def _state(self, env: Any, book: Any, rewards: list[float]) -> EnvState:
        agents, terminations, truncations = book.agents, book.terminations, book.truncations
        terminal = not agents or all(terminations[a] or truncations[a] for a in agents)
        return EnvState(env, book, rewards, self._index.get(book.agent_selection, -1), terminal)

    def _clone(self, state: EnvState) -> tuple[Any, Any]:
        memo = dict(self._shared)
        env = _clone(state.env, memo)
        return env, memo[id(state.book)]

    def _advance(self, env: Any, book: Any, action: Any, rewards: list[float]) -> bool:
        """Step ``env`` in place with ``action``, then ``None`` for dead agents to move.

        Returns whether the game is over.
        """
        index = self._index
        env.step(action)
        for _ in range(self.num_players + 1):
            for agent, reward in book.rewards.items():
                if reward:
                    rewards[index[agent]] += float(reward)
            agents, terminations, truncations = book.agents, book.terminations, book.truncations
            if not agents or all(terminations[a] or truncations[a] for a in agents):
                return True
            selected = book.agent_selection
            if not (terminations[selected] or truncations[selected]):
                return False
            env.step(None)
        raise CloneError(
            f"{type(env.unwrapped).__name__}: stepping finished agents with None does not reach "
            "a live agent"
        )

    # -------------------------------------------------------------- the Game protocol
    def to_play(self, state: EnvState) -> int:
        return state.player

    def legal_actions(self, state: EnvState) -> list[int]:
        legal = state._legal
        if legal is None:
            legal = state._legal = [] if state.terminal else self._legal_now(state.env, state.book)
        return list(legal)

    def _legal_now(self, env: Any, book: Any, observation: Any = None) -> list[int]:
        """Legal actions of the agent to move (``observation``: its observation, if at hand)."""
        agent = book.agent_selection
        source = self._mask_source
        if source == "observation":
            if observation is None:
                observation = env.observe(agent)
            mask = observation["action_mask"]
        elif source == "info":
            mask = book.infos[agent]["action_mask"]
        else:
            space = env.action_space(agent)
            return list(range(int(space.start), int(space.start + space.n)))
        actions: list[int] = np.flatnonzero(mask).tolist()
        if not actions:
            raise NoLegalActionError(
                f"{agent} has no legal action in a clone of {type(env.unwrapped).__name__}, "
                "whose game is not over"
            )
        start = self._start[agent]
        return [a + start for a in actions] if start else actions

    def next_state(self, state: EnvState, action: int) -> EnvState:
        legal = state._legal if state._legal is not None else self.legal_actions(state)
        if action not in legal:
            raise IllegalActionError(
                f"action {action!r} is not legal in this {type(state.env.unwrapped).__name__} "
                f"position; legal: {legal}"
            )
        env, book = self._clone(state)
        rewards = list(state.rewards)
        self._advance(env, book, operator.index(action), rewards)
        return self._state(env, book, rewards)

    def is_terminal(self, state: EnvState) -> bool:
        return state.terminal

    def returns(self, state: EnvState) -> tuple[float, ...]:
        return tuple(state.rewards)

    def key(self, state: EnvState) -> Hashable:
        key = state._key
        if key is None:
            env, book = state.env, state.book
            if self._state_key:
                key = env.unwrapped.state_key()
            else:
                agents = tuple(book.agents)
                selected = book.agent_selection
                observed = [env.observe(agent) for agent in agents]
                seen = tuple(_freeze(observation) for observation in observed)
                if self._mask_source == "info":
                    seen += (_freeze(_info_mask(book, selected)),)
                elif state._legal is None and not state.terminal and selected in agents:
                    # the search asks for the key, then the legal actions: observe once
                    mover = observed[agents.index(selected)]
                    state._legal = self._legal_now(env, book, mover)
                key = (selected, agents, seen)
            state._key = key
        return key

    def rollout(self, state: EnvState, rng: random.Random) -> tuple[float, ...]:
        """Uniformly random playout on one private clone (same moves as ``default_rollout``)."""
        if state.terminal:
            return tuple(state.rewards)
        env, book = self._clone(state)
        rewards = list(state.rewards)
        actions = state._legal if state._legal is not None else self._legal_now(env, book)
        while not self._advance(env, book, actions[int(rng.random() * len(actions))], rewards):
            actions = self._legal_now(env, book)
        return tuple(rewards)


class ReachableEnvGame(EnvGame):
    """``EnvGame`` for an env whose unwrapped env offers ``is_reachable(key)``."""

    def is_reachable(self, state: EnvState, key: Hashable) -> bool:
        """Could the position with ``key`` occur at or after ``state``?"""
        return bool(state.env.unwrapped.is_reachable(key))


def _freeze(x: Any) -> Hashable:
    """A hashable, equality-preserving form of an observation."""
    if isinstance(x, np.ndarray):
        return (x.shape, x.tobytes()) if not x.dtype.hasobject else _freeze(x.tolist())
    if isinstance(x, dict):
        return tuple((k, _freeze(v)) for k, v in x.items())
    if isinstance(x, (list, tuple)):
        return tuple(_freeze(v) for v in x)
    if isinstance(x, np.generic):
        return x.item()
    try:
        hash(x)
    except TypeError:
        return repr(x)
    return x


def _env_game(env: Any) -> tuple[EnvGame, EnvState]:
    agents, selected, terminations, truncations = _bookkeeping(env)
    _check_live(env, agents, selected, terminations, truncations)
    if selected not in env.possible_agents:
        raise CloneError(f"{_describe(env)}: agent to move {selected!r} is not a possible agent")
    memo: Memo = {}
    clone = _verified_clone(env, memo)
    cls = ReachableEnvGame if callable(getattr(env.unwrapped, "is_reachable", None)) else EnvGame
    game = cls(clone, memo)
    root = game.root(clone)
    if root.terminal:
        raise GameOverError(f"the game in {env} is over")
    game.legal_actions(root)  # raises NoLegalActionError for a stuck live env
    return game, root
