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


def test_the_holdem_duel_plays_duplicate_deals_and_reports_the_compiled_side() -> None:
    pytest.importorskip("numba")
    rows = poker_speed.holdem_duel(0.002, 3, seed=1)
    assert [r["game"] for r in rows] == ["limit_holdem", "nolimit_holdem"]
    for row in rows:
        assert row["low"] <= row["mean"] <= row["high"] and row["pairs"] == 3
        assert row["sims_per_move"]["compiled"] > 0 and row["sims_per_move"]["python"] > 0
