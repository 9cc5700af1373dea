"""``mcts_agents.rl.rllib`` without Ray's RLlib: one ImportError naming the extra (run with RLlib
hidden, so it runs whether or not the extra is installed)."""

from __future__ import annotations

import subprocess
import sys

PROBE = """
import sys
sys.modules["ray.rllib"] = None  # as if RLlib (or one of its dependencies) were missing
from mcts_agents.errors import RayNotInstalledError
try:
    import mcts_agents.rl.rllib
except RayNotInstalledError as error:
    print(error)
else:
    raise SystemExit("imported without RLlib")
"""


def test_importing_it_without_rllib_names_the_extra() -> None:
    done = subprocess.run(
        [sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert 'pip install ".[rllib]"' in done.stdout
