"""``mcts_agents.adapters.openspiel``: ``OpenSpielGame`` through Shimmy's OpenSpiel wrapper.

Random games side by side with the Shimmy env, the live env left untouched by playouts, keys
that transpose, chance nodes and redeals that are the search's own, clear refusals, and one
search identical through PettingZoo and OpenSpiel.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from mcts_agents import Budget, MCTSAgent, SearchConfig, make_searcher
from mcts_agents.adapters import OpenSpielGame, game_from_env
from mcts_agents.errors import CloneError, GameOverError, IllegalActionError
from mcts_agents.search.game import CHANCE, default_rollout
from tests.mcts_agents.adapters.support import fingerprint, is_over, mask_actions, new_classic


@pytest.mark.parametrize("game_name", ["connect_four", "tic_tac_toe"])
def test_openspiel_game_agrees_with_shimmy_env(game_name: str) -> None:
    import shimmy

    for seed in range(5):
        env = shimmy.OpenSpielCompatibilityV0(game_name=game_name)
        env.reset(seed=seed)
        rng = random.Random(seed)
        game, state = game_from_env(env)
        assert isinstance(game, OpenSpielGame)
        assert state is not env.unwrapped.game_state  # a clone: the live state is never exposed
        while not is_over(env):
            before = fingerprint(env)
            fresh_game, fresh = game_from_env(env)
            assert fingerprint(env) == before
            assert fresh_game.key(fresh) == game.key(state)
            assert game.to_play(state) == env.possible_agents.index(env.agent_selection)
            assert game.legal_actions(state) == mask_actions(env)
            actions = game.legal_actions(state)
            action = actions[int(rng.random() * len(actions))]
            child = game.next_state(state, action)
            assert str(state) != str(child)  # the parent was not touched
            state = child
            env.step(action)
        assert game.is_terminal(state)
        expected = tuple(float(env._cumulative_rewards[a]) for a in env.possible_agents)
        assert game.returns(state) == expected
        with pytest.raises(GameOverError):
            game_from_env(env)


def test_openspiel_live_env_unchanged_by_playouts_and_keys_transpose() -> None:
    import shimmy

    env = shimmy.OpenSpielCompatibilityV0(game_name="connect_four")
    env.reset(seed=0)
    env.step(3)
    before = fingerprint(env)
    history = env.unwrapped.game_state.history()
    game, root = game_from_env(env)
    assert isinstance(game, OpenSpielGame)
    rng = random.Random(0)
    fast = [game.rollout(root, random.Random(s)) for s in range(20)]
    assert fast == [default_rollout(game, root, random.Random(s)) for s in range(20)]
    for _ in range(200):
        default_rollout(game, root, rng)
    assert fingerprint(env) == before
    assert env.unwrapped.game_state.history() == history

    def walk(moves: list[int]) -> Any:
        state = root
        for move in moves:
            state = game.next_state(state, move)
        return game.key(state)

    assert walk([0, 1, 2, 4]) == walk([2, 4, 0, 1]) == walk([2, 1, 0, 4])
    assert walk([0, 1, 2, 4]) != walk([1, 0, 2, 4])  # the players swap columns 0 and 1
    with pytest.raises(IllegalActionError):
        game.next_state(root, 99)


def shimmy_env(name: str, seed: int = 0) -> Any:
    import shimmy

    env = shimmy.OpenSpielCompatibilityV0(game_name=name)
    env.reset(seed=seed)
    return env


def test_games_without_a_redeal_or_with_simultaneous_moves_are_refused() -> None:
    with pytest.raises(CloneError, match=r"phantom_ttt.*resample_from_infostate.*'oracle'"):
        game_from_env(shimmy_env("phantom_ttt"))
    with pytest.raises(CloneError, match=r"goofspiel.*simultaneous"):
        game_from_env(shimmy_env("goofspiel"))


def test_chance_nodes_are_the_searchs_own() -> None:
    """Pig through Shimmy: OpenSpiel's chance player maps to CHANCE, outcomes keep their
    probabilities, returns their range, and playouts draw them by probability."""
    env = shimmy_env("pig")
    env.step(0)  # roll: Shimmy draws the die with its own generator
    game, state = game_from_env(env)
    assert isinstance(game, OpenSpielGame) and game.has_chance and game.perfect_information
    assert game.return_range == (-1.0, 1.0)
    rolled = game.next_state(state, 0)
    assert game.is_chance(rolled) and game.to_play(rolled) == CHANCE
    assert game.chance_outcomes(rolled) == [(face, pytest.approx(1 / 6)) for face in range(6)]
    result = MCTSAgent(iterations=300, seed=0).search(env)
    assert result.iterations == 300 and result.backend == "python"


def test_hidden_information_games_redeal_with_the_searchs_generator() -> None:
    """Kuhn poker: the player's information set is OpenSpiel's, and a redeal depends only on it
    and the generator: two deals the player cannot tell apart, one seed, one search."""
    import pyspiel

    game = OpenSpielGame(pyspiel.load_game("kuhn_poker"))
    assert not game.perfect_information and game.return_range == (-2.0, 2.0)
    searches = []
    for other_card in (1, 2):
        state = game.game.new_initial_state()
        state.apply_action(0)  # player 0 holds the jack
        state.apply_action(other_card)
        assert game.information_set(state, 0) == "0"
        worlds = [game.determinize(state, 0, random.Random(s)).history() for s in range(20)]
        assert {tuple(w[:1]) for w in worlds} == {(0,)} and {w[1] for w in worlds} == {1, 2}
        searches.append(
            make_searcher(game, Budget(iterations=300), SearchConfig(), seed=3).search(game, state)
        )
    assert searches[0].children == searches[1].children


def test_the_agent_plays_kuhn_through_shimmy_without_peeking() -> None:
    """The same information set in two live envs (other private cards dealt to player 1)."""
    found = {}
    for seed in range(40):
        env = shimmy_env("kuhn_poker", seed)
        state = env.unwrapped.game_state
        key = state.information_state_string(state.current_player())
        if key in found:
            break
        found[key] = (seed, state.history())
    else:
        pytest.skip("no two deals with the same information set in 40 seeds")
    results = []
    for seed_of_env in (found[key][0], seed):
        env = shimmy_env("kuhn_poker", seed_of_env)
        results.append(MCTSAgent(iterations=300, seed=1).search(env))
    assert results[0].children == results[1].children
    assert results[0].information == "mo_ismcts"


def test_search_is_identical_through_pettingzoo_and_openspiel_connect_four() -> None:
    """Two adapters over two implementations of one game: same seed, the very same search.

    PettingZoo's env is taken through the generic cloner here (``game_from_env`` gives it our
    rules core, whose fast playouts draw other moves).
    """
    import shimmy

    from mcts_agents.adapters.generic import env_game

    ours = new_classic("connect_four_v3")
    theirs = shimmy.OpenSpielCompatibilityV0(game_name="connect_four")
    theirs.reset(seed=0)
    for action in (3, 2):
        ours.step(action)
        theirs.step(action)
    budget, config = Budget(iterations=400), SearchConfig()
    results = [
        make_searcher(game, budget, config, seed=7).search(game, root)
        for game, root in (env_game(ours), game_from_env(theirs))
    ]
    visits = [sorted((c.action, c.visits) for c in r.children) for r in results]
    assert visits[0] == visits[1]
    assert sum(v for _, v in visits[0]) >= 399


def test_shimmys_early_truncation_says_why_and_names_our_env() -> None:
    """Shimmy 2.0.1 counts Kuhn's two dealt cards towards OpenSpiel's max_game_length of 3
    player moves, so it truncates after the first bet though OpenSpiel's game goes on."""
    env = shimmy_env("kuhn_poker")
    env.step(1)  # bet
    state = env.unwrapped.game_state
    assert not state.is_terminal() and all(env.truncations.values())  # Shimmy cut it short
    with pytest.raises(GameOverError, match=r"truncated.*max_game_length.*openspiel_v0"):
        MCTSAgent(iterations=10, seed=0).search(env)
    from mcts_agents.envs import openspiel_v0

    ours = openspiel_v0.env(game="kuhn_poker")
    ours.reset(seed=0)
    ours.step(1)
    assert MCTSAgent(iterations=10, seed=0).search(ours).iterations == 10  # plays on


def test_search_from_the_start_through_shimmy() -> None:
    """``search_from="start"`` deals from OpenSpiel's initial state with the search's own
    generator: two deals in one information set give one search."""
    import pyspiel

    game = OpenSpielGame(pyspiel.load_game("kuhn_poker"))
    assert game.initial_state().history() == []
    config = SearchConfig(search_from="start", smooth=0.1)
    searches = []
    for other_card in (1, 2):
        state = game.game.new_initial_state()
        state.apply_action(0)
        state.apply_action(other_card)
        searcher = make_searcher(game, Budget(iterations=300), config, seed=3)
        searches.append(searcher.search(game, state))
    assert searches[0].children == searches[1].children
    assert searches[0].search_from == "start" and searches[0].iterations == 300


@pytest.mark.parametrize("name", ["kuhn_poker", "leduc_poker"])
def test_kuhn_and_leduc_through_shimmy_are_searched_on_our_rules_cores(name: str) -> None:
    """Our cores have OpenSpiel's rules and ids: the Shimmy env's state read into ours has the
    same legal moves and player all game long, its information sets partition the histories as
    OpenSpiel's do, and it gets the compiled search."""
    from mcts_agents.envs.games.kuhn_poker import KuhnPoker
    from mcts_agents.envs.games.leduc_holdem import LeducHoldem

    core_type = KuhnPoker if name == "kuhn_poker" else LeducHoldem
    pairs = set()
    for seed in range(30):
        env = shimmy_env(name, seed)
        rng = random.Random(seed)
        while not is_over(env):
            spiel = env.unwrapped.game_state
            game, state = game_from_env(env)
            assert isinstance(game, core_type)
            player = spiel.current_player()
            assert game.to_play(state) == player
            assert sorted(game.legal_actions(state)) == sorted(spiel.legal_actions())
            pairs.add((spiel.information_state_string(player), game.information_set(state, player)))
            actions = mask_actions(env)
            env.step(actions[int(rng.random() * len(actions))])
    theirs, ours = {t for t, _ in pairs}, {o for _, o in pairs}
    assert len(pairs) == len(theirs) == len(ours) > 2  # one set of ours for each of theirs
    env = shimmy_env(name, 0)
    result = MCTSAgent(iterations=2000, seed=0).search(env)
    assert result.backend == "numba" and result.iterations >= 2000
