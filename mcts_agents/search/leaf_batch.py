"""Batched leaf evaluation for the Python search: simulations in flight, told apart by virtual loss.

``MCTS`` with a batch evaluator (``mcts_agents.search.evaluators.BatchEvaluator``) runs its
simulations ``SearchConfig.batch_size`` (``K``) at a time. It selects a path; a leaf whose value is
known (terminal, proven, a repeated position) is backed up at once, any other waits in a
``LeafBatch``. While it waits, every edge of its path carries a virtual loss (one more visit, scored
``-virtual_loss`` for the player moving along the edge), so the next selections of the batch prefer
other lines; the last selection of a batch needs none (nothing is selected after it). A leaf reached
twice in one batch (the same node again, or a transposition) is evaluated once. Then one
``evaluate_batch`` call evaluates every waiting leaf (``evaluate``; or one call for the batches of
many trees, ``search.tree_batch``), and ``apply`` stores the priors, removes the virtual losses and
backs up each path with its leaf's values, in selection order.

Visits are restored exactly; the value sums to within rounding (a loss added and taken away).
With ``K = 1`` no virtual loss is ever applied, so the search is the one the batch evaluator
gives position by position (``evaluators.PositionEvaluator``), simulation for simulation.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Sequence
from typing import Any, TypeVar

import numpy as np

from mcts_agents.search.evaluators import check_batch, check_batch_game, player_values
from mcts_agents.search.tree import Node

__all__ = ["LeafBatch", "searched_alone"]

Backup = Callable[[list[Node], list[int], Sequence[float]], None]
SetPriors = Callable[[Any, Node, Any], None]
Result = TypeVar("Result")


class LeafBatch:
    """The simulations of one batch whose leaves wait for the evaluator.

    Two phases: the search ``add`` s its selected paths (the select phase); then the leaves
    are evaluated, by ``evaluate`` (this batch's own ``evaluate_batch`` call) or by whoever
    evaluates many batches in one call (``inputs``, then ``take`` of their rows:
    ``search.tree_batch``), and ``apply`` stores the priors and backs up every path (the apply
    phase). ``abort`` instead takes the virtual losses away (a failed evaluation).

    Attributes:
        evaluator: the batch evaluator.
        game: the game whose positions the leaves are.
        virtual_loss: the value a virtual visit scores for the mover, negated.
        tuned: the search keeps squared values per edge (UCB1-Tuned): virtual visits add theirs.
        pending: each waiting node -> its row in the next ``evaluate_batch`` call.
        leaves: the rows: waiting nodes, or states evaluated without a node (full table).
        paths: ``(path, edges, row, virtual)`` of each waiting simulation, in selection order.
    """

    __slots__ = (
        "evaluator",
        "game",
        "leaves",
        "movers",
        "paths",
        "pending",
        "priors",
        "tuned",
        "values",
        "virtual_loss",
    )

    def __init__(self, evaluator: Any, game: Any, virtual_loss: float, tuned: bool) -> None:
        check_batch_game(game, evaluator)
        self.evaluator = evaluator
        self.game = game
        self.virtual_loss = virtual_loss
        self.tuned = tuned
        self.pending: dict[Node, int] = {}
        self.leaves: list[Any] = []
        self.paths: list[tuple[list[Node], list[int], int, bool]] = []
        self.movers: list[int] = []
        self.priors: Any = None  # the rows' checked priors, once taken
        self.values: Any = None

    def __len__(self) -> int:
        return len(self.paths)

    def add(self, path: list[Node], edges: list[int], leaf: Any, virtual: bool) -> None:
        """Hold a selected path until ``apply``; ``leaf`` is its last node (or a state not
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

    def inputs(self) -> tuple[np.ndarray, np.ndarray]:
        """The rows' observations ``[B, *shape]`` (each from its mover's view) and legal masks
        ``[B, num_actions]``, as ``evaluate_batch`` takes them."""
        game, leaves = self.game, self.leaves
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
        self.movers = movers
        return np.stack(observations), masks

    def take(self, priors: Any, values: Any) -> None:
        """The rows' priors and values, checked (``evaluators.check_batch``)."""
        self.priors, self.values = priors, values

    def evaluate(self) -> None:
        """This batch's own ``evaluate_batch`` call over its rows."""
        observations, masks = self.inputs()
        output = self.evaluator.evaluate_batch(observations, masks)
        self.take(*check_batch(self.evaluator, output, masks))

    def apply(self, set_priors: SetPriors, backup: Backup) -> None:
        """Store each waiting node's priors, remove the virtual losses and back up every path
        with its leaf's values, in selection order; the batch is then empty."""
        priors, values, game = self.priors, self.values, self.game
        players = game.num_players
        rows = [
            player_values(float(v), m, players) for v, m in zip(values, self.movers, strict=True)
        ]
        for node, row in self.pending.items():
            set_priors(game, node, priors[row])
        paths = self.paths
        self._clear()
        for path, edges, row, virtual in paths:
            if virtual:
                self._mark(path, edges, -1)
            backup(path, edges, rows[row])

    def abort(self) -> None:
        """Remove the virtual losses and empty the batch, backing up nothing."""
        for path, edges, _, virtual in self.paths:
            if virtual:
                self._mark(path, edges, -1)
        self._clear()

    def _clear(self) -> None:
        self.pending, self.leaves, self.paths, self.movers = {}, [], [], []
        self.priors = self.values = None


def searched_alone(steps: Generator[LeafBatch, None, Result]) -> Result:
    """Run a search given in phases (``MCTS.search_steps``) on its own: each batch it yields is
    evaluated by its own ``evaluate_batch`` call; returns what the search returns. If an
    evaluation fails, the search is closed at its ``yield`` (its virtual losses taken away,
    its table dropped) before the error goes on."""
    try:
        batch = next(steps)
        while True:
            try:
                batch.evaluate()
            except BaseException:
                steps.close()
                raise
            batch = steps.send(None)
    except StopIteration as stop:
        return stop.value
