"""The Connect Four AlphaZero evaluation's pieces (the runs themselves are by hand): the
win-or-block player on hand-made positions, and matches that pair openings and swap seats."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks.alphazero_c4_eval import GAME, WinOrBlock, _promotion_seconds, match, play_game


def after(moves: list[int]) -> object:
    state = GAME.initial_state()
    for move in moves:
        state = GAME.next_state(state, move)
    return state


@pytest.mark.parametrize(
    ("moves", "expected"),
    [
        ([0, 6, 1, 6, 2], 3),  # block a row of three
        ([0, 6, 1, 6, 2, 6], 3),  # my own row of three first, though their column threatens
        ([0, 6, 1, 6, 0, 6], 6),  # block a column of three
        ([0, 1, 1, 2, 2, 3, 2, 3, 3, 6], 3),  # complete a diagonal: (0,0) (1,1) (2,2) (3,3)
        ([1, 0, 2, 1, 3, 2, 6, 3, 2], 0),  # my four in row 1 before blocking theirs at 4
        ([1, 0, 2, 1, 3], 4),  # block the row 1-2-3 at its open end
        ([3, 3, 2, 4], None),  # no four to take or block: any legal move
    ],
)
def test_win_or_block_takes_wins_then_blocks(moves: list[int], expected: int | None) -> None:
    state = after(moves)
    chosen = {WinOrBlock(seed).move(state) for seed in range(20)}
    if expected is None:
        assert chosen <= set(GAME.legal_actions(state)) and len(chosen) > 1
    else:
        assert chosen == {expected}


def test_a_match_pairs_openings_and_swaps_seats() -> None:
    weak = "mcts:iterations=2,playout=random,backend=python"
    strong = "mcts:iterations=300,playout=random,backend=python"
    result = match(strong, weak, games=4, seed=1, workers=1)
    assert result["wins"] + result["draws"] + result["losses"] == 4
    assert result["score"] >= 0.75 and result["ci95"][0] <= result["score"]
    first = play_game((strong, "win-or-block", 11, 0, 2))
    again = play_game((strong, "win-or-block", 11, 0, 2))
    assert first["points"] == again["points"] and first["plies"] == again["plies"]


def test_promotion_seconds_come_from_the_metrics(tmp_path: Path) -> None:
    lines = [{"iteration": 1, "seconds": 12.5}, {"iteration": 2, "seconds": 30.0}]
    (tmp_path / "metrics.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    assert _promotion_seconds(tmp_path) == {0: 0.0, 1: 12.5, 2: 30.0}
