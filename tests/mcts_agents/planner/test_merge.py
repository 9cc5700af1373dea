"""Merging root statistics of independent searches (``mcts_agents.planner.merge``),
hand-computed."""

from __future__ import annotations

from typing import Any

import pytest

from mcts_agents import SearchResult
from mcts_agents.planner.merge import choose_action, merge_results
from mcts_agents.search import ChildStats


def result(children: list[ChildStats], proven: Any = None, value: float = 0.0) -> SearchResult:
    n = sum(c.visits for c in children)
    best = max(children, key=lambda c: c.visits).action
    return SearchResult(best, n, 1.0, n + 1, 0, 0, tuple(children), (best,), value, proven)


def test_merge_adds_visits_and_value_sums_and_keeps_proofs() -> None:
    """Hand-computed: action 0 is proven a win by the second search only."""
    a = result(
        [ChildStats(0, 10, 0.2, None, None), ChildStats(1, 30, 0.5, None, None)], None, 0.425
    )
    b = result([ChildStats(0, 4, 1.0, None, "win"), ChildStats(1, 20, 0.0, None, None)], "win", 1.0)
    merged = merge_results([a, b], elapsed=2.5)
    assert merged.child(0) == ChildStats(0, 14, 1.0, None, "win")
    assert merged.child(1) == ChildStats(1, 50, (30 * 0.5 + 20 * 0.0) / 50, None, None)
    assert merged.best_action == 0  # a proven win beats more visits
    assert merged.proven == "win" and merged.root_value == 1.0
    assert merged.iterations == 64 and merged.nodes == 66 and merged.elapsed == 2.5
    assert merged.principal_variation == (0,)  # the first search preferred 1


def test_merge_avoids_proven_losses_and_averages_the_root() -> None:
    a = result([ChildStats(0, 50, -1.0, None, "loss"), ChildStats(1, 10, 0.1, None, None)], None, 0)
    b = result([ChildStats(0, 40, -0.2, None, None), ChildStats(1, 20, 0.4, None, None)], None, 0.1)
    merged = merge_results([a, b])
    assert merged.best_action == 1 and merged.proven is None
    assert merged.child(0).proven == "loss" and merged.child(0).visits == 90
    assert merged.root_value == pytest.approx((0.0 * 60 + 0.1 * 60) / 120)
    assert choose_action(merged.children, "value") == 1


def test_merge_proves_the_root_when_every_action_is_proven_somewhere() -> None:
    a = result([ChildStats(0, 5, 0.0, None, "draw"), ChildStats(1, 5, 0.3, None, None)])
    b = result([ChildStats(0, 5, 0.1, None, None), ChildStats(1, 5, -1.0, None, "loss")])
    merged = merge_results([a, b])
    assert merged.proven == "draw" and merged.root_value == 0.0 and merged.best_action == 0


def test_merge_keeps_which_search_ran_and_averages_the_searches_policies() -> None:
    """Hand-computed: the policies weighted by simulations (100 and 300); what ``act`` reads
    (``information`` for its draw, ``policy``) survives root parallelism."""
    from dataclasses import replace

    kids = [ChildStats(0, 50, 0.1, None, None), ChildStats(1, 50, -0.1, None, None)]
    a = replace(result(kids), iterations=100, information="mo_ismcts", search_from="start",
                improved_policy=((0, 0.2), (1, 0.8)))  # fmt: skip
    b = replace(a, iterations=300, improved_policy=((0, 0.6), (1, 0.4)))
    merged = merge_results([a, b])
    assert merged.information == "mo_ismcts" and merged.search_from == "start"
    assert merged.policy == pytest.approx({0: 0.2 * 0.25 + 0.6 * 0.75, 1: 0.8 * 0.25 + 0.4 * 0.75})
    plain = merge_results([result(kids), result(kids)])
    assert plain.improved_policy == () and plain.policy == {0: 0.5, 1: 0.5}
