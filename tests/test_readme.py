"""The README's code is run, so it cannot rot; its Quick start is what CI runs."""

from __future__ import annotations

import re
from pathlib import Path

README = (Path(__file__).resolve().parent.parent / "README.md").read_text()


def test_python_blocks_run() -> None:
    blocks = re.findall(r"```python\n(.*?)```", README, flags=re.DOTALL)
    assert blocks, "the README should show the agent_iter loop"
    for block in blocks:
        exec(compile(block, "README.md", "exec"), {})


def test_quick_start_is_two_commands_install_and_tests() -> None:
    quick = README.split("## Quick start", 1)[1]
    block = re.search(r"```\n(.*?)```", quick, flags=re.DOTALL)
    assert block is not None
    commands = block.group(1).strip().splitlines()
    assert len(commands) == 2
    assert commands[0].startswith("pip install") and "mcts-agents arena" in commands[0]
    assert "pytest" in commands[1]
