"""Gumbel AlphaZero training: ``RunConfig(search="gumbel")``, ``mcts-agents train --search
gumbel`` and ``az:...,search=gumbel``. A tiny tic-tac-toe run whose self-play records are
replayed with the same search: their policy targets are its improved policy."""

from __future__ import annotations

import copy
import io
import json
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from mcts_agents.agents.specs import make_agent  # noqa: E402
from mcts_agents.alphazero.learn import RunConfig, loop, train  # noqa: E402
from mcts_agents.cli.main import main  # noqa: E402
from mcts_agents.envs import tic_tac_toe_v0  # noqa: E402
from mcts_agents.errors import InvalidOptionError  # noqa: E402
from tests.mcts_agents.alphazero.learn.test_loop import TINY as LOOP_TINY  # noqa: E402
from tests.mcts_agents.alphazero.learn.test_loop import TTT  # noqa: E402
from tests.mcts_agents.alphazero.test_gumbel_selfplay import replayed_results  # noqa: E402

TINY = replace(LOOP_TINY, search="gumbel", root_noise=None)  # test_loop's run, Gumbel self-play


def test_root_noise_follows_the_search() -> None:
    assert RunConfig().root_noise == (0.3, 0.25)
    assert RunConfig(search="gumbel").root_noise is None
    assert RunConfig(search="puct", root_noise=None).root_noise is None
    with pytest.raises(InvalidOptionError, match="takes no root_noise"):
        RunConfig(search="gumbel", root_noise=(0.3, 0.25))
    with pytest.raises(InvalidOptionError, match="search"):
        RunConfig(search="alphabeta")  # type: ignore[arg-type]
    config = RunConfig(search="gumbel")
    assert RunConfig.from_dict(json.loads(json.dumps(config.to_dict()))) == config
    old = RunConfig().to_dict()
    del old["search"]  # a run.json from before the option: a PUCT run
    assert RunConfig.from_dict(old) == RunConfig()


def test_a_tiny_gumbel_run_trains_on_the_improved_policy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    played: list[tuple[Any, Any, int]] = []
    play = loop.play_selfplay_game

    def spy(game: Any, evaluator: Any, config: Any, *args: Any, **kwargs: Any) -> Any:
        assert config.selection == "gumbel" and config.root_noise is None
        record = play(game, evaluator, config, *args, **kwargs)
        # the network as it played (a copy: the best network changes at promotions)
        played.append((record, copy.deepcopy(evaluator), record.seed))
        return record

    monkeypatch.setattr(loop, "play_selfplay_game", spy)
    summary = train(TTT, tmp_path / "run", config=TINY, steps=12)
    assert summary.step == 12 and summary.iteration == 3 and len(played) == 6
    stored = json.loads((tmp_path / "run" / "run.json").read_text())["config"]
    assert stored["search"] == "gumbel" and stored["root_noise"] is None
    lines = [
        json.loads(x) for x in (tmp_path / "run" / "metrics.jsonl").read_text().split("\n") if x
    ]
    assert sum(line["selfplay"]["positions"] for line in lines) == sum(len(r) for r, _, _ in played)
    assert lines[1]["gate"] is not None  # the gate ran (with Gumbel search)
    for record, evaluator, seed in played:
        results = replayed_results(TTT, evaluator, record.actions, seed, 8)
        for t, result in enumerate(results):
            expected = np.zeros(9, dtype=np.float32)
            for action, p in result.improved_policy:
                expected[action] = p
            assert np.allclose(record.policies[t], expected, atol=1e-6)
            assert record.actions[t] == result.best_action


def cli(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        try:
            code = main(list(args))
        except SystemExit as exit_:
            code = exit_.code if isinstance(exit_.code, int) else 0
    return code, out.getvalue(), err.getvalue()


def test_the_command_line_and_the_spec(tmp_path: Path) -> None:
    run = tmp_path / "run"
    code, _, err = cli(
        "train", "tic_tac_toe", "--out", str(run), "--steps", "2", "--search", "gumbel",
        "--simulations", "4", "--search-batch", "2", "--games", "1", "--train-steps", "2",
        "--gate-every", "0", "--channels", "4", "--blocks", "0", "--batch-size", "8",
        "--gumbel-actions", "4", "--gumbel-c-scale", "0.1",
    )  # fmt: skip
    assert code == 0, err
    config = json.loads((run / "run.json").read_text())["config"]
    assert config["search"] == "gumbel" and config["root_noise"] is None
    assert config["gumbel_max_actions"] == 4 and config["gumbel_c_scale"] == 0.1
    code, _out, err = cli(
        "train", "tic_tac_toe", "--out", str(run), "--steps", "4", "--search", "puct"
    )
    assert code == 2 and "--search gumbel (given puct)" in err
    agent = make_agent(f"az:model={run},simulations=8,search=gumbel,gumbel_max_actions=4", seed=1)
    assert agent.config.selection == "gumbel" and agent.config.gumbel_max_actions == 4
    assert "search='gumbel'" in repr(agent)
    env = tic_tac_toe_v0.env()
    env.reset(seed=0)
    action = agent.act(env)
    assert agent.last_result is not None and agent.last_result.improved_policy
    assert action == agent.last_result.best_action
    # a player's Gumbel search draws no root noise by default (self-play keeps the draw)
    assert agent.config.gumbel_scale == 0.0 and RunConfig(search="gumbel").gumbel_scale == 1.0
    moves = {
        make_agent(f"az:model={run},simulations=8,search=gumbel", seed=s).act(env) for s in range(8)
    }
    assert len(moves) == 1, moves
    noisy = make_agent(f"az:model={run},simulations=8,search=gumbel,gumbel_scale=1", seed=1)
    assert noisy.config.gumbel_scale == 1.0
    with pytest.raises(ValueError, match="search must be 'puct' or 'gumbel', got 'ucb1'"):
        make_agent(f"az:model={run},search=ucb1")
    with pytest.raises(InvalidOptionError, match="needs iterations"):
        timed = make_agent(f"az:model={run},time=0.1,search=gumbel")
        timed.act(env)


def test_a_new_gumbel_run_defaults_to_the_settings_that_never_lost(tmp_path: Path) -> None:
    tiny = ["--steps", "1", "--simulations", "4", "--search-batch", "2", "--games", "1",
            "--train-steps", "1", "--channels", "4", "--blocks", "0",
            "--batch-size", "8"]  # fmt: skip
    run = tmp_path / "run"
    code, _, err = cli("train", "tic_tac_toe", "--out", str(run), "--search", "gumbel", *tiny)
    assert code == 0, err
    config = json.loads((run / "run.json").read_text())["config"]
    assert config["gumbel_max_actions"] == 4 and config["gate_every"] == 0
    assert config["gumbel_c_scale"] == 0.1
    given = tmp_path / "given"
    code, _, err = cli("train", "tic_tac_toe", "--out", str(given), "--search", "gumbel",
                       "--gumbel-actions", "8", "--gate-every", "2", *tiny)  # fmt: skip
    assert code == 0, err
    config = json.loads((given / "run.json").read_text())["config"]
    assert config["gumbel_max_actions"] == 8 and config["gate_every"] == 2
    puct = tmp_path / "puct"
    assert cli("train", "tic_tac_toe", "--out", str(puct), *tiny)[0] == 0
    config = json.loads((puct / "run.json").read_text())["config"]
    assert config["gumbel_max_actions"] == 16 and config["gate_every"] == 5
