"""``benchmarks/gumbel.py``'s paired matches: seats swapped, scores and Elo read from the games;
the runs themselves are made by hand (``python -m benchmarks.gumbel ...``)."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from benchmarks.gumbel import pair_match  # noqa: E402
from mcts_agents.alphazero.learn import NetConfig, build_net, save_net  # noqa: E402
from mcts_agents.envs.games.mnk import MNK  # noqa: E402

TTT = MNK(3, 3, 3)


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory) -> str:
    path = tmp_path_factory.mktemp("net") / "net.pt"
    save_net(path, build_net(TTT, NetConfig(channels=4, blocks=0, value_hidden=4), seed=0), TTT)
    return str(path)


def test_a_side_against_itself_scores_one_half_in_every_pair(model: str) -> None:
    """PUCT and deterministic Gumbel search play the same moves whatever their seeds, so each
    pair of games from one opening is the same game with the seats swapped: one half."""
    for side in (("puct", 4), ("gumbel-det", 4)):
        result = pair_match("tic_tac_toe", model, side, side, 6, 0, None)
        assert result["score"] == 0.5 and result["elo"] == 0.0
        assert result["wins"] == result["losses"]


def test_scores_and_elo_of_a_match(model: str) -> None:
    result = pair_match("tic_tac_toe", model, ("gumbel", 8), ("puct", 2), 4, 1, None)
    assert result["wins"] + result["draws"] + result["losses"] == result["games"] == 4
    assert result["score"] == (result["wins"] + result["draws"] / 2) / 4
    low, high = result["ci95"]
    assert low <= result["score"] <= high
    if 0 < result["score"] < 1:
        assert result["elo"] == pytest.approx(
            400 * math.log10(result["score"] / (1 - result["score"]))
        )
    assert Path(model).is_file()
