"""The Python side both compiled searchers share: budgets, table growth, reuse, the result.

``KernelSearcher`` runs a kernel (``kernel`` for every game with compiled rules,
``connect_four_kernel`` for Connect Four with ``k == 4``) over its node table: it seeds the
kernel's generator at each search, finds or re-roots the root (tree reuse with reachability
pruning), calls the kernel in chunks sized by ``next_chunk`` under a time limit or a
``should_stop`` (else in one call), grows the arrays when the kernel asks, and builds the
``SearchResult`` (``_result``, the one place that builds it). A subclass names its kernel module
(``kernel``: the table's column names ``NODE_*``/``EDGE_*``, the status codes) and says how a
position is stored, found, added and re-rooted, how the arrays are made, and how a node's edges
are listed.
"""

from __future__ import annotations

import random
from collections.abc import Hashable, Sequence
from time import perf_counter
from types import ModuleType
from typing import Any

import numpy as np

from mcts_agents.compiled.common import (
    META_DEPTH,
    META_EDGES,
    META_NODES,
    UNKNOWN,
    meta_table,
    outcome_returns,
)
from mcts_agents.errors import InvalidOptionError
from mcts_agents.search.config import Budget, SearchConfig
from mcts_agents.search.game import Game
from mcts_agents.search.result import ChildStats, Proven, SearchResult
from mcts_agents.search.searcher import (
    Progress,
    StopCheck,
    check_room,
    most_visited_is_best,
    pick_child,
    proven_label,
    reporter,
    run_budget,
)

__all__ = ["CHUNK_SECONDS", "NO_LIMIT", "STOP_CHUNK_SECONDS", "KernelSearcher", "next_chunk"]

NO_LIMIT = 1 << 62
CHUNK_SECONDS = 0.001  # under a time limit, kernel calls last about this long
STOP_CHUNK_SECONDS = 0.01  # with a should_stop (and no time limit), about this long

Tables = tuple[tuple[np.ndarray, ...], tuple[np.ndarray, ...], Any]


def next_chunk(chunk: int, done: bool, took: float, target: float) -> int:
    """The simulations of a searcher's next kernel call, so that calls last about ``target``
    seconds: twice as many after a call that ran its count (``done``) in under half of it, half
    as many after one that took over twice it."""
    if done and took < target / 2:
        return min(chunk * 2, 1 << 16)
    if took > target * 2:
        return max(chunk // 2, 8)
    return chunk


class KernelSearcher:
    """A ``Searcher`` over a compiled kernel's node table (see the module's docstring).

    The search's random numbers come from ``random.Random(seed)``: 64 bits seed the kernel at
    each search. Arrays start small and double when full.
    """

    #: The kernel module: its functions, status codes and column names.
    kernel: ModuleType
    #: Players of the game (more than 2: the kernel's proofs are outcome codes).
    players: int = 2

    def __init__(
        self, game: Any, budget: Budget, config: SearchConfig, seed: int | None, tables: Tables
    ) -> None:
        self.game = game
        self.budget = budget
        self.config = config
        self.rng = random.Random(seed)
        self.meta = meta_table()
        self.rng_state = np.ones(1, np.uint64)
        self.nd, self.ed, self.slots = tables
        self._root_key: Hashable = None
        self._chunk = 64
        self.should_stop: StopCheck | None = None  # see Searcher: checked between kernel calls
        self.on_progress: Progress | None = None  # see Searcher: reported between kernel calls

    # ------------------------------------------------------------------ what a kernel defines
    def _allocate(self, nodes: int, edges: int) -> Tables:
        """The kernel's node and edge columns and an empty hash table (uninitialised rows)."""
        raise NotImplementedError

    def _rehash(self, n: int) -> None:
        """Fill ``self.slots`` with nodes ``0..n-1``."""
        raise NotImplementedError

    def _position(self, state: Any) -> tuple[Hashable, Any]:
        """The kernel's position of a core state, and a hashable key of it."""
        raise NotImplementedError

    def _find(self, position: Any) -> int:
        """The node of ``position``, or -1."""
        raise NotImplementedError

    def _add_root(self, position: Any, state: Any) -> int:
        """Store ``position`` (the core state ``state``) as a new, unsolved node."""
        raise NotImplementedError

    def _reroot(self, position: Any) -> None:
        """Keep only the nodes that can still occur after ``position``."""
        raise NotImplementedError

    def _run(self, root: int, n: int, max_nodes: int, stop_when_full: bool) -> tuple[int, int]:
        """Up to ``n`` simulations from ``root`` in the kernel: ``(done, status)``."""
        raise NotImplementedError

    def _decisive(self) -> bool:
        """Whether the kernel plays decisive playouts in this search."""
        raise NotImplementedError

    def _edges(self, node: int) -> Sequence[int]:
        """``node``'s expanded edges, oldest first."""
        raise NotImplementedError

    def _same_mover(self, node: int, child: int) -> bool:
        """Whether ``child``'s player to move is ``node``'s (two players)."""
        raise NotImplementedError

    def _untried(self, root: int, state: Any, expanded: Sequence[int]) -> list[int]:
        """The root's counted moves without an edge (``[]`` before they are counted)."""
        raise NotImplementedError

    def _state(self, node: int) -> Any:
        """The rules core's state of a stored node."""
        raise NotImplementedError

    # ------------------------------------------------------------------ the table
    def __len__(self) -> int:
        return int(self.meta[META_NODES])

    def table_size(self) -> int:
        """Nodes stored in the kernel's table."""
        return len(self)

    def table_keys(self) -> list[Hashable]:
        """The stored positions, as states of the rules core."""
        return [self._state(i) for i in range(len(self))]

    def close(self) -> None:
        """Nothing to release (the arrays go with the object)."""

    def prepare(self, game: Game) -> None:
        """Nothing to prepare: the kernel loaded when the searcher was built."""

    @property
    def nbytes(self) -> int:
        """Bytes held by the node table's arrays (capacity, not just the nodes in use)."""
        return sum(a.nbytes for a in (*self.nd, *self.ed, self.slots))

    @property
    def used_bytes(self) -> int:
        """Bytes of the rows in use: the stored nodes, their edges, and the hash table."""
        node_row = sum(a.itemsize * (a.shape[1] if a.ndim == 2 else 1) for a in self.nd)
        edge_row = sum(a.itemsize for a in self.ed)
        edges = int(self.meta[META_EDGES])
        return len(self) * node_row + edges * edge_row + self.slots.nbytes

    def reset(self, seed: int | None = None) -> None:
        """Forget the node table (between games); reseed if ``seed`` is given."""
        self.meta[:] = 0
        self.slots[:] = -1
        self._root_key = None
        if seed is not None:
            self.rng.seed(seed)

    def _grow(self, status: int) -> None:
        """Grow the arrays the kernel's ``status`` asks for (if any)."""
        if status == self.kernel.GROW_NODES:
            n = len(self)
            bigger = self._allocate(2 * len(self.nd[self.kernel.NODE_VISITS]), 0)[0]
            for old, new in zip(self.nd, bigger, strict=True):
                new[:n] = old[:n]
            self.nd = bigger
            self.slots = np.empty(2 * len(bigger[self.kernel.NODE_VISITS]), np.int32)
            self._rehash(n)
        elif status == self.kernel.GROW_EDGES:
            used = int(self.meta[META_EDGES])
            bigger = self._allocate(0, self._grown_edges(used))[1]
            for old, new in zip(self.ed, bigger, strict=True):
                new[:used] = old[:used]
            self.ed = bigger

    def _grown_edges(self, used: int) -> int:
        """The edge rows after a growth (``used`` in use): twice as many."""
        return 2 * len(self.ed[self.kernel.EDGE_CHILD])

    # ------------------------------------------------------------------ search
    def check_game(self, game: Game) -> None:
        """Raise ``InvalidOptionError`` unless ``game`` is this searcher's game."""
        if game is not self.game and game != self.game:
            raise InvalidOptionError(
                f"this compiled search plays {self.game!r}, got {game!r}; build one per game "
                "with mcts_agents.make_searcher"
            )

    def begin(self, state: Any) -> tuple[int, int, int]:
        """Seed the kernel's generator and find or re-root the root of ``state``:
        ``(root, reused nodes, pruned nodes)`` (every search starts so, batched or not)."""
        self.rng_state[0] = self.rng.getrandbits(64) | 1
        self.meta[META_DEPTH] = 0
        position_key, position = self._position(state)
        if not self.config.reuse:
            self.reset()
        root = self._find(position)
        if root < 0:
            self.reset()
            self._root_key = position_key
            return self._add_root(position, state), 0, 0
        if self._root_key == position_key:  # the same position again: nothing to prune
            return root, len(self), 0
        self._root_key = position_key
        before = len(self)
        self._reroot(position)
        root = self._find(position)
        return root, len(self), before - len(self)

    def solved(self, root: int) -> bool:
        """Whether the solver proved ``root``."""
        return int(self.nd[self.kernel.NODE_PROVEN][root]) != UNKNOWN

    def search(self, game: Game, state: Any) -> SearchResult:
        """Search from the core state ``state`` (not terminal) of this searcher's game."""
        self.check_game(game)
        check_room(self.budget, len(self.game.legal_actions(state)))
        start = perf_counter()
        root, reused, pruned = self.begin(state)
        time_limit = self.budget.time_limit
        max_nodes = self.budget.max_nodes or NO_LIMIT
        stop_when_full = self.budget.iterations is None and time_limit is None
        stop = self.should_stop
        report = reporter(
            self.on_progress,
            lambda n: self._result(state, root, n, perf_counter() - start, reused, pruned),
        )
        # else one call runs the budget:
        chunked = time_limit is not None or stop is not None or report is not None
        target = CHUNK_SECONDS if time_limit is not None else STOP_CHUNK_SECONDS
        done_code = self.kernel.DONE

        def simulate(cap: int | None) -> int:
            n = self._chunk if chunked else NO_LIMIT
            if cap is not None:
                n = min(n, cap)
            began = perf_counter()
            done, status = self._run(root, n, max_nodes, stop_when_full)
            self._grow(status)
            if chunked:  # keep each call near its target
                self._chunk = next_chunk(
                    self._chunk, status == done_code, perf_counter() - began, target
                )
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

    # ------------------------------------------------------------------ the answer
    def _edge_stats(self, node: int) -> tuple[list[int], list[float], list[Proven | None]]:
        """Visits, values and proven labels (mover's view) of ``node``'s expanded edges."""
        visits: list[int] = []
        values: list[float] = []
        labels: list[Proven | None] = []
        k = self.kernel
        proven_col = self.nd[k.NODE_PROVEN]
        ed_child, ed_visits = self.ed[k.EDGE_CHILD], self.ed[k.EDGE_VISITS]
        ed_value = self.ed[k.EDGE_VALUE]
        players = self.players
        for e in self._edges(node):
            n = int(ed_visits[e])
            child = int(ed_child[e])
            proven = int(proven_col[child])
            visits.append(n)
            if proven != UNKNOWN and players > 2:
                returns = outcome_returns(proven, players)
                mover = self._mover(node)
                values.append(returns[mover])
                labels.append(proven_label(returns, mover))
            elif proven != UNKNOWN:
                value = proven if self._same_mover(node, child) else -proven
                values.append(float(value))
                labels.append(proven_label((value, -value), 0))
            else:
                values.append(float(ed_value[e]) / n if n else 0.0)
                labels.append(None)
        return visits, values, labels

    def _mover(self, node: int) -> int:
        """The player to move at ``node`` (games of more than two players)."""
        return int(self.nd[self.kernel.NODE_PLAYER][node])

    def _robust_agrees(self, root: int) -> bool:
        visits, values, _ = self._edge_stats(root)
        return most_visited_is_best(visits, values)

    def _choose(self, node: int, rule: str) -> int:
        """The chosen edge of ``node``, by every searcher's rule (``searcher.pick_child``)."""
        visits, values, labels = self._edge_stats(node)
        return self._edges(node)[pick_child(visits, values, labels, rule)]

    def best_action(self, state: Any, root: int) -> int:
        """The move the final-move rule picks at ``root`` (any legal one before a simulation:
        a tiny time budget)."""
        if not self._edges(root):
            return int(self.game.legal_actions(state)[0])
        return int(self.ed[self.kernel.EDGE_ACTION][self._choose(root, self.config.final_move)])

    def _result(
        self, state: Any, root: int, iterations: int, elapsed: float, reused: int, pruned: int
    ) -> SearchResult:
        """The ``SearchResult`` of a search from ``root`` (both kernels', batched or not)."""
        k = self.kernel
        ed_action, ed_value = self.ed[k.EDGE_ACTION], self.ed[k.EDGE_VALUE]
        expanded = self._edges(root)
        visits, values, labels = self._edge_stats(root)
        best_action = self.best_action(state, root)
        stats = [
            ChildStats(int(ed_action[e]), visits[i], values[i], None, labels[i])
            for i, e in enumerate(expanded)
        ]
        stats += [ChildStats(a, 0, 0.0, None, None) for a in self._untried(root, state, expanded)]
        stats.sort(key=lambda s: (-s.visits, s.action))
        proven = int(self.nd[k.NODE_PROVEN][root])
        total = sum(visits)
        depth = int(self.meta[META_DEPTH])
        player = self.game.to_play(state)
        returns: tuple[float, ...]
        if self.players > 2:
            returns = outcome_returns(proven, self.players) if proven != UNKNOWN else ()
        else:
            returns = (proven, -proven) if player == 0 else (-proven, proven)
        if proven != UNKNOWN:
            root_value = float(returns[player])
        else:
            root_value = sum(float(ed_value[e]) for e in expanded) / total if total else 0.0
        return SearchResult(
            best_action=best_action,
            iterations=iterations,
            elapsed=elapsed,
            nodes=len(self),
            reused_nodes=reused,
            pruned_nodes=pruned,
            children=tuple(stats),
            principal_variation=tuple(self._principal_variation(root, best_action)),
            root_value=root_value,
            proven=proven_label(returns, player) if proven != UNKNOWN else None,
            to_play=player,
            backend="numba",
            mean_depth=depth / max(iterations, 1),
        )

    def _principal_variation(self, root: int, best_action: int, limit: int = 64) -> list[int]:
        ed_action, ed_child = self.ed[self.kernel.EDGE_ACTION], self.ed[self.kernel.EDGE_CHILD]
        line = [best_action]
        edge = next((e for e in self._edges(root) if ed_action[e] == best_action), None)
        node = int(ed_child[edge]) if edge is not None else -1
        while node >= 0 and self._edges(node) and len(line) < limit:
            e = self._choose(node, "visits")
            line.append(int(ed_action[e]))
            node = int(ed_child[e])
        return line


def warm_up_searcher(searcher: KernelSearcher) -> None:
    """Search ``searcher``'s game from its start (growing nodes and edges from a tiny table),
    then from a position one move on (re-rooting): the kernel's functions all run once."""
    game = searcher.game
    state = game.initial_state()
    searcher.search(game, state)
    following = (game.next_state(state, a) for a in game.legal_actions(state))
    after = next((s for s in following if not game.is_terminal(s)), None)
    if after is not None:  # (a game that every first move ends never re-roots)
        searcher.search(game, after)
