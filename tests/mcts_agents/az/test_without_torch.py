"""Without torch the library works and ``mcts_agents.az`` says what to install (checked in a
process where torch cannot be imported, whether or not it is installed here)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]

SCRIPT = textwrap.dedent(
    """
    import sys
    sys.modules["torch"] = None  # import torch now raises ImportError
    import mcts_agents
    from mcts_agents import TorchNotInstalledError, gate
    assert "torch" not in [m for m in sys.modules if sys.modules[m] is not None]
    try:
        import mcts_agents.az
    except TorchNotInstalledError as error:
        assert isinstance(error, ImportError)
        print(error)
    else:
        raise SystemExit("mcts_agents.az imported without torch")
    """
)


def test_the_library_imports_without_torch_and_az_names_the_extra() -> None:
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert "pip install 'mcts-agents[az]'" in done.stdout
