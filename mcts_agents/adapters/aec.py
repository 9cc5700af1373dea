"""Reading a live PettingZoo AEC env without changing it: bookkeeping, masks, wrappers, names.

Shared by the adapters (the search's view of an env), the cloner and the agents. Nothing here
steps, copies or seeds an env.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from mcts_agents.envs.core.aec import BoardGameEnv
from mcts_agents.errors import CloneError, GameOverError, NoLegalActionError, NotResetError

__all__ = [
    "BOOKKEEPING",
    "bookkeeper",
    "bookkeeping",
    "check_live",
    "check_reset",
    "describe_env",
    "info_mask",
    "legal_actions",
    "wrapper_chain",
]

#: The public AEC bookkeeping attributes (PettingZoo's ``AECEnv``): who plays, who is done,
#: rewards and infos. (``_cumulative_rewards`` is private: wrappers refuse to forward it.)
BOOKKEEPING = ("agents", "agent_selection", "terminations", "truncations", "rewards", "infos")


def legal_actions(env: Any) -> list[int]:
    """Legal actions of the agent to move in any live AEC env, without cloning it.

    Our envs answer from the rules core; others from ``observation["action_mask"]``, else
    ``info["action_mask"]``, else every action of the ``Discrete`` space (mask index ``i`` is
    action ``space.start + i``).

    Raises:
        GameOverError, NoLegalActionError, NotResetError: as ``game_from_env``.
    """
    raw = env.unwrapped
    check_reset(env)
    agents, selected, terminations, truncations = bookkeeping(env)
    check_live(env, agents, selected, terminations, truncations)
    space = env.action_space(selected)
    start = int(getattr(space, "start", 0))
    if isinstance(raw, BoardGameEnv):
        actions = raw.legal_actions()
    else:
        observation = env.observe(selected)
        if isinstance(observation, dict) and "action_mask" in observation:
            mask = observation["action_mask"]
        else:
            mask = info_mask(env, selected)
        if mask is None:
            if not isinstance(space, spaces.Discrete):
                raise CloneError(
                    f"{describe_env(env)} has no action mask and a {type(space).__name__} "
                    "action space; a Discrete space or a mask is needed"
                )
            return list(range(start, start + int(space.n)))
        actions = [start + int(i) for i in np.flatnonzero(mask)]
    if not actions:
        raise NoLegalActionError(f"{selected} has no legal action in {env}")
    return actions


def check_reset(env: Any) -> None:
    """``NotResetError`` if a wrapper of ``env`` says it was never reset (PettingZoo's
    ``OrderEnforcingWrapper`` keeps ``_has_reset``; a raw env may look playable before it)."""
    for obj in wrapper_chain(env):
        if vars(obj).get("_has_reset") is False:
            raise NotResetError(f"{describe_env(env)} has not been reset; call env.reset() first")


def bookkeeping(env: Any) -> tuple[list[Any], Any, dict[Any, bool], dict[Any, bool]]:
    """``(agents, agent_selection, terminations, truncations)``; ``NotResetError`` before reset."""
    try:
        return env.agents, env.agent_selection, env.terminations, env.truncations
    except AttributeError as error:
        raise NotResetError(
            f"{describe_env(env)} has no game in progress ({error}); call env.reset() first"
        ) from None


def check_live(
    env: Any,
    agents: Sequence[Any],
    selected: Any,
    terminations: dict[Any, bool],
    truncations: dict[Any, bool],
) -> None:
    """``GameOverError`` if no agent is left or the agent to move is done."""
    if not agents:
        raise GameOverError(f"no agents remain in {env}: the game is over; reset() for a new one")
    if terminations.get(selected, False) or truncations.get(selected, False):
        raise GameOverError(
            f"{selected} is done in {env}: step(None) to remove finished agents or reset()"
        )


def bookkeeper(env: Any) -> Any:
    """The outermost object of ``env``'s chain that defines the bookkeeping attributes.

    PettingZoo's wrappers forward them to the unwrapped env with ``__getattr__``; a wrapper that
    defines any of them itself is the owner. Falls back to ``env`` unless reading the owner gives
    the very same objects as reading ``env``.
    """
    for obj in wrapper_chain(env):
        own = vars(obj).keys() | {
            name for cls in type(obj).__mro__ if cls not in (AECEnv, object) for name in vars(cls)
        }
        if own.intersection(BOOKKEEPING):
            break
    else:
        return env
    missing = object()
    if all(getattr(obj, n, missing) is getattr(env, n, missing) for n in BOOKKEEPING):
        return obj
    return env


def describe_env(env: Any) -> str:
    """The wrapper chain's class names and the env's registered name, for messages."""
    chain = ">".join(type(obj).__name__ for obj in wrapper_chain(env))
    name = getattr(env.unwrapped, "metadata", {}).get("name")
    return f"{chain} ({name})" if name else chain


def info_mask(env: Any, agent: Any) -> Any:
    """``env.infos[agent]["action_mask"]`` if there is one, else ``None``."""
    info = getattr(env, "infos", {}).get(agent)
    return info.get("action_mask") if isinstance(info, dict) else None


def wrapper_chain(env: Any) -> list[Any]:
    """``env`` and every env it wraps (through ``.env``), outermost first."""
    chain = [env]
    while isinstance(vars(chain[-1]).get("env"), AECEnv) and len(chain) < 100:
        chain.append(vars(chain[-1])["env"])
    return chain
