"""Leduc hold'em's state checks, kept apart from the rules (``leduc_holdem.py``) for size:
``check_state`` (exact) and ``is_reachable`` of ``LeducHoldem`` call these."""

from __future__ import annotations

from typing import Any

from mcts_agents.envs.core.checks import int_field, invalid, state_fields

#: The rules core these functions check (``LeducHoldem``; not imported: it imports this module).
Game = Any
State = tuple[Any, ...]


def parents(game: Game) -> list[int]:
    """Each node's parent in the public tree (-1 for the root); a parent precedes its child."""
    parent = [-1] * len(game._kind)
    parent[1], parent[2] = 0, 1  # the two private deals
    for node, kids in enumerate(game._children):
        for kid in kids or ():
            if kid >= 0:
                parent[kid] = node
        if game._after_public[node] >= 0:
            parent[game._after_public[node]] = node
    return parent


def check_state(game: Game, state: object) -> None:
    """Exact: the node one of the tree's; the private cards dealt once the deal is past them,
    the public card once round 2 is reached, none earlier; no card dealt more often than the
    deck holds it (once, or twice with ``suit_isomorphism``)."""
    name = game.name
    node, c0, c1, pub = state_fields(name, state, ("node", "card_0", "card_1", "public"))
    int_field(name, "node", node, 0, len(game._kind) - 1)
    k = game.num_cards
    for field, card in (("card_0", c0), ("card_1", c1), ("public", pub)):
        int_field(name, field, card, -1, k - 1)
    facts = game._nodes[node]
    expected = (
        node >= 1,
        node >= 2,
        facts.get("round", 0) == 1 and not game._is_chance[node],  # past the public deal
    )
    if (c0 >= 0, c1 >= 0, pub >= 0) != expected:
        dealt = [n for n, e in zip(("card_0", "card_1", "public"), expected, strict=True) if e]
        invalid(name, f"cards ({c0}, {c1}, {pub}) at node {node}: expected dealt {dealt}")
    copies = 2 if game.suit_isomorphism else 1
    cards = [c for c in (c0, c1, pub) if c >= 0]
    for card in set(cards):
        if cards.count(card) > copies:
            invalid(name, f"card {card} is dealt {cards.count(card)} times; the deck has {copies}")


def is_reachable(game: Game, state: State, key: object) -> bool:
    """Dealt cards stay and the betting only grows: the key's cards agree with every card dealt
    in ``state``, and its node is ``state``'s node or below it in the public tree."""
    if not isinstance(key, tuple) or len(key) != 4:
        return False
    if any(card >= 0 and key[i] != card for i, card in enumerate(state) if i):
        return False
    node, later, parent = state[0], key[0], game._parent
    while later > node:
        later = parent[later]
    return bool(later == node)
