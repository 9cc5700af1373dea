"""The command line end to end, in subprocesses: list, arena, play, errors, Ctrl-C and resume."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from mcts_agents import play_match


def without_times(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in r.items() if k != "times"} for r in records]


def cli(*args: str, stdin: str = "", timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mcts_agents", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def test_list_shows_envs_and_agents_with_options() -> None:
    run = cli("list")
    assert run.returncode == 0, run.stderr
    assert "connect_four" in run.stdout and "width=7" in run.stdout
    assert "tic_tac_toe_deluxe" in run.stdout
    assert "mcts" in run.stdout and "iterations=None" in run.stdout and "c=1.4" in run.stdout


def test_arena_match_prints_the_table_and_records_the_games(tmp_path: Path) -> None:
    out = tmp_path / "games.jsonl"
    run = cli(
        "arena", "tic_tac_toe", "--agents", "mcts:iterations=1000", "random",
        "--games", "4", "--seed", "3", "--out", str(out), "--no-progress",
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    row = next(line for line in lines if line.startswith("mcts:iterations=1000"))
    games, wins, draws, losses = (int(x) for x in row.split()[1:5])
    assert games == 4 and losses == 0 and wins + draws == 4
    assert any(line.startswith("Elo mcts:iterations=1000 - random:") for line in lines)
    header, *records = (json.loads(line) for line in out.read_text().splitlines())
    assert header["agents"] == ["mcts:iterations=1000", "random"] and header["seed"] == 3
    assert [r["index"] for r in records] == [0, 1, 2, 3]
    assert sum(r["winner"] == "mcts:iterations=1000" for r in records) == wins


def test_arena_tournament_with_plot(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    plot = tmp_path / "elo.png"
    run = cli(
        "arena", "tic_tac_toe", "--agents", "mcts:iterations=300", "mcts:iterations=5", "random",
        "--games", "2", "--anchor", "random", "--plot", str(plot),
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert "round robin" in run.stdout and "anchored at 'random'" in run.stdout
    row = next(line for line in run.stdout.splitlines() if line.startswith("random "))
    assert "+0.0" in row
    assert plot.read_bytes()[:4] == b"\x89PNG"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["arena", "chess", "--agents", "random", "random"], "unknown env 'chess'"),
        (["arena", "tic_tac_toe", "--agents", "mcts:bogus=1", "random"], "'mcts:bogus=1'"),
        (["arena", "tic_tac_toe", "--agents", "alphazero", "random"], "unknown kind 'alphazero'"),
        (["arena", "connect_four:width=0", "--agents", "random", "random"], "width"),
        (["arena", "tic_tac_toe", "--agents", "random", "random", "--games", "x"], "'x'"),
        (["play", "tic_tac_toe", "--p1", "mcts:iterations=abc"], "iterations"),
    ],
)
def test_bad_input_exits_2_with_one_line(args: list[str], message: str) -> None:
    run = cli(*args)
    assert run.returncode == 2
    assert message in run.stderr
    assert len(run.stderr.strip().splitlines()) == 1 and "Traceback" not in run.stderr


def test_play_against_the_agent_with_a_bad_move_re_asked() -> None:
    # Tic-tac-toe: the human plays the first free cell each time; "x" and an occupied cell are
    # refused and asked again. Enough moves are given for any game.
    moves = ["4", "x", "4", *[str(i) for i in range(9) for _ in range(2)]]
    run = cli("play", "tic_tac_toe", "--p1", "mcts:iterations=2000", stdin="\n".join(moves))
    assert run.returncode == 0, run.stderr
    assert "'x' is not an integer" in run.stdout
    assert "4 is not a legal move" in run.stdout
    assert "player_1 plays" in run.stdout and "iterations in" in run.stdout
    assert "principal variation:" in run.stdout
    result = run.stdout.strip().splitlines()[-1]
    assert result.startswith("result: player_0 ")
    assert "player_0 +1" not in result  # the search never loses to this


def test_play_exits_1_when_input_ends() -> None:
    run = cli("play", "tic_tac_toe", "--p1", "random", stdin="4\n")
    assert run.returncode == 1
    assert "input ended" in run.stderr


# The Python search: games last long enough (~0.3 s) for the signal to land between them.
SLOW_MCTS = "mcts:iterations=300,backend=python"


def test_ctrl_c_keeps_every_finished_game_and_a_rerun_resumes(tmp_path: Path) -> None:
    out = tmp_path / "games.jsonl"
    args = [
        "arena", "connect_four", "--agents", SLOW_MCTS, "random",
        "--games", "6", "--out", str(out), "--no-progress", "--workers", "2",
    ]  # fmt: skip
    process = subprocess.Popen(
        [sys.executable, "-m", "mcts_agents", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if out.exists() and len(out.read_text().splitlines()) >= 3:  # header and 2 games
            break
        time.sleep(0.05)
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=30)
    kept = [json.loads(line) for line in out.read_text().splitlines()][1:]
    kept_indices = [r["index"] for r in kept]  # in the order the workers finished them
    assert len(set(kept_indices)) == len(kept_indices) and set(kept_indices) <= set(range(6))
    if process.returncode == 0:  # finished before the signal arrived: nothing to resume
        assert sorted(kept_indices) == list(range(6))
        return
    assert process.returncode == 130 and "interrupted" in stderr
    assert "Traceback" not in stderr and len(kept) < 6
    run = cli(*args)
    assert run.returncode == 0, run.stderr
    records = [json.loads(line) for line in out.read_text().splitlines()][1:]
    assert sorted(r["index"] for r in records) == list(range(6))  # none lost, none twice
    assert records[: len(kept)] == kept
    # The same games as an uninterrupted run in one process.
    clean = play_match("connect_four", [SLOW_MCTS, "random"], games=6)
    assert without_times(sorted(records, key=lambda r: r["index"])) == without_times(clean.records)
