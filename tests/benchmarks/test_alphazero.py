"""The AlphaZero smoke run's perfect player (negamax over the core), checked against what is
known of tic-tac-toe; the training itself is run by hand (``python -m benchmarks.alphazero``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from benchmarks.alphazero import GAME, Negamax, PerfectPlayer, against_perfect, play


def test_negamax_knows_tic_tac_toe() -> None:
    solver = Negamax(GAME)
    start = GAME.initial_state()
    assert solver.value(start) == 0.0  # a draw
    assert len(solver.memo) == 5478 - 958  # the reachable positions that are not over
    assert sorted(solver.best_moves(start)) == list(range(9))  # no first move loses
    corner = GAME.next_state(start, 0)
    assert solver.best_moves(corner) == [4]  # against a corner only the centre holds
    # x at 0 and 1, o at 4: o must block at 2
    state = GAME.next_state(GAME.next_state(corner, 4), 1)
    assert solver.best_moves(state) == [2]


class Random:
    def __init__(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)

    def move(self, state: Any) -> int:
        return int(self.rng.choice(GAME.legal_actions(state)))


def test_perfect_play_draws_itself_and_never_loses() -> None:
    solver = Negamax(GAME)
    for seed in range(10):
        assert play(GAME, [PerfectPlayer(solver, seed), PerfectPlayer(solver, seed + 50)]) == (
            0.0,
            0.0,
        )
    counts = against_perfect(Random, 40, seed=1, solver=solver)
    assert counts["wins"] == 0 and counts["losses"] > 20
    assert sum(counts.values()) == 40
