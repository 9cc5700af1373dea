"""The Python side of Go's compiled tree search (``go_search``): budgets, tree reuse, the result.

``GoSearch`` is the ``Searcher`` that ``make_searcher`` gives a ``Go`` core (go_v0, and
PettingZoo's ``go_v5`` through the fast path) where ``backend`` allows a kernel: the whole
simulation in numba (selection, expansion with priors, heavy playouts, RAVE), the board copied
from the root each simulation. Its Go-specific settings are ``GoOptions`` (defaults chosen by
A/B matches, ``benchmarks/go.py --ab``; ``SearchConfig.kernel_options`` sets any of them, as
an agent spec's ``mcts:kernel.defend=1`` does); of ``SearchConfig`` it reads the final-move rule,
``reuse``, and the budget, and it needs ``selection="ucb1"`` with no evaluator: its exploration
constant is ``GoOptions.c`` on win rates in [0, 1] (``SearchConfig.c`` is tuned for plain UCT
on values in [-1, 1], too wide for RAVE with priors).

A search runs at least ``GoOptions.min_simulations`` simulations (1,000 by default, or the
iteration budget where that is smaller) whatever its clock or ``should_stop`` say: a move
chosen with (almost) no search would be the first of the root's children, a corner point; a
clock that ran out before the search began (a kernel loaded or compiled inside a move's time)
costs a move of about 0.04-0.1 s instead (``search`` logs a warning when it ran under a
tenth of the floor).

Tree reuse: after a search the tree is kept; the next search from a position two moves (or one
move) on, found among the stored children by playing them on the core, keeps that subtree;
anything else starts a new tree. Same seed, same searches: the kernel's generator is seeded
from ``random.Random(seed)`` at each search.
"""

from __future__ import annotations

import functools
import logging
import random
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, fields, replace
from time import perf_counter
from typing import Any

import numpy as np

from mcts_agents.checks import is_number
from mcts_agents.compiled import go_search as k
from mcts_agents.compiled.go_board import (
    action_of,
    board_from_core,
    cell_of,
    edges,
    offsets,
    zobrist,
)
from mcts_agents.compiled.go_patterns import pattern_table
from mcts_agents.compiled.tree_search import CHUNK_SECONDS, STOP_CHUNK_SECONDS, next_chunk
from mcts_agents.errors import InvalidOptionError, describe_unknown
from mcts_agents.search.config import Budget, SearchConfig
from mcts_agents.search.result import ChildStats, SearchResult
from mcts_agents.search.searcher import (
    Progress,
    StopCheck,
    check_room,
    most_visited_is_best,
    pick_child,
    reporter,
    run_budget,
)

__all__ = [
    "GoOptions",
    "GoSearch",
    "go_searcher",
    "kernel_options",
    "supports",
    "tables",
    "warm_up",
]

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class GoOptions:
    """Settings of Go's compiled search (see ``go_search`` for what each does).

    Attributes:
        rave: RAVE/AMAF in selection; ``equiv``: its equivalence parameter (``1 / (4 b^2)``).
        c: the exploration constant on win rates (0: none, the priors and RAVE explore);
            0.03 by default: 75 of 120 games against 0.1 at 3,000 and again at 15,000
            simulations a move (docs/benchmarks-history.md, runs 44 and 46).
        priors: tree priors (``even``, ``capture``, ``escape``, ``near``, ``edge``,
            ``self_atari``, ``eye``, ``pass_n``: virtual visits).
        heavy: heavy playouts (capture, escape, no self-atari) instead of the decisive ones.
        patterns: MoGo's 3x3 patterns next to the last move in the playouts.
        defend: in heavy playouts, save an own string in atari by capturing next to it, and
            lengthen an own string left with two liberties (Fuego's atari defence and low
            liberties); on by default: 86 of 120 games against it off at 3,000 simulations
            a move, Wilson [0.63, 0.79] (docs/benchmarks-history.md, run 34).
        ladders: read ladders (``go_ladder``): an extension out of atari that a ladder
            catches gets the self-atari's prior and is not played by the heavy playouts; an
            atari the string cannot get out of gets the capture's prior. On by default: 77
            of 120 games against it off at 3,000 simulations a move, Wilson [0.55, 0.72]
            (run 47), for about 14% fewer simulations a second on 9x9 (40% on 19x19,
            where its strength is not measured).
        expand: a leaf's visits before it is expanded (the root: at once).
        capacity: nodes the table holds (no more expansion when it is full).
        min_simulations: the fewest simulations a search runs, whatever its clock or
            ``should_stop`` say (at most the iteration budget): no move without a search.
    """

    rave: bool = True
    equiv: float = 1000.0
    c: float = 0.03
    priors: bool = True
    even: float = 10.0
    capture: float = 10.0
    escape: float = 10.0
    near: float = 5.0
    edge: float = 10.0
    self_atari: float = 20.0
    eye: float = 50.0
    pass_n: float = 20.0
    heavy: bool = True
    patterns: bool = True
    defend: bool = True
    ladders: bool = True
    expand: int = 2
    capacity: int = 1 << 22
    min_simulations: int = 1000

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if f.type in ("bool",) and not isinstance(value, bool):
                raise InvalidOptionError(f"GoOptions.{f.name} must be a bool, got {value!r}")
            if f.type in ("float", "int") and (
                isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0
            ):
                raise InvalidOptionError(f"GoOptions.{f.name} must be a number >= 0, got {value!r}")
        if self.equiv <= 0 or self.expand < 1 or self.capacity < 1024 or self.min_simulations < 1:
            raise InvalidOptionError(
                "GoOptions needs equiv > 0, expand >= 1, capacity >= 1024, min_simulations >= 1;"
                f" got {self!r}"
            )

    def with_(self, **changes: Any) -> GoOptions:
        return replace(self, **changes)

    def updated(self, options: Mapping[str, Any] | Iterable[tuple[str, Any]]) -> GoOptions:
        """These options with ``options`` (``SearchConfig.kernel_options``: names and values,
        as an agent spec's ``kernel.NAME=VALUE`` gives them) in place: a bool field takes a
        bool or 0/1, an int field an int, a float field a number; an unknown name or a value
        of another kind is refused, naming it."""
        given = dict(options.items() if isinstance(options, Mapping) else options)
        kinds = {f.name: str(f.type) for f in fields(self)}  # "bool", "int", "float"
        unknown = sorted(set(given) - set(kinds))
        if unknown:
            raise InvalidOptionError(
                f"unknown Go kernel option(s) {describe_unknown(unknown, kinds)}; "
                f"GoOptions' fields: {', '.join(kinds)}"
            )
        changes: dict[str, Any] = {}
        for name, value in given.items():
            kind = kinds[name]
            if kind == "bool" and value in (0, 1) and not isinstance(value, float):
                changes[name] = bool(value)
            elif kind == "int" and isinstance(value, int) and not isinstance(value, bool):
                changes[name] = value
            elif kind == "float" and is_number(value):
                changes[name] = float(value)
            else:
                raise InvalidOptionError(
                    f"Go kernel option {name}= must be {_KINDS[kind]}, got {value!r}"
                )
        return replace(self, **changes)


_KINDS = {"bool": "a bool (or 0/1)", "int": "an integer", "float": "a finite number"}


def supports(game: Any) -> str | None:
    """Every ``Go`` core (5x5 to 19x19, either ko rule) is played."""
    return None


def _seen(game: Any, state: Any) -> np.ndarray:
    """The hashes of ``state``'s earlier boards, sorted (none under simple ko)."""
    return np.array(sorted(state[6]), np.uint64) if game.superko else np.zeros(0, np.uint64)


def tables(game: Any) -> k.Tables:
    """The kernel's constant arrays for ``game``'s board size (and its Zobrist keys)."""
    size = game.size
    return k.Tables(offsets(size), zobrist(game), edges(size), pattern_table())


def kernel_options(game: Any, options: GoOptions) -> k.Options:
    """The kernel's ``Options`` of ``game`` (size, ko rule, komi) and ``options``."""
    named = {name: getattr(options, name) for name in k.Options._fields if hasattr(options, name)}
    return k.options(size=game.size, superko=game.superko, komi=game.komi, **named)


class GoSearch:
    """The ``Searcher`` of one ``Go`` game in the compiled tree search."""

    def __init__(
        self,
        game: Any,
        budget: Budget,
        config: SearchConfig,
        seed: int | None = None,
        options: GoOptions | None = None,
    ) -> None:
        self.game = game
        self.budget = budget
        self.config = config
        self.options = (options or GoOptions()).updated(config.kernel_options)
        self.rng = random.Random(seed)
        self.should_stop: StopCheck | None = None
        self.on_progress: Progress | None = None
        self.size = game.size
        self.tables = tables(game)
        self.opts = kernel_options(game, self.options)
        capacity = self.options.capacity
        if budget.max_nodes is not None:
            capacity = max(min(capacity, budget.max_nodes), game.num_actions + 1)
        self.capacity = capacity
        self.meta = np.zeros(3, np.int64)
        self.tree = k.allocate(capacity, self.meta)
        self.rng_state = np.ones(1, np.uint64)
        self._root_state: Any = None
        self._chunk = 64
        warm_up()

    # ------------------------------------------------------------------ Searcher
    def prepare(self, game: Any) -> None:
        """Nothing to prepare: the kernel loaded when the searcher was built."""

    def close(self) -> None:
        """Nothing to release."""

    def reset(self, seed: int | None = None) -> None:
        """Forget the tree; reseed if ``seed`` is given."""
        self.meta[:] = 0
        self._root_state = None
        if seed is not None:
            self.rng.seed(seed)

    def table_size(self) -> int:
        return int(self.meta[k.META_NODES])

    def table_keys(self) -> list[Any]:
        """The root's key and its children's (the tree has no transpositions to list)."""
        if self._root_state is None:
            return []
        game, state = self.game, self._root_state
        keys = [game.key(state)]
        for e in self._children(0):
            keys.append(game.key(game.next_state(state, self._action(e))))
        return keys

    # ------------------------------------------------------------------ search
    def _children(self, node: int) -> range:
        first = int(self.tree.ni[k.FIRST, node])
        return range(first, first + int(self.tree.ni[k.COUNT, node])) if first >= 0 else range(0)

    def _action(self, node: int) -> int:
        return action_of(int(self.tree.ni[k.MOVE, node]), self.size)

    def _child(self, node: int, action: int) -> int:
        cell = -1 if action == self.game.pass_action else cell_of(action, self.size)
        for e in self._children(node):
            if int(self.tree.ni[k.MOVE, e]) == cell:
                return e
        return -1

    def _reuse(self, state: Any) -> int:
        """Keep the subtree of ``state`` if it follows the last root by one or two stored
        moves; returns the nodes kept (0: a new tree)."""
        old = self._root_state
        self._root_state = state
        if old is None or not self.config.reuse or not self.table_size():
            return 0
        game = self.game
        target = state[:6]
        # the board after the first of the two moves: this one's (a pass), or its history's
        between = (state[0], state[1]) if state[4] else (state[7][0] if state[7] else None)
        found = 0 if old[:6] == target else -1
        for e in self._children(0):
            if found >= 0:
                break
            s1 = game.next_state(old, self._action(e))
            if s1[:6] == target:
                found = e
            elif s1[4] < 2 and between in (None, (s1[0], s1[1])):
                for e2 in self._children(e):
                    if game.next_state(s1, self._action(e2))[:6] == target:
                        found = e2
                        break
        if found < 0:
            return 0
        if found == 0:
            return self.table_size()
        to = k.allocate(self.capacity, self.meta)
        kept = int(k.subtree(self.tree, found, to))
        self.tree = to
        self.meta[k.META_NODES] = kept
        self.meta[k.META_FULL] = 0
        return kept

    def search(self, game: Any, state: Any) -> SearchResult:
        """Search from the core state ``state`` (not terminal) of this searcher's game."""
        if game is not self.game and game != self.game:
            raise InvalidOptionError(
                f"this compiled search plays {self.game!r}, got {game!r}; build one per game "
                "with mcts_agents.make_searcher"
            )
        if game.is_terminal(state):
            raise InvalidOptionError("cannot search a finished game")
        check_room(self.budget, len(game.legal_actions(state)))
        start = perf_counter()
        kept = self._reuse(state)
        if not kept:
            k.new_root(self.tree)
        self.rng_state[0] = self.rng.getrandbits(64) | 1
        self.meta[k.META_DEPTH] = 0
        board = board_from_core(game, state)
        seen = _seen(game, state)
        budget = self.budget
        stop = self.should_stop
        report = reporter(self.on_progress, lambda n: self._result(state, n, start, kept))
        chunked = budget.time_limit is not None or stop is not None or report is not None
        target = CHUNK_SECONDS * 10 if budget.time_limit is not None else STOP_CHUNK_SECONDS

        def simulate(cap: int | None) -> int:
            n = self._chunk if chunked else (cap or 1 << 30)
            if cap is not None:
                n = min(n, cap)
            began = perf_counter()
            done = int(k.run(self.tree, board, self.tables, self.opts, seen, self.rng_state, n))
            if chunked:
                self._chunk = next_chunk(self._chunk, True, perf_counter() - began, target)
            return done

        iterations = run_budget(
            budget,
            self.config.final_move,
            start,
            simulate,
            solved=lambda: False,
            robust_agrees=lambda: most_visited_is_best(*self._stats(0)[:2]),
            table_size=self.table_size,
            should_stop=stop,
            progress=report,
        )
        floor = min(self.options.min_simulations, budget.iterations or 1 << 62)
        if iterations < floor:  # stopped (almost) before it began: search the floor anyway
            log = logger.warning if iterations < floor // 10 else logger.debug
            log(
                "Go search stopped after %d simulations in %.2f s; running %d, the floor "
                "(GoOptions.min_simulations)",
                iterations,
                perf_counter() - start,
                floor,
            )
            chunked = False
            while iterations < floor:
                iterations += simulate(floor - iterations)
        return self._result(state, iterations, start, kept)

    # ------------------------------------------------------------------ the answer
    def _stats(self, node: int) -> tuple[list[int], list[float], list[int]]:
        """Visits, values (the mover's, in [-1, 1]) and node indices of ``node``'s children."""
        visits, values, nodes = [], [], []
        for e in self._children(node):
            n = int(self.tree.ni[k.N, e])
            visits.append(n)
            values.append(2.0 * float(self.tree.nf[k.W, e]) / n - 1.0 if n else 0.0)
            nodes.append(e)
        return visits, values, nodes

    def _pick(self, node: int, rule: str) -> int:
        visits, values, nodes = self._stats(node)
        if not nodes:
            return -1
        return nodes[pick_child(visits, values, [None] * len(nodes), rule)]

    def _by_prior(self, nodes: list[int]) -> int:
        """The child of best prior win rate (the priors' pick: no search yet), -1 for none."""
        nf = self.tree.nf
        rates = [float(nf[k.PW, e]) / max(float(nf[k.PN, e]), 1e-9) for e in nodes]
        return nodes[rates.index(max(rates))] if nodes else -1

    def _result(self, state: Any, iterations: int, start: float, kept: int) -> SearchResult:
        game = self.game
        visits, values, nodes = self._stats(0)
        best = self._pick(0, self.config.final_move)
        if best < 0 or not sum(visits):  # a progress report before any simulation
            best = self._by_prior(nodes)
            best_action = self._action(best) if best >= 0 else game.pass_action
        else:
            best_action = self._action(best)
        stats = [
            ChildStats(self._action(e), visits[i], values[i], None, None)
            for i, e in enumerate(nodes)
        ]
        stats.sort(key=lambda s: (-s.visits, s.action))
        total = sum(visits)
        root_value = (
            sum(float(self.tree.nf[k.W, e]) for e in nodes) * 2.0 / total - 1.0 if total else 0.0
        )
        line = [best_action]
        node = best
        while node >= 0 and self._children(node) and len(line) < 64:
            node = self._pick(node, "visits")
            if node < 0 or not self.tree.ni[k.N, node]:
                break
            line.append(self._action(node))
        return SearchResult(
            best_action=best_action,
            iterations=iterations,
            elapsed=perf_counter() - start,
            nodes=self.table_size(),
            reused_nodes=kept,
            pruned_nodes=0,
            children=tuple(stats),
            principal_variation=tuple(line),
            root_value=root_value,
            proven=None,
            to_play=game.to_play(state),
            backend="numba",
            mean_depth=int(self.meta[k.META_DEPTH]) / max(iterations, 1),
        )


def go_searcher(
    game: Any, budget: Budget, config: SearchConfig, seed: int | None = None
) -> GoSearch:
    """The registry's constructor: ``GoSearch`` with the default ``GoOptions``."""
    return GoSearch(game, budget, config, seed)


@functools.cache
def warm_up() -> None:
    """Compile (or load from numba's cache) the kernels once per process, outside any clock:
    a 5x5 search and a subtree kept, with the argument types a search passes."""
    from mcts_agents.envs.games.go import Go

    game = Go(5)
    state = game.next_state(game.initial_state(), 12)
    tree = k.allocate(1024, np.zeros(3, np.int64))
    k.new_root(tree)
    opts = kernel_options(game, GoOptions())
    board = board_from_core(game, state)
    k.run(tree, board, tables(game), opts, _seen(game, state), np.ones(1, np.uint64), 40)
    k.subtree(tree, int(tree.ni[k.FIRST, 0]), k.allocate(1024, tree.meta))
