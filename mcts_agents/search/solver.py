"""MCTS-Solver on the Python node table: a node proven from its children's proofs.

A child's ``proven`` holds exact per-player returns. A player's node is proven as soon as one
child is a proven win for the player to move there, or once every child is proven (the best of
them for that player); a chance node only once every outcome is proven (the expectation, by
the outcomes' probabilities), and never when its state says its outcomes are samples of a
distribution the search cannot list (``state.sampled_outcomes``: the generic adapter's steps
that draw from the global generators), since their mean is an estimate, not the value.
``MCTS`` calls these as it backs up a proven leaf.
"""

from __future__ import annotations

from mcts_agents.search.game import CHANCE
from mcts_agents.search.searcher import WIN
from mcts_agents.search.tree import Node

__all__ = ["close", "try_prove"]


def try_prove(node: Node) -> bool:
    """Prove ``node`` if a child is a proven win for its mover, or every child is proven."""
    player = node.to_play
    if player == CHANCE:  # exact only once every outcome is: the expectation
        children = node.children
        if not node.fully_expanded or any(child.proven is None for child in children):
            return False
        if getattr(node.state, "sampled_outcomes", False):
            return False
        weights = node.priors or ()
        proofs = [child.proven for child in children if child.proven is not None]
        node.proven = tuple(
            sum(w * proof[i] for w, proof in zip(weights, proofs, strict=True))
            for i in range(len(proofs[0]))
        )
        return True
    best: tuple[float, ...] | None = None
    complete = node.fully_expanded
    for child in node.children:
        proven = child.proven
        if proven is None:
            complete = False
            continue
        if proven[player] >= WIN:
            node.proven = proven
            return True
        if best is None or proven[player] > best[player]:
            best = proven
    if complete and best is not None:
        node.proven = best
        return True
    return False


def close(node: Node, solver: bool) -> None:
    """Prove ``node``, every child of which is proven (selection found nothing left to try)."""
    if not (solver and try_prove(node)):  # CLOSED without the solver cannot happen; be safe
        node.proven = max(
            (c.proven for c in node.children if c.proven is not None),
            key=lambda p: p[node.to_play],
        )
