"""The Python search: select, expand, evaluate, back up; with budgets, tree reuse and a solver.

``MCTS`` is the ``Searcher`` for any ``Game``. It owns a node table that survives from one search to
the next (tree reuse). Each call of ``search(game, state)`` re-roots the table at ``state``, drops
what can no longer occur, runs simulations until the budget is spent (or the root is proven) and
returns a ``SearchResult``. ``mcts_agents.planner.factory.make_searcher`` hands a game to a compiled
kernel instead where one is registered for it.

Chance nodes (dice, deals) are drawn, not selected: each visit draws an outcome with the search's
own generator by its probability; a chance node is proven only when every outcome is (its value:
their probability-weighted mean). Returns -> [-1, 1]: ``mcts_agents.search.return_range``.

With a batch evaluator the simulations run ``batch_size`` at a time, their leaves evaluated together
(``mcts_agents.search.leaf_batch``); ``root_noise`` is mixed into the root's priors per search
(``mcts_agents.search.noise``); ``selection="gumbel"`` runs Gumbel search
(``mcts_agents.search.gumbel``: its root, schedule and improved policy)."""

from __future__ import annotations

import random
from collections.abc import Callable, Generator, Hashable, Sequence
from dataclasses import replace
from time import perf_counter
from typing import Any

from mcts_agents.errors import InvalidOptionError, InvalidStateError
from mcts_agents.search.config import Budget, SearchConfig
from mcts_agents.search.evaluators import PositionEvaluator, evaluate, is_batch_evaluator
from mcts_agents.search.game import CHANCE, Game, State, has_chance
from mcts_agents.search.gumbel import GumbelRoot
from mcts_agents.search.leaf_batch import LeafBatch, searched_alone
from mcts_agents.search.noise import noise_root
from mcts_agents.search.playouts import bounded_playout, search_stop
from mcts_agents.search.result import SearchResult
from mcts_agents.search.return_range import ReturnScale
from mcts_agents.search.searcher import (
    Progress,
    StopCheck,
    budget_steps,
    check_room,
    game_identity,
    reporter,
)
from mcts_agents.search.selection import (
    CLOSED,
    EXPAND,
    SELECTION_RULES,
    final_child,
    robust_agrees,
)
from mcts_agents.search.solver import close, try_prove
from mcts_agents.search.tree import Node, NodeTable
from mcts_agents.search.tree_result import tree_result


class MCTS:
    """Monte Carlo Tree Search over any ``Game``, in Python, with a persistent node table.

    Implements ``Searcher``. ``config.backend`` may be ``"auto"`` or ``"python"``: this is the
    Python search whatever the game (``make_searcher`` picks a compiled kernel, and passes a
    compiled ``playout``, ``(game, playout(state, rng))``, for the games that have one).

    Raises:
        InvalidOptionError: ``config.backend == "numba"``.
    """

    def __init__(
        self,
        budget: Budget,
        config: SearchConfig,
        seed: int | None = None,
        playout: tuple[Game, Callable[[State, Any], Sequence[float]]] | None = None,
    ) -> None:
        if config.backend == "numba":
            raise InvalidOptionError(
                "MCTS is the Python search; for backend='numba' build the searcher with "
                "mcts_agents.make_searcher(game, budget, config) (or use MCTSAgent)"
            )
        self.budget = budget
        self.config = config
        self.should_stop: StopCheck | None = None  # see Searcher: ends a search early
        self.on_progress: Progress | None = None  # see Searcher: the result so far
        self._report: Callable[[int], None] | None = None
        self.rng = random.Random(seed)
        self.table = NodeTable()
        self._game_id: Hashable = None
        self._root_key: Hashable = None  # the last search's root (its table is pruned to it)
        self._scale: ReturnScale | None = None  # returns -> values; a learned one keeps its range
        self._select = self._rule = SELECTION_RULES.get(config.selection, SELECTION_RULES["ucb1"])
        self._gumbel: GumbelRoot | None = None  # a Gumbel search's root (and its rule: _select)
        self._playout = None if playout is None else (game_identity(playout[0]), playout[1])
        self._compiled = False  # whether the last search's playouts were the compiled ones
        evaluator = config.evaluator
        self._batch = evaluator if is_batch_evaluator(evaluator) else None
        # a position evaluator for single positions (the root's priors, a full table's leaves)
        self._evaluator = evaluator if self._batch is None else PositionEvaluator(evaluator)

    def reset(self, seed: int | None = None) -> None:
        """Forget the node table (call between games); reseed if ``seed`` is given."""
        self.table.clear()
        self._game_id = None
        self._root_key = None
        if seed is not None:
            self.rng.seed(seed)

    def table_size(self) -> int:
        """Entries in the node table."""
        return len(self.table)

    def table_keys(self) -> list[Hashable]:
        """The transposition keys stored in the node table."""
        return list(self.table.nodes)

    def close(self) -> None:
        """Nothing to release."""

    def prepare(self, game: Game) -> None:
        """Nothing to prepare (a compiled playout loads when the searcher is built)."""

    # ------------------------------------------------------------------ public entry point
    def search(self, game: Game, state: State) -> SearchResult:
        """Search from ``state`` and return the result; ``state`` must not be terminal.

        If the search fails (an evaluator's error, an interrupt), the node table is dropped: a
        simulation cut short may have left a node linked but never evaluated.
        """
        return searched_alone(self.search_steps(game, state))

    def search_steps(self, game: Game, state: State) -> Generator[LeafBatch, None, SearchResult]:
        """``search`` in phases: yields each ``LeafBatch`` whose leaves wait for the evaluator
        (a batch evaluator's searches only: the root's, then each round's) once its paths are
        selected, applies it when resumed, and returns the result. ``search`` evaluates each
        batch on its own; ``search.tree_batch`` evaluates many trees' batches in one call.
        Closing the generator at a ``yield`` (a failed evaluation) drops the node table."""
        start = perf_counter()
        self._chance = has_chance(game)
        if self._chance and game.is_chance(state):  # type: ignore[attr-defined]
            raise InvalidStateError(
                f"a search starts where a player is to move, got a chance node of {game!r}"
            )
        check_room(self.budget, len(game.legal_actions(state)))
        root, reused, pruned = yield from self._prepare_root(game, state)
        self._scale = ReturnScale.for_search(self._scale, game, self.config.return_range, reused)
        self._normalize = self._scale.normalizer(self.table)
        restore_priors = noise_root(root, self.config.root_noise, self.rng)  # for this search
        gumbel = self.config.selection == "gumbel" and root.returns is None
        self._gumbel = GumbelRoot(root, self.config, self.budget, self.rng) if gumbel else None
        self._select = self._rule if self._gumbel is None else self._gumbel.select
        self._rollout = self._make_rollout(game, start)
        self._acyclic = bool(getattr(game, "acyclic", False))
        self._report = reporter(
            self.on_progress,
            lambda n: self._result(root, n, perf_counter() - start, reused, pruned),
        )
        try:
            iterations = yield from self._run(game, root, start)
        except BaseException:
            self.reset()
            raise
        result = self._result(root, iterations, perf_counter() - start, reused, pruned)
        result = replace(result, **self._scale.describe())  # a range not declared by the game
        restore_priors()
        return result

    # ------------------------------------------------------------------ the loop
    def _run(self, game: Game, root: Node, start: float) -> Generator[LeafBatch, None, int]:
        """The simulations until the budget is spent (``budget_steps``); with a batch
        evaluator, each round's batch is selected, yielded to be evaluated, then applied."""
        config = self.config
        steps = budget_steps(
            self.budget,
            config.final_move,
            start,
            solved=lambda: root.proven is not None,
            robust_agrees=lambda: robust_agrees(root),
            table_size=self.table.__len__,
            should_stop=self.should_stop,
            progress=self._report,
        )
        tuned = config.selection == "ucb1_tuned"
        batch = (
            None
            if self._batch is None
            else LeafBatch(self._batch, game, config.virtual_loss, tuned)
        )
        try:
            cap = next(steps)
            while True:
                if batch is None:
                    self._simulate(game, root)
                    cap = steps.send(1)
                    continue
                done = self._select_batch(game, root, batch, cap)
                if batch:
                    try:
                        yield batch  # evaluated by the caller (one call, or with other trees')
                    except BaseException:
                        batch.abort()
                        raise
                    batch.apply(self._set_priors, self._backup)
                cap = steps.send(done)
        except StopIteration as stop:
            return int(stop.value)

    def _simulate(self, game: Game, root: Node) -> None:
        """One simulation: walk down by the selection rule, expand one node, evaluate, back up."""
        path, edges, values, leaf = self._descend(game, root, None)
        if values is None:
            values = self._leaf_values(game, leaf)
        self._backup(path, edges, values)

    def _select_batch(self, game: Game, root: Node, batch: LeafBatch, limit: int | None) -> int:
        """The select phase of up to ``batch_size`` simulations (``limit`` at most): their new
        leaves wait in ``batch``, the others are backed up; returns how many ran."""
        count = self.config.batch_size if limit is None else min(self.config.batch_size, limit)
        budget = self.budget
        fills = budget.iterations is None and budget.time_limit is None  # a full table stops
        done = 0
        while done < count and root.proven is None:
            if done and fills and len(self.table) >= budget.max_nodes:  # type: ignore[operator]
                break
            path, edges, values, leaf = self._descend(game, root, batch.pending)
            done += 1
            if values is not None:  # known at once: back it up now
                self._backup(path, edges, values)
            else:
                batch.add(path, edges, leaf, virtual=done < count)
        return done

    def _descend(
        self, game: Game, root: Node, pending: dict[Node, int] | None
    ) -> tuple[list[Node], list[int], Sequence[float] | None, Any]:
        """Walk down by the selection rule, expanding one node. Returns ``(path, edges, values,
        leaf)``: ``values`` where they are known (terminal, proven, a repeated position), else
        ``None`` and the ``leaf`` to evaluate: a new node, one waiting in ``pending`` (a batch's),
        or a state not stored (full table)."""
        config = self.config
        select, c, fpu = self._select, config.c, config.fpu
        path = [root]
        edges: list[int] = []
        node = root
        while True:
            if node.proven is not None:  # solved: its value is exact
                return path, edges, node.proven, node
            if node.returns is not None:  # terminal (solver off)
                return path, edges, node.returns, node
            if node.actions is None:
                node.actions = list(game.legal_actions(node.state))
            i = self._draw(node) if node.to_play == CHANCE else select(node, c, fpu)
            if i == EXPAND:
                child, fresh = self._expand(game, node)
                if child is None:  # node table full: evaluate without storing the child
                    terminal = game.is_terminal(fresh)
                    return path, edges, self._returns(game, fresh) if terminal else None, fresh
                edges.append(len(node.children) - 1)
                path.append(child)
                if fresh:  # a new node, or one stored by expand_all: to evaluate (terminal: known)
                    return path, edges, child.returns, child
                node = child  # a transposition into a stored node: keep descending
            elif i == CLOSED:  # every child proven: so is this node
                close(node, self.config.solver)
                return path, edges, node.proven, node
            else:
                edges.append(i)
                node = node.children[i]
                if not self._acyclic and node in path:  # a repeated position: score it a draw
                    path.append(node)
                    return path, edges, (0.0,) * game.num_players, node
                path.append(node)
            if pending and node in pending:  # waiting for the batch's evaluation
                return path, edges, None, node

    def _leaf_values(self, game: Game, leaf: Any) -> Sequence[float]:
        """Evaluate a new node (keeping its priors), or a state not stored."""
        if isinstance(leaf, Node):
            return self._first_evaluation(game, leaf)
        return self._evaluate(game, leaf)[0]

    def _draw(self, node: Node) -> int:
        """A chance node's outcome, drawn by its probability: the index of its child, or
        ``EXPAND`` with the outcome moved to the next position to expand."""
        priors, actions = node.priors, node.actions
        assert priors is not None and actions is not None  # set with the chance node
        u = self.rng.random()
        j = len(priors) - 1  # rounding may leave u a hair above the last cumulative sum
        for index, probability in enumerate(priors):
            u -= probability
            if u < 0.0:
                j = index
                break
        k = len(node.children)
        if j < k:
            return j
        actions[k], actions[j] = actions[j], actions[k]
        priors[k], priors[j] = priors[j], priors[k]
        return EXPAND

    def _expand(self, game: Game, node: Node) -> tuple[Node | None, Any]:
        """Link the next untried action's child, creating it if it is new.

        Returns ``(child, fresh)``: ``fresh`` is True when the child is still to evaluate (new,
        or stored by ``expand_all`` and never visited), False for a transposition into a
        visited node; with the table full, ``(None, state)``: the child's state, not stored.
        """
        k = len(node.children)
        actions = node.actions
        assert actions is not None  # set by the caller before selection
        if node.priors is None:  # expand in random order: swap a random untried action to k
            j = k + int(self.rng.random() * (len(actions) - k))
            actions[k], actions[j] = actions[j], actions[k]
        state = game.next_state(node.state, actions[k])
        key = game.key(state)
        table = self.table
        child = table.get(key)
        fresh = child is None
        if child is None:
            max_nodes = self.budget.max_nodes
            if max_nodes is not None and len(table) >= max_nodes:
                return None, state
            if self.config.expand_all and k == 0:
                self._create_siblings(game, node)
                child = table.get(key)
        if child is None:
            child = self._make_node(game, state, key)
            table.add(child)
        elif child.visits == 0:  # stored by expand_all but never evaluated
            fresh = True
        if k:
            node.children.append(child)
            node.edge_visits.append(0)
            node.edge_value.append(0.0)
            if self.config.selection == "ucb1_tuned":
                node.edge_value_sq.append(0.0)
        else:  # the first child: the node gets its own lists (see tree._NONE)
            node.children = [child]
            node.edge_visits = [0]
            node.edge_value = [0.0]
            if self.config.selection == "ucb1_tuned":
                node.edge_value_sq = [0.0]
        return child, fresh

    def _create_siblings(self, game: Game, node: Node) -> None:
        """``expand_all``: put every child of ``node`` in the table at once (unevaluated)."""
        table, max_nodes = self.table, self.budget.max_nodes
        for action in node.actions or ():
            state = game.next_state(node.state, action)
            key = game.key(state)
            if key not in table.nodes and (max_nodes is None or len(table) < max_nodes):
                table.add(self._make_node(game, state, key))

    def _make_node(self, game: Game, state: State, key: Hashable) -> Node:
        if game.is_terminal(state):
            returns = self._returns(game, state)
            return Node(state, key, -1, [], returns, returns if self.config.solver else None)
        if self._chance and game.is_chance(state):  # type: ignore[attr-defined]
            outcomes = game.chance_outcomes(state)  # type: ignore[attr-defined]
            node = Node(state, key, CHANCE, [a for a, _ in outcomes])
            node.priors = [p for _, p in outcomes]  # the outcomes' probabilities
            return node
        return Node(state, key, game.to_play(state), None)  # actions: when first needed

    def _returns(self, game: Game, state: State) -> tuple[float, ...]:
        """A terminal state's returns, normalised to [-1, 1]."""
        returns = tuple(game.returns(state))
        return returns if self._normalize is None else self._normalize(returns)

    def _first_evaluation(self, game: Game, node: Node) -> Sequence[float]:
        """Evaluate a node that has never been visited, keeping the evaluator's priors."""
        if node.returns is not None:
            return node.returns
        values, priors = self._evaluate(game, node.state)
        if priors is not None:
            self._set_priors(game, node, priors)
        return values

    def _evaluate(self, game: Game, state: State) -> tuple[Sequence[float], Any]:
        """Per-player values of ``state`` (and priors, from an evaluator)."""
        if game.is_terminal(state):
            return self._returns(game, state), None
        evaluator = self._evaluator
        if evaluator is not None:
            return evaluate(evaluator, game, state, game.legal_actions(state))
        values = self._rollout(state, self.rng)
        return (values if self._normalize is None else self._normalize(values)), None

    def _make_rollout(self, game: Game, start: float) -> Callable[[State, Any], Sequence[float]]:
        """The compiled playout, or the bounded one (``mcts_agents.search.playouts``)."""
        self._compiled = self._playout is not None and self._playout[0] == game_identity(game)
        if self._compiled:
            return self._playout[1]  # type: ignore[index]
        stop = search_stop(self.budget, self.config.final_move, start, self.should_stop)
        return bounded_playout(game, self.config, stop)

    @staticmethod
    def _set_priors(game: Game, node: Node, priors: Any) -> None:
        """Store priors aligned with ``node.actions`` (normalised), highest first."""
        if node.actions is None:
            node.actions = list(game.legal_actions(node.state))
        if hasattr(priors, "get"):
            raw = [float(priors.get(a, 0.0)) for a in node.actions]
        else:
            raw = [float(priors[a]) for a in node.actions]
        total = sum(raw)
        if total <= 0:
            raw, total = [1.0] * len(raw), float(len(raw))
        order = sorted(range(len(raw)), key=lambda i: -raw[i])
        node.actions = [node.actions[i] for i in order]
        node.priors = [raw[i] / total for i in order]

    def _backup(self, path: list[Node], edges: list[int], values: Sequence[float]) -> None:
        tuned = self.config.selection == "ucb1_tuned"
        for node, i in zip(path, edges, strict=False):  # the leaf has no edge
            node.visits += 1
            node.edge_visits[i] += 1
            if node.to_play < 0:  # a chance node: its edges are drawn, not chosen by value
                continue
            v = values[node.to_play]
            node.edge_value[i] += v
            if tuned:
                node.edge_value_sq[i] += v * v
        leaf = path[-1]
        if self._gumbel is not None and leaf.value is None and leaf.to_play >= 0:
            leaf.value = values[leaf.to_play]  # its own estimate (Gumbel's v_mix)
        leaf.visits += 1
        if leaf.proven is not None:  # only the solver proves nodes
            for node in reversed(path[: len(edges)]):
                if node.proven is not None or not (self.config.solver and try_prove(node)):
                    break

    # ------------------------------------------------------------------ tree reuse
    def _prepare_root(
        self, game: Game, state: State
    ) -> Generator[LeafBatch, None, tuple[Node, int, int]]:
        game_id = game_identity(game)
        if not self.config.reuse or game_id != self._game_id:
            self.table.clear()
            self._game_id = game_id
        key = game.key(state)
        root = self.table.get(key)
        if root is None:
            self.table.clear()
            self._root_key = key
            root = self._make_node(game, state, key)
            if root.returns is None:
                root.actions = list(game.legal_actions(state))
            evaluator = self._evaluator
            if self._batch is not None and root.returns is None:  # one row, as PositionEvaluator
                batch = LeafBatch(self._batch, game, 0.0, False)
                batch.add([root], [], root, virtual=False)
                yield batch
                batch.apply(self._set_priors, lambda _, __, values: _root_value(root, values))
            elif evaluator is not None and root.returns is None:
                values, priors = evaluate(evaluator, game, state, root.actions or ())
                _root_value(root, values)
                if priors is not None:
                    self._set_priors(game, root, priors)
            self.table.add(root)
            return root, 0, 0
        if root.actions is None and root.returns is None:  # a reused leaf
            root.actions = list(game.legal_actions(state))
        if key == self._root_key:  # the same position again: nothing became unreachable
            return root, len(self.table), 0
        self._root_key = key
        is_reachable = getattr(game, "is_reachable", None)
        if is_reachable is not None:
            pruned = self.table.prune_unreachable(lambda k: is_reachable(state, k))
        else:
            pruned = self.table.prune_to_descendants(root)
        return root, len(self.table), pruned

    # ------------------------------------------------------------------ the answer
    def choose(self, node: Node, rule: str | None = None) -> int:
        """Index of the child to play at ``node``: proven wins first, proven losses last (a
        Gumbel root: a proven win, else Gumbel's move)."""
        index = final_child(node, rule or self.config.final_move)
        gumbel = self._gumbel
        if gumbel is None or node is not gumbel.root:
            return index
        return gumbel.final_index(index)

    def _result(
        self, root: Node, iterations: int, elapsed: float, reused: int, pruned: int
    ) -> SearchResult:
        return tree_result(
            root,
            self.choose(root) if root.children else 0,
            iterations,
            elapsed,
            len(self.table),
            reused,
            pruned,
            playouts="numba" if self._compiled else "python",
            improved_policy=() if self._gumbel is None else self._gumbel.policy(),
        )


def _root_value(root: Node, values: Sequence[float]) -> None:
    """A new root's own value, its mover's (Gumbel's ``v_mix``)."""
    root.value = values[root.to_play] if root.to_play >= 0 else None
