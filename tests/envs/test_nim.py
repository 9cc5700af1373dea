"""Nim: known game values by exhaustive minimax, differential play against OpenSpiel, errors."""

from __future__ import annotations

import itertools
import random
from functools import reduce
from operator import xor
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mcts_agents.envs import InvalidParameterError
from mcts_agents.envs.games.nim import Nim
from mcts_agents.envs.nim_v0 import NimEnv
from tests.envs.conftest import assert_state_refused


def mover_wins(game: Nim) -> Any:
    """Exhaustive minimax over the core: ``solve(piles)`` is True iff the player to move wins.

    Nim is impartial, so the value depends on the piles only (not on who moves).
    """
    memo: dict[tuple[int, ...], bool] = {}

    def solve(piles: tuple[int, ...]) -> bool:
        if piles not in memo:
            state = (piles, 0)
            if game.is_terminal(state):
                memo[piles] = game.returns(state)[0] > 0
            else:
                memo[piles] = any(
                    not solve(game.next_state(state, a)[0]) for a in game.legal_actions(state)
                )
        return memo[piles]

    return solve


# ---------------------------------------------------------------------- known game values
def test_subtraction_game_mover_loses_exactly_on_multiples_of_four() -> None:
    for n in range(1, 21):
        solve = mover_wins(Nim(piles=(n,), max_take=3))
        assert solve((n,)) == (n % 4 != 0), n


def test_misere_subtraction_game_mover_loses_exactly_on_one_mod_four() -> None:
    for n in range(1, 21):
        solve = mover_wins(Nim(piles=(n,), max_take=3, misere=True))
        assert solve((n,)) == (n % 4 != 1), n


def test_nim_mover_loses_exactly_when_the_xor_is_zero() -> None:
    # Bouton: with unlimited takes, the nim-sum decides (every sub-position of 5;5;6 is checked)
    solve = mover_wins(Nim(piles=(5, 5, 6), max_take=None))
    for piles in itertools.product(range(6), range(6), range(7)):
        assert solve(piles) == (reduce(xor, piles) != 0), piles


def test_misere_nim_rule() -> None:
    # misère Nim: play as in normal Nim unless every pile is 0 or 1; then the mover loses iff
    # an odd number of piles is non-empty (he must take the last chip)
    solve = mover_wins(Nim(piles=(4, 4, 5), max_take=None, misere=True))
    for piles in itertools.product(range(5), range(5), range(6)):
        expected_loss = reduce(xor, piles) == 0 if max(piles) > 1 else sum(piles) % 2 == 1
        assert solve(piles) == (not expected_loss), piles


def test_capped_multi_pile_nim_uses_piles_mod_cap_plus_one() -> None:
    # with takes of 1..k each pile's Grundy value is n mod (k + 1) (Sprague-Grundy)
    solve = mover_wins(Nim(piles=(7, 6), max_take=2))
    for piles in itertools.product(range(8), range(7)):
        assert solve(piles) == (reduce(xor, (p % 3 for p in piles)) != 0), piles


# ---------------------------------------------------------------------- scripted games
def test_default_game_take_three_then_one() -> None:
    game = Nim()
    assert game.params() == {"piles": (15,), "max_take": 3, "misere": False}
    assert game.num_actions == 3 and game.legal_actions(game.initial_state()) == [0, 1, 2]
    # player 0 takes 3 (to 12, a multiple of 4) and keeps it there: 4 - take each round
    state = game.initial_state()
    state = game.apply(state, [2])
    for take in (1, 3, 2):
        state = game.apply(state, [take - 1, 4 - take - 1])
    assert state == ((0,), 1) and game.is_terminal(state)
    assert game.returns(state) == (1.0, -1.0) and "player 0 wins" in game.render_text(state)


def test_last_chip_wins_in_normal_play_and_loses_in_misere() -> None:
    moves = [0 * 5 + 2, 1 * 5 + 3, 2 * 5 + 4]  # take all 3 of pile 0, 4 of pile 1, 5 of pile 2
    normal = Nim(piles=(3, 4, 5), max_take=None)
    assert normal.num_actions == 15
    end = normal.apply(normal.initial_state(), moves)
    assert end == ((0, 0, 0), 1) and normal.returns(end) == (1.0, -1.0)  # player 0 took last
    misere = Nim(piles=(3, 4, 5), max_take=None, misere=True)
    end = misere.apply(misere.initial_state(), moves)
    assert misere.returns(end) == (-1.0, 1.0)


def test_action_encoding_and_caps() -> None:
    game = Nim(piles=(2, 5), max_take=3)
    assert game.take_limit == 3 and game.num_actions == 6
    start = game.initial_state()
    assert game.legal_actions(start) == [0, 1, 3, 4, 5]  # pile 0 has only 2 chips
    assert game.action_to_string(start, 4) == "take 2 from pile 1"
    assert game.next_state(start, 4) == ((2, 3), 1)
    assert Nim(piles=(2, 3), max_take=10).take_limit == 3  # never more than the largest pile
    assert Nim(piles=(2, 3), max_take=None).num_actions == 6


# ---------------------------------------------------------------------- differential
def spiel_moves(state: Any) -> dict[tuple[int, int], int]:
    """OpenSpiel's legal moves as {(pile, take): action}, read from "pile:P, take:T;" (1-based)."""
    moves = {}
    for action in state.legal_actions():
        text = state.action_to_string(action).rstrip(";")
        pile, take = (int(part.split(":")[1]) for part in text.split(","))
        moves[(pile - 1, take)] = action
    return moves


@pytest.mark.parametrize(
    ("piles", "misere"),
    [
        ((3, 4, 5), False),
        ((3, 4, 5), True),
        ((1, 3, 5, 7), True),
        ((6,), False),
        ((2, 2, 9), False),
    ],
)
def test_random_games_match_openspiel(piles: tuple[int, ...], misere: bool) -> None:
    pyspiel = pytest.importorskip("pyspiel")
    spiel_game = pyspiel.load_game(
        "nim", {"pile_sizes": ";".join(map(str, piles)), "is_misere": misere}
    )
    game = Nim(piles=piles, max_take=None, misere=misere)
    limit = game.take_limit
    winners = set()
    for seed in range(200):
        rng = random.Random(seed)
        state = game.initial_state()
        theirs = spiel_game.new_initial_state()
        while True:
            assert game.is_terminal(state) == theirs.is_terminal()
            assert game.returns(state) == tuple(theirs.returns())
            if game.is_terminal(state):
                break
            assert game.to_play(state) == theirs.current_player()
            ours = {divmod(a, limit): a for a in game.legal_actions(state)}
            table = spiel_moves(theirs)
            assert {(p, t + 1) for p, t in ours} == set(table)
            pile, take = rng.choice(sorted(table))
            state = game.next_state(state, ours[(pile, take - 1)])
            theirs.apply_action(table[(pile, take)])
        winners.add(game.returns(state))
    assert len(winners) == 2  # both players won some games


def test_rollout_plays_to_a_legal_end() -> None:
    game = Nim(piles=(3, 4, 5), max_take=2)
    rng = random.Random(0)
    results = [game.rollout(game.initial_state(), rng) for _ in range(200)]
    assert set(results) == {(1.0, -1.0), (-1.0, 1.0)}
    end = ((0, 0, 0), 1)
    assert game.rollout(end, rng) == game.returns(end) == (1.0, -1.0)


# ---------------------------------------------------------------------- keys and reachability
def test_same_piles_with_a_different_mover_are_different_positions() -> None:
    game = Nim()
    one_move = game.apply(game.initial_state(), [2])  # take 3
    two_moves = game.apply(game.initial_state(), [0, 1])  # take 1, take 2
    assert one_move[0] == two_moves[0] == (12,)
    assert game.key(one_move) != game.key(two_moves)
    three = Nim(piles=(3, 4, 5), max_take=None)
    a = three.apply(three.initial_state(), [0 * 5 + 0, 1 * 5 + 0])
    b = three.apply(three.initial_state(), [1 * 5 + 0, 0 * 5 + 0])
    assert a == b and three.key(a) == three.key(b)  # transposed move orders


@settings(max_examples=200, deadline=None)
@given(
    piles=st.lists(st.integers(1, 6), min_size=1, max_size=3),
    max_take=st.sampled_from([None, 1, 2, 3]),
    data=st.data(),
)
def test_is_reachable_is_exact(piles: list[int], max_take: int | None, data: st.DataObject) -> None:
    game = Nim(piles=piles, max_take=max_take)
    # every state reachable from the start, found by search
    reachable = {game.initial_state()}
    frontier = [game.initial_state()]
    while frontier:
        state = frontier.pop()
        for action in game.legal_actions(state):
            child = game.next_state(state, action)
            if child not in reachable:
                reachable.add(child)
                frontier.append(child)
    origin = data.draw(st.sampled_from(sorted(reachable)))
    later = {origin}
    frontier = [origin]
    while frontier:
        state = frontier.pop()
        for action in game.legal_actions(state):
            child = game.next_state(state, action)
            if child not in later:
                later.add(child)
                frontier.append(child)
    for candidate in reachable:
        assert game.is_reachable(origin, game.key(candidate)) == (candidate in later)


def test_is_reachable_rejects_junk() -> None:
    game = Nim(piles=(3, 4))
    start = game.initial_state()
    for junk in (None, (3, 4), ((3, 4),), ((3,), 0), ((3, 5), 1), ((3, 4), 2), "x"):
        assert not game.is_reachable(start, junk)


# ---------------------------------------------------------------------- views and env
def test_observation_grid_and_text() -> None:
    game = Nim(piles=(2, 4), max_take=None)
    state = game.apply(game.initial_state(), [1 * 4 + 2])  # take 3 from pile 1
    obs = game.observation(state, 0)
    assert obs.shape == (2, 4, 1) and obs.dtype == np.int8
    np.testing.assert_array_equal(obs[..., 0], [[1, 1, 0, 0], [1, 0, 0, 0]])
    np.testing.assert_array_equal(game.observation(state, 1), obs)
    np.testing.assert_array_equal(game.grid(state), obs[..., 0])
    assert game.render_text(state) == "pile 0: oo.. (2)\npile 1: o... (1)\nplayer 1 to play"


def test_env_parameters_and_metadata() -> None:
    env = NimEnv(piles=[1, 3, 5, 7], max_take=None, misere=True)
    env.reset()
    assert env.metadata["name"] == "nim_v0"
    assert env.action_space("player_0").n == 28
    assert env.observation_space("player_1")["observation"].shape == (4, 7, 1)
    assert env.game == Nim(piles=(1, 3, 5, 7), max_take=None, misere=True)
    assert env.game != Nim(piles=(1, 3, 5, 7), max_take=None)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"piles": ()}, "1 to 64 piles"),
        ({"piles": []}, "1 to 64 piles"),
        ({"piles": 5}, "sequence"),
        ({"piles": "35"}, "sequence"),
        ({"piles": (3, 0)}, r"piles\[1\] must be in \[1, 1000000\].*got 0"),
        ({"piles": (3, -2)}, r"in \[1, 1000000\]"),
        ({"piles": (3, 2.0)}, "must be an int"),
        ({"piles": (True,)}, "must be an int"),
        ({"max_take": 0}, r"max_take must be in \[1, 1000000\] or None"),
        ({"max_take": -1}, "max_take"),
        ({"max_take": 1.5}, "max_take"),
        ({"max_take": True}, "max_take"),
        ({"misere": 1}, "misere must be a bool"),
        ({"misere": "yes"}, "misere"),
    ],
)
def test_bad_parameters_raise_clear_errors(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(InvalidParameterError, match=message):
        Nim(**kwargs)
    with pytest.raises(InvalidParameterError, match=message):
        NimEnv(**kwargs)


def test_forged_nim_states_are_refused_naming_the_problem() -> None:
    raw = NimEnv()  # one pile of 15, takes of 1 to 3
    raw.reset()
    forged = [
        (((-1,), 1), r"piles\[0\] must be in \[0, 15\]"),
        (((16,), 0), r"piles\[0\] must be in \[0, 15\]"),
        (((14,), 0), "cannot be reached with player 0 to move"),
        (((15,), 1), "cannot be reached with player 1 to move"),
        (((12,), 2), "to_play"),
        (([12], 1), "piles must be a tuple"),
        (((12,), 1, 0), "tuple of 2 fields"),
    ]
    for state, match in forged:
        assert_state_refused(raw, state, match)
