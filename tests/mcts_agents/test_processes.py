"""``mcts_agents.processes``: the pool kinds give the same results, a dead worker is named, a
closed or failed pool refuses work, bad options are named, the one picklability error, and a
pool's workers end when its process is killed (SIGTERM or SIGKILL)."""

from __future__ import annotations

import os
import re
import signal
import sys
import time
from pathlib import Path

import pytest

from mcts_agents.errors import (
    InvalidOptionError,
    RayNotInstalledError,
    UnpicklableError,
    WorkerError,
)
from mcts_agents.processes import MAX_WORKERS, check_picklable, check_workers, open_pool
from tests.processes import alive, children, cpu_seconds, survivors_of_killed_script

ROOT = Path(__file__).resolve().parents[2]


def square(n: int) -> int:
    return n * n


def pid_of(_: object) -> int:
    return os.getpid()


def die_on_three(n: int) -> int:
    """Task 3 kills its own worker (a crash, the OOM killer); the others take their time."""
    if n == 3:
        os.kill(os.getpid(), signal.SIGKILL)
    time.sleep(0.2)
    return n


def fails(n: int) -> int:
    raise ZeroDivisionError(f"task {n} broke")


def test_the_local_pool_runs_here_in_order() -> None:
    with open_pool("local") as pool:
        assert pool.map(square, range(5)) == [0, 1, 4, 9, 16]
        assert sorted(pool.imap_unordered(square, [3, 1])) == [1, 9]
        assert pool.map(pid_of, [0]) == [os.getpid()] and pool.pids == ()


def test_a_spawn_pool_maps_in_order_in_its_workers() -> None:
    with open_pool("spawn", 2) as pool:
        assert pool.map(square, range(7)) == [n * n for n in range(7)]
        assert sorted(pool.imap_unordered(square, range(4))) == [0, 1, 4, 9]
        pids = set(pool.map(pid_of, range(4)))
        assert os.getpid() not in pids and pids <= set(pool.pids) and len(pool.pids) <= 2
    with pytest.raises(WorkerError, match="closed"):
        pool.map(square, [1])
    assert not any(alive(pid) for pid in pids)  # closed: its workers are gone


def test_a_dead_worker_is_named_with_its_task_and_stops_the_pool() -> None:
    with open_pool("spawn", 2) as pool:
        with pytest.raises(WorkerError) as caught:
            pool.map(die_on_three, range(6))
        with pytest.raises(WorkerError, match="closed"):
            pool.map(square, [1])
    message = str(caught.value)
    assert "a worker process died while running task 3 (pid" in message, message
    assert "killed by SIGKILL" in message, message
    assert not any(alive(pid) for pid in pool.pids)


def test_an_error_in_a_task_is_raised_as_it_is() -> None:
    with open_pool("spawn", 2) as pool, pytest.raises(ZeroDivisionError, match="task 0 broke"):
        pool.map(fails, [0])


def test_bad_options_are_named(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(InvalidOptionError, match=r"unknown pool kind 'fork'.*'spawn'"):
        open_pool("fork", 2)
    for workers in (0, MAX_WORKERS + 1, 1.5, True, "2"):
        with pytest.raises(InvalidOptionError, match=rf"workers must be .*{MAX_WORKERS}.*got"):
            open_pool("spawn", workers)  # type: ignore[arg-type]
    assert check_workers(MAX_WORKERS) == MAX_WORKERS
    monkeypatch.setitem(sys.modules, "ray", None)
    with pytest.raises(RayNotInstalledError, match=re.escape('pip install ".[ray]"')):
        open_pool("ray", 2)


def test_one_error_for_what_cannot_be_pickled() -> None:
    with pytest.raises(UnpicklableError, match=r"the thing cannot be pickled.*; use a spec"):
        check_picklable(lambda: 0, "the thing", "use a spec")
    check_picklable(square, "a module-level function")  # pickles: no error
    with open_pool("spawn", 2) as pool:
        with pytest.raises(UnpicklableError, match=r"the function .*<lambda>"):
            pool.map(lambda n: n, [1])
        with pytest.raises(UnpicklableError, match=r"a task of square"):
            pool.map(square, [lambda: 0])
    assert issubclass(UnpicklableError, InvalidOptionError)
    assert issubclass(UnpicklableError, TypeError)


MAP_FOR_EVER = """
from mcts_agents.processes import open_pool
from tests.mcts_agents.test_processes import spin

with open_pool("spawn", 2) as pool:
    pool.map(spin, range(2))
"""


def spin(_: object) -> None:
    while True:  # a task that never ends, as a long search does
        pass


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc (Linux)")
@pytest.mark.parametrize("how", [signal.SIGKILL, signal.SIGTERM], ids=["SIGKILL", "SIGTERM"])
def test_spawn_workers_end_when_their_process_is_killed(how: signal.Signals) -> None:
    survivors = survivors_of_killed_script(
        MAP_FOR_EVER,
        ROOT,
        how,
        workers=2,
        is_worker=lambda p, c: "spawn_main" in c and cpu_seconds(p) > 1.0,  # spinning
        find=children,  # the workers and multiprocessing's helpers
    )
    assert not survivors
