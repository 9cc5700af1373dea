"""``InformationSetSearch``: the Python side that both compiled ISMCTS searchers share.

``ismcts.CompiledISMCTS`` (Kuhn and Leduc poker) and ``holdem_search.HoldemISMCTS`` (rlcard's
hold'em) are the same ``Searcher`` over two kernels: the checks of a search, the budget loop over
kernel calls (``CHUNK`` simulations a call under a time limit or a ``should_stop``, else up to
``1 << 16``), tree reuse, the fallback of a self-play that did not reach the decision, the
stored policy, the root's statistics and the ``SearchResult``, the seeds, and the node table's
bookkeeping live here. A subclass keeps its game's tables, its node table (``ismcts_core.Tree``),
how it finds a root and its row, and its kernel call.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Hashable
from dataclasses import replace
from time import perf_counter
from typing import TYPE_CHECKING, Any

import numpy as np

from mcts_agents.errors import InvalidOptionError, InvalidStateError
from mcts_agents.search.config import Budget, SearchConfig
from mcts_agents.search.ismcts import check_game
from mcts_agents.search.result import ChildStats, SearchResult
from mcts_agents.search.searcher import (
    Progress,
    StopCheck,
    check_room,
    game_identity,
    most_visited_is_best,
    pick_child,
    reporter,
    run_budget,
)

if TYPE_CHECKING:  # the core defines numba functions: imported with the kernel
    from mcts_agents.compiled.ismcts_core import Tree

__all__ = ["CHUNK", "OPTIONS", "InformationSetSearch", "option_problem", "unsupported_by"]

#: Simulations per compiled call under a time limit or a ``should_stop`` (under a millisecond
#: on Leduc); else up to ``1 << 16`` a call.
CHUNK = 1024
#: ``SearchConfig`` fields the compiled ISMCTS implements only at these values.
OPTIONS = {"rollout_depth": None, "evaluator": None, "selection": "ucb1", "fpu": None}


def option_problem(config: SearchConfig, searcher: str) -> str | None:
    """The first ``SearchConfig`` field (of ``OPTIONS``) that ``searcher`` (named in the
    sentence) does not implement at its value, as a sentence; ``None`` if there is none."""
    for name, wanted in OPTIONS.items():
        value = getattr(config, name)
        if value != wanted:
            return f"{searcher} needs {name}={wanted!r}, got {value!r}"
    return None


def unsupported_by(
    game: Any, config: SearchConfig, supports: Callable[[Any], str | None], searcher: str
) -> str | None:
    """Why ``searcher`` (its name in a sentence), which plays the games ``supports`` accepts,
    cannot run this search (a sentence), or ``None`` if it can."""
    from mcts_agents.compiled.registry import numba_available

    reason = supports(game)
    if reason is not None:
        return reason
    problem = option_problem(config, searcher)
    if problem is not None:
        return problem
    if not numba_available():
        return "numba is not installed (pip install '.[fast]')"
    return None


class InformationSetSearch:
    """A compiled Information Set MCTS; a ``Searcher`` (see the module docstring).

    A subclass sets ``NAME`` and implements ``unsupported``, ``_load`` (its kernel),
    ``_setup`` (its tables and its node table, ``_tree``), ``_locate`` (the root's key and
    what the kernel reads of the root), ``_slot`` (a stored key's row), ``_store`` (a root
    stored), ``_clear_table``, ``_simulate`` (one kernel call) and ``table_keys``; it may override
    ``_resolve`` (before each search), ``_open`` (after the table was kept or cleared) and
    ``_strategy`` (a policy other than the visits).

    Args:
        game: the rules core (``unsupported(game, config)`` must be ``None``).
        budget, config, seed: as ``search.ismcts.ISMCTS``'s.
    """

    #: the searcher, as messages name it
    NAME = "the compiled ISMCTS"
    _tree: Tree

    def __init__(
        self, game: Any, budget: Budget, config: SearchConfig, seed: int | None = None
    ) -> None:
        reason = self.unsupported(game, config)
        if reason is not None:
            raise InvalidOptionError(f"{self.NAME} cannot search {game!r}: {reason}")
        self._kernel = self._load()  # outside any search's clock
        self.budget = budget
        self.config = config
        self.should_stop: StopCheck | None = None
        self.on_progress: Progress | None = None
        self.single_observer = config.information == "so_ismcts"
        self.from_start = config.search_from == "start"
        self.rng = random.Random(seed)
        self._word = self._seed_word()
        self._game_id: Hashable = game_identity(game)
        self._root_key = -1
        self._meta = np.zeros(2, np.int64)
        self._root: tuple[Any, ...] = ()
        self._setup(game)

    def _seed_word(self) -> np.ndarray:
        """The kernel's generator state, drawn from the search's own generator."""
        return np.array([self.rng.getrandbits(64) | 1], np.uint64)

    # ------------------------------------------------------------------ what a subclass adds
    @staticmethod
    def unsupported(game: Any, config: SearchConfig) -> str | None:
        """Why this searcher cannot run this search (a sentence), or ``None`` if it can."""
        raise NotImplementedError

    def _load(self) -> Any:
        """The kernel's module, its kernel compiled or loaded from numba's cache now."""
        raise NotImplementedError

    def _setup(self, game: Any) -> None:
        """The searcher's own state for ``game``: its tables and node table, at least."""
        raise NotImplementedError

    def _locate(self, state: Any, player: int) -> tuple[int, tuple[Any, ...]]:
        """The key of ``player``'s information set in ``state`` (a search's root) and what the
        kernel reads of that root (``_root``, for ``_simulate``): all a search reads of the
        true state."""
        raise NotImplementedError

    def _slot(self, key: int) -> int:
        """The row of a stored ``key``, or -1."""
        raise NotImplementedError

    def _store(self, key: int) -> None:
        """Store ``key`` (not stored yet) as a node."""
        raise NotImplementedError

    def _clear_table(self) -> None:
        """An empty node table."""
        raise NotImplementedError

    def _simulate(self, n: int) -> int:
        """One kernel call of up to ``n`` simulations from the located root; how many ran."""
        raise NotImplementedError

    def table_keys(self) -> list[Hashable]:
        """The stored nodes' keys."""
        raise NotImplementedError

    def _resolve(self) -> None:
        """Settings read from the budget and config before each search (none here)."""

    def _open(self, start: float, player: int) -> None:
        """Ready the table and the kernel's settings for ``player``'s search that started at
        ``start`` (the table kept or cleared already)."""

    def _strategy(self, slot: int, legal: list[int]) -> list[float] | None:
        """The weights of a policy other than the visits at ``slot`` (none here)."""
        return None

    # ------------------------------------------------------------------ Searcher protocol
    def reset(self, seed: int | None = None) -> None:
        """Forget the table (between games); reseed if ``seed`` is given."""
        self._clear()
        if seed is not None:
            self.rng.seed(seed)
            self._word = self._seed_word()

    def _clear(self) -> None:
        self._clear_table()
        self._meta[0] = 0
        self._root_key = -1

    def table_size(self) -> int:
        """Information-set nodes stored."""
        return int(self._meta[0])

    def close(self) -> None:
        """Nothing to release."""

    def prepare(self, game: Any) -> None:
        """Nothing to prepare (the kernel loaded when the searcher was built)."""

    def search(self, game: Any, state: Any) -> SearchResult:
        """Search the decision of the player to move in ``state`` from its information set
        (or, with ``search_from="start"``, by self-play from the deal); reads of ``state`` only
        the public betting node, the mover's own cards and the public cards."""
        start = perf_counter()
        self._resolve()
        if game.is_chance(state):
            raise InvalidStateError(
                f"a search starts where a player is to move, got a chance node of {game!r}"
            )
        if game_identity(game) != self._game_id:
            raise InvalidOptionError(
                f"this compiled ISMCTS was built for {self._game_id!r}, got {game!r}"
            )
        check_game(game, self.from_start, "so_ismcts" if self.single_observer else "mo_ismcts")
        player = game.to_play(state)
        legal = list(game.legal_actions(state))
        check_room(self.budget, len(legal))
        root, self._root = self._locate(state, player)
        reused = self._prepare(root)
        self._open(start, player)
        if self._slot(root) < 0:
            self._store(root)
            self._meta[0] += 1
        self._meta[1] = 0
        timed = self.budget.time_limit is not None or self.should_stop is not None

        def simulate(cap: int | None) -> int:
            n = CHUNK if timed else 1 << 16
            if cap is not None:
                n = max(1, min(n, cap))
            return self._simulate(n)

        report = reporter(
            self.on_progress,
            lambda n: self._result(root, legal, player, n, perf_counter() - start, reused),
        )
        iterations = run_budget(
            self.budget,
            self.config.final_move,
            start,
            simulate,
            solved=lambda: False,
            robust_agrees=lambda: most_visited_is_best(*self._root_stats(root, legal)),
            table_size=self.table_size,
            should_stop=self.should_stop,
            progress=report,
        )
        if self.from_start and sum(self._root_stats(root, legal)[0]) < len(legal):
            return self._fallback(game, state, iterations, perf_counter() - start)
        return self._result(root, legal, player, iterations, perf_counter() - start, reused)

    def _prepare(self, root: int) -> int:
        """Keep or clear the table as ``ISMCTS`` does; returns the nodes kept. (Nodes that a
        re-rooted Python table would prune are kept here: no simulation from the new root can
        reach them, so the statistics are the same.)"""
        if not self.config.reuse or (
            not self.from_start and root != self._root_key and self._slot(root) < 0
        ):
            self._clear()
        self._root_key = root
        return self.table_size()

    def _fallback(self, game: Any, state: Any, iterations: int, spent: float) -> SearchResult:
        """As ``ISMCTS._fallback``: a search from here for a decision the self-play did not
        reach, with the same iteration budget or what is left of the time (at least a tenth)."""
        budget = self.budget
        if budget.time_limit is not None:
            budget = replace(budget, time_limit=max(budget.time_limit - spent,
                                                    budget.time_limit / 10))  # fmt: skip
        config = replace(self.config, search_from="here")
        here = type(self)(game, budget, config, self.rng.getrandbits(64))
        here.should_stop, here.on_progress = self.should_stop, self.on_progress
        result = here.search(game, state)
        return replace(result, iterations=result.iterations + iterations,
                       elapsed=result.elapsed + spent, search_from="here",
                       self_play_iterations=iterations)  # fmt: skip

    def stored_policy(self, game: Any, state: Any) -> dict[int, float] | None:
        """The policy stored at the information set of the player to move in ``state`` (the
        normalised visits, or regret matching's average strategy), without searching; ``None``
        where fewer visits than legal actions are stored (a search there would fall back).
        After a search from the start, the table holds the self-play's statistics at every
        information set it reached: what a search of the same seed and budget rooted at any of
        them reads (``benchmarks/imperfect.py`` scores a whole policy with one search this
        way)."""
        player = game.to_play(state)
        legal = list(game.legal_actions(state))
        root = self._locate(state, player)[0]
        if sum(self._root_stats(root, legal)[0]) < len(legal):
            return None
        return dict(zip(legal, self._policy(root, legal), strict=True))

    def _policy(self, root: int, legal: list[int]) -> list[float]:
        """The policy read at ``root``: the normalised visits, or the subclass's strategy."""
        shares = self._strategy(self._slot(root), legal)
        if shares is None:
            shares = [float(n) for n in self._root_stats(root, legal)[0]]
        total = sum(shares)
        if total <= 0.0:
            return [1.0 / len(legal)] * len(legal)
        return [x / total for x in shares]

    # ------------------------------------------------------------------ the answer
    def _root_stats(self, root: int, legal: list[int]) -> tuple[list[int], list[float]]:
        """The visits and mean values of ``legal`` at the node of ``root`` (none stored: 0)."""
        slot = self._slot(root)
        tree = self._tree
        visits, values = [], []
        for action in legal:
            n = int(tree.edge_n[slot, action]) if slot >= 0 else 0
            visits.append(n)
            values.append(float(tree.edge_w[slot, action]) / n if n else 0.0)
        return visits, values

    def _result(
        self, root: int, legal: list[int], player: int, iterations: int, elapsed: float,
        reused: int,
    ) -> SearchResult:  # fmt: skip
        visits, values = self._root_stats(root, legal)
        improved: tuple[tuple[int, float], ...] = ()
        if sum(visits) and self._strategy(self._slot(root), legal) is not None:
            improved = tuple(zip(legal, self._policy(root, legal), strict=True))
        if any(visits):
            best = legal[pick_child(visits, values, [None] * len(legal), self.config.final_move)]
        else:
            best = legal[0]
        stats = zip(legal, visits, values, strict=True)
        children = sorted(
            (ChildStats(a, n, v, None, None) for a, n, v in stats),
            key=lambda c: (-c.visits, c.action),
        )
        total = sum(visits)
        root_value = (
            sum(v * n for v, n in zip(values, visits, strict=True)) / total if total else 0.0
        )
        return SearchResult(
            best_action=best,
            iterations=iterations,
            elapsed=elapsed,
            nodes=self.table_size(),
            reused_nodes=reused,
            pruned_nodes=0,
            children=tuple(children),
            principal_variation=(best,),
            root_value=root_value,
            proven=None,
            to_play=player,
            backend="numba",
            mean_depth=float(self._meta[1]) / max(1, iterations),
            information="so_ismcts" if self.single_observer else "mo_ismcts",
            search_from="start" if self.from_start else "here",
            improved_policy=improved,
        )
