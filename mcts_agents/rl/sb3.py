"""``SB3Evaluator``: a trained Stable-Baselines3 / sb3-contrib policy as the search's batch
evaluator, so that an RL agent trained against MCTS (``SingleAgentVsOpponent``) can guide a
PUCT search (``PUCTAgent``, or ``SearchConfig(selection="puct", evaluator=...)``).

Observations: the search shows an evaluator ``game.observation(state, mover)``, the planes of
the player to move. ``SingleAgentVsOpponent`` gives its learner ``env.observe(seat)
["observation"]`` at the learner's turns, and this library's envs observe exactly
``game.observation(state, player)`` of that seat's player (``BoardGameEnv.observe``): the same
planes, from the same (the mover's) view, with the same legal mask. So a policy trained on the
RL wrapper over our envs takes the search's observations as they are. (Someone else's env may
observe other planes than the rules core our adapter reads it into; such a policy needs an
evaluator of its own.) Train with ``learner="random"`` so that the policy sees both seats'
positions.

Priors: the policy's action probabilities, masked (sb3-contrib's maskable policies get the
legal mask; a plain policy's mass on illegal moves is dropped and the rest renormalised).

Values: our values are the mover's expected return in [-1, 1]; the value head estimates the
learner's discounted return in reward units. With this library's board games a win pays 1, a
loss -1 and a draw 0, so the estimates are already on our scale (discounting only shrinks
them); ``value_scale`` divides them for games that pay more (chips, points), and the result is
clipped to [-1, 1]. Policies trained briefly have poor value heads: the priors then carry the
search.

Stable-Baselines3 and torch are imported only when a model is loaded or evaluated.
"""

from __future__ import annotations

import inspect
import math
import os
from typing import Any

import numpy as np

from mcts_agents.errors import InvalidOptionError, TorchNotInstalledError
from mcts_agents.evaluators import check_batch_inputs

__all__ = ["SB3Evaluator", "load_sb3"]

RL_HINT = 'pip install "mcts-agents[rl]" (sb3-contrib, which brings Stable-Baselines3 and torch)'


class SB3Evaluator:
    """A Stable-Baselines3 actor-critic policy as a ``BatchEvaluator`` (see the module).

    Args:
        model: a trained model (``MaskablePPO``, ``PPO``, ``A2C``: anything whose ``policy``
            has ``get_distribution`` and ``predict_values``) or such a policy itself, with a
            ``Discrete`` action space.
        value_scale: the games' largest return; value estimates are divided by it, then clipped
            to [-1, 1] (1 for games that pay +-1).

    Attributes:
        observation_shape: the policy's observation shape.
        num_actions: its number of actions.
    """

    def __init__(self, model: Any, value_scale: float = 1.0) -> None:
        policy = getattr(model, "policy", model)
        for method in ("get_distribution", "predict_values", "obs_to_tensor"):
            if not callable(getattr(policy, method, None)):
                raise TypeError(
                    f"SB3Evaluator needs a Stable-Baselines3 actor-critic model or policy (with "
                    f"policy.{method}); got {type(model).__name__}"
                )
        actions = getattr(getattr(policy, "action_space", None), "n", None)
        if actions is None:
            raise InvalidOptionError(
                f"SB3Evaluator needs a Discrete action space; the policy has "
                f"{getattr(policy, 'action_space', None)}"
            )
        if (
            isinstance(value_scale, bool)
            or not isinstance(value_scale, (int, float))
            or not math.isfinite(value_scale)
            or value_scale <= 0
        ):
            raise InvalidOptionError(
                f"value_scale must be a positive number (the games' largest return), got "
                f"{value_scale!r}"
            )
        self.model = model
        self.policy = policy
        self.value_scale = float(value_scale)
        self.observation_shape: tuple[int, ...] = tuple(policy.observation_space.shape)
        self.num_actions = int(actions)
        try:
            parameters = inspect.signature(policy.get_distribution).parameters
        except (TypeError, ValueError):  # pragma: no cover - SB3's methods have signatures
            parameters = {}  # type: ignore[assignment]
        self.masked = "action_masks" in parameters
        self.__qualname__ = f"SB3Evaluator({type(model).__name__})"

    def evaluate_batch(
        self, observations: np.ndarray, legal_masks: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """Priors ``[B, num_actions]`` (0 on illegal moves) and values ``[B]`` in [-1, 1].

        Raises:
            InvalidOptionError: observations not of the policy's shape, or masks not ``[B,
                num_actions]``.
        """
        import torch

        observations, masks = check_batch_inputs(
            observations, legal_masks, self.observation_shape, self.num_actions, "this policy"
        )
        policy = self.policy
        policy.set_training_mode(False)
        with torch.no_grad():
            tensor, _ = policy.obs_to_tensor(observations)
            if self.masked:
                distribution = policy.get_distribution(tensor, action_masks=masks)
            else:
                distribution = policy.get_distribution(tensor)
            probabilities = distribution.distribution.probs
            values = policy.predict_values(tensor).reshape(-1)
        priors = np.where(masks, probabilities.cpu().numpy().astype(np.float64), 0.0)
        mass = priors.sum(axis=1, keepdims=True)
        priors = np.divide(priors, mass, out=np.zeros_like(priors), where=mass > 0)
        scaled = values.cpu().numpy().astype(np.float64) / self.value_scale
        return priors, np.clip(scaled, -1.0, 1.0)

    def __repr__(self) -> str:
        return (
            f"SB3Evaluator({type(self.model).__name__}, observations {self.observation_shape}, "
            f"{self.num_actions} actions, value_scale={self.value_scale})"
        )


def load_sb3(path: str | os.PathLike[str], device: str | None = None) -> SB3Evaluator:
    """An ``SB3Evaluator`` over the sb3-contrib ``MaskablePPO`` model saved at ``path`` (a
    ``.zip`` of ``model.save``), on ``device`` (``None``: SB3's ``"auto"``).

    Raises:
        TorchNotInstalledError: sb3-contrib (or torch) is not installed.
        InvalidOptionError: the file is not a MaskablePPO model.
    """
    try:
        from sb3_contrib import MaskablePPO
    except ImportError:
        raise TorchNotInstalledError(
            f"model {str(path)!r} is a Stable-Baselines3 model, which needs sb3-contrib: {RL_HINT}"
        ) from None
    if device is not None:
        from mcts_agents.az.evaluator import resolve_device

        resolve_device(device)  # SB3 itself falls back to the CPU without a word
    try:
        model = MaskablePPO.load(str(path), device="auto" if device is None else device)
    except Exception as error:  # someone else's loader: any failure is a bad file
        raise InvalidOptionError(
            f"{str(path)!r} is not a MaskablePPO model ({type(error).__name__}: {error})"
        ) from None
    return SB3Evaluator(model)
