"""Go: move by move against PettingZoo's go_v5 and OpenSpiel's go, superko by brute force,
known positions (captures, snapback, ko, suicide, a seki and its area), the playouts, the
env's views."""

from __future__ import annotations

import random
import warnings
from dataclasses import replace
from typing import Any

import numpy as np
import pytest
from pettingzoo.test import api_test

from mcts_agents.envs import IllegalActionError, InvalidParameterError, InvalidStateError
from mcts_agents.envs.games.go import Go, State, parse_vertex, vertex
from mcts_agents.envs.go_v0 import env, raw_env

pyspiel = pytest.importorskip("pyspiel")
go_v5 = pytest.importorskip("pettingzoo.classic.go.go")


def play(game: Go, moves: str, state: State | None = None) -> State:
    """Play GTP vertices (``"D4 pass C3"``) with full checking, black first."""
    state = game.initial_state() if state is None else state
    for word in moves.split():
        action = parse_vertex(word, game.size)
        assert action is not None, word
        state = game.apply(state, [action])
    return state


def board(game: Go, state: State) -> list[str]:
    return [vertex(a, game.size) for a in range(game.points) if game.grid(state).flat[a]]


# ---------------------------------------------------------------------------- go_v5
@pytest.mark.parametrize(("size", "games"), [(5, 120), (7, 100), (9, 80)])
def test_simple_ko_rules_equal_go_v5_move_by_move(size: int, games: int) -> None:
    """Random games on go_v5 and our core with superko off: at every step the legal moves,
    the stones and the ko point are equal, and at the end the returns (300 games)."""
    rng = random.Random(size)
    reference = go_v5.raw_env(board_size=size, komi=7.5)
    game = Go(size, 7.5, superko=False)
    captures = kos = 0
    for _ in range(games):
        reference.reset()
        state = game.initial_state()
        while not reference.terminations[reference.agent_selection]:
            mask = reference.observe(reference.agent_selection)["action_mask"]
            legal = np.flatnonzero(mask).tolist()
            assert game.legal_actions(state) == legal
            assert reference.agent_selection == ("black_0", "white_0")[game.to_play(state)]
            action = rng.choice(legal)
            before = int(np.count_nonzero(reference._go.board))
            reference.step(action)
            state = game.next_state(state, action)
            grid = game.grid(state)
            position = reference._go
            assert np.array_equal(grid == 1, position.board == 1)
            assert np.array_equal(grid == 2, position.board == -1)
            ko = -1 if position.ko is None else position.ko[0] * size + position.ko[1]
            assert state[3] == ko
            captures += int(np.count_nonzero(position.board)) < before
            kos += ko >= 0
        assert game.is_terminal(state)
        assert list(game.returns(state)) == [reference.rewards[a] for a in ("black_0", "white_0")]
    assert captures > games and kos > 0  # the games did capture and make kos


def test_a_tie_goes_to_white_as_go_v5_pays_it() -> None:
    game = Go(5, 0.0)
    state = play(game, "pass pass")  # empty board: 0 - 0 - 0 = 0, a tie
    assert game.score(state) == 0 and game.returns(state) == (-1.0, 1.0)
    reference = go_v5.raw_env(board_size=5, komi=0.0)
    reference.reset()
    reference.step(25)
    reference.step(25)
    assert [reference.rewards[a] for a in ("black_0", "white_0")] == [-1, 1]


# ---------------------------------------------------------------------------- OpenSpiel
def test_simple_ko_rules_equal_openspiel_go_9x9_legal_moves_and_returns() -> None:
    """OpenSpiel's go (9x9, komi 7.5, its move limit lifted): legal moves, the player to move
    and returns equal ours with superko off. OpenSpiel plays simple ko too, but ends a game
    (a draw) when a move repeats an earlier board; such a game is compared up to there, and
    that board is checked to be a repeat."""
    size = 9
    reference = pyspiel.load_game(
        "go", {"board_size": size, "komi": 7.5, "max_game_length": 100_000}
    )
    game = Go(size, 7.5, superko=False)

    def ours(action: int) -> int:  # OpenSpiel counts rows from the bottom
        if action == size * size:
            return action
        row, col = divmod(action, size)
        return (size - 1 - row) * size + col

    rng = random.Random(9)
    finished = repeats = 0
    for _ in range(60):
        spiel = reference.new_initial_state()
        state = game.initial_state()
        boards = {(0, 0)}
        while not spiel.is_terminal():
            legal = sorted(ours(a) for a in spiel.legal_actions())
            assert game.legal_actions(state) == legal
            assert game.to_play(state) == spiel.current_player()
            action = rng.choice(spiel.legal_actions())
            spiel.apply_action(action)
            state = game.next_state(state, ours(action))
            if spiel.is_terminal() and not game.is_terminal(state):
                assert (state[0], state[1]) in boards and action != size * size
                repeats += 1
                break
            if action != size * size:
                boards.add((state[0], state[1]))
        else:
            assert game.is_terminal(state)
            assert list(game.returns(state)) == list(spiel.returns())
            finished += 1
    assert finished >= 50


# ---------------------------------------------------------------------------- superko
@pytest.mark.parametrize(("size", "games"), [(5, 40), (7, 12)])
def test_positional_superko_forbids_exactly_the_moves_that_repeat_a_board(
    size: int, games: int
) -> None:
    """By brute force: along random games under superko, a move is legal exactly when it is
    legal under simple ko and its board (by simple-ko rules) is no earlier board, compared
    as stones, not hashes; and no board ever repeats (random games that seldom pass)."""
    game, simple = Go(size, 7.5), Go(size, 7.5, superko=False)
    rng = random.Random(size)
    forbidden = 0
    for _ in range(games):
        state = game.initial_state()
        boards = {(0, 0)}
        while not game.is_terminal(state):
            legal = game.legal_actions(state)
            plain = (*state[:6], frozenset(), state[7])
            expected = []
            for action in simple.legal_actions(plain):
                after = simple.next_state(plain, action)
                if action == game.pass_action or (after[0], after[1]) not in boards:
                    expected.append(action)
            forbidden += len(simple.legal_actions(plain)) - len(expected)
            assert legal == expected
            # passes are rare: long games with many captures, where boards come back
            action = rng.choice(legal[:-1] if len(legal) > 1 and rng.random() < 0.97 else legal)
            state = game.next_state(state, action)
            if action != game.pass_action:
                assert (state[0], state[1]) not in boards
                boards.add((state[0], state[1]))
    assert forbidden > 0  # superko did forbid moves that simple ko allows


# ---------------------------------------------------------------------------- positions
def position(game: Go, black: str, white: str, to_play: int = 0) -> State:
    """The position with ``black`` and ``white`` stones (GTP vertices)."""
    points = [[parse_vertex(v, game.size) for v in words.split()] for words in (black, white)]
    stones = [game.stones([a for a in p if a is not None]) for p in points]
    return game.state_from_stones(stones[0], stones[1], to_play)


def legal(game: Go, state: State, where: str) -> bool:
    return parse_vertex(where, game.size) in game.legal_actions(state)


def test_captures_in_the_corner_and_on_the_edge() -> None:
    game = Go(5)
    state = play(game, "A5 B5 pass A4")  # white takes black's corner stone
    assert board(game, state) == ["B5", "A4"]
    state = play(game, "C4", position(game, "B5 D5", "C5"))  # and black the edge stone
    assert board(game, state) == ["B5", "D5", "C4"] and state[1] == 0


def test_suicide_is_illegal_but_the_same_point_is_legal_when_it_captures() -> None:
    game = Go(5)
    assert not legal(game, position(game, "A4 B5", "", to_play=1), "A5")  # one stone
    with pytest.raises(IllegalActionError, match="not legal"):
        game.apply(position(game, "A4 B5", "", to_play=1), [parse_vertex("A5", 5)])
    shape = ("A3 B4 C5", "A5 A4")  # white B5 would leave A5 A4 B5 without a liberty
    assert not legal(game, position(game, *shape, to_play=1), "B5")
    assert legal(game, position(game, *shape, to_play=0), "B5")  # black B5 captures them
    after = play(game, "B5", position(game, *shape, to_play=0))
    assert board(game, after) == ["B5", "C5", "B4", "A3"]


def test_ko_forbids_the_immediate_retake_and_a_pass_clears_it() -> None:
    game = Go(5, superko=False)
    state = position(game, "B4 A3 B2", "C4 B3 D3 C2")
    state = play(game, "C3", state)  # black takes B3 from a point surrounded by white
    assert "B3" not in board(game, state)
    assert state[3] == parse_vertex("B3", 5) and not legal(game, state, "B3")
    assert play(game, "pass", state)[3] == -1  # a pass clears it
    state = play(game, "pass E5", state)  # a threat elsewhere (here a pass) and an answer
    assert state[3] == -1 and legal(game, state, "B3")  # now white may take back
    assert "C3" not in board(game, play(game, "B3", state))


def test_snapback_takes_the_capturing_stones_back_and_is_no_ko() -> None:
    game = Go(5)
    state = position(game, "A3 B3 C3 D4 D5", "A4 B4 C4 C5")
    state = play(game, "A5", state)  # the throw-in: white's group has one liberty, B5
    state = play(game, "B5", state)  # white takes A5 ...
    assert "A5" not in board(game, state) and state[3] == -1
    state = play(game, "A5", state)  # ... and black takes the five white stones back
    assert state[1] == 0 and board(game, state) == ["A5", "D5", "D4", "A3", "B3", "C3"]
    assert state[3] == -1  # five stones taken: no ko


def test_area_scoring_gives_shared_points_to_nobody_as_go_base_counts() -> None:
    """Black column B and white column D: column A is black's, E white's, and column C,
    next to both, nobody's (as the liberties shared in a seki); go_base agrees."""
    game = Go(5, 0.5)
    state = position(game, "B1 B2 B3 B4 B5", "D1 D2 D3 D4 D5")
    assert game.area(state[0], state[1]) == (10, 10)
    state = play(game, "pass pass", state)
    assert game.score(state) == -0.5 and game.returns(state) == (-1.0, 1.0)
    go_v5.raw_env(board_size=5, komi=0.5)  # sets go_base's board size
    from pettingzoo.classic.go import go_base

    grid = game.grid(state)
    reference = go_base.Position(board=np.where(grid == 2, -1, grid).astype(np.int8), komi=0.5)
    assert reference.score() == -0.5
    eye = position(game, "A2 B2 C2 C1", "A3 B3 C3 D3 D2 D1")  # A1 B1: black's eye space
    assert game.area(eye[0], eye[1])[0] == 4 + 2


# ---------------------------------------------------------------------------- env and views
def test_pettingzoo_api_test_on_small_and_large_boards() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(env(size=5, superko=False), num_cycles=300)
        api_test(env(size=19), num_cycles=100)


def test_observation_planes_and_action_mask_like_go_v5s() -> None:
    ours = raw_env(size=5)
    reference = go_v5.raw_env(board_size=5, komi=7.5)
    ours.reset()
    reference.reset()
    for action in (6, 12, 18):
        ours.step(action)
        reference.step(action)
    for agent, reference_agent in zip(ours.possible_agents, reference.possible_agents, strict=True):
        mine, theirs = ours.observe(agent), reference.observe(reference_agent)
        assert mine["observation"].shape == theirs["observation"].shape == (5, 5, 17)
        assert np.array_equal(mine["action_mask"], theirs["action_mask"])
        assert np.array_equal(mine["observation"][..., 16], theirs["observation"][..., 16])
    planes = ours.observe("player_1")["observation"]  # white to move, three moves in
    assert planes[1, 1, 1] == 1 and planes[2, 2, 0] == 1 and planes[3, 3, 1] == 1
    assert planes[1, 1, 3] == 1 and planes[2, 2, 2] == 1 and planes[3, 3, 3] == 0  # one back
    assert planes[1, 1, 5] == 1 and planes[..., 4].sum() == 0  # two back: black's first
    assert planes[..., 6:16].sum() == 0  # before the start: empty


def test_parameters_are_checked() -> None:
    for bad, match in [({"size": 4}, "size"), ({"size": 20}, "size"), ({"komi": "x"}, "komi")]:
        with pytest.raises(InvalidParameterError, match=match):
            Go(**bad)
    with pytest.raises(InvalidParameterError, match="superko"):
        Go(9, 7.5, superko=1)  # type: ignore[arg-type]
    with pytest.raises(InvalidParameterError, match="komi"):
        Go(9, float("nan"))


def test_forged_states_are_refused() -> None:
    raw = raw_env(size=5)
    raw.reset()
    raw.step(0)
    state = raw.state
    forged: list[tuple[Any, str]] = [
        ((state[0] | 2, *state[1:]), "board_hash"),
        ((state[0], state[0], *state[2:]), "two stones"),
        ((*state[:5], state[5] ^ 1, *state[6:]), "board_hash"),
        ((*state[:3], 7, *state[4:]), "ko point"),
        ((*state[:6], frozenset(), state[7]), "seen"),
    ]
    snapshot = raw.save_state()
    from dataclasses import replace

    for bad, match in forged:
        with pytest.raises(InvalidStateError, match=match):
            raw.restore_state(replace(snapshot, state=bad))
        assert raw.is_reachable(raw.game.key(raw.state))


def _random_line(game: Go, rng: random.Random, plies: int) -> list[State]:
    """The positions of a seeded random game (passes rare), from the start."""
    states = [game.initial_state()]
    while len(states) <= plies and not game.is_terminal(states[-1]):
        legal = game.legal_actions(states[-1])
        action = rng.choice(legal[:-1]) if len(legal) > 1 and rng.random() < 0.95 else legal[-1]
        states.append(game.next_state(states[-1], action))
    return states


def _with_seen(state: State, seen: frozenset[int]) -> State:
    return (*state[:6], seen, state[7])


@pytest.mark.parametrize("size", [5, 6])
def test_a_superko_history_with_a_junk_hash_is_refused(size: int) -> None:
    """restore_state took a seen holding a junk hash. Now seen must hold the boards of recent
    and no more while recent is short; on 5x5 and 6x6 each hash must be some board's Zobrist
    hash (a random value is on 5x5 always, on 6x6 but for about 1 in 120); a key with such a
    seen, or whose hash is no board's of its seen, is never reachable."""
    rng = random.Random(size)
    raw = raw_env(size=size)
    raw.reset()
    game = raw.game
    line = _random_line(game, rng, 12)
    state = line[12]  # recent is full: seen may hold any earlier boards
    snapshot = raw.save_state()
    raw.restore_state(replace(snapshot, state=state, agent_selection=f"player_{state[2]}"))
    snapshot = raw.save_state()
    junk = 0x0123456789ABCDEF
    assert len(state[7]) == 7 and line[9][5] not in line[3][6]
    for bad, match in [
        (_with_seen(state, state[6] | {junk}), f"seen holds {junk:#x}, the Zobrist hash of no"),
        (_with_seen(state, state[6] - {line[9][5]}), "seen lacks"),
        (_with_seen(line[3], line[3][6] | {line[9][5]}), "seen holds .* hashes after 3 plies"),
        (_with_seen(line[3], line[3][6] - {line[1][5]}), "seen lacks"),
    ]:
        with pytest.raises(InvalidStateError, match=match):
            raw.restore_state(replace(snapshot, state=bad, agent_selection=f"player_{bad[2]}"))
        assert raw.save_state() == snapshot
    key = game.key(state)
    assert raw.is_reachable(key)
    assert not raw.is_reachable((key[0], key[1] | {junk}))
    assert not raw.is_reachable((key[0] ^ 1, key[1]))  # no board of seen has this hash
    refused = 0
    for _ in range(1_000):
        value = rng.getrandbits(64)
        refused += not raw.is_reachable((key[0], key[1] | {value}))
    assert refused >= (1_000 if size == 5 else 950)


@pytest.mark.parametrize(("size", "games"), [(5, 20), (6, 15), (9, 6)])
def test_every_position_of_seeded_random_games_is_restored(size: int, games: int) -> None:
    """Thousands of positions of play, and of play from a board set up by
    state_from_stones, restore and are reachable from the start of their own game."""
    rng = random.Random(size)
    raw = raw_env(size=size)
    raw.reset()
    game = raw.game
    snapshot = raw.save_state()
    positions = 0
    for index in range(games):
        start = game.initial_state()
        if index % 2:
            setup = _random_line(game, rng, 12)[-1]
            start = game.state_from_stones(setup[0], setup[1], setup[2])
        states = [start]
        while not game.is_terminal(states[-1]) and len(states) < 4 * game.points:
            legal = game.legal_actions(states[-1])
            action = rng.choice(legal[:-1]) if len(legal) > 1 and rng.random() < 0.97 else legal[-1]
            states.append(game.next_state(states[-1], action))
        for state in states:
            game.check_state(state)  # what restore_state asks, and for a live game:
            if not game.is_terminal(state):
                turn = f"player_{state[2]}"
                raw.restore_state(replace(snapshot, state=state, agent_selection=turn))
            positions += 1
        raw.restore_state(replace(snapshot, state=start, agent_selection=f"player_{start[2]}"))
        assert all(raw.is_reachable(game.key(state)) for state in states)
    assert positions > 20 * games


def test_vertices_round_trip_and_skip_i() -> None:
    for size in (5, 9, 19):
        for action in range(size * size + 1):
            assert parse_vertex(vertex(action, size), size) == action
    assert vertex(8, 9) == "J9" and parse_vertex("I5", 9) is None
    assert parse_vertex("A0", 9) is None and parse_vertex("A10", 9) is None
    assert parse_vertex("k3", 19) == parse_vertex("K3", 19)


@pytest.mark.parametrize("superko", [False, True])
def test_the_fast_playout_plays_legal_moves_to_the_end_and_scores_it(superko: bool) -> None:
    """The playout's moves, replayed through ``next_state`` from the same start, are legal at
    every ply and end the game with the playout's returns; each move is uniform over the legal
    ones (the pass among them): counts of first moves within 5 standard deviations."""
    game = Go(7, 0.5, superko)
    rng = random.Random(4)
    for start in range(20):
        state = game.initial_state()
        for _ in range(start * 3):  # starts later and later in a random game
            if game.is_terminal(state):
                break
            state = game.next_state(state, rng.choice(game.legal_actions(state)))
        record: list[int] = []
        returns = game.playout(state, rng.random, record)
        for action in record:
            assert action in game.legal_actions(state)
            state = game.next_state(state, action)
        assert game.is_terminal(state) and game.returns(state) == returns
    small = Go(5, 0.5, superko)
    state = position(small, "A3 B4 C5", "A5 A4", to_play=1)  # B5 is suicide for white
    legal = small.legal_actions(state)
    assert parse_vertex("B5", 5) not in legal
    draws = 100 * len(legal)
    counts = dict.fromkeys(legal, 0)
    for _ in range(draws):
        record = []
        small.playout(state, rng.random, record)
        counts[record[0]] += 1  # KeyError for a move that is not legal
    p = 1 / len(legal)
    assert all(abs(c - draws * p) < 5 * (draws * p * (1 - p)) ** 0.5 for c in counts.values())


def own_eye(game: Go, state: State, action: int) -> bool:
    """Whether ``action`` fills an eye of the mover: every neighbour on the board its stone,
    and opponent stones on at most one diagonal (none for a point on the edge)."""
    size, grid = game.size, game.grid(state)
    row, col = divmod(action, size)
    mine, theirs = 1 + game.to_play(state), 2 - game.to_play(state)
    near = [(row + dr, col + dc) for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1))]
    if any(grid[r, c] != mine for r, c in near if 0 <= r < size and 0 <= c < size):
        return False
    corners = [(row + dr, col + dc) for dr in (1, -1) for dc in (1, -1)]
    on_board = [(r, c) for r, c in corners if 0 <= r < size and 0 <= c < size]
    faults = sum(grid[r, c] == theirs for r, c in on_board) + (len(on_board) < 4)
    return faults <= 1


@pytest.mark.parametrize("superko", [False, True])
def test_the_decisive_playout_never_fills_its_own_eyes_and_passes_only_when_it_must(
    superko: bool,
) -> None:
    """Replayed through ``next_state``: legal moves, never into the mover's own eye, a pass
    only when every other legal move is such an eye; two passes end it (or the ply cap, the
    board scored as it stands); the returns are the core's."""
    game = Go(7, 0.5, superko)
    rng = random.Random(6)
    eyes_kept = 0
    for _ in range(12):
        state = game.initial_state()
        record: list[int] = []
        returns = game.playout(state, rng.random, record, eyes=True)
        for action in record:
            legal = game.legal_actions(state)
            assert action in legal
            if action == game.pass_action:
                assert all(own_eye(game, state, a) for a in legal[:-1])
                eyes_kept += len(legal) > 1
            else:
                assert not own_eye(game, state, action)
            state = game.next_state(state, action)
        if not game.is_terminal(state):
            assert len(record) == 3 * game.points  # the cap
            state = (*state[:4], 2, *state[5:])
        assert game.returns(state) == returns
    assert eyes_kept > 0  # passes with eyes left unfilled


def test_a_seki_neither_side_can_approach_and_its_shared_liberties_are_nobodys() -> None:
    """7x7: black's block A7 B7 A6 B6 and white's block D7 E7 D6 E6 share their only two
    liberties, C7 and C6 (a seki): whoever plays one is taken at the other. Black's outer
    wall owns D1-G4 and G5-G7, white's owns A1-A4; C7 C6 count for no one (go_base agrees)."""
    game = Go(7, 7.5)
    black = "A7 B7 A6 B6 C5 D5 E5 F5 F6 F7 C4 C3 C2 C1"
    white = "D7 E7 D6 E6 A5 B5 B4 B3 B2 B1"
    for mover, (first, answer), (taken, kept) in (
        (0, ("C7", "C6"), ("A7", "D7")),
        (1, ("C6", "C7"), ("D7", "A7")),
    ):
        state = play(game, f"{first} {answer}", position(game, black, white, to_play=mover))
        assert taken not in board(game, state) and kept in board(game, state)
    state = position(game, black, white)
    assert game.area(state[0], state[1]) == (14 + 19, 10 + 4)
    ended = play(game, "pass pass", state)
    assert game.score(ended) == 33 - 14 - 7.5 and game.returns(ended) == (1.0, -1.0)
    go_v5.raw_env(board_size=7, komi=7.5)  # sets go_base's board size
    from pettingzoo.classic.go import go_base

    grid = game.grid(state)
    reference = go_base.Position(board=np.where(grid == 2, -1, grid).astype(np.int8), komi=7.5)
    assert reference.score() == 33 - 14 - 7.5


@pytest.mark.parametrize(
    "text", ["D\u00b2", "D\u0663", "D\uff14", "D+4", "D 4", "D4.0", "D-4", "D" + "9" * 5000]
)
def test_a_vertex_whose_row_is_not_ascii_digits_is_no_point(text: str) -> None:
    assert parse_vertex(text, 9) is None
    assert parse_vertex("d4", 9) == parse_vertex("D004", 9) == (9 - 4) * 9 + 3
