"""The PettingZoo poker speed benchmark's table, on tiny budgets (the benchmark itself is run by
hand; see docs/benchmarks.md)."""

from __future__ import annotations

import pytest

from benchmarks import poker_speed


def test_the_table_has_a_row_per_position_naming_what_runs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    pytest.importorskip("numba")
    monkeypatch.setattr(poker_speed, "CORE_ITERATIONS", 100)
    monkeypatch.setattr(poker_speed, "COMPILED_ITERATIONS", 1000)
    monkeypatch.setattr(poker_speed, "CLONE_ITERATIONS", 10)
    rows = poker_speed.pettingzoo_speed(repeats=1)
    assert [r["position"] for r in rows] == list(poker_speed.POSITIONS)
    leduc, holdem = ("CompiledISMCTS", "HoldemISMCTS")  # the factory's choices with numba
    assert [r["runs_on"] for r in rows] == [
        f"RLCardLeduc, {leduc}",
        f"LimitHoldem, {holdem}",
        f"LimitHoldem, {holdem}",
        f"NoLimitHoldem, {holdem}",
        f"NoLimitHoldem, {holdem}",
    ]
    assert all(r["clone_sims_per_s"] > 0 for r in rows)
    assert all(r["core_sims_per_s"] > 0 and r["speedup"] > 0 for r in rows)
    assert all(r["python_sims_per_s"] > 0 and r["compiled_vs_python"] > 0 for r in rows)
