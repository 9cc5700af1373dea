"""Many trees of one batch evaluator searched in lockstep (``mcts_agents.search.tree_batch``).

The truth each tree is held to is its own ``MCTS.search``, with the same seed, at the same
positions, move after move (its tree reused): the lockstep must change how the leaves reach
the evaluator (one call a round for every tree) and nothing else. The network is the tests'
tiny AlphaZero network (``NetConfig(channels=8, blocks=1, value_hidden=8)``, seed 0, torch on
the CPU). Rows of a bigger batch may round differently in a network's matrix products, so the
exact comparison evaluates the network one row at a time (``RowByRow``: the same numbers
whatever else is in the call); the network itself, batched, gives the same moves and visits
and values equal to within rounding.
"""

from __future__ import annotations

import dataclasses
import random
from typing import Any

import numpy as np
import pytest

from mcts_agents import Budget, SearchConfig, SearchResult
from mcts_agents.envs.games.connect_four import ConnectFour
from mcts_agents.envs.games.mnk import MNK
from mcts_agents.errors import InvalidOptionError
from mcts_agents.search import MCTS
from mcts_agents.search.tree_batch import joins_lockstep, search_lockstep

TTT = MNK(3, 3, 3)
C4 = ConnectFour()


def tiny_network(game: Any) -> Any:
    """The tests' tiny AlphaZero network for ``game``, as a ``TorchEvaluator`` on the CPU."""
    pytest.importorskip("torch")
    from mcts_agents.alphazero.learn import NetConfig, TorchEvaluator, build_net

    net = build_net(game, NetConfig(channels=8, blocks=1, value_hidden=8), seed=0)
    return TorchEvaluator(net, "cpu")


class RowByRow:
    """A batch evaluator that runs ``inner`` on one row at a time (so a row's numbers never
    depend on the others of its call) and counts its calls and rows."""

    def __init__(self, inner: Any, rowwise: bool = True) -> None:
        self.inner = inner
        self.rowwise = rowwise
        self.calls: list[int] = []

    def evaluate_batch(self, observations: np.ndarray, legal_masks: np.ndarray) -> Any:
        self.calls.append(len(observations))
        if not self.rowwise:
            return self.inner.evaluate_batch(observations, legal_masks)
        rows = [
            self.inner.evaluate_batch(observations[i : i + 1], legal_masks[i : i + 1])
            for i in range(len(observations))
        ]
        priors = np.concatenate([np.asarray(p, dtype=np.float64) for p, _ in rows])
        values = np.concatenate([np.asarray(v, dtype=np.float64).reshape(-1) for _, v in rows])
        return priors, values


def timeless(result: SearchResult) -> SearchResult:
    return dataclasses.replace(result, elapsed=0.0)


def openings(game: Any, count: int, seed: int) -> list[Any]:
    """``count`` positions, tree ``i`` ``i % 4`` random plies into the game."""
    rng = random.Random(seed)
    states = []
    for i in range(count):
        state = game.initial_state()
        for _ in range(i % 4):
            state = game.next_state(state, rng.choice(list(game.legal_actions(state))))
        states.append(state)
    return states


def play_both(
    game: Any, evaluator: RowByRow, budget: Budget, options: dict[str, Any], trees: int = 4
) -> tuple[list[list[SearchResult]], list[list[SearchResult]], list[int], list[int]]:
    """Two moves of ``trees`` trees, alone and in lockstep (same seeds, same positions; the
    move played: the search's best, then a random reply). Returns both sides' results per
    move and the evaluator's calls per move on each side."""
    config = SearchConfig(evaluator=evaluator, **options)
    alone = [MCTS(budget, config, seed=20 + i) for i in range(trees)]
    lockstep = [MCTS(budget, config, seed=20 + i) for i in range(trees)]
    states = openings(game, trees, seed=1)
    rng = random.Random(2)
    one, together, calls_alone, calls_together = [], [], [], []
    for _ in range(2):
        live = [i for i in range(trees) if not game.is_terminal(states[i])]
        before = len(evaluator.calls)
        one.append([alone[i].search(game, states[i]) for i in live])
        calls_alone.append(len(evaluator.calls) - before)
        before = len(evaluator.calls)
        together.append(
            search_lockstep(
                [lockstep[i] for i in live], [game] * len(live), [states[i] for i in live]
            )
        )
        calls_together.append(len(evaluator.calls) - before)
        for i, result in zip(live, one[-1], strict=True):
            state = game.next_state(states[i], result.best_action)
            if not game.is_terminal(state):
                state = game.next_state(state, rng.choice(list(game.legal_actions(state))))
            states[i] = state
    return one, together, calls_alone, calls_together


OPTIONS = {
    "puct-k1": {"selection": "puct", "batch_size": 1},
    "puct-k8": {"selection": "puct", "batch_size": 8},
    "solver-noise-k3": {
        "selection": "puct",
        "batch_size": 3,
        "solver": True,
        "expand_all": True,
        "root_noise": (0.3, 0.25),
    },
    "robust-max-k5": {"selection": "puct", "batch_size": 5, "final_move": "robust_max"},
    "gumbel-k4": {"selection": "gumbel", "batch_size": 4},
}


@pytest.mark.parametrize("game", [TTT, C4], ids=["tic-tac-toe", "connect-four"])
@pytest.mark.parametrize("name", list(OPTIONS))
def test_each_tree_in_lockstep_gives_its_own_search_result(game: Any, name: str) -> None:
    """Same seeds and positions: every tree's result, move after move, is its search's alone
    (terminal leaves, proofs, transpositions and tree reuse included), with one evaluator call
    a round for all the trees (the most any one tree needs, not their sum)."""
    evaluator = RowByRow(tiny_network(game))
    budget = Budget(iterations=32)
    one, together, calls_alone, calls_together = play_both(game, evaluator, budget, OPTIONS[name])
    for alone_move, together_move in zip(one, together, strict=True):
        assert [timeless(r) for r in together_move] == [timeless(r) for r in alone_move]
        assert all(r.iterations >= 32 or r.proven is not None for r in together_move)
    assert sum(calls_together) < sum(calls_alone)


def test_a_node_budget_in_lockstep_gives_each_search_its_result() -> None:
    """``max_nodes`` alone ends a search when its table is full: per tree, as alone."""
    evaluator = RowByRow(tiny_network(TTT))
    one, together, _, _ = play_both(
        TTT, evaluator, Budget(max_nodes=60), {"selection": "puct", "batch_size": 4}
    )
    for alone_move, together_move in zip(one, together, strict=True):
        assert [timeless(r) for r in together_move] == [timeless(r) for r in alone_move]


def test_the_network_batched_plays_the_same_moves_and_visits() -> None:
    """The network given all the trees' rows at once: the same moves and visit counts, the
    values equal to within rounding (a row's numbers may round differently in a bigger
    batch); a round is one call of every tree's rows, so at K = 8 and 32 simulations each
    tree needs 5 calls a move (the root, then 4 rounds) and the trees together 5 too."""
    evaluator = RowByRow(tiny_network(C4), rowwise=False)
    budget = Budget(iterations=32)
    one, together, calls_alone, calls_together = play_both(
        C4, evaluator, budget, {"selection": "puct", "batch_size": 8, "reuse": False}
    )
    for alone_move, together_move in zip(one, together, strict=True):
        for a, b in zip(alone_move, together_move, strict=True):
            assert b.best_action == a.best_action
            assert [(c.action, c.visits) for c in b.children] == [
                (c.action, c.visits) for c in a.children
            ]
            assert b.root_value == pytest.approx(a.root_value, abs=1e-9)
            assert b.iterations == 32
    assert calls_together == [5, 5]  # no game ends within 32 simulations of these positions
    assert calls_alone == [5 * 4] * 2


def test_a_failed_evaluation_drops_every_tree_and_the_next_search_is_sound() -> None:
    """The evaluator fails in the middle of a lockstep: the error goes on, every tree's table
    is dropped (no virtual loss left behind), and a later search is a fresh search's."""

    class Failing(RowByRow):
        def evaluate_batch(self, observations: np.ndarray, legal_masks: np.ndarray) -> Any:
            if len(self.calls) == 3:
                self.calls.append(0)
                raise RuntimeError("device lost")
            return super().evaluate_batch(observations, legal_masks)

    evaluator = Failing(tiny_network(TTT))
    config = SearchConfig(selection="puct", evaluator=evaluator, batch_size=4)
    trees = [MCTS(Budget(iterations=30), config, seed=i) for i in range(3)]
    states = openings(TTT, 3, seed=4)
    with pytest.raises(RuntimeError, match="device lost"):
        search_lockstep(trees, [TTT] * 3, states)
    assert [tree.table_size() for tree in trees] == [0, 0, 0]
    fresh = [MCTS(Budget(iterations=30), config, seed=i) for i in range(3)]
    again = search_lockstep(trees, [TTT] * 3, states)
    assert [timeless(r) for r in again] == [
        timeless(f.search(TTT, s)) for f, s in zip(fresh, states, strict=True)
    ]


def test_searches_that_do_not_join_are_refused_by_name() -> None:
    evaluator = RowByRow(tiny_network(TTT))
    puct = SearchConfig(selection="puct", evaluator=evaluator)
    timed = MCTS(Budget(time_limit=1.0), puct)
    playouts = MCTS(Budget(iterations=10), SearchConfig())
    tree = MCTS(Budget(iterations=10), puct)
    start = TTT.initial_state()
    assert joins_lockstep(tree) and not joins_lockstep(timed) and not joins_lockstep(playouts)
    for bad in (timed, playouts):
        with pytest.raises(InvalidOptionError, match="batch evaluator with no time limit"):
            search_lockstep([tree, bad], [TTT] * 2, [start] * 2)
    with pytest.raises(InvalidOptionError, match="twice"):
        search_lockstep([tree, tree], [TTT] * 2, [start] * 2)
    with pytest.raises(InvalidOptionError, match="one searcher and one game per state"):
        search_lockstep([tree], [TTT] * 2, [start] * 2)
