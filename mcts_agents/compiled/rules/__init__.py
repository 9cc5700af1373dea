"""The rule sets of the compiled tree core, one module a game, and the one list of them.

Each rule set module (``connect_four``, ``othello``, ``othello_wide``, ``mnk``, ``ultimate``,
``nim``) holds the game's ``@njit`` rules for the tree core (``core``; the protocol is in
``dispatch``: ``legal``, ``play``, ``to_play``, ``playout``, ``reachable``), may choose the
tree's edge layout (``EDGE_BLOCKS = True``: a node's legal moves as one block of edges, else a
list of the expanded ones; ``tree``'s docstring), may say ``RUNTIME_FREE = True`` (its functions
allocate nothing: ``dispatch`` calls them without numba's reference counting), ``ALTERNATES =
True`` (two players alternate at every move: the tree keeps no ``player`` column) and ``WORDS``
(the words of every position: the hash loops over a constant), all optional, and exports, for
the Python side:

    supports(game) -> str | None     ``None`` if it plays this game's parameters, else a
                                     sentence saying why not (reads only public attributes)
    codec(game, game_id) -> Codec    how the game's states become rows of int64 words and back

``RULE_SETS`` lists them; everything else follows from it: ``codec(game)`` picks the first rule
set of the game's type that supports it, ``compiled/__init__.py`` registers one kernel per
game type with ``supports`` below, ``dispatch`` maps the ids to the modules, ``entries`` makes
the core's compiled entry points of every id, and ``searcher.warm_up`` loads each one through
its ``example`` game. Nothing here imports numba: a rule set module is imported when asked.

To add a game:

1. write ``compiled/rules/<name>.py`` with the five ``@njit`` functions of ``dispatch``'s
   protocol and ``supports`` and ``codec`` (``common`` has the shared bit helpers);
2. add its ``RuleSet`` to ``RULE_SETS`` (a new ``game_id``; ``searcher`` only for a kernel of its
   own). That is all: the core compiles it on its first search (its entry points in
   ``entries`` are made from this list), and ``mcts_agents.make_searcher`` uses it for its game
   type where ``SearchConfig.backend`` allows.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import numpy as np

from mcts_agents.envs.games.connect_four import ConnectFour
from mcts_agents.envs.games.mnk import MNK
from mcts_agents.envs.games.nim import Nim
from mcts_agents.envs.games.othello import Othello
from mcts_agents.envs.games.ultimate_tic_tac_toe import UltimateTicTacToe
from mcts_agents.errors import InvalidOptionError

__all__ = ["RULE_SETS", "Codec", "RuleSet", "codec", "rule_set", "supports"]

#: The ``Searcher`` of the tree core (``registry.KernelEntry.searcher``).
SHARED_SEARCHER = "mcts_agents.compiled.searcher:CompiledSearch"


@dataclass(frozen=True)
class Codec:
    """How one game runs in the tree core.

    Attributes:
        game_id: its rule set's id (``RuleSet.game_id``).
        params: its parameter words.
        words: words of a position.
        encode, decode: a core state to a list of words, and a row of words back.
        max_actions: the most legal moves of a position; max_depth: the most moves of a game.
        decisive: whether ``playout="decisive"`` changes its playouts (else they are uniform,
            as the Python search's for a game without ``decisive_rollout``).
        players: more than 2: the rules report outcome codes (see ``core``).
    """

    game_id: int
    params: np.ndarray
    words: int
    encode: Callable[[Any], list[int]]
    decode: Callable[[Any], Any]
    max_actions: int
    max_depth: int
    decisive: bool = False
    players: int = 2


@dataclass(frozen=True)
class RuleSet:
    """One rule set of the tree core.

    Attributes:
        name: its module in this package.
        game_type: the rules core it plays (subclasses too).
        game_id: its id, the literal on which ``dispatch`` picks its rules (distinct, > 0).
        title: what the compile warning calls it.
        example: a small game of its type, which ``searcher.warm_up`` searches.
        searcher: ``"module:Class"`` of the game type's ``Searcher`` (the first rule set of a
            type gives it).
    """

    name: str
    game_type: type
    game_id: int
    title: str
    example: Callable[[], Any]
    searcher: str = SHARED_SEARCHER

    def module(self) -> ModuleType:
        """The rule set's module (imports numba)."""
        return importlib.import_module(f"{__name__}.{self.name}")


RULE_SETS: tuple[RuleSet, ...] = (
    RuleSet("connect_four", ConnectFour, 6, "Connect Four", ConnectFour),
    RuleSet("othello", Othello, 1, "Othello", lambda: Othello(6)),
    RuleSet("othello_wide", Othello, 5, "Othello 10x10 to 16x16", lambda: Othello(10)),
    RuleSet("mnk", MNK, 2, "m,n,k", lambda: MNK(3, 3, 3)),
    RuleSet("ultimate", UltimateTicTacToe, 3, "ultimate tic-tac-toe", UltimateTicTacToe),
    RuleSet("nim", Nim, 4, "Nim", Nim),
)  # fmt: skip


def rule_set(name: str) -> RuleSet:
    """The rule set of module ``name``."""
    for one in RULE_SETS:
        if one.name == name:
            return one
    raise InvalidOptionError(
        f"no compiled rule set is named {name!r} (rule sets: "
        f"{', '.join(one.name for one in RULE_SETS)})"
    )


def _choose(game: Any) -> tuple[RuleSet | None, str | None]:
    """The first rule set of ``game``'s type that plays it, or ``None`` and the last reason."""
    reason = None
    for one in RULE_SETS:
        if isinstance(game, one.game_type):
            reason = one.module().supports(game)
            if reason is None:
                return one, None
    return None, reason


def supports(game: Any) -> str | None:
    """``None`` if a rule set plays ``game``, else why not (the last of its type's reasons)."""
    chosen, reason = _choose(game)
    if chosen is None and reason is None:
        return f"the compiled kernel has no rules for {type(game).__name__}"
    return reason


def codec(game: Any) -> Codec:
    """The ``Codec`` of ``game`` (the registry's check said the kernel plays it)."""
    chosen, reason = _choose(game)
    if chosen is None:
        raise InvalidOptionError(
            reason or f"the compiled kernel has no rules for {type(game).__name__}"
        )
    result: Codec = chosen.module().codec(game, chosen.game_id)
    return result
