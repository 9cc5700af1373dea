"""Playouts that end: a cap on their length, and the search's clock inside them.

A game may never end (someone's env whose every move is legal forever, a counter that only
grows). A search's tree is bounded by its budget, but a playout from one of its leaves plays to
the end of the game: unbounded, one playout, and so the search, would never return, whatever
its time limit. So every playout of the Python searches (``MCTS``, ``ISMCTS``, ``PIMC``'s worlds;
the generic adapter's playouts on env clones) is bounded twice:

- by a cap on its length, ``SearchConfig.playout_cap`` moves (chance outcomes count as moves);
  ``None`` (the default): ``PLAYOUT_CAP_MULTIPLE`` times the game's ``max_game_length`` where it
  declares one, else ``DEFAULT_PLAYOUT_CAP``. A playout that reaches it stops, worth
  ``cutoff_value`` (0: a draw) to every player, and one warning is logged (logger
  ``mcts_agents.search.playouts``) per game and cap in the process, naming both and the option.
  ISMCTS's walk down its table (information sets may repeat) counts towards the same cap;
- by the search's clock: every ``CLOCK_EVERY`` moves a playout looks at the budget's time limit
  (with ``final_move="robust_max"``, its longest extension) and ``should_stop``; once either says
  stop, the playout stops, worth ``cutoff_value`` (no warning: the search ends with it).

A game's own fast playout (``rollout``, ``decisive_rollout``: our rules cores, whose games all
end, the OpenSpiel, chess and Go adapters') is run as it is. ``BoardGame``'s default ``rollout``
(a core that did not write its own) and ``default_rollout`` (a game with none) are replaced by the
bounded loop here, which plays the same moves; a game with ``bounded_rollout(state, rng,
max_moves, stop)`` (``EnvGame``: returns, or ``None`` when cut) gets both bounds.
``rollout_depth`` is a deliberate cut (no warning), checked against the clock too. The compiled
kernels play our games only, which end, and take no cap.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Callable, Hashable, Sequence
from time import perf_counter

from mcts_agents.checks import is_int
from mcts_agents.envs.core.game import BoardGame
from mcts_agents.search.config import Budget, SearchConfig
from mcts_agents.search.game import Cutoff, Game, State, has_chance, sample_chance
from mcts_agents.search.searcher import (
    ROBUST_MAX_EXTENSION,
    StopCheck,
    game_identity,
    game_name,
)

__all__ = [
    "CLOCK_EVERY",
    "DEFAULT_PLAYOUT_CAP",
    "PLAYOUT_CAP_MULTIPLE",
    "bounded_playout",
    "cap_reached",
    "playout_cap",
    "search_stop",
]

logger = logging.getLogger(__name__)

#: A playout's cap on moves for a game that declares no ``max_game_length``.
DEFAULT_PLAYOUT_CAP = 10_000
#: The cap for a game that declares ``max_game_length``: this many times it.
PLAYOUT_CAP_MULTIPLE = 10
#: Moves between two looks at the clock (and ``should_stop``) inside one playout.
CLOCK_EVERY = 64

Playout = Callable[[State, random.Random], Sequence[float]]
#: (game identity, game name, cap) already warned about in this process.
_WARNED: set[Hashable] = set()


def playout_cap(game: Game, option: int | None) -> int:
    """The cap on a playout's moves: ``option``, else ``PLAYOUT_CAP_MULTIPLE`` times the
    game's ``max_game_length`` (an int >= 1) where it declares one, else
    ``DEFAULT_PLAYOUT_CAP``."""
    if option is not None:
        return option
    length = getattr(game, "max_game_length", None)
    if is_int(length, numpy_ints=True) and length >= 1:
        return PLAYOUT_CAP_MULTIPLE * int(length)
    return DEFAULT_PLAYOUT_CAP


def search_stop(
    budget: Budget, final_move: str, start: float, should_stop: StopCheck | None
) -> StopCheck | None:
    """What a long playout asks every ``CLOCK_EVERY`` moves: is the budget's time up (the
    latest a ``robust_max`` extension may run) or ``should_stop`` true? ``None``: nothing to
    ask (no time limit, no ``should_stop``)."""
    if budget.time_limit is None:
        return should_stop
    extension = 1.0 + ROBUST_MAX_EXTENSION if final_move == "robust_max" else 1.0
    deadline = start + budget.time_limit * extension
    if should_stop is None:
        return lambda: perf_counter() >= deadline
    return lambda: perf_counter() >= deadline or should_stop()


def cap_reached(game: Game, cap: int, cutoff: float) -> Cutoff:
    """The value of a playout (or walk) that reached ``cap`` moves: ``cutoff`` to every player;
    logs the warning once per game and cap in the process."""
    seen = (game_identity(game), game_name(game), cap)
    if seen not in _WARNED:
        _WARNED.add(seen)
        logger.warning(
            "a playout of %s reached the playout cap of %d moves without an end, scored "
            "cutoff_value=%g for every player; the game may never end (playout_cap= sets the "
            "cap; rollout_depth= with an evaluator cuts playouts on purpose)",
            game_name(game),
            cap,
            cutoff,
        )
    return Cutoff((cutoff,) * game.num_players)


def bounded_playout(game: Game, config: SearchConfig, stop: StopCheck | None) -> Playout:
    """The playout a Python search runs in ``game`` under ``config`` (``playout``,
    ``rollout_depth``, ``cutoff_value``, ``playout_cap``), bounded as the module says; ``stop``
    is ``search_stop``'s."""
    cutoff = config.cutoff_value
    cut = Cutoff((cutoff,) * game.num_players)
    depth = config.rollout_depth
    if depth is not None:
        return _loop(game, depth, stop, cut, None, sample_chance)
    cap = playout_cap(game, config.playout_cap)
    bounded = getattr(game, "bounded_rollout", None)
    if callable(bounded):

        def playout(state: State, rng: random.Random) -> Sequence[float]:
            returns: Sequence[float] | None = bounded(state, rng, cap, stop)
            if returns is not None:
                return returns
            return cut if stop is not None and stop() else cap_reached(game, cap, cutoff)

        return playout
    fast = getattr(game, "rollout", None)
    if config.playout == "decisive":
        fast = getattr(game, "decisive_rollout", fast)
    default = getattr(type(game), "rollout", None) is BoardGame.rollout  # a core's default loop
    if fast is not None and not (default and fast == game.rollout):  # type: ignore[attr-defined]
        return fast
    draw = game.sample_chance if default else sample_chance  # type: ignore[attr-defined]
    return _loop(game, cap, stop, cut, lambda: cap_reached(game, cap, cutoff), draw)


def _loop(
    game: Game,
    limit: int,
    stop: StopCheck | None,
    cut: Cutoff,
    on_cap: Callable[[], Cutoff] | None,
    draw: Callable[..., int],
) -> Playout:
    """Uniformly random play (chance outcomes by their probabilities, drawn by ``draw``) for
    at most ``limit`` moves: the returns at the end, else ``on_cap()`` (``None``: ``cut``);
    ``cut`` as soon as ``stop`` says so."""
    chance = has_chance(game)
    own = draw is not sample_chance  # the core's own sample_chance(state, rng)

    def playout(state: State, rng: random.Random) -> Sequence[float]:
        moves = 0
        while not game.is_terminal(state):
            if moves >= limit:
                return cut if on_cap is None else on_cap()
            moves += 1
            if stop is not None and not moves % CLOCK_EVERY and stop():
                return cut
            if chance and game.is_chance(state):  # type: ignore[attr-defined]
                outcome = draw(state, rng) if own else draw(game, state, rng)
                state = game.next_state(state, outcome)
                continue
            actions = game.legal_actions(state)
            state = game.next_state(state, actions[int(rng.random() * len(actions))])
        return game.returns(state)

    return playout
