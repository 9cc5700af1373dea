"""``MCTS`` with chance nodes and return ranges, on toy games whose values are known by hand."""

from __future__ import annotations

import random

import pytest

from mcts_agents import Budget, MCTSAgent, SearchConfig
from mcts_agents.agents.play import play_game
from mcts_agents.errors import InvalidStateError
from mcts_agents.search import MCTS
from mcts_agents.search.game import default_rollout
from tests.mcts_agents.search.toy_games import DiceAfter, Gamble, ToyEnv


def search(game: Gamble, iterations: int = 2000, seed: int = 0) -> object:
    return MCTS(Budget(iterations=iterations), SearchConfig(), seed).search(
        game, game.initial_state()
    )


@pytest.mark.parametrize(
    ("p", "safe", "best", "value", "label"),
    [
        (0.7, 0.2, 1, 0.4, "exact"),  # the gamble is worth 2p - 1 = 0.4 > 0.2
        (0.55, 0.2, 0, 0.2, "exact"),  # 0.1 < 0.2: take the sure thing
        (0.7, 1.0, 0, 1.0, "win"),  # the sure thing is the best the game pays
        (0.1, -0.5, 0, -0.5, "exact"),  # a sure -0.5 (a fold) is no draw
        (0.5, 0.0, 0, 0.0, "draw"),  # both sides get 0: a tie (the gamble is also worth 0)
    ],
)
def test_expectimax_values_are_proven_exactly(
    p: float, safe: float, best: int, value: float, label: str
) -> None:
    result = search(Gamble(p, safe))
    assert result.proven == label and result.root_value == pytest.approx(value)  # type: ignore[attr-defined]
    if label == "win":  # a proven win ends the search at once: the gamble may be unexplored
        assert result.best_action == best  # type: ignore[attr-defined]
        return
    gamble = result.child(1)  # type: ignore[attr-defined]
    assert gamble.value == pytest.approx(2 * p - 1)  # every coin outcome was needed
    assert gamble.proven == ("draw" if p == 0.5 else "exact")
    if 2 * p - 1 != safe:  # else both are worth the same and either is right
        assert result.best_action == best  # type: ignore[attr-defined]


def test_returns_are_normalised_by_the_return_range() -> None:
    """Chips of +-10 and a sure 2: the same search as on the [-1, 1] scale."""
    chips = search(Gamble(0.7, 0.2, scale=10.0))
    unit = search(Gamble(0.7, 0.2))
    assert chips.root_value == pytest.approx(0.4)  # type: ignore[attr-defined]
    assert [c.value for c in chips.children] == pytest.approx(  # type: ignore[attr-defined]
        [c.value for c in unit.children]  # type: ignore[attr-defined]
    )
    assert chips.proven == "exact"  # type: ignore[attr-defined]


def test_an_unproven_chance_node_is_sampled_by_probability() -> None:
    """Without the solver the gamble's mean converges to 2p - 1 from samples."""
    config = SearchConfig(solver=False)
    game = Gamble(0.8, -1.0)
    result = MCTS(Budget(iterations=4000), config, 3).search(game, game.initial_state())
    gamble = result.child(1)
    n = gamble.visits
    assert n > 3000 and result.best_action == 1
    assert abs(gamble.value - 0.6) < 4 * (1 - 0.6**2) ** 0.5 / n**0.5


def test_default_rollout_draws_chance_outcomes_by_probability() -> None:
    game, rng = Gamble(0.9, 0.0), random.Random(1)
    coin = game.next_state(game.initial_state(), 1)
    wins = sum(default_rollout(game, coin, rng)[0] > 0 for _ in range(4000))
    assert abs(wins / 4000 - 0.9) < 4 * (0.9 * 0.1 / 4000) ** 0.5


def test_a_chance_node_is_no_root() -> None:
    game = Gamble()
    coin = game.next_state(game.initial_state(), 1)
    with pytest.raises(InvalidStateError, match="chance node"):
        MCTS(Budget(iterations=10), SearchConfig(), 0).search(game, coin)


def test_the_search_never_reads_the_envs_future_dice() -> None:
    """The die is rolled after the call; a search that peeked would match every time."""
    matches = 0
    games = 120
    for seed in range(games):
        env = ToyEnv(DiceAfter())
        env.reset(seed=seed)
        agent = MCTSAgent(iterations=300, seed=seed)
        returns = play_game(env, {"player_0": agent, "player_1": agent})
        matches += returns["player_0"] > 0
    assert matches < 40  # binomial(120, 1/6): mean 20, sd 4.1


def test_two_envs_with_other_generators_give_the_same_search() -> None:
    results = []
    for env_seed in (1, 2):
        env = ToyEnv(DiceAfter())
        env.reset(seed=env_seed)
        results.append(MCTSAgent(iterations=500, seed=7).search(env))
    assert results[0].children == results[1].children
