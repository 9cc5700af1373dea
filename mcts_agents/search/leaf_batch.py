"""Batched leaf evaluation for the Python search: simulations in flight, told apart by virtual loss.

``MCTS`` with a batch evaluator (``mcts_agents.search.evaluators.BatchEvaluator``) runs its
simulations ``SearchConfig.batch_size`` (``K``) at a time. It selects a path; a leaf whose value is
known (terminal, proven, a repeated position) is backed up at once, any other waits in a
``LeafBatch``. While it waits, every edge of its path carries a virtual loss (one more visit, scored
``-virtual_loss`` for the player moving along the edge), so the next selections of the batch prefer
other lines; the last selection of a batch needs none (nothing is selected after it). A leaf reached
twice in one batch (the same node again, or a transposition) is evaluated once. ``flush`` then makes
one ``evaluate_batch`` call for every waiting leaf, stores the priors, removes the virtual losses
and backs up each path with its leaf's values, in selection order.

Visits are restored exactly; the value sums to within rounding (a loss added and taken away).
With ``K = 1`` no virtual loss is ever applied, so the search is the one the batch evaluator
gives position by position (``evaluators.PositionEvaluator``), simulation for simulation.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from mcts_agents.search.evaluators import check_batch, check_batch_game, player_values
from mcts_agents.search.tree import Node

__all__ = ["LeafBatch"]

Backup = Callable[[list[Node], list[int], Sequence[float]], None]
SetPriors = Callable[[Any, Node, Any], None]


class LeafBatch:
    """The simulations of one batch whose leaves wait for the evaluator.

    Attributes:
        evaluator: the batch evaluator.
        virtual_loss: the value a virtual visit scores for the mover, negated.
        tuned: the search keeps squared values per edge (UCB1-Tuned): virtual visits add theirs.
        pending: each waiting node -> its row in the next ``evaluate_batch`` call.
        leaves: the rows: waiting nodes, or states evaluated without a node (full table).
        paths: ``(path, edges, row, virtual)`` of each waiting simulation, in selection order.
    """

    __slots__ = ("evaluator", "leaves", "paths", "pending", "tuned", "virtual_loss")

    def __init__(self, evaluator: Any, game: Any, virtual_loss: float, tuned: bool) -> None:
        check_batch_game(game, evaluator)
        self.evaluator = evaluator
        self.virtual_loss = virtual_loss
        self.tuned = tuned
        self.pending: dict[Node, int] = {}
        self.leaves: list[Any] = []
        self.paths: list[tuple[list[Node], list[int], int, bool]] = []

    def __len__(self) -> int:
        return len(self.paths)

    def add(self, path: list[Node], edges: list[int], leaf: Any, virtual: bool) -> None:
        """Hold a selected path until ``flush``; ``leaf`` is its last node (or a state not
        stored); ``virtual``: mark the path with a virtual loss (more selections follow)."""
        row = self.pending.get(leaf) if isinstance(leaf, Node) else None
        if row is None:
            row = len(self.leaves)
            self.leaves.append(leaf)
            if isinstance(leaf, Node):
                self.pending[leaf] = row
        if virtual:
            self._mark(path, edges, 1)
        self.paths.append((path, edges, row, virtual))

    def _mark(self, path: list[Node], edges: list[int], sign: int) -> None:
        """Add (``sign = 1``) or remove (``-1``) one virtual visit along ``path``."""
        loss = sign * self.virtual_loss
        for node, i in zip(path, edges, strict=False):  # the leaf has no edge
            node.visits += sign
            node.edge_visits[i] += sign
            if node.to_play >= 0:
                node.edge_value[i] -= loss
                if self.tuned:
                    node.edge_value_sq[i] += loss * self.virtual_loss
        path[-1].visits += sign

    def flush(self, game: Any, set_priors: SetPriors, backup: Backup) -> None:
        """Evaluate every waiting leaf in one ``evaluate_batch`` call and back up every path.

        If the evaluator fails (``EvaluatorError`` for bad output, or its own exception), the
        virtual losses are removed before the error goes on, and nothing is backed up.
        """
        if not self.paths:
            return
        try:
            values = self._evaluate(game, set_priors)
        except BaseException:
            for path, edges, _, virtual in self.paths:
                if virtual:
                    self._mark(path, edges, -1)
            raise
        finally:
            paths, self.pending, self.leaves, self.paths = self.paths, {}, [], []
        for path, edges, row, virtual in paths:
            if virtual:
                self._mark(path, edges, -1)
            backup(path, edges, values[row])

    def _evaluate(self, game: Any, set_priors: SetPriors) -> list[tuple[float, ...]]:
        """Per-player values of every row; stores each waiting node's priors."""
        leaves = self.leaves
        masks = np.zeros((len(leaves), game.num_actions), dtype=bool)
        observations, movers = [], []
        for row, leaf in enumerate(leaves):
            if isinstance(leaf, Node):
                state, mover = leaf.state, leaf.to_play
                if leaf.actions is None:
                    leaf.actions = list(game.legal_actions(state))
                legal: Sequence[int] = leaf.actions
            else:
                state, mover = leaf, game.to_play(leaf)
                legal = game.legal_actions(leaf)
            masks[row, list(legal)] = True
            observations.append(np.asarray(game.observation(state, mover)))
            movers.append(mover)
        output = self.evaluator.evaluate_batch(np.stack(observations), masks)
        priors, values = check_batch(self.evaluator, output, masks)
        for node, row in self.pending.items():
            set_priors(game, node, priors[row])
        players = game.num_players
        return [player_values(float(v), m, players) for v, m in zip(values, movers, strict=True)]
