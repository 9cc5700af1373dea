"""The Python side of the compiled tree search (``core``): one game's rules and tree.

``CompiledSearch`` plays every game with compiled rules (``rules.RULE_SETS``): Connect Four (any
``k`` whose board fits a word), Othello (up to 8x8 with one word a bitboard, 10x10 to 16x16 with
several), m,n,k for 2 to 4 players on up to 256 cells (tic-tac-toe, Gomoku, two stones per
turn), ultimate tic-tac-toe and Nim. ``codec(game)`` (``rules.codec``) turns the game's states
into rows of int64 words and back. It holds one ``tree.Tree`` and its ``tree.Options``; each
search seeds the core's generator and finds or re-roots the root (``core.begin``), calls
``core.search_tree`` in chunks sized by ``tree_search.next_chunk`` under a time limit or a
``should_stop`` (else in one call), grows the tree when the core asks, and builds the
``SearchResult`` (``tree_search.TreeResults``, the one place that builds it). ``compiled.batch``
and ``compiled.board_search`` run the same phases over many of these trees at once.
"""

from __future__ import annotations

import random
from time import perf_counter
from typing import Any

import numpy as np

from mcts_agents.compiled import dispatch, entries
from mcts_agents.compiled.common import META_EDGES, META_NODES, UNKNOWN
from mcts_agents.compiled.core import DONE, GROW_EDGES, GROW_NODES
from mcts_agents.compiled.rules import RULE_SETS, Codec, codec
from mcts_agents.compiled.tree import (
    EDGE_COLUMNS,
    NARROW_ACTIONS,
    NODE_COLUMNS,
    Options,
    allocate,
    forget,
    grown,
)
from mcts_agents.compiled.tree_search import (
    CHUNK_SECONDS,
    NO_LIMIT,
    STOP_CHUNK_SECONDS,
    TreeResults,
    next_chunk,
)
from mcts_agents.errors import InvalidOptionError
from mcts_agents.search.config import Budget, SearchConfig
from mcts_agents.search.game import Game
from mcts_agents.search.result import SearchResult
from mcts_agents.search.searcher import Progress, StopCheck, check_room, reporter, run_budget

__all__ = ["Codec", "CompiledSearch", "codec", "warm_up", "warm_up_searcher"]


class CompiledSearch(TreeResults):
    """The ``Searcher`` of one game in the compiled tree core (see ``tree`` for the record).

    Arrays start small and double when full (``capacity``: initial nodes). Building one loads
    the core for its game (``warm_up(game)``). The search's random numbers come from
    ``random.Random(seed)``: 64 bits seed the core at each search.
    """

    def __init__(
        self,
        game: Any,
        budget: Budget,
        config: SearchConfig,
        seed: int | None = None,
        capacity: int = 1 << 12,
    ) -> None:
        self.game = game
        self.budget = budget
        self.config = config
        self.codec = codec(game)
        self.players = self.codec.players
        game_id = self.codec.game_id
        self.blocks = dispatch.blocks(game_id)
        #: Whether the two players alternate at every move (the tree has no ``player`` rows).
        self.alternates = dispatch.alternates(game_id)
        if dispatch.words(game_id) not in (0, self.codec.words):  # a rule set's own mistake
            raise InvalidOptionError(
                f"the rule set of {game!r} says WORDS = {dispatch.words(game_id)}, its codec "
                f"{self.codec.words}"
            )
        #: The edges one simulation may open (a block a node with ``blocks``, else one).
        self.headroom = (self.codec.max_depth + 1) * (self.codec.max_actions if self.blocks else 1)
        edges = capacity * (self.codec.max_actions if self.blocks else 2)
        narrow = self.codec.max_actions <= NARROW_ACTIONS
        self.tree = allocate(
            self.codec.words, capacity, edges, self.blocks, self.alternates, narrow
        )
        self.rng = random.Random(seed)
        self._options: Any = None
        self._options_of: tuple[Any, ...] = ()
        self._chunk = 64
        self.should_stop: StopCheck | None = None  # see Searcher: checked between core calls
        self.on_progress: Progress | None = None  # see Searcher: reported between core calls
        warm_up(game)

    @property
    def options(self) -> Any:
        """The core's ``Options`` of this searcher's budget, config and codec (made again when
        one of them is replaced)."""
        of = (self.budget, self.config, self.codec)
        if self._options is None or any(
            a is not b for a, b in zip(of, self._options_of, strict=True)
        ):
            config, rules, budget = self.config, self.codec, self.budget
            self._options_of = of
            self._options = Options(
                float(config.c), bool(config.solver), self._decisive(), bool(config.reuse),
                int(budget.max_nodes or NO_LIMIT),
                budget.iterations is None and budget.time_limit is None,
                int(rules.max_actions), int(rules.max_depth), rules.players > 2,
                int(budget.iterations or 0), config.final_move == "value", rules.params,
            )  # fmt: skip
        return self._options

    def _decisive(self) -> bool:
        """Whether the core plays decisive playouts in this search."""
        return self.config.playout == "decisive" and self.codec.decisive

    # ------------------------------------------------------------------ the table
    @property
    def meta(self) -> np.ndarray:
        """The tree's ``meta`` words (``common.META_*``)."""
        return self.tree.meta

    def __len__(self) -> int:
        return int(self.tree.meta[META_NODES])

    def table_size(self) -> int:
        """Nodes stored in the tree."""
        return len(self)

    def table_keys(self) -> list[Any]:
        """The stored positions, as states of the rules core."""
        return [self._state(i) for i in range(len(self))]

    def close(self) -> None:
        """Nothing to release (the arrays go with the object)."""

    def prepare(self, game: Game) -> None:
        """Nothing to prepare: the core loaded when the searcher was built."""

    @property
    def nbytes(self) -> int:
        """Bytes held by the tree's node, edge and hash columns (capacity, not just the rows
        in use)."""
        names = (*NODE_COLUMNS, *EDGE_COLUMNS, "slots")
        return sum(getattr(self.tree, name).nbytes for name in names)

    def _columns(self, names: tuple[str, ...]) -> tuple[str, ...]:
        """The columns of ``names`` this layout fills (blocks: no ``next``; players who
        alternate: no ``player``)."""
        return tuple(name for name in names if len(getattr(self.tree, name)))

    @property
    def used_bytes(self) -> int:
        """Bytes of the rows in use: the stored nodes, their edges, and the hash table."""
        tree = self.tree
        node_row = sum(getattr(tree, name).itemsize for name in self._columns(NODE_COLUMNS))
        node_row += tree.states.itemsize * (tree.states.shape[1] - 1)
        edge_row = sum(getattr(tree, name).itemsize for name in self._columns(EDGE_COLUMNS))
        edges = int(tree.meta[META_EDGES])
        return len(self) * node_row + edges * edge_row + tree.slots.nbytes

    def reset(self, seed: int | None = None) -> None:
        """Forget the tree (between games; its hash slots cleared by the next search's
        ``core.begin``); reseed if ``seed`` is given."""
        forget(self.tree)
        if seed is not None:
            self.rng.seed(seed)

    def _grow(self, status: int) -> None:
        """Grow the tree as the core's ``status`` asks (if it does): every column copied."""
        tree = self.tree
        if status == GROW_NODES:
            self.tree = grown(tree, 2 * len(tree.visits), len(tree.child))
        elif status == GROW_EDGES:
            used = int(tree.meta[META_EDGES])
            edges = max(2 * len(tree.child), used + 2 * self.headroom)
            self.tree = grown(tree, len(tree.visits), edges)

    # ------------------------------------------------------------------ search
    def check_game(self, game: Game) -> None:
        """Raise ``InvalidOptionError`` unless ``game`` is this searcher's game."""
        if game is not self.game and game != self.game:
            raise InvalidOptionError(
                f"this compiled search plays {self.game!r}, got {game!r}; build one per game "
                "with mcts_agents.make_searcher"
            )

    def begin(self, state: Any) -> tuple[int, int, int]:
        """Seed the core's generator and find, add or re-root the root of ``state``
        (``core.begin``): ``(root, reused nodes, pruned nodes)`` (every search starts so,
        batched or not)."""
        seed = np.uint64(self.rng.getrandbits(64))
        words = np.array(self.codec.encode(state), np.int64)
        return entries.begin(self.codec.game_id, self.tree, self.options, words, seed)

    def solved(self, root: int) -> bool:
        """Whether the solver proved ``root``."""
        return int(self.tree.proven[root]) != UNKNOWN

    def _run(self, root: int, n: int) -> tuple[int, int]:
        """Up to ``n`` simulations from ``root`` in the core: ``(done, status)``."""
        return entries.search(self.codec.game_id, self.tree, self.options, root, n)

    def search(self, game: Game, state: Any) -> SearchResult:
        """Search from the core state ``state`` (not terminal) of this searcher's game."""
        self.check_game(game)
        check_room(self.budget, len(self.game.legal_actions(state)))
        start = perf_counter()
        root, reused, pruned = self.begin(state)
        time_limit = self.budget.time_limit
        stop = self.should_stop
        report = reporter(
            self.on_progress,
            lambda n: self._result(state, root, n, perf_counter() - start, reused, pruned),
        )
        # else one call runs the budget:
        chunked = time_limit is not None or stop is not None or report is not None
        target = CHUNK_SECONDS if time_limit is not None else STOP_CHUNK_SECONDS

        def simulate(cap: int | None) -> int:
            n = self._chunk if chunked else NO_LIMIT
            if cap is not None:
                n = min(n, cap)
            began = perf_counter()
            done, status = self._run(root, n)
            self._grow(status)
            if chunked:  # keep each call near its target
                took = perf_counter() - began
                self._chunk = next_chunk(self._chunk, status == DONE, took, target)
            return int(done)

        iterations = run_budget(
            self.budget,
            self.config.final_move,
            start,
            simulate,
            solved=lambda: self.solved(root),
            robust_agrees=lambda: self._robust_agrees(root),
            table_size=self.__len__,
            should_stop=stop,
            progress=report,
        )
        return self._result(state, root, iterations, perf_counter() - start, reused, pruned)

    def _state(self, node: int) -> Any:
        return self.codec.decode(self.tree.states[node])


_warm: set[int] = set()  # the game ids whose core this process has loaded


def warm_up_searcher(searcher: CompiledSearch) -> None:
    """Search ``searcher``'s game from its start (growing nodes and edges from a tiny table),
    then from a position one move on (re-rooting): the core's functions all run once."""
    game = searcher.game
    state = game.initial_state()
    searcher.search(game, state)
    following = (game.next_state(state, a) for a in game.legal_actions(state))
    after = next((s for s in following if not game.is_terminal(s)), None)
    if after is not None:  # (a game that every first move ends never re-roots)
        searcher.search(game, after)


def warm_up(game: Any = None) -> None:
    """Compile (or load from numba's cache) the core for ``game``'s rules (every rule set's
    without one) once per process: a fraction of a second from numba's cache, seconds to tens
    of seconds to compile (a warning says so first, ``entries.announce``); outside any
    search's time budget."""
    chosen = [game] if game is not None else [one.example() for one in RULE_SETS]
    for one in chosen:
        rules = codec(one)
        if rules.game_id in _warm:
            continue
        _warm.add(rules.game_id)
        entries.announce(rules.game_id)
        searcher = CompiledSearch(one, Budget(iterations=64), SearchConfig(), 0, capacity=16)
        warm_up_searcher(searcher)
