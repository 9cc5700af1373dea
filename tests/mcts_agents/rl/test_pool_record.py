"""An ``OpponentPool``'s results file (``out=``): the games written in the arena's format, read
back into equal stats, resumed with the counts going on, and forged or damaged lines refused
naming the line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from mcts_agents.agents.specs import make_env
from mcts_agents.arena.record_checks import check_header, check_record
from mcts_agents.errors import InvalidOptionError, ResultsFileBusyError, ResultsFileError
from mcts_agents.rl import VectorVsOpponent
from mcts_agents.rl.pool import OpponentPool
from mcts_agents.rl.pool_episodes import learner_score

ENV = "tic_tac_toe"
ENTRIES = ["mcts:iterations=3", "random"]


def play(pool: OpponentPool, steps: int, seed: int = 0, num_envs: int = 4) -> None:
    env = VectorVsOpponent(num_envs, ENV, opponent=pool, seed=seed)
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    for _ in range(steps):
        masks = env.action_masks()
        env.step(np.array([int(rng.choice(np.flatnonzero(m))) if m.any() else 0 for m in masks]))
    env.close()


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def pool_at(out: Path, seed: int = 3) -> OpponentPool:
    return OpponentPool(ENTRIES, rule="pfsp_hard", seed=seed, out=out, env=ENV)


def test_the_games_are_written_in_the_arenas_format_and_follow_from_their_moves(
    tmp_path: Path,
) -> None:
    out = tmp_path / "pool.jsonl"
    pool = pool_at(out)
    play(pool, steps=30)
    pool.close()
    header, *games = lines(out)
    assert header["kind"] == "pool" and header["env"] == ENV and header["agents"] == ENTRIES
    assert header["specs"] == ENTRIES and header["rule"] == "pfsp_hard" and header["seed"] == 3
    assert check_header(header, "f") == header
    assert len(games) == sum(s["games"] for s in pool.stats().values()) > 5
    assert [g["index"] for g in games] == list(range(len(games)))
    for number, game in enumerate(games, 2):
        assert check_record(game, header, "f", number) == game["index"]
        # the truth from outside: the recorded moves (of both paths: the words' boards
        # against the searches, the AEC envs against "random") replayed through the AEC env
        # end the game with the recorded returns; the score follows as the arena scores games
        aec = make_env(ENV)
        aec.reset()
        for move in game["moves"]:
            aec.step(move)
        assert all(aec.terminations.values())
        assert [aec.rewards[s] for s in game["seats"]] == game["returns"]
        returns = dict(zip(game["seats"], game["returns"], strict=True))
        assert game["score"] == learner_score(returns, game["seat"], game["seats"])


def test_a_resumed_pool_reads_back_equal_stats_and_its_counts_go_on(tmp_path: Path) -> None:
    out = tmp_path / "pool.jsonl"
    pool = pool_at(out)
    play(pool, steps=30)
    before = pool.stats()
    pool.close()
    again = pool_at(out)
    assert again.stats() == before
    assert list(again.probabilities()) == list(pool.probabilities())  # the PFSP weights follow
    play(again, steps=20, seed=7)
    again.close()
    games = lines(out)[1:]
    after = again.stats()
    assert len(games) == sum(s["games"] for s in after.values())
    assert sum(s["games"] for s in after.values()) > sum(s["games"] for s in before.values())
    assert [g["index"] for g in games] == list(range(len(games)))
    assert pool_at(out).stats() == after


def test_a_resumed_curriculum_is_at_the_level_it_reached(tmp_path: Path) -> None:
    out = tmp_path / "league.jsonl"
    pool = OpponentPool.curriculum("connect_four", start="L1", window=2, out=out)
    for score in (1, 1, 1, 1, 0, 1):
        pool.record(pool.draw(), score)
    level, stats = pool.level, pool.stats()
    pool.close()
    assert level == 3
    again = OpponentPool.curriculum("connect_four", start="L1", window=2, out=out)
    assert (again.level, again.stats()) == (level, stats)
    assert lines(out)[1]["returns"] is None  # (recorded by hand: no returns)


def test_a_snapshots_games_count_when_it_joins_the_pool_again(tmp_path: Path) -> None:
    out = tmp_path / "pool.jsonl"
    pool = pool_at(out)
    pool.add(lambda observation, mask: int(np.flatnonzero(mask)[0]), "snapshot-5")
    pool.record("snapshot-5", 1.0)
    pool.record("snapshot-5", 0.5)
    pool.close()
    again = pool_at(out)
    assert "snapshot-5" not in again.stats()
    again.add(lambda observation, mask: 0, "snapshot-5")
    assert again.stats()["snapshot-5"]["games"] == 2
    assert again.stats()["snapshot-5"]["score"] == 0.75


def test_forged_and_too_deep_lines_are_refused_naming_the_line(tmp_path: Path) -> None:
    out = tmp_path / "pool.jsonl"
    pool = pool_at(out)
    play(pool, steps=20)
    pool.close()
    header, *games = lines(out)
    forged = [dict(g) for g in games]
    decisive = next(i for i, g in enumerate(forged) if g["score"] == 0.0)
    forged[decisive]["score"] = 1.0  # a loss turned into a win
    out.write_text("".join(json.dumps(line) + "\n" for line in [header, *forged]))
    with pytest.raises(ResultsFileError, match=f"line {decisive + 2}: 'score' 1.0 does not"):
        pool_at(out)
    deep = "[" * 200 + "]" * 200
    text = [json.dumps(line) for line in [header, *games]]
    text[2] = deep
    out.write_text("\n".join(text) + "\n")
    with pytest.raises(ResultsFileError, match="line 3: nested deeper than"):
        pool_at(out)


def test_another_runs_file_a_busy_file_and_a_missing_env_are_refused(tmp_path: Path) -> None:
    out = tmp_path / "pool.jsonl"
    pool = pool_at(out)
    with pytest.raises(ResultsFileBusyError):
        pool_at(out)
    pool.close()
    with pytest.raises(ResultsFileError, match=r"another run.*seed: file 3, now 4"):
        pool_at(out, seed=4)
    with pytest.raises(InvalidOptionError, match="out= needs env="):
        OpponentPool(ENTRIES, out=tmp_path / "other.jsonl")
    (tmp_path / "notes.txt").write_text("my notes\n")
    with pytest.raises(ResultsFileError, match="not an mcts-agents results file"):
        OpponentPool(ENTRIES, out=tmp_path / "notes.txt", env=ENV)
    assert (tmp_path / "notes.txt").read_text() == "my notes\n"


def test_the_replay_server_refuses_a_pool_file_by_name(tmp_path: Path) -> None:
    replays = pytest.importorskip("mcts_agents.web.replays")
    out = tmp_path / "pool.jsonl"
    pool = pool_at(out)
    pool.record("random", 1.0)
    pool.close()
    with pytest.raises(ResultsFileError, match="opponent pool; its games are not replayed"):
        replays.load_game(str(out), 0)
