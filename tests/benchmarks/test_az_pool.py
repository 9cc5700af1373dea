"""The ``az:`` pool benchmark on a tiny budget (the benchmark is run by hand)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("torch")

from benchmarks.az_pool import main


def test_both_modes_run_and_play_the_same_games(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "az.json"
    argv = ["--num-envs", "2", "--steps", "1", "--repeats", "1", "--simulations", "4",
            "--channels", "4", "--blocks", "0", "--json", str(out)]  # fmt: skip
    assert main(argv) == 0
    assert "load average before" in capsys.readouterr().out
    (row,) = json.loads(out.read_text())["rows"]
    assert row["same_games"] is True and row["num_envs"] == 2
    assert row["lockstep_steps_per_s"] > 0 and row["per_tree_steps_per_s"] > 0
