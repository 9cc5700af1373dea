"""The Connect Four solver against truths from outside it: plain minimax on our rules core."""

from __future__ import annotations

import random

import pytest

from benchmarks.c4_solver import Solver, SolverError, solve_moves, state_after
from mcts_agents.envs.games.connect_four import ConnectFour
from tests.reference import exact_returns, optimal_actions

GAME = ConnectFour()


def minimax(state: tuple[int, int, int, int]) -> float:
    """Value for player 0 by plain minimax over the rules core: no pruning, no table."""
    if GAME.is_terminal(state):
        return GAME.returns(state)[0]
    values = [minimax(GAME.next_state(state, a)) for a in GAME.legal_actions(state)]
    return max(values) if GAME.to_play(state) == 0 else min(values)


def random_position(
    rng: random.Random, empties: int
) -> tuple[list[int], tuple[int, int, int, int]]:
    """Random moves on the rules core until ``empties`` cells are left, the game still running."""
    while True:
        state, moves = GAME.initial_state(), []
        while not GAME.is_terminal(state) and 42 - state[2] > empties:
            action = rng.choice(GAME.legal_actions(state))
            state = GAME.next_state(state, action)
            moves.append(action)
        if not GAME.is_terminal(state):
            return moves, state


def test_state_after_matches_the_rules_core() -> None:
    rng = random.Random(0)
    for _ in range(50):
        moves, state = random_position(rng, rng.randint(1, 40))
        assert state_after(moves) == state


def test_matches_plain_minimax_on_positions_with_at_most_10_empty_cells() -> None:
    rng = random.Random(1)
    for i in range(60):
        moves, state = random_position(rng, 1 + i % 10)
        sign = 1 if GAME.to_play(state) == 0 else -1
        truth = {
            a: int(sign * minimax(GAME.next_state(state, a))) for a in GAME.legal_actions(state)
        }
        solution = Solver().solve(state)
        assert solution.move_values == truth, moves
        assert solution.value == max(truth.values())
        assert solution.best_moves == tuple(a for a in sorted(truth) if truth[a] == solution.value)


def test_matches_the_memoised_reference_on_positions_with_12_to_14_empty_cells() -> None:
    solve = exact_returns(GAME)
    rng = random.Random(2)
    solver = Solver()  # one table for all positions, as the position set is built
    for i in range(12):
        _, state = random_position(rng, 12 + i % 3)
        me = GAME.to_play(state)
        solution = solver.solve(state)
        assert solution.value == solve(state)[me]
        assert list(solution.best_moves) == optimal_actions(GAME, state, solve)


def test_a_move_that_wins_at_once_is_worth_a_win() -> None:
    rng = random.Random(3)
    checked = 0
    while checked < 30:
        _, state = random_position(rng, rng.randint(6, 20))
        me = GAME.to_play(state)
        winning = [
            a
            for a in GAME.legal_actions(state)
            if GAME.is_terminal(s := GAME.next_state(state, a)) and GAME.returns(s)[me] == 1
        ]
        if not winning:
            continue
        solution = Solver().solve(state)
        assert solution.value == 1
        assert all(solution.move_values[a] == 1 for a in winning)
        checked += 1


def test_scripted_open_three() -> None:
    # X on the bottom row in columns 3, 4, 5 with 2 and 6 open; O stacked on 3 and 4
    to_move_x = solve_moves([3, 3, 4, 4, 5, 5])  # X to move: plays 2 or 6 and wins
    assert to_move_x.value == 1
    assert to_move_x.move_values[2] == to_move_x.move_values[6] == 1
    to_move_o = solve_moves([3, 3, 4, 4, 5])  # O to move cannot stop both ends
    assert to_move_o.value == -1
    assert set(to_move_o.move_values.values()) == {-1}
    assert to_move_o.best_moves == tuple(range(7))


def test_last_cell_draws_unless_it_wins() -> None:
    rng = random.Random(4)
    for _ in range(20):
        _, state = random_position(rng, 1)
        (action,) = GAME.legal_actions(state)
        after = GAME.next_state(state, action)
        expected = int(GAME.returns(after)[GAME.to_play(state)])
        assert GAME.is_terminal(after)
        assert Solver().solve(state).value == expected


def test_finished_or_broken_positions_raise() -> None:
    rng = random.Random(5)
    state = GAME.initial_state()
    while not GAME.is_terminal(state):
        state = GAME.next_state(state, rng.choice(GAME.legal_actions(state)))
    with pytest.raises(SolverError):
        Solver().solve(state)
    with pytest.raises(SolverError, match="illegal move"):
        state_after([0] * 7)
    with pytest.raises(SolverError, match="stacked"):
        Solver().solve((1 << 3, 0, 1, 0))  # a floating stone
