"""The arena's results file under faults: files that are not ours, planted links, two runs on
one file, damaged lines, read-only files, extended runs, counts beyond the limits."""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from mcts_agents import play_match, tournament
from mcts_agents.arena.runner import MAX_GAMES, MAX_WORKERS
from mcts_agents.errors import InvalidOptionError, ResultsFileBusyError, ResultsFileError
from tests.mcts_agents.arena.arena_helpers import PidReporter

ROOT = Path(__file__).resolve().parents[3]
AGENTS = ["random", "random:name=b"]


def without_times(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in r.items() if k != "times"} for r in records]


def read_lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def cli(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mcts_agents", *args],
        capture_output=True, text=True, timeout=timeout, cwd=ROOT,
    )  # fmt: skip


def results_file(tmp_path: Path, games: int = 3, seed: int = 0) -> Path:
    out = tmp_path / "games.jsonl"
    play_match("tic_tac_toe", AGENTS, games=games, seed=seed, out=out)
    return out


# ------------------------------------------------- 4: a file that is not a results file
NOT_OURS = {
    "one CSV line": b"agent,games,wins\n",
    "text without a final newline": b"my notes, not yet saved",
    "binary": bytes(range(256)) * 40,
    "a JSON list": b'["header", 1]\n{"type": "game"}\n',
    "another program's JSON": b'{"type": "config", "games": 3}\n',
}


@pytest.mark.parametrize("content", NOT_OURS.values(), ids=list(NOT_OURS))
def test_out_refuses_a_file_that_is_not_a_results_file_and_leaves_it(
    tmp_path: Path, content: bytes
) -> None:
    out = tmp_path / "scores.csv"
    out.write_bytes(content)
    with pytest.raises(ResultsFileError, match=r"scores\.csv is not an mcts-agents results file"):
        play_match("tic_tac_toe", AGENTS, games=2, out=out)
    assert out.read_bytes() == content
    run = cli("arena", "tic_tac_toe", "--agents", *AGENTS, "--games", "2", "--out", str(out))
    assert run.returncode == 2 and "not an mcts-agents results file" in run.stderr, run.stderr
    assert str(out) in run.stderr and "refusing to overwrite" in run.stderr
    assert out.read_bytes() == content
    assert sorted(p.name for p in tmp_path.iterdir()) == ["scores.csv"]  # no temporary left


def test_out_refuses_a_damaged_header_naming_the_field(tmp_path: Path) -> None:
    out = results_file(tmp_path)
    lines = out.read_text().splitlines()
    header = json.loads(lines[0])
    header["seed"] = "zero"
    damaged = "\n".join([json.dumps(header), *lines[1:]]) + "\n"
    out.write_text(damaged)
    with pytest.raises(ResultsFileError, match=r"games\.jsonl, line 1: .*'seed'.*'zero'"):
        play_match("tic_tac_toe", AGENTS, games=3, out=out)
    assert out.read_text() == damaged


def test_an_empty_file_is_started_as_a_results_file(tmp_path: Path) -> None:
    out = tmp_path / "games.jsonl"
    out.touch()
    result = play_match("tic_tac_toe", AGENTS, games=2, out=out)
    assert read_lines(out)[1:] == result.records


# ------------------------------------------------ 5: temporary files, links, two runs
def test_a_planted_link_at_the_temporary_name_is_not_followed(tmp_path: Path) -> None:
    out = results_file(tmp_path, games=2)
    with out.open("a") as handle:
        handle.write('{"type": "game", "index": 2, "se')  # a cut line: the file is rewritten
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    (tmp_path / "games.jsonl.tmp").symlink_to(victim)  # the name the old code wrote through
    result = play_match("tic_tac_toe", AGENTS, games=4, out=out)
    assert victim.read_text() == "precious\n"
    assert (tmp_path / "games.jsonl.tmp").is_symlink()
    assert not out.is_symlink() and read_lines(out)[1:] == result.records
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "games.jsonl", "games.jsonl.tmp", "victim.txt",
    ]  # fmt: skip


def test_a_link_to_a_results_file_is_followed_and_kept(tmp_path: Path) -> None:
    real = results_file(tmp_path, games=2)
    link = tmp_path / "latest.jsonl"
    link.symlink_to(real)
    longer = play_match("tic_tac_toe", AGENTS, games=4, out=link)
    assert link.is_symlink() and read_lines(real)[1:] == longer.records


def wait_for(condition: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


def test_a_second_run_on_a_file_being_written_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "games.jsonl"
    pids = tmp_path / "pids.txt"
    script = (
        "import sys\n"
        "from mcts_agents import play_match\n"
        "from tests.mcts_agents.arena.arena_helpers import PidReporter\n"
        "play_match('tic_tac_toe', [PidReporter(sys.argv[2], 0.05), 'random'], games=200,\n"
        "           out=sys.argv[1])\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    first = subprocess.Popen(
        [sys.executable, "-c", script, str(out), str(pids)], cwd=ROOT, env=env,
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )  # fmt: skip
    try:
        wait_for(lambda: out.exists() and len(out.read_text().splitlines()) >= 2, 60, "a game")
        with pytest.raises(ResultsFileBusyError, match=r"another run is writing .*games\.jsonl"):
            play_match("tic_tac_toe", AGENTS, games=200, out=out)
        run = cli("arena", "tic_tac_toe", "--agents", "random", "random", "--out", str(out))
        assert run.returncode == 2 and "another run is writing" in run.stderr, run.stderr
        assert first.poll() is None  # the first run goes on undisturbed
    finally:
        first.send_signal(signal.SIGKILL)
        first.wait(30)
    # The killed run's lock is gone with it: the file resumes, each game once.
    result = play_match("tic_tac_toe", [PidReporter(str(pids), 0.0), "random"], 200, out=out)
    indices = [line["index"] for line in read_lines(out)[1:]]
    assert sorted(indices) == list(range(200)) and len(result.records) == 200


# ----------------------------------------------------------------- 6: damaged lines
def tamper(record: dict[str, Any], fault: str) -> Any:
    if fault == "a JSON list":
        return [record["index"], record["seats"]]
    record = dict(record)
    if fault == "no scores":
        del record["scores"]
    elif fault == "tampered scores":
        record["scores"] = [s + 0.5 for s in record["scores"]]
    elif fault == "another seed":
        record["seed"] += 1
    elif fault == "a mover per move missing":
        record["movers"] = record["movers"][:-1]
    elif fault == "negative times":
        record["times"] = [-1.0 for _ in record["times"]]
    elif fault == "returns of the wrong length":
        record["returns"] = record["returns"] + [0.0]
    elif fault == "a seat that is no agent":
        record["seats"] = ["random", "nobody"]
    elif fault == "string moves":
        record["moves"] = [str(m) for m in record["moves"]]
    return record


FAULTS = {
    "a JSON list": "expected a game record \\(a JSON object\\), got a list",
    "no scores": "the game record lacks \\['scores'\\]",
    "tampered scores": "'scores' .* do not follow from 'returns'",
    "another seed": "'seed' .* is not the seed of game 1",
    "a mover per move missing": "'movers' should hold one value per move",
    "negative times": "'times' should hold seconds >= 0",
    "returns of the wrong length": "'returns' should be 2 finite numbers",
    "a seat that is no agent": "'seats' should be 2 of the agents",
    "string moves": "'moves' should be a list of ints",
}


@pytest.mark.parametrize("fault", list(FAULTS))
def test_resume_names_the_file_line_and_fault_of_a_malformed_record(
    tmp_path: Path, fault: str
) -> None:
    out = results_file(tmp_path)
    lines = out.read_text().splitlines()
    lines[2] = json.dumps(tamper(json.loads(lines[2]), fault))  # game 1, line 3
    damaged = "\n".join(lines) + "\n"
    out.write_text(damaged)
    with pytest.raises(ResultsFileError, match=rf"games\.jsonl, line 3: {FAULTS[fault]}"):
        play_match("tic_tac_toe", AGENTS, games=3, out=out)
    assert out.read_text() == damaged


def test_a_cut_line_before_the_last_is_refused_not_dropped(tmp_path: Path) -> None:
    out = results_file(tmp_path)
    lines = out.read_text().splitlines()
    lines[1] = lines[1][:40]
    damaged = "\n".join(lines) + "\n"
    out.write_text(damaged)
    with pytest.raises(ResultsFileError, match=r"games\.jsonl, line 2: not valid JSON"):
        play_match("tic_tac_toe", AGENTS, games=3, out=out)
    run = cli("arena", "tic_tac_toe", "--agents", *AGENTS, "--games", "3", "--out", str(out))
    assert run.returncode == 2 and "line 2: not valid JSON" in run.stderr, run.stderr
    assert out.read_text() == damaged


def forged_win(record: dict[str, Any], moves: int) -> dict[str, Any]:
    """``record`` cut to ``moves`` moves and won by its first seat: each field agrees with the
    others (every line check passes), but the moves do not end the game."""
    cut = {key: record[key][:moves] for key in ("moves", "movers", "times")}
    iterations = record["iterations"]
    return {
        **record, **cut, "length": moves,
        "iterations": None if iterations is None else iterations[:moves],
        "returns": [1.0, -1.0], "scores": [1.0, 0.0], "outcome": "win",
        "winner": record["seats"][0],
    }  # fmt: skip


def test_resume_replays_the_moves_and_refuses_a_forged_outcome(tmp_path: Path) -> None:
    out = results_file(tmp_path)
    lines = out.read_text().splitlines()
    record = json.loads(lines[2])  # game 1, line 3
    swapped = [-r for r in record["returns"]]
    scores = [1.0 - v for v in record["scores"]]
    winner = record["seats"][scores.index(1.0)] if record["outcome"] == "win" else None
    forgeries = {
        "a win after one move": forged_win(record, 1),
        "a game cut before its end": forged_win(record, record["length"] - 1),
        "returns swapped": {**record, "returns": swapped, "scores": scores, "winner": winner},
        "moves by the other seat": {**record, "movers": [1 - m for m in record["movers"]]},
    }
    if record["outcome"] == "draw":
        del forgeries["returns swapped"]  # a draw swapped is the same draw
    for what, forged in forgeries.items():
        lines[2] = json.dumps(forged)
        damaged = "\n".join(lines) + "\n"
        out.write_text(damaged)
        with pytest.raises(ResultsFileError, match=r"games\.jsonl, line 3: ") as raised:
            play_match("tic_tac_toe", AGENTS, games=3, out=out)
        assert "does not follow from the moves" in str(raised.value), what
        assert out.read_text() == damaged, what
    run = cli("arena", "tic_tac_toe", "--agents", *AGENTS, "--games", "3", "--out", str(out))
    assert run.returncode == 2 and "line 3" in run.stderr, run.stderr
    assert "does not follow from the moves" in run.stderr


def test_a_line_nested_200000_deep_is_refused_naming_the_file_and_line(tmp_path: Path) -> None:
    out = results_file(tmp_path)
    lines = out.read_text().splitlines()
    for number, text in ((2, "[" * 200_000 + "]" * 200_000), (3, '{"a": ' * 100 + "1" + "}" * 100)):
        edited = list(lines)
        edited[number - 1] = text
        out.write_text("\n".join(edited) + "\n")
        with pytest.raises(ResultsFileError, match=rf"games\.jsonl, line {number}: nested deeper"):
            play_match("tic_tac_toe", AGENTS, games=3, out=out)
    out.write_text("\n".join(["[" * 200_000 + "]" * 200_000, *lines[1:]]) + "\n")
    run = cli("arena", "tic_tac_toe", "--agents", *AGENTS, "--games", "3", "--out", str(out))
    assert run.returncode == 2 and "not an mcts-agents results file" in run.stderr, run.stderr
    assert "nested deeper" in run.stderr
    edited = list(lines)
    edited[1] = edited[1].replace('"seed": ', '"seed": NaN, "x": ', 1)
    out.write_text("\n".join(edited) + "\n")
    with pytest.raises(ResultsFileError, match=r"line 2: the number NaN is not finite"):
        play_match("tic_tac_toe", AGENTS, games=3, out=out)


# --------------------------------------------------------------- 7: read-only files
def test_a_truncated_read_only_file_is_not_replaced(tmp_path: Path) -> None:
    out = results_file(tmp_path, games=2)
    with out.open("a") as handle:
        handle.write('{"type": "game", "index": 2, "seed": 12')
    out.chmod(0o444)
    before = out.read_bytes(), out.stat().st_ino
    with pytest.raises(ResultsFileError, match=r"games\.jsonl is read-only.* 2 of the 4 games"):
        play_match("tic_tac_toe", AGENTS, games=4, out=out)
    with pytest.raises(ResultsFileError, match="cannot be extended or repaired"):
        play_match("tic_tac_toe", AGENTS, games=4, out=out)
    assert (out.read_bytes(), out.stat().st_ino) == before
    assert stat.S_IMODE(out.stat().st_mode) == 0o444


def test_a_complete_read_only_file_is_read(tmp_path: Path) -> None:
    out = results_file(tmp_path, games=3)
    written = read_lines(out)[1:]
    out.chmod(0o444)
    before = out.read_bytes()
    assert play_match("tic_tac_toe", AGENTS, games=3, out=out).records == written
    assert play_match("tic_tac_toe", AGENTS, games=2, out=out).records == written[:2]
    assert out.read_bytes() == before and stat.S_IMODE(out.stat().st_mode) == 0o444


def test_a_repaired_file_keeps_its_mode(tmp_path: Path) -> None:
    out = results_file(tmp_path, games=2)
    out.chmod(0o640)
    with out.open("a") as handle:
        handle.write('{"type": "game", "index": 2, "seed": 12')
    play_match("tic_tac_toe", AGENTS, games=3, out=out)
    assert stat.S_IMODE(out.stat().st_mode) == 0o640
    assert [r["index"] for r in read_lines(out)[1:]] == [0, 1, 2]


# ------------------------------------------------------------------ 17: extending a run
def test_a_finished_match_is_extended_and_its_header_count_raised(tmp_path: Path) -> None:
    out = results_file(tmp_path, games=3, seed=4)
    short = read_lines(out)[1:]
    longer = play_match("tic_tac_toe", AGENTS, games=6, seed=4, out=out)
    assert longer.records[:3] == short
    header, *games = read_lines(out)
    assert header["games"] == 6 and [g["index"] for g in games] == list(range(6))
    fresh = play_match("tic_tac_toe", AGENTS, games=6, seed=4)
    assert without_times(longer.records) == without_times(fresh.records)
    # Fewer games than the file holds: the first ones, the file unchanged.
    before = out.read_bytes()
    assert play_match("tic_tac_toe", AGENTS, games=2, seed=4, out=out).records == games[:2]
    assert out.read_bytes() == before


def test_a_tournament_is_extended_with_more_games_per_pair(tmp_path: Path) -> None:
    out = tmp_path / "t.jsonl"
    agents = ["random", "random:name=b", "random:name=c"]
    short = tournament("tic_tac_toe", agents, 2, seed=1, out=out)
    longer = tournament("tic_tac_toe", agents, 4, seed=1, out=out)
    assert longer.records[:6] == short.records
    header, *games = read_lines(out)
    assert header["games_per_pair"] == 4 and len(games) == 12
    fresh = tournament("tic_tac_toe", agents, 4, seed=1)
    assert without_times(longer.records) == without_times(fresh.records)
    with pytest.raises(ResultsFileError, match=r"seed: file 1, now 2"):
        tournament("tic_tac_toe", agents, 4, seed=2, out=out)


def test_an_extension_of_another_run_names_the_difference(tmp_path: Path) -> None:
    out = results_file(tmp_path, games=2)
    with pytest.raises(ResultsFileError, match=r"env: file 'tic_tac_toe', now 'connect_four'"):
        play_match("connect_four", AGENTS, games=4, out=out)
    with pytest.raises(ResultsFileError, match=r"kind: file 'match', now 'tournament'"):
        tournament("tic_tac_toe", AGENTS, 2, out=out)


# ------------------------------------------------------------------ 10: upper bounds
def test_counts_beyond_the_limits_are_refused_before_any_task_is_made() -> None:
    started = time.perf_counter()
    with pytest.raises(ValueError, match=rf"games=1000000000000 .*at most {MAX_GAMES}"):
        play_match("tic_tac_toe", AGENTS, games=10**12)
    with pytest.raises(ValueError, match=r"games_per_pair=10000000 .*30000000 games"):
        tournament("tic_tac_toe", ["random", "random", "random"], 10**7)
    bound = rf"workers must be an int in \[1, {MAX_WORKERS}\] .*got 257"
    with pytest.raises(ValueError, match=bound):
        play_match("tic_tac_toe", AGENTS, games=2, workers=MAX_WORKERS + 1)
    assert time.perf_counter() - started < 10
    run = cli("arena", "tic_tac_toe", "--agents", *AGENTS, "--games", str(10**12))
    assert run.returncode == 2 and "--games" in run.stderr and "1000000000000" in run.stderr


@pytest.mark.parametrize(
    ("call", "said"),
    [
        (lambda: play_match("tic_tac_toe", AGENTS, games=2, seed=-1), "seed"),
        (lambda: play_match("tic_tac_toe", AGENTS, games=2, backend="threads"), "backend"),
        (lambda: play_match("tic_tac_toe", AGENTS, games=2, workers=0), "workers"),
        (lambda: tournament("tic_tac_toe", ["random"], 2), "at least 2 agents"),
        (lambda: tournament("tic_tac_toe", AGENTS, 2, anchor="nobody"), "anchor"),
        (lambda: tournament("multi_mnk", AGENTS, 2), "2-player"),
    ],
)
def test_the_arenas_refusals_are_the_librarys_option_error(call: Any, said: str) -> None:
    with pytest.raises(InvalidOptionError, match=said):
        call()
