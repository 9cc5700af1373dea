"""The arena: seat swapping, seeds, replayable records, fresh agents, workers, Ray, resuming."""

from __future__ import annotations

import itertools
import json
import math
import re
import sys
from pathlib import Path
from typing import Any

import pytest

from mcts_agents import MCTSAgent, RandomAgent
from mcts_agents.agents.specs import parse_env_spec
from mcts_agents.arena import (
    MatchResult,
    RayNotInstalledError,
    TournamentResult,
    play_match,
    tournament,
)
from mcts_agents.envs import tic_tac_toe_v0
from mcts_agents.errors import UnpicklableError
from mcts_agents.ratings import bradley_terry_elo, wilson_interval

STRONG = "mcts:iterations=1000"


def without_times(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in r.items() if k != "times"} for r in records]


def replay(env_spec: str, record: dict[str, Any]) -> list[float]:
    """Play a record's moves on a fresh env reset with its seed; the returns per seat."""
    env = parse_env_spec(env_spec)()
    env.reset(seed=record["seed"])
    totals = dict.fromkeys(env.possible_agents, 0.0)
    moves = iter(record["moves"])
    for agent in env.agent_iter():
        _, reward, termination, truncation, _ = env.last()
        totals[agent] += reward
        env.step(None if termination or truncation else next(moves))
    assert next(moves, None) is None
    return [totals[a] for a in env.possible_agents]


# ----------------------------------------------------------------- module-level factories
class CountingFactory:
    """Builds random agents and counts how many it built (a module-level, picklable factory)."""

    name = "counted-random"

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self) -> RandomAgent:
        self.calls += 1
        return RandomAgent()


class InterruptingAgent(RandomAgent):
    def __init__(self, interrupt: bool) -> None:
        super().__init__()
        self.interrupt = interrupt

    def act(self, env: Any) -> int:
        if self.interrupt and len(env.unwrapped.legal_actions()) < 8:
            raise KeyboardInterrupt  # Ctrl-C in the middle of a game
        return super().act(env)


class FlakyFactory:
    """Random agents; the one built for the ``fail_at``-th game raises KeyboardInterrupt."""

    name = "flaky-random"

    def __init__(self, fail_at: int | None) -> None:
        self.fail_at = fail_at
        self.calls = 0

    def __call__(self) -> InterruptingAgent:
        self.calls += 1
        return InterruptingAgent(self.calls == self.fail_at)


class TableWatchingAgent(MCTSAgent):
    """Records the size of its node table at the first move of every game."""

    def __init__(self) -> None:
        super().__init__(iterations=300)
        self.tables_at_start: list[int] = []
        self.fresh = True

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self.fresh = True

    def act(self, env: Any) -> int:
        if self.fresh:
            searcher = self.searcher
            self.tables_at_start.append(0 if searcher is None else searcher.table_size())
            self.fresh = False
        return super().act(env)


# ------------------------------------------------------------------------------- matches
def test_mcts_never_loses_to_random_and_records_replay() -> None:
    result = play_match("tic_tac_toe", [STRONG, "random"], games=8, seed=1)
    assert isinstance(result, MatchResult)
    assert [r["index"] for r in result.records] == list(range(8))
    mcts, rand = result.standings()
    assert mcts.losses == 0 and mcts.wins >= 4
    assert mcts.wins + mcts.draws + mcts.losses == 8 == rand.games
    assert rand.wins == 0 and rand.losses == mcts.wins
    assert (mcts.low, mcts.high) == wilson_interval(mcts.score, 8)
    for record in result.records:
        # Seats alternate: the strong agent moves first in even games.
        assert record["seats"] == ([STRONG, "random"] if record["index"] % 2 == 0 else
                                   ["random", STRONG])  # fmt: skip
        assert replay("tic_tac_toe", record) == record["returns"]
        assert record["length"] == len(record["moves"]) == len(record["times"])
        assert record["movers"] == [i % 2 for i in range(record["length"])]
        assert record["winner"] in (STRONG, None)
        for n, seat in zip(record["iterations"], record["movers"], strict=True):
            # The solver may stop early on a proven position; random agents report nothing.
            assert (0 <= n <= 1000) if record["seats"][seat] == STRONG else n is None
    table = result.table()
    assert STRONG in table and "95% CI" in table and "Elo" in table
    json.dumps(result.to_dict())


def test_each_agent_plays_each_seat_equally_with_n_players() -> None:
    agents = ["random", "random:name=r2", "random:name=r3"]
    result = play_match("multi_mnk:m=4,n=4,k=3", agents, games=6, seed=0)
    for name in ("random", "r2", "r3"):
        seats = [r["seats"].index(name) for r in result.records]
        assert sorted(seats) == [0, 0, 1, 1, 2, 2]
    assert sum(s.score for s in result.standings()) == pytest.approx(6)
    assert [replay("multi_mnk:m=4,n=4,k=3", r) for r in result.records] == [
        r["returns"] for r in result.records
    ]


def test_same_seed_same_games_and_other_seed_other_games() -> None:
    agents = ["mcts:iterations=50", "random"]
    first = play_match("connect_four", agents, games=2, seed=3)
    second = play_match("connect_four", agents, games=2, seed=3)
    other = play_match("connect_four", agents, games=2, seed=4)
    assert without_times(first.records) == without_times(second.records)
    assert [r["moves"] for r in first.records] != [r["moves"] for r in other.records]
    assert len({r["seed"] for r in first.records}) == 2


def test_a_fresh_agent_per_game_from_factories_and_instances_are_reset() -> None:
    factory = CountingFactory()
    play_match("tic_tac_toe", [factory, "random"], games=5)
    assert factory.calls == 5
    watcher = TableWatchingAgent()
    play_match("tic_tac_toe", [watcher, "random"], games=4)
    assert watcher.tables_at_start == [0, 0, 0, 0]


def test_pettingzoo_classic_env_factory() -> None:
    from pettingzoo.classic import connect_four_v3

    result = play_match(connect_four_v3.env, ["random", "random:name=other"], games=2)
    assert result.env == "connect_four_v3"
    assert all(r["length"] >= 7 for r in result.records)


def test_workers_2_gives_the_same_games_as_workers_1() -> None:
    agents = ["mcts:iterations=100", "random"]
    one = play_match("tic_tac_toe", agents, games=4, seed=5, workers=1)
    two = play_match("tic_tac_toe", agents, games=4, seed=5, workers=2)
    assert without_times(one.records) == without_times(two.records)


def test_unpicklable_agents_and_env_factories_are_named_for_workers() -> None:
    with pytest.raises(UnpicklableError, match=r"agent .*<lambda>.*spec string"):
        play_match("tic_tac_toe", [lambda: RandomAgent(), "random"], games=2, workers=2)
    with pytest.raises(UnpicklableError, match=r"env_fn .*<lambda>.*env spec string"):
        play_match(lambda: tic_tac_toe_v0.env(), ["random", "random"], games=2, workers=2)
    assert issubclass(UnpicklableError, TypeError)  # what the arena raised before


def test_bad_arguments_are_named() -> None:
    with pytest.raises(ValueError, match="'threads'"):
        play_match("tic_tac_toe", ["random", "random"], games=2, backend="threads")
    with pytest.raises(ValueError, match="2 seats but 3 agents"):
        play_match("tic_tac_toe", ["random", "random", "random"], games=2)
    with pytest.raises(TypeError, match="42"):
        play_match("tic_tac_toe", [42, "random"], games=2)
    with pytest.raises(ValueError, match="games"):
        play_match("tic_tac_toe", ["random", "random"], games=-1)
    with pytest.raises(ValueError, match="anchor 'nobody'"):
        tournament("tic_tac_toe", ["random", "random"], 2, anchor="nobody")


def test_missing_ray_says_how_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)
    with pytest.raises(RayNotInstalledError, match=re.escape('pip install ".[ray]"')):
        play_match("tic_tac_toe", ["random", "random"], games=1, backend="ray")
    assert issubclass(RayNotInstalledError, ImportError)


@pytest.mark.slow
def test_ray_backend_gives_the_same_games_as_processes() -> None:
    ray = pytest.importorskip("ray")
    agents = ["mcts:iterations=50", "random"]
    local = play_match("tic_tac_toe", agents, games=3, seed=2)
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        remote = play_match("tic_tac_toe", agents, games=3, seed=2, backend="ray")
        assert ray.is_initialized()  # an instance the caller started is left running
    finally:
        ray.shutdown()
    assert without_times(remote.records) == without_times(local.records)


# --------------------------------------------------------------------------- the records
def read_lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_results_file_has_a_header_then_one_line_per_game(tmp_path: Path) -> None:
    out = tmp_path / "games.jsonl"
    result = play_match("tic_tac_toe", ["random", "random:name=b"], games=3, seed=9, out=out)
    header, *games = read_lines(out)
    assert header["type"] == "header" and header["env"] == "tic_tac_toe"
    assert header["agents"] == ["random", "b"] and header["seed"] == 9
    assert header["specs"] == ["random", "random:name=b"]
    assert games == result.records
    # A rerun plays nothing and returns the same games; more games extend the file.
    assert play_match("tic_tac_toe", ["random", "random:name=b"], 3, seed=9, out=out).records == (
        result.records
    )
    longer = play_match("tic_tac_toe", ["random", "random:name=b"], 5, seed=9, out=out)
    assert longer.records[:3] == result.records
    assert [g["index"] for g in read_lines(out)[1:]] == [0, 1, 2, 3, 4]


def test_resume_after_ctrl_c_neither_loses_nor_duplicates(tmp_path: Path) -> None:
    out = tmp_path / "games.jsonl"
    flaky = FlakyFactory(fail_at=4)  # Ctrl-C in the middle of the 4th game
    with pytest.raises(KeyboardInterrupt):
        play_match("tic_tac_toe", [flaky, "random"], games=6, seed=0, out=out)
    assert [g["index"] for g in read_lines(out)[1:]] == [0, 1, 2]
    resumed = play_match("tic_tac_toe", [FlakyFactory(None), "random"], 6, seed=0, out=out)
    clean = play_match("tic_tac_toe", [FlakyFactory(None), "random"], 6, seed=0)
    assert without_times(resumed.records) == without_times(clean.records)
    indices = [g["index"] for g in read_lines(out)[1:]]
    assert sorted(indices) == list(range(6)) and len(indices) == 6


def test_a_truncated_last_line_is_dropped_and_the_file_rewritten(tmp_path: Path) -> None:
    out = tmp_path / "games.jsonl"
    agents = ["mcts:iterations=30", "random"]
    play_match("tic_tac_toe", agents, games=2, seed=0, out=out)
    with out.open("a") as handle:
        handle.write('{"type": "game", "index": 2, "seed": 12')  # killed mid-write
    resumed = play_match("tic_tac_toe", agents, games=4, seed=0, out=out)
    lines = read_lines(out)  # every line parses again
    assert [g["index"] for g in lines[1:]] == [0, 1, 2, 3]
    clean = play_match("tic_tac_toe", agents, games=4, seed=0)
    assert without_times(resumed.records) == without_times(clean.records)


def test_a_file_of_another_run_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "games.jsonl"
    play_match("tic_tac_toe", ["random", "random:name=b"], games=1, seed=0, out=out)
    with pytest.raises(ValueError, match="seed: file 0, now 1"):
        play_match("tic_tac_toe", ["random", "random:name=b"], games=1, seed=1, out=out)
    with pytest.raises(ValueError, match="agents"):
        play_match("tic_tac_toe", ["random", "random:name=c"], games=1, seed=0, out=out)


# ---------------------------------------------------------------------------- tournament
def test_tournament_matrix_totals_and_elo(tmp_path: Path) -> None:
    agents = {"strong": STRONG, "weak": "mcts:iterations=5", "random": "random"}
    result = tournament("tic_tac_toe", agents, 4, seed=0, anchor="random", out=tmp_path / "t.jsonl")
    assert isinstance(result, TournamentResult)
    assert len(result.records) == 12
    matrix = result.matrix()
    for i in range(3):
        assert matrix[i][i] is None
        for j in range(3):
            if i != j:
                assert matrix[i][j] + matrix[j][i] == pytest.approx(1.0)  # type: ignore[operator]
    standings = {s.name: s for s in result.standings()}
    for i, name in enumerate(agents):
        assert standings[name].games == 8
        assert standings[name].score == pytest.approx(
            sum(4 * v for v in matrix[i] if v is not None)
        )
    assert standings["strong"].losses == 0
    # Each pair: each agent in the first seat twice.
    for a, b in (("strong", "weak"), ("strong", "random"), ("weak", "random")):
        firsts = [r["seats"][0] for r in result.records if set(r["seats"]) == {a, b}]
        assert sorted(firsts) == sorted([a, a, b, b])
    ratings = result.ratings()
    assert ratings["random"] == (0.0, 0.0, 0.0)
    results = [(r["seats"][0], r["seats"][1], r["scores"][0]) for r in result.records]
    assert ratings == bradley_terry_elo(list(agents), results, anchor="random")
    assert ratings["strong"][0] > 0 and all(math.isfinite(x) for x in ratings["strong"])
    table = result.table()
    assert "Elo" in table and "anchored at 'random'" in table and "score rate" in table
    json.dumps(result.to_dict())


def test_a_tournament_plot_is_a_png(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    agents = {"a": "random", "b": "random:name=b", "c": "random:name=c"}
    result = tournament("tic_tac_toe", agents, 2, seed=0, anchor="a")
    png = tmp_path / "elo.png"
    result.plot(png)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_match_elo_difference_of_two_agents() -> None:
    result = play_match(tic_tac_toe_v0.env, [STRONG, "random"], games=4, seed=0)
    diff, low, high = result.elo_difference()
    assert low < diff < high and diff > 0


def test_progress_bar_and_log_fallback(
    capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    play_match("tic_tac_toe", ["random", "random:name=b"], games=3, progress=True)
    assert "3/3" in capsys.readouterr().err
    monkeypatch.setitem(sys.modules, "tqdm.auto", None)
    with caplog.at_level("INFO", logger="mcts_agents.arena"):
        play_match("tic_tac_toe", ["random", "random:name=b"], games=2, progress=True)
    assert "2/2 games" in caplog.text


# ----------------------------------------------------------------------- chip returns
def chip_record(index: int, seats: list[str], returns: list[float]) -> dict[str, Any]:
    scores = [1.0, 0.0] if returns[0] > returns[1] else [0.0, 1.0]
    return {"index": index, "seats": seats, "returns": returns, "scores": scores,
            "movers": [0], "times": [0.01]}  # fmt: skip


def test_games_that_pay_chips_report_the_mean_return_with_its_interval() -> None:
    """Hand-computed: A wins 3, 1 and loses 2 chips: mean 2/3, sample sd 2.5166."""
    records = [
        chip_record(0, ["A", "B"], [3.0, -3.0]),
        chip_record(1, ["B", "A"], [-1.0, 1.0]),
        chip_record(2, ["A", "B"], [-2.0, 2.0]),
    ]
    result = MatchResult("leduc_holdem", ["A", "B"], 0, records)
    a, b = result.standings()
    half = (
        1.959963984540054
        * (((3 - 2 / 3) ** 2 + (1 - 2 / 3) ** 2 + (-2 - 2 / 3) ** 2) / 2 / 3) ** 0.5
    )
    assert a.mean_return == pytest.approx(2 / 3) and b.mean_return == pytest.approx(-2 / 3)
    assert (a.return_low, a.return_high) == pytest.approx((2 / 3 - half, 2 / 3 + half))
    assert "return" in result.table() and "+0.667" in result.table()
    win_loss = MatchResult("tic_tac_toe", ["A", "B"], 0, [chip_record(0, ["A", "B"], [1.0, -1.0])])
    assert "return" not in win_loss.table()  # win/draw/loss games need no mean return


def test_elo_tick_labels_do_not_run_together(tmp_path: Path) -> None:
    """The audit: the Elo plot's x tick labels ran together (here: 11 ticks such as 0.00025,
    0.00050, ... overlapped before the fix; 7 rotated ones do not)."""
    pytest.importorskip("matplotlib")
    from matplotlib.figure import Figure

    from mcts_agents.arena import plots

    captured: list[Figure] = []
    original = Figure.savefig

    def keep(self: Figure, *args: Any, **kwargs: Any) -> None:
        captured.append(self)
        original(self, *args, **kwargs)

    names = ["a", "b"]  # two nearly equal agents: a narrow range of long decimal ticks
    ratings = {"a": (0.001, 0.001, 0.002), "b": (0.002, 0.001, 0.002)}
    matrix = [[None, 0.5], [0.5, None]]
    Figure.savefig = keep  # type: ignore[method-assign]
    try:
        plots.plot_ratings(tmp_path / "elo.png", names, ratings, matrix, "wide", names[0])
    finally:
        Figure.savefig = original  # type: ignore[method-assign]
    figure = captured[0]
    renderer = figure.canvas.get_renderer()  # type: ignore[attr-defined]
    left = figure.axes[0]
    boxes = [t.get_window_extent(renderer) for t in left.get_xticklabels() if t.get_text()]
    assert len(boxes) >= 3
    for a, b in itertools.pairwise(boxes):
        assert not a.overlaps(b), (a, b)
