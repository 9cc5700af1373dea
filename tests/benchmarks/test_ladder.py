"""The ladder calibration script: its fit and checks, and a tiny run that writes a ladder."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from benchmarks import ladder as script
from mcts_agents.agents.ladder import load_ladder


def test_one_pair_fit_is_the_elo_of_its_score() -> None:
    # 75% against the level below is 400 * log10(3) ~ 190.8 Elo, whatever the fit's method
    rows = script.fit(["random", "mcts:iterations=8"], [script.Pair(0, 1, 100, 75.0)])
    assert rows[0].level.elo == 0.0
    assert rows[1].level.elo == pytest.approx(400 * math.log10(3), abs=1e-6)
    assert rows[1].gap is not None
    assert rows[1].gap[0] == pytest.approx(rows[1].level.elo)
    assert rows[1].score == (75.0, 100)


def test_targets_name_each_miss() -> None:
    specs = ["a", "b", "c"]
    # b over a: 75% of 400 (gap ~191, interval about +/-35); c over b: 52% of 100
    pairs = [script.Pair(0, 1, 400, 300.0), script.Pair(1, 2, 100, 52.0)]
    missed = script.misses(script.fit(specs, pairs))
    assert not any(line.startswith("L1") for line in missed)
    assert any("L2 vs L1" in line and "not above 50%" in line for line in missed)
    assert any("L2 - L1" in line and "outside 100-200" in line for line in missed)
    assert any("L2 - L1" in line and "wider than" in line for line in missed)


def test_a_tiny_calibration_writes_a_loadable_ladder_and_resumes(tmp_path: Path) -> None:
    docs = tmp_path / "ladder.md"
    docs.write_text("before\n<!-- ladder:nim -->\nold\n<!-- /ladder:nim -->\nafter\n")
    target = tmp_path / "nim.json"
    argv = [
        "nim", "--level", "random", "--level", "mcts:iterations=40", "--games-per-pair", "4",
        "--out", str(tmp_path / "games"), "--write", "--ladder-file", str(target),
        "--no-plot", "--docs", str(docs),
    ]  # fmt: skip
    script.main(argv)
    found = load_ladder(target)
    assert found.game == "nim" and found.games == 4
    assert [level.spec for level in found.levels] == ["random", "mcts:iterations=40"]
    assert found.levels[0].elo == 0.0
    assert found.command.startswith("python -m benchmarks.ladder nim --level random")
    page = docs.read_text()
    assert "old" not in page and "`mcts:iterations=40`" in page
    assert page.startswith("before\n") and page.endswith("after\n")

    # a rerun continues the results file: no game is played twice
    (results,) = (tmp_path / "games").iterdir()
    script.main(argv)
    lines = [json.loads(line) for line in results.read_text().splitlines()]
    assert len(lines) == 1 + 4  # the header and the four games
    assert load_ladder(target).levels == found.levels


def test_unknown_game_without_levels_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        script.main(["no_such_game"])
    assert "no levels for 'no_such_game'" in capsys.readouterr().err


def test_perfect_check_tells_a_perfect_top_level_from_a_weak_one() -> None:
    positions, misses = script.check_perfect("nim", "mcts:iterations=10000")
    assert positions > 0 and misses == 0
    assert script.check_perfect("nim", "mcts:iterations=2")[1] > 0


def test_a_chip_game_is_calibrated_in_duplicate_units_and_resumes(tmp_path: Path) -> None:
    target = tmp_path / "kuhn.json"
    argv = [
        "kuhn_poker", "--level", "random", "--level", "mcts:iterations=16,information=mo_ismcts",
        "--games-per-pair", "5", "--hands", "4", "--out", str(tmp_path / "games"), "--write",
        "--ladder-file", str(target), "--no-plot", "--docs", str(tmp_path / "none.md"),
    ]  # fmt: skip
    script.main(argv)
    found = load_ladder(target)
    assert found.hands == 4 and found.games == 5  # five units of four hands
    (results,) = (tmp_path / "games").iterdir()
    lines = [json.loads(line) for line in results.read_text().splitlines()]
    header, games = lines[0], lines[1:]
    assert header["hands"] == 4 and len(games) == 20
    # each deal is played twice, seats swapped, with one seed
    assert all(games[i]["seed"] == games[i + 1]["seed"] for i in range(0, 20, 2))
    assert all(games[i]["seats"] == games[i + 1]["seats"][::-1] for i in range(0, 20, 2))
    assert len({game["seed"] for game in games}) == 10
    # the fit counts units: the higher level's points are its units won (halves for a tie)
    stronger = header["agents"][0]
    points = 0.0
    for start in range(0, 20, 4):
        chips = sum(g["returns"][g["seats"].index(stronger)] for g in games[start : start + 4])
        points += 1.0 if chips > 0 else 0.5 if chips == 0 else 0.0
    pair = script.Pair(0, 1, 5, points)
    assert found.levels[1].elo == pytest.approx(script.fit(found_specs(found), [pair])[1].level.elo)
    # a rerun plays nothing again
    script.main(argv)
    assert len(results.read_text().splitlines()) == 1 + 20


def found_specs(found: Any) -> list[str]:
    return [level.spec for level in found.levels]


def test_hands_must_be_one_or_whole_deals(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        script.main(["kuhn_poker", "--hands", "3"])
    assert "--hands must be 1 or even" in capsys.readouterr().err


def test_kept_levels_hold_their_ratings_and_new_ones_are_fitted_above() -> None:
    from mcts_agents.agents.ladder import Level

    kept = [
        Level("L0", "a", 0.0, 0.0, 0.0),
        Level("L1", "b", 150.0, 120.0, 180.0),
        Level("L2", "c", 300.0, 260.0, 340.0),
    ]
    # d scores 75% against c (400 * log10(3) ~ 190.8 above it) and 90% against b
    pairs = [script.Pair(2, 3, 400, 300.0), script.Pair(1, 3, 200, 180.0)]
    rows = script.fit_kept(["a", "b", "c", "d"], pairs, kept)
    assert [row.level for row in rows[:3]] == kept
    assert all(row.gap is None for row in rows[:3])
    new = rows[3]
    # between the two results' Elo: 300 + 190.8 from c, 150 + 381.7 from b
    assert 300 + 190.8 < new.level.elo < 150 + 381.7
    # the interval adds the top kept level's +/-40 to the fit's own
    assert (new.level.high - new.level.low) / 2 > 40
    assert new.score == (300.0, 400)
    assert new.gap is not None and new.gap[1] < new.gap[0] < new.gap[2]
    assert script.misses(rows) == [line for line in script.misses(rows) if line.startswith("L3")]


def test_a_ladder_extended_upwards_keeps_its_levels_and_adds_games(tmp_path: Path) -> None:
    docs = tmp_path / "ladder.md"
    docs.write_text("<!-- ladder:nim -->\nold\n<!-- /ladder:nim -->\n")
    target = tmp_path / "nim.json"
    common = ["--games-per-pair", "4", "--out", str(tmp_path / "games"), "--write",
              "--ladder-file", str(target), "--no-plot", "--docs", str(docs)]  # fmt: skip
    levels = ["--level", "random", "--level", "mcts:iterations=2", "--level", "mcts:iterations=8"]
    script.main(["nim", *levels, *common])
    first = load_ladder(target)
    table = docs.read_text()
    row_l1 = next(line for line in table.splitlines() if line.startswith("| L1 |"))
    played = sorted(p.name for p in (tmp_path / "games").iterdir())

    script.main(["nim", *levels, "--level", "mcts:iterations=40", "--keep", "3", *common])
    found = load_ladder(target)
    assert found.levels[:3] == first.levels
    assert found.levels[3].spec == "mcts:iterations=40"
    assert found.games == first.games + 4 + 2  # the new adjacent pair and the one two apart
    assert "; then python -m benchmarks.ladder" in found.command
    new_files = sorted(set(p.name for p in (tmp_path / "games").iterdir()) - set(played))
    assert len(new_files) == 2 and all("iterations=40" in name for name in new_files)
    assert row_l1 in docs.read_text()  # a kept level's row is the one of its calibration

    # the extended ladder cannot be extended again from its first 3 levels (its games would
    # count twice): --keep takes a ladder of exactly K levels
    with pytest.raises(SystemExit):
        script.main(["nim", *levels, "--level", "mcts:iterations=40", "--keep", "3", *common])
    assert load_ladder(target) == found


def test_keep_needs_the_stored_levels_first(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        script.main(["tic_tac_toe", "--level", "random", "--level", "mcts:iterations=3",
                     "--level", "mcts:iterations=9", "--keep", "2"])  # fmt: skip
    assert "--keep 2" in capsys.readouterr().err
