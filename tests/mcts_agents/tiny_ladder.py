"""A hand-written tic-tac-toe ladder for the tests of ``rate``'s users (the CLI, the trackers):
the levels of ``LEVEL_SPECS`` with made-up ratings (100 Elo apart), so that the tests need no
calibration in the package."""

from __future__ import annotations

from pathlib import Path

from mcts_agents.agents.ladder import LEVEL_SPECS, Ladder, Level, save_ladder

TINY = Ladder(
    game="tic_tac_toe",
    levels=tuple(
        Level(f"L{i}", spec, 100.0 * i, 100.0 * i - 20 * min(i, 1), 100.0 * i + 20 * min(i, 1))
        for i, spec in enumerate(LEVEL_SPECS["tic_tac_toe"])
    ),
    date="2026-11-25",
    version="test",
    command="written by hand for the tests",
    games=0,
    notes="made-up ratings, not a calibration",
)


def tiny_ladder_file(folder: Path) -> Path:
    """``TINY`` saved as ``folder/tic_tac_toe.json``."""
    path = folder / "tic_tac_toe.json"
    save_ladder(TINY, path)
    return path
