"""AlphaZero on 9x9 Go through the training loop: the Go core's 17 observation planes, its 82
actions (the pass last) and the eight symmetries of the board, end to end; no strength target."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from mcts_agents.alphazero.learn import (  # noqa: E402
    NetConfig,
    RunConfig,
    TorchEvaluator,
    TrainConfig,
    load_model,
    train,
)
from mcts_agents.alphazero.symmetries import symmetries  # noqa: E402
from mcts_agents.envs.games.go import Go  # noqa: E402

GO = Go(9)


def test_a_go_network_trains_through_the_loop_and_plays(tmp_path: Path) -> None:
    config = RunConfig(
        net=NetConfig(channels=8, blocks=1, value_hidden=8),
        training=TrainConfig(batch_size=16, learning_rate=1e-2),
        simulations=4,
        search_batch=4,
        games_per_iteration=1,
        steps_per_iteration=2,
        buffer_capacity=2000,
        gate_every=0,
        resign=None,
        seed=0,
    )
    summary = train(GO, tmp_path, config=config, steps=2)
    line = summary.metrics[0]
    assert line["selfplay"]["games"] == 1 and line["buffer"] == line["selfplay"]["positions"]
    assert all(np.isfinite(v) for v in line["loss"].values())
    model = load_model(tmp_path)
    assert model.game == repr(GO)
    state = GO.initial_state()
    priors, values = TorchEvaluator(model.net).evaluate_batch(
        GO.observation(state, 0)[None], GO.legal_mask(state)[None]
    )
    assert priors.shape == (1, GO.num_actions) and abs(priors.sum() - 1.0) < 1e-6
    assert -1.0 <= float(values[0]) <= 1.0
    assert len(symmetries(GO)) == 8  # the buffer samples through all eight
