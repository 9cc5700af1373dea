"""The trainer (``mcts_agents.alphazero.learn.trainer``): AlphaZero's loss, checked by hand, and a
loss that falls on real tic-tac-toe self-play data.

The data are games of the self-play loop whose searches are guided by a perfect player
(``tests.reference.PerfectEvaluator``), so that the visit distributions are sharp enough for a
network to have something to learn (searches over uniform priors give targets close to
uniform, which an untrained network already matches)."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from mcts_agents.alphazero import ReplayBuffer, play_selfplay_game  # noqa: E402
from mcts_agents.alphazero.learn import NetConfig, TrainConfig, Trainer, build_net, loss_terms  # noqa: E402
from mcts_agents.alphazero.symmetries import symmetries  # noqa: E402
from mcts_agents.envs.games.mnk import MNK  # noqa: E402
from mcts_agents.errors import InvalidOptionError  # noqa: E402
from tests.reference import PerfectEvaluator  # noqa: E402

TTT = MNK(3, 3, 3)
SMALL = NetConfig(channels=16, blocks=1, value_hidden=16)


@pytest.fixture(scope="module")
def buffer() -> ReplayBuffer:
    """Positions of 24 tic-tac-toe self-play games."""
    buffer = ReplayBuffer(1000, symmetries(TTT))
    perfect = PerfectEvaluator(TTT)
    for seed in range(24):
        record = play_selfplay_game(TTT, perfect, None, 30, (3, 1.0, 0.0), seed=seed)
        buffer.add(record)
    return buffer


def test_the_loss_terms_are_alphazeros_loss(buffer: ReplayBuffer) -> None:
    net = build_net(TTT, SMALL, seed=0).eval()
    observations, masks, policies, values = buffer.sample(16, np.random.default_rng(0))
    batch = [torch.from_numpy(a) for a in (observations, masks, policies, values)]
    policy, value, l2 = loss_terms(net, *batch, weight_decay=1e-3)
    with torch.no_grad():
        logits, predicted = net(batch[0])
    logits, predicted = logits.double().numpy(), predicted.double().numpy()
    cross_entropy = []
    for row in range(16):
        legal = logits[row][masks[row]]
        log_p = legal - legal.max() - np.log(np.exp(legal - legal.max()).sum())
        cross_entropy.append(-(policies[row][masks[row]] * log_p).sum())
    assert policy.item() == pytest.approx(np.mean(cross_entropy), rel=1e-5)
    assert value.item() == pytest.approx(np.mean((values - predicted) ** 2), rel=1e-5)
    squares = sum(float((p.detach().double() ** 2).sum()) for p in net.parameters())
    assert l2.item() == pytest.approx(1e-3 * squares, rel=1e-5)


@pytest.mark.parametrize("optimizer", ["adam", "sgd"])
def test_the_loss_falls_on_selfplay_data(buffer: ReplayBuffer, optimizer: str) -> None:
    torch.manual_seed(0)
    rate = 3e-3 if optimizer == "adam" else 3e-2
    config = TrainConfig(batch_size=32, learning_rate=rate, optimizer=optimizer)
    trainer = Trainer(build_net(TTT, SMALL, seed=0), config, seed=0)
    losses = [trainer.train_step(buffer) for _ in range(150)]
    assert trainer.step == 150
    first = np.mean([loss.total for loss in losses[:10]])
    last = np.mean([loss.total for loss in losses[-10:]])
    assert last < 0.8 * first, (first, last)
    assert all(loss.total == pytest.approx(loss.policy + loss.value + loss.l2) for loss in losses)


def test_bfloat16_steps_learn_and_keep_float32_weights(buffer: ReplayBuffer) -> None:
    """Under bfloat16 autocast the first losses match float32's to bfloat16's precision, the
    loss falls as in float32, and the weights and the optimizer's state stay float32."""
    losses = {}
    for precision in ("float32", "bfloat16"):
        torch.manual_seed(0)
        config = TrainConfig(batch_size=32, learning_rate=3e-3, precision=precision)
        trainer = Trainer(build_net(TTT, SMALL, seed=0), config, seed=0)
        losses[precision] = [trainer.train_step(buffer) for _ in range(150)]
        assert all(p.dtype == torch.float32 for p in trainer.net.parameters())
    full, half = losses["float32"], losses["bfloat16"]
    assert half[0].policy == pytest.approx(full[0].policy, rel=0.02)
    assert half[0].value == pytest.approx(full[0].value, rel=0.05, abs=0.01)
    assert half[0].l2 == pytest.approx(full[0].l2, rel=1e-6)  # the weights are float32
    first = np.mean([loss.total for loss in half[:10]])
    last = np.mean([loss.total for loss in half[-10:]])
    assert last < 0.8 * first, (first, last)
    assert last < 1.15 * np.mean([loss.total for loss in full[-10:]])


def test_bad_options_are_refused() -> None:
    for options, message in (
        ({"batch_size": 0}, r"batch_size must be an int in \[1, 65536\]"),
        ({"learning_rate": 0.0}, "learning_rate must be a finite number > 0"),
        ({"weight_decay": -1.0}, "weight_decay must be a finite number >= 0"),
        ({"momentum": 1.0}, r"momentum must be a finite number in \[0, 1\)"),
        ({"optimizer": "rmsprop"}, "optimizer must be 'adam' or 'sgd'"),
        ({"precision": "float16"}, "precision must be 'float32' or 'bfloat16'"),
    ):
        with pytest.raises(InvalidOptionError, match=message):
            TrainConfig(**options)
    net = build_net(TTT, SMALL)
    with pytest.raises(InvalidOptionError, match="Trainer needs a PolicyValueNet"):
        Trainer(object())
    with pytest.raises(InvalidOptionError, match="the network is on meta"):
        Trainer(build_net(TTT, SMALL).to("meta"), TrainConfig(precision="bfloat16"))
    trainer = Trainer(net, TrainConfig(batch_size=8))
    with pytest.raises(InvalidOptionError, match="saved with"):
        trainer.load_state_dict(Trainer(net, TrainConfig(batch_size=9)).state_dict())
