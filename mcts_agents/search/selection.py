"""Child selection rules: plain functions, so UCT and PUCT differ only here.

Each rule takes a node, the exploration constant and the first-play urgency, and returns the
index of the child to descend into, ``EXPAND`` to expand the next untried action, or
``CLOSED`` when every child is proven and nothing is left to expand. Proven children are
never selected: their values are exact, searching them again would waste the simulation.
Values are means of returns in [-1, 1] from the mover's view.
"""

from __future__ import annotations

from collections.abc import Callable
from math import log, sqrt

from mcts_agents.search.searcher import most_visited_is_best, pick_child, proven_label
from mcts_agents.search.tree import Node

EXPAND = -1
CLOSED = -2

SelectionFn = Callable[[Node, float, "float | None"], int]


def ucb1(node: Node, c: float, fpu: float | None) -> int:
    """UCB1: mean + c * sqrt(ln N / n)."""
    untried = len(node.children) < len(node.actions or ())
    if untried and fpu is None:
        return EXPAND
    explore = c * sqrt(log(node.visits)) if node.visits > 1 else 0.0
    best, best_score = (EXPAND, fpu) if untried else (CLOSED, float("-inf"))
    values, visits = node.edge_value, node.edge_visits
    for i, child in enumerate(node.children):
        if child.proven is not None:
            continue
        n = visits[i]
        score = values[i] / n + explore / sqrt(n)
        if score > best_score:  # type: ignore[operator]
            best, best_score = i, score
    return best


def ucb1_tuned(node: Node, c: float, fpu: float | None) -> int:
    """UCB1-Tuned (Auer et al. 2002): the exploration term is scaled by each edge's variance.

    On rewards mapped to [0, 1]: mean + c * sqrt(ln N / n * min(1/4, var + sqrt(2 ln N / n))),
    with ``c = 1`` the published rule; reported back on the [-1, 1] scale.
    """
    untried = len(node.children) < len(node.actions or ())
    if untried and fpu is None:
        return EXPAND
    log_n = log(node.visits) if node.visits > 1 else 0.0
    best, best_score = (EXPAND, fpu) if untried else (CLOSED, float("-inf"))
    for i, child in enumerate(node.children):
        if child.proven is not None:
            continue
        n = node.edge_visits[i]
        mean = node.edge_value[i] / n  # [-1, 1]
        mean01 = (mean + 1.0) / 2.0
        var01 = max(0.0, (node.edge_value_sq[i] / n + 2.0 * mean + 1.0) / 4.0 - mean01 * mean01)
        bound = min(0.25, var01 + sqrt(2.0 * log_n / n))
        score = mean + 2.0 * c * sqrt(log_n / n * bound)
        if score > best_score:  # type: ignore[operator]
            best, best_score = i, score
    return best


def puct(node: Node, c: float, fpu: float | None) -> int:
    """PUCT (AlphaZero): mean + c * prior * sqrt(N) / (1 + n).

    Untried actions are expanded in order of decreasing prior; an untried action scores
    ``fpu`` (default 0) plus its exploration term, so strong priors are expanded early.
    """
    priors = node.priors
    count = len(node.actions or ())
    if priors is None:
        priors = node.priors = [1.0 / count] * count
    scale = c * sqrt(node.visits)
    best, best_score = CLOSED, float("-inf")
    k = len(node.children)
    if k < count:
        best, best_score = EXPAND, (0.0 if fpu is None else fpu) + scale * priors[k]
    for i, child in enumerate(node.children):
        if child.proven is not None:
            continue
        n = node.edge_visits[i]
        score = node.edge_value[i] / n + scale * priors[i] / (1 + n)
        if score > best_score:
            best, best_score = i, score
    return best


SELECTION_RULES: dict[str, SelectionFn] = {"ucb1": ucb1, "ucb1_tuned": ucb1_tuned, "puct": puct}


# ---------------------------------------------------------------------- the move to play
def edge_value(node: Node, i: int) -> float:
    """The mover's value of ``node``'s child ``i``: exact once proven, else the mean return."""
    child = node.children[i]
    if child.proven is not None and node.to_play >= 0:  # not a chance node (no mover)
        return child.proven[node.to_play]
    n = node.edge_visits[i]
    return node.edge_value[i] / n if n else 0.0


def robust_agrees(root: Node) -> bool:
    """Whether the most visited child is also the best valued (``robust_max``)."""
    values = [edge_value(root, i) for i in range(len(root.children))]
    return most_visited_is_best(root.edge_visits, values)


def final_child(node: Node, rule: str) -> int:
    """Index of the child to play at ``node`` by the final-move ``rule``: proven wins first,
    proven losses last."""
    player = node.to_play
    labels = [
        None if (p := child.proven) is None or player < 0 else proven_label(p, player)
        for child in node.children
    ]
    values = [edge_value(node, i) for i in range(len(node.children))]
    return pick_child(node.edge_visits, values, labels, rule)


def principal_variation(root: Node, best_action: int, limit: int = 64) -> list[int]:
    """The expected line from ``root``: ``best_action``, then the most visited children."""
    line = [best_action]
    actions = root.actions or []
    node = root.children[actions.index(best_action)] if root.children else None
    seen = {root.key}
    while node is not None and node.children and len(line) < limit and node.key not in seen:
        seen.add(node.key)
        i = final_child(node, "visits")
        line.append((node.actions or [])[i])
        node = node.children[i]
    return line
