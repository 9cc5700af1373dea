"""AlphaZero's gate: does a candidate network beat the best one often enough to replace it?

``gate(game, candidate, best, games, simulations, seed)`` plays ``games`` games between two batch
evaluators (any framework: ``mcts_agents.alphazero.learn.TorchEvaluator`` or a numpy object), each
side searching with ``MCTS`` (PUCT over its own evaluator's priors and values, no root noise), and
promotes the candidate when its score (wins plus half the draws, over the games) reaches
``threshold`` (AlphaGo Zero: 55%). The result carries the Wilson 95% interval of that score, so a
promotion on few games can be read for what it is worth.

Games come in pairs: pair ``k`` is played twice from one seed, ``derive_seed(seed, k)``, with
the candidate first in game ``2k`` and second in game ``2k + 1``. Each seat's search is seeded
by the seat, not by who sits there, and the opening moves (the first ``opening.moves`` plies,
drawn from the root's visits at ``opening.early``, so that the pairs differ) by the pair, so a
network gated against an exact copy of itself plays each pair's two games move for move alike
and scores exactly one half. The games are played on the rules core directly (no AEC env): the
gate runs inside a training loop, where only the two searches should cost time.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import numpy as np

from mcts_agents.alphazero.selfplay import TemperatureSchedule, require_perfect_information
from mcts_agents.alphazero.targets import select_move
from mcts_agents.checks import check_int, check_number, check_seed, is_int
from mcts_agents.errors import InvalidOptionError
from mcts_agents.ratings import wilson_interval
from mcts_agents.search.config import Budget, SearchConfig
from mcts_agents.search.evaluators import check_batch_game, is_batch_evaluator
from mcts_agents.search.mcts import MCTS
from mcts_agents.seeding import derive_seed

__all__ = ["DEFAULT_GATE_CONFIG", "DEFAULT_OPENING", "GateResult", "against_mcts", "gate"]

#: Both sides' search when none is given: PUCT without root noise.
DEFAULT_GATE_CONFIG = SearchConfig(selection="puct")
#: Opening plies drawn in proportion to visits, so that the pairs of games differ.
DEFAULT_OPENING = TemperatureSchedule(2, 1.0, 0.0)


@dataclass(frozen=True, slots=True)
class GateResult:
    """The candidate's games against the best network.

    Attributes:
        wins, draws, losses: the candidate's results.
        score: ``(wins + draws / 2) / games``.
        interval: the Wilson 95% interval of ``score``.
        threshold: the score needed to be promoted.
        promoted: ``score >= threshold``.
        outcomes: the candidate's points game by game (1, 0.5 or 0), game ``2k`` with the
            candidate first, ``2k + 1`` second.
        lengths: the plies of each game.
        seed: the gate's seed.
    """

    wins: int
    draws: int
    losses: int
    score: float
    interval: tuple[float, float]
    threshold: float
    promoted: bool
    outcomes: tuple[float, ...]
    lengths: tuple[int, ...]
    seed: int

    @property
    def games(self) -> int:
        """Games played."""
        return len(self.outcomes)

    def to_dict(self) -> dict[str, Any]:
        """The result as JSON-ready numbers (without the per-game lists)."""
        return {
            "games": self.games,
            "wins": self.wins,
            "draws": self.draws,
            "losses": self.losses,
            "score": self.score,
            "low": self.interval[0],
            "high": self.interval[1],
            "threshold": self.threshold,
            "promoted": self.promoted,
            "seed": self.seed,
        }

    def __str__(self) -> str:
        low, high = self.interval
        verdict = "promoted" if self.promoted else "kept the best"
        return (
            f"candidate +{self.wins} ={self.draws} -{self.losses} in {self.games} games: score "
            f"{self.score:.3f} [{low:.3f}, {high:.3f}] vs threshold {self.threshold:.3f}: "
            f"{verdict}"
        )


def _side_config(config: SearchConfig, evaluator: Any, batch_size: int) -> SearchConfig:
    return dataclasses.replace(
        config, evaluator=evaluator, batch_size=batch_size, backend="python", root_noise=None
    )


def _check_options(
    game: Any, candidate: Any, best: Any, games: Any, simulations: Any, seed: Any, threshold: Any
) -> None:
    require_perfect_information(game, "the gate")
    for name, evaluator in (("candidate", candidate), ("best", best)):
        if not is_batch_evaluator(evaluator):
            raise InvalidOptionError(
                f"the gate's {name} must be a batch evaluator (an object with "
                f"evaluate_batch(observations, legal_masks)), got {evaluator!r}"
            )
        check_batch_game(game, evaluator)
    if game.num_players != 2:
        raise InvalidOptionError(
            f"the gate plays two-player games; {game!r} has {game.num_players} player(s)"
        )
    if not is_int(games) or games < 2 or games % 2:
        raise InvalidOptionError(
            f"games must be an even int >= 2 (each opening is played from both seats), got "
            f"{games!r}"
        )
    check_int(simulations, "simulations", low=1)
    check_seed(seed)
    check_number(threshold, "threshold", low=0, high=1, note="a score")


def gate(
    game: Any,
    candidate: Any,
    best: Any,
    games: int,
    simulations: int,
    seed: int,
    *,
    threshold: float = 0.55,
    config: SearchConfig | None = None,
    batch_size: int = 1,
    opening: TemperatureSchedule | tuple[int, float, float] = DEFAULT_OPENING,
    pool: Any = None,
) -> GateResult:
    """Play ``candidate`` against ``best`` and decide whether it replaces it (see the module).

    Args:
        game: a two-player rules core with ``observation`` and ``num_actions``, no chance nodes.
        candidate: a batch evaluator (``evaluate_batch(observations, legal_masks)``).
        best: the batch evaluator ``candidate`` must beat.
        games: an even number of games, seats alternating (the issue's real runs: >= 200).
        simulations: simulations per move of each side.
        seed: seeds every pair of games (searches and opening draws).
        threshold: the score the candidate needs, in [0, 1] (AlphaGo Zero: 0.55).
        config: both sides' search (``selection="puct"`` or ``"gumbel"``); its evaluator,
            batch size and root noise are replaced. ``None``: ``DEFAULT_GATE_CONFIG``.
        batch_size: leaves evaluated per ``evaluate_batch`` call (``SearchConfig.batch_size``).
        opening: the move temperatures, ``(moves, t_early, t_late)`` or a
            ``TemperatureSchedule`` (default: the first two plies drawn in proportion to
            visits, then the most visited move).
        pool: plays the pairs of games with ``pool.map``: a ``processes.open_pool`` pool
            (``"spawn"``: the evaluators, game and config must pickle, else
            ``UnpicklableError``; ``"ray"``), or ``None``: here, one by one. The games are the
            same either way (each pair has its own seeds).

    Raises:
        InvalidOptionError: a bad option, named with its value and what was expected.
        UnpicklableError: a spawn ``pool``, and something of the games that does not pickle.
        WorkerError: a worker process of ``pool`` died.
    """
    _check_options(game, candidate, best, games, simulations, seed, threshold)
    config = DEFAULT_GATE_CONFIG if config is None else config
    if not isinstance(config, SearchConfig) or config.selection not in ("puct", "gumbel"):
        raise InvalidOptionError(
            "config must be a SearchConfig with selection='puct' or 'gumbel', or None, got "
            f"{config!r}"
        )
    schedule = TemperatureSchedule.of(opening)
    budget = Budget(iterations=simulations)
    sides = [_side_config(config, evaluator, batch_size) for evaluator in (candidate, best)]
    return _result(game, sides, (budget, budget), schedule, games, seed, threshold, pool)


def against_mcts(
    game: Any,
    evaluator: Any,
    simulations: int,
    iterations: int,
    games: int,
    seed: int,
    *,
    config: SearchConfig | None = None,
    batch_size: int = 1,
    pool: Any = None,
) -> GateResult:
    """A network against a fixed opponent: ``MCTS`` with ``iterations`` of uniformly random
    playouts (UCB1, no evaluator). Played as the gate plays (pairs of games from one opening,
    seats swapped, same seeds by pair); the result is the network's, with threshold 0.5.
    AlphaZero's curve of strength over training rates each best network this way.

    Raises:
        InvalidOptionError: a bad option, named with its value and what was expected.
    """
    _check_options(game, evaluator, evaluator, games, simulations, seed, 0.5)
    check_int(iterations, "iterations", low=1)
    config = DEFAULT_GATE_CONFIG if config is None else config
    sides = [
        _side_config(config, evaluator, batch_size),
        SearchConfig(playout="random", backend="python"),
    ]
    budgets = (Budget(iterations=simulations), Budget(iterations=iterations))
    return _result(game, sides, budgets, DEFAULT_OPENING, games, seed, 0.5, pool)


def _result(
    game: Any,
    sides: list[SearchConfig],
    budgets: tuple[Budget, Budget],
    schedule: TemperatureSchedule,
    games: int,
    seed: int,
    threshold: float,
    pool: Any,
) -> GateResult:
    """Play the pairs (here or with ``pool.map``) and score them for ``sides[0]``."""
    tasks = [
        (game, sides, budgets, schedule, derive_seed(seed, pair)) for pair in range(games // 2)
    ]
    pairs = list(map(_play_pair, tasks)) if pool is None else list(pool.map(_play_pair, tasks))
    outcomes = [outcome for pair in pairs for outcome, _ in pair]
    lengths = [plies for pair in pairs for _, plies in pair]
    wins = sum(1 for o in outcomes if o == 1.0)
    draws = sum(1 for o in outcomes if o == 0.5)
    points = wins + draws / 2
    score = points / games
    return GateResult(
        wins=wins,
        draws=draws,
        losses=games - wins - draws,
        score=score,
        interval=wilson_interval(points, games),
        threshold=float(threshold),
        promoted=score >= threshold,
        outcomes=tuple(outcomes),
        lengths=tuple(lengths),
        seed=seed,
    )


def _play_pair(
    task: tuple[Any, list[SearchConfig], tuple[Budget, Budget], TemperatureSchedule, int],
) -> list[tuple[float, int]]:
    """Pair ``k``'s two games from its seed: ``sides[0]`` (the candidate) first, then second;
    per game the candidate's points and the plies played."""
    game, sides, budgets, schedule, pair_seed = task
    games = []
    for candidate_seat in (0, 1):
        seated = list(zip(sides, budgets, strict=True))
        if candidate_seat:
            seated.reverse()
        searchers = [
            MCTS(budget, side, derive_seed(pair_seed, 1 + seat))
            for seat, (side, budget) in enumerate(seated)
        ]
        returns, plies = _play(game, searchers, schedule, np.random.default_rng(pair_seed))
        mine, theirs = returns[candidate_seat], returns[1 - candidate_seat]
        games.append((1.0 if mine > theirs else 0.5 if mine == theirs else 0.0, plies))
    return games


def _play(
    game: Any, searchers: list[MCTS], schedule: TemperatureSchedule, rng: np.random.Generator
) -> tuple[tuple[float, ...], int]:
    """One game, each seat moved by its searcher; the final returns and the plies played."""
    state = game.initial_state()
    ply = 0
    while not game.is_terminal(state):
        result = searchers[game.to_play(state)].search(game, state)
        state = game.next_state(state, select_move(result, schedule.at(ply), rng))
        ply += 1
    return tuple(float(r) for r in game.returns(state)), ply
