"""``CompiledISMCTS``: Information Set MCTS of ``search.ismcts`` compiled for Kuhn and Leduc poker
(two players; Leduc with OpenSpiel's rules or rlcard's, the core of PettingZoo's
``leduc_holdem_v4``).

The same algorithm and options as the Python ``ISMCTS`` (multiple or single observer, Smooth UCT,
``search_from="here"`` or ``"start"`` with the same fallback, tree reuse, budgets, final-move
rules, the same ``SearchResult``), with the rules read from the cores' tables
(``card_tables``) and the simulations in one compiled loop (``ismcts_kernel``): tens of times
the Python search's simulations per second. Its random numbers are its own (same seed, same
result within this backend, not across backends). ``planner.choice.local_searcher`` picks it
for these games where ``SearchConfig.backend`` allows (``"auto"``, ``"numba"``) and numba is
installed; every other hidden-information game runs the Python ``ISMCTS``.

One addition of its own: ``search_from="auto"`` where it plays from the start on a game of at
most ``AUTO_MATCHING_KEYS`` keys (Kuhn and Leduc poker) plays regret-matching self-play instead
of Smooth UCT (regret matching plus with sampled values corrected by baselines per history,
regrets weighted by the opponent's sigma / q, linear averaging; see ``ismcts_kernel``), and the
policy it returns (``SearchResult.improved_policy``, which ``SearchResult.policy`` gives, and
``stored_policy``) is its average strategy.

The search reads the true state only through the player to move's own card, the public card and
the public betting node: the opponent's card never reaches the kernel.
"""

from __future__ import annotations

import random
from collections.abc import Hashable
from dataclasses import replace
from time import perf_counter
from typing import Any

import numpy as np

from mcts_agents.compiled.card_tables import CardTables, card_tables, root_of, supports
from mcts_agents.envs.games.kuhn_poker import KuhnPoker
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

__all__ = ["CompiledISMCTS", "unsupported", "warm_up"]

#: Simulations per compiled call under a time limit or a ``should_stop`` (under a millisecond
#: on Leduc); else up to ``1 << 16`` a call.
CHUNK = 1024
#: ``search_from="auto"``: Smooth UCT self-play from the start with these settings (each only
#: where the config leaves ``smooth`` at None or ``c`` at its default): the floor of the UCB
#: probability (gamma), the exploration constant and the schedule's decay (d in
#: ``eta = max(gamma, 0.9 / (1 + d sqrt(N)))``). Measured on Leduc in ``docs/benchmarks.md``.
AUTO_SMOOTH = 0.1
AUTO_C = 0.8
AUTO_D = 0.003
#: ``search_from="auto"`` on Leduc: self-play from the start needs this budget to beat a search
#: from here (measured: 1.16 against 0.56 at 10k simulations, 0.47 against 0.45 at 100k, 0.19 at
#: 1M); a time limit of ``AUTO_LEAST_SECONDS`` is about that many simulations.
AUTO_LEAST = 100_000
AUTO_LEAST_SECONDS = 0.025
#: ``search_from="auto"`` on a game of at most this many information-set keys (Kuhn poker: 704;
#: Leduc: 18,032, rlcard's 5,824) plays regret-matching self-play from the start instead of
#: Smooth UCT (its history baselines take the cards + 1 times the key space): each
#: simulation one sampled game that updates regrets at the information sets it visits with
#: sampled values corrected by baselines, the average strategy read as the policy
#: (``docs/benchmarks.md`` run 25: Kuhn 0.028 -> 0.009 at 10k simulations, 0.065 -> 0.035 at
#: 1k, 0.003 -> 0.0008 at 1M, equal at 300; Leduc 0.088 -> 0.036 with 1 s a decision).
AUTO_MATCHING_KEYS = 100_000
#: its exploration (the share of uniform play mixed into the regret-matching strategy), value
#: estimate (2: with baselines) and flags (15: regret matching plus, linear averaging, baselines
#: per history, regrets weighted by the opponent's sigma / q); see ``ismcts_kernel``
MATCH_EXPLORE = 0.2
MATCH_VALUES = 2
MATCH_FLAVOUR = 15
DEFAULT_C = SearchConfig().c
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


def unsupported(game: Any, config: SearchConfig) -> str | None:
    """Why the compiled ISMCTS cannot run this search (a sentence), or ``None`` if it can."""
    from mcts_agents.compiled.registry import numba_available

    reason = supports(game)
    if reason is not None:
        return reason
    problem = option_problem(config, "the compiled ISMCTS")
    if problem is not None:
        return problem
    if not numba_available():
        return "numba is not installed (pip install '.[fast]')"
    return None


def _seed_word(rng: random.Random) -> np.ndarray:
    return np.array([rng.getrandbits(64) | 1], np.uint64)


class CompiledISMCTS:
    """Compiled Information Set MCTS over Kuhn (two players) or Leduc poker; a ``Searcher``.

    Args:
        game: the rules core (``unsupported(game, config)`` must be ``None``).
        budget, config, seed: as ``search.ismcts.ISMCTS``'s.
    """

    def __init__(
        self, game: Any, budget: Budget, config: SearchConfig, seed: int | None = None
    ) -> None:
        reason = unsupported(game, config)
        if reason is not None:
            raise InvalidOptionError(f"the compiled ISMCTS cannot search {game!r}: {reason}")
        from mcts_agents.compiled import ismcts_kernel

        ismcts_kernel.warm_up()  # loaded now, outside any search's clock
        self._kernel = ismcts_kernel.simulate
        self.budget = budget
        self.config = config
        self.should_stop: StopCheck | None = None
        self.on_progress: Progress | None = None
        self.single_observer = config.information == "so_ismcts"
        self.auto = config.search_from == "auto"
        self.from_start = config.search_from == "start"
        #: ``search_from="auto"`` plays from the start at this budget or more (Kuhn: any)
        self._least = (0, 0.0) if isinstance(game, KuhnPoker) else (AUTO_LEAST, AUTO_LEAST_SECONDS)
        self.rng = random.Random(seed)
        self._word = _seed_word(self.rng)
        self._tables: CardTables = card_tables(game)
        self._game_id: Hashable = game_identity(game)
        self._root_key = -1
        t = self._tables
        size, actions = t.keys, t.child.shape[1]
        self._exists = np.zeros(size, np.int8)
        self._visits = np.zeros(size, np.int64)
        self._edge_n = np.zeros((size, actions), np.int64)
        self._edge_w = np.zeros((size, actions), np.float64)
        self._avail = np.zeros((size, actions), np.int64)
        #: regret matching's tables, allocated only where ``search_from="auto"`` can use it
        small = t.keys <= AUTO_MATCHING_KEYS
        self._small = small
        rows = size if small else 1
        self._regret = np.zeros((rows, actions))
        self._average = np.zeros((rows, actions))
        self._base_n = np.zeros((rows * (t.cards + 1), actions))
        self._base_w = np.zeros((rows * (t.cards + 1), actions))
        self._meta = np.zeros(2, np.int64)
        self._eta, self._decay = ismcts_kernel.SMOOTH_ETA, ismcts_kernel.SMOOTH_D
        self._opts_f = np.zeros(7)
        self._matching = 0
        self._resolve()

    def _resolve(self) -> None:
        """Where this search starts and its Smooth UCT settings. ``search_from="auto"``: from
        the start with the tuned schedule when the budget allows enough self-play (a budget of
        ``AUTO_LEAST`` simulations or ``AUTO_LEAST_SECONDS``; any in Kuhn poker), else from
        here with the config's settings; on a small game (``AUTO_MATCHING_KEYS``) regret
        matching instead of Smooth UCT. The table is cleared when that changes."""
        config, budget = self.config, self.budget
        start = config.search_from == "start"
        if self.auto:
            least, seconds = self._least
            if budget.iterations is not None:
                start = budget.iterations >= least
            else:
                start = budget.time_limit is None or budget.time_limit >= seconds
        matching = int(self.auto and start and self._small and not self.single_observer)
        if (start != self.from_start or matching != self._matching) and self.table_size():
            self._clear()
        self.from_start, self._matching = start, matching
        smooth = -1.0 if config.smooth is None else float(config.smooth)
        c, decay = config.c, self._decay
        if self.auto and start:  # Smooth UCT's schedule tuned on Leduc (docs/benchmarks.md)
            smooth = AUTO_SMOOTH if config.smooth is None else smooth
            c = AUTO_C if config.c == DEFAULT_C else c
            decay = AUTO_D
        t = self._tables
        self._opts_f[:] = [c, smooth, t.low, t.high, self._eta, decay, MATCH_EXPLORE]

    # ------------------------------------------------------------------ Searcher protocol
    def reset(self, seed: int | None = None) -> None:
        """Forget the table (between games); reseed if ``seed`` is given."""
        self._clear()
        if seed is not None:
            self.rng.seed(seed)
            self._word = _seed_word(self.rng)

    def _clear(self) -> None:
        for array in (self._exists, self._visits, self._edge_n, self._edge_w, self._avail,
                      self._regret, self._average, self._base_n, self._base_w):  # fmt: skip
            array.fill(0)
        self._meta[0] = 0
        self._root_key = -1

    def table_size(self) -> int:
        """Information-set nodes stored."""
        return int(self._meta[0])

    def table_keys(self) -> list[Hashable]:
        """Their keys, as ints (see ``card_tables``)."""
        return [int(k) for k in np.flatnonzero(self._exists)]

    def close(self) -> None:
        """Nothing to release."""

    def prepare(self, game: Any) -> None:
        """Nothing to prepare (the kernel loaded when the searcher was built)."""

    def _key(self, node: int, own: int, public: int, player: int) -> int:
        w = self._tables.cards + 1
        nodes = len(self._tables.kind)
        return (((player * 2 + player) * nodes + node) * w + own + 1) * w + public + 1

    def search(self, game: Any, state: Any) -> SearchResult:
        """Search the decision of the player to move in ``state`` from its information set
        (or, with ``search_from="start"``, by self-play from the deal); reads of ``state``
        only the public node, the mover's card and the public card."""
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
        node, own, public = root_of(self._tables, state, player)
        root = self._key(node, own, public, player)
        reused = self._prepare(root)
        if not self._exists[root]:
            self._exists[root] = 1
            self._meta[0] += 1
        self._meta[1] = 0
        opts_i = np.array([int(self.from_start), int(self.single_observer), player, node, own,
                           public, self.budget.max_nodes or 0, self._matching, MATCH_VALUES,
                           MATCH_FLAVOUR], np.int64)  # fmt: skip
        t = self._tables
        timed = self.budget.time_limit is not None or self.should_stop is not None

        def simulate(cap: int | None) -> int:
            n = CHUNK if timed else 1 << 16
            if cap is not None:
                n = max(1, min(n, cap))
            return int(
                self._kernel(
                    n, t.kind, t.to_play, t.child, t.after_public, t.pool, t.pool_len, t.unseen,
                    t.unseen_len, t.payoff, self._exists, self._visits, self._edge_n,
                    self._edge_w, self._avail, self._regret, self._average, self._base_n,
                    self._base_w, self._meta, self._opts_f, opts_i, self._word,
                )
            )  # fmt: skip

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
            not self.from_start and root != self._root_key and not self._exists[root]
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
        here = CompiledISMCTS(game, budget, config, self.rng.getrandbits(64))
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
        information set: what a search of the same seed and budget rooted at any of them reads
        (``benchmarks/imperfect.py`` scores a whole policy with one search this way)."""
        player = game.to_play(state)
        legal = list(game.legal_actions(state))
        root = self._key(*root_of(self._tables, state, player), player)
        if sum(self._root_stats(root, legal)[0]) < len(legal):
            return None
        return dict(zip(legal, self._policy(root, legal), strict=True))

    def _policy(self, root: int, legal: list[int]) -> list[float]:
        """The policy read at ``root``: the normalised visits, or after regret-matching
        self-play the normalised average strategy."""
        if self._matching:
            shares = [float(self._average[root, a]) for a in legal]
        else:
            shares = [float(n) for n in self._root_stats(root, legal)[0]]
        total = sum(shares)
        if total <= 0.0:
            return [1.0 / len(legal)] * len(legal)
        return [x / total for x in shares]

    # ------------------------------------------------------------------ the answer
    def _root_stats(self, root: int, legal: list[int]) -> tuple[list[int], list[float]]:
        visits, values = [], []
        for action in legal:
            n = int(self._edge_n[root, action])
            visits.append(n)
            values.append(float(self._edge_w[root, action]) / n if n else 0.0)
        return visits, values

    def _result(
        self, root: int, legal: list[int], player: int, iterations: int, elapsed: float,
        reused: int,
    ) -> SearchResult:  # fmt: skip
        visits, values = self._root_stats(root, legal)
        improved = (
            tuple(zip(legal, self._policy(root, legal), strict=True))
            if self._matching and sum(visits)
            else ()
        )
        return root_result(
            self, legal, visits, values, player, iterations, elapsed, reused, improved
        )


def root_result(
    search: Any, legal: list[int], visits: list[int], values: list[float], player: int,
    iterations: int, elapsed: float, reused: int, improved: tuple[tuple[int, float], ...] = (),
) -> SearchResult:  # fmt: skip
    """The ``SearchResult`` of a compiled ISMCTS (``CompiledISMCTS``, ``HoldemISMCTS``: its
    ``config``, ``table_size()``, ``_meta``, ``single_observer``, ``from_start``) from the root's
    ``visits`` and mean ``values`` over ``legal``."""
    if any(visits):
        best = legal[pick_child(visits, values, [None] * len(legal), search.config.final_move)]
    else:
        best = legal[0]
    children = sorted(
        (ChildStats(a, n, v, None, None) for a, n, v in zip(legal, visits, values, strict=True)),
        key=lambda c: (-c.visits, c.action),
    )
    total = sum(visits)
    root_value = sum(v * n for v, n in zip(values, visits, strict=True)) / total if total else 0.0
    return SearchResult(
        best_action=best,
        iterations=iterations,
        elapsed=elapsed,
        nodes=search.table_size(),
        reused_nodes=reused,
        pruned_nodes=0,
        children=tuple(children),
        principal_variation=(best,),
        root_value=root_value,
        proven=None,
        to_play=player,
        backend="numba",
        mean_depth=float(search._meta[1]) / max(1, iterations),
        information="so_ismcts" if search.single_observer else "mo_ismcts",
        search_from="start" if search.from_start else "here",
        improved_policy=improved,
    )


def warm_up() -> None:
    """Compile (or load from numba's cache) the kernel."""
    from mcts_agents.compiled import ismcts_kernel

    ismcts_kernel.warm_up()
