"""The kernel's entry points per game (``compiled.entries``): a game's first search compiles its
own rules only, and a compile that numba's cache cannot spare says so first, in one line."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest

import mcts_agents
from mcts_agents import MCTSAgent
from mcts_agents.compiled import dispatch as games
from mcts_agents.compiled import entries
from mcts_agents.envs import mnk_v0, tic_tac_toe_v0

pytest.importorskip("numba")

ROOT = str(Path(mcts_agents.__file__).resolve().parents[1])


def run_python(code: str, cache: Path) -> subprocess.CompletedProcess[str]:
    """``code`` in a fresh interpreter whose numba cache is ``cache`` (no logging set up, as in
    a new user's script)."""
    return subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "PYTHONPATH": ROOT, "NUMBA_CACHE_DIR": str(cache)},
    )


def test_an_empty_cache_holds_no_kernel_and_the_compile_is_announced_on_stderr(
    tmp_path: Path,
) -> None:
    done = run_python(
        "import json\n"
        "from mcts_agents.compiled import entries\n"
        "print(json.dumps([entries.is_cached(g) for g in sorted(entries.ENTRIES)]))\n"
        "print(entries.announce(2))\n"
        "from mcts_agents.compiled import dispatch\n"
        "print(entries.announce(dispatch.CONNECT_FOUR))\n",
        tmp_path,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert json.loads(lines[0]) == [False] * len(entries.ENTRIES) and lines[1:] == ["True"] * 2
    # Python's last-resort handler shows a warning to a script that set up no logging
    first, second = done.stderr.splitlines()
    assert first.startswith(
        f"compiling the search kernel for m,n,k, once (tens of seconds); cached in {tmp_path}"
    )
    assert second.startswith("compiling the search kernel for Connect Four, once")


def test_a_loaded_kernel_is_cached_and_announces_nothing(
    caplog: pytest.LogCaptureFixture,
) -> None:
    env = tic_tac_toe_v0.env()
    env.reset(seed=0)
    MCTSAgent(iterations=20, seed=0).act(env)  # compiles or loads the m,n,k kernel
    caplog.clear()  # a compile's warning, if this process compiled it
    with caplog.at_level(logging.INFO, logger="mcts_agents.compiled"):
        assert entries.is_cached(games.MNK)
        assert not entries.announce(games.MNK)
    assert caplog.records == []


@pytest.mark.slow
def test_the_first_search_of_a_game_compiles_its_rules_and_no_others(tmp_path: Path) -> None:
    """With an empty cache, tic-tac-toe's first move compiles the m,n,k rules and the kernel,
    not Othello's, ultimate tic-tac-toe's, Nim's or Connect Four's rules (before: all of them,
    114 specialisations); a second process loads it from the cache and compiles nothing."""
    code = (
        "import json\n"
        "from mcts_agents import MCTSAgent\n"
        "from mcts_agents.compiled.rules import connect_four as connect_four_rules\n"
        "from mcts_agents.compiled.rules import mnk, nim, othello, othello_wide\n"
        "from mcts_agents.compiled.rules import ultimate\n"
        "from mcts_agents.envs import tic_tac_toe_v0\n"
        "env = tic_tac_toe_v0.env()\n"
        "env.reset(seed=0)\n"
        "MCTSAgent(iterations=20, seed=0).act(env)\n"
        "def own(rules):  # the compiled functions defined in the rules module itself\n"
        "    return [f for f in vars(rules).values() if hasattr(f, 'signatures')\n"
        "            and f.py_func.__module__ == rules.__name__]\n"
        "print(json.dumps({m.__name__.rsplit('.', 1)[1]: sum(len(f.signatures) for f in own(m))\n"
        "    for m in (othello, mnk, ultimate, nim, othello_wide, connect_four_rules)}))\n"
    )
    first = run_python(code, tmp_path)
    assert first.returncode == 0, first.stderr
    compiled = json.loads(first.stdout)
    assert compiled["mnk"] > 0
    assert {k: v for k, v in compiled.items() if k != "mnk"} == {
        "othello": 0, "ultimate": 0, "nim": 0, "othello_wide": 0, "connect_four": 0,
    }  # fmt: skip
    assert "compiling the search kernel for m,n,k" in first.stderr
    second = run_python(code, tmp_path)
    assert second.returncode == 0, second.stderr
    assert set(json.loads(second.stdout).values()) == {0} and second.stderr == ""


def test_changed_sources_empty_the_entry_points_cache(tmp_path: Path) -> None:
    """numba checks only ``entries.py`` itself: a change to the kernel or a rule set must
    empty the cache of the entry points, which ``check_sources`` does once per process (a
    stand-in index entry here instead of a compile)."""
    fill = (
        "from mcts_agents.compiled import dispatch as games, entries\n"
        "print(entries.check_sources())\n"
        "for entry in entries.ENTRIES[games.MNK]:\n"
        "    entry._cache._cache_file._save_index({'compiled': 'stand-in'})\n"
        "print(entries.is_cached(games.MNK))\n"
    )
    check = (
        "from mcts_agents.compiled import dispatch as games, entries\n"
        "print(entries.check_sources(), entries.is_cached(games.MNK))\n"
    )
    first = run_python(fill, tmp_path)
    assert first.returncode == 0, first.stderr
    assert first.stdout.split() == ["True", "True"]  # a new cache gets the stamp, then the entry
    same = run_python(check, tmp_path)
    assert same.stdout.split() == ["False", "True"], same.stderr  # same sources: kept
    [stamp] = tmp_path.rglob("sources.sha256")
    assert stamp.read_text() == entries.sources_hash()
    stamp.write_text("the sources of an older version")
    changed = run_python(check, tmp_path)
    assert changed.stdout.split() == ["True", "False"], changed.stderr  # emptied
    assert stamp.read_text() == entries.sources_hash()


def test_a_game_that_every_first_move_ends_warms_up_and_plays() -> None:
    """The warm-up searches the game itself, then a position after one move: with k = 1 every
    move wins, so there is none to re-root to (it used to search a finished game)."""
    env = mnk_v0.env(m=3, n=3, k=1)
    env.reset(seed=0)
    agent = MCTSAgent(iterations=10, seed=0, backend="numba")
    assert agent.act(env) in range(9)
    assert agent.last_result is not None and agent.last_result.proven is not None


def test_changed_sources_empty_every_kernel_cached_from_them(tmp_path: Path) -> None:
    """numba checks a cached function against its own file only: a rule set's function that
    calls a helper of ``common.py`` would load stale after a change there. A change of the
    sources empties the indexes of every cache folder of theirs (the core's, the rule sets',
    the rules cores'), not only the entry points'."""
    fill = (
        "from mcts_agents.compiled import core, entries\n"
        "from mcts_agents.compiled.rules import mnk\n"
        "entries.check_sources()\n"
        "for f in (core.select, mnk.play):\n"
        "    f._cache._cache_file._save_index({'compiled': 'stand-in'})\n"
        "    print(bool(f._cache._cache_file._load_index()))\n"
    )
    first = run_python(fill, tmp_path)
    assert first.returncode == 0, first.stderr
    assert first.stdout.split() == ["True", "True"]
    [stamp] = tmp_path.rglob("sources.sha256")
    stamp.write_text("the sources of an older version")
    check = (
        "from mcts_agents.compiled import core, entries\n"
        "from mcts_agents.compiled.rules import mnk\n"
        "print(entries.check_sources())\n"
        "for f in (core.select, mnk.play):\n"
        "    print(bool(f._cache._cache_file._load_index()))\n"
    )
    changed = run_python(check, tmp_path)
    assert changed.stdout.split() == ["True", "False", "False"], changed.stderr


def test_changed_sources_empty_the_go_kernels_at_their_import(tmp_path: Path) -> None:
    """Go's kernels call across their files (``go_search.run`` calls the tactics', the
    ladders' and the board's): importing them checks the sources first, so a changed helper
    does not load a stale ``run`` (it crashed the process when a helper's arguments changed)."""
    fill = (
        "from mcts_agents.compiled import go_search\n"
        "go_search.run._cache._cache_file._save_index({'compiled': 'stand-in'})\n"
        "print(bool(go_search.run._cache._cache_file._load_index()))\n"
    )
    first = run_python(fill, tmp_path)
    assert first.returncode == 0, first.stderr
    assert first.stdout.split() == ["True"]
    check = (
        "from mcts_agents.compiled import go_search\n"
        "print(bool(go_search.run._cache._cache_file._load_index()))\n"
    )
    same = run_python(check, tmp_path)
    assert same.stdout.split() == ["True"], same.stderr  # same sources: kept
    [stamp] = tmp_path.rglob("sources.sha256")
    stamp.write_text("the sources of an older version")
    changed = run_python(check, tmp_path)
    assert changed.stdout.split() == ["False"], changed.stderr  # emptied at the import
