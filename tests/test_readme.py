"""The README's code is run, so it cannot rot; its Quick start is what CI runs."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()
BLOCKS = re.findall(r"```python\n(.*?)```", README, flags=re.DOTALL)


def test_the_readme_shows_python() -> None:
    assert BLOCKS, "the README should show the agent_iter loop"


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_python_block_runs_on_its_own(index: int) -> None:
    # each block in a fresh interpreter: a block must import what it uses itself (in one
    # process, a name or a Gymnasium id that an earlier block loaded would hide its absence)
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
    }
    done = subprocess.run(
        [sys.executable, "-c", BLOCKS[index]],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_quick_start_is_two_commands_install_and_tests() -> None:
    quick = README.split("## Quick start", 1)[1]
    block = re.search(r"```\n(.*?)```", quick, flags=re.DOTALL)
    assert block is not None
    commands = block.group(1).strip().splitlines()
    assert len(commands) == 2
    assert commands[0].startswith("pip install") and "mcts-agents arena" in commands[0]
    assert "pytest" in commands[1]
