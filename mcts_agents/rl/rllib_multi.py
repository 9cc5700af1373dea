"""RLlib self-play over our AEC envs (the ``rllib`` extra): ``AECMultiAgentEnv`` and
``MCTSRLModule``.

``AECMultiAgentEnv`` is an RLlib ``MultiAgentEnv`` over one of our PettingZoo AEC envs, turn by
turn: each step has the action of the seat to move and returns the observation of the next seat
to move (every seat's at the end). Which module plays which seat is RLlib's
``policy_mapping_fn``; learned modules read the dict observations of RLlib's action-masking
recipe (``"observations"``, ``"action_mask"``; ``rllib.masked_ppo_spec``).

``MCTSRLModule`` is a fixed (not trained) module that plays ``MCTSAgent``'s move, or any agent
spec's: a search needs the position, not an observation of it, so every observation also holds
``"position"``, a handle of its live env in this process, and the module asks its agent to act
on that env as the arena's loop would. RLlib's env runners compute actions in the process that
holds their envs; a module asked elsewhere (a learner, an inference server) raises. Leave the
module out of ``policies_to_train``.
"""

from __future__ import annotations

import itertools
import os
import weakref
from typing import Any

import numpy as np
from gymnasium import spaces

from mcts_agents.agents.specs import make_agent, make_env, parse_agent_spec
from mcts_agents.errors import InvalidOptionError, OptionTypeError
from mcts_agents.rl.rllib import NEEDS_RLLIB, masked_spaces
from mcts_agents.rl.single_agent import check_unattended
from mcts_agents.seeding import derive_seed

try:
    from ray.rllib.core.columns import Columns
    from ray.rllib.core.rl_module.rl_module import RLModule
    from ray.rllib.env.multi_agent_env import MultiAgentEnv
except ImportError as error:  # pragma: no cover - rllib.py raised already
    from mcts_agents.errors import RayNotInstalledError

    raise RayNotInstalledError(f"{NEEDS_RLLIB} ({error})") from error

__all__ = ["DEFAULT_AGENT", "AECMultiAgentEnv", "MCTSRLModule"]

#: ``MCTSRLModule``'s agent spec where its ``model_config`` names none.
DEFAULT_AGENT = "mcts:iterations=200"
_ENV_KEYS = ("env", "seed")
_SEED_LIMIT = 2**31 - 1
#: The live envs of this process by handle (the pid in the high bits: a handle from another
#: process is known as such).
_LIVE: weakref.WeakValueDictionary[int, AECMultiAgentEnv] = weakref.WeakValueDictionary()
_COUNTER = itertools.count(1)
_HANDLE_BITS = 24
_HANDLE_HIGH = 2**53  # exact as a float too (a pid below 2**29)


def _new_handle() -> int:
    return (os.getpid() << _HANDLE_BITS) | (next(_COUNTER) % (1 << _HANDLE_BITS))


class AECMultiAgentEnv(MultiAgentEnv):
    """One of our AEC envs as an RLlib ``MultiAgentEnv`` (turn-based; see the module).

    ``config`` (RLlib's ``env_config``): ``"env"``, an env spec (``"tic_tac_toe"``,
    ``"connect_four:width=8"``; required) and ``"seed"`` (of the first reset without one).
    Agent ids are the AEC env's seats. Observations: ``{"observations": flat float32,
    "action_mask": float32, "position": int64 handle}``. Rewards are the AEC env's, to every
    seat they are paid to; the episode ends for all seats at once (``"__all__"``), every seat
    then observing the final position.

    Raises:
        InvalidOptionError: a missing env, an unknown key, an env whose seats do not all have
            dict observations with a mask and ``Discrete`` actions; SpecError: a bad env spec.
    """

    def __init__(self, config: Any = None) -> None:
        super().__init__()
        config = dict(config or {})
        unknown = sorted(str(key) for key in config if key not in _ENV_KEYS)
        if unknown or "env" not in config:
            raise InvalidOptionError(
                f"AECMultiAgentEnv's env_config needs 'env' (an env spec such as 'tic_tac_toe') "
                f"and may have 'seed'; got keys {sorted(map(str, config))}"
            )
        self.aec_env = make_env(config["env"])
        self.seed = config.get("seed")
        self.possible_agents = list(self.aec_env.possible_agents)
        self.agents = list(self.possible_agents)
        self._inner: dict[str, spaces.Space[Any]] = {}
        self.observation_spaces, self.action_spaces = {}, {}
        for seat in self.possible_agents:
            space, actions = self.aec_env.observation_space(seat), self.aec_env.action_space(seat)
            if not (isinstance(space, spaces.Dict) and "action_mask" in space.spaces):
                raise InvalidOptionError(
                    f"{config['env']!r}: seat {seat!r} observes {space}; a dict with an "
                    "'observation' and an 'action_mask' is needed"
                )
            masked = masked_spaces(space["observation"], actions).spaces
            position = spaces.Box(0, _HANDLE_HIGH, (1,), np.int64)
            self.observation_spaces[seat] = spaces.Dict({**masked, "position": position})
            self.action_spaces[seat] = actions
        self.handle = _new_handle()
        _LIVE[self.handle] = self
        self.episode = 0  # reset counts up: an agent on this env is reset with each game
        self.agent_seed: int | None = None
        self._rng = np.random.default_rng(self.seed)

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[Any, Any], dict[Any, Any]]:
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        env_seed, agent_seed = (int(x) for x in self._rng.integers(0, _SEED_LIMIT, 2))
        self.aec_env.reset(seed=env_seed)
        self.episode += 1
        self.agent_seed = agent_seed
        self.agents = list(self.possible_agents)
        seat = self.aec_env.agent_selection
        return {seat: self._observe(seat)}, {}

    def step(self, action_dict: Any) -> Any:
        """MultiAgentEnv's step: the seat to move's action in, ``(observations, rewards,
        terminateds, truncateds, infos)`` out, dicts by seat (and ``"__all__"``)."""
        env = self.aec_env
        seat = env.agent_selection
        if seat not in action_dict:
            raise InvalidOptionError(
                f"{seat!r} is to move but action_dict has actions for {sorted(action_dict)}"
            )
        env.step(int(np.asarray(action_dict[seat]).reshape(())))
        rewards = {a: float(r) for a, r in env.rewards.items() if a in self.possible_agents}
        while env.agents and self._finished(env.agent_selection) and not self._over():
            env.step(None)  # a seat whose game ended while the others play on
        if not env.agents or self._over():
            terminated = any(bool(env.terminations.get(a, True)) for a in self.possible_agents)
            observations = {a: self._observe(a) for a in self.possible_agents}
            self.agents = []
            ended = dict.fromkeys(self.possible_agents, True)
            return (
                observations,
                rewards,
                {**ended, "__all__": terminated} if terminated else {"__all__": False},
                {"__all__": False} if terminated else {**ended, "__all__": True},
                {},
            )
        following = env.agent_selection
        return (
            {following: self._observe(following)},
            rewards,
            {"__all__": False},
            {"__all__": False},
            {},
        )

    def _finished(self, seat: Any) -> bool:
        env = self.aec_env
        return bool(env.terminations.get(seat, True) or env.truncations.get(seat, True))

    def _over(self) -> bool:
        return all(self._finished(seat) for seat in self.aec_env.agents)

    def _observe(self, seat: Any) -> dict[str, np.ndarray]:
        observed = self.aec_env.observe(seat)
        return {
            "observations": np.asarray(observed["observation"], np.float32).reshape(-1),
            "action_mask": np.asarray(observed["action_mask"], np.float32),
            "position": np.array([self.handle], np.int64),
        }

    def close(self) -> None:
        _LIVE.pop(self.handle, None)
        self.aec_env.close()


def _live_env(handle: int) -> AECMultiAgentEnv:
    env = _LIVE.get(handle)
    if env is None:
        where = handle >> _HANDLE_BITS
        elsewhere = where != os.getpid()
        raise InvalidOptionError(
            f"MCTSRLModule got position {handle}, "
            + (
                f"an env of process {where}, not of this one ({os.getpid()}): the module "
                "acts only in the env runner that holds the env (leave it out of "
                "policies_to_train)"
                if elsewhere
                else "of no live AECMultiAgentEnv (closed?)"
            )
        )
    return env


class MCTSRLModule(RLModule):
    """A fixed RLModule that plays an agent spec's move (``model_config={"agent":
    "mcts:iterations=200"}``, the default) on ``AECMultiAgentEnv``'s live env (see the
    module): one agent per env, reset with each of its games (seeded by the env's draw).

    Raises (building it): SpecError for a bad spec, InvalidOptionError for an agent that needs
    a person (``human``); ``forward_train``: NotImplementedError (it does not learn).
    """

    def setup(self) -> None:
        config = self.model_config  # RLlib adds its defaults' keys: only "agent" counts
        spec = config.get("agent", DEFAULT_AGENT) if isinstance(config, dict) else DEFAULT_AGENT
        if not isinstance(spec, str):
            raise OptionTypeError(f"model_config['agent'] must be an agent spec, got {spec!r}")
        self.spec: str = spec
        parse_agent_spec(self.spec)
        check_unattended(make_agent(self.spec))
        self._agents: weakref.WeakKeyDictionary[AECMultiAgentEnv, list[Any]] = (
            weakref.WeakKeyDictionary()
        )

    def _act(self, handle: int) -> int:
        env = _live_env(handle)
        entry = self._agents.get(env)
        if entry is None:
            entry = self._agents[env] = [make_agent(self.spec), 0]
        agent, episode = entry
        if episode != env.episode:
            seed = None if env.agent_seed is None else derive_seed(env.agent_seed, 1)
            agent.reset(seed=seed)
            entry[1] = env.episode
        return int(agent.act(env.aec_env))

    def _forward_inference(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        positions = np.asarray(batch[Columns.OBS]["position"]).reshape(-1)
        return {Columns.ACTIONS: np.array([self._act(int(p)) for p in positions], np.int64)}

    def _forward_exploration(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        return self._forward_inference(batch, **kwargs)

    def _forward_train(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        raise NotImplementedError(
            "MCTSRLModule does not learn: leave it out of config.multi_agent(policies_to_train=...)"
        )
