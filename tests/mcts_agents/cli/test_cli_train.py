"""``mcts-agents train``: a run folder made, resumed by a second call (the step count goes on),
settings and games that do not fit the run refused with exit code 2 and one line; the trained
net plays through ``az:model=DIR``."""

from __future__ import annotations

import io
import json
import os
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from mcts_agents.alphazero.learn import load_model  # noqa: E402
from mcts_agents.cli.main import main  # noqa: E402

TINY = [
    "--simulations", "4", "--search-batch", "2", "--games", "1", "--train-steps", "2",
    "--gate-every", "0", "--channels", "4", "--blocks", "0", "--batch-size", "8",
]  # fmt: skip


def cli(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        try:
            code = main(list(args))
        except SystemExit as exit_:  # argparse's usage errors
            code = exit_.code if isinstance(exit_.code, int) else 0
    return code, out.getvalue(), err.getvalue()


def steps(folder: Path) -> list[int]:
    lines = (folder / "metrics.jsonl").read_text().splitlines()
    return [json.loads(line)["step"] for line in lines]


def test_train_makes_a_run_and_a_second_call_resumes_it(tmp_path: Path) -> None:
    run = tmp_path / "run"
    code, out, err = cli("train", "tic_tac_toe", "--out", str(run), "--steps", "4", *TINY)
    assert code == 0, err
    assert out.startswith("training tic_tac_toe (MNK(m=3, n=3, k=3")
    assert "iteration 1, step 2: loss " in out and "iteration 2, step 4: loss " in out
    assert "done: 2 iterations and 4 training steps in all" in out
    assert f"az:model={run},simulations=200" in out
    assert {"run.json", "metrics.jsonl", "checkpoint.pt", "best.pt"} <= {
        p.name for p in run.iterdir()
    }
    config = json.loads((run / "run.json").read_text())["config"]
    assert config["simulations"] == 4 and config["net"]["channels"] == 4
    assert steps(run) == [2, 4]

    code, out, err = cli("train", "tic_tac_toe", "--out", str(run), "--steps", "8")
    assert code == 0, err
    assert out.startswith("resuming tic_tac_toe") and "iteration 3, step 6" in out
    assert "done: 4 iterations and 8 training steps in all (2 iterations in this call)" in out
    assert steps(run) == [2, 4, 6, 8]
    assert load_model(run).game == "MNK(m=3, n=3, k=3, stones_per_turn=1, num_players=2, " \
        "name='tic_tac_toe')"  # fmt: skip
    # the same settings again are fine; the trained net plays
    code, _, err = cli("train", "tic_tac_toe", "--out", str(run), "--steps", "8", *TINY)
    assert code == 0, err
    code, out, err = cli("arena", "tic_tac_toe", "--agents", f"az:model={run},simulations=8",
                         "random", "--games", "2", "--no-progress")  # fmt: skip
    assert code == 0, err


def test_runs_that_do_not_fit_are_refused_in_one_line(tmp_path: Path) -> None:
    run = tmp_path / "run"
    assert cli("train", "tic_tac_toe", "--out", str(run), "--steps", "2", *TINY)[0] == 0
    refusals = [
        (["--steps", "4", "--simulations", "5", "--lr", "0.5"],
         "was started with --simulations 4 (given 5), --lr 0.001 (given 0.5)"),
        (["--steps", "4"], None),  # the env below differs
        ([], "train needs --minutes (for this call) or --steps (in all)"),
        (["--steps", "4", "--gate-every", "1", "--gate-games", "4"], "--gate-every 0 (given 1)"),
        (["--steps", "4", "--device", "nowhere"], "--device 'nowhere'"),
    ]  # fmt: skip
    for extra, message in refusals:
        env = "connect_four" if message is None else "tic_tac_toe"
        code, out, err = cli("train", env, "--out", str(run), *extra)
        assert code == 2 and out == "", (extra, out, err)
        assert len(err.strip().splitlines()) == 1, err
        expected = "trains MNK(m=3, n=3, k=3" if message is None else message
        assert expected in err, err
    code, _, err = cli("train", "tic_tac_toe", "--out", str(run / "best.pt"), "--steps", "2")
    assert code == 2 and "is a file; give a folder" in err
    link = tmp_path / "link"
    link.symlink_to(tmp_path / "gone")
    code, _, err = cli("train", "tic_tac_toe", "--out", str(link), "--steps", "2")
    assert code == 2 and f"--out {str(link)!r} is a link to" in err, err
    assert link.is_symlink() and not (tmp_path / "gone").exists()
    if hasattr(os, "mkfifo"):
        os.mkfifo(tmp_path / "pipe.png")
        code, _, err = cli("train", "tic_tac_toe", "--out", str(tmp_path / "z"), "--steps", "2",
                           "--plot", str(tmp_path / "pipe.png"))  # fmt: skip
        assert code == 2 and "--plot" in err and "is a FIFO" in err, err
        assert not (tmp_path / "z").exists()
    code, _, err = cli("train", "tic_tac_toe", "--out", str(tmp_path / "new"), "--steps", "2",
                       "--gate-every", "1", "--gate-games", "3")  # fmt: skip
    assert code == 2 and "gate_games must be even" in err
    code, _, err = cli("train", "tic_tac_toe", "--out", str(run), "--minutes", "0")
    assert code == 2 and "--minutes" in err
    code, _, err = cli("train", "no_such_game", "--out", str(run), "--steps", "2")
    assert code == 2 and "no_such_game" in err
    assert steps(run) == [2]  # nothing was trained by the refused commands


def test_selfplay_options_elo_and_a_metrics_plot(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    run, png = tmp_path / "run", tmp_path / "metrics.png"
    code, out, err = cli(
        "train", "tic_tac_toe", "--out", str(run), "--steps", "4", *TINY[:-6],
        "--gate-every", "1", "--gate-games", "2", "--channels", "4", "--blocks", "0",
        "--batch-size", "8", "--playout-cap", "0.5,2", "--resign=-0.9,0.5",
        "--value-mix", "0.25", "--elo-games", "2", "--gate-simulations", "3",
        "--teacher-iterations", "1", "--teacher-simulations", "20",
        "--plot", str(png),
    )  # fmt: skip
    assert code == 0, err
    config = json.loads((run / "run.json").read_text())["config"]
    assert config["playout_cap"] == [0.5, 2] and config["resign"] == [-0.9, 0.5]
    assert config["value_mix"] == 0.25 and config["elo_games"] == 2
    assert config["gate_simulations"] == 3
    assert (config["teacher_iterations"], config["teacher_simulations"]) == (1, 20)
    assert f"metrics plot: {png}" in out
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    for bad, words in (("--playout-cap", "two numbers"), ("--resign", "two numbers")):
        code, _, err = cli("train", "tic_tac_toe", "--out", str(tmp_path / "x"), "--steps",
                           "2", bad, "0.5")  # fmt: skip
        assert code == 2 and words in err
    code, _, err = cli("train", "tic_tac_toe", "--out", str(tmp_path / "y"), "--steps", "2",
                       "--plot", str(tmp_path / "metrics"))  # fmt: skip
    assert code == 2 and "metrics" in err
    assert not (tmp_path / "y").exists()  # refused before any training


def test_a_progress_bar_goes_to_stderr_when_tqdm_is_there(tmp_path: Path) -> None:
    pytest.importorskip("tqdm")
    code, out, err = cli("train", "tic_tac_toe", "--out", str(tmp_path), "--steps", "4", *TINY)
    assert code == 0, err
    assert "training: 100%" in err and "4/4" in err
    assert "iteration 2, step 4: loss " in out  # the lines stay on stdout


def test_a_forged_checkpoint_or_run_file_exits_2_naming_the_field(tmp_path: Path) -> None:
    run = tmp_path / "run"
    assert cli("train", "tic_tac_toe", "--out", str(run), "--steps", "2", *TINY)[0] == 0
    content = torch.load(run / "checkpoint.pt", weights_only=True)
    content["extra"]["promotions"] = -3
    torch.save(content, run / "checkpoint.pt")
    code, _, err = cli("train", "tic_tac_toe", "--out", str(run), "--steps", "4")
    assert code == 2 and "'promotions' should be an int in [0, 1], got -3" in err, err
    assert err.strip().splitlines()[-1].startswith("mcts-agents: error: ")  # after tqdm's bar
    content["extra"]["promotions"] = 0
    content["torch_rng"] = torch.zeros(7, dtype=torch.uint8)
    torch.save(content, run / "checkpoint.pt")
    code, _, err = cli("train", "tic_tac_toe", "--out", str(run), "--steps", "4")
    assert code == 2 and "'torch_rng'" in err, err
    (run / "run.json").write_text("[" * 200_000 + "]" * 200_000)
    code, _, err = cli("train", "tic_tac_toe", "--out", str(run), "--steps", "4")
    assert code == 2 and "run.json" in err and "nested deeper than 64 levels" in err, err
    assert steps(run) == [2]


def test_a_network_or_batch_too_big_exits_2_naming_the_option(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from mcts_agents.alphazero.learn import net, trainer
    from mcts_agents.cli import train

    assert (train.MAX_CHANNELS, train.MAX_BLOCKS) == (net.MAX_CHANNELS, net.MAX_BLOCKS)
    assert train.MAX_BATCH_SIZE == trainer.MAX_BATCH_SIZE
    base = ["train", "tic_tac_toe", "--out", str(tmp_path / "run"), "--steps", "2"]
    for extra, words in (
        (["--batch-size", "1000000000"], "--batch-size: must be an int between 1 and 65536"),
        (["--channels", "100000", "--blocks", "1000"], "--channels: must be an int between 1 and"),
        (["--channels", "4096", "--blocks", "256"], "--channels and --blocks (4096 and 256)"),
    ):
        code, _, err = cli(*base, *extra)
        assert code == 2 and words in err, err
    monkeypatch.setattr(net, "_memory", lambda device: (2**30, "a test's 2 GiB"))
    code, _, err = cli(*base, "--channels", "1024", "--blocks", "0", "--batch-size", "65536")
    assert code == 2 and "--batch-size (65536): too large" in err, err
    assert not (tmp_path / "run").exists()  # refused before the run's folder was made
