"""``mcts-agents warm-up [KERNEL...]``: the kernels compiled ahead, a line each on stderr."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import mcts_agents
from mcts_agents.compiled.warm import KERNELS, kernels_named
from mcts_agents.errors import InvalidOptionError

ROOT = str(Path(mcts_agents.__file__).resolve().parents[1])


def warm_up(*names: str, cache: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    return subprocess.run(
        [sys.executable, "-m", "mcts_agents", "warm-up", *names],
        capture_output=True,
        text=True,
        timeout=600,
        env={**env, "PYTHONPATH": ROOT, "MCTS_AGENTS_CACHE_DIR": str(cache)},
    )


def test_an_unknown_kernel_exits_2_naming_the_closest_before_any_compile(tmp_path: Path) -> None:
    done = warm_up("pig", "conect_four", cache=tmp_path)
    assert done.returncode == 2
    assert done.stderr.startswith(
        "mcts-agents: error: no compiled kernel named 'conect_four' (did you mean 'connect_four'?)"
    )
    assert len(done.stderr.splitlines()) == 1 and not list(tmp_path.rglob("*.nbi"))


def test_kernels_by_name() -> None:
    assert kernels_named([]) == list(KERNELS)
    assert [k.name for k in kernels_named(["nim", "go", "nim"])] == ["nim", "go"]
    with pytest.raises(InvalidOptionError, match="'ultimat' \\(did you mean 'ultimate'\\?\\)"):
        kernels_named(["ultimat"])
    assert len({k.name for k in KERNELS}) == len(KERNELS)


def test_warm_up_compiles_once_then_says_cached(tmp_path: Path) -> None:
    pytest.importorskip("numba")
    first = warm_up("pig", cache=tmp_path)
    assert first.returncode == 0, first.stderr
    lines = first.stderr.splitlines()
    assert lines[0] == f"numba's cache: {tmp_path / 'numba'}"
    assert re.fullmatch(r"compiling pig \.\.\. \d+\.\d s", lines[1]), lines
    assert len(lines) == 2 and first.stdout == ""
    second = warm_up("pig", cache=tmp_path)
    assert second.returncode == 0, second.stderr
    assert second.stderr.splitlines()[1:] == ["pig: cached"]


@pytest.mark.slow
def test_gtp_compiles_its_kernel_at_engine_start_saying_so(tmp_path: Path) -> None:
    """The first ``genmove`` used to compile Go's kernel on its clock (83 s against 9 s warm)
    with no word: the engine now compiles it when it starts, before reading any command,
    with a line before and after; with the kernel cached it says nothing."""
    pytest.importorskip("numba")
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env.update(PYTHONPATH=ROOT, MCTS_AGENTS_CACHE_DIR=str(tmp_path))

    def gtp(commands: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "mcts_agents", "gtp", "mcts:iterations=50", "--size", "5"],
            input=commands, capture_output=True, text=True, timeout=600, env=env,
        )  # fmt: skip

    first = gtp("")  # no command at all: the compile is the engine's start
    assert first.returncode == 0 and first.stdout == "", first.stderr
    before, after = first.stderr.splitlines()
    assert before.startswith("mcts-agents: compiling the go kernel (Go's tree search), once")
    assert re.fullmatch(r"mcts-agents: \.\.\. done in \d+\.\d s", after)
    second = gtp("genmove b\nquit\n")
    assert second.returncode == 0 and second.stderr == ""
    assert second.stdout.startswith("= ")
