"""RLlib's routes (the ``rllib`` extra): our envs as RLlib envs on its new API stack.

Importing this module imports Ray's RLlib (a ``RayNotInstalledError`` naming the extra where it
is missing) and registers every ``mcts_agents/<variant>-vs-agent-v0`` id with Ray Tune's env
registry (``register_rllib_envs``), so that::

    PPOConfig().environment("mcts_agents/tic_tac_toe-vs-agent-v0",
                            env_config={"opponent": "mcts:iterations=2"})

trains against our opponents. The env RLlib builds from such an id is the Gymnasium id's env
(``registration.make_vs_agent``; ``env_config`` holds its keywords) with its observations as
RLlib's action-masking recipe reads them: a dict ``{"observations": <the observation, flat,
float32>, "action_mask": <1.0 where legal, float32>}`` (``MaskedObservations``). With
``gym_env_vectorize_mode="vector_entry_point"`` RLlib builds the ids' native vector env instead
(``vector.VectorVsOpponent``: one batched opponent search per step), masked the same way.
``masked_ppo_spec`` is the ``RLModuleSpec`` of RLlib's action-masking PPO module, which reads
that dict. ``LearnerOutcomes`` logs the learner's win, draw and loss counts per iteration.

The multi-agent side (self-play over our AEC envs, our MCTS as a fixed policy) is in
``rl.rllib_multi``.

Ray's env registry lives in the running Ray instance: ids registered before ``ray.init`` are
sent to it as it starts; a process that starts Ray again calls ``register_rllib_envs()`` again
after its ``ray.init``. The workers (env runners) import ``mcts_agents``: on a cluster every
node needs it installed.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from mcts_agents import _lazy
from mcts_agents.errors import InvalidOptionError, OptionTypeError, RayNotInstalledError

NEEDS_RLLIB = (
    'mcts_agents.rl.rllib needs Ray\'s RLlib and torch: pip install ".[rllib]" '
    "(on a CPU-only machine install torch's CPU wheel first)"
)

try:
    from ray.rllib.callbacks.callbacks import RLlibCallback
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.tune.registry import _global_registry, register_env
except ImportError as error:  # Ray without RLlib's own dependencies fails here too
    raise RayNotInstalledError(f"{NEEDS_RLLIB} ({error})") from error

__all__ = [
    "NEEDS_RLLIB",
    "SINGLE_AGENT_KEYS",
    "LearnerOutcomes",
    "MaskedObservations",
    "VectorMaskedObservations",
    "make_rllib_env",
    "masked_ppo_spec",
    "masked_spaces",
    "register_rllib_envs",
]

#: The ``env_config`` keys of an ``mcts_agents/<variant>-vs-agent-v0`` id (``make_vs_agent``'s
#: keywords; ``num_envs``, which RLlib adds in ``vector_entry_point`` mode, and ``fast_path``
#: are the vector env's).
SINGLE_AGENT_KEYS = (
    "opponent",
    "learner",
    "seed",
    "illegal_action",
    "illegal_reward",
    "render_mode",
)
_VECTOR_KEYS = ("num_envs", "fast_path")


def masked_spaces(observation: spaces.Space[Any], actions: spaces.Space[Any]) -> spaces.Dict:
    """The dict space of RLlib's action-masking recipe for an env whose observations are in
    ``observation`` (a ``Box``) and actions in ``actions``: ``{"observations": the Box
    flattened, float32; "action_mask": Box(0, 1, (n,), float32)}``."""
    flat = spaces.flatten_space(observation) if isinstance(observation, spaces.Box) else None
    if not isinstance(flat, spaces.Box):
        raise OptionTypeError(
            f"masked observations need a Box observation space, got {observation}"
        )
    if not isinstance(actions, spaces.Discrete):
        raise OptionTypeError(f"masked observations need a Discrete action space, got {actions}")
    return spaces.Dict(
        {
            "observations": spaces.Box(
                flat.low.astype(np.float32), flat.high.astype(np.float32), dtype=np.float32
            ),
            "action_mask": spaces.Box(0.0, 1.0, (int(actions.n),), np.float32),
        }
    )


def _masked(observation: Any, mask: Any) -> dict[str, np.ndarray]:
    return {
        "observations": np.asarray(observation, dtype=np.float32).reshape(-1),
        "action_mask": np.asarray(mask, dtype=np.float32),
    }


class MaskedObservations(gymnasium.ObservationWrapper[Any, Any, Any]):
    """A single-agent env with ``action_masks()`` (``SingleAgentVsOpponent``, or any env with
    sb3-contrib's masking method) whose observations are the dict of RLlib's action-masking
    recipe (``masked_spaces``); actions, rewards and infos are the env's."""

    def __init__(self, env: gymnasium.Env[Any, Any]) -> None:
        if not callable(getattr(env.unwrapped, "action_masks", None)):
            raise OptionTypeError(
                f"MaskedObservations needs an env with action_masks() (sb3-contrib's masking "
                f"method), got {env!r}"
            )
        super().__init__(env)
        self.observation_space = masked_spaces(env.observation_space, env.action_space)

    def observation(self, observation: Any) -> dict[str, np.ndarray]:
        env: Any = self.env.unwrapped  # has action_masks() (checked when wrapped)
        return _masked(observation, env.action_masks())


class VectorMaskedObservations(gymnasium.vector.VectorObservationWrapper):
    """``MaskedObservations`` for a vector env with ``action_masks()`` (``[N, A]``: the ids'
    ``VectorVsOpponent``): each observation row with its mask."""

    def __init__(self, env: gymnasium.vector.VectorEnv[Any, Any, Any]) -> None:
        if not callable(getattr(env, "action_masks", None)):
            raise OptionTypeError(
                f"VectorMaskedObservations needs a vector env with action_masks(), got {env!r}"
            )
        super().__init__(env)
        self.single_observation_space = masked_spaces(
            env.single_observation_space, env.single_action_space
        )
        self.observation_space = gymnasium.vector.utils.batch_space(
            self.single_observation_space, env.num_envs
        )

    def observations(self, observations: Any) -> Any:  # a dict of rows (ObsType differs by version)
        env: Any = self.env  # has action_masks() (checked when wrapped)
        masks = env.action_masks()
        rows = np.asarray(observations, dtype=np.float32).reshape(self.env.num_envs, -1)
        return {"observations": rows, "action_mask": np.asarray(masks, dtype=np.float32)}


def make_rllib_env(variant: str, env_config: Mapping[str, Any] | None = None) -> Any:
    """The env RLlib builds for ``mcts_agents/<variant>-vs-agent-v0``: ``make_vs_agent(variant,
    **env_config)`` in ``MaskedObservations``, or, where RLlib passes ``num_envs``
    (``gym_env_vectorize_mode="vector_entry_point"``), the id's ``VectorVsOpponent`` of that
    many games in ``VectorMaskedObservations``.

    Raises:
        InvalidOptionError: an ``env_config`` key that is not one of ``SINGLE_AGENT_KEYS`` (or
            the vector env's ``num_envs`` and ``fast_path``), naming it; the envs' own errors
            for bad values (a bad opponent spec: ``SpecError``).
    """
    config = dict(env_config or {})
    unknown = sorted(str(key) for key in config if key not in (*SINGLE_AGENT_KEYS, *_VECTOR_KEYS))
    if unknown:
        raise InvalidOptionError(
            f"env_config of {_lazy.gym_id(variant)!r} has unknown key(s) {unknown}; expected "
            f"some of {[*SINGLE_AGENT_KEYS, *_VECTOR_KEYS]}"
        )
    if "num_envs" in config:
        from mcts_agents.rl.vector import VectorVsOpponent

        num_envs = config.pop("num_envs")
        return VectorMaskedObservations(VectorVsOpponent(num_envs, variant, **config))
    if "fast_path" in config:
        raise InvalidOptionError(
            "env_config key 'fast_path' is the vector env's: set "
            "config.env_runners(gym_env_vectorize_mode='vector_entry_point') to use it"
        )
    from mcts_agents.rl.registration import make_vs_agent

    return MaskedObservations(make_vs_agent(variant, **config))


def register_rllib_envs() -> list[str]:
    """Register every ``mcts_agents/<variant>-vs-agent-v0`` id with Ray Tune's env registry
    (``make_rllib_env``); returns the ids. Importing this module does it; call it again after
    a second ``ray.init`` in one process (Ray's registry keeps the first instance's job)."""
    _forget_stale_job()
    ids = []
    for variant in _lazy.gym_variants():
        env_id = _lazy.gym_id(variant)
        register_env(env_id, functools.partial(make_rllib_env, variant))
        ids.append(env_id)
    return ids


def _forget_stale_job() -> None:
    """Ray Tune's registry keys its entries by the job it first saw and keeps it across
    ``ray.shutdown``: after a new ``ray.init`` it would write where the new job's workers do
    not look. Forget a job that is not the running one."""
    import ray

    cached = getattr(_global_registry, "_prefix", None)
    running = ray.get_runtime_context().get_job_id() if ray.is_initialized() else None
    if cached is not None and running is not None and cached != running:
        _global_registry._prefix = None


def masked_ppo_spec(model_config: Mapping[str, Any] | None = None) -> Any:
    """The ``RLModuleSpec`` of RLlib's action-masking PPO module (``ActionMaskingTorchRLModule``
    of its examples: logits of illegal actions pushed to the float minimum), which reads the
    dict observations of ``MaskedObservations``; ``model_config`` is its (e.g.
    ``{"fcnet_hiddens": [64, 64]}``)."""
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import (
        ActionMaskingTorchRLModule,
    )

    return RLModuleSpec(
        module_class=ActionMaskingTorchRLModule, model_config=dict(model_config or {})
    )


class LearnerOutcomes(RLlibCallback):
    """Counts every finished single-agent episode by the learner's return (above 0: a win, 0:
    a draw, below: a loss) into the env runners' metrics, summed per iteration:
    ``result["env_runners"]["learner_wins"]``, ``"learner_draws"``, ``"learner_losses"``;
    ``win_rate(result)`` reads them back."""

    KEYS = ("learner_wins", "learner_draws", "learner_losses")

    def on_episode_end(self, *, episode: Any, metrics_logger: Any = None, **kwargs: Any) -> None:
        if metrics_logger is None:
            return
        value = float(episode.get_return())
        outcome = 0 if value > 0 else 1 if value == 0 else 2
        for index, key in enumerate(self.KEYS):
            metrics_logger.log_value(key, int(index == outcome), reduce="sum")

    @classmethod
    def win_rate(cls, result: Mapping[str, Any]) -> tuple[float, int]:
        """``(wins / episodes, episodes)`` of one training iteration's ``result``."""
        runners = result.get("env_runners", {})
        counts = [float(runners.get(key, 0.0)) for key in cls.KEYS]
        episodes = round(sum(counts))
        return (counts[0] / episodes if episodes else 0.0), episodes


register_rllib_envs()
