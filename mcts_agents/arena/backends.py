"""Where arena games are played: in this process, a pool of worker processes, or Ray tasks.

Each backend plays the same ``run_game`` over picklable tasks and yields the records as games
finish (in any order), so all three give the same games.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import multiprocessing
import os
import pickle
import signal
from collections.abc import Iterator, Sequence
from typing import Any

from mcts_agents.arena.games import GameTask, Record, run_game
from mcts_agents.errors import RayNotInstalledError

__all__ = ["BACKENDS", "check_picklable", "game_records"]

BACKENDS = ("process", "ray")


def _worker_start(pids: Any) -> None:
    """A pool worker's first act: leave Ctrl-C to the parent (which records what finished and
    stops the workers) and tell the parent its pid, so that it can stop this worker at once."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    pids.put(os.getpid())


def check_picklable(tasks: Sequence[GameTask]) -> None:
    if not tasks:
        return
    try:
        pickle.dumps(tasks[0].env_fn)
    except Exception as error:
        raise TypeError(
            f"env_fn {tasks[0].env_fn!r} cannot be sent to worker processes ({error}); "
            "use an env spec string such as 'connect_four' or a module-level function"
        ) from None
    seen: set[str] = set()
    for task in tasks:
        for entrant in task.seats:
            if entrant.name in seen:
                continue
            seen.add(entrant.name)
            try:
                pickle.dumps(entrant.item)
            except Exception as error:
                raise TypeError(
                    f"agent {entrant.name!r} ({entrant.item!r}) cannot be sent to worker "
                    f"processes ({error}); use an agent spec string such as "
                    "'mcts:iterations=1000' or a module-level factory function"
                ) from None


def _in_process(tasks: Sequence[GameTask]) -> Iterator[Record]:
    for task in tasks:
        yield run_game(task)


def _process_pool(tasks: Sequence[GameTask], workers: int) -> Iterator[Record]:
    check_picklable(tasks)
    context = multiprocessing.get_context("spawn")
    pids = context.SimpleQueue()  # every worker puts its pid here when it starts
    executor = concurrent.futures.ProcessPoolExecutor(
        max_workers=workers, mp_context=context, initializer=_worker_start, initargs=(pids,)
    )
    finished = False
    try:
        futures = [executor.submit(run_game, task) for task in tasks]
        for future in concurrent.futures.as_completed(futures):
            yield future.result()
        finished = True
    finally:
        if finished:
            executor.shutdown(wait=True)
        else:  # interrupted or failed: stop at once, the finished games are recorded
            executor.shutdown(wait=False, cancel_futures=True)
            while not pids.empty():
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pids.get(), signal.SIGTERM)
        pids.close()


def _ray(tasks: Sequence[GameTask], address: str | None) -> Iterator[Record]:
    try:
        import ray
    except ImportError as error:
        raise RayNotInstalledError(
            'backend="ray" needs Ray: pip install "mcts-agents[ray]"'
        ) from error
    started = False
    if not ray.is_initialized():
        if address is None:
            ray.init(include_dashboard=False)
        else:
            ray.init(address=address)
        started = True
    pending: list[Any] = []
    try:
        remote = ray.remote(num_cpus=1)(run_game)
        pending = [remote.remote(task) for task in tasks]
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            for ref in done:
                yield ray.get(ref)
    finally:
        for ref in pending:  # interrupted or failed: the finished games are recorded
            ray.cancel(ref, force=True)
        if started:
            ray.shutdown()


def game_records(
    tasks: Sequence[GameTask], workers: int, backend: str, address: str | None
) -> Iterator[Record]:
    """The records of ``tasks`` as their games finish: Ray tasks, ``workers`` processes, or here."""
    if backend == "ray":
        return _ray(tasks, address)
    if workers > 1 and len(tasks) > 1:
        return _process_pool(tasks, workers)
    return _in_process(tasks)
