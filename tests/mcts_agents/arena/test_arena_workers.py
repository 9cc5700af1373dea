"""The arena's worker processes and Ray under faults: a killed arena process, a dead worker, a
local Ray instance's listening sockets, a bad Ray address."""

from __future__ import annotations

import contextlib
import ipaddress
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from mcts_agents import derive_seed, play_match
from mcts_agents.errors import InvalidOptionError, WorkerError
from tests.mcts_agents.arena.arena_helpers import MortalFactory

ROOT = Path(__file__).resolve().parents[3]


def wait_for(condition: Callable[[], bool], timeout: float, what: str) -> float:
    """Seconds until ``condition()`` held (polled), else an AssertionError after ``timeout``."""
    started = time.monotonic()
    while not condition():
        if time.monotonic() - started > timeout:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(0.05)
    return time.monotonic() - started


def gone(pid: int) -> bool:
    """Whether process ``pid`` has ended (a zombie waiting for its reaper counts as ended)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except (OSError, IndexError):
        return False


def children_of(pid: int) -> set[int]:
    """The processes whose parent is ``pid`` (Linux: read from /proc)."""
    found = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                found.add(int(entry.name))
    return found


# ------------------------------------------------ 8: workers die with the arena process
ARENA = (
    "import sys\n"
    "from mcts_agents import play_match\n"
    "from tests.mcts_agents.arena.arena_helpers import PidReporter\n"
    "play_match('tic_tac_toe', [PidReporter(sys.argv[1], 1.0), 'random'], games=200,\n"
    "           workers=2, out=sys.argv[2])\n"
)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("kill", [signal.SIGKILL, signal.SIGTERM], ids=["SIGKILL", "SIGTERM"])
def test_pool_workers_exit_when_the_arena_process_is_killed(
    tmp_path: Path, kill: signal.Signals
) -> None:
    pids = tmp_path / "pids.txt"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    arena = subprocess.Popen(
        [sys.executable, "-c", ARENA, str(pids), str(tmp_path / "games.jsonl")],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:

        def workers() -> set[int]:
            text = pids.read_text() if pids.exists() else ""
            return {int(line) for line in text.split()}

        wait_for(lambda: len(workers()) == 2, 120, "two workers to start games")
        # The workers, and multiprocessing's resource tracker beside them.
        started = children_of(arena.pid)
        assert workers() <= started and len(started) >= 3, (workers(), started)
        arena.send_signal(kill)
        arena.wait(30)
        seconds = wait_for(lambda: all(map(gone, started)), 10, f"{started} to exit")
    finally:
        if arena.poll() is None:
            arena.kill()
    assert seconds < 5


# ------------------------------------------------------------- 11: a dead pool worker
def test_a_dead_pool_worker_names_its_game_and_the_saved_games(tmp_path: Path) -> None:
    out = tmp_path / "games.jsonl"
    fatal = 3  # game 3 puts the second agent in seat 0 (seats rotate)
    killer = MortalFactory(derive_seed(derive_seed(0, fatal), 0))
    with pytest.raises(WorkerError) as caught:
        play_match("tic_tac_toe", ["random", killer], games=8, seed=0, workers=2, out=out)
    message = str(caught.value)
    assert "a worker process died while playing game 3 (pid" in message, message
    assert "killed by SIGKILL" in message, message
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    saved = len(lines) - 1
    if saved:
        assert f"the {saved} finished game" in message and str(out) in message, message
    else:
        assert "no game had finished" in message, message
    assert 3 not in [line["index"] for line in lines[1:]]
    # The games saved are kept; a rerun (the same names and seed) plays the rest.
    resumed = play_match("tic_tac_toe", ["random", MortalFactory()], games=8, seed=0, out=out)
    assert [r["index"] for r in resumed.records] == list(range(8))
    for record in lines[1:]:
        assert resumed.records[record["index"]] == record


# ------------------------------------------------------------------- 9: Ray's sockets
def descendants(pid: int) -> set[int]:
    found, todo = set(), [pid]
    while todo:
        children = children_of(todo.pop()) - found
        found |= children
        todo.extend(children)
    return found


def listening(pids: set[int]) -> list[str]:
    """The local addresses of the TCP sockets that processes ``pids`` listen on (Linux)."""
    inodes = set()
    for pid in pids:
        with contextlib.suppress(OSError):
            for fd in Path(f"/proc/{pid}/fd").iterdir():
                with contextlib.suppress(OSError):
                    target = os.readlink(fd)
                    if target.startswith("socket:["):
                        inodes.add(target[8:-1])
    addresses = []
    for table, size in (("tcp", 4), ("tcp6", 16)):
        for line in Path(f"/proc/net/{table}").read_text().splitlines()[1:]:
            fields = line.split()
            if fields[3] == "0A" and fields[9] in inodes:  # LISTEN
                raw = bytes.fromhex(fields[1].split(":")[0])
                words = b"".join(raw[i : i + 4][::-1] for i in range(0, size, 4))
                address = ipaddress.ip_address(words)
                mapped = getattr(address, "ipv4_mapped", None)  # ::ffff:127.0.0.1
                addresses.append(str(mapped or address))
    return addresses


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_a_local_ray_instance_listens_on_the_loopback_address_only() -> None:
    pytest.importorskip("ray")
    from mcts_agents.processes import ray_session

    with ray_session(None) as ray:
        assert ray.get(ray.remote(lambda: 1).remote()) == 1  # a worker is up
        addresses = listening({os.getpid(), *descendants(os.getpid())})
    assert not ray.is_initialized()  # the instance it started is shut down
    assert len(addresses) >= 3, addresses  # GCS, raylet, a worker...
    assert all(ipaddress.ip_address(a).is_loopback for a in addresses), addresses


def test_a_bad_ray_address_fails_at_once_naming_it() -> None:
    pytest.importorskip("ray")
    with socket.socket() as probe:  # a port where nothing listens
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    started = time.monotonic()
    address = f"127.0.0.1:{port}"
    with pytest.raises(InvalidOptionError, match=rf"address='{address}': nothing accepted"):
        play_match("tic_tac_toe", ["random", "random"], games=1, backend="ray", address=address)
    with pytest.raises(InvalidOptionError, match=r"address='head:port' is not a Ray address"):
        play_match("tic_tac_toe", ["random", "random"], games=1, backend="ray", address="head:port")
    assert time.monotonic() - started < 15
