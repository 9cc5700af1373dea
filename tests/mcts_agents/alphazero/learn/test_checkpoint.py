"""Checkpoints (``mcts_agents.alphazero.learn.checkpoint``): a trainer saved after N steps and
resumed for M ends bit for bit where one that ran N + M steps straight does."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from mcts_agents.alphazero import ReplayBuffer, play_selfplay_game  # noqa: E402
from mcts_agents.alphazero.learn import (  # noqa: E402
    NetConfig,
    TrainConfig,
    Trainer,
    build_net,
    load_checkpoint,
    load_model,
    load_net,
    save_checkpoint,
    save_net,
)
from mcts_agents.alphazero.symmetries import symmetries  # noqa: E402
from mcts_agents.envs.games.connect_four import ConnectFour  # noqa: E402
from mcts_agents.errors import CheckpointError  # noqa: E402

GAME = ConnectFour(5, 4, 4)
SMALL = NetConfig(channels=8, blocks=1, value_hidden=8)


class Uniform:
    """Uniform priors, value 0."""

    def evaluate_batch(self, observations: np.ndarray, legal_masks: np.ndarray) -> Any:
        return legal_masks.astype(np.float64), np.zeros(len(observations))


@pytest.fixture(scope="module")
def buffer() -> ReplayBuffer:
    buffer = ReplayBuffer(500, symmetries(GAME))
    for seed in range(6):
        buffer.add(play_selfplay_game(GAME, Uniform(), None, 10, (4, 1.0, 0.0), seed=seed))
    return buffer


def same(one: Any, two: Any) -> bool:
    """Two nested states equal exactly (tensors bit for bit)."""
    if isinstance(one, torch.Tensor):
        return isinstance(two, torch.Tensor) and one.dtype == two.dtype and torch.equal(one, two)
    if isinstance(one, dict):
        return one.keys() == two.keys() and all(same(one[k], two[k]) for k in one)
    if isinstance(one, (list, tuple)):
        return len(one) == len(two) and all(same(a, b) for a, b in zip(one, two, strict=True))
    return bool(one == two)


@pytest.mark.parametrize("optimizer", ["adam", "sgd"])
def test_train_save_resume_equals_training_straight(
    buffer: ReplayBuffer, tmp_path: Path, optimizer: str
) -> None:
    config = TrainConfig(batch_size=16, learning_rate=1e-2, optimizer=optimizer)
    straight = Trainer(build_net(GAME, SMALL, seed=1), config, seed=5)
    straight_losses = [straight.train_step(buffer).total for _ in range(7)]

    first = Trainer(build_net(GAME, SMALL, seed=1), config, seed=5)
    losses = [first.train_step(buffer).total for _ in range(4)]
    save_checkpoint(tmp_path / "run.pt", first, extra={"note": "after 4", "n": 4})
    for _ in range(2):  # the saved trainer goes on: the checkpoint must not follow it
        first.train_step(buffer)
    checkpoint = load_checkpoint(tmp_path / "run.pt")
    assert checkpoint.extra == {"note": "after 4", "n": 4}
    resumed = checkpoint.trainer
    assert resumed.step == 4
    losses += [resumed.train_step(buffer).total for _ in range(3)]

    assert losses == straight_losses
    assert resumed.step == straight.step == 7
    assert same(resumed.net.state_dict(), straight.net.state_dict())
    assert same(resumed.optimizer.state_dict(), straight.optimizer.state_dict())
    assert resumed.rng.bit_generator.state == straight.rng.bit_generator.state
    assert not same(first.net.state_dict(), straight.net.state_dict())  # 6 steps differ from 7


def test_the_torch_generator_state_is_kept(tmp_path: Path) -> None:
    trainer = Trainer(build_net(GAME, SMALL, seed=0))
    torch.manual_seed(123)
    state = torch.get_rng_state()
    save_checkpoint(tmp_path / "c.pt", trainer)
    torch.rand(3)
    assert torch.equal(load_checkpoint(tmp_path / "c.pt").torch_rng, state)


def test_load_net_reads_nets_checkpoints_and_run_folders(tmp_path: Path) -> None:
    net = build_net(GAME, SMALL, seed=2)
    save_net(tmp_path / "net.pt", net)
    save_checkpoint(tmp_path / "checkpoint.pt", Trainer(net))
    (tmp_path / "run").mkdir()
    save_net(tmp_path / "run" / "best.pt", net)
    for path in (tmp_path / "net.pt", tmp_path / "checkpoint.pt", tmp_path / "run"):
        loaded = load_net(path)
        assert not loaded.training
        assert loaded.spec() == net.spec()
        assert same(loaded.state_dict(), net.state_dict())


def test_load_model_reads_the_game_each_file_records(tmp_path: Path) -> None:
    net = build_net(GAME, SMALL, seed=2)
    save_net(tmp_path / "net.pt", net, game=GAME)
    save_checkpoint(tmp_path / "checkpoint.pt", Trainer(net), game=GAME)
    save_net(tmp_path / "bare.pt", net)
    for name in ("net.pt", "checkpoint.pt"):
        model = load_model(tmp_path / name)
        assert model.game == "ConnectFour(width=5, height=4, k=4)" == repr(GAME)
        assert model.path == tmp_path / name
        assert same(model.net.state_dict(), net.state_dict()) and not model.net.training
    assert load_model(tmp_path / "bare.pt").game is None
    # a run folder whose best.pt does not name its game: run.json does
    (tmp_path / "run").mkdir()
    save_net(tmp_path / "run" / "best.pt", net)
    assert load_model(tmp_path / "run").game is None
    (tmp_path / "run" / "run.json").write_text('{"game": "ConnectFour(width=5, height=4, k=4)"}')
    model = load_model(tmp_path / "run")
    assert model.game == repr(GAME) and model.path == tmp_path / "run" / "best.pt"


def test_files_that_are_not_checkpoints_are_refused(tmp_path: Path) -> None:
    with pytest.raises(CheckpointError, match="no checkpoint file at"):
        load_checkpoint(tmp_path / "missing.pt")
    (tmp_path / "text.pt").write_text("not a checkpoint")
    with pytest.raises(CheckpointError, match="not a readable checkpoint"):
        load_checkpoint(tmp_path / "text.pt")
    torch.save({"weights": torch.zeros(2)}, tmp_path / "other.pt")
    with pytest.raises(CheckpointError, match=r"not a checkpoint of mcts_agents\.alphazero\.learn"):
        load_checkpoint(tmp_path / "other.pt")
    save_net(tmp_path / "net.pt", build_net(GAME, SMALL))
    with pytest.raises(CheckpointError, match="holds a network, not a training checkpoint"):
        load_checkpoint(tmp_path / "net.pt")
    with pytest.raises(CheckpointError, match="no network file"):
        load_net(tmp_path)  # a folder without best.pt
    assert sorted(p.name for p in tmp_path.iterdir()) == ["net.pt", "other.pt", "text.pt"]
