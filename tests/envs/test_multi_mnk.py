"""The multi-player m,n,k-game (envs/multi_mnk_v0.py over envs/games/mnk.py)."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mcts_agents.envs import InvalidParameterError, multi_mnk_v0
from tests.envs.conftest import assert_state_refused
from tests.envs.test_mnk import permute_within_players

# A full 6 x 6 board, 12 cells for each of three players (1, 2, 3), with no four in a row.
DRAWN_GRID = [
    [2, 3, 3, 3, 2, 1],
    [2, 2, 3, 1, 3, 1],
    [1, 3, 3, 1, 1, 1],
    [2, 1, 1, 2, 3, 3],
    [2, 3, 2, 2, 2, 1],
    [2, 3, 1, 3, 2, 1],
]


def longest_run(grid: list[list[int]], mark: int) -> int:
    """Longest line of ``mark`` in any of the four directions, by brute force."""
    rows, cols, best = len(grid), len(grid[0]), 0
    for r in range(rows):
        for c in range(cols):
            for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                length, rr, cc = 0, r, c
                while 0 <= rr < rows and 0 <= cc < cols and grid[rr][cc] == mark:
                    length, rr, cc = length + 1, rr + dr, cc + dc
                best = max(best, length)
    return best


def play(actions: list[int], **kwargs: object) -> multi_mnk_v0.MultiMNKEnv:
    env = multi_mnk_v0.raw_env(**kwargs)
    env.reset()
    for action in actions:
        env.step(action)
    return env


def test_the_default_game_is_6x6_four_in_a_row_for_three_players() -> None:
    env = multi_mnk_v0.raw_env()
    game = env.game
    assert (game.m, game.n, game.k, game.num_players) == (6, 6, 4, 3)
    assert env.possible_agents == ["player_0", "player_1", "player_2"]
    assert env.metadata["name"] == "multi_mnk_v0"
    assert env.observation_space("player_2")["observation"].shape == (6, 6, 3)


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_every_seat_can_win_and_the_others_lose(num_players: int) -> None:
    """Player ``q`` builds on row ``q``; the winner completes cols 0-3 on its fourth stone."""
    for winner in range(num_players):
        actions = [p * 6 + col for col in range(3) for p in range(num_players)]
        actions += [p * 6 + 5 for p in range(winner)]  # cols 0, 1, 2, 5: no line
        actions.append(winner * 6 + 3)
        env = play(actions, num_players=num_players)
        assert all(env.terminations.values()), winner
        expected = {f"player_{p}": (1.0 if p == winner else -1.0) for p in range(num_players)}
        assert env.rewards == expected
        assert env.legal_actions() == []


def test_diagonal_win_by_the_third_player() -> None:
    # P0 and P1 scatter on rows 5 and 4; P2 plays the diagonal (0,0) (1,1) (2,2) (3,3)
    actions = [30, 24, 0, 32, 26, 7, 34, 28, 14, 31, 25, 21]
    env = play(actions)
    assert env.rewards == {"player_0": -1.0, "player_1": -1.0, "player_2": 1.0}
    assert env.game.grid(env.state)[3, 3] == 3


def test_full_board_without_a_line_is_a_draw() -> None:
    for mark in (1, 2, 3):
        assert longest_run(DRAWN_GRID, mark) < 4
    cells = {
        p: [r * 6 + c for r in range(6) for c in range(6) if DRAWN_GRID[r][c] == p + 1]
        for p in range(3)
    }
    actions = [a for stones in zip(cells[0], cells[1], cells[2], strict=True) for a in stones]
    env = play(actions)
    assert all(env.terminations.values())
    assert env.rewards == {"player_0": 0.0, "player_1": 0.0, "player_2": 0.0}
    assert env.game.grid(env.state).tolist() == DRAWN_GRID


def test_turn_order_and_observation_planes_in_turn_order() -> None:
    env = multi_mnk_v0.raw_env()
    env.reset()
    seen = []
    for action in [0, 1, 2, 3]:
        seen.append(env.agent_selection)
        env.step(action)
    assert seen == ["player_0", "player_1", "player_2", "player_0"]
    obs = env.observe("player_1")["observation"]  # own (1), then 2, then 0
    assert obs.shape == (6, 6, 3)
    assert obs[0, 1].tolist() == [1, 0, 0]
    assert obs[0, 2].tolist() == [0, 1, 0]
    assert obs[0, 0].tolist() == [0, 0, 1] and obs[0, 3].tolist() == [0, 0, 1]
    assert env.observe("player_1")["action_mask"].sum() == 36 - 4
    assert env.observe("player_0")["action_mask"].sum() == 0


def test_render_text_three_players() -> None:
    env = multi_mnk_v0.raw_env(render_mode="ansi")
    env.reset()
    for action in [0, 1, 2]:
        env.step(action)
    text = env.render()
    assert text.splitlines()[1] == "0 XO+..."
    assert text.splitlines()[-1] == "X (player 0) to play"


def test_random_play_is_not_degenerate() -> None:
    """3,000 random games (3 players, 6x6, k=4): every seat wins often, and draws occur."""
    game = multi_mnk_v0.raw_env().game
    rng = random.Random(12345)
    n = 3000
    tally = {"draw": 0, 0: 0, 1: 0, 2: 0}
    for _ in range(n):
        returns = game.rollout(game.initial_state(), rng)
        if returns == (0.0, 0.0, 0.0):
            tally["draw"] += 1
        else:
            tally[returns.index(1.0)] += 1
    shares = {key: count / n for key, count in tally.items()}
    # measured: seats 0, 1, 2 win about 26%, 24%, 23% of games; about 28% are drawn
    for seat in range(3):
        assert 0.15 < shares[seat] < 0.35, shares
    assert 0.15 < shares["draw"] < 0.4, shares


@settings(max_examples=25, deadline=None)
@given(num_players=st.sampled_from([3, 4]), seed=st.integers(0, 2**32 - 1), data=st.data())
def test_transposed_move_orders_give_equal_keys(
    num_players: int, seed: int, data: st.DataObject
) -> None:
    env = multi_mnk_v0.raw_env(num_players=num_players)
    game = env.game
    rng = random.Random(seed)
    state, actions = game.initial_state(), []
    while not game.is_terminal(state):
        action = rng.choice(game.legal_actions(state))
        state = game.next_state(state, action)
        actions.append(action)
    prefix = actions[: data.draw(st.integers(0, len(actions) - 1))]
    _, reordered = permute_within_players(game, prefix, rng)
    for line in (prefix, reordered):
        env.reset()
        for action in line:
            env.step(action)
        assert not any(env.terminations.values())
    reordered_key = env.state_key()
    env.reset()
    for action in prefix:
        env.step(action)
    assert env.state_key() == reordered_key
    assert np.array_equal(
        env.observe(env.agent_selection)["observation"].sum(axis=-1),
        (game.grid(env.state) > 0).astype(np.int8),
    )


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"num_players": 5}, "num_players must be in \\[2, 4\\], got 5"),
        ({"num_players": 1}, "num_players must be in \\[2, 4\\], got 1"),
        ({"m": 0}, r"m \(rows\) must be in \[1, 64\], got 0"),
        ({"k": 7}, "k must be in \\[1, 6\\], got 7"),
        ({"n": "6"}, "n \\(columns\\) must be an int, got '6'"),
    ],
)
def test_bad_parameters_are_refused_naming_them(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(InvalidParameterError, match=message):
        multi_mnk_v0.raw_env(**kwargs)


def test_forged_multi_mnk_states_are_refused_naming_the_problem() -> None:
    raw = multi_mnk_v0.raw_env()  # three players
    raw.reset()
    forged = [
        ((0, 1, 0, 1, 0), "count 1"),  # player 1 moved first
        ((1, 2, 2, 2, 0), "two stones on one cell"),
        ((1, 2, 0, 2), "tuple of 5 fields"),
    ]
    for state, match in forged:
        assert_state_refused(raw, state, match)
