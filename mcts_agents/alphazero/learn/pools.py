"""Where the training loop's games run: worker processes (``process_pool.spawn_pool``: bounded,
ending with the process that trains), Ray tasks, or here.

Each worker runs torch on one thread (one process per core; torch's own threads would fight
them). A pool never has more processes than the largest batch of games it is given at once
(an iteration's self-play games, the gate's or the Elo rating's pairs): more would only idle.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

import torch

from mcts_agents.alphazero.learn.run_config import RunConfig
from mcts_agents.processes import spawn_pool
from mcts_agents.ray_cluster import ray_session

__all__ = ["open_pool", "pool_size"]


def _init_worker() -> None:
    torch.set_num_threads(1)  # one process per core; torch's own threads would fight them


def _on_one_thread(task: tuple[Callable[[Any], Any], Any]) -> Any:
    """A Ray task: ``function(argument)`` with torch on one thread (a task per CPU)."""
    function, argument = task
    _init_worker()
    return function(argument)


class _RayPool:
    """``map`` over Ray tasks (one CPU each), in order: the worker pool of ``backend="ray"``."""

    def __init__(self, ray: Any) -> None:
        self.ray = ray
        self.remote = ray.remote(num_cpus=1)(_on_one_thread)

    def map(self, function: Callable[[Any], Any], tasks: list[Any]) -> list[Any]:
        refs = [self.remote.remote((function, task)) for task in tasks]
        try:
            return list(self.ray.get(refs))
        except BaseException:
            for ref in refs:
                self.ray.cancel(ref, force=True)
            raise


def pool_size(config: RunConfig) -> int:
    """Worker processes for ``config``: its ``workers``, but no more than the largest batch of
    games the loop hands the pool at once."""
    largest = max(
        config.games_per_iteration,
        config.gate_games // 2 if config.gate_every else 0,
        config.elo_games // 2,
    )
    return max(1, min(config.workers, largest))


def open_pool(
    stack: contextlib.ExitStack, backend: str, address: str | None, config: RunConfig
) -> Any:
    """The loop's pool (an object with ``map``), closed by ``stack``: Ray tasks for
    ``backend="ray"``, ``pool_size(config)`` processes when that is more than 1, else
    ``None`` (games here)."""
    if backend == "ray":
        return _RayPool(stack.enter_context(ray_session(address)))
    workers = pool_size(config)
    if workers <= 1:
        return None
    pool = spawn_pool(workers, _init_worker)
    stack.callback(pool.join)
    stack.callback(pool.terminate)
    return pool
