"""PettingZoo's ``go_v5`` read into our Go core (``pettingzoo_go.go_game``, the fast path),
and searched on copies of its ``go_base.Position`` (``position_game``, the reference).

Move for move against the env in random games on small boards (captures, ko, suicide points,
passes, the end after two passes, komi, a tie that goes to white): legal action ids, the
player to move, the end, the returns, the walked state against a fresh root read from the env
(state by state), and the live env left as it was. The reference's playout is replayed
through ``next_state`` to the same end.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest
from pettingzoo.classic import go_v5
from pettingzoo.classic.go import go_base

from mcts_agents import MCTSAgent
from mcts_agents.adapters import game_from_env
from mcts_agents.adapters.pettingzoo_go import GoGame, GoState, position_game, random_point
from mcts_agents.envs.games.go import Go
from mcts_agents.envs.games.go import State as CoreState
from mcts_agents.errors import CloneError, GameOverError, IllegalActionError
from tests.mcts_agents.adapters.support import adapted_root, fingerprint, is_over, mask_actions


def new_go(size: int, komi: float = 7.5, seed: int = 0) -> Any:
    env = go_v5.env(board_size=size, komi=komi)
    env.reset(seed=seed)
    return env


def reference_root(env: Any) -> tuple[GoGame, GoState]:
    raw = env.unwrapped
    found = position_game(env, raw, raw.possible_agents.index(env.agent_selection))
    assert found is not None
    return found


def play_and_compare(env: Any, choose: Any, every: int = 10) -> tuple[Go, CoreState]:
    """Play ``choose(legal)`` in ``env`` with the fast path beside it, to the end: every
    position read from the env equals the one walked by the core's ``next_state``."""
    walked: CoreState | None = None
    ply = 0
    while True:
        game, root, legal = adapted_root(env, Go, ply % every == 0, 3, ply)
        assert game.params() == {
            "size": env.unwrapped._N,
            "komi": env.unwrapped._komi,
            "superko": False,
        }
        if walked is not None:
            assert game.key(walked) == game.key(root) and walked[:7] == root[:7]
            assert walked[7] == root[7]  # the history planes' boards too
            assert game.legal_actions(walked) == legal
        action = choose(legal)
        walked = game.next_state(root, action)
        env.step(action)
        ply += 1
        board = env.unwrapped._go.board
        grid = game.grid(walked)
        assert np.array_equal(grid == 1, board == 1) and np.array_equal(grid == 2, board == -1)
        if is_over(env):
            assert game.is_terminal(walked) and game.legal_actions(walked) == []
            expected = tuple(float(env.rewards[a]) for a in env.possible_agents)
            assert game.returns(walked) == expected
            with pytest.raises(GameOverError):
                game_from_env(env)
            return game, walked
        assert not game.is_terminal(walked)


def watching_chooser(env: Any, rng: random.Random, seen: dict[str, bool]) -> Any:
    """Random legal moves; notes in ``seen`` what the positions showed."""

    def choose(legal: list[int]) -> int:
        position = env.unwrapped._go
        seen["capture"] |= sum(position.caps) > 0
        seen["ko"] |= position.ko is not None
        empty = int((position.board == 0).sum())
        seen["refused point"] |= len(legal) - 1 < empty  # an empty point that is not legal
        return rng.choice(legal)

    return choose


@pytest.mark.parametrize(("size", "komi", "games"), [(5, 0.0, 30), (7, 7.5, 12), (9, 5.5, 4)])
def test_random_games_move_for_move(size: int, komi: float, games: int) -> None:
    seen = {"capture": False, "ko": False, "refused point": False, "black": False, "white": False}
    for seed in range(games):
        env = new_go(size, komi, seed)
        game, last = play_and_compare(env, watching_chooser(env, random.Random(seed), seen), 25)
        seen["black" if game.returns(last)[0] > 0 else "white"] = True
    assert all(seen.values()), seen


def test_tie_goes_to_white_and_two_passes_end_the_game() -> None:
    env = new_go(5, komi=0.0)
    game, last = play_and_compare(env, lambda legal: legal[-1])  # pass, pass
    assert game.score(last) == 0 and game.returns(last) == (-1.0, 1.0)
    env = new_go(5, komi=0.0)
    moves = iter([12, 25, 25])  # black takes the centre, white passes, black passes
    game, last = play_and_compare(env, lambda legal: next(moves))
    assert game.score(last) == 25 and game.returns(last) == (1.0, -1.0)


def test_playout_replayed_through_next_state_ends_the_same(monkeypatch: Any) -> None:
    play = go_base.Position.play_move
    points: list[Any] = []

    def recorded(position: Any, c: Any, color: Any = None, mutate: bool = False) -> Any:
        if mutate:
            points.append(c)
        return play(position, c, color, mutate)

    lengths = []
    for size in (5, 7):
        env = new_go(size, komi=0.5)
        rng = random.Random(size)
        for _ in range(6):
            env.step(rng.choice(mask_actions(env)))
        game, root = reference_root(env)
        before = fingerprint(root.position)
        for seed in range(10):
            points.clear()
            monkeypatch.setattr(go_base.Position, "play_move", recorded)
            returns = game.rollout(root, random.Random(seed))
            monkeypatch.undo()
            lengths.append(len(points))
            state = root
            for point in points:
                assert not game.is_terminal(state)
                action = size * size if point is None else point[0] * size + point[1]
                state = game.next_state(state, action)  # refuses an illegal move
            assert game.is_terminal(state) and game.returns(state) == returns
        assert fingerprint(root.position) == before  # playouts play on a private copy
    assert min(lengths) >= 1 and max(lengths) > 30, lengths


def test_playout_moves_are_uniform_over_the_legal_ones() -> None:
    """``random_point`` draws every legal move (the pass included) equally often and never a
    point the env's mask refuses."""
    env = new_go(5, seed=1)
    rng = random.Random(1)
    while True:  # a position with an empty point that is not legal (suicide or ko)
        env.step(rng.choice(mask_actions(env)))
        position = env.unwrapped._go
        if len(mask_actions(env)) - 1 < int((position.board == 0).sum()):
            break
    legal = mask_actions(env)
    draws = 400 * len(legal)
    counts = dict.fromkeys(legal, 0)
    for _ in range(draws):
        point = random_point(position, rng)
        counts[25 if point is None else point[0] * 5 + point[1]] += 1  # KeyError if illegal
    # each count is Binomial(draws, 1 / len(legal)): within 5 standard deviations
    p = 1 / len(legal)
    assert all(abs(c - draws * p) < 5 * (draws * p * (1 - p)) ** 0.5 for c in counts.values())


def test_illegal_moves_and_keys() -> None:
    env = new_go(5)
    game, root = reference_root(env)
    child = game.next_state(root, 12)
    with pytest.raises(IllegalActionError, match="12"):
        game.next_state(child, 12)  # occupied
    a = game.next_state(game.next_state(child, 0), 24)
    b = game.next_state(game.next_state(game.next_state(root, 24), 0), 12)
    assert game.key(a) == game.key(b)  # the same position by another move order
    passed = game.next_state(child, 25)  # white passes: a pass by black would end the game
    assert game.key(passed)[:3] == (child.position.board.tobytes(), 1, None)
    assert game.key(passed)[3:] == (True, False) and game.key(child)[3:] == (False, False)


def test_a_newer_env_of_another_size_breaks_the_older_and_is_refused() -> None:
    old = new_go(5)
    new_go(7)  # overwrites go_base's board size, as PettingZoo's go does
    with pytest.raises(CloneError, match="module globals"):
        game_from_env(old)


def test_agent_searches_pettingzoo_go_fast_and_leaves_it_unchanged() -> None:
    env = new_go(9)
    env.step(40)
    mask_actions(env)
    before = fingerprint(env)
    result = MCTSAgent(iterations=200, seed=0).search(env)
    assert fingerprint(env) == before
    assert result.best_action in mask_actions(env)
    from mcts_agents.compiled import numba_available  # the fast path's core: Go's kernel

    assert result.backend == ("numba" if numba_available() else "python")


def test_root_parallel_search_on_another_board_size_than_the_default() -> None:
    """Worker processes import ``go_base`` at its default 19x19; the game sets their size."""
    env = new_go(7)
    with MCTSAgent(iterations=40, seed=0, workers=2) as agent:
        result = agent.search(env)
    assert result.iterations == 40 and result.best_action in mask_actions(env)
