"""The README's code is run, so it cannot rot; its Quick start is what CI runs."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.test_docs import Block, python_blocks, run_block

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()
BLOCKS = python_blocks(ROOT / "README.md")


def test_the_readme_shows_python() -> None:
    assert BLOCKS, "the README should show the agent_iter loop"


@pytest.mark.parametrize("block", BLOCKS, ids=[block.name for block in BLOCKS])
def test_python_block_runs_on_its_own(block: Block) -> None:
    # each block in a fresh interpreter (tests/test_docs.py's run_block, as the site's pages)
    run_block(block)


def test_quick_start_is_two_commands_install_and_tests() -> None:
    quick = README.split("## Quick start", 1)[1]
    block = re.search(r"```\n(.*?)```", quick, flags=re.DOTALL)
    assert block is not None
    commands = block.group(1).strip().splitlines()
    assert len(commands) == 2
    assert commands[0].startswith("pip install") and "mcts-agents arena" in commands[0]
    assert "pytest" in commands[1]
