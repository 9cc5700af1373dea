"""The vector-env benchmark's pieces, on tiny budgets (the benchmark is run by hand)."""

from __future__ import annotations

from benchmarks.vector import run


def test_a_native_run_reports_steps_and_the_share_of_time_in_the_kernel() -> None:
    report = run("tic_tac_toe", "native", num_envs=2, steps=2, seed=0, iterations=5)
    assert report["steps_per_s"] > 0
    assert 0 < report["kernel_share"] <= report["search_share"] <= 1


def test_a_sync_run_reports_steps_and_its_own_kernel_share() -> None:
    # the single searches' kernel time over the step time: the bound on any batching's gain
    report = run("tic_tac_toe", "sync", num_envs=2, steps=2, seed=0, iterations=5)
    assert report["steps_per_s"] > 0
    assert 0 < report["kernel_share"] <= 1 and "search_share" not in report


def test_an_async_run_reports_steps_only() -> None:
    report = run("tic_tac_toe", "async", num_envs=2, steps=2, seed=0, iterations=5)
    assert report["steps_per_s"] > 0 and "kernel_share" not in report
