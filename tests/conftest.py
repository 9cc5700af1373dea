"""The whole suite's session plugins: a progress line at most every ~20 s.

``python -m pytest -q -n 2`` prints dots only, which on a slow machine say nothing for minutes
about how far the run is. ``ProgressLines`` adds a line such as ``[ 812/3370 tests, 2m10s]``
(tests finished of those collected, and the time since the session began) once at least
``MCTS_AGENTS_TEST_PROGRESS_EVERY`` seconds (default 20; 0: after every test) have passed
since the last one, written by the terminal reporter of the process that reports: the only
process without xdist, the controller with it (its workers' reports reach it).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from typing import Any

import pytest

#: The environment variable that sets the seconds between two progress lines.
EVERY_VARIABLE = "MCTS_AGENTS_TEST_PROGRESS_EVERY"
DEFAULT_EVERY = 20.0


class ProgressLines:
    """Writes ``[done/total tests, XmYYs]`` through ``reporter.write_line`` at most every
    ``every`` seconds, counting a test as done at its teardown report."""

    def __init__(
        self, reporter: Any, every: float, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.reporter, self.every, self.clock = reporter, every, clock
        self.start = self.last = clock()
        self.total = self.done = 0

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        self.total = max(self.total, len(session.items))

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_node_collection_finished(self, node: Any, ids: Sequence[str]) -> None:
        self.total = max(self.total, len(ids))  # every worker collects every test

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.when != "teardown":
            return
        self.done += 1
        now = self.clock()
        if now - self.last >= self.every:
            self.last = now
            # after -q's dots, on a line of its own (write_line leaves a line of dots open)
            if getattr(getattr(self.reporter, "_tw", None), "width_of_current_line", 0):
                self.reporter.write("\n")
            self.reporter.write_line(self.line(now))

    def line(self, now: float) -> str:
        minutes, seconds = divmod(int(now - self.start), 60)
        if not self.total:
            return f"[{self.done} tests, {minutes}m{seconds:02d}s]"
        width = len(str(self.total))
        return f"[{self.done:>{width}}/{self.total} tests, {minutes}m{seconds:02d}s]"


def progress_every(environ: dict[str, str] | os._Environ[str] = os.environ) -> float:
    """The seconds between two progress lines, from ``EVERY_VARIABLE`` (a number >= 0)."""
    text = environ.get(EVERY_VARIABLE, "")
    if not text.strip():
        return DEFAULT_EVERY
    try:
        every = float(text)
    except ValueError:
        every = -1.0
    if not every >= 0:  # (NaN too)
        raise pytest.UsageError(f"{EVERY_VARIABLE} must be a number of seconds >= 0, got {text!r}")
    return every


@pytest.hookimpl(trylast=True)  # after the terminal reporter's own pytest_configure
def pytest_configure(config: pytest.Config) -> None:
    every = progress_every()
    if hasattr(config, "workerinput"):  # an xdist worker: the controller writes the lines
        return
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None:
        config.pluginmanager.register(ProgressLines(reporter, every), "mcts-agents-progress-lines")


@pytest.fixture(scope="module")
def net(tmp_path_factory: pytest.TempPathFactory) -> str:
    """An untrained AlphaZero network for tic-tac-toe (the tests' tiny one: 8 channels, one
    block), saved; its path."""
    pytest.importorskip("torch")
    from mcts_agents.alphazero.learn import NetConfig, build_net, save_net
    from mcts_agents.envs.games.mnk import MNK

    path = tmp_path_factory.mktemp("models") / "ttt.pt"
    game = MNK(3, 3, 3, name="tic_tac_toe")
    save_net(path, build_net(game, NetConfig(channels=8, blocks=1, value_hidden=8), seed=0), game)
    return str(path)
