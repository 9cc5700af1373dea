"""The batched-evaluation benchmark's pieces, on tiny budgets (the benchmark is run by hand)."""

from __future__ import annotations

import numpy as np

from benchmarks.batched import DummyNetwork, run
from mcts_agents.envs.games.connect_four import ConnectFour
from mcts_agents.search.evaluators import check_batch


def test_the_dummy_network_gives_checkable_output_and_counts_its_calls() -> None:
    game = ConnectFour()
    network = DummyNetwork(game, hidden=8, overhead=0.0)
    observations = np.stack([game.observation(game.initial_state(), 0)] * 3)
    masks = np.ones((3, 7), dtype=bool)
    masks[1, 3] = False
    priors, values = check_batch(network, network.evaluate_batch(observations, masks), masks)
    assert priors.shape == (3, 7) and priors[1, 3] == 0.0 and values.shape == (3,)
    assert network.calls == 1 and network.positions == 3


def test_a_run_reports_the_batches_it_made() -> None:
    report = run(k=8, iterations=40, seed=0, hidden=8, overhead=0.0)
    assert 1 < report["mean_batch"] <= 8  # the root's call of 1, then batches of up to 8
    assert report["calls"] <= 1 + 40 // 8 and report["simulations_per_s"] > 0
