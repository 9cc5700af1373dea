"""Ultimate tic-tac-toe: differential play against OpenSpiel, scripted games, perft, keys."""

from __future__ import annotations

import random
from collections import defaultdict
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mcts_agents.envs import IllegalActionError, InvalidStateError
from mcts_agents.envs.games.ultimate_tic_tac_toe import (
    DRAW,
    RUNNING,
    WIN_0,
    WIN_1,
    UltimateTicTacToe,
)
from mcts_agents.envs.ultimate_tic_tac_toe_v0 import UltimateTicTacToeEnv
from tests.envs.conftest import assert_state_refused
from tests.envs.uttt_positions import CAN_WIN, CAN_WIN_ANYWHERE, NONE_SAFE, ONE_SAFE
from tests.mcts_agents.compiled.playouts import assert_same_outcomes

pyspiel = pytest.importorskip("pyspiel")

GAME = UltimateTicTacToe()


def act(board: int, cell: int) -> int:
    return 9 * board + cell


def play(pairs: list[tuple[int, int]]) -> Any:
    """Play ``(board, cell)`` moves with full legality checking."""
    return GAME.apply(GAME.initial_state(), [act(b, c) for b, c in pairs])


# ---------------------------------------------------------------------- OpenSpiel side
def spiel_choosing(state: Any) -> bool:
    """Whether OpenSpiel's mover must first choose a board (free choice, two-phase move)."""
    return state.action_to_string(state.legal_actions()[0]).startswith("Choose local board")


def spiel_forced(state: Any) -> int:
    """The board OpenSpiel's mover is sent to, or -1 for free choice."""
    if spiel_choosing(state):
        return -1
    text = state.action_to_string(state.legal_actions()[0])  # "Local board 4: x(0,1)"
    return int(text.split(":")[0].split()[-1])


def spiel_legal(state: Any) -> set[tuple[int, int]]:
    """OpenSpiel's legal moves as (board, cell) pairs, expanding the board-choice phase."""
    if state.is_terminal():
        return set()
    if spiel_choosing(state):
        moves = set()
        for board in state.legal_actions():
            child = state.clone()
            child.apply_action(board)
            moves |= {(board, cell) for cell in child.legal_actions()}
        return moves
    board = spiel_forced(state)
    return {(board, cell) for cell in state.legal_actions()}


def spiel_apply(state: Any, action: int) -> None:
    """Play our single action as OpenSpiel's one (sent) or two (choose, then cell) actions."""
    board, cell = divmod(action, 9)
    if spiel_choosing(state):
        state.apply_action(board)
    state.apply_action(cell)


def spiel_stones(state: Any) -> tuple[int, int]:
    """Both players' stones as 81-bit boards, read from OpenSpiel's observation tensor."""
    planes = np.asarray(state.observation_tensor(0))[: 3 * 81].reshape(3, 81)
    x, o = planes[2], planes[1]  # planes: empty, nought (player 1), cross (player 0)
    return (
        sum(1 << int(a) for a in np.flatnonzero(x)),
        sum(1 << int(a) for a in np.flatnonzero(o)),
    )


def spiel_perft(state: Any, depth: int) -> int:
    """Leaf count after ``depth`` full moves (a board choice and its cell count as one move)."""
    if depth == 0:
        return 1
    if state.is_terminal():
        return 0
    total = 0
    if spiel_choosing(state):
        for board in state.legal_actions():
            chosen = state.clone()
            chosen.apply_action(board)
            for cell in chosen.legal_actions():
                child = chosen.clone()
                child.apply_action(cell)
                total += spiel_perft(child, depth - 1)
    else:
        for cell in state.legal_actions():
            child = state.clone()
            child.apply_action(cell)
            total += spiel_perft(child, depth - 1)
    return total


def env_perft(env: UltimateTicTacToeEnv, depth: int) -> int:
    """The same count on our env, walking the tree with step / save_state / restore_state."""
    if depth == 0:
        return 1
    total = 0
    snapshot = env.save_state()
    for action in env.legal_actions():
        env.step(action)
        total += env_perft(env, depth - 1)
        env.restore_state(snapshot)
    return total


# ---------------------------------------------------------------------- differential
def test_random_games_match_openspiel() -> None:
    spiel_game = pyspiel.load_game("ultimate_tic_tac_toe")
    outcomes: dict[tuple[float, ...], int] = defaultdict(int)
    for seed in range(300):
        rng = random.Random(seed)
        state = GAME.initial_state()
        theirs = spiel_game.new_initial_state()
        while True:
            context = f"seed {seed}, ply {state[6]}"
            assert GAME.is_terminal(state) == theirs.is_terminal(), context
            assert GAME.returns(state) == tuple(theirs.returns()), context
            assert (state[0], state[1]) == spiel_stones(theirs), context
            if GAME.is_terminal(state):
                break
            assert GAME.to_play(state) == theirs.current_player(), context
            assert state[5] == spiel_forced(theirs), context
            ours = GAME.legal_actions(state)
            assert {divmod(a, 9) for a in ours} == spiel_legal(theirs), context
            assert list(np.flatnonzero(GAME.legal_mask(state))) == ours
            action = rng.choice(ours)
            state = GAME.next_state(state, action)
            spiel_apply(theirs, action)
        outcomes[GAME.returns(state)] += 1
    # the sample covers all three outcomes, so the end-of-game rules were all compared
    assert set(outcomes) == {(1.0, -1.0), (-1.0, 1.0), (0.0, 0.0)}


def test_rollout_matches_the_generic_playout_distribution() -> None:
    # the fast rollout must play uniformly random legal moves, like the base-class one
    rng = random.Random(7)
    start = GAME.initial_state()
    n = 4000
    fast: dict[tuple[float, ...], int] = defaultdict(int)
    slow: dict[tuple[float, ...], int] = defaultdict(int)
    for _ in range(n):
        fast[GAME.rollout(start, rng)] += 1
        slow[super(UltimateTicTacToe, GAME).rollout(start, rng)] += 1
    for outcome in ((1.0, -1.0), (-1.0, 1.0), (0.0, 0.0)):
        assert abs(fast[outcome] - slow[outcome]) / n < 0.04, (outcome, fast, slow)


def test_rollout_from_terminal_and_mid_game() -> None:
    end = play(ROW_WIN)
    assert GAME.rollout(end, random.Random(0)) == (1.0, -1.0)
    middle = play(ROW_WIN[:-1])
    results = {GAME.rollout(middle, random.Random(seed)) for seed in range(50)}
    assert results <= {(1.0, -1.0), (-1.0, 1.0), (0.0, 0.0)} and len(results) >= 2


# ---------------------------------------------------------------------- decisive playouts
def wins_at_once(state: Any, action: int) -> bool:
    """Whether ``action`` ends the game with a win for the player who plays it."""
    return GAME.returns(GAME.next_state(state, action))[GAME.to_play(state)] == 1.0


def brute_force_choices(state: Any) -> tuple[str, list[int]]:
    """The decisive rule by move generation: the winning moves; else the moves after which no
    legal reply wins; else every move (``"win"``, ``"safe"`` or ``"none safe"``)."""
    legal = GAME.legal_actions(state)
    wins = [a for a in legal if wins_at_once(state, a)]
    if wins:
        return "win", wins
    safe = []
    for a in legal:
        child = GAME.next_state(state, a)
        if GAME.is_terminal(child) or not any(
            wins_at_once(child, b) for b in GAME.legal_actions(child)
        ):
            safe.append(a)
    return ("safe", safe) if safe else ("none safe", legal)


def test_decisive_choices_are_the_brute_force_ones() -> None:
    """Along 80 uniformly random games, every position's decisive moves (from the threat
    tables) equal the ones found by trying every move and every reply."""
    rng = random.Random(11)
    kinds: dict[str, int] = defaultdict(int)
    for _ in range(80):
        state = GAME.initial_state()
        while not GAME.is_terminal(state):
            kind, expected = brute_force_choices(state)
            assert sorted(GAME.decisive_choices(state)) == expected, state
            legal = GAME.legal_actions(state)
            kinds["some unsafe" if kind == "safe" and expected != legal else kind] += 1
            state = GAME.next_state(state, rng.choice(legal))
    # every branch of the rule was met
    assert kinds["win"] > 50 and kinds["some unsafe"] > 50 and kinds["none safe"] > 5, kinds


def test_decisive_rollout_wins_at_once_and_avoids_handing_over_a_win() -> None:
    def outcomes(rollout: Any, state: Any) -> set[tuple[float, ...]]:
        return {rollout(state, random.Random(seed)) for seed in range(60)}

    for state in (CAN_WIN, CAN_WIN_ANYWHERE):
        assert GAME.decisive_choices(state) == [act(5, 2)] == brute_force_choices(state)[1]
        assert outcomes(GAME.decisive_rollout, state) == {(1.0, -1.0)}
        assert outcomes(GAME.rollout, state) != {(1.0, -1.0)}  # uniform moves miss it
    # cell 2 sends O to the board where O wins; cell 7 is safe (and then X wins by force)
    assert GAME.legal_actions(ONE_SAFE) == [act(8, 2), act(8, 7)]
    assert GAME.decisive_choices(ONE_SAFE) == [act(8, 7)] == brute_force_choices(ONE_SAFE)[1]
    assert outcomes(GAME.decisive_rollout, ONE_SAFE) == {(1.0, -1.0)}
    assert (-1.0, 1.0) in outcomes(GAME.rollout, ONE_SAFE)
    # no move is safe: the decisive playout is lost for X (O takes its win)
    assert brute_force_choices(NONE_SAFE) == ("none safe", [act(8, 1), act(8, 2)])
    assert GAME.decisive_choices(NONE_SAFE) == [act(8, 1), act(8, 2)]
    assert outcomes(GAME.decisive_rollout, NONE_SAFE) == {(-1.0, 1.0)}
    assert outcomes(GAME.rollout, NONE_SAFE) != {(-1.0, 1.0)}
    assert GAME.decisive_rollout(play(ROW_WIN), random.Random(0)) == (1.0, -1.0)


def literal_decisive_rollout(state: Any, rng: random.Random) -> tuple[float, ...]:
    """The decisive rule as written: a uniformly random move of ``decisive_choices`` (checked
    against brute force above) at every ply, played to the end."""
    while not GAME.is_terminal(state):
        choices = GAME.decisive_choices(state)
        state = GAME.next_state(state, choices[int(rng.random() * len(choices))])
    return GAME.returns(state)


def test_decisive_rollout_outcomes_match_the_rule_played_move_by_move() -> None:
    line = [GAME.initial_state()]
    rng = random.Random(5)
    while not GAME.is_terminal(line[-1]):
        line.append(GAME.next_state(line[-1], rng.choice(GAME.legal_actions(line[-1]))))
    for i, state in enumerate([line[0], line[len(line) // 3], line[len(line) // 2]]):
        assert_same_outcomes(
            GAME, GAME.decisive_rollout, state, 3000, seed=i, reference=literal_decisive_rollout
        )


# ---------------------------------------------------------------------- scripted games
def test_sent_to_the_board_of_the_cell_played() -> None:
    state = play([(4, 0)])
    assert state[5] == 0
    assert GAME.legal_actions(state) == [act(0, c) for c in range(9)]
    state = play([(4, 0), (0, 4)])  # O sends X back to the centre board, which has 8 free cells
    assert state[5] == 4
    assert GAME.legal_actions(state) == [act(4, c) for c in range(1, 9)]
    with pytest.raises(IllegalActionError, match="not legal"):
        GAME.apply(state, [act(3, 3)])


# X wins boards 0, 1 and 2 (the top row) with the bottom row of each; O sends X back.
ROW_WIN = [
    (0, 6), (6, 0), (0, 7), (7, 0), (0, 8), (8, 1), (1, 6), (6, 1), (1, 7),
    (7, 1), (1, 8), (8, 2), (2, 6), (6, 2), (2, 7), (7, 2), (2, 8),
]  # fmt: skip
# X wins boards 0, 3 and 6 (the left column) with the right column of each.
COLUMN_WIN = [
    (0, 2), (2, 0), (0, 5), (5, 0), (0, 8), (8, 3), (3, 2), (2, 3), (3, 5),
    (5, 3), (3, 8), (8, 6), (6, 2), (2, 6), (6, 5), (5, 6), (6, 8),
]  # fmt: skip
# X wins boards 0, 4 and 8 (a diagonal); twice O is sent to won board 0 and chooses freely.
DIAGONAL_WIN = [
    (0, 2), (2, 0), (0, 5), (5, 0), (0, 8), (8, 4), (4, 0), (2, 4), (4, 3),
    (3, 4), (4, 6), (6, 8), (8, 0), (2, 8), (8, 3), (3, 8), (8, 6),
]  # fmt: skip


@pytest.mark.parametrize(
    ("line", "x_boards"),
    [(ROW_WIN, 0b000000111), (COLUMN_WIN, 0b001001001), (DIAGONAL_WIN, 0b100010001)],
    ids=["row", "column", "diagonal"],
)
def test_big_board_line_wins(line: list[tuple[int, int]], x_boards: int) -> None:
    before = play(line[:-1])
    assert not GAME.is_terminal(before)
    end = play(line)
    assert end[7] == WIN_0 and GAME.returns(end) == (1.0, -1.0)
    assert end[2] == x_boards and end[5] == -1 and GAME.legal_actions(end) == []
    assert "X wins" in GAME.render_text(end)
    theirs = pyspiel.load_game("ultimate_tic_tac_toe").new_initial_state()
    for board, cell in line:
        spiel_apply(theirs, act(board, cell))
    assert theirs.is_terminal() and theirs.returns() == [1.0, -1.0]


def test_sent_to_a_won_board_gives_free_choice_but_not_in_won_boards() -> None:
    # X wins board 0 (cells 2, 5, 8) at ply 5, then sends O to 8; O sends X to 4; X sends O to 0
    state = play(DIAGONAL_WIN[:7])
    assert state[2] == 0b1 and state[5] == -1
    legal = GAME.legal_actions(state)
    empty_in_won = [act(0, c) for c in range(9) if not state[0] >> act(0, c) & 1]
    assert empty_in_won and not set(empty_in_won) & set(legal)  # the won board stays closed
    occupied = state[0] | state[1]
    expected = [a for a in range(9, 81) if not occupied >> a & 1]
    assert legal == expected
    assert not GAME.is_legal(state, empty_in_won[0])


# A random game (seed-searched) in which board 5 fills up without a line at ply 38 and the next
# move, X's cell 5 of board 0, sends O to it: O may then play anywhere open.
FULL_BOARD_LINE = [
    74, 23, 52, 69, 58, 39, 32, 53, 77, 46, 14, 51, 61, 71, 72, 1, 15, 55, 17, 78,
    60, 59, 49, 42, 62, 79, 68, 50, 48, 33, 47, 26, 75, 27, 8, 76, 41, 45, 5,
]  # fmt: skip


def test_sent_to_a_full_board_gives_free_choice() -> None:
    state = GAME.apply(GAME.initial_state(), FULL_BOARD_LINE)
    occupied = state[0] | state[1]
    assert FULL_BOARD_LINE[-1] % 9 == 5
    assert (occupied >> act(5, 0)) & 0x1FF == 0x1FF  # board 5 is full ...
    assert not (state[2] | state[3]) >> 5 & 1  # ... and won by nobody: dead for both
    assert state[4] >> 5 & 1 and state[5] == -1 and state[7] == RUNNING
    assert GAME.to_play(state) == 1
    closed_boards = [b for b in range(9) if state[4] >> b & 1]
    expected = [a for a in range(81) if a // 9 not in closed_boards and not occupied >> a & 1]
    legal = GAME.legal_actions(state)
    assert legal == expected and len({a // 9 for a in legal}) > 1
    theirs = pyspiel.load_game("ultimate_tic_tac_toe").new_initial_state()
    for action in FULL_BOARD_LINE:
        spiel_apply(theirs, action)
    assert spiel_choosing(theirs) and spiel_legal(theirs) == {divmod(a, 9) for a in legal}


# A random game (seed-searched, the shortest draw of 20,000) that ends with every small board
# won and no line of them: X holds boards 0, 4, 5, 6 and O holds 1, 2, 3, 7, 8.
DRAW_LINE = [
    11, 23, 48, 27, 4, 38, 26, 72, 7, 69, 62, 80, 79, 63, 3, 31, 37, 15, 61, 71, 73, 9,
    8, 76, 44, 70, 43, 35, 10, 12, 60, 20, 21, 5, 53, 19, 45, 1, 51, 39, 40, 0, 6, 18,
]  # fmt: skip


def test_draw_when_every_board_is_closed_without_a_line() -> None:
    before = GAME.apply(GAME.initial_state(), DRAW_LINE[:-1])
    assert not GAME.is_terminal(before)
    end = GAME.apply(GAME.initial_state(), DRAW_LINE)
    assert end[7] == DRAW and GAME.returns(end) == (0.0, 0.0) and GAME.legal_actions(end) == []
    assert end[2] == 0b001110001 and end[3] == 0b110001110 and end[4] == 0x1FF
    assert GAME.render_text(end).endswith("draw")
    theirs = pyspiel.load_game("ultimate_tic_tac_toe").new_initial_state()
    for action in DRAW_LINE:
        spiel_apply(theirs, action)
    assert theirs.is_terminal() and theirs.returns() == [0.0, 0.0]


def test_o_can_win() -> None:
    # X opens in board 4, cell 0, sending O to board 0; O then plays X's part of ROW_WIN
    line = [(4, 0), *ROW_WIN]
    before = play(line[:-1])
    assert before[3] == 0b000000011 and before[2] == 0b011000000  # X holds 6, 7: no line
    end = play(line)
    assert end[7] == WIN_1 and GAME.returns(end) == (-1.0, 1.0) and end[3] == 0b111
    assert "O wins" in GAME.render_text(end)


# ---------------------------------------------------------------------- perft
@pytest.mark.parametrize("depth", [1, 2, 3, 4, pytest.param(5, marks=pytest.mark.slow)])
def test_perft_matches_openspiel(depth: int) -> None:
    env = UltimateTicTacToeEnv()
    env.reset()
    ours = env_perft(env, depth)
    assert ours == spiel_perft(pyspiel.load_game("ultimate_tic_tac_toe").new_initial_state(), depth)
    # hand-derivable: 81 first moves; then 9 replies, except 8 when sent back to one's own board
    assert ours == {1: 81, 2: 72 * 9 + 9 * 8}.get(depth, ours)
    assert env.state == GAME.initial_state()  # the walk leaves the env where it started


# ---------------------------------------------------------------------- keys and reachability
def test_transposed_move_orders_share_a_key_only_with_the_same_forced_board() -> None:
    # X(b, c1) O(c1, b) X(b, c3) O(c3, b) and the order with the two pairs swapped
    first = play([(0, 1), (1, 0), (0, 3), (3, 0)])
    second = play([(0, 3), (3, 0), (0, 1), (1, 0)])
    assert first[5] == second[5] == 0 and GAME.key(first) == GAME.key(second)
    # same stones, but the last move sends X to a different board: a different position
    one = play([(0, 1), (1, 2), (2, 3), (3, 0)])
    other = play([(2, 3), (3, 0), (0, 1), (1, 2)])
    assert one[:2] == other[:2] and (one[5], other[5]) == (0, 2)
    assert GAME.key(one) != GAME.key(other)
    assert GAME.legal_actions(one) != GAME.legal_actions(other)


def _lines(state: Any, depth: int) -> list[tuple[Any, tuple[int, ...]]]:
    """All (state, moves) ``depth`` plies on from ``state``, the first move in one board only."""
    frontier: list[tuple[Any, tuple[int, ...]]] = [(state, ())]
    for ply in range(depth):
        nxt = []
        for s, moves in frontier:
            actions = GAME.legal_actions(s)
            if ply == 0 and actions:
                actions = [a for a in actions if a // 9 == actions[0] // 9]
            nxt.extend((GAME.next_state(s, a), (*moves, a)) for a in actions)
        frontier = nxt
    return frontier


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), prefix=st.integers(0, 40))
def test_keys_equal_exactly_when_stones_and_forced_board_are(seed: int, prefix: int) -> None:
    rng = random.Random(seed)
    state = GAME.initial_state()
    for _ in range(prefix):
        if GAME.is_terminal(state):
            break
        state = GAME.next_state(state, rng.choice(GAME.legal_actions(state)))
    groups: dict[tuple[int, int, int], set[Any]] = defaultdict(set)
    for end, _ in _lines(state, 4):
        groups[(end[0], end[1], end[5])].add(GAME.key(end))
    assert all(len(keys) == 1 for keys in groups.values())
    assert len({next(iter(keys)) for keys in groups.values()}) == len(groups)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), data=st.data())
def test_is_reachable_is_sound_and_rejects_lost_stones(seed: int, data: st.DataObject) -> None:
    rng = random.Random(seed)
    states = [GAME.initial_state()]
    while not GAME.is_terminal(states[-1]):
        states.append(GAME.next_state(states[-1], rng.choice(GAME.legal_actions(states[-1]))))
    i = data.draw(st.integers(0, len(states) - 1))
    j = data.draw(st.integers(0, len(states) - 1))
    earlier, later = states[min(i, j)], states[max(i, j)]
    assert GAME.is_reachable(earlier, GAME.key(later))
    if i != j:
        assert not GAME.is_reachable(later, GAME.key(earlier))  # stones never leave


def test_is_reachable_is_tight() -> None:
    start = GAME.initial_state()
    state = play([(4, 0)])  # O is sent to board 0
    assert GAME.is_reachable(state, GAME.key(play([(4, 0), (0, 8)])))
    assert not GAME.is_reachable(state, GAME.key(play([(4, 1), (1, 0)])))  # X's stone moved
    # a one-move successor must be legal: O may not play outside board 0
    wrong = (state[0], 1 << act(3, 3), 0, 0, 0, 3, 2, RUNNING)
    assert not GAME.is_reachable(state, wrong)
    # later positions must keep won boards and place nothing in closed boards
    won = play(DIAGONAL_WIN[:7])  # X has won board 0
    later = play(DIAGONAL_WIN[:9])
    assert GAME.is_reachable(won, GAME.key(later))
    no_win = (*later[:2], 0, *later[3:])
    assert not GAME.is_reachable(won, no_win)
    extra = (later[0] | 1 << act(0, 0), later[1] | 1 << act(5, 5), *later[2:6], 11, RUNNING)
    assert not GAME.is_reachable(won, extra)  # a new stone in closed board 0
    # a terminal position reaches only itself; foreign keys are never reachable
    end = play(ROW_WIN)
    assert GAME.is_reachable(end, GAME.key(end))
    assert not GAME.is_reachable(end, GAME.key(start))
    for junk in (None, (1, 2), "key", (0,) * 7):
        assert not GAME.is_reachable(start, junk)


# ---------------------------------------------------------------------- views
def test_observation_planes_and_grid_layout() -> None:
    state = play([(4, 2), (2, 3)])  # X: board 4 cell 2; O: board 2 cell 3; X sent to board 3
    x_obs = GAME.observation(state, 0)
    o_obs = GAME.observation(state, 1)
    assert x_obs.shape == (9, 9, 3) and x_obs.dtype == np.int8
    # board 4 cell 2 -> row 3, column 5; board 2 cell 3 -> row 1, column 6
    assert np.argwhere(x_obs[..., 0]).tolist() == [[3, 5]]
    assert np.argwhere(x_obs[..., 1]).tolist() == [[1, 6]]
    np.testing.assert_array_equal(o_obs[..., 0], x_obs[..., 1])
    np.testing.assert_array_equal(o_obs[..., 1], x_obs[..., 0])
    # the legal plane is board 3 (rows 3..5, columns 0..2), the same for both observers
    expected = np.zeros((9, 9), dtype=np.int8)
    expected[3:6, 0:3] = 1
    np.testing.assert_array_equal(x_obs[..., 2], expected)
    np.testing.assert_array_equal(o_obs[..., 2], expected)
    grid = GAME.grid(state)
    assert grid[3, 5] == 1 and grid[1, 6] == 2 and grid.sum() == 3
    assert not GAME.observation(play(ROW_WIN), 0)[..., 2].any()


def test_render_text_and_rgb() -> None:
    text = GAME.render_text(play([(4, 2), (2, 3)]))
    assert text.splitlines()[1] == "... ... O.."
    assert text.splitlines()[4] == "... ..X ..."
    assert text.endswith("X to play in board 3")
    assert GAME.render_text(play(DIAGONAL_WIN[:7])).endswith("O to play in any board")
    assert GAME.action_to_string(GAME.initial_state(), act(4, 2)) == "board 4 cell 2"
    env = UltimateTicTacToeEnv(render_mode="rgb_array")
    env.reset()
    assert env.render().shape == (9 * 40 + 1, 9 * 40 + 1, 3)
    assert UltimateTicTacToeEnv.render_block == 3
    assert UltimateTicTacToeEnv.metadata["name"] == "ultimate_tic_tac_toe_v0"


def test_forged_ultimate_tic_tac_toe_states_are_refused_naming_the_problem() -> None:
    raw = UltimateTicTacToeEnv()
    raw.reset()
    forged = [
        ((1, 1, 0, 0, 0, -1, 2, 0), "two stones on one cell"),
        ((1 << 81, 0, 0, 0, 0, -1, 1, 0), "off the board"),
        ((1, 0, 0, 0, 0, 0, 2, 0), "ply 2"),
        ((1, 0, 1, 0, 1, 0, 1, 0), "do not match the stones"),
        ((1, 0, 0, 0, 0, 5, 1, 0), "forced board 5"),
        ((1, 0, 0, 0, 0, 0, 1, 1), "status 1 does not match"),
        ((1, 0, 0, 0, 0, 0, 1), "tuple of 8 fields"),
    ]
    for state, match in forged:
        assert_state_refused(raw, state, match)


# ------------------------------------------------------- forged positions (issue 37, item 12)
def _accepted(state: Any) -> bool:
    try:
        GAME.check_state(state)
    except InvalidStateError:
        return False
    return True


def _plies(depth: int) -> list[set[Any]]:
    """Every position after 0, 1, ..., ``depth`` moves, by the rules' own moves."""
    levels = [{GAME.initial_state()}]
    for _ in range(depth):
        levels.append({GAME.next_state(s, a) for s in levels[-1] for a in GAME.legal_actions(s)})
    return levels


def test_the_first_four_moves_are_checked_exactly() -> None:
    """restore_state took O's first stone outside the board X sent it to. Until a small board
    closes the check is exact: every position of the first three moves passes and every
    two-stone board play does not reach is refused, whatever ``forced`` says; forgeries of
    three- and four-stone positions (a stone moved to another empty cell, ``forced`` the last
    stone's cell or free) pass exactly when play reaches them."""
    levels = _plies(4)
    assert [len(level) for level in levels] == [1, 81, 720, 6_336, 54_828]
    for level in levels[:4]:
        assert all(_accepted(state) for state in level)
    for x in range(81):
        for o in set(range(81)) - {x}:
            for forced in (o % 9, -1):
                state = (1 << x, 1 << o, 0, 0, 0, forced, 2, RUNNING)
                assert _accepted(state) == (state in levels[2])
    rng = random.Random(37)
    for ply in (3, 4):
        taken = 0
        for state in rng.sample(sorted(levels[ply]), 2_000):
            assert _accepted(state)
            b0, b1 = state[0], state[1]
            stone = rng.choice([i for i in range(81) if (b0 | b1) >> i & 1])
            to = rng.choice([i for i in range(81) if not (b0 | b1) >> i & 1])
            if b0 >> stone & 1:
                b0 ^= 1 << stone | 1 << to
            else:
                b1 ^= 1 << stone | 1 << to
            last = (
                to
                if (b0 if ply & 1 else b1) >> to & 1
                else rng.choice([i for i in range(81) if (b0 if ply & 1 else b1) >> i & 1])
            )
            for forced in (last % 9, -1):
                forged = (b0, b1, 0, 0, 0, forced, ply, RUNNING)
                assert _accepted(forged) == (forged in levels[ply])
                taken += forged in levels[ply]
        assert 0 < taken < 2_000  # both answers come up


@pytest.mark.parametrize("decisive", [False, True])
def test_every_position_of_seeded_random_games_passes(decisive: bool) -> None:
    """Small boards won and filled: free moves, walks broken at closed boards. The checks
    after the first moves are necessary conditions only; none refuses a position of play."""
    rng = random.Random(int(decisive))
    raw = UltimateTicTacToeEnv()
    raw.reset()
    positions = 0
    for _ in range(400):
        state = GAME.initial_state()
        while True:
            GAME.check_state(state)
            positions += 1
            if GAME.is_terminal(state):
                break
            choices = GAME.decisive_choices(state) if decisive else GAME.legal_actions(state)
            state = GAME.next_state(state, rng.choice(choices))
        assert raw.is_reachable(state)  # a finished game's key, from the start
    assert positions > 20_000


def test_stones_no_order_of_play_fits_are_refused() -> None:
    raw = UltimateTicTacToeEnv()
    raw.reset()
    match = "stones_0, stones_1, forced"
    # X on cell 0 of board 4 sends O to board 0, but O played in board 5
    assert_state_refused(raw, (1 << act(4, 0), 1 << act(5, 3), 0, 0, 0, 3, 2, RUNNING), match)
    # two loops, X 0 -> 1 -> 0 (O) and X 3 -> 4 -> 3 (O): no free move joins them
    two_loops = (
        1 << act(0, 1) | 1 << act(3, 4),
        1 << act(1, 0) | 1 << act(4, 3),
        *(0, 0, 0, 3, 4, RUNNING),
    )
    assert_state_refused(raw, two_loops, match)
    # O to move but free, with X's only stone on an open board's cell
    assert_state_refused(raw, (1 << act(4, 0), 0, 0, 0, 0, -1, 1, RUNNING), "forced -1")
    # O on cell 5 sends X to board 5, but X's stones are in boards 0 and 6: two free moves
    o_stone = 1 << act(1, 5)
    assert_state_refused(
        raw, (1 << act(0, 1) | 1 << act(6, 7), o_stone, *(0, 0, 0, 7, 3, 0)), match
    )
    assert raw.is_reachable((1 << act(0, 1) | 1 << act(5, 7), o_stone, *(0, 0, 0, 7, 3, 0)))
