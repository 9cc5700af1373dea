"""Batched leaf evaluation with virtual loss (``mcts_agents.search.leaf_batch``, in ``MCTS``).

The evaluators here are written in the test from the observation planes alone: a fixed linear
heuristic, and a perfect tic-tac-toe player (negamax over the planes). The tree's bookkeeping is
checked against its own definition: a node's visits are the visits of the edges into it (the
root: the simulations), and what flows in through those edges is what flows out through its
own edges plus its evaluations, so a virtual loss left behind would show.
"""

from __future__ import annotations

import dataclasses
import math
from functools import cache
from typing import Any

import numpy as np
import pytest

from mcts_agents import Budget, SearchConfig, SearchResult
from mcts_agents.envs.games.connect_four import ConnectFour
from mcts_agents.envs.games.mnk import MNK
from mcts_agents.envs.games.pig import Pig
from mcts_agents.errors import EvaluatorError, InvalidOptionError
from mcts_agents.search import MCTS
from mcts_agents.search.evaluators import PositionEvaluator
from mcts_agents.search.tree import Node

TTT = MNK(3, 3, 3)
C4 = ConnectFour()
LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]


class Heuristic:
    """A deterministic batch evaluator: the value is tanh of fixed pseudo-random weights over
    the mover's stones minus the opponent's; priors favour actions by a position-dependent
    rule. Records every call."""

    def __init__(self, shape: tuple[int, ...]) -> None:
        self.weights = np.random.default_rng(7).uniform(-1.0, 1.0, size=shape[:-1])
        self.calls: list[tuple[np.ndarray, np.ndarray]] = []

    def value(self, observation: np.ndarray) -> float:
        """The value of one position for the player to move (the test's own arithmetic)."""
        planes = observation.astype(np.float64)
        return math.tanh(
            0.3 * float((planes[..., 0] - planes[..., 1]).ravel() @ self.weights.ravel())
        )

    def evaluate_batch(self, observations: np.ndarray, legal_masks: np.ndarray) -> Any:
        self.calls.append((observations.copy(), legal_masks.copy()))
        stones = observations.reshape(len(observations), -1).sum(axis=1)
        actions = np.arange(legal_masks.shape[1])
        priors = 1.0 + (actions[None, :] * 7 + stones[:, None] * 3) % 5
        values = [self.value(o) for o in observations]
        return priors, np.array(values)


def ttt_negamax(own: int, other: int) -> float:
    """Exact value of a tic-tac-toe position for the player to move (``own``'s stones)."""
    return _negamax(own, other)


@cache
def _negamax(own: int, other: int) -> float:
    if any(all(other >> c & 1 for c in line) for line in LINES):
        return -1.0
    empty = [c for c in range(9) if not (own | other) >> c & 1]
    if not empty:
        return 0.0
    return max(-_negamax(other, own | 1 << c) for c in empty)


def planes_to_bits(observation: np.ndarray) -> tuple[int, int]:
    own, other = (observation[..., p].ravel() for p in (0, 1))
    return (
        sum(1 << c for c in range(9) if own[c]),
        sum(1 << c for c in range(9) if other[c]),
    )


class Perfect:
    """A perfect tic-tac-toe evaluator: exact values, priors on the optimal moves only."""

    def evaluate_batch(self, observations: np.ndarray, legal_masks: np.ndarray) -> Any:
        priors = np.zeros(legal_masks.shape)
        values = np.zeros(len(observations))
        for b, observation in enumerate(observations):
            own, other = planes_to_bits(observation)
            values[b] = ttt_negamax(own, other)
            for c in np.flatnonzero(legal_masks[b]):
                priors[b, c] = float(-_negamax(other, own | 1 << int(c)) == values[b])
        return priors, values


class Misleading:
    """Says every position is level and puts almost all prior on the lowest legal action."""

    def evaluate_batch(self, observations: np.ndarray, legal_masks: np.ndarray) -> Any:
        priors = np.where(legal_masks, 0.01, 0.0)
        priors[np.arange(len(priors)), legal_masks.argmax(axis=1)] = 1.0
        return priors, np.zeros(len(observations))


def searcher(evaluator: Any, iterations: int = 300, seed: int = 3, **options: Any) -> MCTS:
    options.setdefault("selection", "puct")
    return MCTS(Budget(iterations=iterations), SearchConfig(evaluator=evaluator, **options), seed)


def timeless(result: SearchResult) -> SearchResult:
    return dataclasses.replace(result, elapsed=0.0)


# ------------------------------------------------------------------ K = 1 is the plain search
@pytest.mark.parametrize(
    ("game", "moves"),
    [(TTT, []), (TTT, [4, 0]), (C4, []), (C4, [3, 3, 2, 4])],
    ids=["ttt-start", "ttt-2-plies", "c4-start", "c4-4-plies"],
)
@pytest.mark.parametrize("selection", ["puct", "ucb1"])
def test_batch_size_1_equals_the_position_by_position_search(
    game: Any, moves: list[int], selection: str
) -> None:
    """Same seed, same evaluator: the batched loop at K = 1 and the per-position search give the
    same results, also on the next move with the tree reused."""
    batched_eval = Heuristic(game.observation_shape)
    batched = searcher(batched_eval, selection=selection)
    plain = searcher(PositionEvaluator(Heuristic(game.observation_shape)), selection=selection)
    state = game.apply(game.initial_state(), moves)
    best = None
    for turn in range(2):
        if best is not None:  # the next move: our best action and a reply, the tree reused
            state = game.next_state(state, best)
            state = game.next_state(state, game.legal_actions(state)[0])
        one, other = batched.search(game, state), plain.search(game, state)
        best = one.best_action
        assert timeless(one) == timeless(other)
        assert one.iterations == 300 or one.proven is not None  # a proof ends a search early
        assert turn == 0 or one.reused_nodes > 0
    assert {len(obs) for obs, _ in batched_eval.calls} == {1}


# ------------------------------------------------------------------ K = 8
def tree_nodes(search: MCTS) -> list[Node]:
    return list(search.table)


def check_tree(search: MCTS, root: Node, iterations: int, heuristic: Heuristic) -> None:
    """Visits and values of a fresh two-player tree add up, with no virtual loss left."""
    nodes = tree_nodes(search)
    incoming_visits = {id(n): 0 for n in nodes}
    incoming_value = {id(n): 0.0 for n in nodes}
    for node in nodes:
        assert len(node.edge_visits) == len(node.children) == len(node.edge_value)
        assert all(n >= 1 for n in node.edge_visits)
        for child, n, w in zip(node.children, node.edge_visits, node.edge_value, strict=True):
            incoming_visits[id(child)] += n
            incoming_value[id(child)] += w
    assert root.visits == iterations and sum(root.edge_visits) == iterations
    for node in nodes:
        if node is root:
            continue
        assert node.visits == incoming_visits[id(node)]
        ends = node.visits - sum(node.edge_visits)  # simulations that stopped here
        if node.returns is not None:  # terminal: every visit scored its returns
            assert not node.children
            expected = node.visits * node.returns[node_mover_before(node)]
        else:
            assert ends >= 1  # evaluated once, or a duplicate in a batch scored the same
            v = heuristic.value(TTT.observation(node.state, node.to_play))
            expected = -(sum(node.edge_value) + ends * v)
        assert incoming_value[id(node)] == pytest.approx(expected, abs=1e-9)


def node_mover_before(node: Node) -> int:
    """The player who moved into a terminal tic-tac-toe position (stone count parity)."""
    stones = int(TTT.observation(node.state, 0).sum())
    return (stones - 1) % 2  # player 0 places the odd-numbered stones


def test_batches_of_8_distinct_positions_and_the_exact_budget() -> None:
    heuristic = Heuristic(TTT.observation_shape)
    search = searcher(heuristic, iterations=101, batch_size=8, solver=False)
    state = TTT.initial_state()
    result = search.search(TTT, state)
    assert result.iterations == 101
    sizes = [len(obs) for obs, _ in heuristic.calls[1:]]  # the first: the root's priors
    assert len(heuristic.calls[0][0]) == 1
    assert max(sizes) == 8 and all(1 <= s <= 8 for s in sizes)
    assert len(sizes) <= math.ceil(101 / 8)  # one call per batch at most
    for observations, masks in heuristic.calls:
        rows = {o.tobytes() + m.tobytes() for o, m in zip(observations, masks, strict=True)}
        assert len(rows) == len(observations)  # no position twice in one call
        for o, m in zip(observations, masks, strict=True):
            assert m.dtype == bool and m.tolist() == (o.sum(axis=-1).ravel() == 0).tolist()
    root = search.table.get(TTT.key(state))
    assert root is not None
    check_tree(search, root, 101, heuristic)


def test_a_leaf_reached_twice_in_a_batch_is_evaluated_once() -> None:
    """Two legal moves, neither ending the game, and a batch of 8: after both children wait
    for the evaluator, every further selection reaches one of them again."""
    state = TTT.apply(TTT.initial_state(), [1, 2, 8, 7, 4, 6, 5])
    assert TTT.legal_actions(state) == [0, 3]
    assert not any(TTT.is_terminal(TTT.next_state(state, a)) for a in (0, 3))
    heuristic = Heuristic(TTT.observation_shape)
    search = searcher(heuristic, iterations=8, batch_size=8, solver=False)
    result = search.search(TTT, state)
    assert [len(obs) for obs, _ in heuristic.calls] == [1, 2]  # the root's priors, one batch
    assert result.iterations == 8 and sum(c.visits for c in result.children) == 8
    root = search.table.get(TTT.key(state))
    assert root is not None
    check_tree(search, root, 8, heuristic)


def check_tree_c4(search: MCTS, root: Node, iterations: int) -> None:
    nodes = tree_nodes(search)
    incoming = {id(n): 0 for n in nodes}
    for node in nodes:
        for child, n in zip(node.children, node.edge_visits, strict=True):
            incoming[id(child)] += n
    assert root.visits == iterations
    for node in nodes:
        if node is not root:
            assert node.visits == incoming[id(node)]
            assert node.visits - sum(node.edge_visits) >= 1


@pytest.mark.parametrize("selection", ["puct", "ucb1", "ucb1_tuned"])
def test_virtual_losses_are_undone_with_every_rule_and_tree_reuse(selection: str) -> None:
    heuristic = Heuristic(TTT.observation_shape)
    search = searcher(heuristic, iterations=200, batch_size=8, solver=False, selection=selection)
    state = TTT.initial_state()
    result = search.search(TTT, state)
    root = search.table.get(TTT.key(state))
    assert root is not None and result.iterations == 200
    check_tree(search, root, 200, heuristic)
    if selection == "ucb1_tuned":  # squared values into the leaves: a virtual one left shows
        for node in tree_nodes(search):
            for child, n, sq in zip(
                node.children, node.edge_visits, node.edge_value_sq, strict=True
            ):
                if child.returns is not None:
                    assert sq == pytest.approx(n * child.returns[0] ** 2)
                elif not child.children:
                    v = heuristic.value(TTT.observation(child.state, child.to_play))
                    assert sq == pytest.approx(n * v * v)
    state = TTT.apply(state, [result.best_action, 0 if result.best_action else 1])
    second = search.search(TTT, state)
    assert second.reused_nodes > 0 and second.iterations == 200


def test_connect_four_batches_keep_the_visit_counts() -> None:
    heuristic = Heuristic(C4.observation_shape)
    search = searcher(heuristic, iterations=150, batch_size=16)
    state = C4.apply(C4.initial_state(), [3, 3, 2])
    assert search.search(C4, state).iterations == 150
    root = search.table.get(C4.key(state))
    assert root is not None
    check_tree_c4(search, root, 150)


def test_node_budget_with_batches() -> None:
    """A full table evaluates leaves without storing them; a lone node budget stops growth."""
    heuristic = Heuristic(TTT.observation_shape)
    config = SearchConfig(evaluator=heuristic, selection="puct", batch_size=8, solver=False)
    search = MCTS(Budget(iterations=120, max_nodes=30), config, seed=0)
    assert search.search(TTT, TTT.initial_state()).iterations == 120
    assert search.table_size() <= 30
    lone = MCTS(Budget(max_nodes=40), config, seed=0)
    result = lone.search(TTT, TTT.initial_state())
    assert lone.table_size() == 40 and result.iterations >= 39


# ------------------------------------------------------------------ solved positions
WIN_IN_ONE = [0, 3, 1, 4]  # X: 0 1, O: 3 4; X to move wins at 2 (O threatens 5)


@pytest.mark.parametrize("evaluator", [Perfect(), Misleading()], ids=["perfect", "misleading"])
@pytest.mark.parametrize("solver", [True, False])
def test_batches_of_8_find_the_win_in_one(evaluator: Any, solver: bool) -> None:
    state = TTT.apply(TTT.initial_state(), WIN_IN_ONE)
    result = searcher(evaluator, iterations=400, batch_size=8, solver=solver).search(TTT, state)
    assert result.best_action == 2
    assert result.principal_variation[0] == 2
    if solver:
        assert result.proven == "win" and result.iterations < 400  # stops once proven


def test_perfect_evaluator_agrees_with_the_reference_solver() -> None:
    """The test's own negamax over planes against ``tests.reference`` on random positions."""
    from tests.reference import exact_returns

    solve = exact_returns(TTT)
    rng = np.random.default_rng(0)
    for _ in range(40):
        state = TTT.initial_state()
        for _ in range(int(rng.integers(0, 7))):
            if TTT.is_terminal(state):
                break
            state = TTT.next_state(state, int(rng.choice(TTT.legal_actions(state))))
        if TTT.is_terminal(state):
            continue
        mover = TTT.to_play(state)
        own, other = planes_to_bits(TTT.observation(state, mover))
        assert ttt_negamax(own, other) == solve(state)[mover]


# ------------------------------------------------------------------ errors
class FailsOnCall:
    def __init__(self, bad_call: int) -> None:
        self.inner = Heuristic(TTT.observation_shape)
        self.bad_call = bad_call

    def evaluate_batch(self, observations: np.ndarray, legal_masks: np.ndarray) -> Any:
        priors, values = self.inner.evaluate_batch(observations, legal_masks)
        if len(self.inner.calls) == self.bad_call:
            values[0] = math.nan
        return priors, values


def test_a_failed_batch_drops_the_tree_and_the_next_search_is_sound() -> None:
    evaluator = FailsOnCall(bad_call=4)
    search = searcher(evaluator, iterations=100, batch_size=8, solver=False)
    state = TTT.initial_state()
    with pytest.raises(EvaluatorError, match=r"FailsOnCall returned values\[0\] = nan"):
        search.search(TTT, state)
    assert search.table_size() == 0
    assert search.search(TTT, state).iterations == 100
    root = search.table.get(TTT.key(state))
    assert root is not None
    check_tree(search, root, 100, evaluator.inner)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"batch_size": 0}, r"batch_size must be an int >= 1, got 0"),
        ({"batch_size": 2.0}, r"batch_size must be an int >= 1, got 2.0"),
        ({"batch_size": True}, r"batch_size must be an int >= 1, got True"),
        ({"virtual_loss": -0.5}, r"virtual_loss must be a finite number in \[0, 1\], got -0.5"),
        ({"virtual_loss": 2.0}, r"virtual_loss must be a finite number in \[0, 1\], got 2.0"),
        ({"virtual_loss": math.nan}, r"virtual_loss must be a finite number in \[0, 1\], got nan"),
        ({"virtual_loss": "1"}, r"virtual_loss must be a finite number in \[0, 1\], got '1'"),
    ],
)
def test_bad_batch_options_are_refused(options: dict[str, Any], message: str) -> None:
    with pytest.raises(InvalidOptionError, match=message):
        SearchConfig(evaluator=Heuristic(TTT.observation_shape), **options)


def test_batches_need_a_batch_evaluator() -> None:
    with pytest.raises(InvalidOptionError, match=r"batch_size=8 needs a batch evaluator"):
        SearchConfig(batch_size=8)
    with pytest.raises(InvalidOptionError, match=r"batch_size=4 needs a batch evaluator"):
        SearchConfig(batch_size=4, evaluator=lambda game, state: ((0.0, 0.0), None))
    with pytest.raises(InvalidOptionError, match=r"evaluate_batch\(observations, legal_masks\)"):
        SearchConfig(evaluator=object())


@pytest.mark.parametrize(
    ("game", "message"),
    [
        (MNK(4, 4, 3, num_players=3), r"gives one value per position.*has 3"),
        (Pig(), r"cannot evaluate chance nodes"),
    ],
    ids=["three-players", "chance"],
)
def test_games_a_single_value_cannot_describe_are_refused(game: Any, message: str) -> None:
    search = searcher(Heuristic(game.observation_shape), batch_size=4)
    with pytest.raises(InvalidOptionError, match=r"batch evaluator Heuristic " + message):
        search.search(game, game.initial_state())
