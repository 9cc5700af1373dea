"""OpenSpiel game names and option strings, generated from pyspiel's own registry plus hostile
ones, through the web server's policy: no file outside the allowed folders is opened (Python's
``open`` audit events; pyspiel's C++ ``fopen`` is not seen there, so also: every game OpenSpiel
is asked to load names no file-like option and no game that reads a file, and a refused spec
is refused before ``load_game``), every admitted game is under the size caps, and every check
returns in bounded time."""

from __future__ import annotations

import os
import random
import site
import sys
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from mcts_agents.agents.openspiel_specs import file_parameter
from mcts_agents.errors import SpecError
from mcts_agents.web.policy import Limits, ServerPolicy
from mcts_agents.web.store import make_env

pyspiel = pytest.importorskip("pyspiel")

ROOT = Path(__file__).resolve().parents[3]
#: Specs checked (a seeded generator): about ten seconds on a loaded machine.
CASES = 600
#: Seconds one spec may take to be checked, admitted or refused (generous: a loaded machine).
BOUND = 15.0

_opened: list[str] | None = None  # the paths opened while a spec is checked


def _audit(event: str, args: tuple[Any, ...]) -> None:
    if event == "open" and _opened is not None and isinstance(args[0], (str, bytes, os.PathLike)):
        _opened.append(os.fsdecode(args[0]))


sys.addaudithook(_audit)  # hooks cannot be removed: this one records only inside ``watched``


def _allowed_roots() -> list[str]:
    roots = {sys.prefix, sys.base_prefix, sys.exec_prefix, str(ROOT), *site.getsitepackages()}
    return [os.path.realpath(r) for r in roots] + [os.devnull]  # a probe process's stdin


def _inside(path: str, roots: list[str]) -> bool:
    real = os.path.realpath(path)
    return any(real == r or real.startswith(r + os.sep) for r in roots)


def _names_a_file(name: str, params: Mapping[str, Any], kinds: dict[str, Any]) -> str | None:
    """What a ``load_game`` call names that may read a file, else ``None``."""
    kind = kinds.get(name)
    if kind is None:
        return f"an unknown game {name!r}"
    spec = kind.parameter_specification
    if not kind.default_loadable and any(file_parameter(k, v) for k, v in spec.items()):
        return f"{name}, a game read from a file"
    for key, value in params.items():
        if file_parameter(key, spec.get(key)):
            return f"{name}'s {key}"
        if isinstance(value, Mapping):
            inner = {k: v for k, v in value.items() if k != "name"}
            found = _names_a_file(str(value.get("name")), inner, kinds)
            if found:
                return found
    return None


def _specs(rng: random.Random, hostile_paths: list[str]) -> Iterator[str]:
    kinds = {t.short_name: t for t in pyspiel.registered_games()}
    names = [*kinds, "efg_game(filename=/etc/passwd)", "../efg_game", "kuhn", ""]
    hostile_keys = ["filename", "path", "file", "game", "universal_poker_game_string", "stage_game"]
    values = [
        *hostile_paths,
        "efg_game(filename=/etc/passwd)",
        "turn_based_simultaneous_game(game=nfg_game(filename=/etc/passwd))",
        "tic_tac_toe()",
        "kuhn_poker(players=3)",
        "99999999",
        "1e300",
        "-5",
        "200000 200000",
        "nolimit",
        "fullgame",
        "a;b|c\\nd",
        "true",
        "3",
        "0",
    ]
    for _ in range(CASES):
        name = rng.choice(names)
        keys = list(kinds[name].parameter_specification) if name in kinds else []
        pairs = []
        for _ in range(rng.randint(0, 3)):
            key = rng.choice(keys + hostile_keys) if keys and rng.random() < 0.7 else None
            key = key or rng.choice(hostile_keys)
            pairs.append(f"{key}={rng.choice(values)}")
        options = ",".join(pairs)
        form = rng.randrange(3)
        if form == 0:
            yield f"openspiel:{name}" + (f":{options}" if options else "")
        elif form == 1:
            yield f"mcts_agents/openspiel-v0:game={name}" + (f",{options}" if options else "")
        else:
            yield f"openspiel:game={name}" + (f",{options}" if options else "")


def test_generated_openspiel_specs_open_no_file_and_stay_under_the_caps(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    global _opened
    secret = tmp_path / "secret.efg"
    secret.write_text("EFG 2 R secret\n")
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    hostile = [str(secret), str(fifo), "/etc/passwd", "../../../etc/passwd", str(tmp_path)]
    kinds = {t.short_name: t for t in pyspiel.registered_games()}
    loads: list[str] = []
    real_load = pyspiel.load_game

    def load_game(name: Any, params: Any = None) -> Any:
        found = _names_a_file(str(name), params or {}, kinds)
        assert found is None, f"load_game was asked for {found} ({name}, {params})"
        loads.append(str(name))
        return real_load(name, params or {})

    monkeypatch.setattr(pyspiel, "load_game", load_game)
    limits = Limits()
    policy = ServerPolicy(limits=limits)
    roots = _allowed_roots()
    admitted = refused = 0
    for text in _specs(random.Random(37), hostile):
        opened: list[str] = []
        loads.clear()
        start = time.monotonic()
        _opened = opened
        try:
            spec = policy.env_spec(text)
        except SpecError:
            refused += 1
            spec = None
        finally:
            _opened = None
        assert time.monotonic() - start < BOUND, text
        outside = [p for p in opened if not _inside(p, roots)]
        assert outside == [], (text, outside)
        assert not any(h in p for p in opened for h in hostile), (text, opened)
        if spec is None:
            continue
        admitted += 1
        env = make_env(spec)
        env.reset(seed=0)  # the first state
        game = env.unwrapped.game.spiel_game
        assert game.num_distinct_actions() <= limits.game.actions, text
        assert game.max_game_length() <= limits.game.length, text
        assert game.max_chance_outcomes() <= limits.game.chance, text
        assert time.monotonic() - start < BOUND, text
    assert admitted >= 40 and refused >= 100, (admitted, refused)  # both sides were explored
    with pytest.raises(OSError):  # no one ever opened the FIFO for reading
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
