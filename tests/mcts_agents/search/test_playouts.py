"""``mcts_agents.search.playouts``: a game that never ends does not hang a search.

A playout stops at the playout cap (the option, else 10 x the game's ``max_game_length``, else
10,000 moves), worth ``cutoff_value``, with one warning; a long playout stops once the time limit
is up. Every Python searcher: ``MCTS``, ``ISMCTS``, ``PIMC``.
"""

from __future__ import annotations

import logging
import random
from time import perf_counter
from typing import Any

import numpy as np
import pytest

from mcts_agents import MCTSAgent
from mcts_agents.envs.core.game import BoardGame
from mcts_agents.errors import InvalidOptionError
from mcts_agents.search import ISMCTS, MCTS, PIMC
from mcts_agents.search.config import Budget, SearchConfig
from mcts_agents.search.game import Cutoff
from mcts_agents.search.playouts import DEFAULT_PLAYOUT_CAP, bounded_playout, playout_cap
from tests.mcts_agents.search.toy_games import ToyEnv


class Forever:
    """A counter that only grows: both moves are legal forever and the game never ends. The
    state is the number of moves played; past ``guard`` moves it raises, so that a search that
    does not bound its playouts fails here instead of hanging."""

    num_players = 2
    perfect_information = True  # ISMCTS and PIMC search it too: a state is its information set

    def __init__(self, tag: str, guard: int, max_game_length: int | None = None) -> None:
        self.tag, self.guard = tag, guard
        if max_game_length is not None:
            self.max_game_length = max_game_length

    def __repr__(self) -> str:
        return f"Forever({self.tag!r})"

    def to_play(self, state: int) -> int:
        return state % 2

    def legal_actions(self, state: int) -> list[int]:
        return [0, 1]

    def next_state(self, state: int, action: int) -> int:
        if state >= self.guard:
            raise RuntimeError(f"a playout of {state} moves: nothing bounded it")
        return state + 1

    def is_terminal(self, state: int) -> bool:
        return False

    def returns(self, state: int) -> tuple[float, ...]:
        return (0.0, 0.0)

    def key(self, state: int) -> int:
        return state

    def information_set(self, state: int, player: int) -> int:
        return state

    def determinize(self, state: int, player: int, rng: random.Random) -> int:
        return state

    def initial_state(self) -> int:
        return 0


def searcher(kind: str, budget: Budget, **options: Any) -> Any:
    if kind == "mcts":
        return MCTS(budget, SearchConfig(**options), 0)
    if kind == "ismcts":
        return ISMCTS(budget, SearchConfig(information="mo_ismcts", **options), 0)
    return PIMC(budget, SearchConfig(information="pimc", determinizations=3, **options), 0)


def cap_warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [
        r.getMessage()
        for r in caplog.records
        if r.name == "mcts_agents.search.playouts" and r.levelno == logging.WARNING
    ]


KINDS = ["mcts", "ismcts", "pimc"]


@pytest.mark.parametrize("kind", KINDS)
def test_a_game_that_never_ends_is_searched_with_the_default_cap_and_one_warning(
    kind: str, caplog: pytest.LogCaptureFixture
) -> None:
    game = Forever(f"default-{kind}", guard=10 * DEFAULT_PLAYOUT_CAP)
    with caplog.at_level(logging.WARNING):
        result = searcher(kind, Budget(iterations=6)).search(game, 0)
        searcher(kind, Budget(iterations=6)).search(game, 0)  # warned already: once a game
    assert result.best_action in (0, 1) and result.iterations >= 6
    assert result.root_value == 0.0 and result.proven is None  # cut off: cutoff_value, 0
    (warning,) = cap_warnings(caplog)
    assert f"Forever('default-{kind}')" in warning and "playout cap of 10000 moves" in warning
    assert "playout_cap=" in warning


@pytest.mark.parametrize("kind", KINDS)
def test_the_cap_is_the_option_else_ten_times_the_declared_length(
    kind: str, caplog: pytest.LogCaptureFixture
) -> None:
    # the state counts the moves of the tree (at most one a simulation) and of the playout
    declared = Forever(f"declared-{kind}", guard=70 + 31, max_game_length=7)  # cap 70
    option = Forever(f"option-{kind}", guard=20 + 31)
    with caplog.at_level(logging.WARNING):
        searcher(kind, Budget(iterations=30)).search(declared, 0)
        result = searcher(kind, Budget(iterations=30), playout_cap=20, cutoff_value=0.5).search(
            option, 0
        )
    assert result.root_value == pytest.approx(0.5)  # every playout cut: worth cutoff_value
    first, second = cap_warnings(caplog)
    assert "playout cap of 70 moves" in first and "playout cap of 20 moves" in second


@pytest.mark.parametrize("kind", KINDS)
def test_the_clock_bounds_a_search_whose_playouts_are_long(kind: str) -> None:
    """``time_limit`` bounds the search even where one playout would outlast it (a cap of 10^9
    moves, from the declared length): the clock is read inside the playout."""
    game = Forever(f"clock-{kind}", guard=10**7, max_game_length=10**8)
    start = perf_counter()
    result = searcher(kind, Budget(time_limit=0.3)).search(game, 0)
    assert perf_counter() - start < 20.0  # a 0.3 s bound, generous slack for a loaded machine
    assert result.best_action in (0, 1)


def test_should_stop_ends_a_long_playout() -> None:
    game = Forever("stop", guard=10**7, max_game_length=10**8)
    search = MCTS(Budget(iterations=10), SearchConfig(), 0)
    calls = [0]

    def stop() -> bool:
        calls[0] += 1
        return calls[0] > 3  # the budget loop asks first, then the playout

    search.should_stop = stop
    result = search.search(game, 0)
    assert result.iterations <= 2


def test_rollout_depth_cuts_without_a_warning(caplog: pytest.LogCaptureFixture) -> None:
    game = Forever("depth", guard=100)
    with caplog.at_level(logging.WARNING):
        MCTS(Budget(iterations=30), SearchConfig(rollout_depth=10), 0).search(game, 0)
    assert cap_warnings(caplog) == []


def test_playout_cap_option_is_checked_and_a_bounded_playout_returns_cutoff_values() -> None:
    for bad in (0, -5, 2.5, True, "10"):
        with pytest.raises(InvalidOptionError, match=r"playout_cap must be an int >= 1 or None"):
            SearchConfig(playout_cap=bad)  # type: ignore[arg-type]
    game = Forever("direct", guard=100)
    assert playout_cap(game, None) == DEFAULT_PLAYOUT_CAP and playout_cap(game, 5) == 5
    values = bounded_playout(game, SearchConfig(playout_cap=5), None)(0, random.Random(0))
    assert type(values) is Cutoff and values == (0.0, 0.0)


class ForeverCore(BoardGame[int]):
    """``Forever`` as a rules core that keeps ``BoardGame``'s own ``rollout`` (which plays to
    an end that never comes), played through our AEC env as a user's game would be."""

    def __init__(self) -> None:
        self.name = "forever"
        self.num_players = 2
        self.num_actions = 2
        self.observation_shape = (1,)
        self.forever = Forever("core", guard=10**7)

    def params(self) -> dict[str, Any]:
        return {}

    def initial_state(self) -> int:
        return 0

    def to_play(self, state: int) -> int:
        return state % 2

    def legal_actions(self, state: int) -> list[int]:
        return [0, 1]

    def next_state(self, state: int, action: int) -> int:
        return self.forever.next_state(state, action)

    def is_terminal(self, state: int) -> bool:
        return False

    def returns(self, state: int) -> tuple[float, ...]:
        return (0.0, 0.0)

    def observation(self, state: int, player: int) -> Any:
        return np.array([state % 2], dtype=np.int8)

    def render_text(self, state: int) -> str:
        return str(state)


def test_a_rules_core_that_never_ends_is_searched_through_its_env() -> None:
    """``BoardGame.rollout`` is replaced by the bounded loop (the same moves)."""
    env = ToyEnv(ForeverCore())
    env.reset()
    result = MCTSAgent(iterations=3, seed=0).search(env)
    assert result.best_action in (0, 1) and result.root_value == 0.0
    start = perf_counter()
    MCTSAgent(time_limit=0.3, seed=0, playout_cap=10**9).search(env)  # the clock alone
    assert perf_counter() - start < 20.0
