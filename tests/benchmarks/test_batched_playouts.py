"""Batched numpy playouts: legal games to true terminal states, same outcome law as scalar."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from benchmarks.batched_playouts import (
    _tables,
    batched_decisive_playouts,
    batched_random_playouts,
    midgame_state,
)
from mcts_agents.envs.games.connect_four import ConnectFour, threats4, won4

GAME = ConnectFour()
N = 20_000


def empty_cells(state: tuple[int, ...]) -> int:
    return GAME.layout.full ^ (state[0] | state[1])


def _state(moves: list[int]) -> tuple[int, int, int, int]:
    state = GAME.initial_state()
    for action in moves:
        state = GAME.next_state(state, action)
    return state


def _batch(states: list[tuple[int, int, int, int]]) -> tuple[np.ndarray, ...]:
    return (
        np.array([s[0] for s in states], dtype=np.uint64),
        np.array([s[1] for s in states], dtype=np.uint64),
        np.array([s[2] for s in states], dtype=np.int64),
    )


def _column_heights_ok(mask: int) -> bool:
    """Gravity: every column's stones are a contiguous run from the bottom."""
    stride = GAME.height + 1
    for c in range(GAME.width):
        col = (mask >> (c * stride)) & ((1 << stride) - 1)
        if col & (col + 1):
            return False
    return True


def test_random_playouts_reach_true_terminal_states() -> None:
    # a batch mixing plies and players to move, each start repeated
    starts = [GAME.initial_state(), midgame_state(), _state([3]), _state([0, 6, 0, 6, 1])] * 250
    b0, b1, ply = _batch(starts)
    results, f0, f1 = batched_random_playouts(
        b0, b1, ply, np.random.default_rng(1), return_boards=True
    )
    assert results.shape == (len(starts),) and set(np.unique(results)) <= {-1, 0, 1}
    for start, r, a, b in zip(starts, results.tolist(), f0.tolist(), f1.tolist(), strict=True):
        assert a & b == 0 and (a | b) & ~GAME.layout.full == 0
        assert a & start[0] == start[0] and b & start[1] == start[1]  # stones never leave
        assert _column_heights_ok(a | b)
        n0, n1 = a.bit_count(), b.bit_count()
        assert n0 - n1 in (0, 1)  # alternate moves, player 0 first
        w0, w1 = won4(a, GAME.layout.stride), won4(b, GAME.layout.stride)
        assert not (w0 and w1)
        if w0:
            assert r == 1 and n0 == n1 + 1  # player 0 made the last move, and won with it
            assert _stopped_at_first_win(a, a | b)
        elif w1:
            assert r == -1 and n0 == n1
            assert _stopped_at_first_win(b, a | b)
        else:
            assert r == 0 and (a | b) == GAME.layout.full  # a draw is a full board


def _stopped_at_first_win(winner: int, mask: int) -> bool:
    """Some top stone of the winner (its last move) was needed: before it, no four."""
    stride = GAME.height + 1
    for c in range(GAME.width):
        col = (mask >> (c * stride)) & ((1 << stride) - 1)
        if col:
            top = 1 << (c * stride + col.bit_length() - 1)
            if winner & top and not won4(winner & ~top, GAME.layout.stride):
                return True
    return False


def test_move_tables_pick_each_legal_column_equally_often() -> None:
    # outcome shares barely notice a biased move choice, so the exact uniformity is checked here
    t = _tables(7, 6)
    stride = t.stride
    rows = t.bottom_table.reshape(1 << 7, t.lcm)
    cols = t.column_table.reshape(1 << 7, t.lcm)
    for pattern in range(1, 1 << 7):
        legal = [c for c in range(7) if pattern >> c & 1]
        expected = {1 << (c * stride): t.lcm // len(legal) for c in legal}
        values, counts = np.unique(rows[pattern], return_counts=True)
        assert dict(zip(values.tolist(), counts.tolist(), strict=True)) == expected
        values, counts = np.unique(cols[pattern], return_counts=True)
        assert dict(zip(values.tolist(), counts.tolist(), strict=True)) == {
            c: t.lcm // len(legal) for c in legal
        }
        spread_bits = sum(1 << (c * stride) for c in legal)
        assert int(t.gather(np.array([spread_bits], dtype=np.uint64))[0]) == pattern


def test_terminal_inputs_are_scored_as_they_are() -> None:
    won = _state([0, 1, 0, 1, 0, 1, 0])
    assert won[3] == 1
    b0, b1, ply = _batch([won, won])
    for fn in (batched_random_playouts, batched_decisive_playouts):
        assert fn(b0, b1, ply, np.random.default_rng(0)).tolist() == [1, 1]


def _shares(results: np.ndarray | list[float]) -> np.ndarray:
    r = np.asarray(results)
    return np.array([(r > 0).mean(), (r == 0).mean(), (r < 0).mean()])


@pytest.mark.parametrize(
    ("batched", "method"),
    [(batched_random_playouts, "rollout"), (batched_decisive_playouts, "decisive_rollout")],
)
@pytest.mark.parametrize("state", [GAME.initial_state(), midgame_state()], ids=["initial", "mid"])
def test_outcome_distribution_matches_the_scalar_playouts(batched, method, state) -> None:
    b0, b1, ply = _batch([state])
    ours = _shares(batched(*(np.repeat(x, N) for x in (b0, b1, ply)), np.random.default_rng(7)))
    rollout = getattr(GAME, method)
    rng = random.Random(7)
    theirs = _shares([rollout(state, rng)[0] for _ in range(N)])
    for p, q in zip(ours, theirs, strict=True):
        # two independent samples of N: standard error of the difference of the shares
        pooled = (p + q) / 2
        se = math.sqrt(2 * pooled * (1 - pooled) / N)
        # 4.5 sigma, plus 0.001 for the shares near 0 (draws) where the pooled se is rough
        assert abs(p - q) <= 4.5 * se + 1e-3, (ours, theirs)


def test_decisive_playouts_take_an_immediate_win() -> None:
    # X (player 0) to move with three in a row on the bottom row, and O likewise on row 1
    p0_wins = _state([0, 0, 1, 1, 2, 2])
    # O (player 1) to move with three stacked in column 6; X has no immediate win
    p1_wins = _state([0, 6, 1, 6, 3, 6, 5])
    b0, b1, ply = _batch([p0_wins, p1_wins])
    k = 500
    results, f0, f1 = batched_decisive_playouts(
        *(np.repeat(x, k) for x in (b0, b1, ply)), np.random.default_rng(3), return_boards=True
    )
    assert (results[:k] == 1).all() and (results[k:] == -1).all()
    # the win is decided before any move: the boards are the starting ones
    assert (f0[:k] == p0_wins[0]).all() and (f1[k:] == p1_wins[1]).all()


def test_decisive_playouts_block_the_only_immediate_threat() -> None:
    # O threatens column 6 (three stacked); X to move has no win: X must play column 6
    state = _state([0, 6, 1, 6, 5, 6])
    cell = 1 << (6 * (GAME.height + 1) + 3)
    assert threats4(state[1], empty_cells(state), GAME.layout.stride) == cell
    b0, b1, ply = _batch([state])
    k = 500
    _, f0, _ = batched_decisive_playouts(
        *(np.repeat(x, k) for x in (b0, b1, ply)), np.random.default_rng(4), return_boards=True
    )
    assert all(int(a) & cell for a in f0)


def test_decisive_playouts_lose_to_two_threats() -> None:
    # X to move; O has two immediate wins (both ends of an open three on the bottom row)
    state = _state([6, 2, 6, 3, 0, 4])
    assert threats4(state[1], empty_cells(state), GAME.layout.stride).bit_count() == 2
    assert not threats4(state[0], empty_cells(state), GAME.layout.stride)
    b0, b1, ply = _batch([state])
    results = batched_decisive_playouts(
        *(np.repeat(x, 200) for x in (b0, b1, ply)), np.random.default_rng(5)
    )
    assert (results == -1).all()
