"""The compiled ISMCTS (``compiled.ismcts``) on Kuhn and Leduc poker.

Checked from outside the kernel: root statistics equal to the Python ``ISMCTS``'s within
sampling error (means over seeds, the same positions and options), OpenSpiel's exact
``exploitability`` of the self-play policy, the no-peek invariant (states that differ only in
the opponent's card give the same search), same seed same search, the factory's choice, and
clear refusals.
"""

from __future__ import annotations

import statistics
from typing import Any

import pytest

pytest.importorskip("numba")

from mcts_agents import Budget, SearchConfig, make_searcher
from mcts_agents.compiled.ismcts import CompiledISMCTS
from mcts_agents.envs.games.kuhn_poker import KuhnPoker
from mcts_agents.envs.games.leduc_holdem import LeducHoldem
from mcts_agents.envs.games.rlcard_leduc import RLCardLeduc
from mcts_agents.errors import InvalidOptionError, InvalidStateError
from mcts_agents.search import ISMCTS

KUHN, LEDUC, RLCARD = KuhnPoker(), LeducHoldem(), RLCardLeduc()


def at(game: Any, history: list[int]) -> Any:
    return game.apply(game.initial_state(), history)


def summary(game: Any, state: Any, backend: str, n: int, seeds: int, **options: Any) -> tuple:
    """Mean visit share per action and mean root value over ``seeds`` searches."""
    shares: dict[int, list[float]] = {}
    values = []
    for seed in range(seeds):
        config = SearchConfig(backend=backend, **options)
        searcher = make_searcher(game, Budget(iterations=n), config, seed)
        assert isinstance(searcher, CompiledISMCTS if backend == "numba" else ISMCTS)
        result = searcher.search(game, state)
        total = sum(c.visits for c in result.children)
        for child in result.children:
            shares.setdefault(child.action, []).append(child.visits / total)
        values.append(result.root_value)
    return {a: statistics.fmean(v) for a, v in shares.items()}, statistics.fmean(values)


@pytest.mark.parametrize(
    ("game", "history", "options", "share_tol", "value_tol"),
    [
        (LEDUC, [0, 3], {"search_from": "here"}, 0.08, 0.015),
        (LEDUC, [0, 3, 2], {"search_from": "here", "information": "so_ismcts"}, 0.1, 0.03),
        (LEDUC, [1, 4, 1], {"search_from": "here", "smooth": 0.1}, 0.08, 0.015),
        (KUHN, [2, 0, 0, 1], {"search_from": "start", "smooth": 0.1}, 0.05, 0.02),
        (KUHN, [0, 1], {"search_from": "here"}, 0.05, 0.02),
        (RLCARD, [0, 1, 0, 0, 3, 2], {"search_from": "here"}, 0.08, 0.015),
        (RLCARD, [2, 1, 0], {"search_from": "start", "smooth": 0.1}, 0.05, 0.03),
    ],
    ids=[
        "leduc-mo",
        "leduc-so",
        "leduc-smooth",
        "kuhn-start-smooth",
        "kuhn-mo",
        "rlcard-mo",
        "rlcard-start-smooth",
    ],
)
def test_statistics_equal_the_python_search(
    game: Any, history: list[int], options: dict, share_tol: float, value_tol: float
) -> None:
    """Same algorithm, other random numbers: the mean root statistics over 6 seeds agree
    within about three standard errors (measured spreads: shares 0.02-0.05, values 0.003-0.01
    per seed)."""
    state = at(game, history)
    python_shares, python_value = summary(game, state, "python", 5000, 6, **options)
    compiled_shares, compiled_value = summary(game, state, "numba", 5000, 6, **options)
    assert python_shares.keys() == compiled_shares.keys()
    for action, share in python_shares.items():
        assert compiled_shares[action] == pytest.approx(share, abs=share_tol), action
    assert compiled_value == pytest.approx(python_value, abs=value_tol)


def test_self_play_of_kuhn_is_near_an_equilibrium() -> None:
    """OpenSpiel's exact exploitability of the default search's policy at every information
    state (one search from the start: its table holds them all; ``stored_policy`` reads it)."""
    pyspiel = pytest.importorskip("pyspiel")
    spiel = pyspiel.load_game("kuhn_poker")
    searcher = make_searcher(KUHN, Budget(iterations=200_000), SearchConfig(), 0)
    assert isinstance(searcher, CompiledISMCTS)
    result = searcher.search(KUHN, at(KUHN, [0, 1]))
    assert result.search_from == "start" and result.backend == "numba"
    policy = kuhn_policy(searcher, spiel)
    assert len(policy) == 12
    assert pyspiel.exploitability(spiel, policy) < 0.03  # uniform play: 0.458


@pytest.mark.parametrize(
    "options",
    [{}, {"search_from": "here"}, {"information": "so_ismcts"}, {"search_from": "start"}],
    ids=["auto", "here", "so", "start"],
)
@pytest.mark.parametrize(
    ("game", "histories"),
    [
        (LEDUC, ([0, 3, 1, 2, 1, 4], [0, 5, 1, 2, 1, 4], [0, 1, 1, 2, 1, 4])),
        (KUHN, ([1, 0, 0, 1], [1, 2, 0, 1])),
        (RLCARD, ([0, 1, 0, 0, 3, 2], [0, 0, 0, 0, 3, 2], [0, 2, 0, 0, 3, 2])),
    ],
    ids=["leduc", "kuhn", "rlcard"],
)
def test_no_peeking(game: Any, histories: tuple, options: dict) -> None:
    """States that differ only in the opponent's card: the same search, same seed."""
    results = []
    for history in histories:
        searcher = make_searcher(game, Budget(iterations=3000), SearchConfig(**options), 7)
        assert isinstance(searcher, CompiledISMCTS)
        result = searcher.search(game, at(game, history))
        results.append([(c.action, c.visits, c.value) for c in result.children])
    assert all(r == results[0] for r in results)


def test_same_seed_same_search_and_another_seed_another() -> None:
    state = at(LEDUC, [0, 3])

    def run(seed: int) -> list:
        searcher = make_searcher(LEDUC, Budget(iterations=20_000), SearchConfig(), seed)
        return [(c.action, c.visits, c.value) for c in searcher.search(LEDUC, state).children]

    assert run(3) == run(3)
    assert run(3) != run(4)


def test_reset_reseeds_and_reuse_keeps_the_table() -> None:
    state = at(LEDUC, [0, 3])
    searcher = make_searcher(LEDUC, Budget(iterations=5000), SearchConfig(), 1)
    first = searcher.search(LEDUC, state)
    again = searcher.search(LEDUC, state)  # the table is kept: 10k simulations at the root
    assert again.reused_nodes == first.nodes
    assert sum(c.visits for c in again.children) > sum(c.visits for c in first.children)
    searcher.reset(1)
    assert searcher.table_size() == 0
    assert searcher.search(LEDUC, state).children == first.children


def test_the_factory_chooses_the_compiled_search_where_it_applies() -> None:
    budget = Budget(iterations=100)
    assert isinstance(make_searcher(KUHN, budget, SearchConfig(), 0), CompiledISMCTS)
    assert isinstance(make_searcher(LEDUC, budget, SearchConfig(), 0), CompiledISMCTS)
    python = make_searcher(LEDUC, budget, SearchConfig(backend="python"), 0)
    assert isinstance(python, ISMCTS)
    assert isinstance(make_searcher(RLCARD, budget, SearchConfig(), 0), CompiledISMCTS)
    three = KuhnPoker(players=3)
    assert isinstance(make_searcher(three, budget, SearchConfig(), 0), ISMCTS)
    result = python.search(LEDUC, at(LEDUC, [0, 3]))
    assert result.search_from == "here" and result.backend == "python"  # "auto": here


def test_refusals_name_the_reason() -> None:
    budget = Budget(iterations=100)
    with pytest.raises(InvalidOptionError, match="3 players"):
        make_searcher(KuhnPoker(players=3), budget, SearchConfig(backend="numba"), 0)
    with pytest.raises(InvalidOptionError, match="rollout_depth"):
        CompiledISMCTS(LEDUC, budget, SearchConfig(rollout_depth=3), 0)
    searcher = make_searcher(LEDUC, budget, SearchConfig(), 0)
    with pytest.raises(InvalidStateError, match="chance node"):
        searcher.search(LEDUC, at(LEDUC, [0]))
    with pytest.raises(InvalidOptionError, match="built for"):
        searcher.search(KUHN, at(KUHN, [0, 1]))
    tiny = make_searcher(LEDUC, Budget(iterations=100, max_nodes=2), SearchConfig(), 0)
    with pytest.raises(InvalidOptionError, match="max_nodes"):
        tiny.search(LEDUC, at(LEDUC, [0, 3]))


def test_time_budget_and_bounded_table() -> None:
    searcher = make_searcher(LEDUC, Budget(time_limit=0.05), SearchConfig(), 0)
    result = searcher.search(LEDUC, at(LEDUC, [0, 3]))
    assert result.iterations > 0 and sum(result.policy.values()) == pytest.approx(1.0)
    bounded = make_searcher(LEDUC, Budget(iterations=5000, max_nodes=50), SearchConfig(), 0)
    bounded.search(LEDUC, at(LEDUC, [0, 3]))
    assert bounded.table_size() <= 50


def test_told_to_stop_it_returns_at_a_kernel_call_and_calls_play_as_one() -> None:
    """``should_stop`` is checked between compiled calls (of ``CHUNK`` simulations); the same
    search run in calls or in one call gives the same statistics (the generator runs on)."""
    from mcts_agents.compiled.ismcts import CHUNK

    state = at(LEDUC, [0, 3])
    calls = iter(range(10**9))
    stopped = make_searcher(LEDUC, Budget(iterations=10**9), SearchConfig(), 2)
    stopped.should_stop = lambda: next(calls) >= 3
    assert stopped.search(LEDUC, state).iterations == 3 * CHUNK
    children = []
    for should_stop in (None, lambda: False):
        searcher = make_searcher(LEDUC, Budget(iterations=5 * CHUNK + 7), SearchConfig(), 2)
        searcher.should_stop = should_stop
        children.append(searcher.search(LEDUC, state).children)
    assert children[0] == children[1]


def test_pettingzoo_leduc_searches_the_rlcard_core_compiled() -> None:
    """PettingZoo's ``leduc_holdem_v4`` is read into ``RLCardLeduc``, which the compiled search
    plays (a legal move; at 100k simulations the default plays from the start)."""
    pytest.importorskip("rlcard")
    from pettingzoo.classic import leduc_holdem_v4

    from mcts_agents import MCTSAgent

    env = leduc_holdem_v4.env()
    env.reset(seed=4)
    agent = MCTSAgent(iterations=100_000, seed=0)
    result = agent.search(env)
    assert result.backend == "numba" and result.search_from == "start"
    mask = env.observe(env.agent_selection)["action_mask"]
    assert mask[result.best_action]


def test_auto_plays_from_the_start_where_the_budget_allows_enough_self_play() -> None:
    """``search_from="auto"``: Kuhn always from the start; Leduc from the start at 100k
    simulations or 0.025 s and more, else from here (measured better below that)."""
    from mcts_agents.compiled.ismcts import AUTO_LEAST

    kuhn = make_searcher(KUHN, Budget(iterations=1000), SearchConfig(), 0)
    assert kuhn.search(KUHN, at(KUHN, [0, 1])).search_from == "start"
    state = at(LEDUC, [0, 3])
    small = make_searcher(LEDUC, Budget(iterations=AUTO_LEAST - 1), SearchConfig(), 0)
    here = make_searcher(
        LEDUC, Budget(iterations=AUTO_LEAST - 1), SearchConfig(search_from="here"), 0
    )
    assert small.search(LEDUC, state).children == here.search(LEDUC, state).children
    assert small.search(LEDUC, state).search_from == "here"
    small.budget = Budget(iterations=AUTO_LEAST)  # a budget replaced between searches
    result = small.search(LEDUC, state)
    assert result.search_from == "start" and result.reused_nodes == 0  # the table was cleared
    timed = make_searcher(LEDUC, Budget(time_limit=0.01), SearchConfig(), 0)
    assert timed.search(LEDUC, state).search_from == "here"


def kuhn_policy(searcher: CompiledISMCTS, spiel: Any) -> dict[str, list[tuple[int, float]]]:
    """The searcher's stored policy at each of Kuhn's 12 information states."""
    policy = {}
    stack = [spiel.new_initial_state()]
    while stack:
        state = stack.pop()
        if state.is_terminal():
            continue
        if state.is_chance_node():
            stack.extend(state.child(a) for a, _ in state.chance_outcomes())
            continue
        stored = searcher.stored_policy(KUHN, at(KUHN, state.history()))
        assert stored is not None
        policy[state.information_state_string()] = sorted(stored.items())
        stack.extend(state.child(a) for a in state.legal_actions())
    return policy


def test_regret_matching_self_play_of_kuhn_at_10k_simulations() -> None:
    """The default on Kuhn poker is regret-matching self-play from the start,
    read as its average strategy: OpenSpiel's exact exploitability at 10k simulations is
    under Smooth UCT's (docs/benchmarks.md run 25: medians 0.009 against 0.028)."""
    pyspiel = pytest.importorskip("pyspiel")
    spiel = pyspiel.load_game("kuhn_poker")
    values = {}
    for options in ({}, {"search_from": "start", "smooth": 0.1, "c": 0.8}):
        searcher = make_searcher(KUHN, Budget(iterations=10_000), SearchConfig(**options), 0)
        assert isinstance(searcher, CompiledISMCTS)
        result = searcher.search(KUHN, at(KUHN, [0, 1]))
        assert result.search_from == "start"
        assert bool(result.improved_policy) == (not options)  # the average strategy, if any
        assert sum(result.policy.values()) == pytest.approx(1.0)
        values[bool(options)] = pyspiel.exploitability(spiel, kuhn_policy(searcher, spiel))
    assert values[False] < 0.02 < values[True]  # uniform play: 0.458


def test_regret_matching_same_seed_same_policy_and_only_under_auto_with_mo() -> None:
    state = at(KUHN, [2, 0, 0])

    def run(seed: int) -> dict[int, float]:
        searcher = make_searcher(KUHN, Budget(iterations=3000), SearchConfig(), seed)
        return searcher.search(KUHN, state).policy

    assert run(5) == run(5)
    assert run(5) != run(6)
    so = make_searcher(KUHN, Budget(iterations=3000), SearchConfig(information="so_ismcts"), 5)
    assert so.search(KUHN, state).improved_policy == ()  # SO keys cannot hold both seats' regrets
    leduc = make_searcher(LEDUC, Budget(iterations=100_000), SearchConfig(), 0)
    result = leduc.search(LEDUC, at(LEDUC, [0, 3]))
    assert result.search_from == "start" and result.improved_policy  # regret matching
    smooth = SearchConfig(search_from="start", smooth=0.1)  # asked for: Smooth UCT
    assert (
        make_searcher(LEDUC, Budget(iterations=1000), smooth, 0)
        .search(LEDUC, at(LEDUC, [0, 3]))
        .improved_policy
        == ()
    )
