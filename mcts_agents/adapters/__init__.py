"""From a live PettingZoo AEC env to the search's view of it: a ``Game`` and a root state.

``game_from_env(env)`` picks the fastest faithful path, and never changes ``env``:

1. our envs (``env.unwrapped`` is a ``mcts_agents.envs.core.BoardGameEnv``): the rules core and
   its immutable state, with no AEC overhead;
2. PettingZoo's own classic board envs (``pettingzoo_classic``): ``connect_four_v3`` and
   ``tictactoe_v3`` read into our rules cores (same rules, same action ids), ``go_v5`` read
   into our Go core (``pettingzoo_go``), ``chess_v6`` as copies of its board
   (``pettingzoo_chess``);
3. Shimmy's OpenSpiel wrapper: ``openspiel.OpenSpielGame`` over cloned ``pyspiel`` states;
4. PettingZoo's rlcard poker envs: two-player ``leduc_holdem_v4``, ``texas_holdem_v4`` and
   ``texas_holdem_no_limit_v6`` read into our rules cores with rlcard's rules (``RLCardLeduc``,
   ``LimitHoldem``, ``NoLimitHoldem``); the others (more players, changed settings) as
   ``rlcard.RLCardGame``, verified clones with information sets and redealing, for Information
   Set MCTS;
5. anyone else's AEC env: ``generic.EnvGame`` over verified clones of the whole wrapper chain
   (``mcts_agents.adapters.cloning``), refused where it is found to hide information or draw
   randomness. ``clone_env(env)`` is that verified clone of a live env on its own.

A new adapter is a module here with a ``Game`` and a function ``(env) -> (game, state)`` that
``game_from_env`` calls when the env is of its kind.

``hint_if_slow`` logs one warning (logger ``mcts_agents.adapters``) per kind of env and game
whose search runs below ``SLOW_SEARCH_RATE`` simulations a second, saying what could help: the
evaluator, where timing it shows that it takes most of the search's time (``evaluator_share``).
"""

from __future__ import annotations

import logging
import math
import statistics
from collections.abc import Hashable
from time import perf_counter
from typing import Any

import numpy as np
from pettingzoo import AECEnv

from mcts_agents.adapters.aec import check_live, check_reset, describe_env, legal_actions
from mcts_agents.adapters.cloning import clone_env
from mcts_agents.adapters.generic import EnvGame, EnvState, env_game
from mcts_agents.adapters.openspiel import OpenSpielGame, openspiel_env_type, openspiel_game
from mcts_agents.adapters.pettingzoo_classic import classic_game
from mcts_agents.adapters.rlcard import RLCardGame, rlcard_env_type, rlcard_game
from mcts_agents.envs.core.aec import BoardGameEnv
from mcts_agents.errors import CloneError, GameOverError, NoLegalActionError
from mcts_agents.search.evaluators import evaluate, evaluator_name, is_batch_evaluator
from mcts_agents.search.game import Game, State

__all__ = [
    "SLOW_SEARCH_RATE",
    "EnvGame",
    "EnvState",
    "OpenSpielGame",
    "RLCardGame",
    "clone_env",
    "evaluator_share",
    "game_from_env",
    "hint_if_slow",
    "legal_actions",
]

logger = logging.getLogger(__name__)

#: Simulations a second below which a search logs ``hint_if_slow``'s warning.
SLOW_SEARCH_RATE = 100.0
#: Searches shorter than this (seconds) say too little about the rate to warn.
_MIN_ELAPSED = 0.05
#: The kinds (env class, game class, game spec) already warned about in this process.
_HINTED: set[Hashable] = set()


def game_from_env(env: Any, oracle: bool = False) -> tuple[Game, State]:
    """The ``Game`` and root state for the position of the live AEC env ``env``.

    Args:
        env: any PettingZoo AEC env, possibly wrapped, reset and not finished.
        oracle: the caller means to search the true state (``information="oracle"``): the
            generic path then accepts envs that hide information or draw randomness.

    Returns:
        ``(game, state)``: for our envs the rules core and its state (the env's own immutable
        state object); for PettingZoo's Connect Four and tic-tac-toe our rules core and the
        equivalent state; for its chess and go a copy of the position object; for Shimmy's
        OpenSpiel wrapper an ``OpenSpielGame`` and a clone of the ``pyspiel`` state; otherwise
        an ``EnvGame`` and an ``EnvState`` over a verified clone.

    Raises:
        GameOverError: no agents remain, or the agent to move is terminated or truncated.
        NoLegalActionError: the agent to move has no legal action.
        NotResetError: the env has not been reset.
        CloneError: the env cannot be adapted (not an AEC env, uncopyable contents, a clone that
            does not match the original, simultaneous moves, an OpenSpiel game that hides
            information without a way to redeal it, an env found to draw hidden randomness).
    """
    if not isinstance(env, AECEnv):
        raise CloneError(
            f"game_from_env expects a PettingZoo AECEnv, got {type(env).__name__} "
            "(wrap a ParallelEnv with pettingzoo.utils.parallel_to_aec)"
        )
    check_reset(env)
    raw = env.unwrapped
    if isinstance(raw, BoardGameEnv):
        check_live(env, raw.agents, raw.agent_selection, raw.terminations, raw.truncations)
        game, state = raw.game, raw.state
        if game.is_terminal(state):
            raise GameOverError(f"the game in {env} is over")
        if not game.legal_actions(state):
            raise NoLegalActionError(f"{raw.agent_selection} has no legal action in {env}")
        return game, state
    classic = classic_game(env)
    if classic is not None:
        return classic
    openspiel_type = openspiel_env_type()
    if openspiel_type is not None and isinstance(raw, openspiel_type):
        return openspiel_game(env, raw)
    rlcard_type = rlcard_env_type()
    if rlcard_type is not None and isinstance(raw, rlcard_type):
        return rlcard_game(env, raw, oracle=oracle)
    return env_game(env, oracle)


def hint_if_slow(
    env: Any,
    game: Game,
    iterations: int,
    elapsed: float,
    *,
    state: State | None = None,
    config: Any = None,
    time_limit: float | None = None,
) -> bool:
    """Log one warning per kind of env and game whose search ran below ``SLOW_SEARCH_RATE``.

    The library never prints; a slow search (3 simulations a second is a weak player) says so
    once through ``logging``, naming the env, the rate and what could help for its path. Where
    the search has an evaluator (``config.evaluator``) and ``state`` is its root, the
    evaluator's share of the search time is measured (``evaluator_share``): when it takes most
    of the time, the warning names it rather than the rules. A ``time_limit`` is suggested
    only where the search had none.

    Returns:
        Whether a warning was logged now.
    """
    if elapsed < _MIN_ELAPSED or iterations <= 0:
        return False
    rate = iterations / elapsed
    if rate >= SLOW_SEARCH_RATE:
        return False
    kind = (type(env.unwrapped), type(game), getattr(game, "spec", None))
    if kind in _HINTED:
        return False
    _HINTED.add(kind)
    evaluator = getattr(config, "evaluator", None)
    share = None
    if evaluator is not None and state is not None:
        batch = int(getattr(config, "batch_size", 1) or 1)
        share = evaluator_share(evaluator, game, state, iterations, elapsed, batch)
    if share is not None and share >= 0.5:
        helps = (
            f"the evaluator {evaluator_name(evaluator)} takes about {100 * share:.0f}% of the "
            "search time; a smaller or faster network (a GPU, fewer threads fighting over "
            "the cores), a larger batch_size, or workers > 1 would help"
        )
    elif isinstance(game, RLCardGame):
        helps = (
            "rlcard's poker without a rules core here (more than two players, or changed "
            "settings) is searched on clones of the whole env, redealt every simulation; the "
            "two-player leduc_holdem_v4, texas_holdem_v4 and texas_holdem_no_limit_v6 run on "
            "rules cores, or workers > 1 would help"
        )
    elif isinstance(game, EnvGame):
        helps = (
            "the generic path clones the whole env for every move; a rules core (a "
            "mcts_agents.envs BoardGame), a state_key() method on the unwrapped env or an env "
            "with less to clone would help"
        )
    else:
        budget = "" if time_limit is not None else "a time_limit (to bound each move), "
        helps = (
            f"the rules of {type(game).__name__} are slow in Python; {budget}a rollout_depth "
            "with an evaluator, or workers > 1 would help"
        )
        if share is not None:
            helps += f" (the evaluator takes about {100 * share:.0f}% of the search time)"
    logger.warning(
        "slow search on %s: %.1f simulations/s (below %.0f): %s",
        describe_env(env),
        rate,
        SLOW_SEARCH_RATE,
        helps,
    )
    return True


def evaluator_share(
    evaluator: Any, game: Any, state: State, iterations: int, elapsed: float, batch_size: int = 1
) -> float:
    """The share (0 to 1) of ``elapsed`` seconds that ``iterations`` simulations spent in
    ``evaluator``, estimated by timing it on ``state``: the median of three calls (a batch
    evaluator: ``evaluate_batch`` of ``batch_size`` copies, one call per ``batch_size``
    simulations) times the number of calls the search made. The evaluator is called three
    more times, once per kind of slow search (see ``hint_if_slow``)."""
    legal = list(game.legal_actions(state))
    if is_batch_evaluator(evaluator):
        rows = max(1, min(batch_size, iterations))
        masks = np.zeros((rows, game.num_actions), dtype=bool)
        masks[:, legal] = True
        one = np.asarray(game.observation(state, game.to_play(state)))
        observations = np.repeat(one[None], rows, axis=0)
        calls = math.ceil(iterations / rows)

        def call() -> None:
            evaluator.evaluate_batch(observations, masks)
    else:
        calls = iterations

        def call() -> None:
            evaluate(evaluator, game, state, legal)

    seconds = []
    for _ in range(3):
        start = perf_counter()
        call()
        seconds.append(perf_counter() - start)
    return min(1.0, statistics.median(seconds) * calls / elapsed)
