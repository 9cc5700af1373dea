"""``SB3VecEnv``: the native vector env (``rl.vector``) as a Stable-Baselines3 ``VecEnv``.

Stable-Baselines3 and sb3-contrib train on their own ``VecEnv`` API (``step_async``/
``step_wait``, a list of infos, reset at once with ``info["terminal_observation"]``), not on
``gymnasium.vector``. ``SB3VecEnv`` adapts a ``VectorVsOpponent`` in ``SAME_STEP`` autoreset
mode (the vector env ``sb3_vec_env`` builds), so ``MaskablePPO("MlpPolicy", env)`` trains
directly on N games whose opponents search in one batch; sb3-contrib reads the masks through
``env_method("action_masks")``. This module imports Stable-Baselines3: import it only with the
``rl`` extra installed (``mcts_agents.rl`` does not import it).

What ``gymnasium.make_vec`` builds for our ids is that vector env, so it plugs into SB3 through
``SB3VecEnv`` when made in SB3's autoreset mode (SB3 cannot take a ``gymnasium.vector`` env
itself)::

    SB3VecEnv(gymnasium.make_vec(id, num_envs=8, autoreset_mode="SameStep", opponent=...))
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium.vector import AutoresetMode
from stable_baselines3.common.vec_env import VecEnv

from mcts_agents.errors import InvalidOptionError, OptionTypeError
from mcts_agents.rl.vector import VectorVsOpponent

__all__ = ["SB3VecEnv", "sb3_vec_env"]


class SB3VecEnv(VecEnv):
    """A ``VectorVsOpponent`` (``autoreset_mode=SAME_STEP``) as an SB3 ``VecEnv``.

    ``seed(s)`` then ``reset()`` seeds sub-env ``i`` with ``s + i``, as the vector env's
    ``reset(seed=s)`` does. ``get_attr``, ``set_attr`` and ``env_method`` reach the sub-envs
    (``SingleAgentVsOpponent`` s: ``env_method("set_opponent", spec)`` changes an opponent
    from its next episode on).

    Raises:
        OptionTypeError: not a ``VectorVsOpponent`` (what ``gymnasium.make_vec`` gives for an
            ``mcts_agents/...`` id); InvalidOptionError: one in another autoreset mode.
    """

    def __init__(self, env: VectorVsOpponent) -> None:
        if not isinstance(env, VectorVsOpponent):
            raise OptionTypeError(
                f"SB3VecEnv adapts a VectorVsOpponent (gymnasium.make_vec of an "
                f"mcts_agents/<env>-vs-agent-v0 id, or sb3_vec_env(n, env)), got {env!r}"
            )
        if env.autoreset_mode != AutoresetMode.SAME_STEP:
            raise InvalidOptionError(
                f"Stable-Baselines3 resets a finished game in the same step; build the vector "
                f"env with autoreset_mode=AutoresetMode.SAME_STEP (gymnasium.make_vec(id, "
                f'num_envs=N, autoreset_mode="SameStep", ...) or sb3_vec_env(N, env, ...)), '
                f"got {env.autoreset_mode}"
            )
        self.env = env
        super().__init__(env.num_envs, env.single_observation_space, env.single_action_space)
        self.metadata = env.metadata
        self.render_mode = env.render_mode
        self._actions: np.ndarray | None = None

    def reset(self) -> Any:
        seeds = list(self._seeds)
        seed = None if all(s is None for s in seeds) else seeds
        options = self._options[0] if self._options and self._options[0] else None
        observations, infos = self.env.reset(seed=seed, options=options)
        self.reset_infos = [self._info(infos, i) for i in range(self.num_envs)]
        self._reset_seeds()
        self._reset_options()
        return observations

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions).reshape(self.num_envs)

    def step_wait(self) -> Any:
        if self._actions is None:
            raise InvalidOptionError("step_wait() needs a step_async(actions) first")
        observations, rewards, terminated, truncated, infos = self.env.step(self._actions)
        self._actions = None
        dones = terminated | truncated
        listed = []
        for i in range(self.num_envs):
            info = self._info(infos, i)
            info["TimeLimit.truncated"] = bool(truncated[i] and not terminated[i])
            if dones[i]:
                info["terminal_observation"] = infos["final_obs"][i]
            listed.append(info)
        return observations, rewards.astype(np.float32), dones, listed

    def close(self) -> None:
        self.env.close()

    def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
        return [getattr(self.env.envs[i], attr_name) for i in self._get_indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        for i in self._get_indices(indices):
            setattr(self.env.envs[i], attr_name, value)

    def env_method(
        self, method_name: str, *method_args: Any, indices: Any = None, **method_kwargs: Any
    ) -> list[Any]:
        if method_name == "action_masks" and not method_args and not method_kwargs:
            # sb3-contrib asks at every step: the vector env's masks, no AEC env read
            masks = self.env.action_masks()
            return [masks[i] for i in self._get_indices(indices)]
        return [
            getattr(self.env.envs[i], method_name)(*method_args, **method_kwargs)
            for i in self._get_indices(indices)
        ]

    def env_is_wrapped(self, wrapper_class: type, indices: Any = None) -> list[bool]:
        return [False for _ in self._get_indices(indices)]  # the sub-envs are not wrapped

    def get_images(self) -> Sequence[np.ndarray | None]:
        return [self.env.render() if i == 0 else None for i in range(self.num_envs)]

    def action_masks(self) -> np.ndarray:
        """``[N, A]`` bool: every sub-env's legal actions."""
        return self.env.action_masks()

    @staticmethod
    def _info(infos: dict[str, Any], i: int) -> dict[str, Any]:
        info: dict[str, Any] = {"learner": infos["learner"][i]}
        if "_illegal_action" in infos and infos["_illegal_action"][i]:
            info["illegal_action"] = int(infos["illegal_action"][i])
        return info


def sb3_vec_env(num_envs: int, env: str = "connect_four", **kwargs: Any) -> SB3VecEnv:
    """``num_envs`` games of ``env`` for Stable-Baselines3: a ``VectorVsOpponent`` in
    ``SAME_STEP`` mode (the other keywords are its constructor's) as an ``SB3VecEnv``."""
    vector = VectorVsOpponent(num_envs, env, autoreset_mode=AutoresetMode.SAME_STEP, **kwargs)
    return SB3VecEnv(vector)
