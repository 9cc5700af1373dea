"""Information Set MCTS, PIMC and the oracle on a toy game with a hidden card (values by hand).

``GuessCard``: a card of 3 is dealt face down; player 1 sees it and passes; player 0 guesses.
Without the card every guess is right 1 time in 3 (value -1/3); reading it, always.
"""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

import pytest

from mcts_agents import Budget, MCTSAgent, SearchConfig, envs, make_searcher
from mcts_agents.errors import InvalidOptionError, InvalidStateError
from mcts_agents.search import ISMCTS, PIMC
from tests.envs.conftest import VARIANTS
from tests.mcts_agents.search.toy_games import GuessCard, ToyEnv

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
            assert sum(n for _, n in result.votes) == 20
            assert dict(result.votes)[result.best_action] == max(n for _, n in result.votes)
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
    assert len(result.worlds) == 7
    # each world proves its own answer in a few simulations: the guess of the drawn card
    assert all(n <= 100 for n in [w.iterations for w in result.worlds])
    assert result.proven is None
    votes = [[w.best_action for w in result.worlds].count(a) for a in range(3)]
    assert sum(votes) == 7 and votes[result.best_action] == max(votes)
    assert all(-1.0 <= c.value <= 1.0 for c in result.children)


# --------------------------------------------------------------------------- our envs
HIDDEN = [v for v in VARIANTS if not envs.load(v[0]).raw_env(**v[2]).game.perfect_information]


def mid_game(module: str, kwargs: dict[str, Any], seed: int) -> Any:
    """A raw env a few random moves into a game, not over."""
    env = envs.load(module).raw_env(**kwargs)
    env.reset(seed=seed)
    rng = random.Random(seed)
    for _ in range(rng.randrange(6)):
        game, state = env.game, env.state
        action = rng.choice(env.legal_actions())
        if game.is_terminal(game.next_state(state, action)):
            break
        env.step(action)
    return env


@pytest.mark.parametrize(("module", "variant", "kwargs"), HIDDEN, ids=[v[1] for v in HIDDEN])
def test_the_invariant_on_every_hidden_information_env(
    module: str, variant: str, kwargs: dict[str, Any]
) -> None:
    """Two live envs whose states lie in one information set of the player to move (the second
    made by redealing what that player cannot see): one agent seed, one search."""
    differed = 0
    for seed in range(4):
        env = mid_game(module, kwargs, seed)
        game, player = env.game, game_player(env)
        twin = envs.load(module).raw_env(**kwargs)
        twin.reset(seed=seed + 100)
        other = game.determinize(env.state, player, random.Random(seed))
        twin.restore_state(replace(env.save_state(), state=other))
        assert game.information_set(other, player) == game.information_set(env.state, player)
        differed += other != env.state
        first = MCTSAgent(iterations=300, seed=seed).search(env)
        second = MCTSAgent(iterations=300, seed=seed).search(twin)
        assert first.children == second.children and first.information == "mo_ismcts"
    assert differed  # the hidden part really differed somewhere


def game_player(env: Any) -> int:
    return env.possible_agents.index(env.agent_selection)


def test_the_table_is_kept_from_move_to_move_by_information_set() -> None:
    from mcts_agents.envs import leduc_holdem_v0

    env = leduc_holdem_v0.raw_env()
    env.reset(seed=3)
    agent = MCTSAgent(iterations=2000, seed=0, backend="python")  # the compiled one keeps all
    first = agent.search(env)
    assert first.reused_nodes == 0
    env.step(first.best_action)
    while env.agents and env.agent_selection != "player_0":  # the other player answers
        env.step(agent.searcher.rng.choice(env.legal_actions()))  # type: ignore[union-attr]
        if env.game.is_terminal(env.state):
            pytest.skip("the hand ended")
    if env.game.is_terminal(env.state):
        pytest.skip("the hand ended")
    second = agent.search(env)
    assert second.reused_nodes > 0 and second.pruned_nodes > 0


def test_single_and_multiple_observer_key_the_opponents_nodes_differently() -> None:
    """MO keys an opponent's node by the opponent's cards (many keys per public history);
    SO by ours (one key per public history)."""
    from mcts_agents.envs.games.kuhn_poker import KuhnPoker

    game = KuhnPoker()
    state = game.initial_state()
    while game.is_chance(state):
        state = game.next_state(state, game.chance_outcomes(state)[0][0])
    tables = {}
    for mode in ("mo_ismcts", "so_ismcts"):
        search = ISMCTS(Budget(iterations=500), SearchConfig(information=mode), seed=0)
        search.search(game, state)
        tables[mode] = [key for key in search.table_keys() if key[0] == 1]  # player 1's nodes
    assert len(tables["mo_ismcts"]) == 2 * len(tables["so_ismcts"])  # 2 cards player 1 may hold


def test_self_play_from_the_start_reads_nothing_of_the_true_state() -> None:
    """``search_from="start"``: simulations begin at the game's start; the current decision's
    node collects the visits; other hidden cards, the same search."""
    from mcts_agents.envs.games.kuhn_poker import KuhnPoker

    game = KuhnPoker()
    results = []
    for other_card in (1, 2):
        state = game.apply(game.initial_state(), [0, other_card])
        config = SearchConfig(search_from="start", smooth=0.1)
        results.append(ISMCTS(Budget(iterations=3000), config, seed=4).search(game, state))
    assert results[0].children == results[1].children
    assert results[0].search_from == "start"
    assert sum(c.visits for c in results[0].children) > 500  # a third of the deals are ours


def test_a_decision_self_play_never_reached_is_searched_from_here_within_the_time() -> None:
    """Self-play from the start of Oh Hell never reaches a hand in mid-trick in 0.2 s; the
    fallback search from the information set gets what is left of the time limit, not a second
    0.2 s."""
    from mcts_agents.envs.games.oh_hell import OhHell

    game = OhHell(num_tricks_fixed=4)
    state, rng, moves = game.initial_state(), random.Random(3), 0
    while game.is_chance(state) or moves < 5:  # deal, three bids, two cards of the first trick
        if game.is_chance(state):
            state = game.next_state(state, game.sample_chance(state, rng))
        else:
            state = game.next_state(state, rng.choice(game.legal_actions(state)))
            moves += 1
    config = SearchConfig(search_from="start")
    budgets: list[Budget] = []
    original = ISMCTS.__init__

    def recording(self: ISMCTS, budget: Budget, *args: Any, **kwargs: Any) -> None:
        budgets.append(budget)
        original(self, budget, *args, **kwargs)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(ISMCTS, "__init__", recording)
        result = ISMCTS(Budget(time_limit=0.2), config, seed=0).search(game, state)
    assert result.search_from == "here" and result.self_play_iterations > 0
    assert result.iterations > result.self_play_iterations
    assert len(budgets) == 2 and budgets[0].time_limit == 0.2
    fallback = budgets[1].time_limit  # the rest of the 0.2 s (it was another 0.2 s before)
    assert fallback is not None and 0.2 / 10 <= fallback < 0.2
    assert result.elapsed >= 0.2  # both searches are counted


@pytest.mark.parametrize("selection", ["ucb1_tuned", "puct", "gumbel"])
@pytest.mark.parametrize("information", ["mo_ismcts", "so_ismcts"])
def test_a_selection_information_set_mcts_does_not_apply_is_refused(
    selection: str, information: str
) -> None:
    config = SearchConfig(information=information, selection=selection)
    with pytest.raises(InvalidOptionError, match=f"selection='{selection}'"):
        ISMCTS(Budget(iterations=10), config, seed=0)
    agent = MCTSAgent(iterations=10, seed=0, information=information, selection=selection)
    with pytest.raises(InvalidOptionError, match=f"selection='{selection}'"):
        agent.act(env_at_guess(0))  # the agent's search of a hidden-information env


def test_pimc_takes_another_selection_for_its_worlds() -> None:
    config = SearchConfig(information="pimc", selection="ucb1_tuned", determinizations=2)
    searcher = make_searcher(GAME, Budget(iterations=20), config, seed=0)
    assert isinstance(searcher, PIMC)
