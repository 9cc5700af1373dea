"""The m,n,k-game (envs/mnk_v0.py over envs/games/mnk.py): OpenSpiel, presets, two-stone turns."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mcts_agents.envs import InvalidParameterError, mnk_v0
from mcts_agents.envs.games.mnk import MNK
from tests.envs.conftest import assert_state_refused, play_against_openspiel, random_line

pyspiel = pytest.importorskip("pyspiel")

GAMES = {
    "tic_tac_toe": MNK(3, 3, 3, name="tic_tac_toe"),
    "3x5x3": MNK(3, 5, 3),
    "5x5x4": MNK(5, 5, 4),
    "gomoku": MNK(15, 15, 5, name="gomoku"),
    "deluxe": MNK(8, 8, 4, stones_per_turn=2, name="tic_tac_toe_deluxe"),
    "3_players": MNK(6, 6, 4, num_players=3),
    "4_players_deluxe": MNK(7, 7, 4, stones_per_turn=2, num_players=4),
}


def play(actions: list[int], **kwargs: object) -> mnk_v0.MNKEnv:
    env = mnk_v0.raw_env(**kwargs)
    env.reset()
    for action in actions:
        env.step(action)
    return env


def permute_within_players(
    game: MNK, actions: list[int], rng: random.Random
) -> tuple[list[int], list[int]]:
    """``actions`` with each player's stones shuffled among that player's own move slots.

    Returns the mover of each slot and the new move order.
    """
    movers = []
    state = game.initial_state()
    for action in actions:
        movers.append(game.to_play(state))
        state = game.next_state(state, action)
    reordered = list(actions)
    for player in range(game.num_players):
        slots = [i for i, mover in enumerate(movers) if mover == player]
        stones = [actions[i] for i in slots]
        rng.shuffle(stones)
        for i, stone in zip(slots, stones, strict=True):
            reordered[i] = stone
    return movers, reordered


# ---------------------------------------------------------------------- OpenSpiel
@pytest.mark.parametrize(
    ("rows", "cols", "k", "games"),
    [
        (3, 5, 3, 300),
        (5, 3, 3, 300),
        (4, 4, 3, 300),
        (5, 5, 4, 200),
        (4, 7, 4, 150),
        (15, 15, 5, 60),
    ],
)
def test_matches_openspiel_mnk(rows: int, cols: int, k: int, games: int) -> None:
    """OpenSpiel's ``m`` counts columns and ``n`` rows; its action ``row * m + col`` is ours."""
    reference = pyspiel.load_game("mnk", {"m": cols, "n": rows, "k": k})
    assert reference.num_distinct_actions() == rows * cols
    rng = random.Random(rows * 100 + cols * 10 + k)
    env = mnk_v0.raw_env(m=rows, n=cols, k=k)
    outcomes = play_against_openspiel(env, reference, rng, games)
    decided = sum(returns != [0.0, 0.0] for returns in outcomes)
    assert decided > 0  # the comparison covered wins, not only draws


def count_positions(game: MNK) -> tuple[list[int], dict[tuple[float, ...], int]]:
    """Distinct positions at each depth, and final positions by outcome, breadth first."""
    frontier, by_depth, finals = {game.initial_state()}, [1], {}
    while frontier:
        children = set()
        for state in frontier:
            if game.is_terminal(state):
                finals[game.returns(state)] = finals.get(game.returns(state), 0) + 1
            else:
                children.update(game.next_state(state, a) for a in game.legal_actions(state))
        frontier = children
        if frontier:
            by_depth.append(len(frontier))
    return by_depth, finals


def test_perft_2x2x2_is_29_positions() -> None:
    """Published by enumeration (math.stackexchange.com/q/469371): 29 positions, 12 final."""
    by_depth, finals = count_positions(MNK(2, 2, 2))
    assert by_depth == [1, 4, 12, 12] and finals == {(1.0, -1.0): 12}


@pytest.mark.parametrize(("rows", "cols"), [(3, 4), (4, 3)])
def test_perft_3x4x3_matches_openspiel(rows: int, cols: int) -> None:
    reference = pyspiel.load_game("mnk", {"m": cols, "n": rows, "k": 3})
    frontier = {str(s): s for s in [reference.new_initial_state()]}
    by_depth, finals = [1], {}
    while frontier:
        children = {}
        for state in frontier.values():
            if state.is_terminal():
                outcome = tuple(state.returns())
                finals[outcome] = finals.get(outcome, 0) + 1
                continue
            for action in state.legal_actions():
                child = state.child(action)
                children.setdefault(str(child), child)
        frontier = children
        if frontier:
            by_depth.append(len(frontier))
    assert count_positions(MNK(rows, cols, 3)) == (by_depth, finals)
    assert sum(by_depth) == 111_973


def test_overline_wins_here_and_in_openspiel() -> None:
    """Free-style: six in a row wins, in our Gomoku and in OpenSpiel's mnk (15, 15, 5)."""
    x_stones = [105, 106, 107, 109, 110, 108]  # row 7, cols 0-2 and 4-5, then col 3: six
    o_stones = [0, 2, 4, 6, 8]  # row 0, no line
    actions = [a for pair in zip(x_stones[:-1], o_stones, strict=True) for a in pair]
    actions.append(x_stones[-1])
    env = play(actions, preset="gomoku")
    spiel = pyspiel.load_game("mnk", {"m": 15, "n": 15, "k": 5}).new_initial_state()
    for action in actions:
        assert not spiel.is_terminal()
        spiel.apply_action(action)
    assert spiel.is_terminal() and list(spiel.returns()) == [1.0, -1.0]
    assert all(env.terminations.values())
    assert env.rewards == {"player_0": 1.0, "player_1": -1.0}
    assert (env.game.grid(env.state)[7, :6] == 1).all()


def test_five_on_a_five_board_wins_with_k4() -> None:
    # 5x5x4: X fills row 2 as cols 0, 1, 3, 4, then col 2 makes five (O's stones are scattered)
    env = play([10, 0, 11, 2, 13, 4, 14, 20, 12], preset="5x5x4")
    assert env.rewards == {"player_0": 1.0, "player_1": -1.0}


@pytest.mark.parametrize(
    ("x_line", "name"),
    [
        ([0, 1, 2, 3], "row"),
        ([2, 7, 12, 17], "column"),
        ([0, 6, 12, 18], "diagonal"),
        ([4, 8, 12, 16], "anti-diagonal"),
        ([24, 18, 12, 6], "diagonal, placed backwards"),
    ],
)
def test_scripted_lines_5x5x4(x_line: list[int], name: str) -> None:
    game = MNK(5, 5, 4)
    o_stones = [a for a in (22, 23, 21, 15, 9, 5, 20) if a not in x_line][:3]
    actions = [x_line[0], o_stones[0], x_line[1], o_stones[1], x_line[2], o_stones[2]]
    state = game.apply(game.initial_state(), actions)
    assert not game.is_terminal(state), name
    state = game.apply(state, [x_line[3]])
    assert game.is_terminal(state) and game.returns(state) == (1.0, -1.0), name


def test_full_board_draw_4x4x3() -> None:
    # X O X O / X O X O / O X O X / O X O X: no three in a row anywhere
    grid = [[1, 2, 1, 2], [1, 2, 1, 2], [2, 1, 2, 1], [2, 1, 2, 1]]
    x_cells = [r * 4 + c for r in range(4) for c in range(4) if grid[r][c] == 1]
    o_cells = [r * 4 + c for r in range(4) for c in range(4) if grid[r][c] == 2]
    actions = [a for pair in zip(x_cells, o_cells, strict=True) for a in pair]
    env = play(actions, m=4, n=4, k=3)
    assert all(env.terminations.values())
    assert env.rewards == {"player_0": 0.0, "player_1": 0.0}
    assert env.game.grid(env.state).tolist() == grid


# ---------------------------------------------------------------------- two stones per turn
def test_deluxe_turn_order() -> None:
    """First turn one stone, then two stones per turn; the agent stays for its second stone."""
    env = mnk_v0.raw_env(preset="deluxe")
    env.reset()
    game = env.game
    assert (game.m, game.n, game.k, game.stones_per_turn) == (8, 8, 4, 2)
    seen = []
    for action in [0, 63, 62, 9, 18, 61, 54, 36]:  # no line of four anywhere
        seen.append(env.agent_selection)
        assert game.to_play(env.state) == int(env.agent_selection[-1])
        assert env.legal_actions() and not game.is_terminal(env.state)
        env.step(action)
    assert seen == ["player_0"] + ["player_1"] * 2 + ["player_0"] * 2 + ["player_1"] * 2 + [
        "player_0"
    ]
    assert env.agent_selection == "player_0"  # second stone of player_0's turn
    assert env.observe("player_0")["action_mask"].sum() == 64 - 8
    assert env.observe("player_1")["action_mask"].sum() == 0


@pytest.mark.parametrize("first_stone", [True, False])
def test_deluxe_win_mid_turn_ends_the_game(first_stone: bool) -> None:
    # X: 0 | O: 56 57 | X: 1 2 | O: 60 61 | X: then 3 completes row 0 (first or second stone)
    actions = [0, 56, 57, 1, 2, 60, 61] + ([3] if first_stone else [16, 3])
    env = mnk_v0.raw_env(preset="deluxe")
    env.reset()
    for action in actions[:-1]:
        env.step(action)
        assert not any(env.terminations.values())
    env.step(actions[-1])
    assert all(env.terminations.values())
    assert env.rewards == {"player_0": 1.0, "player_1": -1.0}
    assert env.legal_actions() == []


def test_deluxe_second_player_wins_on_first_stone_of_its_turn() -> None:
    # X: 0 | O: 56 57 | X: 9 18 | O: 58 40 | X: 20 21 | O: 59 wins on row 7 at its first stone
    env = play([0, 56, 57, 9, 18, 58, 40, 20, 21, 59], preset="deluxe")
    assert all(env.terminations.values())
    assert env.rewards == {"player_0": -1.0, "player_1": 1.0}


def test_deluxe_render_says_which_stone() -> None:
    env = mnk_v0.raw_env(preset="deluxe", render_mode="ansi")
    env.reset()
    assert env.render().endswith("X (player 0) to play")
    env.step(0)
    assert env.render().endswith("O (player 1) to play, stone 1 of 2")
    env.step(1)
    assert env.render().endswith("O (player 1) to play, stone 2 of 2")


# ---------------------------------------------------------------------- properties
@settings(max_examples=30, deadline=None)
@given(name=st.sampled_from(sorted(GAMES)), seed=st.integers(0, 2**32 - 1), data=st.data())
def test_transposed_move_orders_give_equal_keys(name: str, seed: int, data: st.DataObject) -> None:
    game = GAMES[name]
    rng = random.Random(seed)
    state, actions = game.initial_state(), []
    while not game.is_terminal(state):
        action = rng.choice(game.legal_actions(state))
        state = game.next_state(state, action)
        actions.append(action)
    cut = data.draw(st.integers(0, len(actions) - 1))  # a prefix that has not ended
    prefix = actions[:cut]
    movers, reordered = permute_within_players(game, prefix, rng)
    state = game.apply(game.initial_state(), prefix)
    other = game.initial_state()
    for i, action in enumerate(reordered):
        assert not game.is_terminal(other) and game.to_play(other) == movers[i]
        other = game.next_state(other, game.check_action(other, action))
    assert game.key(other) == game.key(state)
    assert other == state


@settings(max_examples=40, deadline=None)
@given(name=st.sampled_from(sorted(GAMES)), seed=st.integers(0, 2**32 - 1), data=st.data())
def test_rollouts_reach_the_end_with_valid_returns(
    name: str, seed: int, data: st.DataObject
) -> None:
    game = GAMES[name]
    rng = random.Random(seed)
    state, line = game.initial_state(), [game.initial_state()]
    while not game.is_terminal(state):
        state = game.next_state(state, rng.choice(game.legal_actions(state)))
        line.append(state)
    start = line[data.draw(st.integers(0, len(line) - 1))]
    players = game.num_players
    valid = {(0.0,) * players} | {
        tuple(1.0 if q == p else -1.0 for q in range(players)) for p in range(players)
    }
    returns = game.rollout(start, random.Random(seed))
    assert returns in valid
    assert game.rollout(start, random.Random(seed)) == returns  # same seed, same playout
    if game.is_terminal(start):
        assert returns == game.returns(start)
    empty = game.legal_actions(start)
    if len(empty) == 1:  # only one way to go on
        assert returns == game.returns(game.next_state(start, empty[0]))


@pytest.mark.parametrize("name", sorted(GAMES))
def test_rollout_samples_the_same_games_as_stepping(name: str) -> None:
    """Outcome frequencies of the fast rollout and of the generic step-by-step one agree."""
    game = GAMES[name]
    n = 1500 if game.num_actions > 100 else 4000
    fast, slow = random.Random(1), random.Random(2)
    counts: dict[tuple[float, ...], list[int]] = {}
    for _ in range(n):
        counts.setdefault(game.rollout(game.initial_state(), fast), [0, 0])[0] += 1
        state = game.initial_state()
        while not game.is_terminal(state):
            state = game.next_state(state, slow.choice(game.legal_actions(state)))
        counts.setdefault(game.returns(state), [0, 0])[1] += 1
    for outcome, (a, b) in counts.items():
        p = (a + b) / (2 * n)
        assert abs(a - b) / n < 5 * (2 * p * (1 - p) / n) ** 0.5 + 1e-9, (outcome, a, b)


@settings(max_examples=20, deadline=None)
@given(name=st.sampled_from(sorted(GAMES)), seed=st.integers(0, 2**32 - 1), data=st.data())
def test_is_reachable_refuses_a_missing_stone(name: str, seed: int, data: st.DataObject) -> None:
    game = GAMES[name]
    rng = random.Random(seed)
    states = [game.initial_state()]
    while not game.is_terminal(states[-1]):
        states.append(game.next_state(states[-1], rng.choice(game.legal_actions(states[-1]))))
    i = data.draw(st.integers(1, len(states) - 1))
    j = data.draw(st.integers(0, i - 1))
    assert game.is_reachable(states[j], game.key(states[i]))
    assert not game.is_reachable(states[i], game.key(states[j]))  # a stone would vanish
    if i < len(states) - 1:
        assert game.is_reachable(states[i], game.key(states[-1]))
    assert not game.is_reachable(states[-1], game.key(states[j]))


def test_random_games_of_every_preset_end() -> None:
    for preset in mnk_v0.PRESETS:
        env = mnk_v0.raw_env(preset=preset)
        for seed in range(5):
            env.reset()
            moves = random_line(env, random.Random(seed))
            assert len(moves) == len(set(moves)) <= env.game.num_actions
            assert all(env.terminations.values())


# ---------------------------------------------------------------------- parameters and errors
def test_defaults_and_presets() -> None:
    default = mnk_v0.raw_env().game
    assert (default.m, default.n, default.k, default.stones_per_turn) == (15, 15, 5, 1)
    assert default.name == "mnk"
    assert mnk_v0.raw_env(preset="gomoku").game.name == "gomoku"
    assert mnk_v0.raw_env(m=5, n=5, k=4).game == mnk_v0.raw_env(preset="5x5x4").game
    assert (
        mnk_v0.raw_env(preset="gomoku", m=15, k=5).game.spec
        == mnk_v0.raw_env(preset="gomoku").game.spec
    )
    rect = mnk_v0.raw_env(m=3, n=7, k=3)
    assert rect.observation_space("player_0")["observation"].shape == (3, 7, 2)
    assert rect.game.grid(rect.state).shape == (3, 7)
    assert rect.metadata["name"] == "mnk_v0"


def test_observation_and_grid_orientation() -> None:
    env = play([1 * 7 + 5, 2 * 7 + 0], m=3, n=7, k=3)  # X at row 1 col 5, O at row 2 col 0
    grid = env.game.grid(env.state)
    assert grid[1, 5] == 1 and grid[2, 0] == 2 and np.count_nonzero(grid) == 2
    own = env.observe("player_1")["observation"]
    assert own[2, 0, 0] == 1 and own[1, 5, 1] == 1 and own.sum() == 2


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"m": 0, "n": 3, "k": 3}, r"m \(rows\) must be in \[1, 64\], got 0"),
        ({"m": 3, "n": -2, "k": 3}, r"n \(columns\) must be in \[1, 64\], got -2"),
        ({"m": 3, "n": 3, "k": 4}, "k must be in \\[1, 3\\], got 4"),
        ({"m": 3, "n": 3, "k": 0}, "k must be in \\[1, 3\\], got 0"),
        ({"m": 3.0, "n": 3, "k": 3}, "must be an int, got 3.0"),
        ({"m": 3, "n": 3, "k": True}, "must be an int, got True"),
        ({"stones_per_turn": 3}, "stones_per_turn must be 1 or 2, got 3"),
        ({"stones_per_turn": True}, "stones_per_turn must be 1 or 2, got True"),
        ({"num_players": 1}, "num_players must be in \\[2, 4\\], got 1"),
        ({"num_players": 5}, "num_players must be in \\[2, 4\\], got 5"),
        ({"name": ""}, "name must be a non-empty str"),
    ],
)
def test_bad_core_parameters(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(InvalidParameterError, match=message):
        MNK(**kwargs)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (
            {"preset": "renju"},
            "unknown preset 'renju'; expected None or one of \\['5x5x4', 'deluxe'",
        ),
        ({"preset": "gomoku", "k": 6}, "preset 'gomoku' sets k=5; got conflicting k=6"),
        ({"preset": "deluxe", "stones_per_turn": 1}, "conflicting stones_per_turn=1"),
        ({"preset": "5x5x4", "m": 5, "n": 6}, "sets n=5; got conflicting n=6"),
        ({"preset": "gomoku", "m": 15.0}, "m \\(rows\\) must be an int, got 15.0"),
        ({"m": 4, "n": 4, "k": 5}, "k must be in \\[1, 4\\], got 5"),
        ({"stones_per_turn": 0}, "stones_per_turn must be 1 or 2, got 0"),
    ],
)
def test_bad_env_parameters(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(InvalidParameterError, match=message):
        mnk_v0.raw_env(**kwargs)
    with pytest.raises(InvalidParameterError, match=message):
        mnk_v0.env(**kwargs)


def test_forged_mnk_states_are_refused_naming_the_problem() -> None:
    raw = mnk_v0.raw_env()  # 15 x 15, five in a row
    raw.reset()
    row = 0b11111
    scattered = sum(1 << c for c in (60, 61, 62, 63, 65, 66, 67, 68, 90))  # no five in a row
    forged = [
        ((1, 1, 2, 0), "two stones on one cell"),
        ((1 << 225, 0, 1, 0), "off the board"),
        ((1, 0, 2, 0), "count 2"),
        ((0, 1, 1, 0), "count 1"),
        ((1, 0, 1, 1), "status 1 with no line"),
        ((row | 1 << 100, row << 15, 11, 1), r"players \[0, 1\] have lines"),
        ((row | row << 30, scattered, 19, 1), "share no stone"),
        ((row, 0b1111 << 15, 9, 0), "status 0, but player 0 has a line"),
        ((1, 0, 1), "tuple of 4 fields"),
    ]
    for state, match in forged:
        assert_state_refused(raw, state, match)
