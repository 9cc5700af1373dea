"""The compiled kernels by name, each compiled (or loaded from numba's cache) ahead of use:
``mcts-agents warm-up [NAME...]``.

``KERNELS`` names every kernel a search can compile: the tree core's rule sets (a pair of entry
points each: ``entries``), Go's tree search, and the compiled playouts and ISMCTS kernels.
``Kernel.cached()`` says whether numba's cache holds it already (read before its warm-up:
``entries.dispatchers_cached``); ``Kernel.warm_up()`` runs the kernel's own module's
``warm_up``. Nothing here imports numba until a kernel is asked about.
"""

from __future__ import annotations

import importlib
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from mcts_agents.compiled.rules import RULE_SETS
from mcts_agents.errors import InvalidOptionError, describe_unknown

__all__ = ["KERNELS", "Kernel", "kernel_for", "kernels_named", "warm_up_kernel"]


def _attribute(path: str) -> Any:
    module, _, name = path.partition(":")
    return getattr(importlib.import_module(module), name)


@dataclass(frozen=True)
class Kernel:
    """One compiled kernel.

    Attributes:
        name: its name on the command line.
        title: what it plays, in words.
        warm: ``"module:function"`` that compiles or loads it (``function()``).
        dispatchers: ``"module:name"`` of the numba functions a search calls (its cache),
            or, for a rule set of the tree core, ``None`` (``entries.is_cached``).
        game_id: the rule set's id (the tree core), else ``None``.
    """

    name: str
    title: str
    warm: str
    dispatchers: tuple[str, ...] = ()
    game_id: int | None = None

    def cached(self) -> bool:
        """Whether numba's cache (or this process) holds the kernel for these sources."""
        from mcts_agents.compiled import entries

        if self.game_id is not None:
            return entries.is_cached(self.game_id)
        return entries.dispatchers_cached([_attribute(path) for path in self.dispatchers])

    def warm_up(self) -> None:
        """Compile (or load) the kernel in this process."""
        if self.game_id is not None:
            from mcts_agents.compiled.searcher import warm_up

            [rules] = [one for one in RULE_SETS if one.game_id == self.game_id]
            warm_up(rules.example())
            return
        _attribute(self.warm)()


_C = "mcts_agents.compiled."
#: Every kernel, by name: the tree core's rule sets first.
KERNELS: tuple[Kernel, ...] = (
    *(Kernel(one.name, one.title, "", game_id=one.game_id) for one in RULE_SETS),
    Kernel("go", "Go's tree search", _C + "go_searcher:warm_up", (_C + "go_search:run",)),
    Kernel("go_playout", "Go's playouts", _C + "go_playout:warm_up", (_C + "go_playout:_run",)),
    Kernel(
        "othello_playout",
        "Othello's playouts",
        _C + "rules.othello:warm_up",
        (_C + "rules.othello:_playout_from",),
    ),
    Kernel("pig", "Pig's playouts", _C + "rules.pig:warm_up", (_C + "rules.pig:_playout",)),
    Kernel(
        "kuhn_leduc",
        "ISMCTS of Kuhn poker and Leduc hold'em",
        _C + "ismcts_kernel:warm_up",
        (_C + "ismcts_kernel:simulate",),
    ),
    Kernel(
        "holdem",
        "ISMCTS of limit and no-limit hold'em",
        _C + "holdem_kernel:warm_up",
        (_C + "holdem_kernel:simulate", _C + "holdem_kernel:rehash"),
    ),
)


def kernels_named(names: Iterable[str]) -> list[Kernel]:
    """The kernels of ``names`` in that order (every kernel for no name).

    Raises:
        InvalidOptionError: a name that is no kernel's (with the closest one's).
    """
    by_name = {kernel.name: kernel for kernel in KERNELS}
    names = list(dict.fromkeys(names))
    unknown = [name for name in names if name not in by_name]
    if unknown:
        raise InvalidOptionError(
            f"no compiled kernel named {describe_unknown(unknown, by_name)}; "
            f"the kernels: {', '.join(by_name)}"
        )
    return [by_name[name] for name in names] if names else list(KERNELS)


def warm_up_kernel(kernel: Kernel) -> float:
    """Compile or load ``kernel`` now; the seconds it took."""
    start = time.perf_counter()
    kernel.warm_up()
    return time.perf_counter() - start


def kernel_for(game: Any, config: Any) -> Kernel | None:
    """The kernel a search of ``game`` with ``config`` (a ``SearchConfig``) runs, or ``None``
    (the Python search: ``registry.unsupported`` said why)."""
    from mcts_agents.compiled.registry import unsupported
    from mcts_agents.compiled.rules import codec
    from mcts_agents.envs.games.go import Go

    if unsupported(game, config) is not None:
        return None
    by_name = {kernel.name: kernel for kernel in KERNELS}
    if isinstance(game, Go):
        return by_name["go"]
    game_id = codec(game).game_id
    return next((kernel for kernel in KERNELS if kernel.game_id == game_id), None)
