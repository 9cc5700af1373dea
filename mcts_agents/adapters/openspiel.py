"""OpenSpiel games through Shimmy's ``OpenSpielCompatibilityV0``: a ``Game`` over pyspiel states.

Sequential games only. Chance nodes (``pig``, ``backgammon``) are chance nodes of the search,
drawn with its own generator. Kuhn poker and Leduc hold'em are read into our rules cores of the
same rules (``rules_core``), so they get the compiled ISMCTS as our own envs do. Other games
with private information (``euchre``, ``oh_hell``, ``hearts``, ``gin_rummy``, ``bridge``) are
searched by Information Set MCTS through OpenSpiel's ``information_state_string`` and
``resample_from_infostate`` (called with the search's generator); a game that does not
implement the latter, and a game with simultaneous moves, is refused with a ``CloneError``
saying what is missing.

Shimmy 2.0 counts the dealt cards towards OpenSpiel's ``max_game_length``, which counts player
moves only, so it truncates card games early (Kuhn poker after the first bet); a search of such
an env raises ``GameOverError`` saying so and naming ``mcts_agents.envs.openspiel_v0``, our env
for any OpenSpiel game, which plays to the end.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Hashable
from typing import Any

from mcts_agents.adapters.aec import bookkeeping, check_live
from mcts_agents.envs.core.game import CHANCE, draw_outcome
from mcts_agents.envs.games.kuhn_poker import KuhnPoker
from mcts_agents.envs.games.leduc_holdem import LeducHoldem
from mcts_agents.envs.games.openspiel import MAX_REDEALS, redeal
from mcts_agents.errors import (
    CloneError,
    GameOverError,
    IllegalActionError,
    InvalidStateError,
    NoLegalActionError,
    NotResetError,
)

__all__ = ["OpenSpielGame", "openspiel_env_type", "openspiel_game"]

_OPENSPIEL_CHANCE = -1  # pyspiel's kChancePlayerId


def openspiel_env_type() -> type | None:
    """Shimmy's OpenSpiel env class if Shimmy is loaded (an env of it implies it is)."""
    module = sys.modules.get("shimmy.openspiel_compatibility")
    return getattr(module, "OpenSpielCompatibilityV0", None)


class OpenSpielGame:
    """``Game`` over ``pyspiel`` states of a sequential game.

    States are ``pyspiel.State`` objects, never mutated: ``next_state`` clones then applies.
    Player ``i`` of OpenSpiel is ``possible_agents[i]`` of Shimmy's env (``"player_i"``). The key
    is ``(current player, str(state))``: OpenSpiel's text of a board game's position, equal for
    transposed move orders (``serialize()`` is the move history, which is not). Chance nodes are
    OpenSpiel's (``to_play`` is ``CHANCE`` there); returns range over
    ``[min_utility, max_utility]``. In a game with private information, ``information_set`` is
    OpenSpiel's ``information_state_string`` and ``determinize`` its
    ``resample_from_infostate``, drawing with the search's generator.
    """

    def __init__(self, game: Any) -> None:
        import pyspiel  # present: a game of it exists

        self.game = game
        kind = game.get_type()
        self.num_players: int = game.num_players()
        self.spec = ("openspiel", str(game))
        self.has_chance = kind.chance_mode != pyspiel.GameType.ChanceMode.DETERMINISTIC
        self.perfect_information = (
            kind.information == pyspiel.GameType.Information.PERFECT_INFORMATION
        )
        self.return_range = (float(game.min_utility()), float(game.max_utility()))

    def initial_state(self) -> Any:
        """OpenSpiel's initial state (``search_from="start"`` plays from it)."""
        return self.game.new_initial_state()

    def to_play(self, state: Any) -> int:
        player = int(state.current_player())
        return CHANCE if player == _OPENSPIEL_CHANCE else player

    def is_chance(self, state: Any) -> bool:
        return bool(state.is_chance_node())

    def chance_outcomes(self, state: Any) -> list[tuple[int, float]]:
        return [(int(a), float(p)) for a, p in state.chance_outcomes()]

    def legal_actions(self, state: Any) -> list[int]:
        return list(state.legal_actions())

    def next_state(self, state: Any, action: int) -> Any:
        if action not in state.legal_actions():
            raise IllegalActionError(
                f"{self.game}: action {action} is not legal here; legal: {state.legal_actions()}"
            )
        child = state.clone()
        child.apply_action(action)
        return child

    def is_terminal(self, state: Any) -> bool:
        return bool(state.is_terminal())

    def returns(self, state: Any) -> tuple[float, ...]:
        return tuple(state.returns())

    def key(self, state: Any) -> Hashable:
        return (state.current_player(), str(state))

    def information_set(self, state: Any, player: int) -> Hashable:
        return str(state.information_state_string(player))

    def determinize(self, state: Any, player: int, rng: random.Random) -> Any:
        """OpenSpiel's redeal, kept where the play allows it (``envs.games.openspiel.redeal``:
        its hearts and euchre redeals ignore the suits a player showed it lacks)."""
        world = redeal(state, player, rng)
        if world is None:
            raise InvalidStateError(
                f"OpenSpiel's resample_from_infostate for {self.game} gave no world that plays "
                f"on in {MAX_REDEALS} tries"
            )
        return world

    def rollout(self, state: Any, rng: random.Random) -> tuple[float, ...]:
        """Uniformly random playout on one private clone (chance by its probabilities)."""
        state = state.clone()
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(draw_outcome(state.chance_outcomes(), rng))
                continue
            actions = state.legal_actions()
            state.apply_action(actions[int(rng.random() * len(actions))])
        return tuple(state.returns())


def openspiel_game(env: Any, raw: Any) -> tuple[Any, Any]:
    """The game and a clone of the current ``pyspiel`` state of Shimmy's env ``env`` (or our
    rules core and its state, for the games ``rules_core`` knows)."""
    agents, selected, terminations, truncations = bookkeeping(env)
    if not hasattr(raw, "game_state"):
        raise NotResetError(f"{type(raw).__name__} has no game in progress; call env.reset()")
    _check_not_cut_short(raw, truncations)
    check_live(env, agents, selected, terminations, truncations)
    import pyspiel  # present: Shimmy's OpenSpiel module imports it

    state = raw.game_state
    game = state.get_game()
    kind = game.get_type()
    if kind.dynamics != pyspiel.GameType.Dynamics.SEQUENTIAL:
        raise CloneError(
            f"{type(raw).__name__} plays OpenSpiel's {kind.short_name!r}, which has "
            "simultaneous moves; the search supports sequential games (one player at a time)"
        )
    if state.is_terminal():
        raise GameOverError(f"the game in {env} is over")
    expected = [f"player_{i}" for i in range(game.num_players())]
    player = state.current_player()
    if list(env.possible_agents) != expected or not 0 <= player < len(expected):
        raise CloneError(
            f"{type(raw).__name__}: agents {env.possible_agents} do not map onto OpenSpiel "
            f"players {expected} (current player {player})"
        )
    if selected != expected[player]:
        raise CloneError(
            f"{type(raw).__name__}: agent to move {selected!r} is not OpenSpiel's current player "
            f"{player}"
        )
    if not state.legal_actions():
        raise NoLegalActionError(f"{selected} has no legal action in {env}")
    ours = rules_core(game)
    if ours is not None:  # the same rules and ids: searched on our core (compiled where it can)
        return ours, ours.apply(ours.initial_state(), state.history())
    adapted = OpenSpielGame(game)
    if not adapted.perfect_information:
        _check_resampling(state, player, kind.short_name, type(raw).__name__)
    return adapted, state.clone()


def rules_core(game: Any) -> Any:
    """Our rules core of OpenSpiel's ``game`` where one has its very rules, action ids and
    chance outcomes (tested move for move against OpenSpiel): Kuhn poker and Leduc hold'em,
    whose states are OpenSpiel's histories replayed, searched by the compiled ISMCTS for two
    players. ``None`` for any other game."""
    name = game.get_type().short_name
    params = dict(game.get_parameters())
    if name == "kuhn_poker" and set(params) <= {"players"}:
        return KuhnPoker(**params)
    if name == "leduc_poker" and set(params) <= {
        "players",
        "action_mapping",
        "suit_isomorphism",
        "starting_player",
    }:
        return LeducHoldem(**params)
    return None


def _check_not_cut_short(raw: Any, truncations: Any) -> None:
    """``GameOverError`` saying why, where Shimmy truncated a game OpenSpiel has not ended."""
    state = raw.game_state
    if not any(dict(truncations or {}).values()) or state.is_terminal():
        return
    game = state.get_game()
    name = game.get_type().short_name
    params = dict(game.get_parameters())
    options = "".join(f", {k}={v!r}" for k, v in params.items())
    spec = ",".join(f"{k}={v}" for k, v in params.items())
    raise GameOverError(
        f"{type(raw).__name__} truncated OpenSpiel's {name!r} after {len(state.history())} "
        f"actions though OpenSpiel's game is not over: Shimmy counts the dealt cards and dice "
        f"towards OpenSpiel's max_game_length ({game.max_game_length()}), which counts player "
        f"moves only. mcts_agents.envs.openspiel_v0.env(game={name!r}{options}) plays "
        f"OpenSpiel's games to their end (env spec 'openspiel:{name}{':' if spec else ''}{spec}')"
    )


def _check_resampling(state: Any, player: int, name: str, env_name: str) -> None:
    """``CloneError`` unless OpenSpiel can redeal ``state``'s hidden information for ``player``."""
    try:
        state.information_state_string(player)
        state.resample_from_infostate(player, random.Random(0).random)
    except Exception as error:  # pyspiel.SpielError: "... not implemented"
        raise CloneError(
            f"{env_name} plays OpenSpiel's {name!r}, which hides information but does not "
            f"implement information_state_string and resample_from_infostate ({error}); "
            "Information Set MCTS needs both to search without reading hidden state "
            "(information='oracle' searches the true state, a cheat, only on purpose)"
        ) from None
