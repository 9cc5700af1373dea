"""The vector env's checks of the learners' actions (``rl.vector.VectorVsOpponent.step``):
their shape and type, the action space, and legality under ``illegal_action="raise"``; under
``autoreset_mode`` ``Disabled``, no finished sub-env stepped and ``reset``'s ``reset_mask``."""

from __future__ import annotations

from typing import Any

import numpy as np

from mcts_agents.agents.play import action_index
from mcts_agents.errors import (
    ActionTypeError,
    IllegalActionError,
    InvalidOptionError,
    NotResetError,
)

__all__ = [
    "check_actions",
    "check_legality",
    "check_not_finished",
    "check_range",
    "reset_indices",
]


def check_actions(env: Any, actions: Any) -> np.ndarray:
    array = np.asarray(actions)
    if array.shape != (env.num_envs,):
        raise InvalidOptionError(
            f"actions must have shape ({env.num_envs},) (one per sub-env), got shape "
            f"{array.shape}: {actions!r}"
        )
    if array.dtype.kind not in "iu":  # (bool: "b")
        for i, action in enumerate(array.tolist()):
            action_index(action, f"the learner of sub-env {i}")  # names the first bad one
        raise ActionTypeError(f"actions must be integers, got dtype {array.dtype}")
    return array.astype(np.int64)


def check_range(env: Any, array: np.ndarray) -> None:
    """Raise for the first sub-env (not restarting) whose action is outside the space."""
    outside = (array < env._start) | (array >= env._start + env._num_actions)
    for i in np.flatnonzero(outside & ~env._autoreset).tolist() if outside.any() else ():
        raise IllegalActionError(
            f"action {int(array[i])} of sub-env {i} is outside the action space "
            f"{env.single_action_space}"
        )


def check_legality(env: Any, actions: np.ndarray, illegal: list[int]) -> None:
    """Raise for the first of the sub-envs ``illegal`` (illegal actions) set to "raise"."""
    for i in illegal:
        sub = env._subs[i]
        if sub.illegal_action != "raise":
            continue
        mask = env._masks[i]
        if not mask[int(actions[i]) - env._start]:
            legal = [env._start + int(a) for a in np.flatnonzero(mask)]
            raise IllegalActionError(
                f"action {int(actions[i])} is not legal for {sub.seat} in sub-env {i}; "
                f"legal: {legal} (no sub-env was stepped)"
            )


def check_not_finished(env: Any) -> None:
    """``Disabled``: raise if a finished sub-env would be stepped before its reset."""
    if np.count_nonzero(env._finished):
        finished = np.flatnonzero(env._finished).tolist()
        raise NotResetError(
            f"the sub-envs {finished} have finished their episodes (autoreset_mode "
            "Disabled): reset them first with reset(options={'reset_mask': mask})"
        )


def reset_indices(env: Any, reset_mask: Any) -> list[int]:
    """The sub-envs that ``reset`` resets: all, or those where ``reset_mask`` (``Disabled``
    only: ``N`` bools, at least one True) is True."""
    from gymnasium.vector import AutoresetMode

    if reset_mask is None:
        return list(range(env.num_envs))
    if env.autoreset_mode != AutoresetMode.DISABLED:
        raise InvalidOptionError(
            f"reset's option 'reset_mask' needs autoreset_mode Disabled, not "
            f"{env.autoreset_mode.value}"
        )
    mask = np.asarray(reset_mask)
    if mask.dtype != np.bool_ or mask.shape != (env.num_envs,) or not mask.any():
        raise InvalidOptionError(
            f"reset_mask must be a bool array of shape ({env.num_envs},) with at least one "
            f"True, got {reset_mask!r}"
        )
    return np.flatnonzero(mask).tolist()
