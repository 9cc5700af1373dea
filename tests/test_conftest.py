"""``tests/conftest.py``'s progress lines: ``[done/total tests, XmYYs]`` from the process that
reports (alone, or xdist's controller: once per line, never from its workers), at most every
``MCTS_AGENTS_TEST_PROGRESS_EVERY`` seconds. A tiny test folder is run in a subprocess with the
plugin loaded by name."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import EVERY_VARIABLE, ProgressLines, progress_every

ROOT = Path(__file__).resolve().parent.parent
TINY = """
import pytest

def test_one():
    pass

@pytest.mark.skip(reason="a skipped test counts too")
def test_two():
    pass

@pytest.mark.parametrize("x", [1, 2])
def test_three(x):
    assert x
"""
LINE = re.compile(r"^\[ *(\d+)/4 tests, \d+m\d\ds\]$", re.MULTILINE)


def run_tiny(folder: Path, *args: str, every: str | None) -> subprocess.CompletedProcess[str]:
    (folder / "test_tiny.py").write_text(TINY)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop(EVERY_VARIABLE, None)
    if every is not None:
        env[EVERY_VARIABLE] = every
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p"]
    return subprocess.run(
        [*command, "tests.conftest", *args, str(folder)],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.parametrize("xdist", [False, True], ids=["alone", "xdist"])
def test_a_line_per_test_at_every_0(tmp_path: Path, xdist: bool) -> None:
    if xdist:
        pytest.importorskip("xdist")
    done = run_tiny(tmp_path, *(["-n", "2"] if xdist else []), every="0")
    assert done.returncode == 0, done.stdout + done.stderr
    assert LINE.findall(done.stdout) == ["1", "2", "3", "4"], done.stdout


def test_no_line_before_the_interval_and_a_bad_interval_is_refused(tmp_path: Path) -> None:
    done = run_tiny(tmp_path, every=None)  # 20 s by default: these tests take far less
    assert done.returncode == 0, done.stdout + done.stderr
    assert "tests," not in done.stdout and "3 passed, 1 skipped" in done.stdout
    bad = run_tiny(tmp_path, every="soon")
    assert bad.returncode == 4  # pytest's usage error
    assert EVERY_VARIABLE in bad.stderr and "'soon'" in bad.stderr


class Reporter:
    def __init__(self) -> None:
        self.lines: list[str] = []

    def write_line(self, line: str) -> None:
        self.lines.append(line)

    def write(self, text: str) -> None:
        raise AssertionError(f"wrote {text!r} with no terminal writer open")


class Report:
    def __init__(self, when: str) -> None:
        self.when = when


def test_lines_come_at_most_every_interval() -> None:
    now = [100.0]
    reporter = Reporter()
    lines = ProgressLines(reporter, every=20.0, clock=lambda: now[0])
    lines.total = 3370
    for at in [105.0, 119.0, 121.0, 130.0, 141.0, 230.0]:
        now[0] = at
        for when in ("setup", "call", "teardown"):
            lines.pytest_runtest_logreport(Report(when))  # type: ignore[arg-type]
    assert reporter.lines == [
        "[   3/3370 tests, 0m21s]",  # at 121 s: the first 20 s after the start
        "[   5/3370 tests, 0m41s]",  # 141: 20 s after that
        "[   6/3370 tests, 2m10s]",
    ]


def test_the_interval_is_read_from_the_environment() -> None:
    assert progress_every({}) == 20.0
    assert progress_every({EVERY_VARIABLE: "2.5"}) == 2.5
    for wrong in ("-1", "nan", "x"):
        with pytest.raises(pytest.UsageError, match=EVERY_VARIABLE):
            progress_every({EVERY_VARIABLE: wrong})
