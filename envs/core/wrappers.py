"""The standard wrapper stack for our envs, with clear errors instead of bare asserts."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from envs.core.aec import BoardGameEnv


class ActionCheckWrapper(wrappers.BaseWrapper[Any, Any, Any]):
    """Refuses non-integer and out-of-range actions with a clear error.

    PettingZoo's ``AssertOutOfBoundsWrapper`` does this with ``assert`` (gone under ``python -O``);
    this wrapper raises ``ActionTypeError`` / ``IllegalActionError`` naming the action instead.
    Legal-but-in-range checks are left to ``TerminateIllegalWrapper`` below it.
    """

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if action is not None and not (self.terminations[agent] or self.truncations[agent]):
            raw = self.unwrapped
            if isinstance(raw, BoardGameEnv):
                action = raw.game.action_index(action)
        super().step(action)


def wrap(raw: BoardGameEnv) -> AECEnv[Any, Any, Any]:
    """PettingZoo's usual stack: illegal moves lose (-1), clear action errors, call order."""
    env: AECEnv[Any, Any, Any] = wrappers.TerminateIllegalWrapper(raw, illegal_reward=-1)
    env = ActionCheckWrapper(env)
    return wrappers.OrderEnforcingWrapper(env)


def env_fn(raw_cls: Callable[..., BoardGameEnv]) -> Callable[..., AECEnv[Any, Any, Any]]:
    """Build a module's ``env(**kwargs)`` from its ``raw_env`` class."""

    def env(**kwargs: Any) -> AECEnv[Any, Any, Any]:
        return wrap(raw_cls(**kwargs))

    env.__doc__ = f"The wrapped environment; keyword arguments go to ``{raw_cls.__name__}``."
    return env
