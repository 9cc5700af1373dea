"""Compiled search kernels (numba, the optional ``fast`` extra), registered per game type.

``mcts_agents.planner.factory.make_searcher`` hands a search to a kernel when
``SearchConfig.backend`` allows it (``"auto"``, the default, or ``"numba"``), numba is installed,
and a kernel is registered for the game's type and implements its parameters and the options;
everything else runs the Python search. A kernel runs the same algorithm as ``MCTS`` (UCB1, random
expansion order, the game's playouts, MCTS-Solver through transpositions, tree reuse with
reachability pruning, the same budgets and final-move rules) over a structure-of-arrays node table,
with its own random numbers: same seed, same result within a backend, not across backends.

Registered here: Connect Four with ``k == 4`` (``connect_four.CompiledConnectFour``, its own
kernel), and through the one kernel for every other game (``kernel``, ``games``,
``search.CompiledSearch``): Connect Four with other ``k``, Othello up to 16x16, m,n,k for 2 to 4
players on up to 256 cells (tic-tac-toe, Gomoku 15x15, two stones per turn), ultimate
tic-tac-toe and Nim. The kernels compile the rules cores' own bit functions and tables where
the cores have them. The shared kernel compiles per game (``entries``): a game's first search
compiles its rules only, after one logged warning where numba's cache does not hold it.

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
from mcts_agents.envs.games.mnk import MNK
from mcts_agents.envs.games.nim import Nim
from mcts_agents.envs.games.othello import Othello
from mcts_agents.envs.games.pig import Pig
from mcts_agents.envs.games.ultimate_tic_tac_toe import UltimateTicTacToe

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
    if layout.bits > 62:
        return (
            f"the compiled kernels play Connect Four with width * (height + 1) <= 62, "
            f"got width={layout.width}, height={layout.height}"
        )
    return None


register_kernel(
    KernelEntry(
        ConnectFour,
        "mcts_agents.compiled.connect_four_searcher:connect_four_searcher",
        _connect_four_supports,
        UCB1_PLAYOUTS,
    )
)


def _othello_supports(game: Any) -> str | None:
    if game.size > 16:  # the core's largest board: four words a bitboard (othello_wide)
        return f"the compiled kernel plays Othello up to 16x16, got size={game.size}"
    return None


def _mnk_supports(game: Any) -> str | None:
    if game.m * game.n > 256:
        return f"the compiled kernel plays m,n,k on up to 256 cells, got {game.m}x{game.n}"
    return None


def _nim_supports(game: Any) -> str | None:
    if len(game.piles) > 64 or game.num_actions * sum(game.piles) > 1 << 22:
        return (
            "the compiled kernel plays Nim with up to 64 piles and actions x chips <= 2**22, "
            f"got piles={game.piles}, max_take={game.max_take}"
        )
    return None


def _any(game: Any) -> str | None:
    return None


_SEARCH = "mcts_agents.compiled.searcher:CompiledSearch"
for _type, _supports in (
    (Othello, _othello_supports),
    (MNK, _mnk_supports),
    (UltimateTicTacToe, _any),
    (Nim, _nim_supports),
):
    register_kernel(KernelEntry(_type, _SEARCH, _supports, UCB1_PLAYOUTS))

register_playout(PlayoutEntry(Pig, "mcts_agents.compiled.rules.pig:pig_playout"))
register_playout(PlayoutEntry(Othello, "mcts_agents.compiled.rules.othello:othello_playout"))

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
