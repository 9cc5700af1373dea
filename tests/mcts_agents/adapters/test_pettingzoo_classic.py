"""PettingZoo's ``connect_four_v3`` and ``tictactoe_v3`` searched on our rules cores.

State by state: random games in the PettingZoo env, and at every step the converted state's
legal actions, player to move, end and returns against the env's, the core's next state
against the env's next board, and the live env left bit for bit as it was. Then the speed the
fast path is for: the compiled kernel on ``connect_four_v3``, far above the generic cloner.
"""

from __future__ import annotations

import itertools
import random
from typing import Any

import pytest
from pettingzoo.utils import wrappers

from mcts_agents import Budget, MCTSAgent, SearchConfig, make_searcher
from mcts_agents.adapters import EnvGame, game_from_env
from mcts_agents.adapters.generic import env_game
from mcts_agents.adapters.pettingzoo_classic import (
    classic_env_name,
    connect_four_core,
    connect_four_state,
    tictactoe_core,
    tictactoe_state,
)
from mcts_agents.compiled import numba_available
from mcts_agents.errors import GameOverError
from tests.mcts_agents.adapters.support import fingerprint, is_over, mask_actions, new_classic

#: Column after column, three stones each, shifted: the board fills with no four in a row.
CONNECT_FOUR_DRAW = [0, 1] * 3 + [1, 0] * 3 + [2, 3] * 3 + [3, 2] * 3 + [4, 5] * 3
CONNECT_FOUR_DRAW += [5, 4] * 3 + [6] * 6


def converted(name: str, env: Any) -> Any:
    raw = env.unwrapped
    if name == "connect_four_v3":
        return connect_four_state(raw.board)
    return tictactoe_state(raw.board.squares)


def returns_of(env: Any) -> tuple[float, ...]:
    return tuple(float(env.rewards[a]) for a in env.possible_agents)


def scripted(moves: list[int]) -> Any:
    """A move chooser that plays ``moves`` in order."""
    played = iter(moves)
    return lambda legal: next(played)


def play_and_compare(name: str, env: Any, moves: Any, search_every: int = 0) -> Any:
    """Play ``moves(legal) -> action`` in ``env``, comparing the core at every step; return
    the last state."""
    core = connect_four_core() if name == "connect_four_v3" else tictactoe_core()
    step = 0
    while True:
        legal = mask_actions(env)  # observing first: it rebinds TerminateIllegal's _prev_obs
        before = fingerprint(env)
        game, state = game_from_env(env)
        if search_every and step % search_every == 0:
            MCTSAgent(iterations=50, seed=step).search(env)
        assert fingerprint(env) == before  # the live env is left as it was
        assert game is core
        assert state == converted(name, env)
        assert game.legal_actions(state) == legal
        assert game.to_play(state) == env.possible_agents.index(env.agent_selection)
        assert not game.is_terminal(state)
        action = moves(game.legal_actions(state))
        expected = game.next_state(state, action)
        env.step(action)
        step += 1
        assert converted(name, env) == expected  # the core's move is the env's move
        if is_over(env):
            assert game.is_terminal(expected)
            assert game.returns(expected) == returns_of(env)
            assert game.legal_actions(expected) == []
            with pytest.raises(GameOverError):
                game_from_env(env)
            return expected
        assert not game.is_terminal(expected)


@pytest.mark.parametrize(("name", "games"), [("connect_four_v3", 150), ("tictactoe_v3", 250)])
def test_core_agrees_with_env_state_by_state_in_random_games(name: str, games: int) -> None:
    outcomes = set()
    for seed in range(games):
        env = new_classic(name, seed=seed)
        rng = random.Random(seed)
        last = play_and_compare(name, env, rng.choice, search_every=7 if seed < 3 else 0)
        outcomes.add(returns_of(env))
        assert classic_env_name(env) == name
        assert last[-1] != 0
    assert outcomes >= {(1.0, -1.0), (-1.0, 1.0)} | ({(0.0, 0.0)} if name[0] == "t" else set())


def test_connect_four_draw_and_every_kind_of_line() -> None:
    env = new_classic("connect_four_v3")
    last = play_and_compare("connect_four_v3", env, scripted(CONNECT_FOUR_DRAW))
    assert last[-1] == 3 and returns_of(env) == (0.0, 0.0)  # a full board, no four: a draw
    lines = {
        "vertical": [0, 1, 0, 1, 0, 1, 0],
        "horizontal": [0, 0, 1, 1, 2, 2, 3],
        "diagonal /": [0, 1, 1, 2, 3, 2, 2, 3, 6, 3, 3],
        "diagonal \\": [6, 5, 5, 4, 3, 4, 4, 3, 0, 3, 3],
    }
    for line in lines.values():
        env = new_classic("connect_four_v3")
        play_and_compare("connect_four_v3", env, scripted(line))
        assert returns_of(env) == (1.0, -1.0)


def test_tictactoe_lines_are_ours_action_for_action() -> None:
    """``tictactoe_v3``'s eight winning lines are exactly the lines of MNK(3, 3, 3) over the
    same action ids, so no translation is needed."""
    from pettingzoo.classic.tictactoe.board import Board

    core = tictactoe_core()
    ours = {
        cells
        for cells in itertools.combinations(range(9), 3)
        if core.wins_with(sum(1 << c for c in cells), cells[0])
    }
    assert ours == {tuple(sorted(line)) for line in Board.winning_combinations}


def test_positions_no_game_reaches_take_the_generic_path() -> None:
    env = new_classic("connect_four_v3")
    env.unwrapped.board[41 - 7 * 2] = 1  # a floating stone (row 3 of column 6)
    assert connect_four_state(env.unwrapped.board) is None
    assert isinstance(game_from_env(env)[0], EnvGame)
    env = new_classic("tictactoe_v3")
    env.unwrapped.board.squares[:] = [2, 0, 0, 0, 0, 0, 0, 0, 0]  # player_2 first
    assert tictactoe_state(env.unwrapped.board.squares) is None
    assert isinstance(game_from_env(env)[0], EnvGame)
    squares = [1, 1, 1, 2, 2, 2, 0, 0, 0]  # two lines: the game would have ended at the first
    assert tictactoe_state(squares) is None


def test_other_wrappers_and_subclasses_take_the_generic_path() -> None:
    from pettingzoo.classic.connect_four import connect_four

    class Mine(connect_four.raw_env):  # type: ignore[misc]
        pass

    env = Mine()
    env.reset(seed=0)
    assert classic_env_name(env) is None
    assert isinstance(game_from_env(env)[0], EnvGame)
    plain = connect_four.raw_env()  # no wrapper at all: fine
    plain.reset(seed=0)
    assert game_from_env(plain)[0] is connect_four_core()

    class Shaping(wrappers.BaseWrapper):  # type: ignore[type-arg]
        pass

    shaped = Shaping(new_classic("tictactoe_v3"))
    assert classic_env_name(shaped) is None
    assert isinstance(game_from_env(shaped)[0], EnvGame)


@pytest.mark.skipif(not numba_available(), reason="numba is not installed")
def test_connect_four_v3_is_searched_by_the_compiled_kernel_with_the_generic_answer() -> None:
    """The fast path runs the kernel (speed: ``benchmarks/search.py``, row "PZ connect_four_v3")
    and, on a won position, finds the same winning column as the generic cloner's search."""
    env = new_classic("connect_four_v3")
    for action in (3, 0, 3, 0, 3):  # three in column 3 for the first player, now the second
        env.step(action)
    env.step(1)  # the second player looks away: column 3 wins
    before = fingerprint(env)
    fast = MCTSAgent(iterations=5_000, seed=0).search(env)
    assert fast.backend == "numba" and fast.best_action == 3 and fast.proven == "win"
    generic, root = env_game(env)
    slow = make_searcher(generic, Budget(iterations=300), SearchConfig(), seed=0).search(
        generic, root
    )
    assert slow.backend == "python" and slow.best_action == 3
    assert fingerprint(env) == before
