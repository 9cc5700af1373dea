"""Random legal play through a vector env, for tests that compare two runs' observations."""

from __future__ import annotations

from typing import Any

import numpy as np


def random_play(env: Any, steps: int, seed: int) -> list[Any]:
    """Reset ``env`` and play ``steps`` steps of random legal actions (seeded ``seed``); the
    observations after the reset and after every step, with each step's rewards and ends."""
    observations, _ = env.reset()
    rng = np.random.default_rng(seed)
    found = [observations]
    for _ in range(steps):
        masks = env.action_masks()
        actions = [int(rng.choice(np.flatnonzero(m))) if m.any() else 0 for m in masks]
        observations, rewards, terminated, _, _ = env.step(np.array(actions))
        found += [observations, rewards, terminated]
    return found
