"""Compiled search kernels (numba, the optional ``fast`` extra) for some of our own games.

``MCTS`` hands a search to a kernel when ``SearchConfig.backend`` allows it (``"auto"``, the
default, or ``"numba"``), numba is installed, and the game and options are ones the kernel
implements; everything else runs in Python. A kernel runs the same algorithm as ``MCTS``
(UCB1, random expansion order, the game's playouts, MCTS-Solver through transpositions, tree
reuse with reachability pruning, the same budgets and final-move rules) over a
structure-of-arrays node table, with its own random numbers: same seed, same result within a
backend, not across backends.

Currently: Connect Four with ``k == 4`` (``connect_four.CompiledConnectFour``).
"""

from __future__ import annotations

import functools
import importlib.util
from typing import TYPE_CHECKING, Any

from mcts_agents.config import Budget, SearchConfig

if TYPE_CHECKING:
    from mcts_agents.compiled.connect_four import CompiledConnectFour


@functools.cache
def numba_available() -> bool:
    """Whether numba can be imported (without importing it; looked up once per process)."""
    return importlib.util.find_spec("numba") is not None


def unsupported(game: Any, config: SearchConfig) -> str | None:
    """Why no kernel can run this search (a sentence), or ``None`` if one can."""
    from mcts_agents.envs.games.connect_four import ConnectFour

    if not numba_available():
        return "numba is not installed (pip install 'mcts-agents[fast]')"
    if type(game) is not ConnectFour:
        return f"no compiled kernel for {type(game).__name__} (kernels: ConnectFour)"
    if game.k != 4 or game.width * (game.height + 1) > 62:
        return (
            f"the Connect Four kernel needs k == 4 and width * (height + 1) <= 62, "
            f"got width={game.width}, height={game.height}, k={game.k}"
        )
    options = {
        "selection": (config.selection, "ucb1"),
        "fpu": (config.fpu, None),
        "expand_all": (config.expand_all, False),
        "rollout_depth": (config.rollout_depth, None),
        "evaluator": (config.evaluator, None),
    }
    for name, (value, wanted) in options.items():
        if value != wanted:
            return f"the compiled kernel needs {name}={wanted!r}, got {value!r}"
    return None


def warm_up() -> None:
    """Load every compiled kernel now (see ``connect_four.warm_up``); no-op without numba."""
    if numba_available():
        from mcts_agents.compiled.connect_four import warm_up as load

        load()


def make_kernel_search(game: Any, budget: Budget, config: SearchConfig) -> CompiledConnectFour:
    """The compiled search for ``game`` (call ``unsupported`` first)."""
    from mcts_agents.compiled.connect_four import CompiledConnectFour

    return CompiledConnectFour(game, budget, config)
