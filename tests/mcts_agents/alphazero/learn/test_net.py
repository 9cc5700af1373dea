"""The reference network (``mcts_agents.alphazero.learn.net``): shapes from the games, seeded
weights."""

from __future__ import annotations

from typing import Any

import pytest

torch = pytest.importorskip("torch")

from mcts_agents.alphazero.learn import NetConfig, PolicyValueNet, build_net  # noqa: E402
from mcts_agents.envs.games.connect_four import ConnectFour  # noqa: E402
from mcts_agents.envs.games.kuhn_poker import KuhnPoker  # noqa: E402
from mcts_agents.envs.games.mnk import MNK  # noqa: E402
from mcts_agents.envs.games.ultimate_tic_tac_toe import UltimateTicTacToe  # noqa: E402
from mcts_agents.errors import InvalidOptionError  # noqa: E402

SMALL = NetConfig(channels=8, blocks=1, value_hidden=8)


@pytest.mark.parametrize(
    ("game", "actions"),
    [
        (MNK(3, 3, 3), 9),
        (ConnectFour(), 7),
        (MNK(4, 6, 3), 24),
        (UltimateTicTacToe(), 81),
    ],
)
def test_outputs_have_the_games_shapes(game: Any, actions: int) -> None:
    net = build_net(game, SMALL, seed=0)
    state = game.initial_state()
    planes = torch.as_tensor(game.observation(state, 0))
    logits, values = net(torch.stack([planes] * 5))
    assert logits.shape == (5, actions)
    assert values.shape == (5,)
    assert bool(((values >= -1) & (values <= 1)).all())
    assert net.observation_shape == game.observation_shape


def test_the_seed_fixes_the_weights_and_leaves_the_global_generator_alone() -> None:
    game = ConnectFour()
    before = torch.get_rng_state()
    one, two = build_net(game, SMALL, seed=7), build_net(game, SMALL, seed=7)
    assert torch.equal(torch.get_rng_state(), before)
    other = build_net(game, SMALL, seed=8)
    pairs = zip(one.state_dict().values(), two.state_dict().values(), strict=True)
    assert all(torch.equal(a, b) for a, b in pairs)
    assert not torch.equal(one.policy.weight, other.policy.weight)


def test_a_spec_rebuilds_the_shape() -> None:
    net = build_net(MNK(4, 5, 4), NetConfig(channels=4, blocks=0, value_hidden=3))
    copy = PolicyValueNet.from_spec(net.spec())
    assert copy.spec() == net.spec()
    assert [p.shape for p in copy.parameters()] == [p.shape for p in net.parameters()]


def test_games_without_board_planes_and_bad_configs_are_refused() -> None:
    with pytest.raises(InvalidOptionError, match=r"shape \(H, W, C\)"):
        build_net(KuhnPoker())
    with pytest.raises(InvalidOptionError, match="observation_shape and num_actions"):
        build_net(object())
    with pytest.raises(InvalidOptionError, match=r"blocks must be an int in \[0, 256\]"):
        NetConfig(blocks=-1)
    with pytest.raises(InvalidOptionError, match=r"channels must be an int in \[1, 4096\]"):
        NetConfig(channels=0)
    with pytest.raises(InvalidOptionError, match="seed must be an int"):
        build_net(ConnectFour(), seed="1")
    with pytest.raises(InvalidOptionError, match="network spec needs"):
        PolicyValueNet.from_spec({"num_actions": 3})


def test_the_parameter_count_is_the_built_networks() -> None:
    from mcts_agents.alphazero.learn.net import parameter_count

    for game, config in (
        (MNK(3, 3, 3), NetConfig()),
        (ConnectFour(), NetConfig(channels=16, blocks=3, value_hidden=8)),
    ):
        net = build_net(game, config)
        built = sum(t.numel() for t in (*net.parameters(), *net.buffers()) if t.is_floating_point())
        assert parameter_count(game.observation_shape, game.num_actions, config) == built


def test_networks_and_batches_too_big_to_train_are_refused_before_allocating(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import time

    from mcts_agents.alphazero.learn import TrainConfig
    from mcts_agents.alphazero.learn import net as net_module

    with pytest.raises(InvalidOptionError, match=r"channels must be an int in \[1, 4096\]"):
        NetConfig(channels=100_000)
    with pytest.raises(InvalidOptionError, match=r"blocks must be an int in \[0, 256\]"):
        NetConfig(blocks=1000)
    with pytest.raises(InvalidOptionError, match=r"batch_size must be an int in \[1, 65536\]"):
        TrainConfig(batch_size=10**9)
    started = time.monotonic()
    huge = NetConfig(channels=4096, blocks=256)  # 77 billion parameters: 1.4 TiB to train
    with pytest.raises(InvalidOptionError, match=r"channels and blocks \(4096 and 256\): too"):
        build_net(MNK(3, 3, 3), huge)
    assert time.monotonic() - started < 20  # refused, not allocated
    game = MNK(3, 3, 3)
    shape, actions = game.observation_shape, game.num_actions
    monkeypatch.setattr(net_module, "_memory", lambda device: (2**30, "a test's 2 GiB"))
    net_module.check_training_memory(shape, actions, NetConfig(), 64)
    wide = NetConfig(channels=1024, blocks=0)  # a small network, a batch of 14 GiB
    with pytest.raises(InvalidOptionError, match=r"TrainConfig's batch_size \(65536\): too") as e:
        net_module.check_training_memory(shape, actions, wide, 65536)
    assert "more than 50% of a test's 2 GiB" in str(e.value)
