"""Where arena games are played: in this process, a pool of worker processes, or Ray tasks.

Each backend plays the same ``run_game`` over picklable tasks and yields the records as games
finish (in any order), so all three give the same games.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import logging
import multiprocessing
import os
import pickle
import signal
from collections.abc import Iterator, Sequence
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from mcts_agents.arena.tasks import GameTask, Record, run_game
from mcts_agents.errors import WorkerError
from mcts_agents.processes import exit_with_parent
from mcts_agents.ray_cluster import RAY_CONNECT_SECONDS, ray_session

__all__ = ["BACKENDS", "RAY_CONNECT_SECONDS", "check_picklable", "game_records", "ray_session"]


logger = logging.getLogger(__name__)

BACKENDS = ("process", "ray")


#: In a pool worker: where it reports its pid when it starts, and each game it begins.
_messages: Any = None


def _worker_start(messages: Any, parent: int) -> None:
    """A pool worker's first act: leave Ctrl-C to the parent (which records what finished and
    stops the workers), end with the parent (``process_pool.exit_with_parent``: a pool worker
    never outlives the arena), and tell it this worker's pid, so that it can stop this worker
    at once and say which game a dead worker was playing."""
    global _messages
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _messages = messages
    exit_with_parent(parent)
    messages.put((os.getpid(), None))


def _play(task: GameTask) -> Record:
    """``run_game`` in a pool worker, which first tells the parent which game it begins."""
    if _messages is not None:
        _messages.put((os.getpid(), task.index))
    return run_game(task)


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
    messages = context.SimpleQueue()  # (pid, None) when a worker starts, (pid, index) per game
    executor = concurrent.futures.ProcessPoolExecutor(
        max_workers=workers, mp_context=context, initializer=_worker_start,
        initargs=(messages, os.getpid()),
    )  # fmt: skip
    playing: dict[int, int | None] = {}  # worker pid -> the game it last began
    finished = False
    try:
        futures = [executor.submit(_play, task) for task in tasks]
        children = {p.pid: p for p in multiprocessing.active_children()}  # the pool's workers
        for future in concurrent.futures.as_completed(futures):
            try:
                record = future.result()
            except BrokenProcessPool as error:
                executor.shutdown(wait=True)  # the pool has stopped its workers: reap them
                _drain(messages, playing)
                raise WorkerError(_death(playing, children)) from error
            _drain(messages, playing)
            yield record
        finished = True
    finally:
        if finished:
            executor.shutdown(wait=True)
        else:  # interrupted or failed: stop at once, the finished games are recorded
            executor.shutdown(wait=False, cancel_futures=True)
            _drain(messages, playing)
            for pid in playing:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGTERM)
        messages.close()


def _drain(messages: Any, playing: dict[int, int | None]) -> None:
    """Read the workers' reports (read as they come, so that the pipe never fills)."""
    while not messages.empty():
        pid, index = messages.get()
        playing[pid] = index


def _death(playing: dict[int, int | None], children: dict[Any, Any]) -> str:
    """Which game a dead worker was playing: the pool stops the other workers with SIGTERM,
    so a worker that ended otherwise (killed by another signal, or an exit code) is the one."""
    running = {pid: index for pid, index in playing.items() if index is not None}
    dead = []
    for pid, index in sorted(running.items(), key=lambda item: item[1]):
        process = children.get(pid)
        if process is None:
            continue
        process.join(5.0)
        code = process.exitcode
        if code is not None and code != -signal.SIGTERM:
            how = f"exit code {code}"
            if code < 0:
                how = f"killed by signal {-code}"
                with contextlib.suppress(ValueError):
                    how = f"killed by {signal.Signals(-code).name}"
            dead.append(f"game {index} (pid {pid}, {how})")
    if len(dead) == 1:
        return f"a worker process died while playing {dead[0]}"
    if running:
        games = ", ".join(str(i) for i in sorted(running.values()))
        return f"a worker process died while games {games} were being played"
    return "a worker process died"


def _ray(tasks: Sequence[GameTask], address: str | None) -> Iterator[Record]:
    with ray_session(address) as ray:
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


def game_records(
    tasks: Sequence[GameTask], workers: int, backend: str, address: str | None
) -> Iterator[Record]:
    """The records of ``tasks`` as their games finish: Ray tasks, ``workers`` processes, or here."""
    if backend == "ray":
        return _ray(tasks, address)
    if workers > 1 and len(tasks) > 1:
        return _process_pool(tasks, workers)
    return _in_process(tasks)
