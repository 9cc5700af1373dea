"""``mcts_agents._lazy``: the Gymnasium ids are registered by ``import mcts_agents`` (as Gymnasium
is imported, whichever comes first), their heavy modules imported only by ``gymnasium.make``,
and registering again (``import mcts_agents.rl``) warns nothing. Each case runs in a fresh
interpreter: what a process has imported is the truth under test."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ENVIRONMENT = {**os.environ, "PYTHONPATH": str(ROOT)}

#: Checks run after the imports of each case: registering loaded neither numba nor torch,
#: every variant has its id (none more), the ids make their envs, and no finder of ours is left.
CHECKS = """
import gymnasium
heavy = [m for m in ("numba", "torch") if m in sys.modules]
assert not heavy, heavy
from mcts_agents.agents.specs import ENV_SPECS
ours = sorted(i for i in gymnasium.registry if i.endswith("-vs-agent-v0"))
expected = sorted(f"mcts_agents/{variant}-vs-agent-v0" for variant in ENV_SPECS)
assert ours == expected, (ours, expected)
env = gymnasium.make("mcts_agents/connect_four-vs-agent-v0", opponent="random", seed=0)
observation, info = env.reset(seed=0)
assert observation.shape == (6, 7, 2), observation.shape
vector = gymnasium.make_vec(
    "mcts_agents/tic_tac_toe-vs-agent-v0", num_envs=2, opponent="random", fast_path=False
)
assert type(vector).__name__ == "VectorVsOpponent"
left = [f for f in sys.meta_path if type(f).__module__ == "mcts_agents._lazy"]
assert not left, left
"""


def run(script: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", script],
        cwd=ROOT,
        env=ENVIRONMENT,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.parametrize(
    "imports",
    [
        # the README's order: the ids exist once gymnasium is imported
        "import sys, mcts_agents\n"
        "early = [m for m in ('gymnasium', 'numpy', 'numba', 'torch') if m in sys.modules]\n"
        "assert not early, early\n",
        "import sys, gymnasium, mcts_agents\n",  # gymnasium first: registered at once
        # the envs first: PettingZoo imports gymnasium while mcts_agents.envs is half loaded
        "import sys, mcts_agents.envs\n",
    ],
    ids=["mcts_agents-then-gymnasium", "gymnasium-then-mcts_agents", "envs-first"],
)
def test_import_mcts_agents_registers_every_gym_id(imports: str) -> None:
    done = run(imports + CHECKS)
    assert done.returncode == 0, done.stderr


def test_registering_again_warns_nothing() -> None:
    script = (
        "import warnings, gymnasium, mcts_agents\n"
        "with warnings.catch_warnings(record=True) as caught:\n"
        "    warnings.simplefilter('always')\n"
        "    import mcts_agents.rl\n"
        "    mcts_agents.rl.register_envs()\n"
        "ours = [str(w.message) for w in caught if 'vs-agent' in str(w.message)]\n"
        "assert not ours, ours\n"
        # the check above can fail: gymnasium does warn when an id is registered twice
        "with warnings.catch_warnings(record=True) as caught:\n"
        "    warnings.simplefilter('always')\n"
        "    gymnasium.register(id='mcts_agents/nim-vs-agent-v0', entry_point='x:y')\n"
        "assert any('nim-vs-agent' in str(w.message) for w in caught), caught\n"
    )
    done = run(script)
    assert done.returncode == 0, done.stderr
