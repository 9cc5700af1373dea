"""AlphaZero on Go 9x9 through the existing loop (issue 28): the board's eight symmetries map
observations, legal masks and positions as the rules core does, and a tiny run trains."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from mcts_agents.alphazero.learn import NetConfig, RunConfig, TrainConfig, train  # noqa: E402
from mcts_agents.alphazero.symmetries import GRID_MAPS, symmetries  # noqa: E402
from mcts_agents.envs.games.go import Go  # noqa: E402


def transformed(game: Go, state: tuple, name: str) -> tuple:
    """The core's position with every stone moved by the grid map ``name`` (set up anew)."""
    size = game.size
    grid = np.arange(size * size).reshape(size, size)
    shows = GRID_MAPS[name](grid).ravel()  # new cell i shows old cell shows[i]
    black, white = set(game._actions(state[0])), set(game._actions(state[1]))
    new_black = [i for i in range(size * size) if shows[i] in black]
    new_white = [i for i in range(size * size) if shows[i] in white]
    return game.state_from_stones(game.stones(new_black), game.stones(new_white), state[2])


def test_the_eight_symmetries_map_go_positions_as_the_core_does() -> None:
    game = Go(9)
    rng = random.Random(5)
    state = game.initial_state()
    for _ in range(30):
        state = game.next_state(state, rng.choice(game.legal_actions(state)[:-1]))
    plain = game.state_from_stones(state[0], state[1], state[2])  # no history, no ko
    syms = symmetries(game)
    assert len(syms) == 8 and syms[0].name == "identity"
    mask = np.zeros(game.num_actions, np.float32)
    mask[game.legal_actions(plain)] = 1
    for sym in syms:
        other = transformed(game, plain, sym.name)
        expected = game.observation(other, plain[2])
        assert np.array_equal(sym.observations(game.observation(plain, plain[2])), expected)
        other_mask = np.zeros(game.num_actions, np.float32)
        other_mask[game.legal_actions(other)] = 1
        assert np.array_equal(sym.actions_of(mask), other_mask)
        assert game.score(other) == game.score(plain)


def test_a_tiny_run_trains_on_go_9x9(tmp_path: Path) -> None:
    config = RunConfig(
        net=NetConfig(channels=8, blocks=1, value_hidden=8),
        training=TrainConfig(batch_size=16, learning_rate=1e-2),
        simulations=4,
        search_batch=4,
        games_per_iteration=1,
        steps_per_iteration=2,
        buffer_capacity=2000,
        gate_every=2,
        gate_games=2,
        seed=3,
    )
    summary = train(Go(9), tmp_path, config=config, steps=2)
    assert (summary.iteration, summary.step) == (1, 2)
    assert (tmp_path / "metrics.jsonl").read_text().count('"selfplay"') == 1
