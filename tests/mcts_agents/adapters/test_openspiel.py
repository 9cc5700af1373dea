"""``mcts_agents.adapters.openspiel``: ``OpenSpielGame`` through Shimmy's OpenSpiel wrapper.

Random games side by side with the Shimmy env, the live env left untouched by playouts, keys
that transpose, chance games refused, and one search identical through PettingZoo and OpenSpiel.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from mcts_agents.adapters import OpenSpielGame, game_from_env
from mcts_agents.errors import CloneError, GameOverError, IllegalActionError
from mcts_agents.game import default_rollout
from tests.mcts_agents.adapters.support import fingerprint, is_over, mask_actions, new_classic


@pytest.mark.parametrize("game_name", ["connect_four", "tic_tac_toe"])
def test_openspiel_game_agrees_with_shimmy_env(game_name: str) -> None:
    import shimmy

    for seed in range(5):
        env = shimmy.OpenSpielCompatibilityV0(game_name=game_name)
        env.reset(seed=seed)
        rng = random.Random(seed)
        game, state = game_from_env(env)
        assert isinstance(game, OpenSpielGame)
        assert state is not env.unwrapped.game_state  # a clone: the live state is never exposed
        while not is_over(env):
            before = fingerprint(env)
            fresh_game, fresh = game_from_env(env)
            assert fingerprint(env) == before
            assert fresh_game.key(fresh) == game.key(state)
            assert game.to_play(state) == env.possible_agents.index(env.agent_selection)
            assert game.legal_actions(state) == mask_actions(env)
            actions = game.legal_actions(state)
            action = actions[int(rng.random() * len(actions))]
            child = game.next_state(state, action)
            assert str(state) != str(child)  # the parent was not touched
            state = child
            env.step(action)
        assert game.is_terminal(state)
        expected = tuple(float(env._cumulative_rewards[a]) for a in env.possible_agents)
        assert game.returns(state) == expected
        with pytest.raises(GameOverError):
            game_from_env(env)


def test_openspiel_live_env_unchanged_by_playouts_and_keys_transpose() -> None:
    import shimmy

    env = shimmy.OpenSpielCompatibilityV0(game_name="connect_four")
    env.reset(seed=0)
    env.step(3)
    before = fingerprint(env)
    history = env.unwrapped.game_state.history()
    game, root = game_from_env(env)
    assert isinstance(game, OpenSpielGame)
    rng = random.Random(0)
    fast = [game.rollout(root, random.Random(s)) for s in range(20)]
    assert fast == [default_rollout(game, root, random.Random(s)) for s in range(20)]
    for _ in range(200):
        default_rollout(game, root, rng)
    assert fingerprint(env) == before
    assert env.unwrapped.game_state.history() == history

    def walk(moves: list[int]) -> Any:
        state = root
        for move in moves:
            state = game.next_state(state, move)
        return game.key(state)

    assert walk([0, 1, 2, 4]) == walk([2, 4, 0, 1]) == walk([2, 1, 0, 4])
    assert walk([0, 1, 2, 4]) != walk([1, 0, 2, 4])  # the players swap columns 0 and 1
    with pytest.raises(IllegalActionError):
        game.next_state(root, 99)


def test_openspiel_game_with_chance_nodes_is_refused() -> None:
    import shimmy

    env = shimmy.OpenSpielCompatibilityV0(game_name="kuhn_poker")
    env.reset(seed=0)
    with pytest.raises(CloneError, match=r"OpenSpielCompatibilityV0.*kuhn_poker.*chance"):
        game_from_env(env)


def test_search_is_identical_through_pettingzoo_and_openspiel_connect_four() -> None:
    """Two adapters over two implementations of one game: same seed, the very same search."""
    import shimmy

    from mcts_agents import MCTSAgent

    ours = new_classic("connect_four_v3")
    theirs = shimmy.OpenSpielCompatibilityV0(game_name="connect_four")
    theirs.reset(seed=0)
    for action in (3, 2):
        ours.step(action)
        theirs.step(action)
    results = [MCTSAgent(iterations=400, seed=7).search(env) for env in (ours, theirs)]
    visits = [sorted((c.action, c.visits) for c in r.children) for r in results]
    assert visits[0] == visits[1]
    assert sum(v for _, v in visits[0]) >= 399
