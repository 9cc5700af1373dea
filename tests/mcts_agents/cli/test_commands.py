"""``mcts-agents --help`` and every command's ``--help`` are fast: the parser imports no part
of the library that a command needs (``cli.commands``: a command's module is imported when it
is named)."""

from __future__ import annotations

import dataclasses
import importlib
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from mcts_agents.cli.commands import COMMANDS
from mcts_agents.cli.main import build_parser

ROOT = Path(__file__).resolve().parents[3]
#: Never imported by a ``--help``.
HEAVY = ("numba", "torch", "pyspiel", "starlette", "uvicorn", "matplotlib", "ray")
#: Nor by the help of the commands whose parser is ours alone (rate, train, gtp and warm-up
#: import their own modules, which import the envs).
LIBRARY = ("numpy", "pettingzoo", "gymnasium", "mcts_agents.envs", "mcts_agents.agents")
HELPS = [
    ([], True),
    (["list"], True),
    (["demo"], True),
    (["play"], True),
    (["arena"], True),
    (["serve"], True),
    (["rate"], False),
    (["train"], False),
    (["gtp"], False),
    (["warm-up"], False),
]


def help_modules(command: list[str]) -> dict[str, Any]:
    """``mcts-agents COMMAND --help`` in a fresh interpreter: its exit code, the modules of
    ``HEAVY`` and ``LIBRARY`` it imported, its output."""
    code = (
        "import json, sys\n"
        "from mcts_agents.cli.launch import run\n"
        "try:\n"
        f"    code = run({[*command, '--help']!r})\n"
        "except SystemExit as exit:\n"
        "    code = exit.code\n"
        f"print(json.dumps([code, [m for m in {HEAVY + LIBRARY!r} if m in sys.modules]]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, cwd=ROOT
    )
    assert done.returncode == 0, done.stderr
    code, loaded = json.loads(done.stdout.splitlines()[-1])
    return {"code": code, "loaded": loaded, "help": done.stdout}


@pytest.mark.parametrize(("command", "ours_alone"), HELPS)
def test_help_imports_no_heavy_module(command: list[str], ours_alone: bool) -> None:
    run = help_modules(command)
    assert run["code"] == 0
    assert "usage: mcts-agents" in run["help"]
    assert not set(run["loaded"]) & set(HEAVY)
    if ours_alone:
        assert run["loaded"] == []


def test_every_command_is_listed_with_its_modules_own_help() -> None:
    listed = build_parser()._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    assert set(listed) >= set(COMMANDS)
    seen: dict[str, Any] = {}

    class Recorder:
        def add_parser(self, given: str, **options: Any) -> Any:
            seen.update(options, name=given)
            return build_parser()  # any parser takes the options

    for name, command in COMMANDS.items():
        module = importlib.import_module(command.module)
        getattr(module, f"add_{name.replace('-', '_')}_parser")(Recorder(), lambda *a: int)
        assert (seen["name"], seen["help"]) == (name, command.help)


def test_a_named_command_has_its_options() -> None:
    args = build_parser().parse_args(["gtp", "--size", "13", "--komi", "6.5"])
    assert (args.command, args.size, args.komi) == ("gtp", 13, 6.5)
    args = build_parser().parse_args(["--debug", "warm-up", "nim", "pig"])
    assert (args.command, args.kernels, args.debug) == ("warm-up", ["nim", "pig"], True)


def test_train_help_shows_the_actual_gumbel_c_scale_default() -> None:
    """It said ``(default 1)``; a new run's default is ``RunConfig``'s (0.1)."""
    try:
        from mcts_agents.alphazero.learn.run_config import RunConfig

        config: Any = RunConfig
    except ImportError:  # no torch: the search's default, which a run passes on
        from mcts_agents.search.config import SearchConfig

        config = SearchConfig
    [default] = [f.default for f in dataclasses.fields(config) if f.name == "gumbel_c_scale"]
    text = " ".join(help_modules(["train"])["help"].split())
    assert f"--gumbel-c-scale GUMBEL_C_SCALE Gumbel: sigma's c_scale (default {default:g})" in text
