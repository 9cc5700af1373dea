"""The compiled Connect Four search against the rules core, exact results and the Python search."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from benchmarks.c4_solver import state_after
from mcts_agents import Budget, MCTSAgent, SearchConfig, make_searcher
from mcts_agents.compiled.rules import connect_four as rules
from mcts_agents.compiled.searcher import CompiledSearch
from mcts_agents.envs import connect_four_v0, pig_v0
from mcts_agents.envs.games.connect_four import ConnectFour
from mcts_agents.errors import InvalidOptionError
from tests.envs.test_connect_four import brute_force_threats, brute_force_won

GAME = ConnectFour()
POSITIONS = [
    json.loads(line)
    for line in (Path(__file__).parents[3] / "benchmarks/data/c4_positions.jsonl").open()
]
LABELS = {"win": 1, "draw": 0, "loss": -1}


def random_states(count: int, seed: int) -> list[Any]:
    """Non-terminal states of seeded random games, 0 to 35 plies deep."""
    rng = random.Random(seed)
    states = []
    while len(states) < count:
        state = GAME.initial_state()
        for _ in range(rng.randrange(36)):
            state = GAME.next_state(state, rng.choice(GAME.legal_actions(state)))
            if GAME.is_terminal(state):
                break
        if not GAME.is_terminal(state):
            states.append(state)
    return states


def position(state: Any) -> tuple[int, int]:
    b0, b1, ply, _ = state
    return (b0 if ply % 2 == 0 else b1), b0 | b1


def search(state: Any, iterations: int, seed: int = 0, backend: str = "numba") -> Any:
    config = SearchConfig(backend=backend)  # type: ignore[arg-type]
    searcher = make_searcher(GAME, Budget(iterations=iterations), config, seed=seed)
    return searcher.search(GAME, state)


# --------------------------------------------------------------------------- rules in the kernel
def test_compiled_win_and_threat_tests_equal_cell_by_cell_checks() -> None:
    """The kernel compiles the core's ``won4``/``threats4`` for int64: same answers as line
    scans over the cells (left shifts past bit 63 must not matter)."""
    stride, full = GAME.layout.stride, GAME.layout.full
    for state in random_states(300, seed=1):
        b0, b1, _, _ = state
        empty = full & ~(b0 | b1)
        for board in (b0, b1):
            assert rules._won4(board, stride) == brute_force_won(GAME, board)
            assert rules._threats(board, empty, stride) == brute_force_threats(GAME, board, b0 | b1)


@pytest.mark.parametrize("decisive", [False, True])
def test_playouts_have_the_rules_cores_distribution(decisive: bool) -> None:
    """Mean playout values from three positions agree with the core's within 4.5 std errors."""
    rng = np.array([12345], np.uint64)
    py_rng = random.Random(0)
    playout = GAME.decisive_rollout if decisive else GAME.rollout
    n = 20_000
    for state in random_states(3, seed=7):
        cur, mask = position(state)
        layout = GAME.layout
        args = (layout.stride, 4, layout.full, layout.bottom_row, decisive, rng)
        ours = np.array([rules._rollout(cur, mask, *args) for _ in range(n)])
        mover = GAME.to_play(state)
        core = np.array([playout(state, py_rng)[mover] for _ in range(n)])
        error = np.sqrt(ours.var() / n + core.var() / n)
        assert abs(ours.mean() - core.mean()) <= 4.5 * error + 1e-9, state


# --------------------------------------------------------------------------- exact results
@pytest.mark.parametrize("empty", [16, 20, 24])
def test_every_proof_matches_the_exact_solution(empty: int) -> None:
    """Positions labelled by our exact solver (benchmarks/c4_solver.py): no proof is wrong."""
    chosen = [p for p in POSITIONS if p["empty"] == empty]
    proven = 0
    for i, entry in enumerate(chosen):
        result = search(state_after(entry["moves"]), 100_000, seed=i)
        if result.proven is not None:
            proven += 1
            assert LABELS[result.proven] == entry["value"], entry["moves"]
            assert entry["move_values"][result.best_action] == entry["value"], entry["moves"]
    assert proven >= len(chosen) * 0.6  # 16 empty cells: all 50 in about 1 s


def test_equal_strength_to_the_python_search_at_equal_simulations() -> None:
    """Share of the 200 labelled positions where the move keeps the exact result, at 300
    simulations: the two backends run one algorithm, so the shares agree (paired, within
    0.08, about 2.5 standard errors); both are far above the 58% of a random legal move."""
    scores = {}
    for backend in ("python", "numba"):
        right = 0
        for i, entry in enumerate(POSITIONS):
            result = search(state_after(entry["moves"]), 300, seed=i, backend=backend)
            right += entry["move_values"][result.best_action] == entry["value"]
        scores[backend] = right / len(POSITIONS)
    assert abs(scores["numba"] - scores["python"]) <= 0.08, scores
    assert min(scores.values()) >= 0.8, scores


# --------------------------------------------------------------------------- determinism, growth
def test_same_seed_same_result_and_growth_changes_nothing() -> None:
    """Arrays that start tiny and grow (nodes, edges, hash table) give the very same search."""
    state = random_states(1, seed=3)[0]
    config = SearchConfig(backend="numba")
    results = []
    for capacity in (16, 1 << 16):
        searcher = CompiledSearch(GAME, Budget(iterations=20_000), config, 9, capacity)
        results.append(searcher.search(GAME, state))
        assert searcher.table_size() == results[-1].nodes > 1000
    small, large = results
    assert small.children == large.children and small.nodes == large.nodes
    other = CompiledSearch(GAME, Budget(iterations=20_000), config, 10)
    assert other.search(GAME, state).children != small.children


def test_reroot_keeps_exactly_the_reachable_positions() -> None:
    """After re-rooting, the table is the old table filtered by the core's ``is_reachable``."""
    config = SearchConfig(backend="numba")
    searcher = CompiledSearch(GAME, Budget(iterations=30_000), config, 0)
    state = GAME.initial_state()
    first = searcher.search(GAME, state)
    before = searcher.table_keys()
    for action in first.principal_variation[:2]:
        state = GAME.next_state(state, action)
    second = searcher.search(GAME, state)
    expected = {key for key in before if GAME.is_reachable(state, key)}
    assert second.reused_nodes == len(expected) > 0
    assert second.pruned_nodes == len(before) - len(expected) > 0
    after = set(searcher.table_keys())
    assert expected <= after and all(GAME.is_reachable(state, key) for key in after)


# --------------------------------------------------------------------------- options and errors
def test_backend_numba_names_what_it_cannot_do() -> None:
    env = pig_v0.raw_env()
    env.reset(seed=0)
    with pytest.raises(InvalidOptionError, match="no compiled kernel for Pig"):
        MCTSAgent(iterations=10, backend="numba").search(env)
    env = connect_four_v0.raw_env()
    env.reset()
    with pytest.raises(InvalidOptionError, match="selection='ucb1', got 'puct'"):
        MCTSAgent(iterations=10, backend="numba", selection="puct").search(env)
    with pytest.raises(InvalidOptionError, match=r"width \* \(height \+ 1\) <= 62, got width=9"):
        make_searcher(ConnectFour(9, 7), Budget(iterations=10), SearchConfig(backend="numba"))
    searcher = make_searcher(GAME, Budget(iterations=10), SearchConfig(backend="numba"))
    with pytest.raises(InvalidOptionError, match=r"plays ConnectFour.*build one per game"):
        searcher.search(ConnectFour(width=6), ConnectFour(width=6).initial_state())


def test_auto_runs_the_kernel_where_it_can_and_python_elsewhere() -> None:
    env = connect_four_v0.raw_env()
    env.reset()
    assert MCTSAgent(iterations=50).search(env).backend == "numba"
    assert MCTSAgent(iterations=50, selection="puct").search(env).backend == "python"
    assert MCTSAgent(iterations=50, backend="python").search(env).backend == "python"
    env = pig_v0.raw_env()
    env.reset(seed=0)
    assert MCTSAgent(iterations=50).search(env).backend == "python"
