"""Compiled search kernels (numba, the optional ``fast`` extra), registered per game type.

``mcts_agents.planner.factory.make_searcher`` hands a search to a kernel when
``SearchConfig.backend`` allows it (``"auto"``, the default, or ``"numba"``), numba is installed,
and a kernel is registered for the game's type and implements its parameters and the options;
everything else runs the Python search. A kernel runs the same algorithm as ``MCTS`` (UCB1, random
expansion order, the game's playouts, MCTS-Solver through transpositions, tree reuse with
reachability pruning, the same budgets and final-move rules) over a structure-of-arrays node table,
with its own random numbers: same seed, same result within a backend, not across backends.

Registered here, one kernel per game type of ``rules.RULE_SETS``, all through the one tree core
(``core``, ``tree``, ``dispatch``, ``searcher.CompiledSearch``): Connect Four, Othello up to
16x16, m,n,k for 2 to 4 players on up to 256 cells (tic-tac-toe, Gomoku 15x15, two stones per
turn), ultimate tic-tac-toe and Nim. The rule sets compile the rules cores' own bit functions
and tables where the cores have them. The core compiles per game (``entries``): a game's first
search compiles its rules only, after one logged warning where numba's cache does not hold it.

Information Set MCTS for two-player Kuhn poker and Leduc hold'em (``ismcts.CompiledISMCTS``,
over the cores' tables: ``card_tables``, ``ismcts_kernel``) and for rlcard's heads-up limit and
no-limit hold'em (``holdem_search.HoldemISMCTS``: ``holdem_tables``, ``holdem_kernel``, the hand
evaluator ``holdem_rank``) is chosen by ``planner.choice.local_searcher`` for those games, not
through this registry.

Compiled playouts for the Python search (``register_playout``; ``planner.choice.local_searcher``
hands them to ``MCTS`` where ``backend="auto"``): Pig (``rules.pig.pig_playout``), Othello up to
8x8 (``rules.othello.othello_playout``), Go 5x5 to 19x19 (``go_playout.go_playout``: incremental
strings, simple ko in the playouts; go_v0 and go_v5's fast path), and for Go's default
``playout="decisive"`` a whole compiled tree search (``go_searcher.GoSearch``: RAVE, priors,
heavy playouts, superko in the tree).
"""

from __future__ import annotations

from mcts_agents.compiled import registry
from mcts_agents.compiled.registry import *  # noqa: F403 (its names are this package's)
from mcts_agents.compiled.registry import (
    KernelEntry,
    PlayoutEntry,
    register_kernel,
    register_playout,
    registered_kernels,
)
from mcts_agents.compiled.rules import RULE_SETS
from mcts_agents.compiled.rules import supports as _supports
from mcts_agents.envs.games.go import Go
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

# One kernel per game type of ``rules.RULE_SETS`` (its first rule set names the searcher); its
# check asks the type's rule sets (``rules.supports``).
for _rules in RULE_SETS:
    if _rules.game_type not in {entry.game_type for entry in registered_kernels()}:
        register_kernel(KernelEntry(_rules.game_type, _rules.searcher, _supports, UCB1_PLAYOUTS))

register_playout(PlayoutEntry(Pig, "mcts_agents.compiled.rules.pig:pig_playout"))
register_playout(PlayoutEntry(Othello, "mcts_agents.compiled.rules.othello:othello_playout"))
register_playout(PlayoutEntry(Go, "mcts_agents.compiled.go_playout:go_playout"))
# Go's own tree search (go_search, go_searcher) for its default playouts; playout="random"
# keeps the Python tree with the compiled uniform playouts above.
register_kernel(
    KernelEntry(
        Go,
        "mcts_agents.compiled.go_searcher:go_searcher",
        lambda game: None,
        {**UCB1_PLAYOUTS, "playout": "decisive"},
        kernel_options=True,  # GoOptions (go_searcher)
    )
)

#: The registry's names: its ``__all__`` is the one list of them.
__all__ = registry.__all__
