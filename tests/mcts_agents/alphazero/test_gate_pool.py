"""The gate with a ``processes`` pool of worker processes: the same games as here, the one
picklability error, and workers that end when the gating process is killed."""

from __future__ import annotations

import signal
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from mcts_agents.alphazero.gate import gate
from mcts_agents.envs.games.mnk import MNK
from mcts_agents.errors import InvalidOptionError, UnpicklableError
from mcts_agents.processes import open_pool
from tests.mcts_agents.alphazero.test_gate import Center, Uniform
from tests.processes import cpu_seconds, survivors_of_killed_script

ROOT = Path(__file__).resolve().parents[3]
TTT = MNK(3, 3, 3)


def test_a_spawn_pool_plays_the_same_games_as_here() -> None:
    here = gate(TTT, Center(), Uniform(), games=4, simulations=8, seed=5)
    with open_pool("spawn", 2) as pool:
        pooled = gate(TTT, Center(), Uniform(), games=4, simulations=8, seed=5, pool=pool)
    assert pooled == here


def test_an_evaluator_that_cannot_be_pickled_is_the_one_error() -> None:
    class Local(Uniform):  # a local class: pickle cannot find it by name
        pass

    def evaluate(observations: np.ndarray, legal_masks: np.ndarray) -> Any:
        return Uniform().evaluate_batch(observations, legal_masks)

    with open_pool("spawn", 2) as pool:
        with pytest.raises(UnpicklableError, match=r"a task of _play_pair.*cannot be pickled"):
            gate(TTT, Local(), Uniform(), games=2, simulations=2, seed=0, pool=pool)
        assert not pool.pids  # refused before any worker started
    assert issubclass(UnpicklableError, InvalidOptionError)


GATE_FOR_EVER = """
from mcts_agents.alphazero.gate import gate
from mcts_agents.envs.games.connect_four import ConnectFour
from mcts_agents.processes import open_pool
from tests.mcts_agents.alphazero.test_gate import Uniform

with open_pool("spawn", 2) as pool:
    gate(ConnectFour(), Uniform(), Uniform(), games=4, simulations=10**9, seed=0, pool=pool)
"""


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc (Linux)")
@pytest.mark.parametrize("how", [signal.SIGKILL, signal.SIGTERM], ids=["SIGKILL", "SIGTERM"])
def test_gate_workers_end_when_the_gating_process_is_killed(how: signal.Signals) -> None:
    survivors = survivors_of_killed_script(
        GATE_FOR_EVER,
        ROOT,
        how,
        workers=2,
        is_worker=lambda p, c: "spawn_main" in c and cpu_seconds(p) > 2.0,  # searching
    )
    assert not survivors
