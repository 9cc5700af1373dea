"""One pool interface for running work in processes, of three kinds (``open_pool``):

- ``"local"``: here, in this process, one task after the other;
- ``"spawn"``: ``workers`` fresh interpreters (``spawn``) that end with this process
  (``exit_with_parent``, their first act), leave Ctrl-C to it, and report which task each
  begins, so that a worker that dies raises ``WorkerError`` naming its task and how it died
  (rather than hanging the pool, as a ``multiprocessing.Pool`` does);
- ``"ray"``: Ray tasks of one CPU each (``ray_session``: a local instance bound to 127.0.0.1,
  or the cluster at ``address``).

Every kind has ``map`` (the results in order) and ``imap_unordered`` (the results as tasks
finish) and is a context manager. A batch that fails or is abandoned (an error, Ctrl-C, a
consumer that stops iterating) stops the pool at once: its workers are terminated, not waited
for, and the pool cannot be used again. What a ``spawn`` pool is sent must pickle: the function
and the first task are checked (``check_picklable``) before anything is sent.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import multiprocessing
import os
import signal
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures.process import BrokenProcessPool
from types import TracebackType
from typing import Any

from mcts_agents.errors import InvalidOptionError, WorkerError
from mcts_agents.processes.ray_cluster import ray_session
from mcts_agents.processes.workers import check_picklable, check_workers, exit_with_parent

__all__ = ["KINDS", "Pool", "open_pool"]

#: The kinds of pool ``open_pool`` makes.
KINDS = ("local", "spawn", "ray")

Describe = Callable[[Any], str]

#: In a spawn pool's worker: where it reports its pid when it starts, and each task it begins.
_messages: Any = None


class Pool:
    """Runs ``function(item)`` for each item somewhere (see the module); a context manager.

    Attributes:
        kind: ``"local"``, ``"spawn"`` or ``"ray"``.
        workers: the most tasks run at once (1 for ``local``; Ray: as the cluster has CPUs,
            given for the record).
    """

    kind = "local"

    def __init__(self, workers: int = 1) -> None:
        self.workers = workers
        self.closed = False

    def map(self, function: Callable[[Any], Any], items: Iterable[Any]) -> list[Any]:
        """``[function(item) for item in items]``, run in the pool."""
        items = list(items)
        results: list[Any] = [None] * len(items)
        for position, result in self._run(function, items, None):
            results[position] = result
        return results

    def imap_unordered(
        self,
        function: Callable[[Any], Any],
        items: Iterable[Any],
        *,
        describe: Describe | None = None,
    ) -> Iterator[Any]:
        """``function(item)`` for each item, as each finishes. ``describe(item)`` says what a
        task does in a dead worker's ``WorkerError`` (default ``"running task N"``)."""
        for _, result in self._run(function, list(items), describe):
            yield result

    @property
    def pids(self) -> tuple[int, ...]:
        """The worker processes' pids (none for ``local`` and ``ray``)."""
        return ()

    def close(self) -> None:
        """Stop the workers (after their tasks, if a batch is running); idempotent."""
        self.closed = True

    def terminate(self) -> None:
        """Stop the workers at once; idempotent."""
        self.close()

    def __enter__(self) -> Pool:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if exc_type is None:
            self.close()
        else:
            self.terminate()

    def __repr__(self) -> str:
        return f"<{self.kind} pool of {self.workers} workers{', closed' if self.closed else ''}>"

    def _run(
        self, function: Callable[[Any], Any], items: Sequence[Any], describe: Describe | None
    ) -> Iterator[tuple[int, Any]]:
        """``(position, function(items[position]))`` as tasks finish."""
        self._check_open()
        for position, item in enumerate(items):
            yield position, function(item)

    def _check_open(self) -> None:
        if self.closed:
            raise WorkerError(f"{self!r} cannot run tasks (closed, or stopped by an earlier error)")


# ---------------------------------------------------------------------------- spawn
def _start_worker(
    messages: Any, parent: int, initializer: Callable[..., Any] | None, initargs: tuple[Any, ...]
) -> None:
    """A spawn pool worker's first act: leave Ctrl-C to the parent (which stops the workers),
    end with the parent, tell it this worker's pid, then run the caller's initializer."""
    global _messages
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    exit_with_parent(parent)
    _messages = messages
    messages.put((os.getpid(), None))
    if initializer is not None:
        initializer(*initargs)


def _call(function: Callable[[Any], Any], task: tuple[int, int], item: Any) -> Any:
    """``function(item)`` in a worker, which first tells the parent which task it begins."""
    if _messages is not None:
        _messages.put((os.getpid(), task))
    return function(item)


class _SpawnPool(Pool):
    kind = "spawn"

    def __init__(
        self, workers: int, initializer: Callable[..., Any] | None, initargs: tuple[Any, ...]
    ) -> None:
        super().__init__(workers)
        context = multiprocessing.get_context("spawn")
        # (pid, None) when a worker starts, (pid, (batch, position)) per task it begins
        self._messages = context.SimpleQueue()
        self._executor = concurrent.futures.ProcessPoolExecutor(
            max_workers=workers, mp_context=context, initializer=_start_worker,
            initargs=(self._messages, os.getpid(), initializer, initargs),
        )  # fmt: skip
        self._running: dict[int, tuple[int, int] | None] = {}  # pid -> the task it last began
        self._children: dict[int, Any] = {}  # pid -> multiprocessing's process object
        self._batches = 0

    @property
    def pids(self) -> tuple[int, ...]:
        if not self.closed:
            self._drain()
        return tuple(self._running)

    def _run(
        self, function: Callable[[Any], Any], items: Sequence[Any], describe: Describe | None
    ) -> Iterator[tuple[int, Any]]:
        self._check_open()
        name = getattr(function, "__qualname__", repr(function))
        check_picklable(function, f"the function {name}")
        if items:
            check_picklable(items[0], f"a task of {name} ({items[0]!r:.200})")
        self._batches += 1
        batch = self._batches
        finished = False
        try:
            futures = {
                self._executor.submit(_call, function, (batch, position), item): position
                for position, item in enumerate(items)
            }
            for process in multiprocessing.active_children():  # the workers started so far
                if process.pid is not None:
                    self._children[process.pid] = process
            for future in concurrent.futures.as_completed(futures):
                try:
                    result = future.result()
                except BrokenProcessPool as error:
                    self._executor.shutdown(wait=True)  # the pool stopped its workers: reap them
                    self._drain()
                    raise WorkerError(self._death(batch, items, describe)) from error
                self._drain()
                yield futures[future], result
            finished = True
        finally:
            if not finished:  # failed, interrupted or abandoned: stop at once
                self.terminate()

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self._executor.shutdown(wait=True)
            self._messages.close()

    def terminate(self) -> None:
        if self.closed:
            return
        self.closed = True
        self._executor.shutdown(wait=False, cancel_futures=True)
        self._drain()
        for pid in self._running:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGTERM)
        for pid in self._running:
            process = self._children.get(pid)
            if process is not None:
                process.join(5.0)
        self._messages.close()

    def _drain(self) -> None:
        """Read the workers' reports (as they come, so that the pipe never fills)."""
        with contextlib.suppress(OSError, ValueError):  # closed
            while not self._messages.empty():
                pid, task = self._messages.get()
                self._running[pid] = task

    def _death(self, batch: int, items: Sequence[Any], describe: Describe | None) -> str:
        """Which task a dead worker was running: the pool stops the other workers with
        SIGTERM, so a worker that ended otherwise (another signal, an exit code) is the one."""

        def what(position: int) -> str:
            return describe(items[position]) if describe else f"running task {position}"

        running = {pid: task[1] for pid, task in self._running.items() if task and task[0] == batch}
        dead = []
        for pid, position in sorted(running.items(), key=lambda item: item[1]):
            process = self._children.get(pid)
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
                dead.append(f"{what(position)} (pid {pid}, {how})")
        if len(dead) == 1:
            return f"a worker process died while {dead[0]}"
        if running:
            tasks = ", ".join(what(position) for position in sorted(running.values()))
            return f"a worker process died; the tasks under way were: {tasks}"
        return "a worker process died"


# ---------------------------------------------------------------------------- ray
def _ray_call(
    initializer: Callable[..., Any] | None,
    initargs: tuple[Any, ...],
    function: Callable[[Any], Any],
    item: Any,
) -> Any:
    """A Ray task: the initializer (a task may land on any worker), then ``function(item)``."""
    if initializer is not None:
        initializer(*initargs)
    return function(item)


class _RayPool(Pool):
    kind = "ray"

    def __init__(
        self,
        workers: int,
        address: str | None,
        initializer: Callable[..., Any] | None,
        initargs: tuple[Any, ...],
    ) -> None:
        super().__init__(workers)
        self._session = ray_session(address)
        self._ray = self._session.__enter__()
        self._remote = self._ray.remote(num_cpus=1)(_ray_call)
        self._setup = (initializer, initargs)

    def _run(
        self, function: Callable[[Any], Any], items: Sequence[Any], describe: Describe | None
    ) -> Iterator[tuple[int, Any]]:
        self._check_open()
        ray = self._ray
        pending: list[Any] = []
        try:
            positions = {
                self._remote.remote(*self._setup, function, item): position
                for position, item in enumerate(items)
            }
            pending = list(positions)
            while pending:
                done, pending = ray.wait(pending, num_returns=1)
                for ref in done:
                    yield positions[ref], ray.get(ref)
        finally:
            for ref in pending:  # failed, interrupted or abandoned
                ray.cancel(ref, force=True)

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self._session.__exit__(None, None, None)


def open_pool(
    kind: str,
    workers: int = 1,
    *,
    initializer: Callable[..., Any] | None = None,
    initargs: tuple[Any, ...] = (),
    address: str | None = None,
) -> Pool:
    """A pool of ``kind`` (see the module): ``"local"`` (here), ``"spawn"`` (``workers``
    processes, at most ``MAX_WORKERS``, started as tasks come) or ``"ray"`` (Ray tasks, on
    a local instance or the cluster at ``address``; ignored by the other kinds).

    ``initializer(*initargs)`` (module-level) runs in each worker process as it starts, or
    before each Ray task; not for ``local``, which runs in the caller's process as it is.

    Raises:
        InvalidOptionError: an unknown ``kind`` or a bad ``workers``; for Ray, a bad address.
        RayNotInstalledError: ``"ray"`` without Ray.
    """
    if kind not in KINDS:
        raise InvalidOptionError(f"unknown pool kind {kind!r}; expected one of {list(KINDS)}")
    check_workers(workers)
    if kind == "spawn":
        return _SpawnPool(workers, initializer, initargs)
    if kind == "ray":
        return _RayPool(workers, address, initializer, initargs)
    return Pool(1)
