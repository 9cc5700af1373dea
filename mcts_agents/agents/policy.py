"""``PolicyAgent``: a policy ``(observation, action_mask) -> action`` or a trained Stable-Baselines3
model as an agent with ``act(env)``, for the arena and the standard AEC loop.

Stable-Baselines3 and torch are not imported here.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from mcts_agents.agents.play import action_index
from mcts_agents.errors import IllegalActionError, OptionTypeError

__all__ = ["Policy", "PolicyAgent"]


def _legal_from_mask(mask: np.ndarray, start: int) -> list[int]:
    return [start + int(i) for i in np.flatnonzero(mask)]


Policy = Callable[[Any, np.ndarray], Any]


class PolicyAgent:
    """An agent (``act(env) -> action``) from a ``policy(observation, action_mask) -> action``.

    ``act`` reads ``env.observe(env.agent_selection)`` and calls the policy with its
    ``"observation"`` and boolean ``"action_mask"`` (the same values ``SingleAgentVsOpponent``
    gives a learner). A policy returning an action the mask forbids raises
    ``IllegalActionError`` naming the policy, the action and the legal actions: no silent
    fallback. A policy object with a ``reset(seed=...)`` method is reset with the agent.

    Args:
        policy: the callable.
        name: a label for tables and ``repr`` (default: the policy's name).
    """

    def __init__(self, policy: Policy, name: str | None = None) -> None:
        if not callable(policy):
            raise OptionTypeError(
                f"policy must be a callable policy(observation, action_mask) -> action, got "
                f"{type(policy).__name__}"
            )
        self.policy = policy
        self.name = name if name is not None else getattr(policy, "__name__", repr(policy))

    @classmethod
    def from_sb3(
        cls, model: Any, deterministic: bool = True, name: str | None = None
    ) -> PolicyAgent:
        """Wrap a Stable-Baselines3 / sb3-contrib model (anything with ``predict``).

        Models whose ``predict`` takes ``action_masks`` (sb3-contrib's ``MaskablePPO``) get the
        mask; others are called with the observation alone, so they may pick an illegal action
        (and ``act`` then raises). Stable-Baselines3 itself is not imported here.

        Args:
            model: the trained model.
            deterministic: passed to ``predict``; with ``False`` the agent's ``reset(seed=s)``
                calls ``model.set_random_seed(s)``.
            name: a label (default: the model's class name).
        """
        if not callable(getattr(model, "predict", None)):
            raise OptionTypeError(
                f"model must have a predict(observation, ...) method (an SB3 model), got "
                f"{type(model).__name__}"
            )
        return cls(_SB3Policy(model, deterministic), name or type(model).__name__)

    def act(self, env: Any) -> int:
        """The policy's action for ``env.agent_selection``."""
        agent = env.agent_selection
        observation = env.observe(agent)
        if not isinstance(observation, Mapping) or "action_mask" not in observation:
            raise OptionTypeError(
                f"PolicyAgent needs dict observations {{'observation', 'action_mask'}}; "
                f"{env} observed {type(observation).__name__} for {agent}"
            )
        mask = np.asarray(observation["action_mask"]).astype(bool)
        action = action_index(
            self.policy(observation["observation"], mask), f"policy {self.name!r}"
        )
        start = int(getattr(env.action_space(agent), "start", 0))
        if not 0 <= action - start < len(mask) or not mask[action - start]:
            raise IllegalActionError(
                f"policy {self.name!r} chose the illegal action {action} for {agent}; legal: "
                f"{_legal_from_mask(mask, start)}"
            )
        return action

    def reset(self, seed: int | None = None) -> None:
        """Between games: ``policy.reset(seed=seed)`` if the policy has one."""
        reset = getattr(self.policy, "reset", None)
        if callable(reset):
            reset(seed=seed)

    def __repr__(self) -> str:
        return f"PolicyAgent({self.name})"


class _SB3Policy:
    """``policy(observation, mask)`` over an SB3 model's ``predict``."""

    def __init__(self, model: Any, deterministic: bool) -> None:
        self.model = model
        self.deterministic = bool(deterministic)
        try:
            parameters = inspect.signature(model.predict).parameters
        except (TypeError, ValueError):
            parameters = {}  # type: ignore[assignment]
        self.masked = "action_masks" in parameters

    def __call__(self, observation: Any, mask: np.ndarray) -> Any:
        if self.masked:
            action, _ = self.model.predict(
                observation, action_masks=mask, deterministic=self.deterministic
            )
        else:
            action, _ = self.model.predict(observation, deterministic=self.deterministic)
        return action

    def reset(self, seed: int | None = None) -> None:
        if seed is not None and not self.deterministic:
            set_seed = getattr(self.model, "set_random_seed", None)
            if callable(set_seed):
                set_seed(seed)
