"""The ladders' definition, which game an env plays, and ladder files (read, written, refused)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from pettingzoo.classic import connect_four_v3, tictactoe_v3

import mcts_agents
from mcts_agents.agents import ladder as ladder_module
from mcts_agents.agents.ladder import (
    LEVEL_SPECS,
    Ladder,
    Level,
    ladder,
    ladder_game,
    level_spec,
    load_ladder,
    save_ladder,
)
from mcts_agents.agents.specs import make_agent, make_env, parse_agent_spec
from mcts_agents.errors import InvalidOptionError, ResultsFileError

#: The games of issue 25 (m,n,k 5x5x4 standing for "Gomoku or 5x5x4").
ISSUE_GAMES = {
    "tic_tac_toe",
    "connect_four",
    "othello",
    "ultimate_tic_tac_toe",
    "mnk_5x5x4",
    "nim",
    "kuhn_poker",
    "leduc_holdem",
}


def _ladder(game: str = "tic_tac_toe", elos: tuple[float, ...] = (0.0, 180.0, 390.0)) -> Ladder:
    specs = LEVEL_SPECS[game]
    levels = tuple(
        Level(f"L{i}", specs[i], elo, elo - 20 * i, elo + 20 * i) for i, elo in enumerate(elos)
    )
    return Ladder(game, levels, "2026-11-25", "0.2.0", "python benchmarks/ladder.py", 900, "test")


@pytest.fixture
def package_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The package's ladder folder replaced by an empty temporary one."""
    monkeypatch.setattr(ladder_module, "_package_file", lambda game: tmp_path / f"{game}.json")
    return tmp_path


# ---------------------------------------------------------------------------- the definition
def test_every_game_of_the_issue_has_levels() -> None:
    assert set(LEVEL_SPECS) == ISSUE_GAMES


@pytest.mark.parametrize("game", sorted(ISSUE_GAMES))
def test_levels_start_random_and_grow_by_iterations_never_time(game: str) -> None:
    specs = LEVEL_SPECS[game]
    assert specs[0] == "random"
    # the card games: MO-ISMCTS's strength comes in a few tiers there (docs/ladder.md)
    assert len(specs) >= (3 if game in ladder_module.HANDS else 5)
    budgets = []
    for text in specs[1:]:
        spec = parse_agent_spec(text)
        assert spec.kind == "mcts"
        assert "time" not in text and "time_limit" not in text
        budgets.append(int(re.search(r"iterations=(\d+)", text).group(1)))  # type: ignore[union-attr]
        make_agent(spec, seed=0)  # every level builds
    assert budgets == sorted(budgets) and len(set(budgets)) == len(budgets)


def test_hidden_information_games_search_information_sets() -> None:
    for game in ("kuhn_poker", "leduc_holdem"):
        assert all("information=mo_ismcts" in spec for spec in LEVEL_SPECS[game][1:])


# ---------------------------------------------------------------------------- which game
def test_pettingzoo_classic_envs_share_our_ladders() -> None:
    assert ladder_game(connect_four_v3.env()) == "connect_four"
    assert ladder_game(tictactoe_v3.env()) == "tic_tac_toe"
    assert ladder_game("classic/connect_four-v3") == "connect_four"
    assert ladder_game("pettingzoo.classic.tictactoe_v3") == "tic_tac_toe"


def test_our_envs_specs_and_factories_name_their_game() -> None:
    assert ladder_game("connect_four") == "connect_four"
    assert ladder_game(make_env("othello")) == "othello"
    assert ladder_game(lambda: make_env("nim")) == "nim"
    # the same rules by another name: m,n,k with the 5x5x4 options
    assert ladder_game("mnk:m=5,n=5,k=4") == "mnk_5x5x4"
    assert ladder_game("connect_four:width=7") == "connect_four"  # the default, said aloud


@pytest.mark.parametrize("env", ["pig", "oh_hell", "gomoku", "chess", "mnk:m=6,n=6,k=4"])
def test_games_without_a_ladder_are_refused_naming_those_with_one(env: str) -> None:
    with pytest.raises(InvalidOptionError, match=r"has no strength ladder.*connect_four"):
        ladder_game(env)


def test_options_that_change_the_rules_are_refused() -> None:
    with pytest.raises(InvalidOptionError, match="changes the rules of 'connect_four'"):
        ladder_game("connect_four:width=8")
    with pytest.raises(InvalidOptionError, match="wid"):
        ladder_game("connect_four:wid=8")


def test_an_env_object_with_other_rules_has_no_ladder() -> None:
    with pytest.raises(InvalidOptionError, match="no strength ladder"):
        ladder_game(make_env("connect_four:height=7"))


def test_something_that_is_not_an_env_is_refused() -> None:
    with pytest.raises(TypeError, match="env spec string"):
        ladder_game(42)


# ---------------------------------------------------------------------------- files
def test_a_ladder_survives_a_file_round_trip(tmp_path: Path) -> None:
    original = _ladder()
    save_ladder(original, tmp_path / "sub" / "ttt.json")
    assert load_ladder(tmp_path / "sub" / "ttt.json") == original
    assert load_ladder(str(tmp_path / "sub" / "ttt.json")) == original
    data = json.loads((tmp_path / "sub" / "ttt.json").read_text())
    assert data["levels"][1] == {
        "name": "L1",
        "spec": LEVEL_SPECS["tic_tac_toe"][1],
        "elo": 180.0,
        "low": 160.0,
        "high": 200.0,
    }


def test_ladder_reads_the_package_data_for_every_env_of_the_game(package_folder: Path) -> None:
    save_ladder(_ladder(), package_folder / "tic_tac_toe.json")
    levels = ladder("tic_tac_toe")
    assert [level.name for level in levels] == ["L0", "L1", "L2"]
    assert levels[1].elo == 180.0 and (levels[1].low, levels[1].high) == (160.0, 200.0)
    assert ladder(tictactoe_v3.env()) == levels
    assert mcts_agents.ladder(make_env("tic_tac_toe")) == levels
    assert ladder_module.calibrated_games() == ["tic_tac_toe"]


def test_a_game_not_yet_calibrated_is_refused_naming_those_that_are(
    package_folder: Path,
) -> None:
    save_ladder(_ladder(), package_folder / "tic_tac_toe.json")
    with pytest.raises(InvalidOptionError, match=r"not been calibrated.*\['tic_tac_toe'\]"):
        ladder("othello")


def _write(path: Path, data: Any) -> Path:
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return path


def _good_data() -> dict[str, Any]:
    data = {
        "game": "tic_tac_toe",
        "date": "d",
        "version": "v",
        "command": "c",
        "games": 10,
        "notes": "",
        "levels": [
            {"name": "L0", "spec": "random", "elo": 0.0, "low": 0.0, "high": 0.0},
            {"name": "L1", "spec": "mcts:iterations=2", "elo": 100.0, "low": 50.0, "high": 150.0},
        ],
    }
    return data


@pytest.mark.parametrize(
    ("change", "match"),
    [
        (lambda d: "not json {", "not JSON"),
        (lambda d: [1, 2], "JSON object"),
        (lambda d: {k: v for k, v in d.items() if k != "date"}, r"lacks \['date'\]"),
        (lambda d: {**d, "colour": 1}, "unknown fields"),
        (lambda d: {**d, "games": "10"}, "'games' should be an int"),
        (lambda d: {**d, "levels": []}, "non-empty list"),
        (lambda d: {**d, "levels": [d["levels"][0], {"name": "L1"}]}, "level 1 should be"),
        (lambda d: {**d, "levels": d["levels"][::-1]}, "should be named 'L0'"),
        (
            lambda d: {
                **d,
                "levels": [{**d["levels"][0], "elo": 5.0, "high": 5.0}, d["levels"][1]],
            },
            "L0 is Elo 0",
        ),
        (
            lambda d: {**d, "levels": [d["levels"][0], {**d["levels"][1], "low": 120.0}]},
            "low <= elo <= high",
        ),
        (
            lambda d: {**d, "levels": [d["levels"][0], {**d["levels"][1], "spec": ""}]},
            "non-empty string",
        ),
        (
            lambda d: {**d, "levels": [d["levels"][0], {**d["levels"][1], "elo": None}]},
            "finite numbers",
        ),
        (
            lambda d: {
                **d,
                "levels": [d["levels"][0], {**d["levels"][1], "elo": 1e300, "high": 1e300}],
            },
            r"level 'L1': elo, low and high should be finite numbers within \+/-10000",
        ),
        (
            lambda d: {**d, "levels": [*d["levels"], {**d["levels"][1], "name": "L2"}]},
            "L2's Elo 100 is not above L1's 100",
        ),
        (
            lambda d: {**d, "levels": [d["levels"][0], {**d["levels"][1], "spec": "human"}]},
            "L1's spec 'human' is a human",
        ),
        (
            lambda d: {
                **d,
                "levels": [d["levels"][0], {**d["levels"][1], "spec": "mcts:workers=64"}],
            },
            "L1's spec 'mcts:workers=64' asks for workers=64",
        ),
        (
            lambda d: {**d, "levels": [d["levels"][0], {**d["levels"][1], "spec": "mcts:x"}]},
            "L1's spec: agent spec 'mcts:x'",
        ),
        (lambda d: "[" * 200_000 + "]" * 200_000, "nested deeper than 64 levels"),
        (lambda d: '{"games": NaN}', "the number NaN is not finite"),
    ],
)
def test_a_damaged_ladder_file_is_refused_naming_the_file_and_the_fault(
    tmp_path: Path, change: Any, match: str
) -> None:
    path = _write(tmp_path / "bad.json", change(_good_data()))
    with pytest.raises(ResultsFileError, match=match) as caught:
        load_ladder(path)
    assert "bad.json" in str(caught.value)


def test_a_package_file_of_another_game_is_refused(package_folder: Path) -> None:
    _write(package_folder / "nim.json", _good_data())
    with pytest.raises(ResultsFileError, match="'game' is 'tic_tac_toe', expected 'nim'"):
        load_ladder("nim")


def test_a_missing_ladder_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ResultsFileError, match="cannot read the ladder file"):
        load_ladder(tmp_path / "none.json")


def test_a_bad_ladder_is_refused_when_made() -> None:
    with pytest.raises(InvalidOptionError, match="should be named 'L1'"):
        Ladder(
            "nim",
            (Level("L0", "random", 0, 0, 0), Level("L2", "random", 1, 0, 2)),
            "d",
            "v",
            "c",
            0,
        )
    with pytest.raises(TypeError, match="expects a Ladder"):
        save_ladder({"game": "nim"}, "x.json")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("values", "words"),
    [
        ((100.0, 150.0, 120.0), "low <= elo <= high does not hold"),
        ((1e300, 0.0, 1e300), "within +/-10000"),
        ((float("nan"), 0.0, 1.0), "finite numbers"),
        ((float("inf"), 0.0, float("inf")), "finite numbers"),
    ],
)
def test_a_level_with_a_bad_elo_or_interval_is_refused_when_made(
    values: tuple[float, float, float], words: str
) -> None:
    with pytest.raises(InvalidOptionError, match=re.escape("level 'L1': ")) as caught:
        Level("L1", "random", *values)
    assert words in str(caught.value)


# ---------------------------------------------------------------------------- level_spec
def test_level_spec_names_a_level_of_the_definition_or_the_calibration(
    package_folder: Path,
) -> None:
    assert level_spec("connect_four", "L0") == "random"
    assert level_spec("connect_four", "L3") == LEVEL_SPECS["connect_four"][3]
    assert level_spec("connect_four", 3) == LEVEL_SPECS["connect_four"][3]
    data = _good_data()
    data["levels"][1]["spec"] = "mcts:iterations=3"
    _write(package_folder / "tic_tac_toe.json", data)
    assert level_spec("tic_tac_toe", "L1") == "mcts:iterations=3"  # the calibrated file's


@pytest.mark.parametrize("level", ["L99", "5", "top", -1, "L"])
def test_level_spec_refuses_unknown_levels(level: Any) -> None:
    with pytest.raises(InvalidOptionError, match="has no level"):
        level_spec("nim", level)


def test_level_spec_refuses_unknown_games() -> None:
    with pytest.raises(InvalidOptionError, match="no strength ladder"):
        level_spec("pig", "L1")


# ---------------------------------------------------------------------------- chip games' units
def test_a_file_without_hands_is_one_game_a_unit(tmp_path: Path) -> None:
    data = _good_data()
    assert "hands" not in data  # as the board games' files were written before chip units
    assert load_ladder(_write(tmp_path / "old.json", data)).hands == 1


def test_hands_survive_a_file_round_trip(tmp_path: Path) -> None:
    levels = (Level("L0", "random", 0.0, 0.0, 0.0), Level("L1", "mcts:iterations=2", 150, 120, 180))
    chips = Ladder("kuhn_poker", levels, "d", "v", "c", 800, "duplicate units", hands=6)
    save_ladder(chips, tmp_path / "kuhn.json")
    assert json.loads((tmp_path / "kuhn.json").read_text())["hands"] == 6
    assert load_ladder(tmp_path / "kuhn.json") == chips


@pytest.mark.parametrize("hands", [0, 3, -2, 2.0, True, "4"])
def test_hands_that_are_not_one_or_whole_deals_are_refused(tmp_path: Path, hands: Any) -> None:
    path = _write(tmp_path / "bad.json", {**_good_data(), "hands": hands})
    with pytest.raises(ResultsFileError, match="hands"):
        load_ladder(path)


def test_the_chip_games_count_duplicate_units_and_the_board_games_single_games() -> None:
    assert ladder_module.hands_per_unit("tic_tac_toe") == 1
    for game, hands in ladder_module.HANDS.items():
        assert game in LEVEL_SPECS and hands >= 2 and hands % 2 == 0
        assert ladder_module.hands_per_unit(game) == hands
