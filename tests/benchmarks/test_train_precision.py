"""``benchmarks/train_precision.py``: both precisions timed on the same steps, the ratio theirs."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from benchmarks.train_precision import main  # noqa: E402


def test_both_precisions_timed_ratio_of_medians(capsys: pytest.CaptureFixture[str]) -> None:
    data = main(["--game", "tic_tac_toe", "--repeats", "3", "--steps", "1", "--batch-size", "8"])
    times = data["times"]
    assert sorted(times) == ["bfloat16", "float32"]
    assert all(len(v) == 3 and all(t > 0 for t in v) for v in times.values())
    middle = {p: sorted(v)[1] for p, v in times.items()}
    assert data["ratio"] == pytest.approx(middle["float32"] / middle["bfloat16"])
    assert "bfloat16 is" in capsys.readouterr().out
