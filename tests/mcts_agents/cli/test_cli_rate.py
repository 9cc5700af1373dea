"""``mcts-agents rate ENV AGENT_SPEC``: the rating and its per-level table as ``rate`` returns
them, the plot, the same output for the same seed, and bad input refused in one line with exit
code 2 before any game is played."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from mcts_agents.agents.ladder import ladder
from mcts_agents.arena.rating import Rating
from mcts_agents.cli.main import main


def cli(*args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mcts_agents", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def has_ladder(game: str) -> bool:
    try:
        ladder(game)
    except ValueError:
        return False
    return True


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (["pig", "random"], "pig"),  # a game without a ladder
        (["no_such_game", "random"], "no_such_game"),
        (["tic_tac_toe", "mcts:iteration=8"], "iteration"),
        (["tic_tac_toe", "no_such_kind"], "no_such_kind"),
        (["tic_tac_toe", "ladder:tic_tac_toe:L99"], "L99"),
        (["tic_tac_toe", "random", "--plot", "{tmp}/rating.nope"], "nope"),
        (["tic_tac_toe", "random", "--plot", "{tmp}/missing/rating.png"], "missing"),
        (["tic_tac_toe", "random", "--out", "{tmp}"], "{tmp}"),
        (["tic_tac_toe", "random", "--precision", "-3"], "-3"),
        (["tic_tac_toe", "random", "--games", "0"], "0"),
    ],
)
def test_bad_input_exits_2_with_one_line_naming_it(
    args: list[str], named: str, tmp_path: Path
) -> None:
    args = [a.replace("{tmp}", str(tmp_path)) for a in args]
    if args[0] == "tic_tac_toe" and not has_ladder("tic_tac_toe"):
        pytest.skip("no calibrated tic-tac-toe ladder in this checkout")
    run = cli("rate", *args)
    assert run.returncode == 2, run.stdout + run.stderr
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and named.replace("{tmp}", str(tmp_path)) in lines[0], run.stderr
    assert run.stdout == ""
    assert not list(tmp_path.iterdir())  # nothing written, no game played


def test_prints_the_rating_and_the_table_that_rate_returned(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """The command prints what ``rate`` gave it, with the ladder's own levels, and passes the
    options through (``rate`` itself is tested in the arena's tests)."""
    import mcts_agents.arena.rating as rating_module

    game = next(g for g in ("tic_tac_toe", "connect_four") if has_ladder(g))
    levels = ladder(game)
    calls: list[dict[str, Any]] = []

    def fake_rate(agent: Any, env: Any, **options: Any) -> Rating:
        calls.append({"agent": agent, "env": env, **options})
        return Rating(
            elo=123.4,
            low=80.6,
            high=166.2,
            games=30,
            scores={levels[1].name: (7.5, 10), levels[2].name: (3.0, 20)},
            game=game,
        )

    monkeypatch.setattr(rating_module, "rate", fake_rate)
    plot = tmp_path / "rating.png"
    options = ["--games", "30", "--seed", "4", "--precision", "50", "--plot", str(plot)]
    code = main(["rate", game, "mcts:iterations=8", *options])
    out = capsys.readouterr().out
    assert code == 0
    assert calls == [
        {"agent": "mcts:iterations=8", "env": game, "games": 30, "seed": 4, "precision": 50.0}
        | {"out": None, "workers": 1}
    ]
    assert "Elo 123 [81, 166] (95%), 30 games" in out
    rows = {line.split()[0]: line.split() for line in out.splitlines()[2:] if line[:1] == "L"}
    assert list(rows) == [level.name for level in levels]
    assert rows[levels[1].name][2:5] == ["7.5", "10", "75%"]
    assert rows[levels[2].name][2:5] == ["3", "20", "15%"]
    assert rows[levels[0].name][2:5] == ["0", "0", "-"]
    assert rows[levels[1].name][-1] == levels[1].spec.split()[-1]
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_same_seed_same_output_and_the_games_are_recorded(tmp_path: Path) -> None:
    if not has_ladder("tic_tac_toe"):
        pytest.skip("no calibrated tic-tac-toe ladder in this checkout")
    out = tmp_path / "games.jsonl"
    args = ["rate", "tic_tac_toe", "mcts:iterations=8", "--games", "20", "--seed", "1"]
    first = cli(*args, "--out", str(out))
    assert first.returncode == 0, first.stderr
    second = cli(*args)
    assert second.returncode == 0, second.stderr
    head = first.stdout.splitlines()[0]
    assert head == second.stdout.splitlines()[0]
    found = re.search(r"Elo (-?\d+) \[(-?\d+), (-?\d+)\].*?(\d+) games", head)
    assert found is not None, head
    elo, low, high, games = (float(x) for x in found.groups())
    assert low <= elo <= high and 0 < games <= 20
    assert len(out.read_text().splitlines()) >= games  # every game recorded
