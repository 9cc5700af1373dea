"""The one way the library runs work in processes: the arena's games, the AlphaZero loop's
self-play, gate and Elo games, and (its own persistent workers, with these pieces) root
parallelism.

- ``open_pool(kind, workers, *, initializer, initargs, address)``: a ``Pool`` (``map``,
  ``imap_unordered``, ``pids``; a context manager) of one of three kinds: ``"local"`` (here),
  ``"spawn"`` (worker processes that end with this one, whatever ends it) or ``"ray"``
  (``ray_session``); see ``processes.pool``.
- ``MAX_WORKERS`` and ``check_workers``: the one bound on worker processes.
- ``exit_with_parent(parent)``: a worker's first act; it never outlives its parent, even a
  SIGKILLed one (``processes.workers``).
- ``check_picklable(obj, what, hint)``: the one picklability check, raising
  ``errors.UnpicklableError``.
- ``ray_session(address)``: Ray, a local instance bound to 127.0.0.1 or a cluster joined in
  bounded time (``processes.ray_cluster``).
"""

from __future__ import annotations

from mcts_agents.processes.pool import KINDS, Pool, open_pool
from mcts_agents.processes.ray_cluster import RAY_CONNECT_SECONDS, ray_session
from mcts_agents.processes.workers import (
    MAX_WORKERS,
    PICKLE_HINT,
    WATCH_SECONDS,
    check_picklable,
    check_workers,
    exit_with_parent,
)

__all__ = [
    "KINDS",
    "MAX_WORKERS",
    "PICKLE_HINT",
    "RAY_CONNECT_SECONDS",
    "WATCH_SECONDS",
    "Pool",
    "check_picklable",
    "check_workers",
    "exit_with_parent",
    "open_pool",
    "ray_session",
]
