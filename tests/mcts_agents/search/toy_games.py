"""Tiny games with chance and hidden information whose values are known by hand.

- ``Gamble``: player 0 takes a sure ``safe`` or gambles on a biased coin: win ``+1`` with
  probability ``p``, else ``-1``. Expected value of the gamble: ``2p - 1``.
- ``GuessCard``: a card from ``cards`` is dealt face down to nobody; player 0 guesses it (+1 if
  right, -1 if wrong) after player 1, who sees the card, makes a move that says nothing. A
  player who cannot see the card guesses right with probability ``1 / cards``; one that reads
  the card always does.
- ``DiceAfter``: player 0 calls a number, then a die is rolled; +1 if it matches, else -1. No
  call is better than another; a search that read the env's future roll would always match.
"""

from __future__ import annotations

import random
from collections.abc import Hashable
from typing import Any, ClassVar

import numpy as np

from mcts_agents.envs.core.aec import BoardGameEnv
from mcts_agents.envs.core.game import CHANCE, BoardGame

GambleState = tuple[int, int]  # (stage 0 decide / 1 coin / 2 over, result: +1, -1, 0 safe)


class Gamble(BoardGame[GambleState]):
    """Action 0 = safe (returns ``safe``), 1 = gamble (a coin: 0 = win w.p. ``p``, 1 = lose)."""

    has_chance = True

    def __init__(self, p: float = 0.7, safe: float = 0.2, scale: float = 1.0) -> None:
        self.p, self.safe, self.scale = p, safe, scale
        self.name = "gamble"
        self.num_players = 2
        self.num_actions = 2
        self.observation_shape = (3,)
        self.return_range = (-scale, scale)

    def params(self) -> dict[str, Hashable]:
        return {"p": self.p, "safe": self.safe, "scale": self.scale}

    def initial_state(self) -> GambleState:
        return (0, 0)

    def to_play(self, state: GambleState) -> int:
        return CHANCE if state[0] == 1 else 0

    def is_chance(self, state: GambleState) -> bool:
        return state[0] == 1

    def chance_outcomes(self, state: GambleState) -> list[tuple[int, float]]:
        return [(0, self.p), (1, 1.0 - self.p)]

    def legal_actions(self, state: GambleState) -> list[int]:
        return [] if state[0] == 2 else [0, 1]

    def next_state(self, state: GambleState, action: int) -> GambleState:
        if state[0] == 0:
            return (1, 0) if action == 1 else (2, 0)
        return (2, 1 if action == 0 else -1)

    def is_terminal(self, state: GambleState) -> bool:
        return state[0] == 2

    def returns(self, state: GambleState) -> tuple[float, ...]:
        value = self.safe if state[1] == 0 else float(state[1])
        return (value * self.scale, -value * self.scale)

    def observation(self, state: GambleState, player: int) -> np.ndarray:
        return np.eye(3, dtype=np.int8)[state[0]]

    def render_text(self, state: GambleState) -> str:
        return repr(state)


GuessState = tuple[int, int, int]  # (card or -1 before the deal, player 1 moved, guess or -1)


class GuessCard(BoardGame[GuessState]):
    """Chance deals ``card``; player 1 (who sees it) passes; player 0 guesses the card."""

    has_chance = True
    perfect_information = False

    def __init__(self, cards: int = 3) -> None:
        self.cards = cards
        self.name = "guess_card"
        self.num_players = 2
        self.num_actions = cards
        self.observation_shape = (cards + 2,)

    def params(self) -> dict[str, Hashable]:
        return {"cards": self.cards}

    def initial_state(self) -> GuessState:
        return (-1, 0, -1)

    def is_chance(self, state: GuessState) -> bool:
        return state[0] < 0

    def chance_outcomes(self, state: GuessState) -> list[tuple[int, float]]:
        return [(c, 1.0 / self.cards) for c in range(self.cards)]

    def to_play(self, state: GuessState) -> int:
        if state[0] < 0:
            return CHANCE
        return 0 if state[1] else 1

    def legal_actions(self, state: GuessState) -> list[int]:
        if state[0] < 0:
            return list(range(self.cards))
        if state[2] >= 0:
            return []
        return list(range(self.cards)) if state[1] else [0]

    def next_state(self, state: GuessState, action: int) -> GuessState:
        card, moved, _ = state
        if card < 0:
            return (action, 0, -1)
        if not moved:
            return (card, 1, -1)
        return (card, 1, action)

    def is_terminal(self, state: GuessState) -> bool:
        return state[2] >= 0

    def returns(self, state: GuessState) -> tuple[float, ...]:
        right = state[2] == state[0]
        return (1.0, -1.0) if right else (-1.0, 1.0)

    def information_set(self, state: GuessState, player: int) -> Hashable:
        card, moved, guess = state
        return (card if player == 1 else None, moved, guess)

    def determinize(self, state: GuessState, player: int, rng: random.Random) -> GuessState:
        if player == 1:
            return state
        return (int(rng.random() * self.cards), state[1], state[2])

    def observation(self, state: GuessState, player: int) -> np.ndarray:
        planes = np.zeros(self.cards + 2, dtype=np.int8)
        if player == 1 and state[0] >= 0:
            planes[state[0]] = 1
        planes[self.cards] = state[1]
        planes[self.cards + 1] = state[2] >= 0
        return planes

    def render_text(self, state: GuessState) -> str:
        return repr(state)


DiceState = tuple[int, int]  # (call or -1, roll or -1)


class DiceAfter(BoardGame[DiceState]):
    """Player 0 calls 0-5, then a die (0-5) is rolled; +1 on a match, else -1."""

    has_chance = True

    def __init__(self) -> None:
        self.name = "dice_after"
        self.num_players = 2
        self.num_actions = 6
        self.observation_shape = (2,)

    def params(self) -> dict[str, Hashable]:
        return {}

    def initial_state(self) -> DiceState:
        return (-1, -1)

    def is_chance(self, state: DiceState) -> bool:
        return state[0] >= 0 and state[1] < 0

    def chance_outcomes(self, state: DiceState) -> list[tuple[int, float]]:
        return [(face, 1 / 6) for face in range(6)]

    def to_play(self, state: DiceState) -> int:
        return CHANCE if self.is_chance(state) else 0

    def legal_actions(self, state: DiceState) -> list[int]:
        return [] if state[1] >= 0 else list(range(6))

    def next_state(self, state: DiceState, action: int) -> DiceState:
        return (action, -1) if state[0] < 0 else (state[0], action)

    def is_terminal(self, state: DiceState) -> bool:
        return state[1] >= 0

    def returns(self, state: DiceState) -> tuple[float, ...]:
        return (1.0, -1.0) if state[0] == state[1] else (-1.0, 1.0)

    def observation(self, state: DiceState, player: int) -> np.ndarray:
        return np.array(state, dtype=np.int8)

    def render_text(self, state: DiceState) -> str:
        return repr(state)


class ToyEnv(BoardGameEnv):
    """Any toy game above as a PettingZoo AEC env (the env draws chance with its generator)."""

    metadata: ClassVar[dict[str, Any]] = {**BoardGameEnv.metadata, "render_modes": ["ansi"]}
