"""The ``SearchResult`` of a Python search's tree (``MCTS``): the root's children, its value,
the principal variation, the move chosen."""

from __future__ import annotations

from mcts_agents.search.result import Backend, ChildStats, SearchResult
from mcts_agents.search.searcher import proven_label
from mcts_agents.search.selection import edge_value, principal_variation
from mcts_agents.search.tree import Node

__all__ = ["tree_result"]


def tree_result(
    root: Node,
    chosen: int,
    iterations: int,
    elapsed: float,
    nodes: int,
    reused: int,
    pruned: int,
    playouts: Backend,
    improved_policy: tuple[tuple[int, float], ...] = (),
) -> SearchResult:
    """The result of a search of ``root``'s tree; ``chosen``: the index of the move played
    (ignored while ``root`` has no child: with no simulation run any legal action will do)."""
    player = root.to_play
    actions = root.actions or []  # set when the root was prepared
    best_action = actions[chosen] if root.children else actions[0]
    stats = []
    for i, action in enumerate(actions):
        prior = root.priors[i] if root.priors is not None else None
        if i < len(root.children):
            proven = root.children[i].proven
            stats.append(
                ChildStats(
                    action=action,
                    visits=root.edge_visits[i],
                    value=edge_value(root, i),
                    prior=prior,
                    proven=proven_label(proven, player) if proven is not None else None,
                )
            )
        else:
            stats.append(ChildStats(action, 0, 0.0, prior, None))
    stats.sort(key=lambda s: (-s.visits, s.action))
    total = sum(root.edge_visits)
    root_value = (
        root.proven[player]
        if root.proven is not None
        else (sum(root.edge_value) / total if total else 0.0)
    )
    return SearchResult(
        best_action=best_action,
        iterations=iterations,
        elapsed=elapsed,
        nodes=nodes,
        reused_nodes=reused,
        pruned_nodes=pruned,
        children=tuple(stats),
        principal_variation=tuple(principal_variation(root, best_action)),
        root_value=root_value,
        proven=proven_label(root.proven, player) if root.proven is not None else None,
        to_play=player,
        playouts=playouts,
        improved_policy=improved_policy,
    )
