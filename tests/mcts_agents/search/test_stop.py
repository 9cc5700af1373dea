"""Stopping a search from outside (``should_stop``): a search told to stop returns at once with
a valid result of the simulations it ran, whatever its budget, in every searcher; one never told
to stop plays exactly as without the hook."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest

from mcts_agents import MCTSAgent, make_searcher
from mcts_agents.envs import connect_four_v0
from mcts_agents.envs.games.connect_four import ConnectFour
from mcts_agents.envs.games.leduc_holdem import LeducHoldem
from mcts_agents.envs.games.mnk import MNK
from mcts_agents.search.config import Budget, SearchConfig
from mcts_agents.search.mcts import MCTS
from mcts_agents.search.result import SearchResult

HUGE = 10**9  # simulations no test could wait for


class StopAfter:
    """``should_stop`` that turns true at its ``calls + 1``-th call (a search checks it before
    every simulation, so it runs ``calls`` of them)."""

    def __init__(self, calls: int) -> None:
        self.calls = calls
        self.seen = 0

    def __call__(self) -> bool:
        self.seen += 1
        return self.seen > self.calls


def _valid(result: SearchResult, legal: list[int]) -> None:
    assert result.best_action in legal
    assert sum(child.visits for child in result.children) == result.iterations
    assert {child.action for child in result.children} <= set(legal)


@pytest.mark.parametrize("budget", [Budget(iterations=HUGE), Budget(max_nodes=HUGE)])
def test_a_python_search_told_to_stop_returns_the_simulations_it_ran(budget: Budget) -> None:
    game = ConnectFour()
    state = game.initial_state()
    searcher = MCTS(budget, SearchConfig(backend="python"), seed=1)
    searcher.should_stop = StopAfter(300)
    started = time.perf_counter()
    result = searcher.search(game, state)
    assert time.perf_counter() - started < 30  # the budget would take hours
    assert result.iterations == 300
    _valid(result, list(game.legal_actions(state)))


def test_a_search_never_told_to_stop_plays_as_without_the_hook() -> None:
    game = MNK(4, 4, 3)
    state = game.initial_state()
    results = []
    for should_stop in (None, lambda: False):
        searcher = MCTS(Budget(iterations=2000), SearchConfig(backend="python"), seed=5)
        searcher.should_stop = should_stop
        results.append(searcher.search(game, state))
    plain, hooked = results
    assert hooked.iterations == plain.iterations == 2000
    assert hooked.children == plain.children and hooked.best_action == plain.best_action


@pytest.mark.parametrize("information", ["mo_ismcts", "so_ismcts", "pimc"])
def test_hidden_information_searches_told_to_stop_return_what_they_ran(information: str) -> None:
    game = LeducHoldem()
    state = game.initial_state()
    while game.is_chance(state):  # the deal: the first card left each time
        state = game.next_state(state, game.chance_outcomes(state)[0][0])
    config = SearchConfig(information=information, determinizations=4, backend="python")  # type: ignore[arg-type]
    searcher: Any = make_searcher(game, Budget(iterations=HUGE), config, seed=2)
    searcher.should_stop = StopAfter(200)
    result = searcher.search(game, state)
    assert result.iterations == 200  # PIMC: the first world only, stopped there
    if information == "pimc":
        assert len(result.worlds) == 1
    _valid(result, list(game.legal_actions(state)))


def test_a_search_stopped_from_another_thread_ends_promptly() -> None:
    env = connect_four_v0.env()
    env.reset(seed=0)
    agent = MCTSAgent(iterations=HUGE, backend="python", seed=3)
    stop = threading.Event()
    threading.Timer(0.3, stop.set).start()
    started = time.perf_counter()
    result = agent.search(env, should_stop=stop.is_set)
    assert time.perf_counter() - started < 10  # 10**9 simulations would take a day
    assert result.stopped is True and 0 < result.iterations < HUGE
    assert agent.searcher is not None and agent.searcher.should_stop is None  # not left set
    agent.budget = agent.searcher.budget = Budget(iterations=100)
    again = agent.search(env)  # a later search without the hook runs its budget as before
    assert again.iterations == 100 and not again.stopped


class TestCompiled:
    @pytest.fixture(autouse=True)
    def _numba(self) -> None:
        pytest.importorskip("numba")

    @pytest.mark.parametrize("game", [ConnectFour(), MNK(5, 5, 4)], ids=["connect_four", "mnk"])
    def test_a_compiled_search_told_to_stop_returns_at_a_kernel_call(self, game: Any) -> None:
        state = game.initial_state()
        # a table full at once: the kernel never returns to grow it, only its short calls do
        budget = Budget(iterations=HUGE, max_nodes=5000)
        searcher: Any = make_searcher(game, budget, SearchConfig(), seed=1)
        assert type(searcher).__name__ != "MCTS"  # the compiled search
        searcher.should_stop = StopAfter(5)  # five kernel calls of a few thousand simulations
        started = time.perf_counter()
        result = searcher.search(game, state)
        assert time.perf_counter() - started < 30
        assert 0 < result.iterations < HUGE
        _valid(result, list(game.legal_actions(state)))

    @pytest.mark.parametrize("game", [ConnectFour(), MNK(5, 5, 4)], ids=["connect_four", "mnk"])
    def test_a_compiled_search_in_calls_plays_as_in_one_call(self, game: Any) -> None:
        state = game.initial_state()
        results = []
        for should_stop in (None, lambda: False):
            searcher: Any = make_searcher(game, Budget(iterations=30000), SearchConfig(), seed=4)
            searcher.should_stop = should_stop
            results.append(searcher.search(game, state))
        plain, hooked = results
        assert hooked.iterations == plain.iterations  # (the kernel may prove the root first)
        assert hooked.children == plain.children and hooked.best_action == plain.best_action
