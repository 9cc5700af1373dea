"""Pig, the dice game, with the rules and parameters of OpenSpiel's ``pig``.

On a turn the player rolls a die as often as it likes, adding each face to its turn total, until
it stops (the turn total is banked into its score) or rolls a 1 (the turn total is lost). Either
way the turn passes to the next player in seat order. The first score of ``winscore`` or more
wins; a player whose score plus turn total has reached ``winscore`` may only stop. The game also
ends after ``horizon`` player decisions (rolls and stops, not dice), as a draw.

Actions (OpenSpiel's ids): ``0`` roll, ``1`` stop. A roll leads to a chance node whose outcomes
are OpenSpiel's too: outcome ``i`` is face ``i + 1`` of a ``diceoutcomes``-sided die, each with
probability ``1 / diceoutcomes``; with ``piglet`` (a coin instead of a die) outcome ``0``, "a 1",
has probability ``1 / diceoutcomes`` and outcome ``1``, one point, the rest.

Returns (OpenSpiel's ``returns()``): the winner +1, every other player ``-1 / (players - 1)``; at
the horizon all 0. ``return_range`` is OpenSpiel's ``(min_utility, max_utility)`` = (-1, 1).

State: ``(moves, player, turn_total, node, scores)``: player decisions so far, the player whose
turn it is, its turn total, the node kind (``DECIDING``, ``ROLLING`` (a chance node) or
``OVER``) and the tuple of banked scores. ``moves`` is what OpenSpiel counts towards the
horizon; it rises with every decision, so no position repeats (``acyclic``). Without it, rolling
1s would cycle through the same scores and turn totals.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

import numpy as np

from mcts_agents.envs.core.checks import int_field, ints_field, invalid, state_fields
from mcts_agents.envs.core.errors import InvalidParameterError
from mcts_agents.envs.core.game import CHANCE, BoardGame
from mcts_agents.envs.core.params import MAX_COUNT, check_int

#: Bounds of the observation planes (``2 * players`` rows of ``winscore + 1`` cells) and dice.
MAX_WINSCORE = 10_000
MAX_DICE_OUTCOMES = 100

State = tuple[int, int, int, int, tuple[int, ...]]

ROLL, STOP = 0, 1
#: ``state[3]``: a player decides, the die is rolling (chance node), the game is over.
DECIDING, ROLLING, OVER = 0, 1, 2
#: Cells of the score track in ``grid`` (each cell stands for ``winscore / cells`` points).
TRACK_CELLS = 20


class Pig(BoardGame[State]):
    """Pig (OpenSpiel's ``pig``): roll to build a turn total, stop to bank it, a 1 loses it.

    Args:
        players: 2 to 10 players, seated in order; player 0 starts.
        winscore: the score that wins (>= 1).
        diceoutcomes: faces of the die (>= 2).
        horizon: the game is a draw after this many player decisions (>= 1).
        piglet: roll a coin-like die: every face but the 1 scores one point.
    """

    has_chance = True

    def __init__(
        self,
        players: int = 2,
        winscore: int = 100,
        diceoutcomes: int = 6,
        horizon: int = 1000,
        piglet: bool = False,
    ) -> None:
        self.num_players = check_int("players", players, 2, 10)
        self.winscore = check_int("winscore", winscore, 1, MAX_WINSCORE)
        self.diceoutcomes = check_int("diceoutcomes", diceoutcomes, 2, MAX_DICE_OUTCOMES)
        self.horizon = check_int("horizon", horizon, 1, MAX_COUNT)
        if not isinstance(piglet, (bool, np.bool_)):
            raise InvalidParameterError(f"piglet must be a bool, got {piglet!r}")
        self.piglet = bool(piglet)
        self.name = "pig"
        self.num_actions = 2
        self.return_range = (-1.0, 1.0)
        players = self.num_players
        #: rows 0..P-1 scores, rows P..2P-1 the turn total (observer first), winscore + 1 bins.
        self.observation_shape = (2 * players, self.winscore + 1)
        d = self.diceoutcomes
        #: points of each chance outcome (outcome 0, a 1, scores nothing: the turn is lost)
        self._points: tuple[int, ...]
        if self.piglet:
            self._outcomes = [(0, 1.0 / d), (1, 1.0 - 1.0 / d)]
            self._points = (0, 1)
        else:
            self._outcomes = [(i, 1.0 / d) for i in range(d)]
            self._points = (0, *range(2, d + 1))
        self._num_outcomes = len(self._outcomes)
        self._next = tuple((p + 1) % players for p in range(players))
        lose = -1.0 / (players - 1)
        self._wins = tuple(
            tuple(1.0 if q == p else lose for q in range(players)) for p in range(players)
        )
        self._draw = (0.0,) * players

    def params(self) -> dict[str, Hashable]:
        return {
            "players": self.num_players,
            "winscore": self.winscore,
            "diceoutcomes": self.diceoutcomes,
            "horizon": self.horizon,
            "piglet": self.piglet,
        }

    # ------------------------------------------------------------------ rules
    def initial_state(self) -> State:
        return (0, 0, 0, DECIDING, (0,) * self.num_players)

    def to_play(self, state: State) -> int:
        return CHANCE if state[3] == ROLLING else state[1]

    def is_chance(self, state: State) -> bool:
        return state[3] == ROLLING

    def chance_outcomes(self, state: State) -> list[tuple[int, float]]:
        if state[3] != ROLLING:
            raise TypeError(f"{self.name}: {state!r} is not a chance node")
        return list(self._outcomes)

    def sample_chance(self, state: State, rng: Any) -> int:
        u = rng.random()
        if self.piglet:
            return 0 if u < self._outcomes[0][1] else 1
        return min(int(u * self.diceoutcomes), self.diceoutcomes - 1)

    def legal_actions(self, state: State) -> list[int]:
        node = state[3]
        if node == DECIDING:
            if state[4][state[1]] + state[2] >= self.winscore:
                return [STOP]
            return [ROLL, STOP]
        if node == ROLLING:
            return list(range(self._num_outcomes))
        return []

    def is_legal(self, state: State, action: int) -> bool:
        node = state[3]
        if node == DECIDING:
            return action == STOP or (
                action == ROLL and state[4][state[1]] + state[2] < self.winscore
            )
        return node == ROLLING and 0 <= action < self._num_outcomes

    def next_state(self, state: State, action: int) -> State:
        moves, player, total, node, scores = state
        if node == ROLLING:
            if action == 0:  # a 1: the turn total is lost and the turn passes
                return (moves, self._next[player], 0, DECIDING, scores)
            return (moves, player, total + self._points[action], DECIDING, scores)
        moves += 1
        if action == ROLL:
            return (moves, player, total, ROLLING if moves < self.horizon else OVER, scores)
        score = scores[player] + total
        scores = (*scores[:player], score, *scores[player + 1 :])
        over = score >= self.winscore or moves >= self.horizon
        return (moves, self._next[player], 0, OVER if over else DECIDING, scores)

    def is_terminal(self, state: State) -> bool:
        return state[3] == OVER

    def returns(self, state: State) -> tuple[float, ...]:
        if state[3] == OVER:
            for player, score in enumerate(state[4]):
                if score >= self.winscore:
                    return self._wins[player]
        return self._draw

    def rollout(self, state: State, rng: Any) -> tuple[float, ...]:
        """Uniformly random play to the end, the die fair: ``BoardGame.rollout`` in one loop
        over plain ints. It draws ``rng.random()`` exactly where the generic loop does (one per
        die and one per decision, also when stopping is forced), so the same generator gives the
        same game (tests compare the two)."""
        return self._play(state, rng, 0)

    @property
    def hold(self) -> int:
        """The turn total at which ``decisive_rollout`` stops: a fifth of ``winscore`` (20 in
        the standard game, the classic "hold at 20"), at least 1."""
        return max(1, self.winscore // 5)

    def decisive_rollout(self, state: State, rng: Any) -> tuple[float, ...]:
        """The playout of ``playout="decisive"``: every player rolls until its turn total
        reaches ``hold`` or banking would win, the die fair. It draws where ``rollout`` does."""
        return self._play(state, rng, self.hold)

    def _play(self, state: State, rng: Any, hold: int) -> tuple[float, ...]:
        """Play to the end: each decision a fair coin (``hold == 0``) or roll below ``hold``."""
        moves, player, total, node, banked = state
        if node == OVER:
            return self.returns(state)
        rand = rng.random
        scores = list(banked)
        following, points, win, horizon = self._next, self._points, self.winscore, self.horizon
        faces, piglet, miss = self.diceoutcomes, self.piglet, self._outcomes[0][1]
        while True:
            if node == ROLLING:
                u = rand()
                outcome = (0 if u < miss else 1) if piglet else min(int(u * faces), faces - 1)
                if outcome == 0:
                    player, total = following[player], 0
                else:
                    total += points[outcome]
                node = DECIDING
                continue
            u = rand()
            moves += 1
            if scores[player] + total < win and (total < hold if hold else u < 0.5):  # roll
                if moves >= horizon:
                    break
                node = ROLLING
                continue
            score = scores[player] + total  # stop (forced at winscore)
            scores[player] = score
            if score >= win:
                return self._wins[player]
            if moves >= horizon:
                break
            player, total = following[player], 0
        return self._draw

    def check_state(self, state: object) -> None:
        """Counters in range; no score at ``winscore`` unless the game is over with a turn
        total of 0, no two; a live game below the horizon, a roll only below ``winscore``;
        scores and the turn total made of the die's points, in no fewer decisions than that
        takes. See ``BoardGame.check_state``."""
        name, players, win = self.name, self.num_players, self.winscore
        fields = ("moves", "player", "turn_total", "node", "scores")
        moves, player, total, node, scores = state_fields(name, state, fields)
        int_field(name, "moves", moves, 0, self.horizon)
        int_field(name, "player", player, 0, players - 1)
        top = win - 1 + max(self._points)  # the most points before a forced stop
        int_field(name, "turn_total", total, 0, top)
        int_field(name, "node", node, DECIDING, OVER)
        ints_field(name, "scores", scores, players, 0, top)
        winners = [p for p, score in enumerate(scores) if score >= win]
        if len(winners) > 1 or (winners and (node != OVER or total)):
            invalid(name, f"scores {scores} at {win} or more: only one, in a finished game")
        if winners and winners[0] != (player - 1) % players:
            invalid(
                name, f"player {winners[0]} won, so {self._next[winners[0]]} is next, not {player}"
            )
        if node != OVER and moves >= self.horizon:
            invalid(name, f"the game is not over at the horizon ({moves} moves)")
        if node == ROLLING and scores[player] + total >= win:
            invalid(name, f"a roll at {scores[player] + total} points: only stop is legal")
        if node == OVER and not winners and moves != self.horizon:
            invalid(name, f"over without a winner before the horizon ({moves} moves)")
        if not self.piglet and (total == 1 or 1 in scores):
            invalid(name, "1 point: every face that scores is worth 2 or more")
        rolls = -(-(sum(scores) + total) // max(self._points))
        if moves < rolls + (node == ROLLING):
            invalid(name, f"{moves} decisions cannot score {sum(scores) + total} points")

    def is_reachable(self, state: State, key: Hashable) -> bool:
        """Scores and the move counter never go down; a finished game reaches only itself."""
        if not isinstance(key, tuple) or len(key) != 5:
            return False
        if state[3] == OVER:
            return key == state
        if key[0] < state[0]:
            return False
        return all(later >= now for later, now in zip(key[4], state[4], strict=True))

    # ------------------------------------------------------------------ views
    def observation(self, state: State, player: int) -> np.ndarray:
        """One-hot bins (OpenSpiel's, the last one for ``>= winscore``) from ``player``'s view.

        Row ``j`` is the score of player ``(player + j) % players``; row ``players + j`` holds
        the turn total if that player is the one whose turn it is and is all zero otherwise (so
        it also says whose turn it is).
        """
        players, top = self.num_players, self.winscore
        planes = np.zeros(self.observation_shape, dtype=np.int8)
        scores = state[4]
        for j in range(players):
            planes[j, min(scores[(player + j) % players], top)] = 1
        planes[players + (state[1] - player) % players, min(state[2], top)] = 1
        return planes

    def grid(self, state: State) -> np.ndarray:
        """A score track per player (row ``p``, filled in ``p + 1``), then the turn total."""
        players, cells, top = self.num_players, TRACK_CELLS, self.winscore
        grid = np.zeros((players + 1, cells), dtype=np.int8)
        for player, score in enumerate(state[4]):
            grid[player, : min(cells, score * cells // top)] = player + 1
        grid[players, : min(cells, state[2] * cells // top)] = state[1] + 1
        return grid

    def render_text(self, state: State) -> str:
        moves, player, total, node, scores = state
        lines = [
            "Scores: " + " ".join(str(score) for score in scores),
            f"Turn total: {total}, move {moves} of {self.horizon}",
        ]
        if node == OVER:
            winners = [p for p, score in enumerate(scores) if score >= self.winscore]
            lines.append(
                f"player {winners[0]} wins" if winners else "draw: the horizon was reached"
            )
        else:
            lines.append(f"player {player} " + ("is rolling" if node == ROLLING else "to play"))
        return "\n".join(lines)

    def action_to_string(self, state: State, action: int) -> str:
        """OpenSpiel's names: ``roll``, ``stop``, and ``Roll <face>`` for an outcome."""
        if state[3] == ROLLING:
            return f"Roll {action if self.piglet else action + 1}"
        return "roll" if action == ROLL else "stop"
