"""Which compiled kernels exist, for which game types, and whether one can run a search.

A kernel is registered for a rules-core type with ``register_kernel``: the import path of its
searcher class (a ``Searcher`` built as ``cls(game, budget, config, seed)``), a check of the
game's parameters that reads only the rules' public layout, and the option values the kernel
implements. A game without a kernel may have compiled playouts for the Python search instead,
registered with ``register_playout``. Nothing here imports numba: a kernel or playout module is
imported when a search needs it.
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from mcts_agents.errors import InvalidOptionError, OptionTypeError
from mcts_agents.search.config import Budget, SearchConfig
from mcts_agents.search.searcher import Searcher

__all__ = [
    "KernelEntry",
    "PlayoutEntry",
    "compiled_playout",
    "kernel_entry",
    "make_compiled_searcher",
    "numba_available",
    "register_kernel",
    "register_playout",
    "registered_kernels",
    "unsupported",
    "warm_up",
]


@dataclass(frozen=True)
class KernelEntry:
    """A compiled kernel for one rules-core type.

    Attributes:
        game_type: the rules core it plays (subclasses too).
        searcher: ``"module:Class"`` of its ``Searcher`` (or of a function returning one), built
            as ``Class(game, budget, config, seed)``; the module also has ``warm_up()``, which
            compiles or loads the kernel.
        supports: ``(game) -> None`` if the kernel plays this game's parameters, else a
            sentence saying why not; reads only the game's public attributes.
        options: ``SearchConfig`` fields the kernel implements only at these values.
        kernel_options: whether its searcher takes ``SearchConfig.kernel_options`` (and checks
            them: an unknown name refused, naming it); a kernel that does not runs no search
            that gives any.
    """

    game_type: type
    searcher: str
    supports: Callable[[Any], str | None]
    options: Mapping[str, Any] = field(default_factory=dict)
    kernel_options: bool = False

    def searcher_class(self) -> type:
        module, _, name = self.searcher.partition(":")
        cls: type = getattr(importlib.import_module(module), name)
        return cls


_KERNELS: dict[type, KernelEntry] = {}


@dataclass(frozen=True)
class PlayoutEntry:
    """Compiled playouts for one rules-core type, run by the Python search.

    Attributes:
        game_type: the rules core (subclasses too).
        factory: ``"module:function"``; ``function(game, kind)`` compiles (or loads) the
            playout of ``SearchConfig.playout == kind`` and returns ``playout(state, rng) ->
            returns``, the same play as the game's ``rollout`` (or ``decisive_rollout``) with
            numbers drawn from one ``rng.getrandbits(63)`` per playout, or ``None`` if it
            cannot play this game's parameters. The module also has ``warm_up()``.
    """

    game_type: type
    factory: str


_PLAYOUTS: dict[type, PlayoutEntry] = {}


def register_playout(entry: PlayoutEntry) -> None:
    """Register (or replace) the compiled playouts for ``entry.game_type``."""
    if not isinstance(entry, PlayoutEntry):
        raise OptionTypeError(
            f"register_playout expects a PlayoutEntry, got {type(entry).__name__}"
        )
    _PLAYOUTS[entry.game_type] = entry


def compiled_playout(game: Any, config: SearchConfig) -> Callable[[Any, Any], Any] | None:
    """The compiled playout for ``game``'s Python search, or ``None``: none is registered for
    its type, numba is missing, or ``config`` asks for something else (``backend="python"``,
    a ``rollout_depth`` cut-off, an evaluator)."""
    if config.backend == "python" or config.rollout_depth is not None:
        return None
    if config.evaluator is not None or not numba_available():
        return None
    for cls in type(game).__mro__:
        entry = _PLAYOUTS.get(cls)
        if entry is not None:
            module, _, name = entry.factory.partition(":")
            factory = getattr(importlib.import_module(module), name)
            playout: Callable[[Any, Any], Any] | None = factory(game, config.playout)
            return playout  # None where the factory cannot handle this game's parameters
    return None


def register_kernel(entry: KernelEntry) -> None:
    """Register (or replace) the kernel for ``entry.game_type``."""
    if not isinstance(entry, KernelEntry):
        raise OptionTypeError(f"register_kernel expects a KernelEntry, got {type(entry).__name__}")
    _KERNELS[entry.game_type] = entry


def registered_kernels() -> list[KernelEntry]:
    """Every registered kernel, in registration order."""
    return list(_KERNELS.values())


def kernel_entry(game: Any) -> KernelEntry | None:
    """The kernel registered for ``type(game)`` or its nearest base class, if any."""
    for cls in type(game).__mro__:
        entry = _KERNELS.get(cls)
        if entry is not None:
            return entry
    return None


@functools.cache
def numba_available() -> bool:
    """Whether numba can be imported (without importing it; looked up once per process)."""
    return importlib.util.find_spec("numba") is not None


def unsupported(game: Any, config: SearchConfig) -> str | None:
    """Why no kernel can run this search (a sentence), or ``None`` if one can."""
    if config.selection == "gumbel":
        return "Gumbel search (selection='gumbel') runs in the Python search only"
    if not numba_available():
        return "numba is not installed (pip install '.[fast]')"
    entry = kernel_entry(game)
    if entry is None:
        names = ", ".join(e.game_type.__name__ for e in _KERNELS.values()) or "none"
        return f"no compiled kernel for {type(game).__name__} (kernels: {names})"
    for name, wanted in entry.options.items():  # first: checking costs no import
        value = getattr(config, name)
        if value != wanted:
            return f"the compiled kernel needs {name}={wanted!r}, got {value!r}"
    if config.kernel_options and not entry.kernel_options:
        return (
            f"the compiled kernel for {type(game).__name__} takes no kernel_options, got "
            f"{dict(config.kernel_options)!r}"
        )
    return entry.supports(game)  # (the rule sets' checks import their numba modules)


def make_compiled_searcher(
    game: Any, budget: Budget, config: SearchConfig, seed: int | None = None
) -> Searcher:
    """The compiled searcher for ``game`` (``unsupported`` must have said ``None``)."""
    entry = kernel_entry(game)
    if entry is None:
        raise InvalidOptionError(f"no compiled kernel is registered for {type(game).__name__}")
    searcher: Searcher = entry.searcher_class()(game, budget, config, seed)
    return searcher


def warm_up() -> None:
    """Compile or load every registered kernel and playout now (a no-op without numba).

    Searchers load their kernel when built, outside any time budget; calling this ahead (in a
    pool worker's initializer, say) keeps even that out of a timed game.
    """
    if not numba_available():
        return
    paths = [e.searcher for e in _KERNELS.values()] + [e.factory for e in _PLAYOUTS.values()]
    paths.append("mcts_agents.compiled.ismcts_kernel:simulate")  # the card games' ISMCTS
    paths.append("mcts_agents.compiled.holdem_kernel:simulate")  # hold'em's ISMCTS
    for path in paths:
        importlib.import_module(path.partition(":")[0]).warm_up()
