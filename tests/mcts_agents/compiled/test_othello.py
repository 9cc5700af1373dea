"""Compiled Othello playouts (mcts_agents/compiled/othello.py) against the rules core."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest

from mcts_agents import Budget, SearchConfig, make_searcher
from mcts_agents.envs.games.othello import TERMINAL, Othello, _kernels

pytest.importorskip("numba")

from mcts_agents.compiled.rules import othello as compiled
from mcts_agents.compiled.rules.othello import othello_playout
from tests.mcts_agents.compiled.playouts import assert_same_outcomes


def random_states(game: Othello, count: int, seed: int) -> list[Any]:
    """Non-terminal states of seeded random games (passes included)."""
    rng = random.Random(seed)
    states = []
    while len(states) < count:
        state = game.initial_state()
        for _ in range(rng.randrange(game.size * game.size - 4)):
            state = game.next_state(state, rng.choice(game.legal_actions(state)))
            if game.is_terminal(state):
                break
        if not game.is_terminal(state):
            states.append(state)
    return states


@pytest.mark.parametrize("size", [4, 6, 8])
def test_compiled_move_and_flip_generators_are_the_cores(size: int) -> None:
    """The rules core's generators compiled for uint64 words agree with the Python ones on
    every legal move of 200 positions."""
    game = Othello(size)
    moves, flips = _kernels(size)
    p = compiled.params(game)
    for own, other, _, _ in random_states(game, 200, seed=size):
        legal = moves(own, other)
        assert int(compiled._gen_moves(p, np.uint64(own), np.uint64(other))) == legal
        bits = [1 << b for b in range(size * size) if legal >> b & 1]
        for move in bits:
            expected = flips(own, other, move)
            got = compiled._gen_flips(p, np.uint64(own), np.uint64(other), np.uint64(move))
            assert int(got) == expected


@pytest.mark.parametrize("size", [4, 6, 8])
def test_outcomes_match_the_cores_playout(size: int) -> None:
    game = Othello(size)
    states = [game.initial_state(), *random_states(game, 2, seed=10 + size)]
    for i, state in enumerate(states):
        assert_same_outcomes(game, othello_playout(game), state, 6_000, seed=i)


@pytest.mark.parametrize("size", [6, 8])
def test_decisive_outcomes_match_the_cores_decisive_rollout(size: int) -> None:
    """The heavier playout (corners first, X-squares of empty corners last), compiled for the
    kernel and the Python search, plays as the core's ``decisive_rollout``."""
    game = Othello(size)
    states = [game.initial_state(), *random_states(game, 2, seed=20 + size)]
    play = othello_playout(game, "decisive")
    for i, state in enumerate(states):
        assert_same_outcomes(game, play, state, 6_000, seed=i, reference=game.decisive_rollout)


def test_decisive_choices_are_the_rule_on_every_position() -> None:
    """On positions of random 8x8 games the compiled choice equals the core's, and both equal
    the rule computed square by square: legal corners if any, else the legal moves that are
    not a diagonal neighbour of an empty corner if any, else every legal move."""
    game = Othello(8)
    p = compiled.params(game)
    corners = {(0, 0), (0, 7), (7, 0), (7, 7)}
    x_of = {(1, 1): (0, 0), (1, 6): (0, 7), (6, 1): (7, 0), (6, 6): (7, 7)}
    kinds = set()
    for own, other, _, moves in random_states(game, 300, seed=4):
        legal = {(b // 8, b % 8) for b in range(64) if moves >> b & 1}
        empty = {(b // 8, b % 8) for b in range(64) if not (own | other) >> b & 1}
        if legal & corners:
            rule, kind = legal & corners, "corner"
        else:
            safe = {sq for sq in legal if not (sq in x_of and x_of[sq] in empty)}
            rule, kind = (safe, "safe") if safe else (legal, "all")
        expected = sum(1 << (r * 8 + c) for r, c in rule)
        kinds.add(kind if rule != legal else kind + ", all legal")
        assert game.decisive_choices(own, other, moves) == expected
        got = compiled._decisive_choices(p, np.uint64(own), np.uint64(other), np.uint64(moves))
        assert int(got) == expected
    assert {"corner", "safe"} <= kinds  # the rule's branches occurred


def test_returns_and_refusals() -> None:
    game = Othello(6)
    play = othello_playout(game)
    assert play is not None
    state = random_states(game, 1, seed=3)[0]
    while not game.is_terminal(state):
        state = game.next_state(state, game.legal_actions(state)[0])
    assert state[3] == TERMINAL and play(state, random.Random(0)) == game.returns(state)
    start = game.initial_state()
    assert [play(start, random.Random(5)) for _ in range(20)] == [
        play(start, random.Random(5)) for _ in range(20)
    ]
    assert othello_playout(Othello(10)) is None  # 100 squares do not fit one word
    tuned = SearchConfig(selection="ucb1_tuned")  # not the kernel's: the Python search
    result = make_searcher(Othello(10), Budget(iterations=20), tuned, 0).search(
        Othello(10), Othello(10).initial_state()
    )
    assert result.backend == "python" and result.playouts == "python"


def test_the_python_search_uses_them_and_stays_seeded() -> None:
    """Where the kernel cannot run (UCB1-Tuned here), the Python search gets the playouts."""
    game = Othello()
    state = random_states(game, 1, seed=4)[0]
    budget = Budget(iterations=300)
    tuned = SearchConfig(selection="ucb1_tuned")
    first = make_searcher(game, budget, tuned, seed=2).search(game, state)
    again = make_searcher(game, budget, tuned, seed=2).search(game, state)
    assert first.playouts == "numba"
    assert first.children == again.children
    plain = make_searcher(game, budget, SearchConfig(backend="python"), seed=2)
    assert plain.search(game, state).playouts == "python"
