"""The training loop (``mcts_agents.alphazero.learn.loop.train``): metrics, gating, and a run
stopped and resumed that ends where a run that never stopped does, bit for bit."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

torch = pytest.importorskip("torch")

from mcts_agents.alphazero.learn import (  # noqa: E402
    NetConfig,
    RunConfig,
    TrainConfig,
    load_checkpoint,
    load_model,
    load_net,
    train,
)
from mcts_agents.envs.games.mnk import MNK  # noqa: E402
from mcts_agents.errors import CheckpointError, InvalidOptionError  # noqa: E402

TTT = MNK(3, 3, 3)
TINY = RunConfig(
    net=NetConfig(channels=8, blocks=1, value_hidden=8),
    training=TrainConfig(batch_size=16, learning_rate=1e-2),
    simulations=8,
    search_batch=4,
    games_per_iteration=2,
    steps_per_iteration=4,
    buffer_capacity=500,
    gate_every=2,
    gate_games=2,
    seed=3,
)


def metrics(folder: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (folder / "metrics.jsonl").read_text().splitlines()]


def timeless(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Metrics lines without their wall times."""
    out = []
    for line in lines:
        line = {k: v for k, v in line.items() if k not in ("seconds", "train_seconds")}
        line["selfplay"] = {k: v for k, v in line["selfplay"].items() if k != "seconds"}
        out.append(line)
    return out


def same_weights(one: Any, two: Any) -> bool:
    a, b = one.state_dict(), two.state_dict()
    return a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)


@pytest.fixture(scope="module")
def straight(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("straight")
    summary = train(TTT, folder, config=TINY, steps=16)
    assert (summary.iteration, summary.step, summary.resumed) == (4, 16, False)
    return folder


def test_metrics_lines_say_what_each_iteration_did(straight: Path) -> None:
    lines = metrics(straight)
    assert [line["iteration"] for line in lines] == [1, 2, 3, 4]
    assert [line["step"] for line in lines] == [4, 8, 12, 16]
    for line in lines:
        assert line["selfplay"]["games"] == 2
        assert 5 <= line["selfplay"]["mean_length"] <= 9  # tic-tac-toe lasts 5 to 9 plies
        assert line["buffer"] == sum(x["selfplay"]["positions"] for x in lines[: line["iteration"]])
        losses = line["loss"]
        assert losses["total"] == pytest.approx(losses["policy"] + losses["value"] + losses["l2"])
    gates = [line["gate"] for line in lines]
    assert gates[0] is None and gates[2] is None
    for result in (gates[1], gates[3]):
        assert result["games"] == 2 and result["wins"] + result["draws"] + result["losses"] == 2
    promoted = sum(1 for g in gates if g is not None and g["promoted"])
    assert lines[-1]["promotions"] == promoted
    run = json.loads((straight / "run.json").read_text())
    assert run["game"] == repr(TTT) and RunConfig.from_dict(run["config"]) == TINY


def test_a_stopped_and_resumed_run_ends_where_a_straight_one_does(
    straight: Path, tmp_path: Path
) -> None:
    first = train(TTT, tmp_path, config=TINY, steps=8)
    assert (first.iteration, first.step) == (2, 8)
    with open(tmp_path / "metrics.jsonl", "a") as handle:  # an iteration cut short after its line
        handle.write(json.dumps({"iteration": 3, "step": 12}) + "\n")
    second = train(TTT, tmp_path, steps=16)  # config=None: the stored one
    assert (second.resumed, second.iteration, second.step) == (True, 4, 16)
    assert [line["iteration"] for line in second.metrics] == [3, 4]
    assert timeless(metrics(tmp_path)) == timeless(metrics(straight))
    assert same_weights(load_net(tmp_path), load_net(straight))
    resumed, whole = (
        load_checkpoint(tmp_path / "checkpoint.pt"),
        load_checkpoint(straight / "checkpoint.pt"),
    )
    assert same_weights(resumed.net, whole.net)
    assert resumed.trainer.rng.bit_generator.state == whole.trainer.rng.bit_generator.state
    assert train(TTT, tmp_path, steps=16).metrics == ()  # nothing left to do


def test_without_a_gate_the_best_net_is_the_latest(tmp_path: Path) -> None:
    config = RunConfig(
        net=TINY.net, training=TINY.training, simulations=8, games_per_iteration=2,
        steps_per_iteration=3, gate_every=0,
    )  # fmt: skip
    train(TTT, tmp_path, config=config, steps=3)
    assert metrics(tmp_path)[0]["gate"] is None
    assert same_weights(load_net(tmp_path), load_checkpoint(tmp_path / "checkpoint.pt").net)


def test_each_iteration_is_reported_and_the_nets_name_their_game(tmp_path: Path) -> None:
    seen: list[dict[str, Any]] = []
    config = RunConfig(**{**vars_of(TINY), "gate_every": 0})
    summary = train(TTT, tmp_path, config=config, steps=8, on_iteration=seen.append)
    assert seen == list(summary.metrics) == metrics(tmp_path)
    assert [line["step"] for line in seen] == [4, 8]
    for path in (tmp_path, tmp_path / "best.pt", tmp_path / "checkpoint.pt"):
        assert load_model(path).game == repr(TTT)


def test_selfplay_workers_play_the_same_games(straight: Path, tmp_path: Path) -> None:
    config = RunConfig(**{**vars_of(TINY), "workers": 2})
    train(TTT, tmp_path, config=config, steps=8)
    assert timeless(metrics(tmp_path)) == timeless(metrics(straight))[:2]


def vars_of(config: RunConfig) -> dict[str, Any]:
    return {name: getattr(config, name) for name in RunConfig.__dataclass_fields__}


def test_runs_of_another_game_or_config_and_stray_folders_are_refused(
    straight: Path, tmp_path: Path
) -> None:
    with pytest.raises(CheckpointError, match=r"trains MNK\(m=3, n=3, k=3"):
        train(MNK(4, 4, 3), straight, steps=1)
    other = RunConfig(**{**vars_of(TINY), "simulations": 9})
    with pytest.raises(CheckpointError, match=r"other settings.*'simulations': \(8, 9\)"):
        train(TTT, straight, config=other, steps=20)
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(CheckpointError, match=r"not empty and holds no run\.json"):
        train(TTT, tmp_path, config=TINY, steps=1)
    with pytest.raises(InvalidOptionError, match="needs steps"):
        train(TTT, tmp_path / "new")
    with pytest.raises(InvalidOptionError, match="minutes must be a finite number > 0 or None"):
        train(TTT, tmp_path / "new", minutes=0)
    for options, message in (
        ({"gate_games": 3}, "gate_games must be even"),
        ({"steps_per_iteration": 0}, "steps_per_iteration must be an int >= 1"),
        ({"workers": 0}, r"workers must be an int in \[1, 256\]"),
        ({"temperature": (1, 2)}, "temperature_schedule must be"),
        ({"root_noise": (0.3, 2.0)}, "root_noise"),
    ):
        with pytest.raises(InvalidOptionError, match=message):
            RunConfig(**{**vars_of(TINY), **options})
    assert not (tmp_path / "new").exists()


def test_every_gated_best_net_is_kept_by_iteration(straight: Path) -> None:
    lines = metrics(straight)
    promoted = [line["iteration"] for line in lines if line["gate"] and line["gate"]["promoted"]]
    kept = sorted(path.name for path in (straight / "nets").iterdir())
    assert kept == [f"iteration-{i:06d}.pt" for i in [0, *promoted]]
    last = straight / "nets" / kept[-1]
    assert same_weights(load_net(last), load_net(straight))


def test_playout_cap_resignation_and_value_mix_reach_self_play(tmp_path: Path) -> None:
    config = RunConfig(
        **{
            **vars_of(TINY),
            "games_per_iteration": 6,
            "gate_every": 0,
            "playout_cap": (0.5, 2),
            "resign": (-0.5, 0.5),
            "value_mix": 0.5,
        }
    )
    train(TTT, tmp_path, config=config, steps=8)
    lines = metrics(tmp_path)
    plies = sum(line["selfplay"]["mean_length"] * line["selfplay"]["games"] for line in lines)
    positions = sum(line["selfplay"]["positions"] for line in lines)
    assert 0 < positions < plies  # the fast searches' positions are not trained on
    for line in lines:
        play = line["selfplay"]
        assert 0 <= play["false_positives"] <= play["resign_checks"] <= play["games"]
        assert play["resigned"] + play["resign_checks"] <= play["games"]
    stored = json.loads((tmp_path / "run.json").read_text())["config"]
    assert RunConfig.from_dict(stored) == config


@pytest.mark.parametrize(
    ("changes", "words"),
    [
        ({"playout_cap": (1.5, 4)}, "full_probability"),
        ({"playout_cap": (0.5, 99)}, "must not exceed simulations"),
        ({"playout_cap": (0.5,)}, "playout_cap must be"),
        ({"resign": (-2.0, 0.1)}, "threshold"),
        ({"resign": "no"}, r"resign \(threshold, disabled_fraction\)"),
        ({"value_mix": 2.0}, "value_mix"),
    ],
)
def test_bad_selfplay_options_are_named(changes: dict[str, Any], words: str) -> None:
    with pytest.raises(InvalidOptionError, match=words):
        RunConfig(**{**vars_of(TINY), **changes})


def test_each_promotion_measures_elo_against_the_fixed_opponents(tmp_path: Path) -> None:
    config = RunConfig(**{**vars_of(TINY), "elo_games": 2, "elo_opponents": (5, 20)})
    train(TTT, tmp_path, config=config, steps=16)
    lines = metrics(tmp_path)
    for line in lines:
        promoted = line["gate"] is not None and line["gate"]["promoted"]
        assert (line["elo"] is not None) == promoted
        if not promoted:
            continue
        for row, iterations in zip(line["elo"], (5, 20), strict=True):
            assert row["opponent"] == f"mcts:iterations={iterations},playout=random"
            assert row["games"] == 2 and row["low"] <= row["score"] <= row["high"]
    assert any(line["elo"] for line in lines)


def test_ray_tasks_play_the_same_games(straight: Path, tmp_path: Path) -> None:
    pytest.importorskip("ray")
    train(TTT, tmp_path, config=TINY, steps=8, backend="ray")
    assert timeless(metrics(tmp_path)) == timeless(metrics(straight))[:2]


def test_an_unknown_backend_is_refused(tmp_path: Path) -> None:
    with pytest.raises(InvalidOptionError, match="backend must be 'process' or 'ray', got 'mpi'"):
        train(TTT, tmp_path, config=TINY, steps=2, backend="mpi")


def test_the_teachers_iterations_come_first(tmp_path: Path) -> None:
    config = RunConfig(
        **{**vars_of(TINY), "teacher_iterations": 1, "teacher_simulations": 200, "gate_every": 0}
    )
    train(TTT, tmp_path, config=config, steps=8)
    lines = metrics(tmp_path)
    assert [line["selfplay"]["teacher"] for line in lines] == [True, False]
    # every teacher position is a full search, trained on
    assert lines[0]["selfplay"]["positions"] == 2 * lines[0]["selfplay"]["mean_length"]


#: a numpy PCG64 state whose number is too big for the generator
HUGE_RNG = json.dumps(
    {"bit_generator": "PCG64", "state": {"state": 2**200, "inc": 1}, "has_uint32": 0,
     "uinteger": 0}
)  # fmt: skip


def forged_copy(straight: Path, folder: Path, change: Any) -> Path:
    """A copy of the run ``straight`` whose checkpoint's content ``change`` edits in place."""
    import shutil

    run = folder / "forged"
    shutil.copytree(straight, run)
    content = torch.load(run / "checkpoint.pt", weights_only=True)
    change(content)
    torch.save(content, run / "checkpoint.pt")
    return run


def _set(*path: str, value: Any) -> Any:
    def change(content: dict[str, Any]) -> None:
        for key in path[:-1]:
            content = content[key]
        content[path[-1]] = value

    return change


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (_set("extra", "iteration", value=10**15), r"'iteration' should be an int in \[0, 16\]"),
        (_set("extra", "iteration", value=1e15), r"'iteration' should be an int in \[0, 16\]"),
        (_set("extra", "iteration", value=2), "'step' 16 is more than 2 iterations of 4 steps"),
        (_set("extra", "promotions", value=-3), r"'promotions' should be an int in \[0, 4\]"),
        (_set("extra", "seconds", value=float("nan")), "'seconds' should be a finite number"),
        (_set("extra", value=[1, 2]), "its 'extra' should be a dict"),
        (_set("game", value="Go(size=9)"), r"is a checkpoint of Go\(size=9\), not of MNK"),
        (_set("torch_rng", value=torch.zeros(10, dtype=torch.uint8)), r"'torch_rng' is .*\(10,\)"),
        (_set("trainer", "step", value=-1), "'step' must be an int >= 0, got -1"),
        (_set("trainer", "rng", value=HUGE_RNG), "'rng' is not a state of numpy's PCG64"),
        (_set("trainer", "rng", value="[" * 100_000 + "]" * 100_000), "nested deeper"),
        (_set("trainer", "config", value='{"batch_size": NaN}'), "NaN is not finite"),
    ],
)
def test_a_forged_checkpoint_is_refused_naming_the_field(
    straight: Path, tmp_path: Path, change: Any, words: str
) -> None:
    run = forged_copy(straight, tmp_path, change)
    before = (run / "metrics.jsonl").read_text()
    with pytest.raises(CheckpointError, match=words):
        train(TTT, run, steps=20)
    assert (run / "metrics.jsonl").read_text() == before  # nothing trained, nothing dropped


def test_a_forged_run_file_is_refused_naming_the_file_and_field(
    straight: Path, tmp_path: Path
) -> None:
    run = forged_copy(straight, tmp_path, lambda content: None)
    stored = json.loads((run / "run.json").read_text())
    for text, words in (
        ("[" * 200_000 + "]" * 200_000, "run.json': nested deeper than 64 levels"),
        (json.dumps({**stored, "format": "other"}), "not a training run's file"),
        (json.dumps({**stored, "game": 3}), "'game' should be the game's name"),
        (json.dumps({**stored, "config": {"net": 1}}), "a bad 'config'"),
        (json.dumps(stored).replace('"c": 1.5', '"c": NaN'), "the number NaN is not finite"),
    ):
        (run / "run.json").write_text(text)
        with pytest.raises(CheckpointError, match=words):
            train(TTT, run, steps=20)
