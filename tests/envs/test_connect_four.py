"""Connect Four: perft, scripted wins, reachability and keys."""

from __future__ import annotations

import random

import pyspiel
import pytest

from envs import GameOverError, InvalidParameterError, connect_four_v0
from envs.games.connect_four import ConnectFour
from tests.envs.conftest import play_against_openspiel

# Published Connect Four 7x6 perft: move sequences of each length from the empty board.
PERFT = {1: 7, 2: 49, 3: 343, 4: 2_401, 5: 16_807, 6: 117_649, 7: 823_536}


def perft(env: connect_four_v0.ConnectFourEnv, depth: int) -> int:
    """Leaves at ``depth`` through the env's save/restore (the last ply counted in bulk)."""
    actions = env.legal_actions()
    if depth == 1:
        return len(actions)
    snapshot = env.save_state()
    total = 0
    for action in actions:
        env.step(action)
        total += perft(env, depth - 1)
        env.restore_state(snapshot)
    return total


@pytest.mark.parametrize(
    "depth", [pytest.param(d, marks=pytest.mark.slow) if d == 7 else d for d in PERFT]
)
def test_perft_through_save_restore(depth: int) -> None:
    env = connect_four_v0.raw_env()
    env.reset()
    assert perft(env, depth) == PERFT[depth]


@pytest.mark.parametrize(
    ("moves", "winner"),
    [
        ([0, 1, 0, 1, 0, 1, 0], 0),  # vertical
        ([0, 0, 1, 1, 2, 2, 3], 0),  # horizontal, bottom row
        ([6, 0, 5, 0, 4, 0, 3], 0),  # horizontal, right end
        ([0, 1, 1, 2, 3, 2, 2, 3, 6, 3, 3], 0),  # diagonal /
        ([6, 5, 5, 4, 3, 4, 4, 3, 0, 3, 3], 0),  # diagonal \
        ([6, 0, 1, 0, 1, 0, 1, 0], 1),  # second player, vertical
    ],
)
def test_scripted_wins(moves: list[int], winner: int) -> None:
    env = connect_four_v0.raw_env()
    env.reset()
    for action in moves[:-1]:
        env.step(action)
        assert not any(env.terminations.values())
    env.step(moves[-1])
    assert all(env.terminations.values())
    expected = {f"player_{winner}": 1.0, f"player_{1 - winner}": -1.0}
    assert env.rewards == expected
    with pytest.raises(GameOverError):
        env.step(3)


def test_full_board_draw() -> None:
    # columns filled in an order that never makes four in a row (pairs of columns swapped)
    order = [0, 1, 0, 1, 0, 1, 1, 0, 1, 0, 1, 0]
    order += [2, 3, 2, 3, 2, 3, 3, 2, 3, 2, 3, 2]
    order += [4, 5, 4, 5, 4, 5, 5, 4, 5, 4, 5, 4]
    order += [6] * 6
    env = connect_four_v0.raw_env()
    env.reset()
    for action in order:
        env.step(action)
    assert env.game.is_terminal(env.state)
    assert env.rewards == {"player_0": 0.0, "player_1": 0.0}


def test_transposed_move_orders_give_equal_keys_and_reachability_is_tight() -> None:
    game = ConnectFour()
    a = game.apply(game.initial_state(), [0, 1, 2, 3])
    b = game.apply(game.initial_state(), [2, 3, 0, 1])
    assert game.key(a) == game.key(b)
    earlier = game.apply(game.initial_state(), [3])
    assert game.is_reachable(earlier, game.key(a)) is False  # the stone on column 3 is O's there
    assert game.is_reachable(game.apply(game.initial_state(), [0]), game.key(a))
    assert not game.is_reachable(a, game.key(game.initial_state()))  # stones never leave


def test_core_rollout_matches_generic_rollout_statistics() -> None:
    game = ConnectFour()
    rng = random.Random(0)
    n = 4000
    fast = sum(game.rollout(game.initial_state(), rng)[0] for _ in range(n)) / n
    slow = (
        sum(game.__class__.__mro__[1].rollout(game, game.initial_state(), rng)[0] for _ in range(n))
        / n
    )
    # both sample uniformly random games: the first player's mean return agrees (sd ~0.016)
    assert abs(fast - slow) < 0.08


@pytest.mark.parametrize(
    "kwargs", [{"width": 0}, {"height": -1}, {"k": 1}, {"k": 8}, {"width": 7.0}, {"k": True}]
)
def test_bad_parameters(kwargs: dict[str, object]) -> None:
    with pytest.raises(InvalidParameterError, match=next(iter(kwargs))):
        connect_four_v0.raw_env(**kwargs)


@pytest.mark.parametrize(("width", "height", "k"), [(7, 6, 4), (5, 4, 3), (8, 7, 5)])
def test_matches_openspiel_connect_four(width: int, height: int, k: int) -> None:
    """OpenSpiel's action is the column too; 300 random games agree move by move."""
    reference = pyspiel.load_game("connect_four", {"columns": width, "rows": height, "x_in_row": k})
    env = connect_four_v0.raw_env(width=width, height=height, k=k)
    outcomes = play_against_openspiel(env, reference, random.Random(width * height), 300)
    assert {tuple(r) for r in outcomes} >= {(1.0, -1.0), (-1.0, 1.0)}  # wins for both sides
