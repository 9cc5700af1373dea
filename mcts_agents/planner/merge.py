"""Merging root statistics of independent searches of one position (root parallelism)."""

from __future__ import annotations

from collections.abc import Sequence

from mcts_agents.search.result import ChildStats, Proven, SearchResult, SubSearch
from mcts_agents.search.searcher import pick_child

__all__ = ["choose_action", "merge_results"]


def choose_action(children: Sequence[ChildStats], rule: str = "visits") -> int:
    """The action to play from (merged) root statistics: every searcher's final-move rule
    (``searcher.pick_child``) over ``ChildStats``, ties to the smaller action."""
    if not children:
        raise ValueError("no root statistics to choose from")
    ordered = sorted(children, key=lambda c: c.action)
    i = pick_child(
        [c.visits for c in ordered], [c.value for c in ordered], [c.proven for c in ordered], rule
    )
    return ordered[i].action


def merge_results(
    results: Sequence[SearchResult], final_move: str = "visits", elapsed: float | None = None
) -> SearchResult:
    """One ``SearchResult`` from independent searches of the same position.

    Per action: visits and value sums add up (``value`` is the merged mean); a proof from any
    worker is exact and wins over estimates. The root is proven if any search proved it, if a
    child is a proven win, or if every action is proven by some search. ``iterations``,
    ``nodes``, ``reused_nodes`` and ``pruned_nodes`` are sums; the principal variation is the
    first search's if it starts with the merged best action, else just that action. Results are
    merged in the order given, so the merge is deterministic.
    """
    if not results:
        raise ValueError("no search results to merge")
    first = results[0]
    player = first.to_play
    visits: dict[int, int] = {}
    value_sum: dict[int, float] = {}
    prior: dict[int, float | None] = {}
    proof: dict[int, tuple[Proven, float]] = {}
    for result in results:
        for c in result.children:
            visits[c.action] = visits.get(c.action, 0) + c.visits
            if c.proven is None:
                value_sum[c.action] = value_sum.get(c.action, 0.0) + c.value * c.visits
            else:
                proof.setdefault(c.action, (c.proven, c.value))
            if prior.get(c.action) is None:
                prior[c.action] = c.prior
    children = []
    for action in sorted(visits):
        n = visits[action]
        if action in proof:
            label, value = proof[action]
            children.append(ChildStats(action, n, value, prior[action], label))
        else:
            mean = value_sum.get(action, 0.0) / n if n else 0.0
            children.append(ChildStats(action, n, mean, prior[action], None))
    best_action = choose_action(children, final_move)
    children.sort(key=lambda c: (-c.visits, c.action))

    proven: Proven | None = None
    root_value = 0.0
    proved = next((r for r in results if r.proven is not None), None)
    proven_children = [c for c in children if c.proven is not None]
    if proved is not None:
        proven, root_value = proved.proven, proved.root_value
    elif any(c.proven == "win" for c in children):
        root_value = max(c.value for c in children if c.proven == "win")
        proven = "win"
    elif children and len(proven_children) == len(children):
        best = max(children, key=lambda c: c.value)
        root_value, proven = best.value, best.proven
    else:
        totals = [sum(c.visits for c in r.children) for r in results]
        total = sum(totals)
        if total:
            weighted = (r.root_value * t for r, t in zip(results, totals, strict=True))
            root_value = sum(weighted) / total

    pv = first.principal_variation
    return SearchResult(
        information=first.information,
        search_from=first.search_from,
        improved_policy=_merged_policy(results),
        best_action=best_action,
        iterations=sum(r.iterations for r in results),
        elapsed=first.elapsed if elapsed is None else elapsed,
        nodes=sum(r.nodes for r in results),
        reused_nodes=sum(r.reused_nodes for r in results),
        pruned_nodes=sum(r.pruned_nodes for r in results),
        children=tuple(children),
        principal_variation=pv if pv[:1] == (best_action,) else (best_action,),
        root_value=root_value,
        proven=proven,
        to_play=player,
        backend=first.backend,
        playouts=first.playouts,
        workers=tuple(SubSearch(r.iterations, r.nodes, r.best_action) for r in results),
    )


def _merged_policy(results: Sequence[SearchResult]) -> tuple[tuple[int, float], ...]:
    """The searches' own policies (regret matching's average strategy, Gumbel's improved
    policy) averaged with their simulations as weights, where every search has one (``act``
    draws from it where cards are hidden); ``()`` otherwise (the merged visits are the policy)."""
    if not results or not all(r.improved_policy for r in results):
        return ()
    weights = [max(r.iterations, 1) for r in results]
    total = float(sum(weights))
    merged: dict[int, float] = {}
    for result, weight in zip(results, weights, strict=True):
        for action, p in result.improved_policy:
            merged[action] = merged.get(action, 0.0) + p * weight / total
    return tuple(sorted(merged.items()))
