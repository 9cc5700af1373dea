"""The Python side of the compiled Connect Four search: budgets, growth, reuse, the result."""

from __future__ import annotations

import random
from collections.abc import Hashable
from time import perf_counter
from typing import Any

import numpy as np

from mcts_agents.compiled import connect_four_kernel as kernel
from mcts_agents.compiled import entries
from mcts_agents.compiled.searcher import STOP_CHUNK_SECONDS, CompiledSearch, next_chunk
from mcts_agents.envs.games.connect_four import ConnectFour
from mcts_agents.errors import InvalidOptionError
from mcts_agents.search.config import Budget, SearchConfig
from mcts_agents.search.game import Game
from mcts_agents.search.result import ChildStats, Proven, SearchResult
from mcts_agents.search.searcher import (
    Progress,
    Searcher,
    StopCheck,
    check_room,
    most_visited_is_best,
    pick_child,
    proven_label,
    reporter,
    run_budget,
)

NO_LIMIT = 1 << 62
CHUNK_SECONDS = 0.001  # under a time limit, kernel calls last about this long


class CompiledConnectFour:
    """The ``Searcher`` of one ``ConnectFour`` game (``k == 4``) in the numba kernel.

    See ``connect_four_kernel`` for the node table. Arrays start small and double when full
    (``capacity``: initial nodes). Building one loads the kernel (``warm_up``). The search's
    random numbers come from ``random.Random(seed)``: 64 bits seed the kernel at each search.
    """

    def __init__(
        self,
        game: ConnectFour,
        budget: Budget,
        config: SearchConfig,
        seed: int | None = None,
        capacity: int = 1 << 12,
    ) -> None:
        self.game = game
        self.budget = budget
        self.config = config
        self.rng = random.Random(seed)
        layout = game.layout
        self.geometry = (layout.width, layout.height, layout.stride, layout.full, layout.bottom_row)
        self.meta = np.zeros(3, np.int64)  # nodes, edges, total path depth (see kernel)
        self.rng_state = np.ones(1, np.uint64)
        self.nd, self.ed, self.slots = _allocate(capacity, capacity * layout.width)
        self._root_key: Hashable = None
        self._chunk = 64
        self.should_stop: StopCheck | None = None  # see Searcher: checked between kernel calls
        self.on_progress: Progress | None = None  # see Searcher: reported between kernel calls
        warm_up()

    def __len__(self) -> int:
        return int(self.meta[0])

    def table_size(self) -> int:
        """Nodes stored in the kernel's table."""
        return len(self)

    def table_keys(self) -> list[Hashable]:
        """The stored positions, as states of the rules core."""
        return list(self.keys())

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
        node_row = sum(a.itemsize for a in self.nd)
        edge_row = sum(a.itemsize for a in self.ed)
        return len(self) * node_row + int(self.meta[1]) * edge_row + self.slots.nbytes

    def reset(self, seed: int | None = None) -> None:
        """Forget the node table (between games); reseed if ``seed`` is given."""
        self.meta[:] = 0
        self.slots[:] = -1
        self._root_key = None
        if seed is not None:
            self.rng.seed(seed)

    def keys(self) -> list[tuple[int, int, int, int]]:
        """The stored positions, as states of the rules core (for tests and inspection)."""
        return [self._state(int(self.nd[0][i]), int(self.nd[1][i])) for i in range(len(self))]

    # ------------------------------------------------------------------ search
    def search(self, game: Game, state: Any) -> SearchResult:
        """Search from the core state ``state`` (not terminal) of this searcher's game."""
        if game is not self.game and game != self.game:
            raise InvalidOptionError(
                f"this compiled search plays {self.game!r}, got {game!r}; build one per game "
                "with mcts_agents.make_searcher"
            )
        check_room(self.budget, len(self.game.legal_actions(state)))
        start = perf_counter()
        self.rng_state[0] = self.rng.getrandbits(64) | 1
        self.meta[2] = 0
        root, reused, pruned = self._prepare_root(state)
        time_limit = self.budget.time_limit
        max_nodes = self.budget.max_nodes or NO_LIMIT
        stop_when_full = self.budget.iterations is None and time_limit is None
        config = self.config
        decisive = config.playout == "decisive"

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
            done, status = kernel.run(
                self.nd, self.ed, self.slots, self.meta, self.rng_state, self.geometry,
                root, n, config.c, config.solver, decisive, max_nodes, stop_when_full,
            )  # fmt: skip
            if status == kernel.GROW_NODES:
                self._grow_nodes()
            elif status == kernel.GROW_EDGES:
                self._grow_edges()
            if chunked:  # keep each call near its target
                self._chunk = next_chunk(
                    self._chunk, status == kernel.DONE, perf_counter() - began, target
                )
            return int(done)

        iterations = run_budget(
            self.budget,
            config.final_move,
            start,
            simulate,
            solved=lambda: int(self.nd[3][root]) != kernel.UNKNOWN,
            robust_agrees=lambda: self._robust_agrees(root),
            table_size=self.__len__,
            should_stop=stop,
            progress=report,
        )
        return self._result(state, root, iterations, perf_counter() - start, reused, pruned)

    def _prepare_root(self, state: Any) -> tuple[int, int, int]:
        cur, mask = self.game.position(state)
        if not self.config.reuse:
            self.reset()
        nd = self.nd
        root = int(kernel.find(self.slots, nd[0], nd[1], cur, mask))
        if root < 0:
            self.reset()
            self._root_key = (cur, mask)
            root = int(kernel.add_node(nd, self.slots, self.meta, cur, mask, kernel.UNKNOWN, True))
            return root, 0, 0
        if self._root_key == (cur, mask):  # the same position again: nothing to prune
            return root, len(self), 0
        self._root_key = (cur, mask)
        before = len(self)
        kernel.reroot(nd, self.ed, self.slots, self.meta, cur, mask)
        root = int(kernel.find(self.slots, nd[0], nd[1], cur, mask))
        return root, len(self), before - len(self)

    def _grow_nodes(self) -> None:
        n = len(self)
        bigger = _allocate(2 * len(self.nd[0]), 0)[0]
        for old, new in zip(self.nd, bigger, strict=True):
            new[:n] = old[:n]
        self.nd = bigger
        self.slots = np.empty(2 * len(bigger[0]), np.int32)
        kernel.rehash(self.slots, bigger[0], bigger[1], n)

    def _grow_edges(self) -> None:
        used = int(self.meta[1])
        bigger = _allocate(0, 2 * len(self.ed[0]))[1]
        for old, new in zip(self.ed, bigger, strict=True):
            new[:used] = old[:used]
        self.ed = bigger

    # ------------------------------------------------------------------ the answer
    def _edges(self, node: int) -> range:
        first = int(self.nd[5][node])
        return range(first, first + int(self.nd[7][node])) if first >= 0 else range(0)

    def _edge_stats(self, node: int) -> tuple[list[int], list[float], list[Proven | None]]:
        """Visits, values and proven labels (mover's view) of ``node``'s expanded edges."""
        visits: list[int] = []
        values: list[float] = []
        labels: list[Proven | None] = []
        proven_col = self.nd[3]
        for e in self._edges(node):
            n = int(self.ed[2][e])
            proven = int(proven_col[self.ed[1][e]])
            visits.append(n)
            if proven != kernel.UNKNOWN:
                values.append(float(-proven))
                labels.append(proven_label((-proven, proven), 0))
            else:
                values.append(float(self.ed[3][e]) / n if n else 0.0)
                labels.append(None)
        return visits, values, labels

    def _robust_agrees(self, root: int) -> bool:
        visits, values, _ = self._edge_stats(root)
        return most_visited_is_best(visits, values)

    def _choose(self, node: int, rule: str) -> int:
        """The chosen edge of ``node``, by every searcher's rule (``searcher.pick_child``)."""
        visits, values, labels = self._edge_stats(node)
        return self._edges(node)[pick_child(visits, values, labels, rule)]

    def _result(
        self, state: Any, root: int, iterations: int, elapsed: float, reused: int, pruned: int
    ) -> SearchResult:
        nd, ed = self.nd, self.ed
        expanded = self._edges(root)
        visits, values, labels = self._edge_stats(root)
        if expanded:
            best_action = int(ed[0][self._choose(root, self.config.final_move)])
        else:  # no simulation ran (a tiny time budget): any legal action will do
            best_action = self.game.legal_actions(state)[0]
        stats = [
            ChildStats(int(ed[0][e]), visits[i], values[i], None, labels[i])
            for i, e in enumerate(expanded)
        ]
        first = int(nd[5][root])
        if first >= 0:  # the root's edges exist: the untried moves follow the expanded ones
            untried = range(first + len(expanded), first + int(nd[6][root]))
            stats += [ChildStats(int(ed[0][e]), 0, 0.0, None, None) for e in untried]
        stats.sort(key=lambda s: (-s.visits, s.action))
        proven = int(nd[3][root])
        total = sum(visits)
        if proven != kernel.UNKNOWN:
            root_value = float(proven)
        else:
            root_value = sum(float(ed[3][e]) for e in expanded) / total if total else 0.0
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
            proven=proven_label((proven, -proven), 0) if proven != kernel.UNKNOWN else None,
            to_play=self.game.to_play(state),
            backend="numba",
            mean_depth=int(self.meta[2]) / max(iterations, 1),
        )

    def _principal_variation(self, root: int, best_action: int, limit: int = 64) -> list[int]:
        line = [best_action]
        edge = next((e for e in self._edges(root) if self.ed[0][e] == best_action), None)
        node = int(self.ed[1][edge]) if edge is not None else -1
        while node >= 0 and self._edges(node) and len(line) < limit:
            e = self._choose(node, "visits")
            line.append(int(self.ed[0][e]))
            node = int(self.ed[1][e])
        return line

    def _state(self, cur: int, mask: int) -> tuple[int, int, int, int]:
        """The rules core's state for a stored position."""
        return self.game.state_from_position(cur, mask)


def connect_four_searcher(
    game: ConnectFour, budget: Budget, config: SearchConfig, seed: int | None = None
) -> Searcher:
    """Connect Four's compiled search: its own kernel for ``k == 4`` (faster), else the shared
    kernel (``search.CompiledSearch`` with ``connect_four_rules``)."""
    if game.k == 4:
        return CompiledConnectFour(game, budget, config, seed)
    return CompiledSearch(game, budget, config, seed)


_warm = False


def warm_up() -> None:
    """Compile (or load from numba's cache) every kernel function once per process.

    Runs at the first search of a game the kernel plays (about 0.3-0.6 s with numba's cache,
    some seconds to compile), outside the search's time budget; call it ahead to keep it out
    of a timed game altogether."""
    global _warm
    if _warm:
        return
    _warm = True
    entries.announce_compile("Connect Four", (kernel.run, kernel.reroot))
    game = ConnectFour()
    search = CompiledConnectFour(game, Budget(iterations=64), SearchConfig(), 0, capacity=16)
    state = game.initial_state()
    search.search(game, state)  # grows nodes and edges
    search.search(game, game.next_state(state, 3))  # re-roots


def _allocate(nodes: int, edges: int) -> tuple[tuple[np.ndarray, ...], tuple[np.ndarray, ...], Any]:
    """Node columns for ``nodes``, edge columns for ``edges``, an empty hash table (see kernel).

    The columns are uninitialised: the kernel writes every row before it reads it.
    """
    nd = (
        np.empty(nodes, np.int64),  # cur
        np.empty(nodes, np.int64),  # mask
        np.empty(nodes, np.int64),  # visits (int64: hours of search overflow int32)
        np.empty(nodes, np.int8),  # proven
        np.empty(nodes, np.int8),  # term
        np.empty(nodes, np.int32),  # first edge
        np.empty(nodes, np.int8),  # legal moves
        np.empty(nodes, np.int8),  # expanded
    )
    ed = (
        np.empty(edges, np.int8),  # action
        np.empty(edges, np.int32),  # child
        np.empty(edges, np.int64),  # visits
        np.empty(edges, np.float64),  # value sum
    )
    slots = np.full(2 * nodes, -1, np.int32)  # at most half full
    return nd, ed, slots
