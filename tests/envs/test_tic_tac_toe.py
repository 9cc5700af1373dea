"""Tic-tac-toe (envs/tic_tac_toe_v0.py over envs/games/mnk.py): perft, OpenSpiel, known games."""

from __future__ import annotations

import random
from fractions import Fraction
from typing import Any

import numpy as np
import pytest

from mcts_agents.envs import tic_tac_toe_v0
from mcts_agents.envs.games.mnk import MNK
from tests.envs.conftest import play_against_openspiel, random_line

pyspiel = pytest.importorskip("pyspiel")


def play(moves: list[int]) -> tic_tac_toe_v0.TicTacToeEnv:
    env = tic_tac_toe_v0.raw_env()
    env.reset()
    for action in moves:
        env.step(action)
    return env


def test_perft_positions_and_games() -> None:
    """5,478 reachable positions (empty board included) and 255,168 complete games.

    Also by depth (OEIS A008907: 1, 9, 72, 252, 756, 1260, 1520, 1140, 390, 78) and the 958
    final positions: 626 won by X, 316 by O, 16 drawn.
    """
    env = tic_tac_toe_v0.raw_env()
    env.reset()
    keys_by_depth: list[set[Any]] = [set() for _ in range(10)]
    finals: dict[Any, tuple[float, ...]] = {}

    def walk(depth: int) -> int:
        keys_by_depth[depth].add(env.state_key())
        actions = env.legal_actions()
        if not actions:
            finals[env.state_key()] = tuple(env.rewards.values())
            return 1
        snapshot = env.save_state()
        games = 0
        for action in actions:
            env.step(action)
            games += walk(depth + 1)
            env.restore_state(snapshot)
        return games

    assert walk(0) == 255_168
    assert len(set().union(*keys_by_depth)) == 5_478
    assert [len(keys) for keys in keys_by_depth] == [1, 9, 72, 252, 756, 1260, 1520, 1140, 390, 78]
    outcomes = list(finals.values())
    assert len(finals) == 958
    assert (outcomes.count((1.0, -1.0)), outcomes.count((-1.0, 1.0))) == (626, 316)
    assert outcomes.count((0.0, 0.0)) == 16


def test_outcome_probabilities_of_uniform_random_play() -> None:
    """Exact chances under uniformly random play: X 737/1260, O 121/420, draw 8/63 (known)."""
    game = MNK(3, 3, 3, name="tic_tac_toe")
    memo: dict[Any, tuple[Fraction, Fraction, Fraction]] = {}

    def chances(state: Any) -> tuple[Fraction, Fraction, Fraction]:
        if state in memo:
            return memo[state]
        if game.is_terminal(state):
            first = game.returns(state)[0]
            result = (Fraction(first == 1), Fraction(first == -1), Fraction(first == 0))
        else:
            actions = game.legal_actions(state)
            parts = [chances(game.next_state(state, a)) for a in actions]
            share = Fraction(1, len(actions))
            win, loss, draw = (sum((p[i] for p in parts), Fraction(0)) for i in range(3))
            result = (win * share, loss * share, draw * share)
        memo[state] = result
        return result

    assert chances(game.initial_state()) == (
        Fraction(737, 1260),
        Fraction(121, 420),
        Fraction(8, 63),
    )

    # the fast rollout samples the same distribution (within 5 standard errors)
    rng = random.Random(7)
    n = 20_000
    counts = {1.0: 0, -1.0: 0, 0.0: 0}
    for _ in range(n):
        counts[game.rollout(game.initial_state(), rng)[0]] += 1
    for outcome, p in ((1.0, 737 / 1260), (-1.0, 121 / 420), (0.0, 8 / 63)):
        assert abs(counts[outcome] / n - p) < 5 * (p * (1 - p) / n) ** 0.5


def test_matches_openspiel_tic_tac_toe() -> None:
    reference = pyspiel.load_game("tic_tac_toe")
    rng = random.Random(2024)
    env = tic_tac_toe_v0.raw_env()
    play_against_openspiel(env, reference, rng, 300)


@pytest.mark.parametrize(
    ("moves", "winner"),
    [
        ([0, 3, 1, 4, 2], 0),  # X: top row
        ([0, 3, 8, 4, 7, 5], 1),  # O: middle row
        ([6, 0, 7, 1, 8], 0),  # X: bottom row
        ([0, 1, 3, 2, 6], 0),  # X: left column
        ([0, 1, 3, 4, 8, 7], 1),  # O: middle column
        ([2, 0, 5, 1, 8], 0),  # X: right column
        ([0, 1, 4, 2, 8], 0),  # X: main diagonal
        ([0, 2, 1, 4, 8, 6], 1),  # O: anti-diagonal
    ],
)
def test_scripted_games_end_won_by_the_expected_player(moves: list[int], winner: int) -> None:
    env = play(moves)
    loser = 1 - winner
    assert all(env.terminations.values())
    assert env.rewards == {f"player_{winner}": 1.0, f"player_{loser}": -1.0}
    assert env.legal_actions() == []


def test_full_board_draw() -> None:
    # X O X / X O O / O X X
    env = play([0, 1, 2, 4, 3, 5, 7, 6, 8])
    assert all(env.terminations.values())
    assert env.rewards == {"player_0": 0.0, "player_1": 0.0}
    assert env.game.grid(env.state).tolist() == [[1, 2, 1], [1, 2, 2], [2, 1, 1]]


def test_no_win_one_move_early() -> None:
    env = play([0, 3, 1, 4])
    assert not any(env.terminations.values())
    assert env.agent_selection == "player_0"
    assert env.legal_actions() == [2, 5, 6, 7, 8]


def test_observation_planes_own_first() -> None:
    env = play([4, 0])  # X centre, O top-left; X to move
    x_plane = np.zeros((3, 3), dtype=np.int8)
    x_plane[1, 1] = 1
    o_plane = np.zeros((3, 3), dtype=np.int8)
    o_plane[0, 0] = 1
    x_obs = env.observe("player_0")
    o_obs = env.observe("player_1")
    assert x_obs["observation"].shape == (3, 3, 2)
    assert np.array_equal(x_obs["observation"][..., 0], x_plane)
    assert np.array_equal(x_obs["observation"][..., 1], o_plane)
    assert np.array_equal(o_obs["observation"][..., 0], o_plane)
    assert np.array_equal(o_obs["observation"][..., 1], x_plane)
    assert x_obs["action_mask"].tolist() == [0, 1, 1, 1, 0, 1, 1, 1, 1]
    assert o_obs["action_mask"].tolist() == [0] * 9


def test_render_text_and_metadata() -> None:
    env = tic_tac_toe_v0.raw_env(render_mode="ansi")
    env.reset()
    for action in [4, 0, 8]:
        env.step(action)
    assert env.render() == "\n".join(["  012", "0 O..", "1 .X.", "2 ..X", "O (player 1) to play"])
    assert env.metadata["name"] == "tic_tac_toe_v0"
    assert env.game.name == "tic_tac_toe"
    assert env.game.action_to_string(env.state, 5) == "row 1, col 2"


def test_is_reachable_is_tight() -> None:
    game = MNK(3, 3, 3, name="tic_tac_toe")
    after_x4 = game.apply(game.initial_state(), [4])
    after_x0 = game.apply(game.initial_state(), [0])
    later = game.apply(after_x4, [0, 8])
    assert game.is_reachable(after_x4, game.key(later))
    assert not game.is_reachable(after_x0, game.key(after_x4))  # X's corner stone is gone
    assert not game.is_reachable(later, game.key(after_x4))  # stones only accumulate
    over = game.apply(game.initial_state(), [0, 3, 1, 4, 2])
    assert game.is_reachable(over, game.key(over))
    # X wins on 2 after also holding 5; a superset of ``over``, but ``over`` is already finished
    superset = game.apply(game.initial_state(), [0, 3, 1, 4, 5, 6, 2])
    assert game.is_terminal(superset)
    assert not game.is_reachable(over, game.key(superset))
    assert not game.is_reachable(game.initial_state(), "not a key")


def test_random_line_ends_with_consistent_rewards() -> None:
    env = tic_tac_toe_v0.raw_env()
    for seed in range(50):
        env.reset()
        moves = random_line(env, random.Random(seed))
        assert 5 <= len(moves) <= 9
        assert sorted(env.rewards.values()) in ([-1.0, 1.0], [0.0, 0.0])
