"""Othello: perft counts, play against OpenSpiel, scripted games, a naive reference, properties."""

from __future__ import annotations

import random
import re
from collections import defaultdict
from functools import cache
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mcts_agents.envs import (
    GameOverError,
    IllegalActionError,
    InvalidParameterError,
    InvalidStateError,
)
from mcts_agents.envs.games.othello import Othello, State
from mcts_agents.envs.othello_v0 import OthelloEnv, env, raw_env
from tests.envs.conftest import assert_state_refused

pyspiel = pytest.importorskip("pyspiel")

GAME = Othello()
PASS = 64
COLS = "abcdefghijklmnop"

# Published Othello perft counts (positions after n plies, passes counted as moves).
PERFT = {1: 4, 2: 12, 3: 56, 4: 244, 5: 1_396, 6: 8_200, 7: 55_092, 8: 390_216, 9: 3_005_288}


def parse(moves: str, size: int = 8) -> list[int]:
    """``"d3 c5 pass"`` -> actions (column letter, row number from 1 at the top)."""
    out = []
    for word in moves.split():
        if word == "pass":
            out.append(size * size)
        else:
            out.append((int(word[1:]) - 1) * size + COLS.index(word[0]))
    return out


def spiel_play(actions: list[int]) -> Any:
    state = pyspiel.load_game("othello").new_initial_state()
    for action in actions:
        state.apply_action(action)
    return state


def spiel_position(state: Any) -> tuple[int, bytes]:
    """OpenSpiel's board and side to move (-1 once the game is over)."""
    board = np.asarray(state.observation_tensor(0), dtype=np.int8).tobytes()
    return (-1 if state.is_terminal() else state.current_player(), board)


def counts(game: Othello, state: State) -> tuple[int, int]:
    black, white = game.black_white(state)
    return black.bit_count(), white.bit_count()


# ---------------------------------------------------------------------------- a naive reference
DIRECTIONS = [(dr, dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1) if dr or dc]


class NaiveOthello:
    """Othello on a list of lists, square by square: slow, obvious, independent of the bitboards."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.board = [[0] * size for _ in range(size)]  # 0 empty, 1 black, 2 white
        h = size // 2
        self.board[h - 1][h - 1] = self.board[h][h] = 2
        self.board[h - 1][h] = self.board[h][h - 1] = 1
        self.mover = 0
        self.over = False

    def flips(self, r: int, c: int, colour: int) -> list[tuple[int, int]]:
        if self.board[r][c]:
            return []
        out: list[tuple[int, int]] = []
        for dr, dc in DIRECTIONS:
            run = []
            rr, cc = r + dr, c + dc
            while 0 <= rr < self.size and 0 <= cc < self.size and self.board[rr][cc] == 3 - colour:
                run.append((rr, cc))
                rr, cc = rr + dr, cc + dc
            inside = 0 <= rr < self.size and 0 <= cc < self.size
            if run and inside and self.board[rr][cc] == colour:
                out.extend(run)
        return out

    def placing(self, player: int) -> list[int]:
        n = self.size
        return [r * n + c for r in range(n) for c in range(n) if self.flips(r, c, player + 1)]

    def legal(self) -> list[int]:
        if self.over:
            return []
        return self.placing(self.mover) or [self.size * self.size]

    def play(self, action: int) -> None:
        n = self.size
        if action != n * n:
            r, c = divmod(action, n)
            for rr, cc in self.flips(r, c, self.mover + 1):
                self.board[rr][cc] = self.mover + 1
            self.board[r][c] = self.mover + 1
            if not self.placing(1 - self.mover) and not self.placing(self.mover):
                self.over = True
        self.mover = 1 - self.mover

    def returns(self) -> tuple[float, float]:
        cells = [v for row in self.board for v in row]
        diff = cells.count(1) - cells.count(2)
        return (0.0, 0.0) if diff == 0 else ((1.0, -1.0) if diff > 0 else (-1.0, 1.0))


@pytest.mark.parametrize(
    ("size", "games"), [(4, 40), (6, 15), (8, 6), (10, 3), (12, 1), (14, 1), (16, 1)]
)
def test_random_games_match_naive_reference(size: int, games: int) -> None:
    game = Othello(size)
    rng = random.Random(size)
    for _ in range(games):
        state, ref = game.initial_state(), NaiveOthello(size)
        while True:
            assert np.array_equal(game.grid(state), np.array(ref.board))
            assert game.legal_actions(state) == ref.legal()
            assert game.is_terminal(state) == ref.over
            if ref.over:
                assert game.returns(state) == ref.returns()
                break
            assert game.to_play(state) == ref.mover
            action = rng.choice(ref.legal())
            state = game.next_state(state, action)
            ref.play(action)


# ---------------------------------------------------------------------------- perft
def env_perft(env: OthelloEnv, depth: int) -> int:
    """Leaves at ``depth`` plies, stepping the AEC env and going back with save/restore."""
    if depth == 0:
        return 1
    snapshot = env.save_state()
    total = 0
    for action in env.legal_actions():
        env.step(action)
        total += env_perft(env, depth - 1)
        env.restore_state(snapshot)
    return total


@pytest.mark.parametrize(
    "depth",
    [
        1,
        2,
        3,
        4,
        5,
        6,
        pytest.param(7, marks=pytest.mark.slow),
        pytest.param(8, marks=pytest.mark.slow),
    ],
)
def test_perft_through_env_save_restore(depth: int) -> None:
    env = OthelloEnv()
    env.reset()
    start = env.save_state()
    assert env_perft(env, depth) == PERFT[depth]
    assert env.save_state() == start


def core_perft(game: Othello, state: State, depth: int) -> int:
    """Perft on the rules core, counting the last ply's moves from the move bitboard."""
    moves = state[3]
    if depth == 1:
        return moves.bit_count() if moves > 0 else int(moves == 0)
    return sum(
        core_perft(game, game.next_state(state, a), depth - 1) for a in game.legal_actions(state)
    )


@pytest.mark.slow
def test_perft_9_through_core() -> None:
    """Ply 9 is the first where games end (wipe-outs), so this also counts terminal leaves."""
    assert core_perft(GAME, GAME.initial_state(), 9) == PERFT[9]


# ---------------------------------------------------------------------------- OpenSpiel
def test_initial_board_matches_openspiel() -> None:
    state = GAME.initial_state()
    spiel = spiel_play([])
    assert GAME.legal_actions(state) == spiel.legal_actions() == parse("d3 c4 f5 e6")
    for player in (0, 1):
        planes = np.asarray(spiel.observation_tensor(player)).reshape(3, 8, 8)
        assert np.array_equal(np.moveaxis(GAME.observation(state, player), -1, 0), planes[1:])
    assert GAME.grid(state)[3, 3] == 2 and GAME.grid(state)[3, 4] == 1  # d4 white, e4 black


def test_random_games_match_openspiel() -> None:
    rng = random.Random(2024)
    passes = ends_with_empties = 0
    for _ in range(300):
        state, spiel = GAME.initial_state(), spiel_play([])
        while True:
            assert GAME.is_terminal(state) == spiel.is_terminal()
            if spiel.is_terminal():
                assert GAME.returns(state) == tuple(spiel.returns())
                assert GAME.legal_actions(state) == []
                ends_with_empties += sum(counts(GAME, state)) < 64
                break
            assert GAME.to_play(state) == spiel.current_player()
            legal = GAME.legal_actions(state)
            assert legal == spiel.legal_actions()
            passes += legal == [PASS]
            player = spiel.current_player()
            planes = np.asarray(spiel.observation_tensor(player)).reshape(3, 8, 8)
            assert np.array_equal(np.moveaxis(GAME.observation(state, player), -1, 0), planes[1:])
            action = rng.choice(legal)
            state = GAME.next_state(state, action)
            spiel.apply_action(action)
    assert passes > 0 and ends_with_empties > 0  # the rare rules were exercised


# ---------------------------------------------------------------------------- scripted games
def test_forced_pass_then_the_other_player_continues() -> None:
    moves = parse("c4 c3 f5 b4 a4 a5 b2 a3")
    spiel = spiel_play(moves)
    raw = OthelloEnv()
    raw.reset()
    for action in moves:
        raw.step(action)
    assert raw.agent_selection == "player_0" and spiel.current_player() == 0
    assert raw.legal_actions() == spiel.legal_actions() == [PASS]
    assert list(np.flatnonzero(raw.observe("player_0")["action_mask"])) == [PASS]
    with pytest.raises(IllegalActionError, match="not legal"):
        raw.step(parse("a1")[0])
    raw.step(PASS)
    spiel.apply_action(PASS)
    assert raw.agent_selection == "player_1"
    assert PASS not in raw.legal_actions()
    assert raw.legal_actions() == spiel.legal_actions()


def test_pass_is_illegal_while_a_disc_can_be_placed() -> None:
    raw = OthelloEnv()
    raw.reset()
    with pytest.raises(IllegalActionError, match="not legal"):
        raw.step(PASS)
    assert not GAME.is_legal(GAME.initial_state(), PASS)


def test_nine_move_wipe_out() -> None:
    """The shortest Othello games last nine moves; here white is wiped off the board."""
    moves = parse("d3 c3 b3 d2 e1 d6 d7 e3 f4")
    state = GAME.apply(GAME.initial_state(), moves)
    assert spiel_play(moves).is_terminal() and tuple(spiel_play(moves).returns()) == (1.0, -1.0)
    assert GAME.is_terminal(state) and GAME.legal_actions(state) == []
    assert counts(GAME, state) == (13, 0)
    assert GAME.returns(state) == (1.0, -1.0)
    assert not GAME.is_terminal(GAME.apply(GAME.initial_state(), moves[:-1]))


FULL_BOARD_GAME = (
    "d3 c5 c6 e3 c4 b6 f5 d2 d1 c3 f2 e1 a7 f3 f1 f4 g3 g5 b3 e6 g4 b4 b2 h2 e7 b1 a1 f7 c1 h3 h4 "
    "e2 f6 b5 h1 g1 g7 c7 d7 g2 a5 a4 a6 h5 c8 b7 d6 f8 g6 c2 g8 a2 d8 h6 h8 e8 h7 b8 a8 pass a3"
)
EARLY_END_GAME = (
    "c4 e3 f3 g3 g2 c5 d3 e2 d6 c7 f6 f5 f4 g5 f1 b4 e6 e7 a4 c3 c6 a5 b8 e1 d2 c8 h2 g4 h4 b5 "
    "e8 a3 f7 g7 c2 h3 b3 d1 h8 h5 a2 f8 c1 b2 d8 a1 b1 d7 g8 h7 f2 g6 a6 g1 h6 a7 b6 b7"
)


def test_full_board_end() -> None:
    moves = parse(FULL_BOARD_GAME)
    state = GAME.apply(GAME.initial_state(), moves)
    spiel = spiel_play(moves)
    assert GAME.is_terminal(state) and spiel.is_terminal()
    assert counts(GAME, state) == (47, 17)
    assert GAME.returns(state) == tuple(spiel.returns()) == (1.0, -1.0)
    assert "X (black) wins 47-17" in GAME.render_text(state)


def test_game_ends_when_neither_side_can_move() -> None:
    """Two squares stay empty (h1, a8), yet neither player can move: the game is over."""
    moves = parse(EARLY_END_GAME)
    before = GAME.apply(GAME.initial_state(), moves[:-1])
    state = GAME.next_state(before, moves[-1])
    spiel = spiel_play(moves)
    assert not GAME.is_terminal(before)
    assert GAME.is_terminal(state) and spiel.is_terminal()
    assert counts(GAME, state) == (27, 35)
    assert np.count_nonzero(GAME.grid(state) == 0) == 2
    assert GAME.grid(state)[0, 7] == 0 and GAME.grid(state)[7, 0] == 0
    assert GAME.returns(state) == tuple(spiel.returns()) == (-1.0, 1.0)
    raw = OthelloEnv()
    raw.reset()
    for action in moves:
        raw.step(action)
    assert all(raw.terminations.values()) and raw.legal_actions() == []
    assert raw.rewards == {"player_0": -1.0, "player_1": 1.0}
    with pytest.raises(GameOverError):
        raw.step(PASS)


def test_draw_on_4x4_after_a_pass() -> None:
    game = Othello(4)
    moves = parse("b1 a1 a2 c1 d1 a3 c4 d2 a4 d3 d4 pass b4", size=4)
    state = game.initial_state()
    for i, action in enumerate(moves):
        legal = game.legal_actions(state)
        assert legal == [16] if i == 11 else 16 not in legal  # white must pass before b4
        state = game.apply(state, [action])
    assert game.is_terminal(state)
    assert counts(game, state) == (8, 8)
    assert game.returns(state) == (0.0, 0.0)
    assert "draw 8-8" in game.render_text(state)


def test_4x4_is_a_white_win_by_11_to_3() -> None:
    """4x4 Othello is solved: with perfect play white (the second player) wins 11-3."""
    game = Othello(4)

    @cache
    def value(state: State) -> int:  # black discs minus white discs under perfect play
        if game.is_terminal(state):
            black, white = counts(game, state)
            return black - white
        values = [value(game.next_state(state, a)) for a in game.legal_actions(state)]
        return max(values) if game.to_play(state) == 0 else min(values)

    assert value(game.initial_state()) == -8


# ---------------------------------------------------------------------------- transpositions
def lines(game: Othello, state: State, depth: int) -> list[tuple[list[int], State]]:
    """Every move sequence of length ``depth`` (shorter if the game ends) and its end state."""
    if depth == 0 or game.is_terminal(state):
        return [([], state)]
    return [
        ([a, *rest], end)
        for a in game.legal_actions(state)
        for rest, end in lines(game, game.next_state(state, a), depth - 1)
    ]


def check_keys_match_openspiel(prefix: list[int], depth: int) -> int:
    """Keys are equal exactly when OpenSpiel's boards and movers are; returns #transpositions."""
    start = GAME.apply(GAME.initial_state(), prefix)
    spiel_start = spiel_play(prefix)
    by_key: dict[Any, set[int]] = defaultdict(set)
    by_spiel: dict[Any, set[int]] = defaultdict(set)
    for i, (moves, end) in enumerate(lines(GAME, start, depth)):
        spiel = spiel_start.clone()
        for action in moves:
            spiel.apply_action(action)
        by_key[GAME.key(end)].add(i)
        by_spiel[spiel_position(spiel)].add(i)
    assert sorted(map(sorted, by_key.values())) == sorted(map(sorted, by_spiel.values()))
    return sum(len(group) > 1 for group in by_key.values())


def test_transpositions_from_the_start() -> None:
    assert check_keys_match_openspiel([], 4) > 0


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), plies=st.integers(0, 56))
def test_transposed_move_orders_give_equal_keys(seed: int, plies: int) -> None:
    rng = random.Random(seed)
    prefix: list[int] = []
    state = GAME.initial_state()
    while len(prefix) < plies and not GAME.is_terminal(state):
        prefix.append(rng.choice(GAME.legal_actions(state)))
        state = GAME.next_state(state, prefix[-1])
    check_keys_match_openspiel(prefix, 3)


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_transposed_move_orders_have_equal_futures(seed: int) -> None:
    rng = random.Random(seed)
    prefix: list[int] = []
    state = GAME.initial_state()
    for _ in range(rng.randrange(0, 40)):
        if GAME.is_terminal(state):
            return
        prefix.append(rng.choice(GAME.legal_actions(state)))
        state = GAME.next_state(state, prefix[-1])
    if GAME.is_terminal(state):
        return
    first_line: dict[Any, list[int]] = {}
    pairs = []
    for moves, end in lines(GAME, state, 3):
        other = first_line.setdefault(GAME.key(end), moves)
        if other != moves:
            pairs.append((other, moves))
    for one, two in pairs[:5]:
        envs: list[Any] = []
        for moves in (one, two):
            raw = OthelloEnv()
            raw.reset()
            for action in prefix + moves:
                raw.step(action)
            envs.append(raw)
        a, b = envs
        assert a.state_key() == b.state_key()
        assert a.agent_selection == b.agent_selection
        assert a.legal_actions() == b.legal_actions()
        for agent in a.possible_agents:
            assert np.array_equal(a.observe(agent)["observation"], b.observe(agent)["observation"])
        future = seed % 1000
        assert GAME.rollout(a.state, random.Random(future)) == GAME.rollout(
            b.state, random.Random(future)
        )


# ---------------------------------------------------------------------------- rollouts
def reference_rollout(game: Othello, state: State, rng: random.Random) -> tuple[float, ...]:
    """Uniformly random play through ``next_state``: the k-th legal action, k drawn by ``rng``."""
    while not game.is_terminal(state):
        legal = game.legal_actions(state)
        action = legal[0] if legal == [game.pass_action] else legal[int(rng.random() * len(legal))]
        state = game.next_state(state, action)
    return game.returns(state)


def rejection_rollout(game: Othello, state: State, rng: random.Random) -> State:
    """The playout's documented draws, through ``next_state``: the end state.

    Candidates are the empty squares next to an opponent's disc (found square by square); each
    draw takes the k-th remaining candidate in ascending order, k = int(rng.random() * n), until
    one is legal; a player whose candidates run out passes.
    """
    n = game.size
    while not game.is_terminal(state):
        grid = game.grid(state)
        opponent = 2 - game.to_play(state)
        candidates = [
            r * n + c
            for r in range(n)
            for c in range(n)
            if grid[r, c] == 0
            and any(
                0 <= r + dr < n and 0 <= c + dc < n and grid[r + dr, c + dc] == opponent
                for dr, dc in DIRECTIONS
            )
        ]
        legal = game.legal_actions(state)
        action = game.pass_action
        while candidates:
            candidate = candidates.pop(int(rng.random() * len(candidates)))
            if candidate in legal:
                action = candidate
                break
        assert game.is_legal(state, action)
        state = game.next_state(state, action)
    return state


def random_position(game: Othello, seed: int, plies: int) -> State:
    rng = random.Random(seed)
    state = game.initial_state()
    for _ in range(plies):
        if game.is_terminal(state):
            break
        state = game.next_state(state, rng.choice(game.legal_actions(state)))
    return state


def chi_square_limit(df: int) -> float:
    """The chi-square statistic exceeded with probability ~1e-6 (Wilson-Hilferty)."""
    z = 4.753
    return df * (1 - 2 / (9 * df) + z * (2 / (9 * df)) ** 0.5) ** 3


@settings(max_examples=40, deadline=None)
@given(
    size=st.sampled_from([4, 6, 8, 10]), seed=st.integers(0, 2**32 - 1), plies=st.integers(0, 80)
)
def test_rollouts_reach_the_end_with_valid_returns(size: int, seed: int, plies: int) -> None:
    """The playout ends where no one can move, scores that board, and keeps every disc placed."""
    game = Othello(size)
    state = random_position(game, seed, plies)
    result = game.rollout(state, random.Random(seed))
    assert result in {(1.0, -1.0), (-1.0, 1.0), (0.0, 0.0)}
    black, white, played = game._playout_discs(state, random.Random(seed))
    start_black, start_white = game.black_white(state)
    assert black & white == 0 and (black | white) >> (size * size) == 0
    occupied = start_black | start_white
    assert (black | white) & occupied == occupied  # discs never leave the board
    assert (black | white).bit_count() <= occupied.bit_count() + played
    # the rules core and the naive reference agree that neither player can move
    end = game._after_move(white, black, 1)
    assert game.is_terminal(end)
    assert game.black_white(end) == (black, white)
    assert result == game.returns(end)
    naive = NaiveOthello(size)
    naive.board = [[0] * size for _ in range(size)]
    for bit in range(size * size):
        naive.board[bit // size][bit % size] = (black >> bit & 1) + 2 * (white >> bit & 1)
    assert naive.placing(0) == naive.placing(1) == []
    assert result == naive.returns()
    if game.is_terminal(state):
        assert (black, white, played) == (start_black, start_white, 0)


@settings(max_examples=25, deadline=None)
@given(size=st.sampled_from([4, 6, 8]), seed=st.integers(0, 2**32 - 1), plies=st.integers(0, 60))
def test_rollouts_follow_their_documented_draws_move_for_move(
    size: int, seed: int, plies: int
) -> None:
    """Each ply takes the k-th remaining candidate until one is legal (see ``_playout``)."""
    game = Othello(size)
    state = random_position(game, seed, plies)
    end = rejection_rollout(game, state, random.Random(seed))
    black, white, _ = game._playout_discs(state, random.Random(seed))
    assert (black, white) == game.black_white(end)
    assert game.rollout(state, random.Random(seed)) == game.returns(end)


def first_moves(game: Othello, state: State, seeds: range) -> dict[int, int]:
    """How often the playout's first ply was each action, over ``seeds``."""
    occupied = state[0] | state[1]
    seen: dict[int, int] = defaultdict(int)
    for seed in seeds:
        black, white, played = game._playout_discs(state, random.Random(seed), plies=1)
        assert played == 1
        placed = (black | white) ^ occupied
        seen[placed.bit_length() - 1 if placed else game.pass_action] += 1
    return seen


@pytest.mark.parametrize(("size", "plies"), [(8, 0), (8, 6), (8, 16), (8, 30), (8, 44), (6, 12)])
def test_rollouts_choose_uniformly_among_legal_moves(size: int, plies: int) -> None:
    """The first move's frequencies over many seeds fit the uniform law on the legal moves."""
    game = Othello(size)
    state = random_position(game, 7 + plies, plies)
    legal = game.legal_actions(state)
    assert len(legal) >= 3
    draws = 300 * len(legal)
    seen = first_moves(game, state, range(draws))
    assert set(seen) == set(legal)
    expected = draws / len(legal)
    chi2 = sum((seen[a] - expected) ** 2 / expected for a in legal)
    assert chi2 < chi_square_limit(len(legal) - 1)


def test_first_move_of_a_player_who_must_pass_is_the_pass() -> None:
    state = GAME.apply(GAME.initial_state(), parse("c4 c3 f5 b4 a4 a5 b2 a3"))
    assert GAME.legal_actions(state) == [PASS]
    assert first_moves(GAME, state, range(20)) == {PASS: 20}


def test_rollout_outcomes_match_the_reference_rollout_on_6x6() -> None:
    """Black wins, white wins and draws from the start are as frequent as by ``next_state``."""
    game = Othello(6)
    start = game.initial_state()
    games = 3000
    ours = [game.rollout(start, random.Random(seed)) for seed in range(games)]
    ref = [reference_rollout(game, start, random.Random(10**6 + seed)) for seed in range(games)]
    outcomes = [(1.0, -1.0), (-1.0, 1.0), (0.0, 0.0)]
    chi2 = 0.0
    for outcome in outcomes:  # two-sample chi-square on equal sample sizes
        a, b = ours.count(outcome), ref.count(outcome)
        if a + b:
            chi2 += (a - b) ** 2 / (a + b)
    assert chi2 < chi_square_limit(len(outcomes) - 1)
    assert min(ours.count(o) for o in outcomes) > 0  # draws happen on 6x6 too


def test_rollouts_are_not_constant() -> None:
    results = {GAME.rollout(GAME.initial_state(), random.Random(seed)) for seed in range(50)}
    assert {(1.0, -1.0), (-1.0, 1.0)} <= results


# ---------------------------------------------------------------------------- reachability
def test_reachability_is_tight() -> None:
    start = GAME.initial_state()
    after_one = GAME.next_state(start, parse("d3")[0])
    sibling = GAME.next_state(start, parse("c4")[0])
    assert GAME.is_reachable(start, GAME.key(after_one))
    assert not GAME.is_reachable(after_one, GAME.key(start))  # discs never leave the board
    assert not GAME.is_reachable(after_one, GAME.key(sibling))  # d3 is occupied for good
    recoloured = (after_one[1], after_one[0], after_one[2], after_one[3])  # same squares
    assert not GAME.is_reachable(after_one, recoloured)
    assert not GAME.is_reachable(start, "not a key")
    assert not GAME.is_reachable(start, (1, 2))


def test_reachability_across_a_pass_and_at_the_end() -> None:
    must_pass = GAME.apply(GAME.initial_state(), parse("c4 c3 f5 b4 a4 a5 b2 a3"))
    after_pass = GAME.next_state(must_pass, PASS)
    assert GAME.is_reachable(must_pass, GAME.key(after_pass))
    assert not GAME.is_reachable(after_pass, GAME.key(must_pass))
    end = GAME.apply(GAME.initial_state(), parse("d3 c3 b3 d2 e1 d6 d7 e3 f4"))
    assert GAME.is_reachable(end, GAME.key(end))
    assert not GAME.is_reachable(end, GAME.key(GAME.initial_state()))
    before_end = GAME.apply(GAME.initial_state(), parse("d3 c3 b3 d2 e1 d6 d7 e3"))
    assert GAME.is_reachable(before_end, GAME.key(end))


def test_equal_final_boards_share_one_key() -> None:
    """A finished game's key does not depend on who moved last."""
    end = GAME.apply(GAME.initial_state(), parse(FULL_BOARD_GAME))
    assert GAME.to_play(end) == 0 and GAME.is_terminal(end)
    black, white = GAME.black_white(end)
    assert GAME.key(end) == (black, white, 0, -1)


# ---------------------------------------------------------------------------- env surface
def test_env_observation_grid_and_text() -> None:
    raw = raw_env(render_mode="ansi")
    raw.reset()
    raw.step(parse("d3")[0])
    black_view = raw.observe("player_0")["observation"]
    white_view = raw.observe("player_1")["observation"]
    assert black_view.shape == (8, 8, 2) and black_view.dtype == np.int8
    assert np.array_equal(black_view[..., ::-1], white_view)
    assert black_view[..., 0].sum() == 4 and black_view[..., 1].sum() == 1
    assert black_view[2, 3, 0] == 1 and black_view[3, 3, 0] == 1  # d3 placed, d4 flipped
    grid = raw.game.grid(raw.state)
    assert grid[2, 3] == 1 and grid[4, 4] == 2 and np.count_nonzero(grid) == 5
    text = raw.render()
    assert isinstance(text, str)
    assert text.splitlines()[0].split() == list("abcdefgh")
    assert text.splitlines()[3].split() == ["3", ".", ".", ".", "X", ".", ".", ".", "."]
    assert "O (white) to play" in text
    assert GAME.action_to_string(GAME.initial_state(), 19) == "d3"
    assert GAME.action_to_string(GAME.initial_state(), PASS) == "pass"


def test_env_sizes_and_spaces() -> None:
    for size in (4, 6, 8, 10, 12, 14, 16):
        raw: Any = OthelloEnv(size=size)
        assert raw.action_space("player_0").n == size * size + 1
        assert raw.observation_space("player_1")["observation"].shape == (size, size, 2)
    assert OthelloEnv.metadata["name"] == "othello_v0"
    wrapped = env(size=6)
    wrapped.reset()
    assert wrapped.unwrapped.game == Othello(6)


@pytest.mark.parametrize("bad", [3, 2, 18, 0, -8, 7, 20, 8.0, "8", True, None])
def test_bad_sizes_raise(bad: Any) -> None:
    with pytest.raises(InvalidParameterError, match=f"got {re.escape(repr(bad))}$"):
        Othello(bad)
    with pytest.raises(InvalidParameterError, match="size"):
        OthelloEnv(size=bad)


def test_forged_othello_states_are_refused_naming_the_problem() -> None:
    raw = raw_env()
    raw.reset()
    own, other, player, moves = raw.state
    centre_bit = own & -own
    forged = [
        ((own, own, player, moves), "two discs on one square"),
        ((own | 1 << 64, other, player, moves), "off the board"),
        ((own ^ centre_bit, other, player, moves), "centre square is empty"),
        ((own, other, player, 0), "not the mover's legal moves"),
        ((own, other, 0, -1), "a player can still move"),
        ((own, other, 2, moves), "to_play"),
        ((own, other, player), "tuple of 4 fields"),
    ]
    for state, match in forged:
        assert_state_refused(raw, state, match)


# ------------------------------------------------------- forged positions (issue 37, item 12)
GAME_4 = Othello(4)


def _every_position(game: Othello) -> set[State]:
    """Every position play reaches from the start (4x4: 61,875), by the rules' own moves."""
    found = {game.initial_state()}
    stack = [game.initial_state()]
    while stack:
        state = stack.pop()
        for action in game.legal_actions(state):
            child = game.next_state(state, action)
            if child not in found:
                found.add(child)
                stack.append(child)
    return found


@cache
def _positions_4x4() -> frozenset[State]:
    return frozenset(_every_position(GAME_4))


def _with_moves(game: Othello, own: int, other: int, player: int) -> State:
    """A position of these discs in the rules' form: the mover's moves, 0 for a pass, or the
    finished game stored as (black, white, 0, -1)."""
    mine, theirs = game._moves(own, other), game._moves(other, own)
    if mine or theirs:
        return (own, other, player, mine)
    return (own, other, 0, -1) if player == 0 else (other, own, 0, -1)


def _squares(size: int, discs: int) -> set[tuple[int, int]]:
    return {divmod(i, size) for i in range(size * size) if discs >> i & 1}


def _refuted(game: Othello, state: State) -> bool:
    """Whether this test proves, square by square, that no play reaches ``state`` (whose
    moves field is the rules'): a disc cut off from the centre (a disc is placed next to a
    disc it flips, and discs never leave); or no disc that can have been placed last, by the
    player not to move or, when the other cannot move (it passed, or the game is over), by
    the player to move. A disc placed last is no centre disc, its next two squares in some
    direction are its owner's (a flipped run and the disc that bracketed it), and in no
    direction does a run of the other's discs from it end at one of its owner's (the move
    would have flipped it)."""
    n, h = game.size, game.size // 2
    own, other, _, moves = state
    centre = {(h - 1, h - 1), (h - 1, h), (h, h - 1), (h, h)}
    occupied = _squares(n, own | other)
    reached, grow = set(centre), list(centre)
    while grow:
        r, c = grow.pop()
        for dr, dc in DIRECTIONS:
            if (r + dr, c + dc) in occupied - reached:
                reached.add((r + dr, c + dc))
                grow.append((r + dr, c + dc))
    if reached != occupied:
        return True

    def could_be_last(placer: set[tuple[int, int]], others: set[tuple[int, int]]) -> bool:
        for r, c in placer - centre:
            flipped = bracketed = False
            for dr, dc in DIRECTIONS:
                flipped |= (r + dr, c + dc) in placer and (r + 2 * dr, c + 2 * dc) in placer
                k = 1
                while (r + k * dr, c + k * dc) in others:
                    k += 1
                bracketed |= k > 1 and (r + k * dr, c + k * dc) in placer
            if flipped and not bracketed:
                return True
        return False

    mine, theirs = _squares(n, own), _squares(n, other)
    other_passed = moves == -1 or not game._moves(other, own)
    return not could_be_last(theirs, mine) and not (other_passed and could_be_last(mine, theirs))


def _forge(game: Othello, rng: random.Random, added: int) -> State:
    """The four centre squares coloured at random and ``added`` more discs of random colours
    on random squares, the side to move at random; the moves field is the rules'."""
    n = game.size
    centre = game.initial_state()[0] | game.initial_state()[1]
    own = other = 0
    for i in rng.sample([i for i in range(n * n) if not centre >> i & 1], added):
        own, other = (own | 1 << i, other) if rng.random() < 0.5 else (own, other | 1 << i)
    for i in range(n * n):
        if centre >> i & 1:
            own, other = (own | 1 << i, other) if rng.random() < 0.5 else (own, other | 1 << i)
    return _with_moves(game, own, other, rng.randrange(2))


def test_every_4x4_position_passes_and_forgeries_the_rules_refute_are_refused() -> None:
    """restore_state took the start plus a lone corner disc (and 4x4 forgeries by the
    hundred). Now every position play reaches passes (check_state and the env's
    is_reachable from the start); of 9,000 forged boards, none that the exhaustive list lacks
    is taken with up to eight discs, and none that this test's own square-by-square
    reasoning refutes is taken at all."""
    every = _positions_4x4()
    assert len(every) == 61_875
    for state in every:
        GAME_4.check_state(state)
    raw = raw_env(size=4)
    raw.reset()
    assert all(raw.is_reachable(state) for state in every)
    rng = random.Random(37)
    refused = taken_refuted = 0
    for added in range(1, 13):
        for _ in range(750):
            state = _forge(GAME_4, rng, added)
            try:
                GAME_4.check_state(state)
            except InvalidStateError:
                refused += 1
                assert state not in every
                continue
            assert state in every or added > 4  # the first four moves are checked exactly
            taken_refuted += _refuted(GAME_4, state)
    assert taken_refuted == 0
    assert refused > 4_000  # most forgeries are refused


@pytest.mark.parametrize(("size", "games"), [(6, 40), (8, 40), (10, 10)])
def test_played_positions_pass_and_refuted_forgeries_of_them_are_refused(
    size: int, games: int
) -> None:
    """Seeded random games: every position passes; each position with a disc added on an
    empty square, or one disc's colour changed, is refused wherever this test refutes it."""
    game = Othello(size)
    rng = random.Random(size)
    positions = refused = 0
    for _ in range(games):
        state = game.initial_state()
        while True:
            game.check_state(state)
            positions += 1
            black, white = game.black_white(state)
            square = 1 << rng.randrange(size * size)
            if not (black | white) & square:
                black |= square
            elif square & black:
                black, white = black ^ square, white | square
            else:
                black, white = black | square, white ^ square
            forged = _with_moves(game, black, white, rng.randrange(2))
            if _refuted(game, forged):
                with pytest.raises(InvalidStateError, match="own, other"):
                    game.check_state(forged)
                refused += 1
            if game.is_terminal(state):
                break
            state = game.next_state(state, rng.choice(game.legal_actions(state)))
    assert positions > 20 * games and refused > positions // 10


@pytest.mark.parametrize("size", [4, 8])
def test_the_start_plus_a_lone_corner_disc_is_refused(size: int) -> None:
    raw = raw_env(size=size)
    raw.reset()
    game = raw.game
    black, white, _, _ = game.initial_state()
    n = size
    for corner in (0, n - 1, n * (n - 1), n * n - 1):
        for b, w in ((black | 1 << corner, white), (black, white | 1 << corner)):
            for player in (0, 1):
                own, other = (b, w) if player == 0 else (w, b)
                state = _with_moves(game, own, other, player)
                assert_state_refused(raw, state, "own, other")
