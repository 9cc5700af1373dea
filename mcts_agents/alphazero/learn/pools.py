"""Where the training loop's games run: a ``processes.open_pool`` pool of worker processes
(``spawn``: bounded, ending with the process that trains, whatever ends it), of Ray tasks, or
here (``local``).

Each worker runs torch on one thread (one process per core; torch's own threads would fight
them). A pool never has more processes than the largest batch of games it is given at once
(an iteration's self-play games, the gate's or the Elo rating's pairs): more would only idle.
"""

from __future__ import annotations

import contextlib
from typing import Any

import torch

from mcts_agents.alphazero.learn.run_config import RunConfig
from mcts_agents.processes import Pool, check_picklable, open_pool

__all__ = ["check_pool_game", "open_loop_pool", "pool_size"]


def _init_worker() -> None:
    torch.set_num_threads(1)  # one process per core; torch's own threads would fight them


def pool_size(config: RunConfig) -> int:
    """Worker processes for ``config``: its ``workers``, but no more than the largest batch of
    games the loop hands the pool at once."""
    largest = max(
        config.games_per_iteration,
        config.gate_games // 2 if config.gate_every else 0,
        config.elo_games // 2,
    )
    return max(1, min(config.workers, largest))


def open_loop_pool(
    stack: contextlib.ExitStack, backend: str, address: str | None, config: RunConfig, game: Any
) -> Pool:
    """The loop's pool, closed by ``stack``: Ray tasks for ``backend="ray"``, a spawn pool of
    ``pool_size(config)`` processes when that is more than 1, else ``local`` (games here).
    For a spawn pool the game is checked first (``UnpicklableError`` naming it)."""
    workers = pool_size(config)
    kind = "ray" if backend == "ray" else "spawn" if workers > 1 else "local"
    check_pool_game(game, backend, config)
    pool = open_pool(kind, workers, initializer=_init_worker, address=address)
    return stack.enter_context(pool)


def check_pool_game(game: Any, backend: str, config: RunConfig) -> None:
    """``UnpicklableError`` naming ``game`` if ``config`` sends it to spawned worker processes
    and it does not pickle (called before a run's folder is written, and again on resuming)."""
    if backend != "ray" and pool_size(config) > 1:
        check_picklable(
            game,
            f"the game {game!r}",
            "workers > 1 needs a picklable rules core (this library's envs); use workers=1",
        )
