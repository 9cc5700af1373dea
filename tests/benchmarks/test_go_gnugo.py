"""benchmarks/go_gnugo.py: games at a fixed number of simulations a move record the machine's
rate and resume by setting; here against a stand-in for GNU Go (our engine playing ``random``
behind the same command line), so the test needs no GNU Go."""

from __future__ import annotations

import argparse
import json
import stat
import sys
from pathlib import Path

import pytest

pytest.importorskip("numba")

from benchmarks import go_gnugo


def stand_in(folder: Path) -> str:
    """A program that takes GNU Go's options and plays ``random`` over GTP."""
    script = folder / "fake_gnugo"
    script.write_text(
        f"#!/bin/sh\nexec {sys.executable} -m mcts_agents gtp --size 5 --no-superko "
        "--resign-threshold 0 random\n"
    )
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return str(script)


def arguments(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    go_gnugo.add_arguments(parser)
    parser.add_argument("--size", type=int, default=5)
    parser.add_argument("--workers", type=int, default=1)
    return parser.parse_args(list(argv))


def test_games_at_a_fixed_budget_record_the_rate_and_resume(tmp_path: Path) -> None:
    out = tmp_path / "games.jsonl"
    argv = ["--games", "2", "--simulations", "1200", "--gnugo-binary", stand_in(tmp_path),
            "--out", str(out)]  # fmt: skip
    summary = go_gnugo.gnugo_games(arguments(*argv))
    assert summary is not None and summary["games"] == 2 and summary["budget"] == "1200 simulations"
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert sorted(r["index"] for r in records) == [0, 1]
    assert {r["black"] for r in records} == {"ours", "gnugo"}  # colours alternate
    for r in records:
        assert r["simulations"] == 1200 and r["rate"] > 0 and r["ours_moves"] > 0
        assert r["sims_per_s"] > 0 and r["move_time"] is None
    again = go_gnugo.gnugo_games(arguments(*argv))  # resumed: nothing left to play
    assert again is not None and again["games"] == 2
    assert len(out.read_text().splitlines()) == 2
    other = go_gnugo.gnugo_games(arguments(*argv[:3], "1300", *argv[4:]))  # another setting
    assert other is not None and other["games"] == 2
    assert len(out.read_text().splitlines()) == 4


def test_kernel_options_reach_our_engine_and_set_apart_their_records(tmp_path: Path) -> None:
    assert go_gnugo.our_spec(900, 2.0, "defend=1, c=0.2") == (
        "mcts:iterations=900,kernel.defend=1,kernel.c=0.2"
    )
    out = tmp_path / "games.jsonl"
    argv = ["--games", "1", "--simulations", "1000", "--gnugo-binary", stand_in(tmp_path),
            "--out", str(out)]  # fmt: skip
    summary = go_gnugo.gnugo_games(arguments(*argv, "--kernel", "defend=1"))
    assert summary is not None and summary["games"] == 1 and summary["kernel"] == "defend=1"
    (record,) = [json.loads(line) for line in out.read_text().splitlines()]
    assert record["kernel"] == "defend=1" and record["go_options"]["defend"] is True
    assert record["go_options"]["c"] == go_gnugo.go_options("")["c"]
    # another setting: not resumed from that record (the defaults), nor an unknown name played
    other = go_gnugo.gnugo_games(arguments(*argv, "--kernel", "defend=0"))
    assert other is not None and other["games"] == 1 and len(out.read_text().splitlines()) == 2
    with pytest.raises(ValueError, match=r"'defnd' \(did you mean 'defend'"):
        go_gnugo.gnugo_games(arguments(*argv, "--kernel", "defnd=1"))


def test_no_game_starts_after_stop_after_and_a_missing_program_plays_none(
    tmp_path: Path,
) -> None:
    out = tmp_path / "games.jsonl"
    argv = ["--games", "3", "--simulations", "1000", "--gnugo-binary", stand_in(tmp_path),
            "--out", str(out), "--stop-after", "1e-9"]  # fmt: skip
    summary = go_gnugo.gnugo_games(arguments(*argv))
    assert summary is not None and summary["games"] == 0 and not out.exists()
    missing = arguments("--games", "1", "--gnugo-binary", str(tmp_path / "none"))
    assert go_gnugo.gnugo_games(missing) is None


def test_gnugo_scores_read_for_ours() -> None:
    assert go_gnugo._ours_ahead("B+3.5", 0) == 3.5
    assert go_gnugo._ours_ahead("B+3.5 (upper bound: ...)", 1) == -3.5
    assert go_gnugo._ours_ahead("W+12", 1) == 12.0
    assert go_gnugo._ours_ahead("0", 0) == 0.0
