"""Without torch the library works and ``mcts_agents.alphazero.learn`` says what to install (checked
in a process where torch cannot be imported, whether or not it is installed here)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[4]

SCRIPT = textwrap.dedent(
    """
    import sys
    sys.modules["torch"] = None  # import torch now raises ImportError
    import mcts_agents
    from mcts_agents.alphazero.gate import gate
    from mcts_agents.errors import TorchNotInstalledError
    assert "torch" not in [m for m in sys.modules if sys.modules[m] is not None]
    try:
        import mcts_agents.alphazero.learn
    except TorchNotInstalledError as error:
        assert isinstance(error, ImportError)
        print(error)
    else:
        raise SystemExit("mcts_agents.alphazero.learn imported without torch")
    """
)


def test_the_library_imports_without_torch_and_az_names_the_extra() -> None:
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert "pip install '.[az]'" in done.stdout


MODELS = textwrap.dedent(
    """
    import pathlib, sys, tempfile
    sys.modules["torch"] = None
    from mcts_agents import make_agent
    from mcts_agents.errors import SpecError, TorchNotInstalledError
    from mcts_agents.cli.main import main
    folder = pathlib.Path(tempfile.mkdtemp())
    (folder / "best.pt").write_bytes(b"")  # a run folder, as far as one can tell without torch
    try:
        make_agent(f"az:model={folder}")
    except TorchNotInstalledError as error:
        print("spec:", error)
    try:
        make_agent(f"policy:model={folder / 'missing'}")
    except SpecError as error:
        print("missing:", error)
    print("code:", main(["train", "tic_tac_toe", "--out", str(folder / "run"), "--steps", "1"]))
    print("made:", (folder / "run").exists())
    """
)


def test_without_torch_model_specs_and_train_name_the_extra() -> None:
    done = subprocess.run(
        [sys.executable, "-c", MODELS], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    spec = next(line for line in lines if line.startswith("spec:"))
    assert "is a network of mcts_agents.alphazero.learn, which needs torch" in spec
    assert 'pip install ".[az]"' in spec
    missing = next(line for line in lines if line.startswith("missing:"))
    assert "missing' does not exist; expected a training run's folder" in missing
    assert "code: 2" in lines and "made: False" in lines
    assert "mcts-agents train needs torch" in done.stderr
    assert 'pip install ".[az]"' in done.stderr
