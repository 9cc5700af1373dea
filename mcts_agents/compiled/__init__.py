"""Compiled search kernels (numba, the optional ``fast`` extra), registered per game type.

``mcts_agents.factory.make_searcher`` hands a search to a kernel when ``SearchConfig.backend``
allows it (``"auto"``, the default, or ``"numba"``), numba is installed, and a kernel is
registered for the game's type and implements its parameters and the options; everything else
runs the Python search. A kernel runs the same algorithm as ``MCTS`` (UCB1, random expansion
order, the game's playouts, MCTS-Solver through transpositions, tree reuse with reachability
pruning, the same budgets and final-move rules) over a structure-of-arrays node table, with its
own random numbers: same seed, same result within a backend, not across backends.

Registered here: Connect Four with ``k == 4`` (``connect_four.CompiledConnectFour``). A kernel
reads a game only through the rules core's public layout (``ConnectFour.layout``,
``position``, ``state_from_position``) and compiles the core's own bit functions.

Compiled playouts for the Python search (``register_playout``; ``backends.local_searcher``
hands them to ``MCTS`` where ``backend="auto"``): Pig (``pig.pig_playout``), Othello up to 8x8
(``othello.othello_playout``).
"""

from __future__ import annotations

from typing import Any

from mcts_agents.compiled.registry import (
    KernelEntry,
    PlayoutEntry,
    compiled_playout,
    kernel_entry,
    make_compiled_searcher,
    numba_available,
    register_kernel,
    register_playout,
    registered_kernels,
    unsupported,
    warm_up,
)
from mcts_agents.envs.games.connect_four import ConnectFour
from mcts_agents.envs.games.othello import Othello
from mcts_agents.envs.games.pig import Pig

#: ``SearchConfig`` fields the kernels implement only at these values.
UCB1_PLAYOUTS = {
    "selection": "ucb1",
    "fpu": None,
    "expand_all": False,
    "rollout_depth": None,
    "evaluator": None,
}


def _connect_four_supports(game: Any) -> str | None:
    layout = game.layout
    if layout.k != 4 or layout.bits > 62:
        return (
            f"the Connect Four kernel needs k == 4 and width * (height + 1) <= 62, "
            f"got width={layout.width}, height={layout.height}, k={layout.k}"
        )
    return None


register_kernel(
    KernelEntry(
        ConnectFour,
        "mcts_agents.compiled.connect_four:CompiledConnectFour",
        _connect_four_supports,
        UCB1_PLAYOUTS,
    )
)

register_playout(PlayoutEntry(Pig, "mcts_agents.compiled.pig:pig_playout"))
register_playout(PlayoutEntry(Othello, "mcts_agents.compiled.othello:othello_playout"))

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
