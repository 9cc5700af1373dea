"""What the training loop refuses before it starts: hidden-information games (its searches
read the true state), and more worker processes than ``MAX_WORKERS``; and its workers end when
the process that trains is killed."""

from __future__ import annotations

import contextlib
import io
import os
import signal
import subprocess
import sys
import time
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from mcts_agents.adapters import game_from_env  # noqa: E402
from mcts_agents.agents.specs import parse_env_spec  # noqa: E402
from mcts_agents.alphazero.learn import RunConfig, train  # noqa: E402
from mcts_agents.alphazero.learn.pools import pool_size  # noqa: E402
from mcts_agents.cli.main import main  # noqa: E402
from mcts_agents.envs.games.mnk import MNK  # noqa: E402
from mcts_agents.errors import InvalidOptionError, InvalidStateError, UnpicklableError  # noqa: E402
from tests.processes import alive, children, cpu_seconds, kill_and_find_survivors  # noqa: E402

ROOT = Path(__file__).resolve().parents[4]


def cli(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        try:
            code = main(list(args))
        except SystemExit as exit_:  # argparse's usage errors
            code = exit_.code if isinstance(exit_.code, int) else 0
    return code, out.getvalue(), err.getvalue()


def one_line(code: int, out: str, err: str) -> str:
    assert code == 2 and out == "", (code, out, err)
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    return err


@pytest.mark.parametrize("env", ["phantom_ttt", "kuhn_poker"])
def test_training_refuses_hidden_information_games(env: str, tmp_path: Path) -> None:
    live = parse_env_spec(env)()
    live.reset(seed=0)
    game, _ = game_from_env(live)
    with pytest.raises(InvalidStateError, match=r"training loop plays perfect-information games"):
        train(game, tmp_path / "run", steps=1)
    err = one_line(*cli("train", env, "--out", str(tmp_path / "run"), "--steps", "1"))
    assert "has hidden information (perfect_information is False)" in err
    assert not (tmp_path / "run").exists()


def test_more_workers_than_the_bound_are_refused(tmp_path: Path) -> None:
    with pytest.raises(InvalidOptionError, match=r"workers must be an int in \[1, 256\].*100000"):
        RunConfig(workers=100_000)
    err = one_line(*cli("train", "tic_tac_toe", "--out", str(tmp_path / "run"), "--steps", "1",
                        "--workers", "100000"))  # fmt: skip
    assert "--workers: must be an int between 1 and 256, got 100000" in err
    assert not (tmp_path / "run").exists()


def test_the_pool_has_no_more_processes_than_games_at_once() -> None:
    assert pool_size(RunConfig(workers=200, games_per_iteration=16, gate_games=20)) == 16
    assert pool_size(RunConfig(workers=200, games_per_iteration=4, gate_games=40)) == 20
    assert pool_size(RunConfig(workers=200, games_per_iteration=4, elo_games=60)) == 30
    assert pool_size(RunConfig(workers=3, games_per_iteration=16)) == 3
    assert pool_size(RunConfig(workers=8, games_per_iteration=1, gate_every=0)) == 1


def test_a_game_that_cannot_be_sent_to_the_workers_is_named(tmp_path: Path) -> None:
    class LocalMNK(MNK):  # a local class: pickle cannot find it by name
        pass

    config = RunConfig(workers=2, games_per_iteration=2)
    with pytest.raises(UnpicklableError, match=r"the game .*LocalMNK.*cannot be pickled"):
        train(LocalMNK(3, 3, 3), tmp_path / "run", config=config, steps=1)
    assert not (tmp_path / "run").exists()  # refused before the run's folder is written
    assert issubclass(UnpicklableError, TypeError) and issubclass(UnpicklableError, ValueError)


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc (Linux)")
@pytest.mark.parametrize("how", [signal.SIGKILL, signal.SIGTERM], ids=["SIGKILL", "SIGTERM"])
def test_training_workers_end_when_the_training_process_is_killed(
    tmp_path: Path, how: signal.Signals
) -> None:
    # self-play games of many simulations: a worker that only ends between games (as a
    # worker of a plain multiprocessing pool does, on its queue's EOF) outlives the test
    command = [sys.executable, "-m", "mcts_agents", "train", "connect_four", "--out",
               str(tmp_path / "run"), "--steps", "100000", "--workers", "2", "--simulations",
               "5000", "--search-batch", "1", "--games", "2", "--train-steps", "1",
               "--gate-every", "0", "--channels", "2", "--blocks", "0",
               "--batch-size", "4"]  # fmt: skip
    environment = {**os.environ, "PYTHONPATH": str(ROOT)}
    trainer = subprocess.Popen(
        command, cwd=ROOT, env=environment, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    try:
        deadline = time.monotonic() + 120.0
        workers: dict[int, str] = {}
        everything: dict[int, str] = {}
        while len(workers) < 2 and time.monotonic() < deadline and trainer.poll() is None:
            time.sleep(0.2)
            workers = {p: c for p, c in children(trainer.pid).items() if "spawn_main" in c}
        assert len(workers) == 2, (trainer.poll(), children(trainer.pid))
        # past their imports (torch: a second or two of CPU) and playing
        while min(cpu_seconds(pid) for pid in workers) < 4.0 and time.monotonic() < deadline:
            time.sleep(0.2)
        everything = children(trainer.pid)  # the workers and multiprocessing's helpers
        assert not kill_and_find_survivors(trainer, everything, how=how)
    finally:
        if trainer.poll() is None:
            trainer.kill()
        for pid in [*children(trainer.pid), *everything]:  # what outlived the test
            if alive(pid):
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
