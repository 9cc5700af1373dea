"""Module-level (picklable) agents and factories for the arena's worker-process tests."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path
from typing import Any

from mcts_agents import RandomAgent


class SlowRandom(RandomAgent):
    """A random agent that takes ``delay`` seconds per move (games that last)."""

    def __init__(self, delay: float) -> None:
        super().__init__()
        self.delay = delay

    def act(self, env: Any) -> int:
        time.sleep(self.delay)
        return super().act(env)


class PidReporter:
    """Builds slow random agents; each call appends the calling process's pid to ``path``, so a
    test knows the arena's worker processes."""

    name = "slow"

    def __init__(self, path: str, delay: float = 0.05) -> None:
        self.path = path
        self.delay = delay

    def __call__(self) -> SlowRandom:
        with Path(self.path).open("a") as handle:
            handle.write(f"{os.getpid()}\n")
        return SlowRandom(self.delay)


class Mortal(RandomAgent):
    """A random agent whose process dies (SIGKILL, as the out-of-memory killer does) at its
    first move when it was reset with ``fatal_seed``."""

    def __init__(self, fatal_seed: int | None) -> None:
        super().__init__()
        self.fatal_seed = fatal_seed

    def act(self, env: Any) -> int:
        if self.fatal_seed is not None and self.seed == self.fatal_seed:
            os.kill(os.getpid(), signal.SIGKILL)
        return super().act(env)


class MortalFactory:
    """Builds ``Mortal`` agents: the one reset with ``fatal_seed`` kills its worker."""

    name = "mortal"

    def __init__(self, fatal_seed: int | None = None) -> None:
        self.fatal_seed = fatal_seed

    def __call__(self) -> Mortal:
        return Mortal(self.fatal_seed)
