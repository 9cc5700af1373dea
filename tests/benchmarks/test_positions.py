"""The shipped Connect Four position set: format, labels re-checked by the solver, the runner."""

from __future__ import annotations

import random

from benchmarks import positions
from benchmarks.c4_solver import Solver, state_after
from mcts_agents.envs.games.connect_four import ConnectFour

GAME = ConnectFour()
SET = positions.load()
FIELDS = {
    "moves",
    "empty",
    "to_play",
    "value",
    "best_moves",
    "move_values",
    "solver_nodes",
}


def test_format_and_labels_agree_with_the_rules_core() -> None:
    assert 150 <= len(SET) <= 300
    assert len({tuple(p["moves"]) for p in SET}) == len(SET)
    for p in SET:
        assert set(p) == FIELDS
        state = GAME.initial_state()
        for action in p["moves"]:
            assert not GAME.is_terminal(state)
            state = GAME.next_state(state, action)
        assert not GAME.is_terminal(state)
        assert p["empty"] == 42 - len(p["moves"]) and p["empty"] in positions.DEFAULT_EMPTIES
        assert p["to_play"] == GAME.to_play(state)
        legal = GAME.legal_actions(state)
        assert [c for c, v in enumerate(p["move_values"]) if v is not None] == legal
        assert p["value"] == max(v for v in p["move_values"] if v is not None)
        assert p["best_moves"] == [c for c in legal if p["move_values"][c] == p["value"]]
        assert 0 < len(p["best_moves"]) < len(legal)  # interesting: a wrong move exists
        assert not one_ply_deep(state), p["moves"]


def one_ply_deep(state: tuple[int, int, int, int]) -> bool:
    """Whether either player would win at once by playing a legal move (rules core's verdict)."""
    b0, b1, ply, status = state
    for mover_state in (state, (b0, b1, ply + 1, status)):  # the same board, each side to move
        for action in GAME.legal_actions(mover_state):
            if GAME.next_state(mover_state, action)[3] in (1, 2):  # a win, not a draw
                return True
    return False


def test_one_ply_deep_sees_wins_and_blocks() -> None:
    assert one_ply_deep(state_after([3, 3, 4, 4, 5, 5]))  # X wins at 2 or 6
    assert one_ply_deep(state_after([3, 3, 4, 4, 5]))  # O must block
    assert not one_ply_deep(state_after([3, 3, 4, 4]))


def test_a_sample_of_labels_is_reproduced_by_a_fresh_solver() -> None:
    cheap = [p for p in SET if p["solver_nodes"] < 20_000]
    for p in random.Random(0).sample(cheap, 25):
        solution = Solver().solve(state_after(p["moves"]))
        assert solution.value == p["value"]
        assert list(solution.best_moves) == p["best_moves"]
        assert [solution.move_values.get(c) for c in range(7)] == p["move_values"]


def test_build_is_deterministic_and_reproduces_the_shipped_set() -> None:
    rebuilt = positions.build(seed=0, per_k=4, empties=[positions.DEFAULT_EMPTIES[0]])
    assert rebuilt == SET[:4]


def test_run_reports_consistent_counts() -> None:
    result = positions.run(SET[:3], 0.01, {}, lambda line: None)
    assert [r["index"] for r in result["records"]] == [0, 1, 2]
    for r in result["records"]:
        for side in ("ours", "cpp"):
            p = SET[r["index"]]
            assert r[side]["correct"] == (r[side]["move"] in p["best_moves"])
            assert r[side]["sims"] >= 1
    overall = result["summary"]["all"]
    for side in ("ours", "cpp"):
        assert overall[side]["n"] == 3
        assert overall[side]["correct"] == sum(r[side]["correct"] for r in result["records"])
        low, high = overall[side]["ci95"]
        assert 0.0 <= low <= overall[side]["share"] <= high <= 1.0
