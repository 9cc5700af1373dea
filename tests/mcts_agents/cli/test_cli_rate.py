"""``mcts-agents rate ENV AGENT_SPEC``: the rating and its per-level table as ``rate`` returns
them, the plot, the same output for the same seed, the games recorded, and bad input refused in
one line with exit code 2 before any game is played. A hand-written ladder (``--ladder``) stands
in for a calibrated one."""

from __future__ import annotations

import json
import logging
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from mcts_agents.arena.rating import Rating
from mcts_agents.cli.main import main
from tests.mcts_agents.tiny_ladder import TINY, tiny_ladder_file


def cli(*args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mcts_agents", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
    )


@pytest.fixture(scope="module")
def ladder_file(tmp_path_factory: pytest.TempPathFactory) -> str:
    return str(tiny_ladder_file(tmp_path_factory.mktemp("ladder")))


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (["pig", "random"], "pig"),  # a game without a ladder
        (["no_such_game", "random"], "no_such_game"),
        (["tic_tac_toe", "mcts:iteration=8", "--ladder", "{ladder}"], "iteration"),
        (["tic_tac_toe", "no_such_kind", "--ladder", "{ladder}"], "no_such_kind"),
        (["tic_tac_toe", "ladder:tic_tac_toe:L99", "--ladder", "{ladder}"], "L99"),
        (["connect_four", "random", "--ladder", "{ladder}"], "tic_tac_toe"),  # another game's
        (["tic_tac_toe", "random", "--ladder", "{tmp}/none.json"], "none.json"),
        (["tic_tac_toe", "random", "--ladder", "{ladder}", "--plot", "{tmp}/r.nope"], "nope"),
        (["tic_tac_toe", "random", "--ladder", "{ladder}", "--plot", "{tmp}/no/r.png"], "no"),
        (["tic_tac_toe", "random", "--ladder", "{ladder}", "--out", "{tmp}"], "{tmp}"),
        (["tic_tac_toe", "random", "--precision", "-3"], "-3"),
        (["tic_tac_toe", "random", "--games", "0"], "--games"),
        (["tic_tac_toe", "random", "--lockstep", "--workers", "2"], "--lockstep"),
        (["tic_tac_toe", "random", "--lockstep", "--backend", "ray"], "--lockstep"),
        (["tic_tac_toe", "random", "--address", "head:6379"], "--address"),
        (["tic_tac_toe", "random", "--backend", "threads"], "threads"),
    ],
)
def test_bad_input_exits_2_with_one_line_naming_it(
    args: list[str], named: str, tmp_path: Path, ladder_file: str
) -> None:
    def filled(text: str) -> str:
        return text.replace("{tmp}", str(tmp_path)).replace("{ladder}", ladder_file)

    run = cli("rate", *map(filled, args))
    assert run.returncode == 2, run.stdout + run.stderr
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and filled(named) in lines[0], run.stderr
    assert run.stdout == ""
    assert not list(tmp_path.iterdir())  # nothing written, no game played


def test_prints_the_rating_and_the_table_that_rate_returned(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    ladder_file: str,
) -> None:
    """The command prints what ``rate`` gave it, with the ladder's own levels, and passes the
    options through (``rate`` itself is tested in the arena's tests)."""
    import mcts_agents.arena.rating as rating_module

    calls: list[dict[str, Any]] = []

    def fake_rate(agent: Any, env: Any, **options: Any) -> Rating:
        calls.append({"agent": agent, "env": env, **options})
        scores = {"L1": (7.5, 10), "L2": (3.0, 20)}
        return Rating(elo=123.4, low=80.6, high=166.2, games=30, scores=scores, game=env)

    monkeypatch.setattr(rating_module, "rate", fake_rate)
    plot = tmp_path / "rating.png"
    options = ["--games", "30", "--seed", "4", "--precision", "50", "--plot", str(plot)]
    code = main(["rate", "tic_tac_toe", "mcts:iterations=8", "--ladder", ladder_file, *options])
    out = capsys.readouterr().out
    assert code == 0
    assert calls == [
        {"agent": "mcts:iterations=8", "env": "tic_tac_toe", "games": 30, "seed": 4}
        | {"precision": 50.0, "out": None, "workers": 1, "levels": TINY, "on_progress": None}
        | {"lockstep": "auto", "backend": "process", "address": None}
    ]
    assert "Elo 123 [81, 166] (95%), 30 games" in out
    rows = {line.split()[0]: line.split() for line in out.splitlines()[2:] if line[:1] == "L"}
    assert list(rows) == ["L1", "L2"]  # the levels it met: no rows of 0 games
    assert rows["L1"][1:] == ["100", "7.5", "10", "75%", TINY.levels[1].spec]
    assert rows["L2"][1:] == ["200", "3", "20", "15%", TINY.levels[2].spec]
    assert "not reached" not in out  # +-43 is within --precision 50
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_backend_ray_and_its_address_reach_rate(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], ladder_file: str
) -> None:
    import mcts_agents.arena.rating as rating_module

    calls: list[dict[str, Any]] = []

    def fake_rate(agent: Any, env: Any, **options: Any) -> Rating:
        calls.append(options)
        return Rating(elo=0.0, low=-50.0, high=50.0, games=20, scores={"L1": (10.0, 20)}, game=env)

    monkeypatch.setattr(rating_module, "rate", fake_rate)
    args = ["rate", "tic_tac_toe", "random", "--ladder", ladder_file, "--games", "20"]
    assert main([*args, "--backend", "ray", "--address", "10.0.0.5:6379"]) == 0
    assert (calls[0]["backend"], calls[0]["address"]) == ("ray", "10.0.0.5:6379")
    assert "Elo 0 [-50, 50]" in capsys.readouterr().out


def test_same_seed_same_rating_and_the_games_are_recorded(tmp_path: Path, ladder_file: str) -> None:
    out = tmp_path / "games.jsonl"
    args = ["rate", "tic_tac_toe", "mcts:iterations=16", "--games", "20", "--seed", "1"]
    first = cli(*args, "--ladder", ladder_file, "--out", str(out))
    assert first.returncode == 0, first.stderr
    second = cli(*args, "--ladder", ladder_file)
    assert second.returncode == 0, second.stderr
    head = first.stdout.splitlines()[0]
    assert head == second.stdout.splitlines()[0]
    found = re.search(r"Elo (-?\d+) \[(-?\d+), (-?\d+)\].*?(\d+) games", head)
    assert found is not None, head
    elo, low, high, games = (int(x) for x in found.groups())
    assert low <= elo <= high and games == 20
    rows = [line.split() for line in first.stdout.splitlines()[2:] if re.match(r"L\d ", line)]
    assert sum(int(row[3]) for row in rows) == games  # the table accounts for every game
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert sum(r.get("type") == "game" for r in records) == games
    more = cli(
        "rate",
        *args[1:5],
        "--games",
        "30",
        "--seed",
        "1",
        "--ladder",
        ladder_file,
        "--out",
        str(out),
    )
    assert more.returncode == 0, more.stderr  # the same file continues: 10 more games
    assert "30 games" in more.stdout.splitlines()[0]
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["index"] for r in records if r.get("type") == "game"] == list(range(30))


def test_a_poker_ladder_is_rated_in_its_own_units(capsys: pytest.CaptureFixture[str]) -> None:
    """The command passes the whole ladder to ``rate``, so a poker game is a duplicate match of
    the ladder's hands (as calibrated), not one hand."""
    code = main(["rate", "kuhn_poker", "random", "--games", "2", "--seed", "0"])
    out = capsys.readouterr().out
    assert code == 0 and "2 games (each a duplicate match of 6 hands)" in out


@pytest.mark.parametrize("tqdm", [True, False], ids=["tqdm", "no-tqdm"])
def test_progress_and_a_precision_not_reached(
    tqdm: bool,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    ladder_file: str,
) -> None:
    """``--progress``: a bar (tqdm) or a log line (without it) with the games done and the Elo
    on stderr; a ``--precision`` the games did not reach is said in one line."""
    if not tqdm:
        monkeypatch.setitem(sys.modules, "tqdm", None)
        monkeypatch.setitem(sys.modules, "tqdm.auto", None)
    args = ["rate", "tic_tac_toe", "random", "--ladder", ladder_file, "--games", "20"]
    code = main([*args, "--precision", "1", "--progress"])
    out, err = capsys.readouterr()
    assert code == 0, err
    head = re.search(r"Elo (-?\d+) \[(-?\d+), (-?\d+)\].*?(\d+) games", out)
    assert head is not None, out
    elo, low, high, games = (int(x) for x in head.groups())
    assert games == 20
    found = re.findall(r"^precision \+/-1 not reached in 20 games: \+/-(\d+)$", out, re.MULTILINE)
    assert len(found) == 1 and abs(int(found[0]) - (high - low) / 2) <= 1, out
    if tqdm:
        assert "20/20" in err and f"Elo {elo} [{low}, {high}]" in err, err
    else:
        assert f"mcts-agents: rate: 20/20 games, Elo {elo} [{low}, {high}]" in err.splitlines()
    code = main([*args, "--no-progress"])
    out, err = capsys.readouterr()
    assert code == 0 and err == "" and "not reached" not in out


def test_progress_lines_come_at_most_every_few_seconds(caplog: pytest.LogCaptureFixture) -> None:
    from mcts_agents.cli.rate import RateProgress

    now = [0.0]
    progress = RateProgress(10, "tic_tac_toe", every=5.0, clock=lambda: now[0])
    progress.bar = None  # the log lines (as without tqdm)
    with caplog.at_level(logging.INFO, logger="mcts_agents"):
        for games, at in enumerate([1.0, 4.0, 6.0, 7.0, 12.0, 13.0], start=1):
            now[0] = at
            progress(Rating(elo=10.0 * games, low=0.0, high=99.0, games=games, game="g"))
        progress.close()
    lines = [r.getMessage() for r in caplog.records if r.name == "mcts_agents.cli.rate"]
    assert lines == [
        "rate: 3/10 games, Elo 30 [0, 99]",  # 6 s: the first after 5 s
        "rate: 5/10 games, Elo 50 [0, 99]",  # 12 s
        "rate: 6/10 games, Elo 60 [0, 99]",  # the last, at close
    ]


@pytest.mark.skipif(not hasattr(__import__("os"), "mkfifo"), reason="no FIFOs here")
def test_out_and_plot_that_are_fifos_or_links_to_nothing_are_refused(
    tmp_path: Path, ladder_file: str
) -> None:
    import os

    fifo, link = tmp_path / "pipe.png", tmp_path / "games.jsonl"
    os.mkfifo(fifo)
    link.symlink_to(tmp_path / "target.jsonl")  # its folder exists: the run would make it
    base = ["rate", "tic_tac_toe", "random", "--ladder", ladder_file, "--games", "2"]
    for extra, words in (
        (["--plot", str(fifo)], f"--plot {str(fifo)!r} is a FIFO"),
        (["--out", str(fifo)], f"--out {str(fifo)!r} is a FIFO"),
        (["--out", str(link)], f"--out {str(link)!r} is a link to"),
    ):
        run = cli(*base, *extra, timeout=120)
        assert run.returncode == 2, run.stdout + run.stderr
        assert len(run.stderr.strip().splitlines()) == 1 and words in run.stderr, run.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["games.jsonl", "pipe.png"]
    assert link.is_symlink()


@pytest.mark.parametrize(
    ("level", "words"),
    [
        ({"elo": 1e300, "high": 1e300}, "within +/-10000"),
        ({"elo": 50.0, "low": 40.0, "high": 60.0}, "L2's Elo 50 is not above L1's 100"),
        ({"spec": "human"}, "L2's spec 'human' is a human"),
        ({"spec": "mcts:iterations=2,workers=64"}, "asks for workers=64"),
    ],
)
def test_a_ladder_file_that_is_no_ladder_exits_2_naming_the_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], level: dict[str, Any], words: str
) -> None:
    data = json.loads(tiny_ladder_file(tmp_path).read_text())
    data["levels"][2].update(level)
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data))
    assert main(["rate", "tic_tac_toe", "random", "--ladder", str(bad), "--games", "2"]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "bad.json" in err and words in err, err


def test_a_ladder_file_nested_200000_deep_exits_2_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 200_000 + "]" * 200_000)
    assert main(["rate", "tic_tac_toe", "random", "--ladder", str(deep)]) == 2
    err = capsys.readouterr().err
    assert "deep.json" in err and "nested deeper than 64 levels" in err, err


def test_lockstep_and_no_lockstep_print_the_same_rating(ladder_file: str) -> None:
    args = ["rate", "tic_tac_toe", "mcts:iterations=6", "--ladder", ladder_file, "--games", "8"]
    together = cli(*args, "--lockstep", "--no-progress")
    alone = cli(*args, "--no-lockstep", "--no-progress")
    assert together.returncode == alone.returncode == 0, together.stderr + alone.stderr
    assert together.stdout == alone.stdout and "Elo" in together.stdout
