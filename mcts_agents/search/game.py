"""The Game protocol: the search's only view of a game.

A functional interface over immutable, hashable states. Our envs' rules cores
(``mcts_agents.envs.core.BoardGame``) implement it directly; ``mcts_agents.adapters``
implements it for anyone else's PettingZoo AEC env by cloning and stepping the env.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Hashable, Sequence
from typing import Any, Protocol, runtime_checkable

from mcts_agents.envs.core.game import CHANCE, draw_outcome
from mcts_agents.errors import InvalidOptionError

State = Any  # immutable and hashable for our cores; opaque (treated as immutable) for adapters


@runtime_checkable
class Game(Protocol):
    """What the search needs from a game.

    The members below are required. The searchers also look up these optional members with
    ``getattr`` and do without them when they are missing:

    ============================================  ==========================================
    optional member                               what the search does with it
    ============================================  ==========================================
    ``spec: Hashable``                            the rules' identity: a new ``spec`` drops
                                                  the kept tree, and workers get the game
                                                  again; without it, the game's type
    ``acyclic: bool``                             True: no position can repeat, so the
                                                  search skips its cycle check (default
                                                  False: a repeated position on the path
                                                  scores a draw)
    ``is_reachable(state, key) -> bool``          tree reuse keeps only the entries that can
                                                  still occur after ``state``; must never
                                                  say False wrongly (else: a walk of the
                                                  stored graph from the new root)
    ``rollout(state, rng) -> returns``            a fast uniformly random playout (else
                                                  ``default_rollout``)
    ``decisive_rollout(state, rng) -> returns``   the playout of ``playout="decisive"``:
                                                  win at once, block the only threat (else
                                                  ``rollout``)
    ``bounded_rollout(state, rng, max_moves,      a random playout that stops (``None``)
    stop) -> returns | None``                     after ``max_moves`` moves or when
                                                  ``stop()``; preferred to ``rollout``
                                                  (``mcts_agents.search.playouts``)
    ``max_game_length: int``                      the longest a game can last: a playout's
                                                  cap is 10 times it (else 10,000 moves)
    ``return_range: (low, high)``                 returns are normalised to [-1, 1] for the
                                                  search; a proof is a "win" only at ``high``
                                                  (default (-1, 1))
    ``has_chance: bool``, ``is_chance(state)``,   chance nodes: ``legal_actions`` are their
    ``chance_outcomes(state) -> [(a, p)]``        outcomes, drawn by the search's own
                                                  generator with these probabilities, never
                                                  chosen (``to_play`` is ``CHANCE``)
    ``perfect_information: bool``,                False: players hold private information.
    ``information_set(state, player)``,           Information Set MCTS keys its nodes by
    ``determinize(state, player, rng)``           information sets and searches full states
                                                  drawn by ``determinize``, which may read
                                                  only what ``player`` has observed
    ============================================  ==========================================

    Compiled kernels read more, per game type, through the rules core's public layout (see
    ``mcts_agents.compiled``).
    """

    num_players: int

    def to_play(self, state: State) -> int:
        """Index of the player to act."""
        ...

    def legal_actions(self, state: State) -> list[int]:
        """Legal actions (ints of the env's Discrete space); empty iff terminal."""
        ...

    def next_state(self, state: State, action: int) -> State:
        """A new state after ``action``; ``state`` is untouched."""
        ...

    def is_terminal(self, state: State) -> bool:
        """Whether the game is over."""
        ...

    def returns(self, state: State) -> tuple[float, ...]:
        """Per-player returns (+1 win, 0 draw, -1 loss, or scores) of a terminal state."""
        ...

    def key(self, state: State) -> Hashable:
        """Transposition key: equal for the same position reached by different move orders."""
        ...


class Cutoff(tuple[float, ...]):
    """The per-player values of a playout stopped before the end (``rollout_depth``, the
    playout cap, the search's clock): values on the search's scale (``cutoff_value`` each), not
    returns of the game, so the search does not map them from the game's return range."""

    __slots__ = ()


def default_rollout(game: Game, state: State, rng: random.Random) -> tuple[float, ...]:
    """Uniformly random playout to the end (chance outcomes by their probabilities), for games
    without a fast ``rollout``."""
    chance = has_chance(game)
    while not game.is_terminal(state):
        if chance and game.is_chance(state):  # type: ignore[attr-defined]
            state = game.next_state(state, sample_chance(game, state, rng))
            continue
        actions = game.legal_actions(state)
        state = game.next_state(state, actions[int(rng.random() * len(actions))])
    return game.returns(state)


def make_playout(
    game: Game, kind: str = "decisive", depth: int | None = None, cutoff: float = 0.0
) -> Callable[[State, random.Random], Sequence[float]]:
    """A playout in ``game``: its ``decisive_rollout`` (for ``kind="decisive"``) or ``rollout``
    where it has one, else ``default_rollout``; with ``depth``, uniformly random play stopped
    after ``depth`` moves, an unfinished playout worth ``cutoff`` to every player. Unbounded:
    the searches run ``mcts_agents.search.playouts.bounded_playout``, which ends."""
    if depth is None:
        fast = getattr(game, "rollout", None)
        if kind == "decisive":
            fast = getattr(game, "decisive_rollout", fast)
        return fast or (lambda state, rng: default_rollout(game, state, rng))
    chance = has_chance(game)
    unfinished = Cutoff((cutoff,) * game.num_players)

    def capped(state: State, rng: random.Random) -> Sequence[float]:
        for _ in range(depth):
            if game.is_terminal(state):
                return game.returns(state)
            if chance and game.is_chance(state):  # type: ignore[attr-defined]
                state = game.next_state(state, sample_chance(game, state, rng))
                continue
            actions = game.legal_actions(state)
            state = game.next_state(state, actions[int(rng.random() * len(actions))])
        return game.returns(state) if game.is_terminal(state) else unfinished

    return capped


def has_chance(game: Game) -> bool:
    """Whether ``game`` may have chance nodes (``is_chance``)."""
    return bool(getattr(game, "has_chance", False)) and hasattr(game, "is_chance")


def is_perfect_information(game: Game) -> bool:
    """False for games with private information (``information_set`` and ``determinize``)."""
    return bool(getattr(game, "perfect_information", True))


def sample_chance(game: Game, state: State, rng: random.Random) -> int:
    """An outcome of the chance node ``state``, drawn with ``rng`` by its probability."""
    return draw_outcome(game.chance_outcomes(state), rng)  # type: ignore[attr-defined]


def return_normalizer(game: Game) -> Callable[[Sequence[float]], tuple[float, ...]] | None:
    """A map of ``game``'s returns onto [-1, 1] (``return_range``), or ``None`` if they are
    there already."""
    low, high = getattr(game, "return_range", (-1.0, 1.0))
    if (low, high) == (-1.0, 1.0):
        return None
    if not high > low:
        raise InvalidOptionError(f"{game!r}: return_range must be (low, high) with low < high")
    return range_normalizer(low, high)


def range_normalizer(
    low: float, high: float, bound: float = 1.0
) -> Callable[[Sequence[float]], tuple[float, ...]]:
    """The affine map of returns in [``low``, ``high``] onto [-``bound``, ``bound``]."""
    scale = 2.0 * bound / (high - low)

    def normalize(returns: Sequence[float]) -> tuple[float, ...]:
        return tuple((r - low) * scale - bound for r in returns)

    return normalize


__all__ = [
    "CHANCE",
    "Cutoff",
    "Game",
    "State",
    "default_rollout",
    "has_chance",
    "is_perfect_information",
    "make_playout",
    "range_normalizer",
    "return_normalizer",
    "sample_chance",
]
