"""``mcts_agents.adapters.game_from_env``: which path an env takes, and what is refused.

Our envs hand over their rules core and state; envs not reset and non-AEC objects are refused.
"""

from __future__ import annotations

import pytest

from mcts_agents.adapters import game_from_env
from mcts_agents.envs import connect_four_v0
from mcts_agents.errors import CloneError, GameOverError, NotResetError
from tests.mcts_agents.adapters.support import classic_env_fn


# --------------------------------------------------------------------------- our envs
def test_our_env_gives_its_rules_core_and_state() -> None:
    env = connect_four_v0.env()
    env.reset(seed=0)
    env.step(3)
    game, state = game_from_env(env)
    assert game is env.unwrapped.game
    assert state is env.unwrapped.state
    for action in (3, 4, 3, 4, 3, 4, 3):  # a vertical four for player_1 (who moved 3 first)
        env.step(action)
    with pytest.raises(GameOverError):
        game_from_env(env)
    while env.agents:
        env.step(None)
    with pytest.raises(GameOverError, match="no agents"):
        game_from_env(env)


# --------------------------------------------------------------------------- refusals
def test_not_reset_env_and_non_aec_objects_are_refused() -> None:
    with pytest.raises(NotResetError, match="reset"):
        game_from_env(classic_env_fn("tictactoe_v3")())
    with pytest.raises(CloneError, match="AECEnv"):
        game_from_env(object())


def test_a_wrapped_env_that_was_never_reset_is_refused() -> None:
    """The audit: MCTSAgent.act on a wrapped env never reset returned a move."""
    from mcts_agents import MCTSAgent, RandomAgent
    from mcts_agents.envs import connect_four_v0
    from mcts_agents.errors import NotResetError

    env = connect_four_v0.env()
    with pytest.raises(NotResetError, match="has not been reset"):
        MCTSAgent(iterations=10).act(env)
    with pytest.raises(NotResetError, match="has not been reset"):
        RandomAgent(seed=0).act(env)
    env.reset(seed=0)
    assert MCTSAgent(iterations=10, seed=0).act(env) in range(7)
