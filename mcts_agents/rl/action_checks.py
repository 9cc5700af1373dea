"""The vector env's checks of the learners' actions (``rl.vector.VectorVsOpponent.step``):
their shape and type, the action space, and legality under ``illegal_action="raise"``."""

from __future__ import annotations

from typing import Any

import numpy as np

from mcts_agents.agents.play import action_index
from mcts_agents.errors import ActionTypeError, IllegalActionError, InvalidOptionError

__all__ = ["check_actions", "check_legality", "check_range"]


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
