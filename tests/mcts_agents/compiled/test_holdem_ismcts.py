"""The compiled ISMCTS for rlcard's hold'em (``compiled.holdem_search``), limit and no-limit.

Checked from outside the kernel: root statistics equal to the Python ``ISMCTS``'s within
sampling error (means over seeds, fixed preflop, flop, river and all-in positions, every
information mode), the no-peek invariant (deals that differ only in the opponent's hole cards
give the same search), same seed same search, a table that grows or fills without changing the
search, play through PettingZoo's ``texas_holdem_v4`` and ``texas_holdem_no_limit_v6`` with
``MCTSAgent`` (the env unchanged by a search), the factory's choice and clear refusals.
"""

from __future__ import annotations

import statistics
from typing import Any

import pytest

pytest.importorskip("numba")

from mcts_agents import Budget, SearchConfig, make_searcher
from mcts_agents.compiled import holdem_search
from mcts_agents.compiled.holdem_search import HoldemISMCTS
from mcts_agents.envs.games.limit_holdem import LimitHoldem
from mcts_agents.envs.games.nolimit_holdem import NoLimitHoldem
from mcts_agents.errors import InvalidOptionError, InvalidStateError
from mcts_agents.search import ISMCTS

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")  # rlcard's Box precision warnings
LIMIT, NOLIMIT = LimitHoldem(), NoLimitHoldem()
#: the deal: seat 0 holds SK HK, seat 1 S4 H5 (no SA S2 CQ DK: ``test_no_peeking`` deals those);
#: then the small-blind (limit) or dealer (no-limit) seat
DEAL = [12, 25, 3, 17, 0]
FLOP, TURN, RIVER = [40, 8, 30], [51], [22]  # C2 S9 D5, CK, H10
POSITIONS = {
    "limit-preflop": (LIMIT, DEAL),
    "limit-flop": (LIMIT, [*DEAL, 0, 3, *FLOP, 1]),
    "limit-river": (LIMIT, [*DEAL, 0, 3, *FLOP, 3, 3, *TURN, 1, 0, *RIVER]),
    "nolimit-preflop": (NOLIMIT, DEAL),
    "nolimit-flop": (NOLIMIT, [*DEAL, 1, 1, *FLOP]),
    "nolimit-all-in": (NOLIMIT, [*DEAL, 4]),
    "nolimit-river": (NOLIMIT, [*DEAL, 1, 1, *FLOP, 2, 1, *TURN, 1, 1, *RIVER]),
}


def at(name: str) -> tuple[Any, Any]:
    game, history = POSITIONS[name]
    return game, game.apply(game.initial_state(), history)


def summary(game: Any, state: Any, backend: str, n: int, seeds: int, **options: Any) -> tuple:
    """Mean visit share per action and mean root value over ``seeds`` searches."""
    shares: dict[int, list[float]] = {}
    values = []
    for seed in range(seeds):
        searcher = make_searcher(
            game, Budget(iterations=n), SearchConfig(backend=backend, **options), seed
        )
        assert isinstance(searcher, HoldemISMCTS if backend == "numba" else ISMCTS)
        result = searcher.search(game, state)
        total = sum(c.visits for c in result.children)
        for child in result.children:
            shares.setdefault(child.action, []).append(child.visits / total)
        values.append(result.root_value)
    return {a: statistics.fmean(v) for a, v in shares.items()}, statistics.fmean(values)


@pytest.mark.parametrize(
    ("name", "options", "seeds", "share_tol", "value_tol"),
    [
        ("limit-preflop", {}, 6, 0.07, 0.01),
        ("limit-flop", {"information": "so_ismcts"}, 6, 0.07, 0.01),
        ("limit-river", {"smooth": 0.1}, 6, 0.07, 0.01),
        ("limit-river", {}, 6, 0.07, 0.01),
        ("nolimit-preflop", {}, 10, 0.1, 0.025),
        ("nolimit-flop", {"smooth": 0.1}, 10, 0.1, 0.025),
        ("nolimit-all-in", {}, 6, 0.01, 0.03),
        ("nolimit-river", {"information": "so_ismcts"}, 10, 0.1, 0.025),
    ],
    ids=["limit-preflop-mo", "limit-flop-so", "limit-river-smooth", "limit-river-mo",
         "nolimit-preflop-mo", "nolimit-flop-smooth", "nolimit-all-in", "nolimit-river-so"],
)  # fmt: skip
def test_statistics_equal_the_python_search(
    name: str, options: dict, seeds: int, share_tol: float, value_tol: float
) -> None:
    """Same algorithm, other random numbers: the mean root statistics over the seeds agree
    within about three standard errors (measured spreads per seed at 3,000 simulations: shares
    0.01-0.035 in limit, up to 0.075 in no-limit; values 0.001-0.005 and up to 0.016)."""
    game, state = at(name)
    python_shares, python_value = summary(game, state, "python", 3000, seeds, **options)
    compiled_shares, compiled_value = summary(game, state, "numba", 3000, seeds, **options)
    assert python_shares.keys() == compiled_shares.keys() == set(game.legal_actions(state))
    for action, share in python_shares.items():
        assert compiled_shares[action] == pytest.approx(share, abs=share_tol), action
    assert compiled_value == pytest.approx(python_value, abs=value_tol)


@pytest.mark.parametrize(
    "options",
    [{}, {"information": "so_ismcts"}, {"smooth": 0.1}, {"search_from": "start"}],
    ids=["auto", "so", "smooth", "start"],
)
@pytest.mark.parametrize("name", ["limit-preflop", "limit-river", "nolimit-flop"])
def test_no_peeking(name: str, options: dict) -> None:
    """Deals that differ only in the opponent's hole cards: the same search, same seed."""
    game, history = POSITIONS[name]
    mover = game.to_play(at(name)[1])
    results = []
    dealt_other = tuple(history[2:4]) if mover == 0 else tuple(history[:2])
    for other in (dealt_other, (0, 1), (50, 38)):  # as dealt, SA S2, CQ DK
        hole = [*history[:2], *other] if mover == 0 else [*other, *history[2:4]]
        dealt = [*hole, *history[4:]]
        searcher = make_searcher(game, Budget(iterations=3000), SearchConfig(**options), 7)
        assert isinstance(searcher, HoldemISMCTS)
        result = searcher.search(game, game.apply(game.initial_state(), dealt))
        results.append([(c.action, c.visits, c.value) for c in result.children])
    assert all(r == results[0] for r in results)


def test_same_seed_same_search_and_another_seed_another() -> None:
    game, state = at("limit-flop")

    def run(seed: int) -> list:
        searcher = make_searcher(game, Budget(iterations=20_000), SearchConfig(), seed)
        return [(c.action, c.visits, c.value) for c in searcher.search(game, state).children]

    assert run(3) == run(3)
    assert run(3) != run(4)


def test_a_growing_table_gives_the_search_of_a_table_sized_at_once() -> None:
    """Under ``should_stop`` the table starts small and is rehashed as it grows; with an
    iteration budget it is sized at once: the same statistics (the generator runs on)."""
    game, state = at("nolimit-flop")
    children = []
    for should_stop in (None, lambda: False):
        searcher = make_searcher(game, Budget(iterations=30_000), SearchConfig(), 2)
        searcher.should_stop = should_stop
        children.append(searcher.search(game, state).children)
        assert searcher.table_size() > holdem_search.MIN_SLOTS
    assert children[0] == children[1]


def test_a_full_table_stops_growing_and_the_search_goes_on(monkeypatch: Any) -> None:
    monkeypatch.setattr(holdem_search, "MAX_SLOTS", holdem_search.MIN_SLOTS)
    game, state = at("limit-preflop")
    searcher = make_searcher(game, Budget(iterations=20_000), SearchConfig(), 0)
    result = searcher.search(game, state)
    assert result.iterations == 20_000
    assert searcher.table_size() <= holdem_search.MIN_SLOTS * 3 // 4
    assert sum(c.visits for c in result.children) == 20_000
    bounded = make_searcher(game, Budget(iterations=5000, max_nodes=50), SearchConfig(), 0)
    bounded.search(game, state)
    assert bounded.table_size() <= 50


def test_reuse_keeps_the_table_and_reset_reseeds() -> None:
    game, state = at("limit-flop")
    searcher = make_searcher(game, Budget(iterations=5000), SearchConfig(), 1)
    first = searcher.search(game, state)
    again = searcher.search(game, state)
    assert again.reused_nodes == first.nodes
    assert sum(c.visits for c in again.children) == 10_000
    searcher.reset(1)
    assert searcher.table_size() == 0
    assert searcher.search(game, state).children == first.children


def test_auto_searches_from_here_and_start_falls_back() -> None:
    game, state = at("limit-river")
    auto = make_searcher(game, Budget(iterations=2000), SearchConfig(), 0)
    here = make_searcher(game, Budget(iterations=2000), SearchConfig(search_from="here"), 0)
    assert auto.search(game, state).children == here.search(game, state).children
    assert auto.search(game, state).search_from == "here"
    start = make_searcher(game, Budget(iterations=2000), SearchConfig(search_from="start"), 0)
    result = start.search(game, state)  # self-play from the deal does not reach this river
    assert result.search_from == "here" and result.self_play_iterations == 2000


@pytest.mark.parametrize("name", ["texas_holdem_v4", "texas_holdem_no_limit_v6"])
def test_pettingzoo_holdem_plays_to_the_end_with_the_compiled_search(name: str) -> None:
    """The factory picks the compiled search for PettingZoo's hold'em; every move is legal, a
    search leaves the env as it was, and the hands play to the end."""
    pytest.importorskip("rlcard")
    import importlib

    from mcts_agents import MCTSAgent

    module = importlib.import_module(f"pettingzoo.classic.{name}")
    agents = {"player_0": MCTSAgent(iterations=2000, seed=0),
              "player_1": MCTSAgent(iterations=2000, seed=1, information="so_ismcts")}  # fmt: skip
    for hand in range(3):
        env = module.env()
        env.reset(seed=hand)
        for agent in env.agent_iter():
            observation, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            before = observation["observation"].copy(), env.agent_selection
            result = agents[agent].search(env)
            assert isinstance(agents[agent].searcher, HoldemISMCTS) and result.backend == "numba"
            after = env.observe(agent)["observation"]
            assert (after == before[0]).all() and env.agent_selection == before[1]
            assert observation["action_mask"][result.best_action]
            env.step(result.best_action)
        assert sum(env.rewards.values()) == pytest.approx(0.0)


def test_the_factory_chooses_and_refusals_name_the_reason() -> None:
    budget = Budget(iterations=100)
    assert isinstance(make_searcher(LIMIT, budget, SearchConfig(), 0), HoldemISMCTS)
    assert isinstance(make_searcher(NOLIMIT, budget, SearchConfig(backend="numba"), 0),
                      HoldemISMCTS)  # fmt: skip
    assert isinstance(make_searcher(LIMIT, budget, SearchConfig(backend="python"), 0), ISMCTS)
    assert isinstance(make_searcher(LIMIT, budget, SearchConfig(rollout_depth=3), 0), ISMCTS)
    with pytest.raises(InvalidOptionError, match="rollout_depth"):
        make_searcher(LIMIT, budget, SearchConfig(rollout_depth=3, backend="numba"), 0)
    with pytest.raises(InvalidOptionError, match="LeducHoldem"):
        from mcts_agents.envs.games.leduc_holdem import LeducHoldem

        HoldemISMCTS(LeducHoldem(), budget, SearchConfig(), 0)
    searcher = make_searcher(LIMIT, budget, SearchConfig(), 0)
    with pytest.raises(InvalidStateError, match="chance node"):
        searcher.search(LIMIT, LIMIT.apply(LIMIT.initial_state(), DEAL[:4]))
    with pytest.raises(InvalidOptionError, match="built for"):
        searcher.search(*at("nolimit-flop"))
    tiny = make_searcher(LIMIT, Budget(iterations=100, max_nodes=2), SearchConfig(), 0)
    with pytest.raises(InvalidOptionError, match="max_nodes"):
        tiny.search(*at("limit-flop"))


@pytest.mark.parametrize("game", [LIMIT, NOLIMIT], ids=["limit", "nolimit"])
def test_the_kernels_key_partitions_decisions_as_the_cores_information_sets(game: Any) -> None:
    """``info_key`` against ``(mover, game.information_set(state, observer))`` on decisions
    of seeded random hands and their variants (the opponent's hole cards redealt, the flop
    dealt in another order, hole cards swapped): equal keys exactly where the core's are."""
    import random

    import numpy as np

    from mcts_agents.compiled.holdem_kernel import info_key

    rng = random.Random(11)
    python_of: dict[int, Any] = {}
    compiled_of: dict[Any, int] = {}
    for _ in range(300):
        state = game.initial_state()
        while not game.is_terminal(state):
            if game.is_chance(state):
                state = game.next_state(state, game.sample_chance(state, rng))
                continue
            node, cards = state
            for observer in (0, 1):
                other = 2 * (1 - observer)
                hidden = rng.sample([c for c in range(52) if c not in cards], 2)
                flop = list(cards[4:7])
                rng.shuffle(flop)
                variant = [*cards[:4], *flop, *cards[7:]]
                variant[other : other + 2] = hidden
                variant[2 * observer : 2 * observer + 2] = cards[2 * observer : 2 * observer + 2][
                    ::-1
                ]
                for world in (cards, tuple(variant)):
                    mover = game.to_play((node, world))
                    python = (mover, game.information_set((node, world), observer))
                    padded = np.array([*world, *[0] * (9 - len(world))], np.int64)
                    key = int(info_key(mover, observer, node, padded, len(world)))
                    assert python_of.setdefault(key, python) == python
                    assert compiled_of.setdefault(python, key) == key
            actions = game.legal_actions(state)
            state = game.next_state(state, actions[int(rng.random() * len(actions))])
    assert len(compiled_of) > 1000
