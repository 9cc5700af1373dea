"""``--debug`` and the traceback of an error raised in a user's own env code (``cli_debug``)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.mcts_agents.cli.test_cli_errors import ARENA, refused, run

BUGGY_FACTORY = """\
import random

from mcts_agents.envs import tic_tac_toe_v0


def env(render_mode=None):
    made = tic_tac_toe_v0.env(render_mode=render_mode)
    random()  # the user's bug: the module, not random.random
    return made
"""

BUGGY_STEP = """\
from mcts_agents.envs import tic_tac_toe_v0


def env(render_mode=None):
    made = tic_tac_toe_v0.env(render_mode=render_mode)
    step = made.step

    def broken_step(action):
        if action == 4:
            raise ValueError("the user's step cannot take the centre")
        return step(action)

    made.step = broken_step
    return made
"""


@pytest.fixture
def user_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The current folder, holding the user's env modules; they are forgotten afterwards."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "buggy_factory_env.py").write_text(BUGGY_FACTORY)
    (tmp_path / "buggy_step_env.py").write_text(BUGGY_STEP)
    yield tmp_path
    for name in ("buggy_factory_env", "buggy_step_env"):
        sys.modules.pop(name, None)


def test_an_error_in_the_users_env_factory_shows_its_traceback(user_folder: Path) -> None:
    code, _, err = run("arena", "buggy_factory_env:env", "--agents", "random", "random:name=b")
    assert code == 2
    assert "raised in your env's code" in err and "Traceback" in err
    assert 'buggy_factory_env.py", line 8, in env' in err and "random()" in err
    assert err.strip().splitlines()[-1] == (
        "mcts-agents: error: env spec 'buggy_factory_env:env': buggy_factory_env:env() failed "
        "(TypeError: 'module' object is not callable)"
    )


def test_an_error_in_the_users_env_step_while_playing_shows_where(user_folder: Path) -> None:
    code, _, err = run(
        "arena", "buggy_step_env:env", "--agents", "mcts:iterations=50", "random:name=b",
        "--games", "2", "--no-progress",
    )  # fmt: skip
    assert code == 2
    assert 'buggy_step_env.py", line 10, in broken_step' in err
    assert err.strip().splitlines()[-1].endswith("the user's step cannot take the centre")


@pytest.mark.parametrize("where", ["before", "after"])
def test_debug_prints_the_full_traceback_of_our_own_errors(where: str) -> None:
    command = ["arena", "chess", "--agents", "random", "random"]
    args = ["--debug", *command] if where == "before" else [*command, "--debug"]
    code, _, err = run(*args)
    assert code == 2 and "Traceback (most recent call last)" in err
    assert "mcts_agents.errors.SpecError: unknown env 'chess'" in err
    assert err.strip().splitlines()[-1].startswith("mcts-agents: error: unknown env 'chess'")


def test_without_debug_our_own_errors_stay_one_line() -> None:
    assert "unknown env 'chess'" in refused("arena", "chess", "--agents", "random", "random")
    assert "--games" in refused(*ARENA, "--games", "0")


@pytest.mark.parametrize("command", ["demo", "list", "play", "arena", "train", "serve"])
def test_every_command_accepts_debug(command: str) -> None:
    code, out, _ = run(command, "--help")
    assert code == 0 and "--debug" in out
