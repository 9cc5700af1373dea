"""Perfect Information Monte Carlo: the baseline that Information Set MCTS is measured against.

Each search draws ``config.determinizations`` full states from what the player to move may
believe (``game.determinize``, with the search's own generator), searches each one with the
perfect-information ``MCTS`` (chance nodes and the solver included) on an equal share of the
budget, and merges the worlds as PIMC does: every world votes for its best action and the most
votes win (ties: the better mean value, then more visits); an action's value is the mean, over
the worlds that looked at it, of its value in that world (exact where that world's solver proved
it: a world stops once it has proven its answer, so it may not look at every action). The trees
see the drawn cards, so each is a cheat in its own world; no proof survives the merge (a win in
one world is no win in the player's information set). The trees are not kept between moves: each
belongs to a sampled world.
"""

from __future__ import annotations

import random
from collections.abc import Hashable
from dataclasses import replace
from time import perf_counter

from mcts_agents.errors import InvalidOptionError, InvalidStateError
from mcts_agents.search.config import Budget, SearchConfig
from mcts_agents.search.game import Game, State, has_chance
from mcts_agents.search.ismcts import check_game
from mcts_agents.search.mcts import MCTS
from mcts_agents.search.result import ChildStats, SearchResult, SubSearch
from mcts_agents.search.searcher import Progress, StopCheck, split_iterations

__all__ = ["PIMC"]


class PIMC:
    """Determinized MCTS over ``config.determinizations`` worlds; implements ``Searcher``.

    Budgets are shared: ``iterations`` split evenly over the worlds, ``time_limit`` divided by
    their number, ``max_nodes`` applies to each world's tree.
    """

    def __init__(self, budget: Budget, config: SearchConfig, seed: int | None = None) -> None:
        self.budget = budget
        self.config = config
        self.should_stop: StopCheck | None = None  # see Searcher: ends a search early
        self.on_progress: Progress | None = None  # see Searcher: the first world's progress
        for option, value, default in (
            ("search_from", config.search_from, "here"),
            ("smooth", config.smooth, None),
        ):
            if value != default and value != "auto":
                raise InvalidOptionError(
                    f"{option}={value!r} is Information Set MCTS's option; PIMC searches "
                    f"determinized worlds of the current information set (use "
                    f"information='mo_ismcts' or 'so_ismcts', or leave {option} at {default!r})"
                )
        self.rng = random.Random(seed)
        self._inner = replace(config, information="perfect", reuse=False)

    def reset(self, seed: int | None = None) -> None:
        """Nothing is kept between moves; reseed if ``seed`` is given."""
        if seed is not None:
            self.rng.seed(seed)

    def table_size(self) -> int:
        """No table is kept between searches."""
        return 0

    def table_keys(self) -> list[Hashable]:
        """No table is kept between searches."""
        return []

    def close(self) -> None:
        """Nothing to release."""

    def prepare(self, game: Game) -> None:
        """Nothing to prepare."""

    def search(self, game: Game, state: State) -> SearchResult:
        """Search ``config.determinizations`` worlds of the player to move and merge them
        (told to stop, the worlds searched so far: at least one)."""
        start = perf_counter()
        if has_chance(game) and game.is_chance(state):  # type: ignore[attr-defined]
            raise InvalidStateError(
                f"a search starts where a player is to move, got a chance node of {game!r}"
            )
        check_game(game, False, "pimc")
        player = game.to_play(state)
        worlds = self.config.determinizations
        budget = self.budget
        if budget.iterations is not None:
            shares = [n for n in split_iterations(budget.iterations, worlds) if n > 0]
        else:
            shares = [0] * worlds
        time_share = None if budget.time_limit is None else budget.time_limit / len(shares)
        results: list[SearchResult] = []
        for share in shares:
            world = game.determinize(state, player, self.rng)  # type: ignore[attr-defined]
            world_budget = Budget(
                iterations=share or None, time_limit=time_share, max_nodes=budget.max_nodes
            )
            tree = MCTS(world_budget, self._inner, seed=self.rng.getrandbits(64))
            tree.should_stop = stop = self.should_stop
            tree.on_progress = self.on_progress if not results else None  # the first world's
            results.append(tree.search(game, world))
            if stop is not None and stop():  # told to stop: the worlds searched so far
                break
        return _merge_worlds(results, player, perf_counter() - start)


def _merge_worlds(results: list[SearchResult], player: int, elapsed: float) -> SearchResult:
    """One result from the worlds' results: mean values over worlds, summed visits."""
    visits: dict[int, int] = {}
    values: dict[int, list[float]] = {}
    for result in results:
        for child in result.children:
            visits[child.action] = visits.get(child.action, 0) + child.visits
            if child.visits or child.proven is not None:  # this world looked at it
                values.setdefault(child.action, []).append(child.value)
    means = {a: sum(v) / len(v) for a, v in values.items()}
    votes = {a: 0 for a in visits}
    for result in results:
        votes[result.best_action] += 1
    children = sorted(
        (ChildStats(a, n, means.get(a, 0.0), None, None) for a, n in visits.items()),
        key=lambda c: (-c.visits, c.action),
    )
    best = max(children, key=lambda c: (votes[c.action], c.value, c.visits, -c.action))
    return SearchResult(
        best_action=best.action,
        iterations=sum(r.iterations for r in results),
        elapsed=elapsed,
        nodes=sum(r.nodes for r in results),
        reused_nodes=0,
        pruned_nodes=0,
        children=tuple(children),
        principal_variation=(best.action,),
        root_value=best.value,
        proven=None,
        to_play=player,
        information="pimc",
        worlds=tuple(SubSearch(r.iterations, r.nodes, r.best_action) for r in results),
        votes=tuple(sorted(votes.items())),
    )
