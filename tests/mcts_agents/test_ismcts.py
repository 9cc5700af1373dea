"""Information Set MCTS, PIMC and the oracle on a toy game with a hidden card (values by hand).

``GuessCard``: a card of 3 is dealt face down; player 1 sees it and passes; player 0 guesses.
Without the card every guess is right 1 time in 3 (value -1/3); reading it, always.
"""

from __future__ import annotations

from typing import Any

import pytest

from mcts_agents import (
    ISMCTS,
    PIMC,
    Budget,
    InvalidStateError,
    MCTSAgent,
    SearchConfig,
    make_searcher,
)
from tests.mcts_agents.toy_games import GuessCard, ToyEnv

GAME = GuessCard(3)


def at_guess(card: int) -> Any:
    """The state where player 0 guesses, the hidden card being ``card``."""
    return GAME.next_state(GAME.next_state(GAME.initial_state(), card), 0)


def env_at_guess(seed: int) -> ToyEnv:
    env = ToyEnv(GAME)
    env.reset(seed=seed)  # the env deals with its own generator
    env.step(0)  # player 1 passes
    return env


@pytest.mark.parametrize("information", ["auto", "mo_ismcts", "so_ismcts", "pimc"])
def test_no_peeking_every_guess_is_worth_minus_a_third(information: str) -> None:
    config = SearchConfig(information=information)  # type: ignore[arg-type]
    result = make_searcher(GAME, Budget(iterations=3000), config, seed=0).search(GAME, at_guess(2))
    assert result.proven is None  # no proofs across hidden information
    for child in result.children:
        assert child.proven is None
        if information == "pimc":  # 20 worlds: each proves the card it drew and votes for it
            assert sum(result.extra["votes"].values()) == 20
            assert result.extra["votes"][result.best_action] == max(result.extra["votes"].values())
        else:
            assert child.visits > 500 and abs(child.value - (-1 / 3)) < 0.12
    assert sum(result.policy.values()) == pytest.approx(1.0)


@pytest.mark.parametrize("information", ["auto", "so_ismcts", "pimc", "oracle"])
def test_the_same_information_set_gives_the_same_search(information: str) -> None:
    """The invariant: states that differ only in what player 0 cannot see, same seed, same
    search (the oracle is the exception that proves the test can fail)."""
    results = []
    for card in range(3):
        searcher = make_searcher(
            GAME,
            Budget(iterations=400),
            SearchConfig(information=information),
            seed=5,  # type: ignore[arg-type]
        )
        results.append(searcher.search(GAME, at_guess(card)))
    same = all(r.children == results[0].children for r in results)
    assert same == (information != "oracle")


def test_the_agent_guesses_like_someone_who_cannot_see_the_card() -> None:
    right = 0
    games = 150
    for seed in range(games):
        env = env_at_guess(seed)
        right += MCTSAgent(iterations=200, seed=seed).act(env) == env.state[0]
    assert right < 75  # binomial(150, 1/3): mean 50, sd 5.8; a peeking agent gets 150


def test_the_oracle_reads_the_card_when_asked_by_name() -> None:
    for seed in range(10):
        env = env_at_guess(seed)
        agent = MCTSAgent(iterations=200, seed=seed, information="oracle")
        result = agent.search(env)
        assert result.best_action == env.state[0] and result.proven == "win"


def test_searching_hidden_cards_as_if_visible_is_refused() -> None:
    with pytest.raises(InvalidStateError, match="information='oracle'"):
        make_searcher(GAME, Budget(iterations=10), SearchConfig(information="perfect"))


def test_the_searchers_are_what_the_option_says() -> None:
    budget = Budget(iterations=10)
    mo = make_searcher(GAME, budget, SearchConfig())
    so = make_searcher(GAME, budget, SearchConfig(information="so_ismcts"))
    assert isinstance(mo, ISMCTS) and not mo.single_observer
    assert isinstance(so, ISMCTS) and so.single_observer
    assert isinstance(make_searcher(GAME, budget, SearchConfig(information="pimc")), PIMC)


def test_pimc_splits_the_budget_over_its_worlds() -> None:
    config = SearchConfig(information="pimc", determinizations=7)
    result = PIMC(Budget(iterations=700), config, seed=1).search(GAME, at_guess(0))
    assert result.extra["determinizations"] == 7
    # each world proves its own answer in a few simulations: the guess of the drawn card
    assert all(n <= 100 for n in result.extra["world_iterations"])
    assert result.proven is None
    votes = [result.extra["world_best_actions"].count(a) for a in range(3)]
    assert sum(votes) == 7 and votes[result.best_action] == max(votes)
    assert all(-1.0 <= c.value <= 1.0 for c in result.children)
