"""MCTS-Solver's proofs (``mcts_agents.search.solver``) on hand-built nodes, values derived by
hand."""

from __future__ import annotations

import pytest

from mcts_agents.search.game import CHANCE
from mcts_agents.search.solver import close, try_prove
from mcts_agents.search.tree import Node

WIN_0, WIN_1, DRAW = (1.0, -1.0), (-1.0, 1.0), (0.0, 0.0)


def node(to_play: int, actions: int, proofs: list[tuple[float, float] | None]) -> Node:
    """A node with ``actions`` legal actions whose first children carry ``proofs``."""
    parent = Node("parent", "parent", to_play, list(range(actions)))
    parent.children = [Node(i, i, 1 - to_play, [], None, p) for i, p in enumerate(proofs)]
    return parent


def test_one_winning_child_proves_the_node_before_the_rest_is_expanded() -> None:
    parent = node(0, 3, [None, WIN_0])
    assert try_prove(parent) and parent.proven == WIN_0


def test_a_node_is_proven_once_every_child_is_the_best_for_its_mover() -> None:
    parent = node(1, 2, [WIN_0, DRAW])
    assert try_prove(parent) and parent.proven == DRAW  # player 1 takes the draw


@pytest.mark.parametrize(
    "proofs",
    [[WIN_1, DRAW], [DRAW, None, WIN_1]],
    ids=["not-fully-expanded", "an-unproven-child"],
)
def test_no_proof_while_a_better_move_may_remain(proofs: list[tuple[float, float] | None]) -> None:
    parent = node(0, 3, proofs)
    assert not try_prove(parent) and parent.proven is None


def test_a_chance_node_is_the_expectation_of_its_proven_outcomes() -> None:
    chance = node(CHANCE, 2, [WIN_0, DRAW])
    chance.to_play = CHANCE
    chance.priors = [0.25, 0.75]
    assert try_prove(chance) and chance.proven == pytest.approx((0.25, -0.25))
    chance.proven = None
    chance.actions = [0, 1, 2]  # an outcome not drawn yet
    assert not try_prove(chance)


def test_close_takes_the_best_proven_child_for_the_mover() -> None:
    for solver in (True, False):
        parent = node(1, 3, [WIN_0, DRAW, WIN_0])
        close(parent, solver)
        assert parent.proven == DRAW
