"""The equal-time match runner: its statistics, and a smoke run of very short games."""

from __future__ import annotations

import math
import random

import pytest

from benchmarks import matches

pyspiel = pytest.importorskip("pyspiel")


def test_wilson_interval_known_values() -> None:
    # 0 of 10: the 95% Wilson interval is [0, 0.2775] (z = 1.96)
    low, high = matches.wilson(0, 10)
    assert low == 0.0 and high == pytest.approx(0.2775, abs=1e-4)
    # 5 of 10: symmetric about 0.5, [0.2366, 0.7634]
    low, high = matches.wilson(5, 10)
    assert low == pytest.approx(0.2366, abs=1e-4) and high == pytest.approx(0.7634, abs=1e-4)


def test_elo_of_a_score() -> None:
    assert matches.elo(0.5) == 0.0
    assert matches.elo(0.75) == pytest.approx(400 * math.log10(3))
    assert matches.elo(1.0) == math.inf and matches.elo(0.0) == -math.inf


def test_pairs_share_an_opening_and_swap_seats() -> None:
    tasks = matches.tasks_for("othello", 0.1, 6, 0, 3, {})
    for a, b in zip(tasks[::2], tasks[1::2], strict=True):
        assert a["opening"] == b["opening"] and len(a["opening"]) == 3
        assert (a["ours_seat"], b["ours_seat"]) == (0, 1)
    assert len({tuple(t["opening"]) for t in tasks}) > 1


def test_two_short_games_per_game_report_consistent_counts(
    capsys: pytest.CaptureFixture[str],
) -> None:
    data = matches.main(["--game", "connect_four,othello", "--games", "2", "--time", "0.01"])
    assert [m["game"] for m in data["matches"]] == ["connect_four", "othello"]
    for m in data["matches"]:
        s = m["summary"]
        assert s["games"] == 2 == s["wins"] + s["draws"] + s["losses"]
        assert [r["ours_seat"] for r in m["records"]] == [0, 1]
        for r in m["records"]:
            moves = r["sides"]["ours"]["moves"] + r["sides"]["cpp"]["moves"]
            assert r["plies"] == len(r["opening"]) + moves  # passes are moves too
            assert abs(r["sides"]["ours"]["moves"] - r["sides"]["cpp"]["moves"]) <= 1
        for side in ("ours", "cpp"):
            assert s[side]["moves"] == sum(r["sides"][side]["moves"] for r in m["records"])
            assert 0 < s[side]["time_per_move"] < 1.0
    assert "ours W/D/L" in capsys.readouterr().out


def test_ultimate_tic_tac_toe_moves_map_both_ways() -> None:
    """OpenSpiel's two-phase moves (board, then cell) map to our single actions: the legal
    moves agree at every ply of 10 random games, and so do the final returns."""
    spec = matches.GAMES["ultimate_tic_tac_toe"]
    rng = random.Random(0)
    for seed in range(10):
        env = spec.make_env()
        env.reset(seed=seed)
        state = pyspiel.load_game(spec.openspiel_name).new_initial_state()
        while not state.is_terminal():
            matches.check_same_position(spec, env.unwrapped, state)
            action = rng.choice(matches.legal_ours(spec, state))
            env.step(action)
            matches.apply_ours(spec, state, action)
        assert [env.rewards[a] for a in env.possible_agents] == state.returns()


def test_tic_tac_toe_and_ultimate_matches_run(capsys: pytest.CaptureFixture[str]) -> None:
    data = matches.main(
        ["--game", "tic_tac_toe,ultimate_tic_tac_toe", "--games", "2", "--time", "0.01"]
    )
    for m in data["matches"]:
        assert m["summary"]["games"] == 2
        for r in m["records"]:
            moves = r["sides"]["ours"]["moves"] + r["sides"]["cpp"]["moves"]
            assert r["plies"] == len(r["opening"]) + moves
    assert "Ultimate tic-tac-toe" in capsys.readouterr().out
