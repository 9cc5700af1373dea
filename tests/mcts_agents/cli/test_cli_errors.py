"""The command line's refusals and failures, run in process through ``main([...])``: every bad
spec, env, option or value exits with code 2 and one line on stderr, before any game is played;
a failure while playing exits with 1 and one line; Ctrl-C with 130; never a traceback."""

from __future__ import annotations

import importlib.util
import io
import os
import re
import signal
import subprocess
import sys
from collections.abc import Iterator
from concurrent.futures.process import BrokenProcessPool
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

import pytest

import mcts_agents
from mcts_agents.arena import runner
from mcts_agents.cli.main import main
from mcts_agents.errors import WorkerError

ARENA = ["arena", "tic_tac_toe", "--agents", "random", "random:name=b", "--no-progress"]


def run(*args: str, stdin: Any = None) -> tuple[int, str, str]:
    """``main(args)`` in this process: (exit code, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    saved = sys.stdin
    if stdin is not None:
        sys.stdin = stdin
    try:
        with redirect_stdout(out), redirect_stderr(err):
            try:
                code = main(list(args))
            except SystemExit as exit_:  # argparse: usage errors, --help, --version
                code = exit_.code if isinstance(exit_.code, int) else 0
    finally:
        sys.stdin = saved
    return code, out.getvalue(), err.getvalue()


def refused(*args: str, code: int = 2) -> str:
    """Run, check the exit code and the single line on stderr, and return that line."""
    got, out, err = run(*args)
    assert got == code, (got, out, err)
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    return err.strip()


# ------------------------------------------------------------ values and files
def test_demo_iterations_0_and_negative_seeds_are_refused() -> None:
    assert "--iterations: must be an int >= 1, got 0" in refused("demo", "--iterations", "0")
    assert "--seed: must be an int >= 0, got -1" in refused("demo", "--seed", "-1")
    assert "--seed: must be an int >= 0, got -1" in refused("play", "tic_tac_toe", "--seed", "-1")
    assert "--seed" in refused(*ARENA, "--seed", "-1")
    assert "'x' is not an integer" in refused("demo", "--iterations", "x")


def test_out_that_cannot_be_written_is_refused_before_playing(tmp_path: Path) -> None:
    assert f"--out {str(tmp_path)!r} is a folder" in refused(*ARENA, "--out", str(tmp_path))
    assert "--out is empty" in refused(*ARENA, "--out", "")
    a_file = tmp_path / "file.txt"
    a_file.write_text("")
    assert "is not a folder" in refused(*ARENA, "--out", str(a_file / "games.jsonl"))
    if sys.platform.startswith("linux"):  # nothing, not even root, creates files in /proc
        for where in ("/proc/mcts-agents-test.jsonl", "/proc/mcts-agents-test/games.jsonl"):
            assert f"--out {where!r}: cannot write there" in refused(*ARENA, "--out", where)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file.txt"]  # nothing written


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0, reason="root writes anyway")
def test_out_in_a_read_only_folder_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "ro"
    folder.mkdir(mode=0o500)
    assert "cannot write there" in refused(*ARENA, "--out", str(folder / "games.jsonl"))


def refused_in_a_process(*args: str) -> str:
    """Run the CLI in a child process (a hang is a failure, not a stuck test run): exit 2,
    one line on stderr, which is returned."""
    run = subprocess.run(
        [sys.executable, "-m", "mcts_agents", *args],
        capture_output=True, text=True, timeout=120, cwd=Path(__file__).resolve().parents[3],
    )  # fmt: skip
    assert run.returncode == 2, (run.returncode, run.stdout, run.stderr)
    assert "Traceback" not in run.stderr and len(run.stderr.strip().splitlines()) == 1
    return run.stderr.strip()


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_out_and_plot_that_are_fifos_are_refused_without_hanging(tmp_path: Path) -> None:
    fifo = tmp_path / "games.jsonl"
    os.mkfifo(fifo)
    line = refused_in_a_process(*ARENA, "--games", "1", "--out", str(fifo))
    assert f"--out {str(fifo)!r} is a FIFO" in line
    picture = tmp_path / "elo.png"
    os.mkfifo(picture)
    line = refused_in_a_process(*ARENA, "--games", "1", "--plot", str(picture))
    assert f"--plot {str(picture)!r} is a FIFO" in line
    assert sorted(p.name for p in tmp_path.iterdir()) == ["elo.png", "games.jsonl"]


def test_out_and_plot_that_are_links_to_nothing_are_refused_and_left(tmp_path: Path) -> None:
    for option, name in (("--out", "games.jsonl"), ("--plot", "elo.png")):
        link, target = tmp_path / name, tmp_path / "gone" / name
        link.symlink_to(target)
        line = refused(*ARENA, "--games", "1", option, str(link))
        assert f"{option} {str(link)!r} is a link to {str(target)!r}, which does not" in line
        assert link.is_symlink() and os.readlink(link) == str(target)  # the link is kept
        assert not target.parent.exists()  # and nothing made where it points
    assert sorted(p.name for p in tmp_path.iterdir()) == ["elo.png", "games.jsonl"]


def test_a_link_to_a_results_file_is_followed(tmp_path: Path) -> None:
    target = tmp_path / "real.jsonl"
    link = tmp_path / "games.jsonl"
    link.symlink_to(target)
    assert run(*ARENA, "--games", "1", "--out", str(target))[0] == 0
    code, _, err = run(*ARENA, "--games", "2", "--out", str(link))
    assert code == 0, err
    assert link.is_symlink() and len(target.read_text().splitlines()) == 3


def test_out_folders_that_do_not_exist_yet_are_made(tmp_path: Path) -> None:
    out = tmp_path / "new" / "games.jsonl"
    code, _, err = run(*ARENA, "--games", "1", "--out", str(out))
    assert code == 0, err
    assert len(out.read_text().splitlines()) == 2  # header and one game


#: The plot tests that need matplotlib itself (the test extra; test-core has none).
needs_matplotlib = pytest.mark.skipif(
    importlib.util.find_spec("matplotlib") is None,
    reason="matplotlib is not installed (pip install '.[test]')",
)


@needs_matplotlib
def test_bad_plots_are_refused_before_playing(tmp_path: Path) -> None:
    out = tmp_path / "games.jsonl"
    recorded = ["--games", "1", "--out", str(out)]
    line = refused(*ARENA, *recorded, "--plot", str(tmp_path / "missing" / "elo.png"))
    assert "--plot" in line and "does not exist" in line
    line = refused(*ARENA, *recorded, "--plot", str(tmp_path / "elo.xyz"))
    assert "unknown image format 'xyz'" in line and ".png" in line and ".svg" in line
    assert "no image extension" in refused(*ARENA, *recorded, "--plot", str(tmp_path / "elo"))
    assert "is a folder" in refused(*ARENA, *recorded, "--plot", str(tmp_path))
    three = ["arena", "multi_mnk", "--agents", "random", "random", "random", *recorded]
    line = refused(*three, "--plot", str(tmp_path / "elo.png"))
    assert "need 2-player games" in line and "3 seats" in line
    assert not out.exists()  # refused before the results file was started


def test_plot_without_matplotlib_is_refused_before_playing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in [m for m in sys.modules if m == "matplotlib" or m.startswith("matplotlib.")]:
        monkeypatch.setitem(sys.modules, name, None)
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    out = tmp_path / "games.jsonl"
    line = refused(*ARENA, "--games", "1", "--out", str(out), "--plot", str(tmp_path / "e.png"))
    assert 'pip install ".[plot]"' in line
    assert not out.exists()


@needs_matplotlib
def test_a_plot_is_saved_in_a_format_matplotlib_writes(tmp_path: Path) -> None:
    plot = tmp_path / "elo.svg"
    code, out, err = run(*ARENA, "--games", "2", "--plot", str(plot))
    assert code == 0, err
    assert f"plot saved to {plot}" in out and plot.read_text().lstrip().startswith("<?xml")


def test_ctrl_c_in_play_exits_130_with_one_line() -> None:
    class CtrlC(io.StringIO):
        def readline(self, size: int = -1) -> str:
            raise KeyboardInterrupt

    code, out, err = run("play", "tic_tac_toe", "--p1", "random", stdin=CtrlC())
    assert code == 130 and "player_0 move:" in out
    assert err.strip() == "mcts-agents: interrupted"


def test_ctrl_c_while_an_agent_searches_in_play() -> None:
    """A real SIGINT to ``python -m mcts_agents play`` during a long search."""
    process = subprocess.Popen(
        [sys.executable, "-m", "mcts_agents", "play", "connect_four",  # no quick proof
         "--p0", "mcts:iterations=100000000,backend=python", "--p1", "random"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
        # a test runner's worker may ignore SIGINT, and children inherit that: restore the
        # default so that Python installs its KeyboardInterrupt handler
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )  # fmt: skip
    assert process.stdout is not None
    for _ in range(2):  # "player_0: ..." and "player_1: ...": the game is about to start
        process.stdout.readline()
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=60)
    assert process.returncode == 130, err
    assert err.strip() == "mcts-agents: interrupted"


@pytest.fixture
def failing_games(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[BaseException]]:
    """The arena's games raise the error put in the list (as a dead worker would)."""
    errors: list[BaseException] = []

    def game_records(*args: Any, **kwargs: Any) -> Iterator[Any]:
        raise errors[0]
        yield

    monkeypatch.setattr(runner, "game_records", game_records)
    yield errors


@pytest.mark.parametrize(
    ("error", "code", "words"),
    [
        (BrokenProcessPool("a process in the pool died"), 1, "BrokenProcessPool: a process"),
        (WorkerError("worker 2 died (exit code -9)"), 1, "WorkerError: worker 2 died"),
        (RuntimeError(), 1, "RuntimeError"),
        (OSError(28, "No space left on device"), 1, "No space left on device"),
        (ValueError("line 1\nline 2"), 2, "line 1 line 2"),
        (TypeError("cannot pickle 'generator'"), 2, "cannot pickle 'generator'"),
    ],
)
def test_library_errors_while_playing_are_one_line(
    failing_games: list[BaseException], error: BaseException, code: int, words: str
) -> None:
    failing_games.append(error)
    assert words in refused(*ARENA, "--games", "2", code=code)


# --------------------------------------------------------- games, seats, UX
def test_games_0_is_refused() -> None:
    assert "--games: must be an int between 1 and" in refused(*ARENA, "--games", "0")
    assert "--games" in refused(*ARENA, "--games", str(10**30))
    assert "--workers" in refused(*ARENA, "--workers", "0")
    assert "--workers" in refused(*ARENA, "--workers", str(10**20))


def test_a_seat_the_env_does_not_have_is_refused() -> None:
    line = refused("play", "tic_tac_toe", "--p2", "random")
    assert "--p2 'random'" in line and "tic_tac_toe has 2 seats" in line
    assert "--p3" in refused("play", "tic_tac_toe", "--p1", "random", "--p3", "human")


def test_progress_without_tqdm_logs_lines_to_stderr(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "tqdm", None)
    monkeypatch.setitem(sys.modules, "tqdm.auto", None)
    code, _, err = run(*ARENA[:-1], "--games", "2", "--progress")
    assert code == 0, err
    assert "mcts-agents: tic_tac_toe: 1/2 games" in err and "2/2 games" in err


def test_version_is_the_package_version() -> None:
    code, out, _ = run("--version")
    assert code == 0 and out.strip() == f"mcts-agents {mcts_agents.__version__}"


@pytest.mark.parametrize("command", [[], ["arena"], ["play"], ["demo"], ["list"]])
def test_help_is_plain_text(command: list[str]) -> None:
    code, out, _ = run(*command, "--help")
    assert code == 0 and "usage: mcts-agents" in out
    assert "``" not in out and ":class:" not in out


def test_help_names_the_commands_and_env_forms() -> None:
    _, out, _ = run("--help")
    assert all(re.search(rf"\n +{name} +\w", out) for name in ("list", "play", "arena", "demo"))
    assert "classic/connect_four-v3" in out and "module:factory" in out


# ------------------------------------------------- envs that are not ours
def test_arena_and_demo_accept_registry_ids_and_modules() -> None:
    code, out, err = run(
        *ARENA[:1], "mcts_agents/connect_four-v0:width=5", *ARENA[2:], "--games", "2"
    )
    assert code == 0, err
    assert out.startswith("mcts_agents/connect_four-v0:width=5: 2 games")
    code, out, err = run("arena", "pettingzoo.classic.tictactoe_v3", *ARENA[2:], "--games", "1")
    assert code == 0, err
    code, out, err = run("demo", "classic/tictactoe-v3", "--iterations", "20")
    assert code == 0, err
    assert "player_1 plays" in out and out.strip().splitlines()[-1].startswith("result:")


def test_bad_envs_exit_2_naming_the_text() -> None:
    assert "unknown env 'chess'" in refused("arena", "chess", "--agents", "random", "random")
    assert "did you mean 'classic/chess-v6'" in refused("demo", "chess")
    assert "cannot import 'nowhere_xyz:make'" in refused("play", "nowhere_xyz:make")


def test_a_module_factory_in_the_current_folder_plays_in_workers(tmp_path: Path) -> None:
    """``module:factory`` from the folder the command runs in, sent to worker processes by
    its import path. The launcher stands in for the ``mcts-agents`` script: Python puts the
    script's folder on the path, not the current one."""
    (tmp_path / "my_games.py").write_text(
        "from mcts_agents.envs import connect_four_v0\n\n"
        "def small(width=5, height=4):\n"
        "    return connect_four_v0.env(width=width, height=height)\n"
    )
    launcher = tmp_path / "bin" / "launch.py"
    launcher.parent.mkdir()
    launcher.write_text(
        "import sys\n\n"
        "from mcts_agents.cli.main import main\n\n"
        "if __name__ == '__main__':\n"
        "    raise SystemExit(main(sys.argv[1:]))\n"
    )
    run_ = subprocess.run(
        [sys.executable, str(launcher), "arena", "my_games:small:height=5",
         "--agents", "random", "random:name=b", "--games", "4", "--workers", "2",
         "--no-progress"],
        cwd=tmp_path, capture_output=True, text=True, timeout=120,
        env={**os.environ, "PYTHONPATH": str(Path(mcts_agents.__file__).parents[1])},
    )  # fmt: skip
    assert run_.returncode == 0, run_.stderr
    assert run_.stdout.startswith("my_games:small:height=5: 4 games")
