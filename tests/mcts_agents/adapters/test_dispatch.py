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
