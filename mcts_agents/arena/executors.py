"""Where arena games are played: in this process, a pool of worker processes, or Ray tasks
(``processes.open_pool``: ``local``, ``spawn`` or ``ray``).

Each backend plays the same ``run_game`` over picklable tasks and yields the records as games
finish (in any order), so all three give the same games. A worker process that dies raises
``WorkerError`` naming the game it was playing and how it died.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Sequence

from mcts_agents.arena.lockstep import Builders, lockstep_records
from mcts_agents.arena.tasks import GameTask, Record, run_game
from mcts_agents.processes import RAY_CONNECT_SECONDS, check_picklable, open_pool, ray_session

__all__ = [
    "BACKENDS",
    "RAY_CONNECT_SECONDS",
    "check_picklable_tasks",
    "game_records",
    "ray_session",
]


logger = logging.getLogger(__name__)

BACKENDS = ("process", "ray")


def check_picklable_tasks(tasks: Sequence[GameTask]) -> None:
    """``UnpicklableError`` naming the env factory or the agent that cannot be sent to worker
    processes (each agent checked once, by name)."""
    if not tasks:
        return
    check_picklable(
        tasks[0].env_fn,
        f"env_fn {tasks[0].env_fn!r}",
        "use an env spec string such as 'connect_four' or a module-level function",
    )
    seen: set[str] = set()
    for task in tasks:
        for entrant in task.seats:
            if entrant.name in seen:
                continue
            seen.add(entrant.name)
            check_picklable(
                entrant.item,
                f"agent {entrant.name!r} ({entrant.item!r})",
                "use an agent spec string such as 'mcts:iterations=1000' or a module-level "
                "factory function",
            )


def _playing(task: GameTask) -> str:
    return f"playing game {task.index}"


def game_records(
    tasks: Sequence[GameTask],
    workers: int,
    backend: str,
    address: str | None,
    lockstep: Builders | None = None,
) -> Iterator[Record]:
    """The records of ``tasks`` as their games finish: Ray tasks, ``workers`` processes, or
    here (game by game, or given ``lockstep``'s builders together: ``arena.lockstep``, those
    it ``plays``, then the others game by game)."""
    if lockstep is not None:
        return _lockstep_first(tasks, lockstep)
    if backend == "ray":
        kind = "ray"
    elif workers > 1 and len(tasks) > 1:
        kind = "spawn"
        check_picklable_tasks(tasks)
    else:
        kind = "local"
    return _records(kind, tasks, workers, address)


def _lockstep_first(tasks: Sequence[GameTask], build: Builders) -> Iterator[Record]:
    together = [task for task in tasks if build.plays(task)]
    yield from lockstep_records(together, build=build)
    alone = [task for task in tasks if not build.plays(task)]
    if alone:
        yield from _records("local", alone, 1, None)


def _records(
    kind: str, tasks: Sequence[GameTask], workers: int, address: str | None
) -> Iterator[Record]:
    with open_pool(kind, workers if kind == "spawn" else 1, address=address) as pool:
        yield from pool.imap_unordered(run_game, tasks, describe=_playing)
