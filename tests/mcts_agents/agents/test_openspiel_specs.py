"""Which OpenSpiel games a spec may name (``agents.openspiel_specs``): none that reads a file, by
any spec form, on the command line as in the server; none over ``GameCaps``, refused after the
game is loaded and before any state is made; refusals name the game and option, never what a
file holds."""

from __future__ import annotations

import io
import os
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from mcts_agents.agents.openspiel_specs import (
    GameCaps,
    admit_openspiel,
    check_openspiel_game,
    file_parameter,
)
from mcts_agents.agents.specs import parse_env_spec
from mcts_agents.cli.main import main
from mcts_agents.errors import SpecError

pyspiel = pytest.importorskip("pyspiel")

SECRET = "root-password-hash-3f9a1c"
BIG_POKER = (
    "openspiel:universal_poker:betting=nolimit,stack=200000 200000,bettingAbstraction=fullgame"
)


@pytest.fixture
def secret(tmp_path: Path) -> Path:
    path = tmp_path / "secret.txt"
    path.write_text(f"{SECRET}\n{SECRET}\n")  # OpenSpiel's parser echoes the line it fails on
    return path


def file_specs(path: object) -> list[str]:
    return [
        f"openspiel:efg_game:filename={path}",
        f"openspiel:nfg_game:filename={path}",
        f"openspiel:game=efg_game,filename={path}",
        f"mcts_agents/openspiel-v0:game=efg_game,filename={path}",
        f"mcts_agents.envs.openspiel_v0:game=efg_game,filename={path}",
        f"mcts_agents.envs.openspiel_v0:env:game=efg_game,filename={path}",
        f"openspiel:bargaining:instances_file={path}",
        f"openspiel:colored_trails:boards_file={path}",
        f"openspiel:crossword:word_list_file={path}",
        f"openspiel:crossword:puzzles_root={path}",
        f"openspiel:repeated_poker:universal_poker_game_string=efg_game(filename={path})",
    ]


def test_no_spec_form_reads_a_file(secret: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    loaded: list[tuple[object, ...]] = []
    real = pyspiel.load_game
    monkeypatch.setattr(pyspiel, "load_game", lambda *a: loaded.append(a) or real(*a))
    missing = secret.with_name("missing.txt")
    for text in file_specs(secret):
        with pytest.raises(SpecError) as refused:
            parse_env_spec(text)
        said = str(refused.value)
        assert SECRET not in said and "EFG" not in said, said
        assert "file" in said, said
        with pytest.raises(SpecError) as other:  # a missing file: the very same answer
            parse_env_spec(text.replace(str(secret), str(missing)))
        assert str(other.value).replace(str(missing), str(secret)) == said
    assert loaded == []  # refused before OpenSpiel was asked to load anything


def test_the_command_line_refuses_them_with_exit_2(secret: Path) -> None:
    for text in (f"openspiel:efg_game:filename={secret}", BIG_POKER):
        out, err = io.StringIO(), io.StringIO()
        with redirect_stdout(out), redirect_stderr(err):
            try:
                code = main(["play", text, "--p0", "random", "--p1", "random"])
            except SystemExit as exit_:
                code = exit_.code
        assert code == 2, err.getvalue()
        assert SECRET not in err.getvalue() and len(err.getvalue().strip().splitlines()) == 1


def test_a_fifo_named_as_a_file_is_never_opened(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    for text in file_specs(fifo):
        with pytest.raises(SpecError):
            parse_env_spec(text)  # an open() of it would block here for good
    with pytest.raises(OSError):  # ENXIO: no one holds it open for reading
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))


def test_the_rule_reads_pyspiels_registry() -> None:
    games = {t.short_name: t for t in pyspiel.registered_games()}
    for name, kind in games.items():
        for key, default in kind.parameter_specification.items():
            if key in ("filename", "instances_file", "boards_file", "word_list_file"):
                assert file_parameter(key, default), (name, key)
    assert file_parameter("fen", "") is False and file_parameter("stack", "1200 1200") is False
    assert file_parameter("x", "data/games.txt") and file_parameter("y", "~/g")
    for name in ("efg_game", "nfg_game", "goofspiel", "mfg_garnet", "normal_form_extensive_game"):
        with pytest.raises(SpecError, match=name):
            check_openspiel_game(name, {}, name)
    check_openspiel_game("bargaining", {"max_turns": 4}, "ok")  # its other options pass
    with pytest.raises(SpecError, match="nested"):
        deep = "misere(game=" * 6 + "tic_tac_toe()" + ")" * 6
        check_openspiel_game("repeated_poker", {"universal_poker_game_string": deep}, "deep")
    with pytest.raises(SpecError, match="game string"):
        check_openspiel_game("repeated_poker", {"universal_poker_game_string": "(("}, "bad")


def test_a_game_over_the_caps_is_refused_before_any_state(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from mcts_agents.envs.games import openspiel as core

    made: list[str] = []
    monkeypatch.setattr(core, "SpielState", lambda *a: made.append("state"))
    with pytest.raises(SpecError, match=r"200001 distinct actions.*100000 \(GameCaps.actions\)"):
        parse_env_spec(BIG_POKER)
    with pytest.raises(SpecError, match="moves in its longest game"):
        admit_openspiel({"game": "tic_tac_toe"}, "ttt", GameCaps(length=8))
    with pytest.raises(SpecError, match="numbers in an observation"):
        admit_openspiel({"game": "kuhn_poker"}, "kuhn", GameCaps(tensor=5))
    with pytest.raises(SpecError, match="outcomes of a chance node"):
        admit_openspiel({"game": "kuhn_poker"}, "kuhn", GameCaps(chance=2))
    assert made == []
    admit_openspiel({"game": "tic_tac_toe"}, "ttt", GameCaps(length=9, actions=9))
    with pytest.raises(SpecError, match=r"GameCaps\.actions"):
        parse_env_spec("openspiel:tic_tac_toe", GameCaps(actions=8))
    with pytest.raises(ValueError, match=r"GameCaps\.length"):
        GameCaps(length=0)


def test_the_games_of_the_registry_still_play() -> None:
    assert parse_env_spec("openspiel:leduc_poker:players=3").kwargs["players"] == 3
    assert parse_env_spec("mcts_agents/openspiel-v0:game=pig,winscore=10").kwargs["game"] == "pig"
    assert parse_env_spec("openspiel:bargaining:max_turns=4").kwargs["max_turns"] == 4


def test_options_that_crash_openspiel_are_refused_and_the_process_lives_on() -> None:
    """``universal_poker:numBoardCards=nolimit`` is a segmentation fault in ``load_game``: run
    in a process of its own here too, so that the old behaviour fails this test, not the run."""
    import subprocess
    import sys

    code = (
        "from mcts_agents.agents.specs import parse_env_spec\n"
        "from mcts_agents.errors import SpecError\n"
        "for text in ('openspiel:universal_poker:numBoardCards=nolimit',\n"
        "             'openspiel:universal_poker:stack=9 9 9 9 9 9 9'):\n"
        "    try:\n"
        "        parse_env_spec(text)\n"
        "    except SpecError as error:\n"
        "        print('refused', error)\n"
        "print('alive')\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    lines = done.stdout.splitlines()
    assert done.returncode == 0 and lines[-1] == "alive", done.stderr[-500:]
    assert len(lines) == 3 and all("crashed" in line for line in lines[:2]), lines
