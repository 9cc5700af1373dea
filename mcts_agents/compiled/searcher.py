"""The Python side of the compiled search (``kernel``): budgets, growth, reuse, the result.

``CompiledSearch`` plays every game with compiled rules (``games``): Othello (up to 8x8 with one
word a bitboard, 10x10 to 16x16 with several), m,n,k for 2 to 4 players on up to 256 cells
(tic-tac-toe, Gomoku, two stones per turn), ultimate tic-tac-toe and Nim. ``codec(game)`` turns
the game's states into rows of int64 words and back.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from time import perf_counter
from typing import Any

import numpy as np

from mcts_agents.compiled import dispatch as games
from mcts_agents.compiled import entries, kernel
from mcts_agents.compiled.common import UNKNOWN, outcome_returns
from mcts_agents.compiled.rules import connect_four as connect_four_rules
from mcts_agents.compiled.rules import mnk as mnk_rules
from mcts_agents.compiled.rules import nim as nim_rules
from mcts_agents.compiled.rules import othello as othello_rules
from mcts_agents.compiled.rules import othello_wide as othello_wide_rules
from mcts_agents.compiled.rules import ultimate as ultimate_rules
from mcts_agents.envs.games.connect_four import ConnectFour
from mcts_agents.envs.games.mnk import MNK
from mcts_agents.envs.games.nim import Nim
from mcts_agents.envs.games.othello import Othello
from mcts_agents.envs.games.ultimate_tic_tac_toe import UltimateTicTacToe
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

NO_LIMIT = 1 << 62
CHUNK_SECONDS = 0.001  # under a time limit, kernel calls last about this long
STOP_CHUNK_SECONDS = 0.01  # with a should_stop (and no time limit), about this long


@dataclass(frozen=True)
class Codec:
    """How one game runs in the kernel.

    Attributes:
        game_id: its id in ``games``.
        params: its parameter words.
        words: words of a position.
        encode, decode: a core state to a list of words, and a row of words back.
        max_actions: the most legal moves of a position; max_depth: the most moves of a game.
        decisive: whether ``playout="decisive"`` changes its playouts (else they are uniform,
            as the Python search's for a game without ``decisive_rollout``).
        players: more than 2: the rules report outcome codes (see ``kernel.run``).
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


def codec(game: Any) -> Codec:
    """The ``Codec`` of ``game`` (the registry's check said the kernel plays it)."""
    if isinstance(game, ConnectFour):
        cells = game.width * game.height
        return Codec(
            games.CONNECT_FOUR, connect_four_rules.params(game), connect_four_rules.WORDS,
            lambda s: connect_four_rules.encode(game, s),
            lambda w: connect_four_rules.decode(game, w), game.width, cells,
            decisive=game.k == 4,
        )  # fmt: skip
    if isinstance(game, Othello) and game.size * game.size > othello_rules.MAX_SQUARES:
        cells = game.size * game.size
        return Codec(
            games.OTHELLO_WIDE, othello_wide_rules.params(game),
            3 * othello_wide_rules.words_per_board(game) + 1,
            lambda s: othello_wide_rules.encode(game, s),
            lambda w: othello_wide_rules.decode(game, w), cells + 1, 2 * cells + 2,
        )  # fmt: skip
    if isinstance(game, Othello):
        cells = game.size * game.size
        return Codec(
            games.OTHELLO, othello_rules.params(game), othello_rules.WORDS,
            othello_rules.encode, othello_rules.decode, cells + 1, 2 * cells + 2,
            decisive=True,  # corners first: the core's decisive_rollout (A/B: run 8)
        )  # fmt: skip
    if isinstance(game, MNK):  # uniform playouts: the kernel's decisive one lost its A/Bs
        cells = game.m * game.n
        return Codec(
            games.MNK, mnk_rules.params(game),
            game.num_players * mnk_rules.words_per_player(game) + 2,
            lambda s: mnk_rules.encode(game, s), lambda w: mnk_rules.decode(game, w),
            cells, cells, players=game.num_players,
        )  # fmt: skip
    if isinstance(game, UltimateTicTacToe):
        return Codec(
            games.ULTIMATE, ultimate_rules.params(game), ultimate_rules.WORDS,
            ultimate_rules.encode, ultimate_rules.decode, 81, 81,
            decisive=True,  # as the Python search plays the core's decisive_rollout
        )  # fmt: skip
    if isinstance(game, Nim):
        return Codec(
            games.NIM, nim_rules.params(game), len(game.piles) + 1, nim_rules.encode,
            nim_rules.decode, game.num_actions, sum(game.piles),
        )  # fmt: skip
    raise InvalidOptionError(f"the compiled kernel has no rules for {type(game).__name__}")


class CompiledSearch:
    """The ``Searcher`` of one game in the compiled kernel (see ``kernel`` for the table).

    Arrays start small and double when full (``capacity``: initial nodes). Building one loads
    the kernel for its game (``warm_up(game)``). The search's random numbers come from
    ``random.Random(seed)``: 64 bits seed the kernel at each search.
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
        self.rng = random.Random(seed)
        self.codec = codec(game)
        self.meta = np.zeros(3, np.int64)  # nodes, edges, total path depth (see kernel)
        self.rng_state = np.ones(1, np.uint64)
        self.nd, self.ed, self.slots = _allocate(self.codec.words, capacity, capacity * 2)
        self._root_key: Hashable = None
        self._chunk = 64
        self.should_stop: StopCheck | None = None  # see Searcher: checked between kernel calls
        self.on_progress: Progress | None = None  # see Searcher: reported between kernel calls
        warm_up(game)

    def __len__(self) -> int:
        return int(self.meta[0])

    def table_size(self) -> int:
        """Nodes stored in the kernel's table."""
        return len(self)

    def table_keys(self) -> list[Hashable]:
        """The stored positions, as states of the rules core."""
        decode = self.codec.decode
        return [decode(self.nd[0][i]) for i in range(len(self))]

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
        return len(self) * node_row + int(self.meta[1]) * edge_row + self.slots.nbytes

    def reset(self, seed: int | None = None) -> None:
        """Forget the node table (between games); reseed if ``seed`` is given."""
        self.meta[:] = 0
        self.slots[:] = -1
        self._root_key = None
        if seed is not None:
            self.rng.seed(seed)

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
        rules = self.codec
        decisive = config.playout == "decisive" and rules.decisive

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
            done, status = entries.run(
                rules.game_id, rules.params, self.nd, self.ed, self.slots, self.meta,
                self.rng_state, root, n, config.c, config.solver, decisive, max_nodes,
                stop_when_full, rules.max_actions, rules.max_depth, rules.players > 2,
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
            solved=lambda: int(self.nd[2][root]) != UNKNOWN,
            robust_agrees=lambda: self._robust_agrees(root),
            table_size=self.__len__,
            should_stop=stop,
            progress=report,
        )
        return self._result(state, root, iterations, perf_counter() - start, reused, pruned)

    def _prepare_root(self, state: Any) -> tuple[int, int, int]:
        rules = self.codec
        words = np.array(rules.encode(state), np.int64)
        key = tuple(words.tolist())
        if not self.config.reuse:
            self.reset()
        root = int(kernel.find(self.slots, self.nd[0], words))
        if root < 0:
            self.reset()
            self._root_key = key
            player = self.game.to_play(state)
            root = int(
                kernel.add_node(self.nd, self.slots, self.meta, words, UNKNOWN, player, True)
            )
            return root, 0, 0
        if self._root_key == key:  # the same position again: nothing to prune
            return root, len(self), 0
        self._root_key = key
        before = len(self)
        entries.reroot(rules.game_id, rules.params, self.nd, self.ed, self.slots, self.meta, words)
        root = int(kernel.find(self.slots, self.nd[0], words))
        return root, len(self), before - len(self)

    def _grow_nodes(self) -> None:
        n = len(self)
        bigger = _allocate(self.codec.words, 2 * len(self.nd[1]), 0)[0]
        for old, new in zip(self.nd, bigger, strict=True):
            new[:n] = old[:n]
        self.nd = bigger
        self.slots = np.empty(2 * len(bigger[1]), np.int32)
        kernel.rehash(self.slots, bigger[0], n)

    def _grow_edges(self) -> None:
        used = int(self.meta[1])
        size = max(2 * len(self.ed[0]), used + 2 * (self.codec.max_depth + 1))
        bigger = _allocate(self.codec.words, 0, size)[1]
        for old, new in zip(self.ed, bigger, strict=True):
            new[:used] = old[:used]
        self.ed = bigger

    # ------------------------------------------------------------------ the answer
    def _edges(self, node: int) -> list[int]:
        """``node``'s edges (its expanded moves), oldest first."""
        edges = []
        e = int(self.nd[5][node])
        following = self.ed[2]
        while e >= 0:
            edges.append(e)
            e = int(following[e])
        edges.reverse()
        return edges

    def _edge_stats(self, node: int) -> tuple[list[int], list[float], list[Proven | None]]:
        """Visits, values and proven labels (mover's view) of ``node``'s expanded edges."""
        visits: list[int] = []
        values: list[float] = []
        labels: list[Proven | None] = []
        proven_col, player_col = self.nd[2], self.nd[4]
        mover = int(player_col[node])
        for e in self._edges(node):
            n = int(self.ed[3][e])
            child = int(self.ed[1][e])
            proven = int(proven_col[child])
            visits.append(n)
            if proven != UNKNOWN and self.codec.players > 2:
                returns = outcome_returns(proven, self.codec.players)
                values.append(returns[mover])
                labels.append(proven_label(returns, mover))
            elif proven != UNKNOWN:
                value = proven if int(player_col[child]) == mover else -proven
                values.append(float(value))
                labels.append(proven_label((value, -value), 0))
            else:
                values.append(float(self.ed[4][e]) / n if n else 0.0)
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
        if int(nd[6][root]) >= 0:  # the root's moves were counted: list the untried ones
            tried = {int(ed[0][e]) for e in expanded}
            untried = [a for a in self.game.legal_actions(state) if a not in tried]
            stats += [ChildStats(a, 0, 0.0, None, None) for a in untried]
        stats.sort(key=lambda s: (-s.visits, s.action))
        proven = int(nd[2][root])
        total = sum(visits)
        player = self.game.to_play(state)
        players = self.codec.players
        returns: tuple[float, ...]
        if players > 2:
            returns = outcome_returns(proven, players) if proven != UNKNOWN else ()
        else:
            returns = (proven, -proven) if player == 0 else (-proven, proven)
        if proven != UNKNOWN:
            root_value = float(returns[player])
        else:
            root_value = sum(float(ed[4][e]) for e in expanded) / total if total else 0.0
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


def next_chunk(chunk: int, done: bool, took: float, target: float) -> int:
    """The simulations of a searcher's next kernel call, so that calls last about ``target``
    seconds: twice as many after a call that ran its count (``done``) in under half of it, half
    as many after one that took over twice it."""
    if done and took < target / 2:
        return min(chunk * 2, 1 << 16)
    if took > target * 2:
        return max(chunk // 2, 8)
    return chunk


_warm: set[int] = set()  # the game ids whose kernel this process has loaded


def warm_up(game: Any = None) -> None:
    """Compile (or load from numba's cache) the kernel for ``game``'s rules (every game's
    without one) once per process: a fraction of a second from numba's cache, seconds to tens
    of seconds to compile (a warning says so first, ``entries.announce``); outside any
    search's time budget."""
    chosen: list[Any] = (
        [game]
        if game is not None
        else [MNK(3, 3, 3), Othello(6), Othello(10), UltimateTicTacToe(), Nim(), ConnectFour(k=3)]
    )
    for one in chosen:
        rules = codec(one)
        if rules.game_id in _warm:
            continue
        _warm.add(rules.game_id)
        entries.announce(rules.game_id)
        search = CompiledSearch(one, Budget(iterations=64), SearchConfig(), 0, capacity=16)
        state = one.initial_state()
        search.search(one, state)  # grows nodes and edges
        following = (one.next_state(state, a) for a in one.legal_actions(state))
        after = next((s for s in following if not one.is_terminal(s)), None)
        if after is not None:  # (a game that every first move ends never re-roots)
            search.search(one, after)  # re-roots


def _allocate(
    words: int, nodes: int, edges: int
) -> tuple[tuple[np.ndarray, ...], tuple[np.ndarray, ...], Any]:
    """Node columns for ``nodes``, edge columns for ``edges``, an empty hash table (see kernel).

    The columns are uninitialised: the kernel writes every row before it reads it.
    """
    nd = (
        np.empty((nodes, words), np.int64),  # position
        np.empty(nodes, np.int64),  # visits (int64: hours of search overflow int32)
        np.empty(nodes, np.int8),  # proven
        np.empty(nodes, np.int8),  # term
        np.empty(nodes, np.int8),  # player to move
        np.empty(nodes, np.int32),  # first edge
        np.empty(nodes, np.int16),  # legal moves
        np.empty(nodes, np.int16),  # expanded
    )
    ed = (
        np.empty(edges, np.int16),  # action
        np.empty(edges, np.int32),  # child
        np.empty(edges, np.int32),  # next: the parent's previous edge
        np.empty(edges, np.int64),  # visits
        np.empty(edges, np.float64),  # value sum
    )
    slots = np.full(2 * nodes, -1, np.int32)  # at most half full
    return nd, ed, slots
