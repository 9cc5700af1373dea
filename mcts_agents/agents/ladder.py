"""Calibrated strength ladders: fixed agents per game with Elo ratings on one scale.

A ladder is a game's levels in order, ``L0`` (uniform random, Elo 0 by definition) up to the
strongest: each level a full agent spec string that plays the same on every machine (iteration
budgets, never time; fixed options; the arena seeds every game). ``LEVEL_SPECS`` defines the
levels of every game; a calibration (``benchmarks/ladder.py``: a Bradley-Terry fit over arena
games) gives each level its Elo and 95% interval, stored as one JSON file per game in
``mcts_agents/agents/ladders/`` with its date, library version and command. ``ladder(env)``
reads the levels of an env's game; ``mcts_agents.arena.rating.rate`` rates any agent against
them.

PettingZoo's ``connect_four_v3`` and ``tictactoe_v3`` have the same rules as our
``connect_four`` and ``tic_tac_toe``, so they share those ladders.

A ladder file is JSON::

    {"game": "tic_tac_toe", "date": "2026-11-25", "version": "0.2.0",
     "command": "python benchmarks/ladder.py tic_tac_toe", "games": 2400, "notes": "...",
     "levels": [{"name": "L0", "spec": "random", "elo": 0.0, "low": 0.0, "high": 0.0}, ...],
     "hands": 1}

(``hands``: the hands of one rating unit, 1 when absent; see ``HANDS`` for the card games)

and is checked field by field when read: a damaged or hand-edited file is refused with a
``ResultsFileError`` (the arena's data-file error) naming the file and what is wrong.

What every ladder holds (``Ladder`` and ``Level`` check it when made, so a file, a ``Ladder``
and ``rate(levels=...)`` are held to the same): each level's Elo and its interval are finite,
within ``MAX_ELO`` of 0, with ``low <= elo <= high``; the Elo rises strictly from level to
level (the calibration's target: each level beats the one below); and each level's spec is an
agent that plays unattended in one process (``check_level_spec``: no ``human``, no
``workers`` beyond ``MAX_LEVEL_WORKERS``; ``rate --workers`` plays games in parallel).
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import tempfile
from dataclasses import asdict, dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from mcts_agents import envs
from mcts_agents.agents.ladder_checks import (
    FIELDS,
    LEVEL_FIELDS,
    MAX_ELO,
    MAX_LEVEL_WORKERS,
    OPTIONAL,
    check_level_spec,
    check_levels,
    data_problem,
    level_problem,
)
from mcts_agents.agents.ladder_levels import HANDS, LEVEL_SPECS
from mcts_agents.agents.spec_text import parse_value
from mcts_agents.checks import load_json
from mcts_agents.errors import InvalidOptionError, OptionTypeError, ResultsFileError

__all__ = [
    "HANDS",
    "LEVEL_SPECS",
    "MAX_ELO",
    "MAX_LEVEL_WORKERS",
    "Ladder",
    "Level",
    "calibrated_games",
    "check_level_spec",
    "check_levels",
    "hands_per_unit",
    "ladder",
    "ladder_game",
    "level_spec",
    "load_ladder",
    "save_ladder",
]

logger = logging.getLogger(__name__)


#: Other names of the ladders' games: PettingZoo's envs with the same rules.
_ALIASES = {
    "connect_four_v3": "connect_four",
    "classic/connect_four-v3": "connect_four",
    "pettingzoo.classic.connect_four_v3": "connect_four",
    "mcts_agents/connect_four-v0": "connect_four",
    "tictactoe_v3": "tic_tac_toe",
    "classic/tictactoe-v3": "tic_tac_toe",
    "pettingzoo.classic.tictactoe_v3": "tic_tac_toe",
    "mcts_agents/tic_tac_toe-v0": "tic_tac_toe",
}

_PACKAGE_FOLDER = "ladders"
_FIELDS, _OPTIONAL, _LEVEL_FIELDS = FIELDS, OPTIONAL, LEVEL_FIELDS


@dataclass(frozen=True)
class Level:
    """One rung of a ladder: ``name`` (``"L0"``, ...), ``spec`` (an agent spec string), ``elo``
    and its 95% interval ``low`` .. ``high`` (L0 is 0 by definition)."""

    name: str
    spec: str
    elo: float
    low: float
    high: float

    def __post_init__(self) -> None:
        problem = level_problem(self)
        if problem is not None:
            raise InvalidOptionError(f"level {self.name!r}: {problem}")


@dataclass(frozen=True)
class Ladder:
    """A game's calibrated ladder: its levels in order (L0 first) and the calibration's
    provenance: ``date``, library ``version``, the ``command`` that made it, the ``games`` it
    played, and ``notes`` (the top level, equivalences, anything a reader should know).
    ``hands``: the hands (arena games) of one rating unit, what the Elo ratings count: 1 (a
    unit is one game, win/draw/loss) or an even ``2H`` (a duplicate match of ``H`` deals scored
    by its chip total, see ``HANDS``); ``games`` counts units."""

    game: str
    levels: tuple[Level, ...]
    date: str
    version: str
    command: str
    games: int
    notes: str = ""
    hands: int = 1

    def __post_init__(self) -> None:
        problem = _ladder_problem(self)
        if problem is not None:
            raise InvalidOptionError(f"ladder of {self.game!r}: {problem}")

    def level(self, name: str) -> Level:
        """The level called ``name`` (``"L3"``)."""
        for level in self.levels:
            if level.name == name:
                return level
        raise InvalidOptionError(
            f"{self.game} has no level {name!r}; its levels are "
            f"{[level.name for level in self.levels]}"
        )


# ---------------------------------------------------------------------------- which game
def _variant_games() -> dict[Any, str]:
    """The rules ``spec`` of each ladder game's default env -> the game's name."""
    found = {}
    for game in LEVEL_SPECS:
        env = _default_env(game)
        found[env.unwrapped.game.spec] = game
    return found


def _default_env(game: str) -> Any:
    for module, variants in envs.ENV_MODULES.items():
        if game in variants:
            return envs.load(module).env(**variants[game])
    raise InvalidOptionError(f"{game!r} is not one of our env variants")  # pragma: no cover


_SPECS_CACHE: dict[Any, str] = {}


def _game_of_rules(rules: Any) -> str | None:
    if not _SPECS_CACHE:
        _SPECS_CACHE.update(_variant_games())
    return _SPECS_CACHE.get(rules)


def _unknown(what: str) -> InvalidOptionError:
    return InvalidOptionError(
        f"{what} has no strength ladder; games with a ladder: {sorted(LEVEL_SPECS)} "
        f"(calibrated: {calibrated_games() or 'none yet'})"
    )


def ladder_game(env: Any) -> str:
    """The ladder game (a key of ``LEVEL_SPECS``) of ``env``.

    ``env`` is an env spec string (``"connect_four"``; options only where they leave the rules
    as the ladder's, since a ladder is calibrated on one set of rules), one of our env objects,
    PettingZoo's ``connect_four_v3`` or ``tictactoe_v3`` env (or their module names and
    registry ids), or a zero-argument callable returning an env (an ``EnvSpec``).

    Raises:
        InvalidOptionError: a game without a ladder (naming the games that have one), or
            options that change the rules.
    """
    if isinstance(env, str):
        return _game_of_text(env)
    if hasattr(env, "possible_agents") or hasattr(env, "unwrapped"):
        return _game_of_env(env)
    if callable(env):
        try:
            made = env()
        except Exception as error:  # someone else's factory
            raise InvalidOptionError(
                f"env factory {env!r} failed ({type(error).__name__}: {error})"
            ) from error
        try:
            return _game_of_env(made)
        finally:
            with contextlib.suppress(Exception):
                made.close()
    raise OptionTypeError(
        f"env must be an env spec string, an env, or a callable returning one; got {env!r}"
    )


def _game_of_text(text: str) -> str:
    name, _, options = text.strip().partition(":")
    name = name.strip()
    name = _ALIASES.get(name, name)
    found = [(m, variants[name]) for m, variants in envs.ENV_MODULES.items() if name in variants]
    if not found or (name not in LEVEL_SPECS and not options.strip()):
        raise _unknown(f"env {text!r}")
    if not options.strip():
        return name
    kwargs = {}
    for pair in options.split(","):
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise InvalidOptionError(f"env spec {text!r}: expected key=value options")
        kwargs[key.strip()] = parse_value(value.strip())
    module, base = found[0]
    try:
        made = envs.load(module).env(**{**base, **kwargs})
    except (TypeError, ValueError) as error:
        raise InvalidOptionError(f"env spec {text!r}: {error}") from None
    try:
        game = _game_of_env(made)
    except InvalidOptionError:
        if name not in LEVEL_SPECS:
            raise _unknown(f"env {text!r}") from None
        game = None
    if name in LEVEL_SPECS and game != name:
        raise InvalidOptionError(
            f"env {text!r} changes the rules of {name!r}; its ladder is calibrated on the "
            f"default rules ({name!r} without options)"
        )
    assert game is not None  # a ladder game found by its rules
    return game


def _game_of_env(env: Any) -> str:
    raw = getattr(env, "unwrapped", env)
    rules = getattr(getattr(raw, "game", None), "spec", None)
    if rules is not None:
        with contextlib.suppress(TypeError):  # an unhashable spec is nobody's ladder
            game = _game_of_rules(rules)
            if game is not None:
                return game
    name = getattr(raw, "metadata", {}).get("name") if hasattr(raw, "metadata") else None
    if isinstance(name, str) and name in _ALIASES and rules is None:
        return _ALIASES[name]
    raise _unknown(f"env {type(raw).__name__} ({name or 'unnamed'})")


# ---------------------------------------------------------------------------- files
def _package_file(game: str) -> Any:
    return resources.files("mcts_agents.agents").joinpath(_PACKAGE_FOLDER).joinpath(f"{game}.json")


def hands_per_unit(game: str) -> int:
    """The hands of one rating unit of ``game`` (a key of ``LEVEL_SPECS``): ``HANDS[game]`` for
    the chip games, else 1."""
    return HANDS.get(game, 1)


def calibrated_games() -> list[str]:
    """The games whose ladder has been calibrated (a file in the package), sorted."""
    return sorted(game for game in LEVEL_SPECS if _package_file(game).is_file())


def load_ladder(game: str | os.PathLike[str]) -> Ladder:
    """A game's calibrated ladder from the package's data (``game`` a key of ``LEVEL_SPECS``
    or an env name with the same rules), or from a ladder file (a path, or a string ending in
    ``.json``).

    Raises:
        InvalidOptionError: a game without a ladder, or one not calibrated yet (the message
            names the games that are).
        ResultsFileError: the file is missing (a path), not JSON, or does not hold a ladder
            (the message names the file and the field).
    """
    if isinstance(game, os.PathLike) or (isinstance(game, str) and game.endswith(".json")):
        path = os.fspath(game)
        try:
            text = Path(path).read_text(encoding="utf-8")
        except OSError as error:
            raise ResultsFileError(f"cannot read the ladder file {path}: {error}") from None
        return _from_text(text, path, None)
    if not isinstance(game, str):
        raise OptionTypeError(f"game must be a game name or a ladder file, got {game!r}")
    name = _game_of_text(game)
    source = _package_file(name)
    if not source.is_file():
        raise InvalidOptionError(
            f"the ladder of {name!r} has not been calibrated yet (run benchmarks/ladder.py "
            f"{name}); calibrated: {calibrated_games() or 'none yet'}"
        )
    return _from_text(source.read_text(encoding="utf-8"), f"the package's {name}.json", name)


def _from_text(text: str, where: str, game: str | None) -> Ladder:
    try:
        data = load_json(text, where, error=ResultsFileError)
    except ResultsFileError as error:
        raise ResultsFileError(f"{where} is not a ladder file (not JSON: {error})") from None
    problem = data_problem(data)
    if problem is None and game is not None and data["game"] != game:
        problem = f"'game' is {data['game']!r}, expected {game!r}"
    if problem is not None:
        raise ResultsFileError(f"{where} is not a valid ladder file: {problem}")
    try:
        levels = tuple(Level(**{k: level[k] for k in _LEVEL_FIELDS}) for level in data["levels"])
        fields = {k: data.get(k, _OPTIONAL.get(k)) for k in _FIELDS if k != "levels"}
        found = Ladder(levels=levels, **fields)
    except InvalidOptionError as error:
        raise ResultsFileError(f"{where} is not a valid ladder file: {error}") from None
    expected = LEVEL_SPECS.get(found.game)
    if expected is not None and tuple(level.spec for level in levels) != expected:
        logger.warning(
            "%s: its levels' specs differ from LEVEL_SPECS[%r]; the file's calibration is used "
            "(recalibrate with benchmarks/ladder.py)", where, found.game,
        )  # fmt: skip
    return found


def _ladder_problem(found: Ladder) -> str | None:
    if not isinstance(found.game, str) or not found.game:
        return f"game should be a non-empty string, got {found.game!r}"
    for key in ("date", "version", "command", "notes"):
        if not isinstance(getattr(found, key), str):
            return f"{key} should be a string, got {getattr(found, key)!r}"
    if not isinstance(found.games, int) or isinstance(found.games, bool) or found.games < 0:
        return f"games should be an int >= 0, got {found.games!r}"
    hands = found.hands
    odd = isinstance(hands, int) and hands > 1 and hands % 2 == 1
    if not isinstance(hands, int) or isinstance(hands, bool) or hands < 1 or odd:
        return f"hands should be 1 or an even int (a duplicate of hands/2 deals), got {hands!r}"
    if not isinstance(found.levels, tuple) or not found.levels:
        return f"levels should be a non-empty tuple of Level, got {found.levels!r}"
    for i, level in enumerate(found.levels):
        if not isinstance(level, Level):
            return f"level {i} should be a Level, got {level!r}"
        if level.name != f"L{i}":
            return f"level {i} should be named 'L{i}', got {level.name!r}"
        problem = level_problem(level)
        if problem is not None:
            return f"{level.name}: {problem}"
    if found.levels[0].elo != 0:
        return f"L0 is Elo 0 by definition, got {found.levels[0].elo!r}"
    try:
        check_levels(found.levels, "levels")
    except InvalidOptionError as error:
        return str(error)
    return None


def save_ladder(found: Ladder, path: str | os.PathLike[str]) -> None:
    """Write ``found`` as a ladder file (JSON) at ``path``, replacing it atomically."""
    if not isinstance(found, Ladder):
        raise OptionTypeError(f"save_ladder expects a Ladder, got {found!r}")
    data = {k: getattr(found, k) for k in _FIELDS if k != "levels"}
    data["levels"] = [asdict(level) for level in found.levels]
    ordered = {k: data[k] for k in _FIELDS}
    target = Path(os.fspath(path))
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, temporary = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
    except OSError as error:
        raise ResultsFileError(f"cannot write the ladder file {target}: {error}") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(json.dumps(ordered, indent=2) + "\n")
        os.replace(temporary, target)
    except BaseException as error:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        if isinstance(error, OSError):
            raise ResultsFileError(f"cannot write the ladder file {target}: {error}") from None
        raise


# ---------------------------------------------------------------------------- the API
def ladder(env: Any) -> tuple[Level, ...]:
    """The calibrated levels of ``env``'s game, L0 first (see ``ladder_game`` for ``env``).

    Raises:
        InvalidOptionError: a game without a ladder or not calibrated yet (naming those that
            are); ResultsFileError: a damaged ladder file.
    """
    return load_ladder(ladder_game(env)).levels


def level_spec(game: str, level: str | int) -> str:
    """The agent spec of ``level`` (``"L5"`` or 5) of ``game``'s ladder: the calibrated file's
    where there is one, else ``LEVEL_SPECS`` (the definition). For ``ladder:GAME:LEVEL``
    agent specs.

    Raises:
        InvalidOptionError: an unknown game or level (naming the valid ones).
    """
    if not isinstance(game, str):
        raise OptionTypeError(f"game must be a game name such as 'connect_four', got {game!r}")
    name = _game_of_text(game)
    if name in calibrated_games():
        specs = tuple(level.spec for level in load_ladder(name).levels)
    else:
        specs = LEVEL_SPECS[name]
    if isinstance(level, int) and not isinstance(level, bool):
        index = level
    elif isinstance(level, str) and level.strip().upper().startswith("L"):
        digits = level.strip()[1:]
        index = int(digits) if digits.isdigit() else -1
    else:
        index = -1
    if not 0 <= index < len(specs):
        raise InvalidOptionError(
            f"{name}'s ladder has no level {level!r}; its levels are L0 .. L{len(specs) - 1}"
        )
    return specs[index]
