"""AlphaZero self-play: one game of the Python search against itself, recorded for training.

``play_selfplay_game`` plays a game with ``MCTS`` (PUCT over a batch evaluator's priors and
values, Dirichlet noise at the root) and returns a ``GameRecord``: per position the mover's
observation, the legal mask, the root's visit distribution (the policy target), the mover, and
at the end the value target, the final return from that position's mover's view.

With ``config.selection="gumbel"`` it is Gumbel AlphaZero's self-play (Danihelka et al. 2022):
Gumbel search (``mcts_agents.search.gumbel``), no Dirichlet noise (the root's Gumbel draw
explores), each move the search's own (``SearchResult.best_action``, a draw: the temperature
schedule is not used), and the improved policy as the policy target.

Options, each seeded by the game's ``seed`` (same seed, same record):

- a temperature schedule ``(moves, t_early, t_late)``: moves drawn from the visits at
  ``t_early`` for the first ``moves`` plies, at ``t_late`` after (0: the most visited move);
- playout-cap randomisation (KataGo, Wu 2019), ``PlayoutCap(full_probability, fast_simulations)``:
  each move is a full search of ``simulations`` with probability ``full_probability`` (its
  visits are a policy target), else a fast search of ``fast_simulations`` without root noise,
  which only chooses the move (``GameRecord.full_search`` tells them apart);
- resignation, ``Resign(threshold, disabled_fraction)``: the mover resigns when the root's value
  and its best child's value are both below ``threshold``; in a ``disabled_fraction`` of games
  (drawn per game) nobody resigns, and the record says whether the first would-be resignation
  was a false positive (the side that would have resigned did not lose).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import numpy as np

from mcts_agents.alphazero.targets import check_temperature, policy_target, select_move
from mcts_agents.checks import (
    check_instance,
    check_int,
    check_number,
    check_probability,
    check_seed,
)
from mcts_agents.errors import InvalidOptionError, InvalidStateError
from mcts_agents.planner.factory import make_searcher
from mcts_agents.search.config import Budget, SearchConfig
from mcts_agents.search.evaluators import check_batch_game, evaluator_name, is_batch_evaluator
from mcts_agents.search.game import is_perfect_information, return_normalizer
from mcts_agents.search.mcts import MCTS
from mcts_agents.search.result import SearchResult
from mcts_agents.seeding import derive_seed

__all__ = [
    "DEFAULT_SELFPLAY_CONFIG",
    "GameRecord",
    "PlayoutCap",
    "Resign",
    "TemperatureSchedule",
    "play_selfplay_game",
    "play_teacher_game",
    "require_perfect_information",
    "wants_to_resign",
]


def require_perfect_information(game: Any, what: str) -> None:
    """``InvalidStateError`` for a game with hidden information (``perfect_information`` is
    False): self-play, the teacher and the gate search the true state with the perfect-
    information search (``MCTS``), which would read what the player to move cannot see (the
    opponent's cards or stones) and learn from it."""
    if not is_perfect_information(game):
        raise InvalidStateError(
            f"{what} plays perfect-information games only; {game!r} has hidden information "
            "(perfect_information is False), and its search would read the true hidden state "
            "that the player to move cannot see. Play such games with an information-set "
            "search (ismcts, pimc)"
        )


#: ``play_selfplay_game``'s search when none is given: PUCT with AlphaZero's root noise.
DEFAULT_SELFPLAY_CONFIG = SearchConfig(selection="puct", root_noise=(0.3, 0.25))
#: ``GameRecord.actions`` of the position where the mover resigned.
RESIGNED = -1


@dataclass(frozen=True, slots=True)
class TemperatureSchedule:
    """Move temperatures: ``early`` for the first ``moves`` plies, ``late`` after.

    Attributes:
        moves: plies played at ``early`` (an int >= 0).
        early: temperature of those plies (AlphaZero: 1, moves in proportion to visits).
        late: temperature after them (AlphaZero: 0, the most visited move).
    """

    moves: int
    early: float = 1.0
    late: float = 0.0

    def __post_init__(self) -> None:
        check_int(self.moves, "the temperature schedule's moves", low=0)
        check_temperature(self.early, "the temperature schedule's t_early")
        check_temperature(self.late, "the temperature schedule's t_late")

    @classmethod
    def of(cls, schedule: Any) -> TemperatureSchedule:
        """``schedule`` itself, or one from a tuple ``(moves, t_early, t_late)``."""
        if isinstance(schedule, cls):
            return schedule
        if not isinstance(schedule, (tuple, list)) or len(schedule) != 3:
            raise InvalidOptionError(
                "temperature_schedule must be a TemperatureSchedule or a tuple (moves, t_early, "
                f"t_late), got {schedule!r}"
            )
        return cls(*schedule)

    def at(self, ply: int) -> float:
        """The temperature of ply ``ply`` (0-based)."""
        return self.early if ply < self.moves else self.late


@dataclass(frozen=True, slots=True)
class PlayoutCap:
    """Playout-cap randomisation: a full search with probability ``full_probability``, else a
    fast one of ``fast_simulations`` (fewer than the full search's, no root noise)."""

    full_probability: float
    fast_simulations: int

    def __post_init__(self) -> None:
        check_probability(self.full_probability, "PlayoutCap's full_probability")
        check_int(self.fast_simulations, "PlayoutCap's fast_simulations", low=1)


@dataclass(frozen=True, slots=True)
class Resign:
    """Resignation: below ``threshold`` (the mover's value, in [-1, 1]) at the root and at its
    best child; never in a ``disabled_fraction`` of games, to measure false positives."""

    threshold: float
    disabled_fraction: float = 0.1

    def __post_init__(self) -> None:
        check_number(self.threshold, "Resign's threshold", low=-1, high=1)
        check_probability(self.disabled_fraction, "Resign's disabled_fraction")


@dataclass(frozen=True, slots=True, eq=False)
class GameRecord:
    """One self-play game, position by position (``T`` positions, ``A = num_actions``).

    Attributes:
        observations: ``[T, *observation_shape]``, each from its mover's view.
        legal_masks: ``[T, A]`` bool.
        policies: ``[T, A]`` float32, the root's visit distribution (0 on illegal and unvisited
            actions, summing to 1), or after a Gumbel search its improved policy (0 on illegal
            actions); a policy target where ``full_search``.
        values: ``[T]`` float32, the final return of each position's mover (in [-1, 1]).
        movers: ``[T]`` int64, the player to move.
        actions: ``[T]`` int64, the move played, ``RESIGNED`` (-1) where the mover resigned.
        full_search: ``[T]`` bool: a full search (policy target) or a fast one.
        iterations: ``[T]`` int64, simulations run by each search (fewer where the solver
            proved the root).
        root_values: ``[T]`` float32, each search's root value for the mover.
        returns: the final returns, normalised to [-1, 1] (after a resignation: -1 for the
            player who resigned, +1 for the other).
        seed: the game's seed.
        resigned: the player who resigned, or ``None``.
        resignation_enabled: whether anyone could resign in this game (``False`` without
            ``resign``, or in a game drawn to have it disabled).
        resignation_ply: the first ply where the resignation rule fired, or ``None``.
        resignation_player: the player it fired for, or ``None``.
        false_positive: in a game with resignation disabled where the rule fired: whether that
            player did not lose in the end (a draw or a win); else ``None``.
    """

    observations: np.ndarray
    legal_masks: np.ndarray
    policies: np.ndarray
    values: np.ndarray
    movers: np.ndarray
    actions: np.ndarray
    full_search: np.ndarray
    iterations: np.ndarray
    root_values: np.ndarray
    returns: tuple[float, ...]
    seed: int
    resigned: int | None = None
    resignation_enabled: bool = False
    resignation_ply: int | None = None
    resignation_player: int | None = None
    false_positive: bool | None = None

    def __len__(self) -> int:
        return len(self.actions)


def wants_to_resign(result: SearchResult, threshold: float) -> bool:
    """The resignation rule: the root's value and its best visited (or proven) child's value,
    both for the mover, are below ``threshold``. Never with no child visited."""
    values = [c.value for c in result.children if c.visits > 0 or c.proven is not None]
    return bool(values) and result.root_value < threshold and max(values) < threshold


def _selfplay_config(config: SearchConfig | None, evaluator: Any) -> SearchConfig:
    config = DEFAULT_SELFPLAY_CONFIG if config is None else config
    check_instance(config, "config", SearchConfig, optional=True)
    if config.selection not in ("puct", "gumbel"):
        raise InvalidOptionError(
            f"self-play searches with PUCT or Gumbel search over the evaluator's priors; "
            f"config.selection must be 'puct' or 'gumbel', got {config.selection!r}"
        )
    if config.evaluator is not None and config.evaluator is not evaluator:
        raise InvalidOptionError(
            f"config.evaluator is {evaluator_name(config.evaluator)}, not the evaluator given "
            f"({evaluator_name(evaluator)}); leave config.evaluator None"
        )
    return dataclasses.replace(config, evaluator=evaluator, backend="python")


def play_selfplay_game(
    game: Any,
    evaluator: Any,
    config: SearchConfig | None,
    simulations: int,
    temperature_schedule: TemperatureSchedule | tuple[int, float, float],
    seed: int,
    playout_cap: PlayoutCap | None = None,
    resign: Resign | None = None,
) -> GameRecord:
    """Play one game of ``game`` by self-play and record it (see the module).

    Args:
        game: a rules core with ``observation(state, player)`` and ``num_actions``, one or two
            players, no chance nodes (what a batch evaluator can evaluate).
        evaluator: a batch evaluator (``evaluate_batch(observations, legal_masks)``).
        config: the search (``selection="puct"``, its ``root_noise`` in full searches; or
            ``"gumbel"``, see the module);
            ``None``: ``DEFAULT_SELFPLAY_CONFIG``. Its evaluator is ``evaluator``; the search
            is the Python one (``MCTS``), with tree reuse as ``config.reuse`` says.
        simulations: simulations of each (full) search.
        temperature_schedule: ``(moves, t_early, t_late)`` or a ``TemperatureSchedule``.
        seed: seeds every random choice of the game (searches, moves, caps, resignation).
        playout_cap: playout-cap randomisation, or ``None``: every search is full.
        resign: resignation (two-player games), or ``None``: games are played out.

    Raises:
        InvalidOptionError: a bad option, named with its value and what was expected.
        InvalidStateError: a game with hidden information (``require_perfect_information``).
    """
    require_perfect_information(game, "self-play")
    if not is_batch_evaluator(evaluator):
        raise InvalidOptionError(
            f"self-play needs a batch evaluator (an object with evaluate_batch(observations, "
            f"legal_masks)), got {evaluator!r}"
        )
    check_batch_game(game, evaluator)
    config = _selfplay_config(config, evaluator)
    simulations = check_int(simulations, "simulations", low=1)
    schedule = TemperatureSchedule.of(temperature_schedule)
    check_seed(seed)
    check_instance(playout_cap, "playout_cap", PlayoutCap, optional=True)
    if playout_cap is not None and playout_cap.fast_simulations > simulations:
        raise InvalidOptionError(
            f"PlayoutCap's fast_simulations ({playout_cap.fast_simulations}) must not exceed "
            f"simulations ({simulations})"
        )
    if resign is not None and (not isinstance(resign, Resign) or game.num_players != 2):
        raise InvalidOptionError(
            f"resign must be a Resign (for a two-player game) or None, got {resign!r} for "
            f"{game.num_players} player(s)"
        )
    return _SelfPlay(game, config, simulations, schedule, seed, playout_cap, resign).play()


def play_teacher_game(
    game: Any,
    iterations: int,
    temperature_schedule: TemperatureSchedule | tuple[int, float, float],
    seed: int,
    config: SearchConfig | None = None,
) -> GameRecord:
    """One game of plain MCTS (no network) against itself, recorded as ``play_selfplay_game``
    records one: Expert Iteration's data (Anthony, Tian and Barber, 2017), the expert's visit
    distributions as policy targets and its results (and root values) as value targets.

    Args:
        game: as for ``play_selfplay_game``.
        iterations: simulations of each search.
        temperature_schedule: ``(moves, t_early, t_late)``: moves drawn from the visits.
        seed: seeds the searches and the moves.
        config: the expert's search (``None``: ``SearchConfig()``: UCB1 with the game's
            playouts, on its compiled kernel where one exists, ``factory.make_searcher``); no
            evaluator.

    Raises:
        InvalidOptionError: a bad option, named with its value and what was expected.
        InvalidStateError: a game with hidden information (``require_perfect_information``).
    """
    require_perfect_information(game, "the teacher's self-play")
    config = SearchConfig() if config is None else config
    if not isinstance(config, SearchConfig) or config.evaluator is not None:
        raise InvalidOptionError(
            f"the teacher's config must be a SearchConfig without an evaluator, got {config!r}"
        )
    iterations = check_int(iterations, "iterations", low=1)
    schedule = TemperatureSchedule.of(temperature_schedule)
    check_seed(seed)
    searcher = make_searcher(game, Budget(iterations=iterations), config, derive_seed(seed, 1))
    return _SelfPlay(game, config, iterations, schedule, seed, None, None, searcher).play()


class _SelfPlay:
    """One game in progress: the searchers, the generator and the rows recorded so far."""

    def __init__(
        self,
        game: Any,
        config: SearchConfig,
        simulations: int,
        schedule: TemperatureSchedule,
        seed: int,
        cap: PlayoutCap | None,
        resign: Resign | None,
        searcher: Any = None,
    ) -> None:
        self.game = game
        self.schedule = schedule
        self.seed = seed
        self.cap = cap
        self.resign = resign
        self.rng = np.random.default_rng(derive_seed(seed, 0))
        self.full = (
            MCTS(Budget(iterations=simulations), config, derive_seed(seed, 1))
            if searcher is None
            else searcher
        )
        self.fast = None
        if cap is not None:  # KataGo's fast searches: no noise (their visits are no target)
            fast_config = dataclasses.replace(config, root_noise=None)
            budget = Budget(iterations=cap.fast_simulations)
            self.fast = MCTS(budget, fast_config, derive_seed(seed, 2))
        self.resign_enabled = resign is not None and self.rng.random() >= resign.disabled_fraction
        self.rows: list[tuple[Any, ...]] = []

    def play(self) -> GameRecord:
        game, rng, cap = self.game, self.rng, self.cap
        state = game.initial_state()
        fired: tuple[int, int] | None = None  # (ply, player) of the first would-be resignation
        resigned = None
        ply = 0
        while not game.is_terminal(state):
            full = cap is None or rng.random() < cap.full_probability
            searcher = self.full if full or self.fast is None else self.fast
            result = searcher.search(game, state)
            mover = game.to_play(state)
            fires = self.resign is not None and wants_to_resign(result, self.resign.threshold)
            if fires and fired is None:
                fired = (ply, mover)
            action = RESIGNED if fires and self.resign_enabled else None
            if action is None and result.improved_policy:  # Gumbel: the search's own draw
                action = result.best_action
            if action is None:
                action = select_move(result, self.schedule.at(ply), rng)
            self._record(state, mover, result, action, full)
            if action == RESIGNED:
                resigned = mover
                break
            state = game.next_state(state, action)
            ply += 1
        if resigned is not None:
            returns = tuple(-1.0 if p == resigned else 1.0 for p in range(game.num_players))
        else:
            normalize = return_normalizer(game)
            raw = tuple(float(r) for r in game.returns(state))
            returns = raw if normalize is None else normalize(raw)
        return self._record_of(returns, resigned, fired)

    def _record(
        self, state: Any, mover: int, result: SearchResult, action: int, full: bool
    ) -> None:
        game = self.game
        mask = np.zeros(game.num_actions, dtype=bool)
        mask[list(game.legal_actions(state))] = True
        self.rows.append(
            (
                np.asarray(game.observation(state, mover)),
                mask,
                policy_target(result, game.num_actions),
                mover,
                action,
                full,
                result.iterations,
                result.root_value,
            )
        )

    def _record_of(
        self, returns: tuple[float, ...], resigned: int | None, fired: tuple[int, int] | None
    ) -> GameRecord:
        observations, masks, policies, movers, actions, full, iterations, roots = zip(
            *self.rows, strict=True
        )
        movers_array = np.array(movers, dtype=np.int64)
        false_positive = None
        if fired is not None and not self.resign_enabled:
            player = fired[1]
            false_positive = bool(returns[player] >= max(returns))  # a draw or a win
        return GameRecord(
            observations=np.stack(observations),
            legal_masks=np.stack(masks),
            policies=np.stack(policies).astype(np.float32),
            values=np.array([returns[m] for m in movers], dtype=np.float32),
            movers=movers_array,
            actions=np.array(actions, dtype=np.int64),
            full_search=np.array(full, dtype=bool),
            iterations=np.array(iterations, dtype=np.int64),
            root_values=np.array(roots, dtype=np.float32),
            returns=returns,
            seed=self.seed,
            resigned=resigned,
            resignation_enabled=self.resign_enabled,
            resignation_ply=None if fired is None else fired[0],
            resignation_player=None if fired is None else fired[1],
            false_positive=false_positive,
        )
