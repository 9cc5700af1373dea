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


def test_equal_simulations_replay_the_same_games_from_the_same_seed() -> None:
    """With --iterations every move runs at most that many simulations (fewer once the root is
    proven), whatever the load, so the same seed gives the same games: an A/B of the playouts'
    quality rather than their cost."""
    argv = ["--game", "mnk", "--env", "preset=gomoku", "--games", "2", "--iterations", "40",
            "--opening-plies", "2", "--workers", "1"]  # fmt: skip
    first, second = playout_ab.main(argv), playout_ab.main(argv)
    assert first == second
    assert first["simulations_decisive"] > 0 and first["simulations_uniform"] > 0
