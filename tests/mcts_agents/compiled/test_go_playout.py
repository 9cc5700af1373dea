"""Compiled Go playouts (mcts_agents/compiled/go_playout.py) against the Python rules core.

Every playout is replayed through the core (``Go(superko=False)``: simple ko, the playouts'
rule): each move must be legal there, and the score the playout counted must be the core's area
score of the board it ends on.
"""

from __future__ import annotations

import math
import random
from collections import Counter

import pytest

from mcts_agents import Budget, SearchConfig, make_searcher
from mcts_agents.envs.games.go import Go

pytest.importorskip("numba")

from mcts_agents.compiled import compiled_playout
from mcts_agents.compiled.go_playout import black_wins, go_playout, playout_moves
from tests.mcts_agents.compiled.playouts import assert_same_outcomes

KINDS = ["random", "decisive"]


def random_position(game: Go, plies: int, seed: int) -> tuple:
    """The core's position after ``plies`` uniformly random legal moves (no pass)."""
    rng = random.Random(seed)
    state = game.initial_state()
    for _ in range(plies):
        moves = game.legal_actions(state)[:-1] or [game.pass_action]
        state = game.next_state(state, rng.choice(moves))
    return state


def replay(game: Go, state: tuple, moves: list[int]) -> tuple:
    """``state`` after ``moves``, each checked legal by the core."""
    for i, action in enumerate(moves):
        assert game.is_legal(state, action), (i, action, game.render_text(state))
        state = game.next_state(state, action)
    return state


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize(
    ("size", "plies", "runs"), [(5, 6, 60), (9, 30, 40), (13, 60, 8), (19, 40, 2)]
)
def test_every_move_is_legal_and_the_score_is_the_cores(
    size: int, plies: int, runs: int, kind: str
) -> None:
    game = Go(size, komi=5.5, superko=False)
    for seed in range(runs):
        start = random_position(game, plies if seed % 2 else seed % 7, seed)
        moves, score, returns = playout_moves(game, start, seed, kind)
        end = replay(game, start, moves)
        if game.is_terminal(end):
            assert moves[-2:] == [game.pass_action] * 2
        else:  # a decisive playout stopped by its cap
            assert kind == "decisive" and len(moves) == 3 * game.points
        assert score == game.score(end), (seed, game.render_text(end))
        assert returns == ((1.0, -1.0) if game.score(end) > 0 else (-1.0, 1.0))
        if kind == "decisive":  # a pass only when nothing else is legal (eyes aside)
            state = start
            for action in moves:
                if action == game.pass_action:
                    assert all(_own_eye(game, state, a) for a in game.legal_actions(state)[:-1])
                state = game.next_state(state, action)


def _own_eye(game: Go, state: tuple, action: int) -> bool:
    """The core's eye test of the decisive playout (``go_playout.playout``)."""
    bit = 1 << game.action_bit[action]
    own, opp = (state[0], state[1]) if state[2] == 0 else (state[1], state[0])
    if game.point_neighbours[game.action_bit[action]] & ~own:
        return False
    faults = (game.point_diagonals[game.action_bit[action]] & opp).bit_count()
    return faults + (bit & game.edge_points != 0) <= 1


def test_the_seed_decides() -> None:
    game = Go(9, superko=False)
    start = random_position(game, 20, 3)
    first = playout_moves(game, start, 11, "random")
    assert first == playout_moves(game, start, 11, "random")
    assert first[0] != playout_moves(game, start, 12, "random")[0]
    play = go_playout(game, "decisive")

    def stream(seed: int) -> list[tuple[float, ...]]:
        rng = random.Random(seed)
        return [play(start, rng) for _ in range(40)]

    assert stream(5) == stream(5)
    assert len(set(stream(5))) == 2  # forty playouts do not all end the same way
    for kind in KINDS:  # many playouts in one call: the same playouts, one by one
        wins = sum(playout_moves(game, start, 50 + i, kind)[2][0] > 0 for i in range(30))
        assert black_wins(game, start, 30, 50, kind) == wins


def _setup(game: Go, black: list[int], white: list[int], to_play: int) -> tuple:
    return game.state_from_stones(game.stones(black), game.stones(white), to_play)


def _first_moves(game: Go, state: tuple, kind: str, runs: int) -> Counter[int]:
    return Counter(playout_moves(game, state, seed, kind)[0][0] for seed in range(1, runs + 1))


def _assert_uniform(counts: Counter[int], legal: list[int], runs: int) -> None:
    """Every legal move drawn, nothing else, and a chi-square within loose bounds."""
    assert set(counts) == set(legal)
    expected = runs / len(legal)
    chi2 = sum((counts[a] - expected) ** 2 / expected for a in legal)
    df = len(legal) - 1
    assert chi2 < df + 6 * math.sqrt(2 * df), (chi2, df)


def test_uniform_first_moves_avoid_suicide_and_ko() -> None:
    """5x5, black to move: point 0 is suicide (white's 1 and 5 have liberties), point 23
    captures white's 24; the first move is uniform over the core's legal moves and the pass."""
    game = Go(5, komi=0.5, superko=False)
    state = _setup(game, black=[19, 12], white=[1, 5, 24], to_play=0)
    legal = game.legal_actions(state)
    assert 0 not in legal and 23 in legal
    runs = 12_000
    _assert_uniform(_first_moves(game, state, "random", runs), legal, runs)
    # the capture: after black 23, white 24 is gone in the playout's board as in the core's
    for seed in range(1, 400):
        moves, score, _ = playout_moves(game, state, seed, "random")
        if moves[0] == 23:
            assert score == game.score(replay(game, state, moves))
            after = game.next_state(state, 23)
            assert not after[1] >> game.action_bit[24] & 1
            break
    else:
        pytest.fail("no playout began with the capture")


def test_the_ko_point_is_not_retaken_at_once() -> None:
    """Black 7 takes white 6 (a single stone, 7 surrounded by white): white may not retake at
    6 at once; the playout's first move is uniform over the core's legal moves, 6 excluded."""
    game = Go(5, komi=0.5, superko=False)
    before = _setup(game, black=[1, 5, 11], white=[2, 6, 8, 12], to_play=0)
    state = game.next_state(before, 7)
    assert state[3] == 6 and not game.is_legal(state, 6)
    legal = game.legal_actions(state)
    runs = 12_000
    _assert_uniform(_first_moves(game, state, "random", runs), legal, runs)
    decisive = _first_moves(game, state, "decisive", 2000)
    assert 6 not in decisive and game.pass_action not in decisive


def test_decisive_playouts_keep_their_eyes_and_pass_at_the_end() -> None:
    """Black fills the 5x5 board but for two single-point eyes (0 and 24): white cannot play
    (suicide), black will not fill an eye, so both pass and black owns the board."""
    game = Go(5, komi=7.5, superko=False)
    state = _setup(game, black=list(range(1, 24)), white=[], to_play=1)
    moves, score, returns = playout_moves(game, state, 7, "decisive")
    assert moves == [game.pass_action] * 2
    assert score == 25 - 7.5 and returns == (1.0, -1.0)
    uniform = _first_moves(game, game.next_state(state, game.pass_action), "random", 600)
    assert set(uniform) == {0, 24, game.pass_action}  # the uniform playout fills them


@pytest.mark.parametrize("kind", KINDS)
def test_outcomes_match_the_cores_playout(kind: str) -> None:
    """7x7 from a position with stones: black's winning frequency agrees with the core's
    Python playout (``rollout`` / ``decisive_rollout``, simple ko) within sampling error."""
    game = Go(7, komi=3.5, superko=False)
    state = random_position(game, 12, 5)
    reference = game.decisive_rollout if kind == "decisive" else game.rollout
    assert_same_outcomes(game, go_playout(game, kind), state, 2500, 4, reference)


def test_the_python_search_uses_them_on_go_v0_and_the_fast_path() -> None:
    """With uniform playouts (the default decisive ones go to the compiled tree search,
    ``test_go_search``) the Python tree runs the compiled playouts."""
    budget = Budget(iterations=150)
    uniform = SearchConfig(playout="random")
    for game in (Go(9), Go(9, superko=False)):  # go_v0's core; the one go_v5 is read into
        for kind in KINDS:
            assert compiled_playout(game, SearchConfig(playout=kind)) is not None
        state = random_position(game, 10, 1)
        result = make_searcher(game, budget, uniform, seed=3).search(game, state)
        assert result.playouts == "numba"
        again = make_searcher(game, budget, uniform, seed=3).search(game, state)
        assert again.children == result.children
        assert game.is_legal(state, result.best_action)
        python = make_searcher(game, budget, SearchConfig(backend="python", playout="random"))
        assert python.search(game, state).playouts == "python"
    over = (0, 0, 0, -1, 2, 0, frozenset(), ())
    game = Go(5, komi=0.5, superko=False)
    assert go_playout(game)(over, random.Random(0)) == game.returns(over)


def test_go_v5_through_the_fast_path_and_go_v0_use_them() -> None:
    """``MCTSAgent`` with uniform playouts: compiled playouts on PettingZoo's env and on ours;
    with its defaults: the compiled tree search."""
    from pettingzoo.classic import go_v5

    from mcts_agents import MCTSAgent
    from mcts_agents.envs.go_v0 import env as go_v0

    theirs = go_v5.env(board_size=9, komi=7.5)
    theirs.reset(seed=0)
    theirs.step(40)
    ours = go_v0(size=9)
    ours.reset(seed=0)
    for env in (theirs, ours):
        result = MCTSAgent(iterations=200, seed=0, playout="random").search(env)
        assert result.playouts == "numba" and result.iterations == 200
        assert MCTSAgent(iterations=200, seed=0).search(env).backend == "numba"
        mask = env.observe(env.agent_selection)["action_mask"]
        assert mask[result.best_action]
