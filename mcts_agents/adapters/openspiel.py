"""OpenSpiel games through Shimmy's ``OpenSpielCompatibilityV0``: a ``Game`` over pyspiel states.

Deterministic, sequential, perfect-information games only; the others are refused with a
``CloneError`` naming what the search would otherwise see (hidden state, the env's dice).
"""

from __future__ import annotations

import random
import sys
from collections.abc import Hashable
from typing import Any

from mcts_agents.aec import bookkeeping, check_live
from mcts_agents.errors import (
    CloneError,
    GameOverError,
    IllegalActionError,
    NoLegalActionError,
    NotResetError,
)

__all__ = ["OpenSpielGame", "openspiel_env_type", "openspiel_game"]


def openspiel_env_type() -> type | None:
    """Shimmy's OpenSpiel env class if Shimmy is loaded (an env of it implies it is)."""
    module = sys.modules.get("shimmy.openspiel_compatibility")
    return getattr(module, "OpenSpielCompatibilityV0", None)


class OpenSpielGame:
    """``Game`` over ``pyspiel`` states of a deterministic, sequential, perfect-information game.

    States are ``pyspiel.State`` objects, never mutated: ``next_state`` clones then applies.
    Player ``i`` of OpenSpiel is ``possible_agents[i]`` of Shimmy's env (``"player_i"``). The key
    is ``(current player, str(state))``: OpenSpiel's text of a board game's position, equal for
    transposed move orders (``serialize()`` is the move history, which is not).
    """

    def __init__(self, game: Any) -> None:
        self.game = game
        self.num_players: int = game.num_players()

    def to_play(self, state: Any) -> int:
        return int(state.current_player())

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

    def rollout(self, state: Any, rng: random.Random) -> tuple[float, ...]:
        """Uniformly random playout on one private clone (same moves as ``default_rollout``)."""
        state = state.clone()
        while not state.is_terminal():
            actions = state.legal_actions()
            state.apply_action(actions[int(rng.random() * len(actions))])
        return tuple(state.returns())


def openspiel_game(env: Any, raw: Any) -> tuple[OpenSpielGame, Any]:
    """The game and a clone of the current ``pyspiel`` state of Shimmy's env ``env``."""
    agents, selected, terminations, truncations = bookkeeping(env)
    if not hasattr(raw, "game_state"):
        raise NotResetError(f"{type(raw).__name__} has no game in progress; call env.reset()")
    check_live(env, agents, selected, terminations, truncations)
    import pyspiel  # present: Shimmy's OpenSpiel module imports it

    state = raw.game_state
    game = state.get_game()
    kind = game.get_type()
    refusals = []
    if kind.dynamics != pyspiel.GameType.Dynamics.SEQUENTIAL:
        refusals.append("simultaneous moves")
    if kind.chance_mode != pyspiel.GameType.ChanceMode.DETERMINISTIC:
        refusals.append("chance nodes (the search would see the env's future dice)")
    if kind.information != pyspiel.GameType.Information.PERFECT_INFORMATION:
        refusals.append("imperfect information (the search would see hidden state)")
    if refusals:
        raise CloneError(
            f"{type(raw).__name__} plays OpenSpiel's {kind.short_name!r}, which has "
            f"{' and '.join(refusals)}; the search supports deterministic, sequential, "
            "perfect-information games"
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
    return OpenSpielGame(game), state.clone()
