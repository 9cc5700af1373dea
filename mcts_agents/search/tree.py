"""The node table: nodes keyed by transposition key, edge statistics in parallel lists.

Statistics live on edges (parent -> child), from the viewpoint of the player who moves along
the edge (the parent's ``to_play``, i.e. the player who moved into the child). That works for
any number of players and stays correct when one position is reached from several parents,
possibly with different players to move before it. Children are shared through the table
(transpositions), so a subtree is searched once however it is reached.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator
from typing import Any, cast

#: Shared by every node that has no children yet (most nodes: the leaves). Never mutated: the
#: search gives a node its own lists when it links the first child. Saves ~330 bytes a leaf.
_NONE: tuple[()] = ()


class Node:
    """One position in the search graph.

    Attributes:
        state: the game state (immutable; adapters' states are treated as immutable).
        key: its transposition key (the table key).
        to_play: index of the player to move (-1 for a terminal state).
        actions: legal actions in expansion order (``children[i]`` is ``actions[i]``'s child);
            ``None`` until the search first needs them (leaves never do).
        priors: prior probabilities aligned with ``actions`` (PUCT), or ``None``.
        children: expanded children so far; ``len(children) <= len(actions)``. The edge lists
            are a shared empty tuple until the first child is linked.
        edge_visits: visits of each expanded edge.
        edge_value: sum of the mover's returns through each edge.
        edge_value_sq: sum of squared returns per edge (UCB1-Tuned only, else empty).
        visits: simulations through this node (from any parent).
        returns: the per-player returns of a terminal state, else ``None``.
        proven: exact per-player returns once proven by the solver (terminal states are proven
            at creation when the solver is on), else ``None``.
        value: Gumbel search only: the node's own value estimate for its mover (the
            evaluator's, or its first playout's), else ``None``.
    """

    __slots__ = (
        "actions",
        "children",
        "edge_value",
        "edge_value_sq",
        "edge_visits",
        "key",
        "priors",
        "proven",
        "returns",
        "state",
        "to_play",
        "value",
        "visits",
    )

    def __init__(
        self,
        state: Any,
        key: Hashable,
        to_play: int,
        actions: list[int] | None,
        returns: tuple[float, ...] | None = None,
        proven: tuple[float, ...] | None = None,
    ) -> None:
        self.state = state
        self.key = key
        self.to_play = to_play
        self.actions = actions
        self.priors: list[float] | None = None
        self.children = cast("list[Node]", _NONE)
        self.edge_visits = cast("list[int]", _NONE)
        self.edge_value = cast("list[float]", _NONE)
        self.edge_value_sq = cast("list[float]", _NONE)
        self.visits = 0
        self.returns = returns
        self.proven = proven
        self.value: float | None = None

    @property
    def fully_expanded(self) -> bool:
        return self.actions is not None and len(self.children) == len(self.actions)

    def __repr__(self) -> str:
        return (
            f"Node(key={self.key!r}, to_play={self.to_play}, visits={self.visits}, "
            f"children={len(self.children)}/{len(self.actions or ())}, proven={self.proven})"
        )


class NodeTable:
    """Nodes by transposition key, with the pruning used by tree reuse."""

    __slots__ = ("nodes",)

    def __init__(self) -> None:
        self.nodes: dict[Hashable, Node] = {}

    def __len__(self) -> int:
        return len(self.nodes)

    def __iter__(self) -> Iterator[Node]:
        return iter(self.nodes.values())

    def get(self, key: Hashable) -> Node | None:
        return self.nodes.get(key)

    def add(self, node: Node) -> None:
        self.nodes[node.key] = node

    def clear(self) -> None:
        self.nodes.clear()

    def prune_unreachable(self, is_reachable: Callable[[Hashable], bool]) -> int:
        """Drop entries whose key ``is_reachable`` rejects; return how many were dropped."""
        before = len(self.nodes)
        self.nodes = {k: n for k, n in self.nodes.items() if is_reachable(k)}
        return before - len(self.nodes)

    def prune_to_descendants(self, root: Node) -> int:
        """Keep only ``root`` and what the stored graph reaches from it; return how many dropped."""
        kept: dict[Hashable, Node] = {root.key: root}
        stack = [root]
        while stack:
            for child in stack.pop().children:
                if child.key not in kept:
                    kept[child.key] = child
                    stack.append(child)
        dropped = len(self.nodes) - len(kept)
        self.nodes = kept
        return dropped
