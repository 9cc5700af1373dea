"""Connect Four: perft, scripted wins, reachability and keys."""

from __future__ import annotations

import random

import pyspiel
import pytest

from mcts_agents.envs import GameOverError, InvalidParameterError, connect_four_v0
from mcts_agents.envs.games.connect_four import ConnectFour, threats4, won4
from tests.envs.conftest import assert_state_refused, play_against_openspiel

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
def test_scripted_games_end_won_by_the_expected_player(moves: list[int], winner: int) -> None:
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


# columns filled in an order that never makes four in a row (pairs of columns swapped)
DRAW_ORDER = [0, 1, 0, 1, 0, 1, 1, 0, 1, 0, 1, 0]
DRAW_ORDER += [2, 3, 2, 3, 2, 3, 3, 2, 3, 2, 3, 2]
DRAW_ORDER += [4, 5, 4, 5, 4, 5, 5, 4, 5, 4, 5, 4]
DRAW_ORDER += [6] * 6


def test_full_board_draw() -> None:
    env = connect_four_v0.raw_env()
    env.reset()
    for action in DRAW_ORDER:
        env.step(action)
    assert env.game.is_terminal(env.state)
    assert env.rewards == {"player_0": 0.0, "player_1": 0.0}


def test_state_from_stones_recovers_every_state_of_random_games() -> None:
    """Ply and status follow from the stones: wins for either side, draws, running games."""
    game = ConnectFour()
    rng = random.Random(4)
    statuses = set()
    for _ in range(200):
        state = game.initial_state()
        while not game.is_terminal(state):
            state = game.next_state(state, rng.choice(game.legal_actions(state)))
            assert game.state_from_stones(state[0], state[1]) == state
        statuses.add(state[3])
    assert {1, 2} <= statuses  # both sides won some of the 200 random games
    draw = game.apply(game.initial_state(), DRAW_ORDER)
    assert draw[3] == 3 and game.state_from_stones(draw[0], draw[1]) == draw


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
def test_bad_parameters_are_refused_naming_the_parameter(kwargs: dict[str, object]) -> None:
    with pytest.raises(InvalidParameterError, match=next(iter(kwargs))):
        connect_four_v0.raw_env(**kwargs)


@pytest.mark.parametrize(("width", "height", "k"), [(7, 6, 4), (5, 4, 3), (8, 7, 5)])
def test_matches_openspiel_connect_four(width: int, height: int, k: int) -> None:
    """OpenSpiel's action is the column too; 300 random games agree move by move."""
    reference = pyspiel.load_game("connect_four", {"columns": width, "rows": height, "x_in_row": k})
    env = connect_four_v0.raw_env(width=width, height=height, k=k)
    outcomes = play_against_openspiel(env, reference, random.Random(width * height), 300)
    assert {tuple(r) for r in outcomes} >= {(1.0, -1.0), (-1.0, 1.0)}  # wins for both sides


# ---------------------------------------------------------------------------- decisive playouts
def random_position(game: ConnectFour, rng: random.Random, plies: int) -> tuple[int, ...]:
    """A running position after up to ``plies`` uniformly random moves."""
    state = game.initial_state()
    for _ in range(plies):
        nxt = game.next_state(state, rng.choice(game.legal_actions(state)))
        if game.is_terminal(nxt):
            break
        state = nxt
    return state


def brute_force_won(game: ConnectFour, board: int) -> bool:
    """``k`` in a row of ``board``, looked for cell by cell along the four directions."""

    def stone(c: int, r: int) -> bool:
        inside = 0 <= c < game.width and 0 <= r < game.height
        return inside and bool(board >> (c * (game.height + 1) + r) & 1)

    return any(
        all(stone(c + i * dc, r + i * dr) for i in range(game.k))
        for c in range(game.width)
        for r in range(game.height)
        for dc, dr in ((0, 1), (1, 0), (1, 1), (1, -1))
    )


def brute_force_threats(game: ConnectFour, board: int, occupied: int) -> int:
    """Every empty cell where one more stone makes four, checked one cell at a time."""
    cells = 0
    for c in range(game.width):
        for r in range(game.height):
            bit = 1 << (c * (game.height + 1) + r)
            if not occupied & bit and brute_force_won(game, board | bit):
                cells |= bit
    return cells


@pytest.mark.parametrize("width,height", [(7, 6), (8, 7), (5, 4)])
def test_win_and_threat_bit_tricks_equal_a_cell_by_cell_check(width: int, height: int) -> None:
    """``won4`` and ``threats4`` (also compiled into the search kernel) against line scans."""
    game = ConnectFour(width, height)
    stride, full = game.layout.stride, game.layout.full
    rng = random.Random(width * 100 + height)
    for _ in range(300):
        b0, b1, _, _ = random_position(game, rng, rng.randrange(width * height))
        empty = full ^ (b0 | b1)
        for board in (b0, b1):
            assert threats4(board, empty, stride) == brute_force_threats(game, board, b0 | b1)
            for extra in (0, *(1 << i for i in range(game.layout.bits) if (1 << i) & empty)):
                grown = board | extra
                assert won4(grown, stride) == brute_force_won(game, grown)


def test_position_round_trips_and_the_layout_describes_the_bits() -> None:
    game = ConnectFour()
    layout = game.layout
    assert (layout.width, layout.height, layout.k, layout.stride) == (7, 6, 4, 7)
    assert layout.full.bit_count() == 42 and layout.bottom_row.bit_count() == 7
    assert layout.bits == 49 and layout.full >> layout.bits == 0
    rng = random.Random(3)
    for _ in range(200):
        state = random_position(game, rng, rng.randrange(42))
        current, occupied = game.position(state)
        b0, b1, ply, _ = state
        assert occupied == b0 | b1 and current == (b0, b1)[ply % 2]
        assert game.state_from_position(current, occupied) == state
        assert (occupied + layout.bottom_row) & layout.full == sum(
            1 << (c * 7 + (occupied >> (c * 7) & 0x3F).bit_count())
            for c in game.legal_actions(state)
        )


def play(game: ConnectFour, columns: list[int]) -> tuple[int, ...]:
    state = game.initial_state()
    for column in columns:
        state = game.next_state(state, column)
    return state


def test_decisive_playouts_take_an_immediate_win_and_see_a_double_threat() -> None:
    game = ConnectFour()
    # X has three in a row on the bottom (columns 1..3), O stacked on them: X to move wins at
    # column 0 or 4, every time.
    can_win = play(game, [1, 1, 2, 2, 3, 3])
    assert all(game.decisive_rollout(can_win, random.Random(s)) == (1.0, -1.0) for s in range(50))
    # ...and uniform random playouts do not always find it
    assert {game.rollout(can_win, random.Random(s)) for s in range(50)} != {(1.0, -1.0)}
    # O to move with no win of its own faces X's open three (columns 0 and 4): O loses.
    double = play(game, [1, 6, 2, 6, 3])
    assert all(game.decisive_rollout(double, random.Random(s)) == (1.0, -1.0) for s in range(50))
    # O must block the only threat: X threatens column 3 after 0, 1, 2 on the bottom row.
    block = play(game, [0, 6, 1, 6, 2])
    outcomes = {game.decisive_rollout(block, random.Random(s)) for s in range(200)}
    assert (-1.0, 1.0) in outcomes  # O survives the block and sometimes wins


def test_decisive_playouts_end_in_valid_results_everywhere() -> None:
    rng = random.Random(7)
    for width, height in [(7, 6), (6, 5), (4, 4)]:
        game = ConnectFour(width, height)
        for _ in range(200):
            state = random_position(game, rng, rng.randrange(width * height))
            assert game.decisive_rollout(state, rng) in {(1.0, -1.0), (-1.0, 1.0), (0.0, 0.0)}
    # a finished game returns its result; k != 4 falls back to uniform playouts
    assert ConnectFour().decisive_rollout(play(ConnectFour(), [0, 1, 0, 1, 0, 1, 0]), rng) == (
        1.0,
        -1.0,
    )
    three = ConnectFour(5, 4, 3)
    assert three.decisive_rollout(three.initial_state(), rng) in {
        (1.0, -1.0),
        (-1.0, 1.0),
        (0.0, 0.0),
    }


def test_forged_connect_four_states_are_refused_naming_the_problem() -> None:
    """restore_state used to accept these and the search failed or played on later."""
    raw = connect_four_v0.raw_env()
    raw.reset()
    column_0 = 0b11111  # five stones of player 0 in column 0: four in a row twice over
    col_2_3 = (0b11 << 14) | (0b11 << 21)  # four stones of player 1 in columns 2 and 3
    forged = [
        ((1, 1, 2, 0), "two stones on one cell"),
        ((1 << 1, 0, 1, 0), "floating stone"),
        ((1 << 6, 0, 1, 0), "off the board"),  # the spare bit on top of column 0
        ((1 << 49, 0, 1, 0), "off the board"),
        ((-1, 0, 0, 0), "non-negative"),
        ((0, 0, 0), "tuple of 4 fields"),
        ((1, 0, 2, 0), "ply 2"),
        ((0, 1, 1, 0), "player 0 one ahead"),
        ((1, 0, 1, 1), "status 1 does not match"),
        ((1, 0, 1, 0.0), "status must be an int"),
        ((column_0, col_2_3, 9, 1), "complete before its last stone"),
        ((0b1111, 0b111 << 7 | 1 << 14, 8, 1), "player 0 has a line, but player 1 moved last"),
    ]
    for state, match in forged:
        assert_state_refused(raw, state, match)


def test_connect_four_check_state_accepts_won_states_of_random_play() -> None:
    game = ConnectFour()
    rng = random.Random(3)
    ends = set()
    for _ in range(200):
        state = game.initial_state()
        while not game.is_terminal(state):
            state = game.next_state(state, rng.choice(game.legal_actions(state)))
            game.check_state(state)
        ends.add(state[3])
    assert ends >= {1, 2}  # wins of both players were checked
