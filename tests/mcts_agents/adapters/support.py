"""Shared by the adapter and cloning tests: fingerprints, side-by-side comparisons, classic envs.

``fingerprint`` captures everything reachable from an env, identities included, so a test can
prove a live env is left bit for bit as it was; ``Pile`` is a toy AEC env the toy-env tests
subclass.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")  # pygame surfaces without a screen


def classic_env_fn(name: str) -> Callable[..., Any]:
    """``pettingzoo.classic.<name>.env``; needs pygame-ce (the `test` extra installs it)."""
    return importlib.import_module(f"pettingzoo.classic.{name}").env


# --------------------------------------------------------------------------- helpers
def fingerprint(obj: Any, seen: set[int] | None = None) -> Any:
    """Everything reachable from ``obj``, with object identities, built without copying.

    Arrays by dtype, shape and bytes; random generators by state; pygame surfaces by pixels;
    objects by their ``__dict__``; every mutable object with its ``id`` so that rebinding an
    attribute to an equal new object shows too.
    """
    seen = set() if seen is None else seen
    if isinstance(obj, (type(None), bool, int, float, str, bytes, np.generic)):
        return obj
    ident = id(obj)
    if ident in seen:
        return ("seen", ident)
    seen.add(ident)
    name = type(obj).__name__
    if isinstance(obj, np.ndarray):
        return (name, ident, obj.dtype.str, obj.shape, obj.tobytes())
    if isinstance(obj, np.random.Generator):
        return (name, ident, repr(obj.bit_generator.state))
    if type(obj).__module__.startswith("pygame"):
        import pygame

        if isinstance(obj, pygame.Surface):
            return (name, ident, obj.get_size(), pygame.image.tobytes(obj, "RGB"))
        return (name, ident)
    if isinstance(obj, dict):
        return (name, ident, tuple((k, fingerprint(v, seen)) for k, v in obj.items()))
    if isinstance(obj, (list, tuple, set, frozenset)):
        return (name, ident, tuple(fingerprint(v, seen) for v in obj))
    if "pyspiel" in type(obj).__module__:  # OpenSpiel states and games: by text and history
        return (name, ident, str(obj), repr(getattr(obj, "history", lambda: None)()))
    if hasattr(obj, "__dict__") and not callable(obj):
        return (name, ident, fingerprint(vars(obj), seen))
    return (name, ident, repr(obj))


def observations(env: Any) -> list[Any]:
    return [env.observe(agent) for agent in env.agents]


def same(a: Any, b: Any) -> bool:
    if isinstance(a, dict):
        return isinstance(b, dict) and list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(same(u, v) for u, v in zip(a, b, strict=True))
    if isinstance(a, np.ndarray):
        return isinstance(b, np.ndarray) and a.dtype == b.dtype and np.array_equal(a, b)
    return bool(a == b)


def mask_actions(env: Any) -> list[int]:
    agent = env.agent_selection
    observation = env.observe(agent)
    if isinstance(observation, dict) and "action_mask" in observation:
        return np.flatnonzero(observation["action_mask"]).tolist()
    return np.flatnonzero(env.infos[agent]["action_mask"]).tolist()


def is_over(env: Any) -> bool:
    agent = env.agent_selection
    return not env.agents or env.terminations[agent] or env.truncations[agent]


def adapted_root(
    env: Any, kind: type, search: bool, iterations: int = 2, seed: int = 0
) -> tuple[Any, Any, list[int]]:
    """``(game, root, legal actions)`` of the adapter for the live ``env``, checked against it
    (an instance of ``kind``, cyclic, the env's legal actions and mover, not over); with
    ``search``, an ``MCTSAgent`` search first, which must leave the env bit for bit as it was."""
    from mcts_agents import MCTSAgent
    from mcts_agents.adapters import game_from_env

    legal = mask_actions(env)  # observing first (TerminateIllegal keeps the observation)
    before = fingerprint(env) if search else None
    game, root = game_from_env(env)
    if before is not None:
        MCTSAgent(iterations=iterations, seed=seed).search(env)
        assert fingerprint(env) == before  # the live env is left as it was
    assert isinstance(game, kind) and not game.acyclic
    assert game.legal_actions(root) == legal
    assert game.to_play(root) == env.possible_agents.index(env.agent_selection)
    assert not game.is_terminal(root)
    return game, root, legal


def new_classic(name: str, render_mode: str | None = None, seed: int = 0) -> Any:
    env = classic_env_fn(name)(render_mode=render_mode)
    env.reset(seed=seed)
    return env


# --------------------------------------------------------------------------- a toy AEC env
class Pile(AECEnv[str, dict[str, np.ndarray], int]):
    """Two players take 1 or 2 stones in turn from a pile; who takes the last one wins."""

    metadata = {"name": "pile_v0", "render_modes": [], "is_parallelizable": False}

    def __init__(self, stones: int = 7, mask_in: str = "observation") -> None:
        super().__init__()
        self.stones0 = stones
        self.mask_in = mask_in
        self.possible_agents = ["a", "b"]
        self.action_spaces = {a: spaces.Discrete(2) for a in self.possible_agents}
        self.observation_spaces = {
            a: spaces.Box(0, 100, shape=(1,), dtype=np.int64) for a in self.possible_agents
        }

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        self.stones = self.stones0
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self.agent_selection = "a"
        self._set_masks()

    def _mask(self, agent: str) -> np.ndarray:
        legal = agent == self.agent_selection and not self.terminations[agent]
        return np.array([legal and self.stones >= 1, legal and self.stones >= 2], dtype=np.int8)

    def _set_masks(self) -> None:
        if self.mask_in == "info":
            for agent in self.agents:
                self.infos[agent] = {"action_mask": self._mask(agent)}

    def observe(self, agent: str) -> Any:
        pile = np.array([self.stones], dtype=np.int64)
        if self.mask_in == "observation":
            return {"observation": pile, "action_mask": self._mask(agent)}
        return pile

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0.0
        self.stones -= int(action) + 1  # type: ignore[arg-type]
        other = "b" if agent == "a" else "a"
        self.rewards = dict.fromkeys(self.agents, 0.0)
        if self.stones <= 0:
            self.rewards = {agent: 1.0, other: -1.0}
            self.terminations = dict.fromkeys(self.agents, True)
        self.agent_selection = other
        self._set_masks()
        self._accumulate_rewards()
