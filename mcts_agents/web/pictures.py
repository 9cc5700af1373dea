"""How the browser draws an env: its position in one of our rules cores (our boards), or the
env's own ``rgb_array`` picture."""

from __future__ import annotations

import logging
from typing import Any

from mcts_agents.adapters.pettingzoo_classic import (
    classic_env_name,
    connect_four_core,
    connect_four_state,
    tictactoe_core,
    tictactoe_state,
)
from mcts_agents.envs.core.aec import BoardGameEnv

__all__ = ["core_position", "picture"]

logger = logging.getLogger(__name__)


def core_position(env: Any) -> tuple[Any, Any] | None:
    """The position of ``env`` in one of our rules cores, for drawing it with our boards: our
    envs' own, and PettingZoo's ``connect_four_v3`` and ``tictactoe_v3`` read into ours (the
    same rules and action ids, ``adapters.pettingzoo_classic``), game over or not; else
    ``None`` (the env is drawn from its picture)."""
    raw = env.unwrapped
    if isinstance(raw, BoardGameEnv):
        return raw.game, raw.state
    name = classic_env_name(env)
    if name == "connect_four_v3":
        board = connect_four_state(raw.board)
        return None if board is None else (connect_four_core(), board)
    if name == "tictactoe_v3":
        squares = tictactoe_state(raw.board.squares)
        return None if squares is None else (tictactoe_core(), squares)
    return None


def picture(env: Any) -> Any:
    """Another env's ``rgb_array`` picture, or ``None``."""
    if getattr(env.unwrapped, "render_mode", None) != "rgb_array":
        return None
    try:
        return env.render()
    except Exception:  # a picture is a courtesy: the moves are still buttons
        logger.debug("render() failed", exc_info=True)
        return None
