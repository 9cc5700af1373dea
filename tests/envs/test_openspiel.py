"""``openspiel_v0``: OpenSpiel's games played to their end, checked against ``pyspiel`` itself.

Every game the README lists is played to the end by our agent in every seat; the env's record
(chance outcomes and moves) is replayed on a fresh ``pyspiel`` state, which must agree at every
decision (player, legal actions, the observation tensor) and at the end (terminal exactly
there, the same returns). Also: seeding, save/restore, PettingZoo's API test, pickling, the
no-peek invariant, and clear errors for bad games and parameters and a missing OpenSpiel.
"""

from __future__ import annotations

import pickle
import random
import sys
from dataclasses import replace
from typing import Any

import numpy as np
import pytest
from pettingzoo.test import api_test

from mcts_agents import MCTSAgent
from mcts_agents.envs import InvalidParameterError, InvalidStateError, openspiel_v0
from mcts_agents.envs.games.openspiel import OpenSpielCore, SpielState

pyspiel = pytest.importorskip("pyspiel")

#: (game, params, iterations per move): every game the README names, bridge without its
#: double-dummy ending (which solves the deal at the end of the auction: slow, not rules).
GAMES = [
    ("kuhn_poker", {}, 30),
    ("kuhn_poker", {"players": 3}, 30),
    ("leduc_poker", {}, 30),
    ("oh_hell", {"players": 3, "num_suits": 2, "num_cards_per_suit": 4}, 10),
    ("euchre", {}, 6),
    ("hearts", {}, 3),
    ("gin_rummy", {}, 2),
    ("bridge", {"use_double_dummy_result": False}, 2),
    ("pig", {"winscore": 20}, 10),
    ("backgammon", {}, 2),
]


def play_to_the_end(env: Any, iterations: int, seed: int) -> tuple[list[Any], dict[str, float]]:
    """Our agent in every seat (a seed per seat); returns the decisions seen (player, mask,
    observation of the mover, action) and the rewards collected by ``last()``."""
    agents = {
        agent: MCTSAgent(iterations=iterations, seed=seed + i)
        for i, agent in enumerate(env.possible_agents)
    }
    decisions, collected = [], dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        observation, reward, termination, truncation, _ = env.last()
        collected[agent] += reward
        if termination or truncation:
            assert not truncation  # the env never cuts a game short
            env.step(None)
            continue
        action = agents[agent].act(env)
        decisions.append((agent, observation["action_mask"].copy(), observation, action))
        env.step(action)
    return decisions, collected


@pytest.mark.parametrize(("name", "params", "iterations"), GAMES, ids=[g[0] for g in GAMES])
def test_our_agent_plays_every_game_to_pyspiels_end(
    name: str, params: dict[str, Any], iterations: int
) -> None:
    env = openspiel_v0.env(game=name, **params)
    env.reset(seed=1)
    decisions, collected = play_to_the_end(env, iterations, seed=7)
    history = env.unwrapped.state.history
    reference = pyspiel.load_game(name, params).new_initial_state()
    seen = iter(decisions)
    moves = 0
    for action in history:
        if reference.is_chance_node():
            assert action in [a for a, _ in reference.chance_outcomes()]
        else:
            agent, mask, observation, played = next(seen)
            player = reference.current_player()
            assert agent == f"player_{player}" and played == action
            assert list(np.flatnonzero(mask)) == sorted(reference.legal_actions())
            kind = env.unwrapped.game.observation_kind
            expected = getattr(reference, kind)(player)
            np.testing.assert_array_equal(observation["observation"], np.float32(expected))
            moves += 1
        reference.apply_action(action)
    assert next(seen, None) is None and moves == len(decisions)
    assert reference.is_terminal()  # the game ended where OpenSpiel's does, not before
    assert [collected[f"player_{p}"] for p in range(len(collected))] == reference.returns()
    assert not env.agents


def test_reset_seed_gives_the_same_game_and_the_deal_is_the_envs() -> None:
    def deal(seed: int | None) -> tuple[int, ...]:
        env = openspiel_v0.env(game="leduc_poker")
        env.reset(seed=seed)
        rng = random.Random(0)
        while env.agents:
            if env.terminations[env.agent_selection]:
                env.step(None)
                continue
            env.step(rng.choice(env.unwrapped.legal_actions()))
        return env.unwrapped.state.history

    assert deal(3) == deal(3)
    assert len({deal(seed) for seed in range(8)}) > 1


def test_save_restore_round_trip_replays_the_same_chance() -> None:
    env = openspiel_v0.raw_env(game="pig", winscore=15)
    env.reset(seed=5)
    rng = random.Random(1)
    for _ in range(6):
        env.step(rng.choice(env.legal_actions()))
    snapshot = env.save_state()

    def finish() -> tuple[int, ...]:
        moves = random.Random(2)
        while not env.game.is_terminal(env.state):
            env.step(moves.choice(env.legal_actions()))
        return env.state.history

    first = finish()
    env.restore_state(snapshot)
    assert env.save_state() == snapshot
    assert finish() == first  # the generator came back too: the same dice
    fresh = openspiel_v0.raw_env(game="pig", winscore=15)
    fresh.reset(seed=0)
    fresh.restore_state(snapshot)
    assert finish() != () and fresh.state == snapshot.state


def test_forged_states_are_refused() -> None:
    env = openspiel_v0.raw_env(game="kuhn_poker")
    env.reset(seed=0)
    snapshot = env.save_state()
    game = env.game
    other = pyspiel.load_game("kuhn_poker").new_initial_state()
    for forged, match in [
        ((0, 1), "not a SpielState"),
        (SpielState((0, 0), other), "not legal"),  # both players dealt the jack
        (SpielState(snapshot.state.history, other), "pyspiel state"),
        (SpielState(("a",), other), "history"),
    ]:
        with pytest.raises(InvalidStateError, match=match):
            env.restore_state(replace(snapshot, state=forged))
        assert env.save_state() == snapshot
    assert game.is_reachable(env.state, (*env.state.history, 1))
    assert not game.is_reachable(env.state, env.state.history[:-1])


@pytest.mark.parametrize("name", ["leduc_poker", "hearts", "backgammon"])
def test_pettingzoo_api_test(name: str) -> None:
    api_test(openspiel_v0.env(game=name), num_cycles=40)


def test_states_and_cores_pickle() -> None:
    env = openspiel_v0.raw_env(game="leduc_poker", players=3)
    env.reset(seed=2)
    env.step(env.legal_actions()[-1])
    state, game = pickle.loads(pickle.dumps((env.state, env.game)))
    assert state == env.state and game == env.game and game.spec == env.game.spec
    assert str(state.spiel) == str(env.state.spiel)
    assert game.legal_actions(state) == env.game.legal_actions(env.state)


def test_the_search_reads_only_the_information_set() -> None:
    """Two Leduc deals the player to move cannot tell apart: one seed, one search."""
    found: dict[str, tuple[int, ...]] = {}
    for seed in range(60):
        env = openspiel_v0.env(game="leduc_poker")
        env.reset(seed=seed)
        state = env.unwrapped.state
        key = state.spiel.information_state_string(state.spiel.current_player())
        if key in found and found[key] != state.history:
            break
        found[key] = seed
    else:
        pytest.fail("no two deals in one information set in 60 seeds")
    results = []
    for env_seed in (found[key], seed):
        env = openspiel_v0.env(game="leduc_poker")
        env.reset(seed=env_seed)
        results.append(MCTSAgent(iterations=200, seed=4).search(env))
    assert results[0].children == results[1].children
    assert results[0].information == "mo_ismcts"


def test_bad_games_and_parameters_are_refused_clearly() -> None:
    with pytest.raises(InvalidParameterError, match=r"unknown OpenSpiel game 'kuhn'.*kuhn_poker"):
        openspiel_v0.env(game="kuhn")
    with pytest.raises(InvalidParameterError, match=r"no parameter.*'playerz'.*players=2"):
        openspiel_v0.env(game="leduc_poker", playerz=3)
    with pytest.raises(InvalidParameterError, match=r"players=30.*max_num_players"):
        openspiel_v0.env(game="leduc_poker", players=30)
    with pytest.raises(InvalidParameterError, match=r"players=\[2\].*expected a bool, int"):
        openspiel_v0.env(game="leduc_poker", players=[2])
    with pytest.raises(InvalidParameterError, match=r"goofspiel.*simultaneous moves"):
        openspiel_v0.env(game="goofspiel")
    with pytest.raises(InvalidParameterError, match="game must be"):
        openspiel_v0.env(game=3)


def test_a_missing_openspiel_names_the_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pyspiel", None)  # import pyspiel now fails
    with pytest.raises(ModuleNotFoundError, match="pip install open_spiel"):
        OpenSpielCore("kuhn_poker")


def test_a_game_without_a_redeal_says_so() -> None:
    game = OpenSpielCore("phantom_ttt")
    assert not game.perfect_information and not game.can_determinize
    with pytest.raises(InvalidStateError, match="resample_from_infostate"):
        game.determinize(game.initial_state(), 0, random.Random(0))


def replays_legally(name: str, history: tuple[int, ...]) -> bool:
    state = pyspiel.load_game(name).new_initial_state()
    for action in history:
        legal = (
            [a for a, _ in state.chance_outcomes()]
            if state.is_chance_node()
            else state.legal_actions()
        )
        if action not in legal:
            return False
        state.apply_action(action)
    return True


@pytest.mark.parametrize("name", ["hearts", "euchre"])
def test_redeals_are_worlds_the_play_allows(name: str) -> None:
    """OpenSpiel's own redeal of these games ignores what the play revealed (suits a player is
    void in) and gives impossible worlds; ``determinize`` keeps worlds whose history replays
    legally on a fresh ``pyspiel`` state (almost always: late in a hand with several players
    void, a consistent world can be too rare to find) and the player's information."""
    game = OpenSpielCore(name)
    rng = random.Random(0)
    impossible = consistent = decisions = 0
    for _ in range(2):
        state = game.initial_state()
        while not game.is_terminal(state):
            if game.is_chance(state):
                state = game.next_state(state, game.sample_chance(state, rng))
                continue
            player = game.to_play(state)
            raw = state.spiel.resample_from_infostate(player, rng.random)
            impossible += not replays_legally(name, tuple(raw.history()))
            world = game.determinize(state, player, rng)
            consistent += replays_legally(name, world.history)
            decisions += 1
            assert game.information_set(world, player) == game.information_set(state, player)
            actions = game.legal_actions(state)
            state = game.next_state(state, actions[int(rng.random() * len(actions))])
    assert impossible > 0  # the check is needed
    assert consistent >= 0.95 * decisions > impossible  # and finds a consistent world


def test_a_redeal_reads_only_the_information_set() -> None:
    """Hearts, passing to the left: two true states that differ only in the cards player 0
    passed to player 1, which player 2 has not seen, give player 2 the very same worlds."""
    game = OpenSpielCore("hearts")

    def passed(cards: list[int]) -> SpielState:
        state = game.next_state(game.initial_state(), 1)  # pass to the left
        while game.is_chance(state):
            state = game.next_state(state, game.legal_actions(state)[0])
        for card in cards:  # player 0 passes to player 1
            state = game.next_state(state, card)
        for _ in range(3):  # player 1 passes its three lowest
            state = game.next_state(state, game.legal_actions(state)[0])
        return state

    first, second = passed([0, 4, 8]), passed([40, 44, 48])
    assert first.history != second.history and game.to_play(first) == 2
    assert game.information_set(first, 2) == game.information_set(second, 2)
    worlds = [
        [game.determinize(state, 2, random.Random(seed)).history for seed in range(10)]
        for state in (first, second)
    ]
    assert worlds[0] == worlds[1]
    assert all(replays_legally("hearts", world) for world in worlds[0])


def test_the_spec_openspiel_game_in_the_cli_arena_and_web() -> None:
    from mcts_agents.agents.specs import parse_env_spec
    from mcts_agents.errors import SpecError

    spec = parse_env_spec("openspiel:leduc_poker:players=3")
    assert spec.kwargs == {"game": "leduc_poker", "players": 3}
    env = pickle.loads(pickle.dumps(spec))()
    assert env.unwrapped.game == OpenSpielCore("leduc_poker", players=3)
    assert parse_env_spec("openspiel").kwargs == {}  # kuhn_poker, the default
    for bad, match in [
        ("openspiel:kuhn", "unknown OpenSpiel game"),
        ("openspiel:leduc_poker:playerz=3", "no parameter"),
        ("openspiel:goofspiel", "simultaneous"),
    ]:
        with pytest.raises(SpecError, match=match):
            parse_env_spec(bad)
    pytest.importorskip("starlette")  # the web extra
    from mcts_agents.web.policy import ServerPolicy

    assert ServerPolicy().env_spec("openspiel:kuhn_poker").kwargs == {"game": "kuhn_poker"}
