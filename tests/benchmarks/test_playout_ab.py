"""benchmarks/playout_ab.py: the decisive side really plays decisive playouts, both sides play."""

from __future__ import annotations

import pytest

pytest.importorskip("numba")

from benchmarks import playout_ab


def test_a_tiny_ab_plays_every_game_with_both_playouts() -> None:
    summary = playout_ab.main(
        ["--game", "tic_tac_toe", "--games", "2", "--time", "0.005", "--workers", "1"]
    )
    assert summary["games"] == 2
    assert summary["decisive_wins"] + summary["draws"] + summary["decisive_losses"] == 2
    assert summary["simulations_decisive"] > 0 and summary["simulations_uniform"] > 0


def test_the_decisive_side_is_the_one_with_the_slower_playout() -> None:
    """On Gomoku the decisive playout scans the board for wins every ply: at equal time it runs
    far fewer simulations, which tells the two sides apart from outside."""
    summary = playout_ab.main(
        ["--game", "mnk", "--env", "preset=gomoku", "--games", "1", "--time", "0.01",
         "--opening-plies", "0", "--workers", "1"]
    )  # fmt: skip
    assert summary["simulations_decisive"] * 5 < summary["simulations_uniform"]
