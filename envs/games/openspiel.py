"""Any sequential OpenSpiel game as a rules core: ``BoardGame`` over ``pyspiel`` states.

``OpenSpielCore(game="kuhn_poker", **params)`` loads ``pyspiel.load_game(game, params)`` and
plays it by OpenSpiel's own rules: actions are OpenSpiel's action ids
(``num_distinct_actions``), chance nodes are OpenSpiel's (``to_play`` is ``CHANCE`` there, the
outcomes and probabilities its ``chance_outcomes``), returns its ``returns()`` with
``return_range`` its ``[min_utility, max_utility]``. The game ends where OpenSpiel's state is
terminal: nothing is counted or truncated here (OpenSpiel's ``max_game_length`` counts player
moves only and is a bound, not a rule).

A state is a ``SpielState``: the whole action history (chance outcomes included) as a tuple of
ints, which is its identity (hash, equality, transposition key, pickling), together with the
``pyspiel.State`` it leads to, which is never changed once made (``next_state`` clones, then
applies). A pickled state is rebuilt by replaying its history.

Hidden information: ``information_set(state, player)`` is OpenSpiel's
``information_state_string(player)`` (perfect recall) and ``determinize`` its
``resample_from_infostate(player, rng.random)``, drawing with the caller's generator only,
replayed and repaired where the play forbids it (``redeal``: OpenSpiel's redeals of hearts and
euchre ignore what the play revealed; where no consistent world turns up, OpenSpiel's own is
searched, as OpenSpiel's ``ISMCTSBot`` does).
``can_determinize`` says whether the game implements the latter (found by trying it once a
process per game; ``phantom_ttt``, ``liars_dice`` and ``skat`` do not), and ``determinize`` of a
game without it raises ``InvalidStateError`` naming what is missing.

Observations (float32, flat): ``information_state_tensor(player)`` where the game provides it,
else ``observation_tensor(player)``, else an empty array; ``observation_kind`` says which.

``pyspiel`` is imported when a core is made, never when this module is imported; without it the
error names ``pip install open_spiel``.
"""

from __future__ import annotations

import difflib
import functools
import random
from collections.abc import Hashable
from typing import Any

import numpy as np

from mcts_agents.envs.core.checks import short
from mcts_agents.envs.core.errors import InvalidParameterError, InvalidStateError
from mcts_agents.envs.core.game import CHANCE, BoardGame, draw_outcome

__all__ = [
    "INSTALL_HINT",
    "MAX_REDEALS",
    "OpenSpielCore",
    "SpielState",
    "game_parameters",
    "import_pyspiel",
    "load_spiel_game",
    "redeal",
]

INSTALL_HINT = "pip install open_spiel"
_SPIEL_CHANCE = -1  # pyspiel's kChancePlayerId
#: OpenSpiel redeals tried for one world consistent with the play (see ``redeal``).
MAX_REDEALS = 100
#: OpenSpiel game (its string, parameters included) -> whether it redeals (probed once)
_REDEALS: dict[str, bool] = {}


def import_pyspiel() -> Any:
    """The ``pyspiel`` module; ``ModuleNotFoundError`` naming ``pip install open_spiel`` if
    OpenSpiel is not installed."""
    try:
        import pyspiel
    except ImportError as error:
        raise ModuleNotFoundError(
            f"mcts_agents.envs.openspiel_v0 needs OpenSpiel, which is not installed "
            f"({error}); install it with `{INSTALL_HINT}`"
        ) from None
    return pyspiel


@functools.lru_cache(maxsize=64)
def _load(game_string: str) -> Any:
    return import_pyspiel().load_game(game_string)


def _replay(game_string: str, history: tuple[int, ...]) -> SpielState:
    """The state after ``history`` in the game ``str(pyspiel_game)`` (unpickling)."""
    spiel = _load(game_string).new_initial_state()
    for action in history:
        spiel.apply_action(action)
    return SpielState(history, spiel)


def redeal(spiel: Any, player: int, rng: random.Random, tries: int = MAX_REDEALS) -> Any:
    """A ``pyspiel`` state drawn from ``player``'s information set in ``spiel`` with ``rng``.

    OpenSpiel's ``resample_from_infostate(player, rng.random)`` gives a deal; its history is
    replayed from the start, and where an action is illegal in that deal (another player's, or
    a chance outcome), it is replaced by one drawn with ``rng`` among those that leave
    ``player``'s information state as it was after that action in ``spiel`` (``_repaired``).
    The world is kept when the replay reaches ``player``'s information state in ``spiel``, else
    drawn again, at most ``tries`` times. If none is, the first of OpenSpiel's own worlds that a
    random playout takes to an end is returned (what OpenSpiel's ``ISMCTSBot`` searches), and
    ``None`` if none did.

    The replay matters: OpenSpiel's redeals of ``hearts`` and ``euchre`` ignore what the play
    revealed (a player who did not follow suit holds none of that suit; in hearts, the cards
    passed), so a third (hearts) to a tenth (euchre) of their worlds are impossible: a card held
    twice, a player who had to follow suit; in hearts' passing, nearly all, and most of those
    stop with no legal move. Measured on hearts: one try in most positions, 0.4 ms a try.
    """
    game = spiel.get_game()
    key = spiel.information_state_string(player)
    history = spiel.history()
    keys: list[str] = []  # the player's information state after each action, made when needed
    fallback = None
    for _ in range(tries):
        world = spiel.resample_from_infostate(player, rng.random)
        replayed = _repaired(game, world.history(), history, player, keys, rng)
        if replayed is not None and replayed.information_state_string(player) == key:
            return replayed
        if fallback is None and _plays_to_an_end(world, rng):
            fallback = world
    return fallback


def _repaired(
    game: Any,
    moves: list[int],
    history: list[int],
    player: int,
    keys: list[str],
    rng: random.Random,
) -> Any:
    """``moves`` (a redealt world's history) replayed from the start, an illegal action of
    someone else replaced by one that keeps ``player``'s information state after it as in the
    true ``history`` (``keys``: those states, computed here on first need); ``None`` where
    none does or ``player``'s own action is illegal."""
    state = game.new_initial_state()
    for i, action in enumerate(moves):
        chance = state.is_chance_node()
        legal = [a for a, _ in state.chance_outcomes()] if chance else state.legal_actions()
        if action in legal:
            state.apply_action(action)
            continue
        if not chance and state.current_player() == player:
            return None
        if not keys:
            prefix = game.new_initial_state()
            for move in history:
                prefix.apply_action(move)
                keys.append(prefix.information_state_string(player))
        if i >= len(keys):
            return None
        rng.shuffle(legal)
        for option in legal:
            child = state.clone()
            child.apply_action(option)
            if child.information_state_string(player) == keys[i]:
                state = child
                break
        else:
            return None
    return state


def _plays_to_an_end(spiel: Any, rng: random.Random) -> bool:
    """Whether a random playout of a clone of ``spiel`` ends without a stuck position."""
    spiel = spiel.clone()
    while not spiel.is_terminal():
        if spiel.is_chance_node():
            spiel.apply_action(draw_outcome(spiel.chance_outcomes(), rng))
            continue
        actions = spiel.legal_actions()
        if not actions:
            return False
        spiel.apply_action(actions[int(rng.random() * len(actions))])
    return True


def game_parameters(game: str) -> dict[str, Any]:
    """The parameters of the registered OpenSpiel game ``game`` with their defaults (a game-valued
    parameter's default is ``{}``).

    Raises:
        InvalidParameterError: ``game`` is not a registered game's short name (naming the
            closest ones).
    """
    types = {t.short_name: t for t in import_pyspiel().registered_games()}
    if not isinstance(game, str):
        raise InvalidParameterError(
            f"game must be an OpenSpiel game's name (a str such as 'kuhn_poker'), got {game!r}"
        )
    if game not in types:
        close = [n for n in sorted(types) if game and game in n][:3]
        close = close or difflib.get_close_matches(game, list(types), n=3)
        hint = f"; did you mean {', '.join(map(repr, close))}?" if close else ""
        raise InvalidParameterError(
            f"unknown OpenSpiel game {game!r}; expected one of pyspiel.registered_names() "
            f"({len(types)} games){hint}"
        )
    return dict(types[game].parameter_specification)


def load_spiel_game(game: str, params: dict[str, Any]) -> Any:
    """``pyspiel.load_game(game, params)`` with its arguments checked first; no state is made.

    A game-valued parameter (``misere``'s ``game``, ``repeated_poker``'s
    ``universal_poker_game_string``) given as text is read as an OpenSpiel game string
    (``"tic_tac_toe()"``). Every game and parameter OpenSpiel has is loaded, files included:
    the spec layer (``mcts_agents.agents.openspiel_specs``) admits less.

    Raises:
        ModuleNotFoundError: OpenSpiel is not installed.
        InvalidParameterError: an unknown game or parameter, a value of the wrong type or one
            OpenSpiel refuses (with the game's parameters and defaults).
    """
    pyspiel = import_pyspiel()
    defaults = game_parameters(game)
    described = ", ".join(f"{k}={v!r}" for k, v in defaults.items()) or "none"
    unknown = sorted(set(params) - set(defaults))
    if unknown:
        raise InvalidParameterError(
            f"OpenSpiel's {game!r} has no parameter(s) {unknown}; its parameters: {described}"
        )
    loaded = dict(params)
    for key, value in params.items():
        if isinstance(defaults[key], dict) and isinstance(value, str):
            loaded[key] = pyspiel.game_parameters_from_string(value)
        elif not isinstance(value, (bool, int, float, str)):
            raise InvalidParameterError(
                f"{game} parameter {key}={value!r}: expected a bool, int, float or str "
                f"(default {defaults[key]!r})"
            )
    try:
        return pyspiel.load_game(game, loaded)
    except pyspiel.SpielError as error:
        given = ", ".join(f"{k}={v!r}" for k, v in params.items())
        reason = " ".join(str(error).split())
        raise InvalidParameterError(
            f"OpenSpiel refuses {game}({given}): {reason}; its parameters: {described}"
        ) from None


class SpielState:
    """An immutable state: the action history (its identity) and the ``pyspiel.State`` it leads
    to (read only; never applied to). Equal histories are equal states."""

    __slots__ = ("_hash", "history", "spiel")

    def __init__(self, history: tuple[int, ...], spiel: Any) -> None:
        self.history = history
        self.spiel = spiel
        self._hash = hash(history)

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SpielState) and self.history == other.history

    def __reduce__(self) -> tuple[Any, tuple[str, tuple[int, ...]]]:
        return (_replay, (str(self.spiel.get_game()), self.history))

    def __repr__(self) -> str:
        return f"SpielState(history={self.history})"


class OpenSpielCore(BoardGame[SpielState]):
    """A sequential ``pyspiel`` game as a rules core (see the module docstring).

    Args:
        game: an OpenSpiel game's short name (``pyspiel.registered_names()``).
        **params: the game's parameters, passed to ``pyspiel.load_game``.

    Raises:
        ModuleNotFoundError: OpenSpiel is not installed.
        InvalidParameterError: an unknown game (with the closest names), an unknown parameter
            or a value OpenSpiel refuses (with the game's parameters and defaults), or a game
            with simultaneous moves.
    """

    acyclic = True  # a state is its history: none repeats

    def __init__(self, game: str = "kuhn_poker", **params: Any) -> None:
        pyspiel = import_pyspiel()
        spiel_game = load_spiel_game(game, params)
        kind = spiel_game.get_type()
        if kind.dynamics != pyspiel.GameType.Dynamics.SEQUENTIAL:
            raise InvalidParameterError(
                f"OpenSpiel's {game!r} has simultaneous moves; this env plays sequential games "
                "(one player at a time)"
            )
        self.spiel_game = spiel_game
        self._game_name = game
        self._params = dict(params)
        self.name = f"openspiel_{game}"
        self.num_players = spiel_game.num_players()
        self.num_actions = spiel_game.num_distinct_actions()
        self.has_chance = kind.chance_mode != pyspiel.GameType.ChanceMode.DETERMINISTIC
        self.perfect_information = (
            kind.information == pyspiel.GameType.Information.PERFECT_INFORMATION
        )
        self.return_range = (float(spiel_game.min_utility()), float(spiel_game.max_utility()))
        try:  # what OpenSpiel checks only now (dots_and_boxes' num_cols=0, crossword's tensor)
            self._observe(kind, spiel_game)
            self._initial = SpielState((), spiel_game.new_initial_state())
            self.can_determinize = self.perfect_information or self._probe_determinize()
        except pyspiel.SpielError as error:
            reason = " ".join(str(error).split())
            raise InvalidParameterError(f"OpenSpiel cannot play {spiel_game}: {reason}") from None

    def _observe(self, kind: Any, spiel_game: Any) -> None:
        """``observation_kind`` and ``observation_shape``: the information state tensor where
        the game provides one, else its observation tensor, else none."""
        if kind.provides_information_state_tensor:
            self.observation_kind = "information_state_tensor"
            shape = spiel_game.information_state_tensor_shape()
        elif kind.provides_observation_tensor:
            self.observation_kind = "observation_tensor"
            shape = spiel_game.observation_tensor_shape()
        else:
            self.observation_kind = "none"
            shape = [0]
        self.observation_shape = (int(np.prod(shape)),)

    def _probe_determinize(self) -> bool:
        """Whether OpenSpiel redeals this game (``resample_from_infostate``): tried once a
        process per game (OpenSpiel prints its refusal on stderr) at the first decision of a
        seeded game."""
        known = _REDEALS.get(str(self.spiel_game))
        if known is not None:
            return known
        state = self.rollout_to_decision(self._initial, random.Random(0))
        known = True  # no decision at all: nothing to redeal
        try:
            if state is not None:
                state.spiel.resample_from_infostate(
                    state.spiel.current_player(), random.Random(0).random
                )
        except Exception:  # pyspiel.SpielError: "ResampleFromInfostate() not implemented"
            known = False
        _REDEALS[str(self.spiel_game)] = known
        return known

    def rollout_to_decision(self, state: SpielState, rng: random.Random) -> SpielState | None:
        """``state`` after chance outcomes drawn with ``rng`` up to a player's decision (None
        if the game ends first)."""
        while self.is_chance(state):
            state = self.next_state(state, self.sample_chance(state, rng))
        return None if self.is_terminal(state) else state

    # ----------------------------------------------------------------- the Game protocol
    def initial_state(self) -> SpielState:
        return self._initial

    def to_play(self, state: SpielState) -> int:
        player = int(state.spiel.current_player())
        return CHANCE if player == _SPIEL_CHANCE else player

    def legal_actions(self, state: SpielState) -> list[int]:
        return list(state.spiel.legal_actions())

    def next_state(self, state: SpielState, action: int) -> SpielState:
        child = state.spiel.clone()
        child.apply_action(action)
        return SpielState((*state.history, action), child)

    def is_terminal(self, state: SpielState) -> bool:
        return bool(state.spiel.is_terminal())

    def returns(self, state: SpielState) -> tuple[float, ...]:
        if not state.spiel.is_terminal():
            return (0.0,) * self.num_players
        return tuple(float(r) for r in state.spiel.returns())

    def key(self, state: SpielState) -> Hashable:
        return state.history

    def is_reachable(self, state: SpielState, key: Hashable) -> bool:
        """A history occurs later exactly when it extends ``state``'s."""
        history = state.history
        return isinstance(key, tuple) and key[: len(history)] == history

    def check_key(self, key: Any) -> None:
        if not isinstance(key, tuple) or not all(type(a) is int for a in key):
            raise InvalidStateError(f"key {short(key)} is not a history (a tuple of ints)")

    def check_state(self, state: Any) -> None:
        """A ``SpielState`` whose history OpenSpiel plays, move by move, to its own state."""
        if not isinstance(state, SpielState):
            raise InvalidStateError(
                f"state {short(state)} is not a SpielState of {self.name} (expected "
                "SpielState(history, pyspiel state))"
            )
        self.check_key(state.history)
        spiel = self.spiel_game.new_initial_state()
        for i, action in enumerate(state.history):
            legal = (
                [a for a, _ in spiel.chance_outcomes()]
                if spiel.is_chance_node()
                else spiel.legal_actions()
            )
            if action not in legal:
                raise InvalidStateError(
                    f"history {short(state.history)}: action {action} at move {i} is not legal "
                    f"in {self.name} (legal: {legal})"
                )
            spiel.apply_action(action)
        try:
            same = list(state.spiel.history()) == list(state.history) and str(
                state.spiel.get_game()
            ) == str(self.spiel_game)
        except Exception:
            same = False
        if not same:
            raise InvalidStateError(
                f"state's pyspiel state is not the one its history {short(state.history)} "
                f"leads to in {self.name}"
            )

    def rollout(self, state: SpielState, rng: random.Random) -> tuple[float, ...]:
        """Uniformly random play (chance by its probabilities) on one private clone."""
        spiel = state.spiel.clone()
        while not spiel.is_terminal():
            if spiel.is_chance_node():
                spiel.apply_action(draw_outcome(spiel.chance_outcomes(), rng))
                continue
            actions = spiel.legal_actions()
            if not actions:  # only in a world OpenSpiel redealt wrongly (see ``redeal``)
                raise InvalidStateError(
                    f"{self.name}: a player has no legal move before the end of the game in "
                    f"{spiel.history()}, a world OpenSpiel's resample_from_infostate made"
                )
            spiel.apply_action(actions[int(rng.random() * len(actions))])
        return tuple(float(r) for r in spiel.returns())

    # ----------------------------------------------------------------- chance and information
    def is_chance(self, state: SpielState) -> bool:
        return bool(state.spiel.is_chance_node())

    def chance_outcomes(self, state: SpielState) -> list[tuple[int, float]]:
        return [(int(a), float(p)) for a, p in state.spiel.chance_outcomes()]

    def information_set(self, state: SpielState, player: int) -> Hashable:
        if self.perfect_information:
            return state.history
        return str(state.spiel.information_state_string(player))

    def determinize(self, state: SpielState, player: int, rng: random.Random) -> SpielState:
        if self.perfect_information:
            return state
        if not self.can_determinize:
            raise InvalidStateError(
                f"OpenSpiel's {self._game_name!r} does not implement resample_from_infostate, "
                "so no state can be drawn from a player's information set"
            )
        world = redeal(state.spiel, player, rng)
        if world is None:
            raise InvalidStateError(
                f"OpenSpiel's resample_from_infostate for {self._game_name!r} gave no world "
                f"that plays on in {MAX_REDEALS} tries"
            )
        return SpielState(tuple(int(a) for a in world.history()), world)

    # ----------------------------------------------------------------- env-facing extras
    def is_legal(self, state: SpielState, action: int) -> bool:
        return not state.spiel.is_chance_node() and action in state.spiel.legal_actions()

    def observation(self, state: SpielState, player: int) -> np.ndarray:
        if self.observation_kind == "information_state_tensor":
            values = state.spiel.information_state_tensor(player)
        elif self.observation_kind == "observation_tensor":
            values = state.spiel.observation_tensor(player)
        else:
            values = []
        return np.asarray(values, dtype=np.float32)

    def render_text(self, state: SpielState) -> str:
        return str(state.spiel)

    def action_to_string(self, state: SpielState, action: int) -> str:
        player = state.spiel.current_player()
        try:
            return str(state.spiel.action_to_string(player, action))
        except Exception:  # a terminal state has no player to name the action
            return str(action)

    def params(self) -> dict[str, Hashable]:
        return {"game": self._game_name, **self._params}

    def __reduce__(self) -> tuple[Any, ...]:
        return (_make_core, (self._game_name, tuple(sorted(self._params.items()))))


def _make_core(game: str, params: tuple[tuple[str, Any], ...]) -> OpenSpielCore:
    return OpenSpielCore(game, **dict(params))
