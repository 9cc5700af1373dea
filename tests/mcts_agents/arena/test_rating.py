"""``rate``: an agent's Elo on a ladder fitted here first (tic-tac-toe, Python MCTS levels)."""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path

import pytest

import mcts_agents
from mcts_agents.agents import ladder as ladder_module
from mcts_agents.agents.ladder import Ladder, Level, save_ladder
from mcts_agents.arena import Rating, rate, tournament
from mcts_agents.errors import InvalidOptionError, ResultsFileError, SpecError

ENV = "tic_tac_toe"
SPECS = {
    "L0": "random",
    "L1": "mcts:iterations=2,backend=python",
    "L2": "mcts:iterations=6,backend=python",
    "L3": "mcts:iterations=20,backend=python",
}


@cache
def small_ladder() -> Ladder:
    """The four levels' ratings from a round robin (seats swapped), L0 at 0."""
    result = tournament(ENV, SPECS, 150, seed=11)
    ratings = result.ratings()
    levels = tuple(Level(name, spec, *ratings[name]) for name, spec in SPECS.items())
    return Ladder(ENV, levels, "today", mcts_agents.__version__, "test_rating.py", 900, "")


def test_the_small_ladder_is_a_ladder() -> None:
    elos = [level.elo for level in small_ladder().levels]
    assert elos == sorted(elos) and elos[0] == 0 and elos[-1] > 250


def test_a_levels_own_spec_rates_near_its_table_value() -> None:
    ladder = small_ladder()
    level = ladder.levels[2]
    rating = rate(level.spec, ENV, games=300, seed=5, levels=ladder)
    assert isinstance(rating, Rating)
    assert rating.low < rating.elo < rating.high
    allowed = (rating.high - rating.low) / 2 + (level.high - level.low) / 2
    assert abs(rating.elo - level.elo) <= allowed
    assert rating.games == 300 == sum(games for _, games in rating.scores.values())
    assert rating.game == ENV
    assert set(rating.scores) <= set(SPECS)


def test_a_stronger_agent_rates_higher() -> None:
    ladder = small_ladder()
    weak = rate(SPECS["L1"], ENV, games=160, seed=2, levels=ladder)
    strong = rate("mcts:iterations=60,backend=python", ENV, games=160, seed=2, levels=ladder)
    assert strong.elo > weak.elo


def test_the_same_seed_gives_the_same_rating() -> None:
    ladder = small_ladder()
    first = rate(SPECS["L1"], ENV, games=60, seed=9, levels=ladder)
    assert rate(SPECS["L1"], ENV, games=60, seed=9, levels=ladder) == first


def test_two_seeds_agree_within_their_intervals() -> None:
    ladder = small_ladder()
    one = rate(SPECS["L3"], ENV, games=120, seed=21, levels=ladder)
    two = rate(SPECS["L3"], ENV, games=120, seed=22, levels=ladder)
    assert one != two
    assert one.low <= two.high and two.low <= one.high


def test_the_first_batch_meets_the_middle_level_then_the_nearest() -> None:
    ladder = small_ladder()
    one = rate("random", ENV, games=20, seed=1, levels=ladder)
    assert list(one.scores) == ["L2"] and one.scores["L2"][1] == 20
    many = rate("random", ENV, games=100, seed=1, levels=ladder)
    assert many.scores["L0"][1] > 0  # random moved down to its own level


def test_precision_stops_early() -> None:
    ladder = small_ladder()
    loose = rate(SPECS["L2"], ENV, games=400, seed=3, precision=400.0, levels=ladder)
    assert loose.games == 20  # one batch is enough for +-400
    assert loose.half_width <= 400
    tight = rate(SPECS["L2"], ENV, games=60, seed=3, precision=1.0, levels=ladder)
    assert tight.games == 60  # never narrow enough: the budget ends it
    with pytest.raises(InvalidOptionError, match="precision"):
        rate(SPECS["L2"], ENV, precision=0.0, levels=ladder)


def test_resuming_from_out_gives_the_result_of_one_run(tmp_path: Path) -> None:
    ladder = small_ladder()
    out = tmp_path / "rate.jsonl"
    whole = rate(SPECS["L1"], ENV, games=80, seed=4, levels=ladder)
    part = rate(SPECS["L1"], ENV, games=40, seed=4, out=out, levels=ladder)
    assert part.games == 40
    resumed = rate(SPECS["L1"], ENV, games=80, seed=4, out=out, levels=ladder)
    assert resumed == whole
    lines = out.read_text().splitlines()
    assert json.loads(lines[0])["kind"] == "rate" and len(lines) == 1 + 80
    # played again from the file alone: every game is already there
    out.chmod(0o444)
    try:
        assert rate(SPECS["L1"], ENV, games=80, seed=4, out=out, levels=ladder) == whole
    finally:
        out.chmod(0o644)


def test_a_results_file_of_another_run_is_refused(tmp_path: Path) -> None:
    ladder = small_ladder()
    out = tmp_path / "rate.jsonl"
    rate(SPECS["L1"], ENV, games=20, seed=4, out=out, levels=ladder)
    with pytest.raises(ResultsFileError, match="another run"):
        rate(SPECS["L1"], ENV, games=20, seed=5, out=out, levels=ladder)


def test_resuming_with_another_batch_is_refused(tmp_path: Path) -> None:
    ladder = small_ladder()
    out = tmp_path / "rate.jsonl"
    rate("random", ENV, games=40, seed=4, out=out, levels=ladder, batch=20)
    with pytest.raises(ResultsFileError, match="same agent, ladder, seed and batch"):
        rate("random", ENV, games=40, seed=4, out=out, levels=ladder, batch=10)


def test_workers_and_pettingzoos_own_env_give_the_same_rating() -> None:
    ladder = small_ladder()
    here = rate(SPECS["L2"], ENV, games=40, seed=5, levels=ladder)
    assert rate(SPECS["L2"], ENV, games=40, seed=5, levels=ladder, workers=2) == here
    # PettingZoo's tictactoe_v3 has our rules: the same games, the same rating
    assert rate(SPECS["L2"], "classic/tictactoe-v3", games=40, seed=5, levels=ladder) == here


def test_the_ray_backend_gives_the_same_rating_in_one_ray_session(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``backend="ray"`` plays every batch's games as Ray tasks of one local instance (started
    once for the run, shut down at its end): the same seeded games, so the same rating."""
    ray = pytest.importorskip("ray")
    import mcts_agents.arena.rating as rating_module

    ladder = small_ladder()
    here = rate(SPECS["L2"], ENV, games=40, seed=5, levels=ladder, batch=20)
    sessions: list[str | None] = []
    real_session = rating_module.ray_session

    def counted(address: str | None = None) -> object:
        sessions.append(address)
        return real_session(address)

    monkeypatch.setattr(rating_module, "ray_session", counted)
    spread = rate(SPECS["L2"], ENV, games=40, seed=5, levels=ladder, batch=20, backend="ray")
    assert spread == here
    assert sessions == [None]  # two batches, one Ray instance
    assert not ray.is_initialized()


def test_rate_reads_the_games_calibrated_ladder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(ladder_module, "_package_file", lambda game: tmp_path / f"{game}.json")
    save_ladder(small_ladder(), tmp_path / "tic_tac_toe.json")
    expected = rate(SPECS["L2"], ENV, games=40, seed=6, levels=small_ladder())
    assert mcts_agents.rate(SPECS["L2"], ENV, games=40, seed=6) == expected
    with pytest.raises(InvalidOptionError, match="not been calibrated"):
        mcts_agents.rate("random", "nim", games=20)


def test_an_agent_object_is_rated() -> None:
    from mcts_agents import RandomAgent

    rating = rate(RandomAgent(), ENV, games=40, seed=1, levels=small_ladder())
    assert rating.games == 40


@pytest.mark.parametrize(
    ("agent", "env", "options", "error", "match"),
    [
        ("mcts:iterashuns=3", ENV, {}, SpecError, "iterashuns"),
        ("random", "pig", {"levels": None}, InvalidOptionError, "no strength ladder"),
        ("random", ENV, {"games": 0}, InvalidOptionError, "games"),
        ("random", ENV, {"batch": 0}, InvalidOptionError, "batch"),
        ("random", ENV, {"seed": -1}, InvalidOptionError, "seed"),
        ("random", ENV, {"workers": 0}, InvalidOptionError, "workers"),
        ("random", ENV, {"levels": "L1"}, TypeError, "Ladder"),
        ("random", ENV, {"levels": [Level("L0", "nonsense:x=1", 0, 0, 0)]}, SpecError, "nonsense"),
        ("random", "multi_mnk", {}, InvalidOptionError, "two-player"),
        ("random", ENV, {"backend": "threads"}, InvalidOptionError, "threads"),
        ("random", ENV, {"address": "head:6379"}, InvalidOptionError, "head:6379"),
    ],
)
def test_bad_input_is_refused_clearly(
    agent: str, env: str, options: dict, error: type[Exception], match: str
) -> None:
    kwargs = {"levels": small_ladder(), "games": 20, **options}
    with pytest.raises(error, match=match):
        rate(agent, env, **kwargs)


def made_up_ladder() -> Ladder:
    """``SPECS`` with made-up ratings 100 apart (no tournament first): for tests of the
    bookkeeping, not of the ratings."""
    levels = tuple(
        Level(name, spec, 100.0 * i, 100.0 * i - 30, 100.0 * i + 30)
        for i, (name, spec) in enumerate(SPECS.items())
    )
    return Ladder(ENV, levels, "today", mcts_agents.__version__, "test_rating.py", 0, "")


def test_on_progress_reports_each_game_with_the_fit_of_the_games_so_far(tmp_path: Path) -> None:
    ladder = made_up_ladder()
    agent = "mcts:iterations=4,backend=python"
    seen: list[Rating] = []
    rating = rate(agent, ENV, games=30, seed=1, batch=10, levels=ladder, on_progress=seen.append)
    assert [r.games for r in seen] == list(range(1, 31))
    assert seen[-1] == rating
    # the report after 10 games is the rating of a run of 10 games (one batch)
    assert seen[9] == rate(agent, ENV, games=10, seed=1, batch=10, levels=ladder)
    # games read back from a results file are reported once their batch is read
    out = tmp_path / "rate.jsonl"
    rate(agent, ENV, games=20, seed=1, batch=10, out=out, levels=ladder)
    resumed: list[Rating] = []
    again = rate(agent, ENV, games=30, seed=1, batch=10, out=out, levels=ladder,
                 on_progress=resumed.append)  # fmt: skip
    assert [r.games for r in resumed] == [10, 20, *range(21, 31)]
    assert again == rating == resumed[-1] and resumed[:2] == [seen[9], seen[19]]
    with pytest.raises(TypeError, match="on_progress"):
        rate(agent, ENV, games=2, levels=ladder, on_progress="print")


def test_on_progress_counts_a_chip_games_units() -> None:
    """On a poker ladder a report comes when a whole duplicate match (6 hands) is in."""
    seen: list[Rating] = []
    rating = rate("random", "kuhn_poker", games=2, seed=0, on_progress=seen.append)
    assert [(r.games, r.hands) for r in seen] == [(1, 6), (2, 6)]
    assert seen[-1] == rating


def test_levels_that_do_not_make_a_ladder_are_refused_naming_the_level() -> None:
    with pytest.raises(InvalidOptionError, match="low <= elo <= high"):
        rate("random", ENV, games=2, levels=[Level("A", "random", 0, 0, 0),
                                            Level("B", "random", 50, 80, 20)])  # fmt: skip
    refusals = {
        "B's Elo 0 is not above A's 100": [("A", "random", 100), ("B", "random", 0)],
        "B's spec 'human' is a human": [("A", "random", 0), ("B", "human", 100)],
        "asks for workers=64": [("A", "random", 0), ("B", "mcts:workers=64", 100)],
    }
    for words, rows in refusals.items():
        levels = [Level(name, spec, elo, elo, elo) for name, spec, elo in rows]
        with pytest.raises(InvalidOptionError, match=re.escape(words)):
            rate("random", ENV, games=2, levels=levels)
