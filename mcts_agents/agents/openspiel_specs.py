"""Which OpenSpiel games a spec may name (``openspiel:GAME[:k=v,...]``, the registry id
``mcts_agents/openspiel-v0`` and the module ``mcts_agents.envs.openspiel_v0``), on the command
line as in the web server.

A spec is text that can come from anywhere (a web request, a results file's header), and some
OpenSpiel games read files by name (``efg_game``, ``nfg_game``, ``bargaining``'s
``instances_file``, ``crossword``'s ``word_list_file`` ...), or grow without bound through a
text option (``universal_poker``'s ``stack``). So a spec's game is admitted in two steps:

1. before OpenSpiel sees it (``check_openspiel_game``): a registered game with sequential moves
   (a game nested in a game-valued parameter, such as ``turn_based_simultaneous_game``'s
   ``game``, may also have simultaneous ones; mean-field games never), none that cannot be
   played without a file, no option whose name or default value looks like a file or a path
   (``file_parameter``), and every nested game by the same rule;
2. a game with options of the spec's own is first loaded, and its first state made, in a
   process of its own (``survives``): OpenSpiel kills the process it runs in on some values
   (``universal_poker:numBoardCards=nolimit`` is a segmentation fault);
3. after ``pyspiel.load_game`` and before any state is made (``check_game_size``): its distinct
   actions, longest game, largest observation tensor and chance outcomes under ``GameCaps``.

A refusal is a ``SpecError`` naming the game and the option or the cap, never what a file
holds. ``openspiel_v0.env(game=..., **params)`` called from Python keeps all of OpenSpiel.
"""

from __future__ import annotations

import functools
import json
import re
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

from mcts_agents.checks import check_int
from mcts_agents.envs.core.errors import InvalidParameterError
from mcts_agents.envs.games.openspiel import game_parameters, import_pyspiel, load_spiel_game
from mcts_agents.errors import SpecError

__all__ = [
    "GameCaps",
    "admit_openspiel",
    "check_game_size",
    "check_openspiel_game",
    "file_parameter",
    "is_openspiel_factory",
    "survives",
]

#: Words of a parameter name that names a file or a folder.
FILE_WORDS = ("file", "path", "root", "dir", "folder")
#: A default value that looks like a path: a separator, a home, or a file's suffix.
_PATH_VALUE = re.compile(r"[/\\]|^~|\.(txt|efg|nfg|json|csv|dat|gz|zip|pb|bin)$", re.IGNORECASE)
#: Most games nested in one another (``misere(game=...)``).
MAX_NESTING = 4
#: Seconds and bytes of memory the process that first loads a spec's game may take.
PROBE_SECONDS = 30.0
PROBE_BYTES = 4 << 30
#: The first load in a process of its own: ``load_game``, the first state and the chance
#: outcomes up to the first decision, else a crash.
_PROBE = """
import json, resource, sys
limit = int(sys.argv[2])
resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
import pyspiel
name, params = json.loads(sys.argv[1])
kind = {t.short_name: t for t in pyspiel.registered_games()}[name]
for key, value in params.items():
    if isinstance(kind.parameter_specification.get(key), dict) and isinstance(value, str):
        params[key] = pyspiel.game_parameters_from_string(value)
try:
    state = pyspiel.load_game(name, params).new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    state.legal_actions()
except pyspiel.SpielError:
    pass
"""


@dataclass(frozen=True)
class GameCaps:
    """The largest OpenSpiel game a spec may name (the web server's are ``Limits.game``).

    Attributes:
        actions: distinct actions (``num_distinct_actions``; a page shows a button each).
        length: moves of the longest game (``max_game_length``).
        tensor: numbers in a player's observation (its information state or observation
            tensor).
        chance: outcomes of one chance node (``max_chance_outcomes``).
    """

    actions: int = 100_000
    length: int = 100_000
    tensor: int = 100_000
    chance: int = 100_000

    def __post_init__(self) -> None:
        for item in fields(self):
            check_int(getattr(self, item.name), f"GameCaps.{item.name}", low=1)


def is_openspiel_factory(path: str) -> bool:
    """Whether an env factory's import path (``"module:function"``) is ``openspiel_v0``'s."""
    module = path.partition(":")[0]
    return module.rpartition(".")[2] == "openspiel_v0"


def file_parameter(name: str, default: Any) -> bool:
    """Whether an OpenSpiel parameter names a file or a path: by its name (``filename``,
    ``instances_file``, ``puzzles_root`` ...) or its default value (``"data/games.txt"``)."""
    lowered = name.lower()
    if any(word in lowered for word in FILE_WORDS):
        return True
    return isinstance(default, str) and bool(_PATH_VALUE.search(default.strip()))


def check_openspiel_game(game: Any, params: Mapping[str, Any], text: str, nested: int = 0) -> None:
    """Refuse a game or option that may read a file (see the module's text), before OpenSpiel
    is asked anything but its registry.

    Raises:
        SpecError: naming ``text``, the game and the refused option.
    """
    pyspiel = import_pyspiel()
    try:
        defaults = game_parameters(game)
    except InvalidParameterError as error:
        raise SpecError(f"env spec {text!r}: {error}") from None
    kind = {t.short_name: t for t in pyspiel.registered_games()}[game]
    dynamics = pyspiel.GameType.Dynamics
    allowed = (
        (dynamics.SEQUENTIAL,) if nested == 0 else (dynamics.SEQUENTIAL, dynamics.SIMULTANEOUS)
    )
    if kind.dynamics not in allowed:
        moves = "simultaneous" if kind.dynamics == dynamics.SIMULTANEOUS else "mean-field"
        raise SpecError(
            f"env spec {text!r}: OpenSpiel's {game!r} has {moves} moves; specs name games with "
            "sequential moves (one player at a time)"
        )
    reads = [k for k, v in defaults.items() if file_parameter(k, v)]
    if reads and not kind.default_loadable:
        raise SpecError(
            f"env spec {text!r}: OpenSpiel's {game!r} reads its game from a file ({reads[0]}=), "
            "which a spec may not name (openspiel_v0.env(game=...) from Python loads it)"
        )
    unknown = sorted(set(params) - set(defaults))
    if unknown:
        described = ", ".join(f"{k}={v!r}" for k, v in defaults.items()) or "none"
        raise SpecError(
            f"env spec {text!r}: OpenSpiel's {game!r} has no parameter(s) {unknown}; its "
            f"parameters: {described}"
        )
    for key, value in params.items():
        if file_parameter(key, defaults[key]):
            raise SpecError(
                f"env spec {text!r}: option {key!r} of OpenSpiel's {game!r} names a file or a "
                "path, which a spec may not name (openspiel_v0.env from Python takes it)"
            )
        if isinstance(defaults.get(key), dict):
            _check_nested(game, key, value, text, nested)


def _check_nested(game: str, key: str, value: Any, text: str, nested: int) -> None:
    """A game-valued option: an OpenSpiel game string (or its parameters) by the same rule."""
    pyspiel = import_pyspiel()
    if nested + 1 >= MAX_NESTING:
        raise SpecError(f"env spec {text!r}: games nested over {MAX_NESTING} deep")
    if isinstance(value, str):
        try:
            value = pyspiel.game_parameters_from_string(value)
        except pyspiel.SpielError:
            raise SpecError(
                f"env spec {text!r}: option {key!r} of OpenSpiel's {game!r} is not an OpenSpiel "
                "game string (game_name(key=value))"
            ) from None
    if not isinstance(value, Mapping) or not isinstance(value.get("name"), str):
        raise SpecError(
            f"env spec {text!r}: option {key!r} of OpenSpiel's {game!r} should name a game, "
            f"got {value!r}"
        )
    inner = {k: v for k, v in value.items() if k != "name"}
    check_openspiel_game(value["name"], inner, text, nested + 1)


def check_game_size(spiel_game: Any, caps: GameCaps, text: str) -> None:
    """Refuse a loaded game over ``caps`` (before any of its states is made).

    Raises:
        SpecError: naming ``text``, the size and the cap.
    """
    kind = spiel_game.get_type()
    tensor = 0
    for provided, method in (
        (kind.provides_information_state_tensor, "information_state_tensor_size"),
        (kind.provides_observation_tensor, "observation_tensor_size"),
    ):
        if provided:
            try:
                tensor = max(tensor, int(getattr(spiel_game, method)()))
            except Exception:  # a game that says it provides a tensor but has none
                continue
    sizes = (
        ("actions", "distinct actions", spiel_game.num_distinct_actions()),
        ("length", "moves in its longest game", spiel_game.max_game_length()),
        ("tensor", "numbers in an observation", tensor),
        ("chance", "outcomes of a chance node", spiel_game.max_chance_outcomes()),
    )
    for cap, what, size in sizes:
        high = getattr(caps, cap)
        if not int(size) <= high:
            raise SpecError(
                f"env spec {text!r}: OpenSpiel's {spiel_game} has {int(size)} {what}, over the "
                f"limit of {high} (GameCaps.{cap})"
            )


@functools.lru_cache(maxsize=256)
def survives(game: str, params_json: str) -> bool:
    """Whether OpenSpiel loads ``game`` with the parameters ``params_json`` (a JSON object)
    and makes its first state, in a process of its own, within ``PROBE_SECONDS`` and
    ``PROBE_BYTES``, without dying (a refusal of OpenSpiel's counts as surviving)."""
    command = [sys.executable, "-c", _PROBE, json.dumps([game, json.loads(params_json)])]
    try:
        done = subprocess.run(
            [*command, str(PROBE_BYTES)],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=PROBE_SECONDS,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return False
    return done.returncode == 0


def admit_openspiel(kwargs: Mapping[str, Any], text: str, caps: GameCaps | None = None) -> None:
    """Admit the OpenSpiel game of an ``openspiel_v0`` spec's keyword arguments (``game`` and
    the game's parameters): the rule, then the game loaded and its size under ``caps``
    (default ``GameCaps()``).

    Raises:
        SpecError: a refused game, option or size, or one OpenSpiel refuses.
    """
    params = {k: v for k, v in kwargs.items() if k not in ("game", "render_mode")}
    game = kwargs.get("game", "kuhn_poker")
    check_openspiel_game(game, params, text)
    if params and not survives(game, json.dumps(params, sort_keys=True, default=str)):
        raise SpecError(
            f"env spec {text!r}: OpenSpiel's {game!r} with these options crashed or ran over "
            f"{PROBE_SECONDS:g} s when loaded in a process of its own; refused"
        )
    try:
        spiel_game = load_spiel_game(game, params)
    except InvalidParameterError as error:
        raise SpecError(f"env spec {text!r}: {error}") from None
    check_game_size(spiel_game, caps if caps is not None else GameCaps(), text)
