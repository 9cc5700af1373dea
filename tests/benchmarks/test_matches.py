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
    """Equal simulations per move, not equal time: what each side does per move cannot depend
    on the machine's load."""
    data = matches.main(["--game", "connect_four,othello", "--games", "2", "--simulations", "8"])
    assert [m["game"] for m in data["matches"]] == ["connect_four", "othello"]
    for m in data["matches"]:
        s = m["summary"]
        assert m["simulations"] == 8
        assert s["games"] == 2 == s["wins"] + s["draws"] + s["losses"]
        assert [r["ours_seat"] for r in m["records"]] == [0, 1]
        for r in m["records"]:
            moves = r["sides"]["ours"]["moves"] + r["sides"]["cpp"]["moves"]
            assert r["plies"] == len(r["opening"]) + moves  # passes are moves too
            assert abs(r["sides"]["ours"]["moves"] - r["sides"]["cpp"]["moves"]) <= 1
        for side in ("ours", "cpp"):
            assert s[side]["moves"] == sum(r["sides"][side]["moves"] for r in m["records"])
            assert s[side]["time_per_move"] > 0
            # a proven root may stop a search early; no search runs past its budget
            assert 1 <= s[side]["sims_per_move"] <= 8
            assert s[side]["empty_searches"] == 0
    assert "ours W/D/L" in capsys.readouterr().out


class _EmptyRoot:
    """What OpenSpiel's ``MCTSBot.mcts_search`` returns when its clock runs out before the
    first simulation: a root without children, whose ``best_child()`` is ``None``."""

    children: list[object] = []
    explore_count = 0

    def best_child(self) -> None:
        return None


class _EmptySearchBot:
    def mcts_search(self, state: object) -> _EmptyRoot:
        return _EmptyRoot()


@pytest.mark.parametrize("game", ["connect_four", "ultimate_tic_tac_toe"])
def test_cpp_search_without_children_plays_a_random_legal_move_and_is_counted(
    monkeypatch: pytest.MonkeyPatch, game: str
) -> None:
    monkeypatch.setattr(matches, "make_bot", lambda *args, **kwargs: _EmptySearchBot())
    task = {**matches.tasks_for(game, 0.01, 2, 0, 0, {})[0], "simulations": 4}
    record = matches.play_game(task)  # every C++ move is checked legal by the next position
    cpp = record["sides"]["cpp"]
    assert cpp["moves"] > 0 and cpp["sims"] == 0
    assert cpp["empty_searches"] >= cpp["moves"]  # a two-phase move may be two searches
    assert matches.summarize([record])["cpp"]["empty_searches"] == cpp["empty_searches"]
    again = matches.play_game(task)  # the fallback moves are seeded
    assert again["plies"] == record["plies"] and again["result"] == record["result"]


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


def test_tic_tac_toe_and_ultimate_matches_run_at_equal_time(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The equal-time path; what is asserted holds whatever the time buys (a C++ search that
    comes back empty on a loaded machine plays a random move, counted, rather than crash)."""
    data = matches.main(
        ["--game", "tic_tac_toe,ultimate_tic_tac_toe", "--games", "2", "--time", "0.01"]
    )
    for m in data["matches"]:
        assert m["summary"]["games"] == 2
        for r in m["records"]:
            moves = r["sides"]["ours"]["moves"] + r["sides"]["cpp"]["moves"]
            assert r["plies"] == len(r["opening"]) + moves
    assert "Ultimate tic-tac-toe" in capsys.readouterr().out
