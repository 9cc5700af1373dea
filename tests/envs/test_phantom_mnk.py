"""Phantom m,n,k (envs/phantom_mnk_v0.py over envs/games/phantom_mnk.py): OpenSpiel's phantom_ttt
move for move and information set for information set, determinization against OpenSpiel's
information sets, hidden stones, the env and errors."""

from __future__ import annotations

import dataclasses
import random
import warnings
from collections import Counter, deque
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pettingzoo.test import api_test, seed_test

from mcts_agents.envs import InvalidParameterError
from mcts_agents.envs.games import phantom_mnk
from mcts_agents.envs.games.mnk import MNK
from mcts_agents.envs.games.phantom_mnk import PhantomMNK
from mcts_agents.envs.phantom_mnk_v0 import PhantomMNKEnv, env
from tests.envs.conftest import assert_state_refused

pyspiel = pytest.importorskip("pyspiel")

TTT = PhantomMNK()
BOARDS = {"3x3x3": TTT, "4x4x4": PhantomMNK(4, 4, 4), "3x5x3": PhantomMNK(3, 5, 3)}


def random_game(game: PhantomMNK, rng: random.Random) -> list[Any]:
    """The states of one game of uniformly random tries, start to end."""
    states = [game.initial_state()]
    while not game.is_terminal(states[-1]):
        states.append(game.next_state(states[-1], rng.choice(game.legal_actions(states[-1]))))
    return states


def replay(game: PhantomMNK, state: Any) -> None:
    """Replay both players' tries from the start, each when its player is to move: every try
    legal, no game over before the last, and the same state at the end (so ``state`` is
    reachable, with the outcomes its histories record)."""
    tries = [deque(cell for cell, _ in game.attempts(state, p)) for p in (0, 1)]
    now = game.initial_state()
    while tries[0] or tries[1]:
        assert not game.is_terminal(now)
        cell = tries[game.to_play(now)].popleft()  # IndexError: the mover has no try left
        assert game.is_legal(now, cell)
        now = game.next_state(now, cell)
    assert now == state


def board_text(game: PhantomMNK, state: Any) -> str:
    """The true board as OpenSpiel's phantom_ttt prints it (``str(state)``)."""
    return "\n".join("".join(".xo"[v] for v in row) for row in game.grid(state))


# ---------------------------------------------------------------------- OpenSpiel
def test_matches_openspiel_phantom_ttt_move_for_move() -> None:
    """Random games side by side: the same terminal flag, player, legal actions, observation
    (OpenSpiel's tensor: 3 cell states x 9 cells) and returns at every step; and over every
    history of the sample, information-set keys equal exactly when OpenSpiel's
    ``information_state_string`` of that player is equal."""
    reference = pyspiel.load_game("phantom_ttt")
    assert reference.get_parameters() == {"gameversion": "classical", "obstype": "reveal-nothing"}
    assert reference.num_distinct_actions() == TTT.num_actions
    rng = random.Random(2024)
    key_to_string: list[dict[Any, str]] = [{}, {}]
    string_to_key: list[dict[str, Any]] = [{}, {}]
    histories: list[dict[str, set[tuple[int, ...]]]] = [{}, {}]
    outcomes: Counter[tuple[float, ...]] = Counter()
    retries = 0
    for _ in range(2500):
        state, spiel, actions = TTT.initial_state(), reference.new_initial_state(), []
        while True:
            assert TTT.is_terminal(state) == spiel.is_terminal()
            for p in (0, 1):
                key, text = TTT.information_set(state, p), spiel.information_state_string(p)
                assert key_to_string[p].setdefault(key, text) == text
                assert string_to_key[p].setdefault(text, key) == key
                histories[p].setdefault(text, set()).add(tuple(actions))
                cells = np.array(spiel.observation_tensor(p)).reshape(3, 3, 3)  # empty, o, x
                own, enemy = (cells[2], cells[1]) if p == 0 else (cells[1], cells[2])
                planes = TTT.observation(state, p)
                assert (planes[..., 0] == own).all() and (planes[..., 1] == enemy).all()
            if spiel.is_terminal():
                break
            assert TTT.to_play(state) == spiel.current_player()
            assert TTT.legal_actions(state) == spiel.legal_actions()
            mover = TTT.to_play(state)
            action = rng.choice(TTT.legal_actions(state))
            state = TTT.next_state(state, action)
            spiel.apply_action(action)
            actions.append(action)
            retries += TTT.to_play(state) == mover and not TTT.is_terminal(state)
        assert TTT.returns(state) == tuple(spiel.returns())
        outcomes[TTT.returns(state)] += 1
    assert set(outcomes) == {(1.0, -1.0), (-1.0, 1.0), (0.0, 0.0)}
    assert retries > 1000  # many tries hit an unseen stone
    for p in (0, 1):  # the partition is far from trivial: many histories share a set
        assert sum(len(h) > 1 for h in histories[p].values()) > 1000


def spiel_boards(actions: list[int], player: int) -> set[str]:
    """OpenSpiel's true boards over its whole information set of ``player`` (to move) after
    ``actions``: every history of ``phantom_ttt`` with ``player``'s information state strings,
    try after try, those of the game played."""
    reference = pyspiel.load_game("phantom_ttt")
    played = reference.new_initial_state()
    strings = [played.information_state_string(player)]
    for action in actions:
        mover = played.current_player()
        played.apply_action(action)
        if mover == player:
            strings.append(played.information_state_string(player))
    boards: set[str] = set()

    def walk(spiel: Any, tries: int) -> None:
        if spiel.is_terminal():
            return
        if spiel.current_player() != player:
            for action in spiel.legal_actions():
                walk(spiel.child(action), tries)
        elif tries == len(strings) - 1:
            boards.add(str(spiel))
        else:
            for action in spiel.legal_actions():
                child = spiel.child(action)
                if child.information_state_string(player) == strings[tries + 1]:
                    walk(child, tries + 1)

    walk(reference.new_initial_state(), 0)
    return boards


def test_determinize_samples_openspiel_information_sets_uniformly() -> None:
    """For positions of random games, the boards ``determinize`` draws for the player to move
    are exactly the true boards of OpenSpiel's information set (enumerated there), each about
    equally often."""
    rng, checked = random.Random(5), 0
    while checked < 8:
        state, line, cut = TTT.initial_state(), [], rng.randrange(2, 9)
        while len(line) < cut and not TTT.is_terminal(state):
            line.append(rng.choice(TTT.legal_actions(state)))
            state = TTT.next_state(state, line[-1])
        if TTT.is_terminal(state):
            continue
        player = TTT.to_play(state)
        expected = spiel_boards(line, player)
        draws = 150 * len(expected)
        counts = Counter(board_text(TTT, TTT.determinize(state, player, rng)) for _ in range(draws))
        assert set(counts) == expected
        mean = draws / len(expected)
        assert all(abs(c - mean) < 5 * mean**0.5 for c in counts.values()), counts
        checked += len(expected) > 1


# ---------------------------------------------------------------------- determinize
@pytest.mark.parametrize("draws", [phantom_mnk._DRAWS, 0], ids=["sampled", "searched"])
@pytest.mark.parametrize("name", sorted(BOARDS))
def test_determinize_is_reachable_and_keeps_the_information_set(
    name: str, draws: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every sample, for either player at every position of random games (``searched``: the
    systematic fallback alone): same information set and observation for that player, a
    reachable state, the player to move still to move, and no try failed by the opponent."""
    monkeypatch.setattr(phantom_mnk, "_DRAWS", draws)
    game, rng = BOARDS[name], random.Random(len(name) + draws)
    kinds: Counter[str] = Counter()
    for _ in range(150):
        for state in random_game(game, rng):
            for player in (0, 1):
                sample = game.determinize(state, player, rng)
                assert game.information_set(sample, player) == game.information_set(state, player)
                assert (game.observation(sample, player) == game.observation(state, player)).all()
                replay(game, sample)
                assert not any(found for _, found in game.attempts(sample, 1 - player))
                if game.is_terminal(state) or game.to_play(state) != player:
                    kinds["terminal" if game.is_terminal(sample) else "other"] += 1
                else:
                    assert not game.is_terminal(sample) and game.to_play(sample) == player
                    kinds["to move"] += 1
    assert kinds["terminal"] >= 150 and kinds["other"] > 0  # after a winning or final stone


def test_determinize_reads_only_the_information_set() -> None:
    """Two different states in one information set, one seed: the same sample."""
    game, rng = BOARDS["4x4x4"], random.Random(8)
    groups: dict[Any, set[Any]] = {}
    for _ in range(400):
        for state in random_game(game, rng):
            for player in (0, 1):
                groups.setdefault(game.information_set(state, player), set()).add(state)
    pairs = 0
    for (player, _), states in groups.items():
        if len(states) > 1:
            first, second = list(states)[:2]
            one = game.determinize(first, player, random.Random(pairs))
            assert game.determinize(second, player, random.Random(pairs)) == one
            pairs += 1
    assert pairs > 500


def test_determinize_after_a_winning_stone_is_that_finished_game() -> None:
    # X 0, O 3, X 1, O 4, X 2: X's row 0. O's view of the end is the same as before X's last stone
    state = TTT.apply(TTT.initial_state(), [0, 3, 1, 4, 2])
    assert TTT.returns(state) == (1.0, -1.0)
    sample = TTT.determinize(state, 0, random.Random(0))
    assert TTT.is_terminal(sample) and TTT.returns(sample) == (1.0, -1.0)
    assert bin(sample[0][1]).count("1") == 2
    assert not TTT.is_terminal(TTT.determinize(state, 1, random.Random(0)))  # O cannot know


# ---------------------------------------------------------------------- rules by hand
def test_a_try_on_an_unseen_stone_reveals_it_and_the_mover_tries_again() -> None:
    game = TTT
    state = game.apply(game.initial_state(), [4])  # X in the centre
    assert game.to_play(state) == 1 and game.legal_actions(state) == list(range(9))
    state = game.next_state(state, 4)  # O runs into it
    assert game.to_play(state) == 1 and 4 not in game.legal_actions(state)
    assert game.observation(state, 1)[1, 1].tolist() == [0, 1]
    assert game.observation(state, 0)[1, 1].tolist() == [1, 0]
    assert game.attempts(state, 1) == [(4, True)] and game.attempts(state, 0) == [(4, False)]
    assert game.information_set(state, 1) == (1, 2 * 4 + 2)
    state = game.next_state(state, 0)
    assert game.to_play(state) == 0 and 0 in game.legal_actions(state)  # X has not seen O's stone
    assert game.attempts(state, 1) == [(4, True), (0, False)]
    assert game.information_set(state, 1) == (1, (2 * 4 + 2) << game.code_bits | (2 * 0 + 1))
    assert game.render_text(state).split("\n") == [
        "  012   X sees  O sees",
        "0 O..   ...     O..",
        "1 .X.   .X.     .X.",
        "2 ...   ...     ...",
        "X (player 0) to play",
    ]
    assert game.action_to_string(state, 5) == "row 1, col 2"


def test_unseen_enemy_stones_do_not_change_a_players_view() -> None:
    """X's observation and information set are the same whichever unseen cell O took."""
    views = set()
    for o_cell in (1, 2, 6, 8):
        state = TTT.apply(TTT.initial_state(), [4, o_cell, 0])
        views.add((TTT.observation(state, 0).tobytes(), TTT.information_set(state, 0)))
        assert TTT.observation(state, 1)[divmod(o_cell, 3)].tolist() == [1, 0]
    assert len(views) == 1


def test_without_collisions_it_is_the_mnk_game() -> None:
    """Tries that never hit a stone play the m,n,k-game itself (4,4,4: wins and draws)."""
    rng, plain = random.Random(4), MNK(4, 4, 4)
    game, results = BOARDS["4x4x4"], Counter()
    for _ in range(300):
        state, board = game.initial_state(), plain.initial_state()
        while not plain.is_terminal(board):
            cell = rng.choice(plain.legal_actions(board))
            state, board = game.next_state(state, cell), plain.next_state(board, cell)
            assert state[0] == board
            # the mover may try every cell but its own (it has seen no enemy stone)
            mover = plain.to_play(board)
            own = [c for c in range(16) if board[mover] >> c & 1]
            expected = [] if plain.is_terminal(board) else sorted(set(range(16)) - set(own))
            assert game.legal_actions(state) == expected
        assert game.returns(state) == plain.returns(board)
        results[game.returns(state)] += 1
    assert len(results) == 3


@settings(max_examples=30, deadline=None)
@given(name=st.sampled_from(sorted(BOARDS)), seed=st.integers(0, 2**32 - 1))
def test_is_reachable_for_every_later_state_and_never_back(name: str, seed: int) -> None:
    game = BOARDS[name]
    states = random_game(game, random.Random(seed))
    for i, earlier in enumerate(states):
        for later in states[i:]:
            assert game.is_reachable(earlier, game.key(later))
        if i:
            assert not game.is_reachable(earlier, game.key(states[i - 1]))
    other = random_game(game, random.Random(seed + 1))
    if other[2] != states[2]:
        assert not game.is_reachable(states[2], game.key(other[2]))


# ---------------------------------------------------------------------- the env
@pytest.mark.parametrize("preset", ["phantom_ttt", "phantom_444"])
def test_pettingzoo_api_and_seed(preset: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(env(preset=preset), num_cycles=200)
    seed_test(lambda: env(preset=preset), num_cycles=50)


def test_env_plays_the_core_and_pays_its_returns() -> None:
    raw, rng = PhantomMNKEnv(preset="phantom_444"), random.Random(6)
    results = Counter()
    for _ in range(100):
        raw.reset()
        state = raw.state
        while not raw.game.is_terminal(state):
            agent = raw.agent_selection
            assert agent == f"player_{raw.game.to_play(state)}"
            obs = raw.observe(agent)
            assert list(np.flatnonzero(obs["action_mask"])) == raw.game.legal_actions(state)
            assert raw.information_set(agent) == raw.game.information_set(state, int(agent[-1]))
            action = rng.choice(raw.legal_actions())
            raw.step(action)
            state = raw.game.next_state(state, action)
            assert raw.state == state
        returns = raw.game.returns(state)
        assert tuple(raw.rewards[a] for a in raw.possible_agents) == returns
        results[returns] += 1
    assert len(results) == 3


def test_env_save_restore_and_views() -> None:
    raw = PhantomMNKEnv(render_mode="ansi")
    raw.reset()
    for action in [4, 4]:  # O runs into X's stone and stays selected
        raw.step(action)
    assert raw.agent_selection == "player_1"
    snapshot = raw.save_state()
    before = [raw.observe(a)["observation"].tobytes() for a in raw.possible_agents]
    for action in [0, 8, 2, 1]:
        raw.step(action)
    raw.restore_state(snapshot)
    assert [raw.observe(a)["observation"].tobytes() for a in raw.possible_agents] == before
    assert raw.agent_selection == "player_1" and raw.legal_actions() == [0, 1, 2, 3, 5, 6, 7, 8]
    assert raw.render().splitlines()[2] == "1 .X.   .X.     .X."
    image = PhantomMNKEnv(render_mode="rgb_array")
    image.reset()
    image.step(4)
    assert len(np.unique(image.render().reshape(-1, 3), axis=0)) == 3  # board, lines, X


# ---------------------------------------------------------------------- parameters and errors
def test_presets_and_metadata() -> None:
    assert PhantomMNKEnv().game == PhantomMNK(3, 3, 3) == PhantomMNKEnv(preset="phantom_ttt").game
    big = PhantomMNKEnv(preset="phantom_444")
    assert big.game == PhantomMNK(4, 4, 4) and big.metadata["name"] == "phantom_mnk_v0"
    assert big.observation_space("player_0")["observation"].shape == (4, 4, 2)
    assert PhantomMNKEnv(m=3, n=5).game == PhantomMNK(3, 5, 3)
    game = big.game
    assert not game.perfect_information and not game.has_chance and game.acyclic


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"preset": "kriegspiel"}, "unknown preset 'kriegspiel'; expected None or one of"),
        (
            {"preset": "phantom_444", "k": 3},
            "sets \\(m, n, k\\) = \\(4, 4, 4\\); got conflicting k=3",
        ),
        ({"m": 0}, r"m \(rows\) must be in \[1, 64\], got 0"),
        ({"n": 2.5}, "n \\(columns\\) must be an int, got 2.5"),
        ({"k": 4}, "k must be in \\[1, 3\\], got 4"),
    ],
)
def test_bad_parameters_are_refused_naming_them(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(InvalidParameterError, match=message):
        env(**kwargs)
    core = {key: value for key, value in kwargs.items() if key != "preset"}
    if "preset" not in kwargs:
        with pytest.raises(InvalidParameterError, match=message):
            PhantomMNK(**core)


def test_forged_phantom_states_are_refused_naming_the_problem() -> None:
    raw = PhantomMNKEnv()  # phantom tic-tac-toe
    raw.reset()
    raw.step(0)  # X places on cell 0
    board, known_0, known_1, history_0, history_1 = raw.state
    forged = [
        ((board, known_0, 1 << 4, history_0, history_1), "known_1 holds cells without"),
        ((board, known_0, known_1, 0, history_1), "does not give player 0's stones"),
        ((board, known_0, known_1, 31, history_1), "try code 31"),
        ((board, known_0, known_1, history_0 << 5 | history_0, history_1), "tries cell 0 twice"),
        (((1, 1, 2, 0), 0, 0, history_0, history_1), "two stones on one cell"),
        ((board, known_0, known_1, history_0), "tuple of 5 fields"),
    ]
    for state, match in forged:
        assert_state_refused(raw, state, match)


def test_a_phantom_find_before_the_enemy_stone_was_placed_is_refused() -> None:
    """X's first try finds O's stone on cell 4, which O can only have placed after X's turn."""
    raw = PhantomMNKEnv()
    raw.reset()
    find_4, place_0, place_4 = 2 * 4 + 2, 2 * 0 + 1, 2 * 4 + 1  # try codes
    history_0 = find_4 << raw.game.code_bits | place_0
    state = ((1 << 0, 1 << 4, 2, 0), 1 << 4, 0, history_0, place_4)
    assert_state_refused(raw, state, "found cell 4 before it was played")
    fine = ((1 << 0, 1 << 4, 2, 0), 0, 0, place_0, place_4)  # the same stones, no find
    raw.restore_state(dataclasses.replace(raw.save_state(), state=fine))
    assert raw.state == fine
