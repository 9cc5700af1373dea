"""Processes as Linux's /proc shows them, for the tests that kill a parent and check that its
worker processes end with it."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path


def children(pid: int) -> dict[int, str]:
    """Live (not zombie) child processes of ``pid``: pid -> command line."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        state, parent = stat.rsplit(")", 1)[1].split()[:2]
        if int(parent) == pid and state != "Z":
            found[int(entry.name)] = command
    return found


def alive(pid: int) -> bool:
    try:
        stat = (Path("/proc") / str(pid) / "stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"  # a zombie has ended


def cpu_seconds(pid: int) -> float:
    """CPU time process ``pid`` has used (0 once it is gone)."""
    try:
        fields = (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime


def descendants(pid: int) -> dict[int, str]:
    """Live descendants of ``pid`` (children, their children, ...): pid -> command line."""
    found: dict[int, str] = {}
    frontier = [pid]
    while frontier:
        for child, command in children(frontier.pop()).items():
            if child not in found:
                found[child] = command
                frontier.append(child)
    return found


def kill_and_find_survivors(
    parent: subprocess.Popen[bytes],
    processes: dict[int, str],
    seconds: float = 10.0,
    how: signal.Signals = signal.SIGKILL,
) -> list[str]:
    """Send ``how`` (SIGKILL, SIGTERM) to ``parent``, wait up to ``seconds`` for ``processes``
    (pid -> command line) to end, and return the command lines of those still alive then (each
    then killed, so that nothing outlives the test)."""
    parent.send_signal(how)
    try:
        parent.wait(30)
    except subprocess.TimeoutExpired:
        parent.kill()  # it ignored ``how``: that is a failure too (its workers are listed)
        parent.wait(10)
    deadline = time.monotonic() + seconds
    while any(alive(pid) for pid in processes) and time.monotonic() < deadline:
        time.sleep(0.1)
    survivors = [processes[pid] for pid in processes if alive(pid)]
    for pid in processes:
        if alive(pid):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
    return survivors


def survivors_of_killed_script(
    script: str,
    root: Path,
    how: signal.Signals,
    *,
    workers: int,
    is_worker: Callable[[int, str], bool],
    find: Callable[[int], dict[int, str]] = descendants,
    start_seconds: float = 120.0,
) -> list[str]:
    """Run ``script`` (``python -c``, with ``root`` on the path), wait until ``find`` shows
    ``workers`` processes for which ``is_worker(pid, command)`` holds, send ``how`` to the
    script's process and return the command lines of the processes still alive 10 s later.
    Whatever happens, nothing it started outlives the call."""
    environment = {**os.environ, "PYTHONPATH": str(root)}
    parent = subprocess.Popen(
        [sys.executable, "-c", script], cwd=root, env=environment,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    everything: dict[int, str] = {}
    try:
        deadline = time.monotonic() + start_seconds
        found: dict[int, str] = {}
        while len(found) < workers and time.monotonic() < deadline and parent.poll() is None:
            time.sleep(0.2)
            found = {p: c for p, c in find(parent.pid).items() if is_worker(p, c)}
        assert len(found) >= workers, (parent.poll(), find(parent.pid))
        everything = find(parent.pid)
        return kill_and_find_survivors(parent, everything, how=how)
    finally:
        if parent.poll() is None:
            parent.kill()
        for pid in everything:
            if alive(pid):
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
