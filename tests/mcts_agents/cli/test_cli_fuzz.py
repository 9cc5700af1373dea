"""Fuzzing the command line in process: generated agent and env specs, numbers, options, empty
strings, unicode and huge values through ``main([...])``. Every run either is valid and reaches
its first game (stopped there, so that the fuzz stays fast) or exits with code 2 and one line on
stderr (after the traceback of an error raised in the env spec's own module, ``cli_debug``);
never another traceback, never another exception."""

from __future__ import annotations

import io
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mcts_agents.agents import play as one_game
from mcts_agents.arena import match
from mcts_agents.cli import main as cli

FACTORIES = "tests.mcts_agents.env_factories"


class StopBeforePlaying(BaseException):
    """Raised where the first game would start: the command was accepted."""


def stop(*args: Any, **kwargs: Any) -> Any:
    raise StopBeforePlaying


def run(argv: list[str]) -> tuple[int | None, str]:
    """``main(argv)`` with games replaced by ``stop``: (exit code or ``None`` if it would have
    played, stderr)."""
    err = io.StringIO()
    with (
        mock.patch.object(match, "run_tasks", stop),
        mock.patch.object(one_game, "play_game", stop),  # (the CLI imports it when it runs)
        redirect_stdout(io.StringIO()),
        redirect_stderr(err),
    ):
        try:
            code: int | None = cli.main(argv)
        except SystemExit as exit_:
            code = exit_.code if isinstance(exit_.code, int) else 0
        except StopBeforePlaying:
            code = None
    return code, err.getvalue()


# ------------------------------------------------------------------------------ strategies
HUGE = 10**30
numbers = st.one_of(
    st.integers(-5, 5).map(str),
    st.integers(-HUGE, HUGE).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(str),
    st.sampled_from(["", " ", "-", "1e309", "٣", "0x10", "1_000", "9" * 5000, "\x00", "2\n3"]),
)
good_numbers = st.one_of(st.integers(1, 3), st.sampled_from([HUGE])).map(str)
values = st.one_of(
    numbers,
    st.sampled_from(["none", "on", "off", "ucb1", "puct", "python", "numba", "oracle", "=", ":"]),
    st.text(max_size=8),
)
AGENT_KINDS = ["mcts", "random", "human", "alphazero", "", "MCTS"]
AGENT_KEYS = [
    "iterations", "iteration", "iters", "time", "time_limit", "max_nodes", "seed", "workers",
    "c", "selection", "fpu", "solver", "final_move", "backend", "information", "name",
    "determinizations", "smooth", "evaluator", "bogus", "", "é",
]  # fmt: skip
VALID_AGENTS = [
    "random", "random:seed=3", "random:name=b", "mcts:iterations=5", "mcts:time=0.01",
    "mcts:iterations=5,c=2,selection=ucb1_tuned", f"mcts:iterations={HUGE},seed={HUGE}",
    "mcts:max_nodes=10,workers=2", "human", "human:name=ann",
]  # fmt: skip
VALID_ENVS = [
    "tic_tac_toe", "connect_four", "nim", "multi_mnk", "gomoku", "othello", "pig",
    "kuhn_poker", "connect_four:width=5,height=4", "mcts_agents/connect_four-v0",
    "mcts_agents/tic_tac_toe", "classic/tictactoe-v3", "pettingzoo.classic.tictactoe_v3",
    f"{FACTORIES}:small_connect_four", f"{FACTORIES}:sized_connect_four:width=5",
]  # fmt: skip
ENV_NAMES = [
    *VALID_ENVS, "classic/tictactoe-v99", f"{FACTORIES}:not_an_env", f"{FACTORIES}:broken",
    f"{FACTORIES}:missing", "no_such_module_xyz:make", "no.such.module", "chess", "", "é",
    "a/b/c",
]  # fmt: skip
ENV_KEYS = ["width", "height", "k", "preset", "players", "m", "n", "depth", "", "render_mode"]


def spec_texts(kinds: list[str], keys: list[str]) -> st.SearchStrategy[str]:
    """``kind`` or ``kind:key=value,...`` with drawn keys and values, sometimes malformed."""
    pair = st.one_of(
        st.builds(lambda k, v: f"{k}={v}", st.sampled_from(keys), values),
        st.sampled_from(keys),  # no "="
    )
    return st.builds(
        lambda kind, pairs: kind if not pairs else f"{kind}:{','.join(pairs)}",
        st.sampled_from(kinds),
        st.lists(pair, max_size=3),
    )


wild_agents = st.one_of(
    st.sampled_from(VALID_AGENTS), spec_texts(AGENT_KINDS, AGENT_KEYS), st.text(max_size=12)
)
wild_envs = st.one_of(
    st.sampled_from(ENV_NAMES), spec_texts(ENV_NAMES, ENV_KEYS), st.text(max_size=12)
)

#: stands for the test's folder in drawn file names.
HERE = "@HERE@/"


@st.composite
def command_lines(draw: st.DrawFn) -> list[str]:
    """An arena, play or demo command line. Half are tame (valid specs and numbers, so that
    the checks between valid parts are reached: seats, anchors, plots, files), half wild."""
    tame = draw(st.booleans())
    agents = st.sampled_from(VALID_AGENTS) if tame else wild_agents
    count = good_numbers if tame else numbers
    command = draw(st.sampled_from(["arena", "arena", "play", "demo"]))
    argv = [command, draw(st.sampled_from(VALID_ENVS) if tame else wild_envs)]
    if command == "arena":
        argv += ["--agents", *draw(st.lists(agents, min_size=0 if not tame else 2, max_size=4))]
        options = {
            "--games": count, "--seed": count, "--workers": count,
            "--anchor": st.one_of(agents, st.sampled_from(["random #2", "b"])),
            "--backend": st.sampled_from(["process", "ray", "threads", ""]),
            "--out": st.sampled_from(["", "games.jsonl", "new/games.jsonl", "."]),
            "--plot": st.builds(lambda e: f"elo.{e}", st.sampled_from(["png", "svg", "xyz", ""])),
        }  # fmt: skip
        for name in draw(st.lists(st.sampled_from(sorted(options)), max_size=4, unique=True)):
            value = draw(options[name])
            argv += [name, HERE + value if name in ("--out", "--plot") and value else value]
        argv += draw(st.sampled_from([[], ["--tournament"], ["--progress"], ["--no-progress"]]))
    elif command == "play":
        for seat in draw(st.lists(st.integers(0, 3), max_size=3, unique=True)):
            argv += [f"--p{seat}", draw(agents)]
        if draw(st.booleans()):
            argv += ["--seed", draw(count)]
    else:
        argv += ["--iterations", draw(count), "--seed", draw(count)]
    return argv


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("fuzz")


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(argv=command_lines())
def test_fuzzed_command_lines_exit_2_with_one_line_or_reach_the_first_game(
    folder: Path, argv: list[str]
) -> None:
    code, err = run([arg.replace(HERE, f"{folder}/") for arg in argv])
    if code is None:  # valid: it got as far as playing
        assert err == "", err
        return
    assert code == 2, (code, err)
    lines = err.strip().splitlines()
    assert lines[-1].startswith("mcts-agents"), err
    if len(lines) > 1:  # the env spec's own module raised: its traceback comes first
        assert lines[0].startswith("mcts-agents: the error below was raised in your env's code")
        assert lines[1] == "Traceback (most recent call last):", err
    else:
        assert "Traceback" not in err, err


def test_the_fuzz_reaches_valid_commands() -> None:
    """The strategy's valid corners are valid (so the fuzz is not all refusals)."""
    assert run(["arena", "tic_tac_toe", "--agents", "random", "mcts:iterations=5"])[0] is None
    assert run(["play", f"{FACTORIES}:sized_connect_four:width=5", "--p1", "random"])[0] is None
    assert run(["demo", "classic/tictactoe-v3", "--iterations", str(HUGE)])[0] is None
