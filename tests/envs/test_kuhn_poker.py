"""Kuhn poker: every history against OpenSpiel's ``kuhn_poker``, information sets, determinization,
observations, rollouts, the env and its generator."""

from __future__ import annotations

import dataclasses
import itertools
import math
import random
import warnings
from collections import Counter, defaultdict
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from mcts_agents.envs import InvalidParameterError
from mcts_agents.envs.core.game import CHANCE, BoardGame
from mcts_agents.envs.games.kuhn_poker import KuhnPoker, State
from mcts_agents.envs.kuhn_poker_v0 import KuhnPokerEnv, env, raw_env
from tests.envs.conftest import assert_state_refused

pyspiel = pytest.importorskip("pyspiel")

PLAYERS = [2, 3]


def spiel_game(players: int = 2) -> Any:
    return pyspiel.load_game("kuhn_poker", {"players": players})


def chi_square_bound(df: int, z: float = 3.719) -> float:
    """The chi-square quantile for ``df`` degrees of freedom at the normal quantile ``z``
    (Wilson-Hilferty; z = 3.719 is a one-sided 1e-4)."""
    return df * (1 - 2 / (9 * df) + z * math.sqrt(2 / (9 * df))) ** 3


def chi_square(counts: dict[Any, int], probabilities: dict[Any, float]) -> tuple[float, int]:
    """The statistic and degrees of freedom of ``counts`` against ``probabilities``, outcomes
    expected fewer than 5 times pooled into one bin."""
    total = sum(counts.values())
    assert set(counts) <= set(probabilities)
    bins: list[tuple[float, int]] = []
    rare_expected, rare_seen = 0.0, 0
    for outcome, p in probabilities.items():
        if p * total >= 5:
            bins.append((p * total, counts.get(outcome, 0)))
        else:
            rare_expected += p * total
            rare_seen += counts.get(outcome, 0)
    if rare_expected > 0:
        bins.append((rare_expected, rare_seen))
    return sum((seen - e) ** 2 / e for e, seen in bins), len(bins) - 1


def both_histories(game: KuhnPoker, theirs: Any) -> Iterator[tuple[State, Any]]:
    """Every history, as (our state, OpenSpiel's state), walking both trees by OpenSpiel's ids."""
    stack = [(game.initial_state(), theirs.new_initial_state())]
    while stack:
        state, spiel = stack.pop()
        yield state, spiel
        for action in spiel.legal_actions():
            stack.append((game.next_state(state, action), spiel.child(action)))


def all_states(game: BoardGame[Any]) -> list[Any]:
    """Every history of our rules alone (no OpenSpiel)."""
    out, stack = [], [game.initial_state()]
    while stack:
        state = stack.pop()
        out.append(state)
        stack.extend(game.next_state(state, a) for a in game.legal_actions(state))
    return out


def assert_same_node(game: KuhnPoker, state: State, spiel: Any) -> None:
    """Terminal, chance, player to move, legal actions, chance outcomes, returns."""
    assert game.is_terminal(state) == spiel.is_terminal()
    assert game.is_chance(state) == spiel.is_chance_node()
    assert game.returns(state) == tuple(spiel.returns())
    if spiel.is_terminal():
        assert game.legal_actions(state) == []
        return
    assert game.legal_actions(state) == spiel.legal_actions()
    if spiel.is_chance_node():
        assert game.to_play(state) == CHANCE
        assert game.chance_outcomes(state) == spiel.chance_outcomes()
    else:
        assert game.to_play(state) == spiel.current_player()


class Partition:
    """Checks that our keys and OpenSpiel's strings partition the histories alike: each key
    always meets the same string and each string the same key."""

    def __init__(self) -> None:
        self.ours: dict[Any, str] = {}
        self.theirs: dict[str, Any] = {}

    def add(self, key: Any, text: str) -> None:
        assert self.ours.setdefault(key, text) == text, (key, text, self.ours[key])
        assert self.theirs.setdefault(text, key) == key, (text, key, self.theirs[text])


# ---------------------------------------------------------------------- against OpenSpiel
@pytest.mark.parametrize("players", [2, 3, 4])
def test_every_history_matches_openspiel(players: int) -> None:
    game = KuhnPoker(players)
    partitions = [Partition() for _ in range(players)]
    histories = 0
    for state, spiel in both_histories(game, spiel_game(players)):
        histories += 1
        assert_same_node(game, state, spiel)
        for p in range(players):
            partitions[p].add(game.information_set(state, p), spiel.information_state_string(p))
    assert histories == {2: 58, 3: 617, 4: 7886}[players]  # OpenSpiel's, counted just now
    for p in range(players):  # the partition is neither trivial nor one class per history
        assert 1 < len(partitions[p].ours) < histories


@pytest.mark.parametrize("players", [2, 3, 5])
def test_random_games_match_openspiel_move_for_move(players: int) -> None:
    game, theirs = KuhnPoker(players), spiel_game(players)
    partitions = [Partition() for _ in range(players)]
    outcomes = set()
    for seed in range(300):
        rng = random.Random(seed)
        state, spiel = game.initial_state(), theirs.new_initial_state()
        while True:
            assert_same_node(game, state, spiel)
            for p in range(players):
                partitions[p].add(game.information_set(state, p), spiel.information_state_string(p))
            if spiel.is_terminal():
                break
            if spiel.is_chance_node():
                outcomes_, weights = zip(*spiel.chance_outcomes(), strict=True)
                action = rng.choices(outcomes_, weights)[0]
            else:
                action = rng.choice(spiel.legal_actions())
            state = game.next_state(state, action)
            spiel.apply_action(action)
        outcomes.add(game.returns(state))
    assert len(outcomes) >= 4  # antes and bets won and lost by different seats


def test_counts_match_openspiel() -> None:
    for players in PLAYERS:
        game, theirs = KuhnPoker(players), spiel_game(players)
        ours = all_states(game)
        terminal = sum(game.is_terminal(s) for s in ours)
        decisions = [
            {game.information_set(s, p) for s in ours if game.to_play(s) == p}
            for p in range(players)
        ]
        spiel_terminal, spiel_sets = 0, [set() for _ in range(players)]
        stack = [theirs.new_initial_state()]
        spiel_histories = 0
        while stack:
            s = stack.pop()
            spiel_histories += 1
            if s.is_terminal():
                spiel_terminal += 1
                continue
            if not s.is_chance_node():
                spiel_sets[s.current_player()].add(s.information_state_string())
            stack.extend(s.child(a) for a in s.legal_actions())
        assert len(ours) == spiel_histories
        assert terminal == spiel_terminal
        assert [len(d) for d in decisions] == [len(d) for d in spiel_sets]
        if players == 2:  # the textbook game: 6 deals x 5 betting lines, 6 + 6 information sets
            assert (len(ours), terminal, [len(d) for d in decisions]) == (58, 30, [6, 6])
        else:
            assert (terminal, [len(d) for d in decisions]) == (312, [16, 16, 16])


def test_parameters_and_ranges_match_openspiel() -> None:
    for players in PLAYERS:
        game, theirs = KuhnPoker(players), spiel_game(players)
        assert game.return_range == (theirs.min_utility(), theirs.max_utility())
        assert game.num_actions == theirs.num_distinct_actions() == 2
        assert game.num_players == theirs.num_players() == players
    game = KuhnPoker()
    assert (game.has_chance, game.perfect_information, game.acyclic) == (True, False, True)
    assert game.name == "kuhn_poker" and game.params() == {"players": 2}
    assert game.observation_shape == (15,)
    assert KuhnPoker(2) == KuhnPoker() != KuhnPoker(3)


# ---------------------------------------------------------------------- scripted hands
J, Q, K = 0, 1, 2


def deal(game: KuhnPoker, *cards: int) -> State:
    state = game.initial_state()
    for card in cards:
        assert game.to_play(state) == CHANCE and card in game.legal_actions(state)
        state = game.next_state(state, card)
    return state


@pytest.mark.parametrize(
    ("cards", "bets", "returns"),
    [
        ((J, K), [0, 0], (-1.0, 1.0)),  # check, check: high card takes the antes
        ((K, J), [0, 0], (1.0, -1.0)),
        ((J, K), [1, 0], (1.0, -1.0)),  # bet, fold: the bluff wins
        ((J, K), [1, 1], (-2.0, 2.0)),  # bet, call: showdown for 2
        ((Q, J), [0, 1, 0], (-1.0, 1.0)),  # check, bet, fold
        ((Q, J), [0, 1, 1], (2.0, -2.0)),  # check, bet, call
    ],
)
def test_scripted_hands_end_with_the_expected_returns(
    cards: tuple[int, int], bets: list[int], returns: tuple[float, ...]
) -> None:
    game = KuhnPoker()
    state = deal(game, *cards)
    for bet in bets:
        assert not game.is_terminal(state) and game.legal_actions(state) == [0, 1]
        state = game.apply(state, [bet])
    assert game.is_terminal(state) and game.returns(state) == returns
    assert game.legal_actions(state) == []


def test_chance_nodes_deal_each_card_left_equally() -> None:
    game = KuhnPoker()
    root = game.initial_state()
    assert game.is_chance(root) and game.to_play(root) == CHANCE
    assert game.chance_outcomes(root) == [(0, 1 / 3), (1, 1 / 3), (2, 1 / 3)]
    after = game.next_state(root, Q)
    assert game.chance_outcomes(after) == [(J, 0.5), (K, 0.5)]
    assert game.legal_actions(after) == [J, K] and not game.is_legal(after, Q)
    with pytest.raises(TypeError, match="not a chance node"):
        game.chance_outcomes(deal(game, J, Q))
    rng = random.Random(7)
    counts = Counter(game.sample_chance(after, rng) for _ in range(4000))
    assert set(counts) == {J, K} and abs(counts[J] - 2000) < 4 * math.sqrt(1000)


# ---------------------------------------------------------------------- information
@pytest.mark.parametrize("players", PLAYERS)
def test_determinize_keeps_the_information_set_and_reads_only_it(players: int) -> None:
    game = KuhnPoker(players)
    states = all_states(game)
    for player in range(players):
        groups: dict[Any, list[State]] = defaultdict(list)
        for state in states:
            groups[game.information_set(state, player)].append(state)
        for key, members in groups.items():
            seed = hash(key) & 0xFFFF
            results = {game.determinize(s, player, random.Random(seed)) for s in members}
            assert len(results) == 1, (key, results)  # the same for every state of the set
            world = results.pop()
            assert game.information_set(world, player) == key
            cards = [c for c in world[1:] if c >= 0]
            assert len(cards) == len(set(cards))  # a real deal
            if key[1] >= 0:  # holding a card: every seat is dealt, the betting is kept
                assert -1 not in world[1:] and not game.is_chance(world)


@pytest.mark.parametrize("own", [J, Q, K])
def test_determinize_draws_the_opponent_card_uniformly(own: int) -> None:
    game = KuhnPoker()
    rng = random.Random(11)
    for player in (0, 1):
        cards = [own, next(c for c in (J, Q, K) if c != own)]
        state = deal(game, *(cards if player == 0 else cards[::-1]))
        state = game.apply(state, [0])  # one pass: mid-hand
        n = 6000
        counts = Counter(game.determinize(state, player, rng)[2 - player] for _ in range(n))
        unseen = {c for c in (J, Q, K) if c != own}
        assert set(counts) == unseen
        stat, df = chi_square(counts, dict.fromkeys(unseen, 0.5))
        assert stat < chi_square_bound(df)


def test_determinize_with_three_players_is_uniform_over_arrangements() -> None:
    game = KuhnPoker(3)
    state = game.apply(deal(game, 1, 3, 0), [0])
    rng = random.Random(5)
    n = 12000
    counts = Counter(game.determinize(state, 1, rng) for _ in range(n))
    expected = {
        (state[0], a, 3, b): 1 / 6 for a, b in itertools.permutations((0, 1, 2), 2)
    }  # seat 1 holds 3: seats 0 and 2 get two of the other three, in any order
    assert set(counts) == set(expected)
    stat, df = chi_square(counts, expected)
    assert stat < chi_square_bound(df)


@pytest.mark.parametrize("players", PLAYERS)
def test_observation_is_exactly_a_function_of_the_information_set(players: int) -> None:
    game = KuhnPoker(players)
    for player in range(players):
        seen: dict[bytes, Any] = {}
        keys: dict[Any, bytes] = {}
        for state in all_states(game):
            obs = game.observation(state, player)
            assert obs.dtype == np.int8 and obs.shape == game.observation_shape
            assert set(np.unique(obs)) <= {0, 1}
            key, raw = game.information_set(state, player), obs.tobytes()
            assert keys.setdefault(key, raw) == raw  # equal within an information set
            assert seen.setdefault(raw, key) == key  # different across information sets


def test_observation_vectors_have_the_documented_layout() -> None:
    game = KuhnPoker()
    state = game.apply(deal(game, K, J), [0, 1])  # pass, bet; player 0 to act
    expected_public = [1, 0, 0, 1, 0, 0, 1, 0, 1, 1]  # pass, bet, -; chips 1 and 2
    np.testing.assert_array_equal(game.observation(state, 0), [1, 0, 0, 0, 1, *expected_public])
    np.testing.assert_array_equal(game.observation(state, 1), [0, 1, 1, 0, 0, *expected_public])
    root = game.initial_state()
    np.testing.assert_array_equal(game.observation(root, 1), [0, 1] + [0] * 9 + [1, 0, 1, 0])


def test_information_set_keys_hold_only_what_the_seat_has_seen() -> None:
    game = KuhnPoker()
    root = game.initial_state()
    one = game.next_state(root, K)
    two = game.next_state(one, J)
    # seat 1 sees nothing while seat 0 is dealt; seat 0 cannot tell whether seat 1 has a card
    assert game.information_set(root, 1) == game.information_set(one, 1) == (1, -1, 2)
    assert game.information_set(one, 0) == game.information_set(two, 0) == (0, K, 2)
    assert game.information_set(two, 1) == (1, J, 2)
    bet = game.next_state(two, 1)
    assert game.information_set(bet, 1) != game.information_set(two, 1)
    assert isinstance(hash(game.information_set(bet, 0)), int)


# ---------------------------------------------------------------------- rollouts
def exact_random_play_returns(theirs: Any) -> dict[tuple[float, ...], float]:
    """OpenSpiel's distribution of returns under uniformly random play (chance by its odds)."""
    dist: dict[tuple[float, ...], float] = defaultdict(float)
    stack = [(theirs.new_initial_state(), 1.0)]
    while stack:
        s, p = stack.pop()
        if s.is_terminal():
            dist[tuple(s.returns())] += p
        elif s.is_chance_node():
            stack.extend((s.child(a), p * q) for a, q in s.chance_outcomes())
        else:
            actions = s.legal_actions()
            stack.extend((s.child(a), p / len(actions)) for a in actions)
    return dict(dist)


@pytest.mark.parametrize("players", PLAYERS)
def test_rollout_has_the_distribution_of_random_play(players: int) -> None:
    game = KuhnPoker(players)
    exact = exact_random_play_returns(spiel_game(players))
    assert abs(sum(exact.values()) - 1.0) < 1e-9
    for rollout in (game.rollout, lambda s, r: BoardGame.rollout(game, s, r)):
        rng = random.Random(3)
        counts = Counter(rollout(game.initial_state(), rng) for _ in range(20000))
        stat, df = chi_square(counts, exact)
        assert df >= 3 and stat < chi_square_bound(df)


# ---------------------------------------------------------------------- errors and text
@pytest.mark.parametrize("players", [1, 0, 11, -2, 2.0, "2", True, None])
def test_bad_parameters_raise_clear_errors(players: Any) -> None:
    with pytest.raises(InvalidParameterError, match=rf"players must be an int.*{players!r}"):
        KuhnPoker(players)
    with pytest.raises(InvalidParameterError, match="players"):
        KuhnPokerEnv(players=players)


def test_render_and_action_names() -> None:
    game = KuhnPoker()
    root = game.initial_state()
    assert game.action_to_string(root, K) == "deal K to player 0"
    state = game.apply(deal(game, Q, K), [1])
    assert game.action_to_string(state, 0) == "pass" and game.action_to_string(state, 1) == "bet"
    assert game.render_text(state) == (
        "cards: player 0 Q, player 1 K\nbetting: bet\npot 3; chips in: 2 1\nplayer 1 to play"
    )
    end = game.apply(state, [1])
    assert game.render_text(end).endswith("player 1 wins 2")
    with pytest.raises(TypeError, match="no board"):
        game.grid(end)


# ---------------------------------------------------------------------- the env
def test_env_passes_the_pettingzoo_api_and_seed_tests() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for players in PLAYERS:
            api_test(env(players=players), num_cycles=200, verbose_progress=False)
        seed_test(env, num_cycles=50)
    raw = raw_env(render_mode="ansi")
    assert raw.metadata["name"] == "kuhn_poker_v0"
    assert raw.metadata["render_modes"] == ["ansi", "human"]
    with pytest.raises(InvalidParameterError, match="render_mode"):
        raw_env(render_mode="rgb_array")
    raw.reset(seed=0)
    assert raw.render() == raw.game.render_text(raw.state)


def test_same_seed_same_deals_and_observations() -> None:
    deals = set()
    for seed in range(60):
        a, b = raw_env(), raw_env()
        a.reset(seed=seed)
        b.reset(seed=seed)
        assert a.state == b.state
        for agent in a.possible_agents:
            np.testing.assert_array_equal(
                a.observe(agent)["observation"], b.observe(agent)["observation"]
            )
        deals.add(a.state[1:])
    assert len(deals) == 6  # and different seeds deal every one of the six deals


def play_env(raw: KuhnPokerEnv, rng: random.Random) -> list[int]:
    """Random moves to the end through ``step``; agents only ever see decisions."""
    moves = []
    while not raw.game.is_terminal(raw.state):
        assert not raw.game.is_chance(raw.state)
        assert raw.agent_selection == f"player_{raw.game.to_play(raw.state)}"
        action = rng.choice(raw.legal_actions())
        raw.step(action)
        moves.append(action)
    return moves


@pytest.mark.parametrize("players", PLAYERS)
def test_env_games_pay_openspiel_returns(players: int) -> None:
    raw, theirs = raw_env(players=players), spiel_game(players)
    rng = random.Random(2)
    for seed in range(100):
        raw.reset(seed=seed)
        cards = raw.state[1:]
        moves = play_env(raw, rng)
        spiel = theirs.new_initial_state()
        for action in (*cards, *moves):
            spiel.apply_action(action)
        assert spiel.is_terminal()
        rewards = tuple(raw.rewards[agent] for agent in raw.possible_agents)
        assert rewards == raw.game.returns(raw.state) == tuple(spiel.returns())
        assert all(raw.terminations.values())


def test_save_restore_carries_the_generator() -> None:
    raw = raw_env()
    rng = random.Random(4)
    next_deals = set()
    for seed in range(30):
        raw.reset(seed=seed)
        raw.step(0)
        snapshot = raw.save_state()
        moves = play_env(raw, rng)
        raw.reset()  # the next deal comes from the env's generator
        first = raw.state
        raw.restore_state(snapshot)
        for action in moves:
            raw.step(action)
        raw.reset()
        assert raw.state == first
        next_deals.add(first)
        raw.restore_state(dataclasses.replace(snapshot))
        assert raw.save_state() == snapshot
    assert len(next_deals) > 1


def test_observations_never_show_the_opponent_card() -> None:
    raw = raw_env()
    game = raw.game
    rng = random.Random(9)
    for seed in range(40):
        raw.reset(seed=seed)
        for _ in range(rng.randrange(2)):
            raw.step(rng.choice(raw.legal_actions()))
        snapshot = raw.save_state()
        state = snapshot.state
        for player, agent in enumerate(raw.possible_agents):
            other = 1 - player
            mine = raw.observe(agent)["observation"]
            theirs = raw.observe(raw.possible_agents[other])["observation"]
            for card in {J, Q, K} - {state[1 + player], state[1 + other]}:
                swapped = list(state)
                swapped[1 + other] = card
                raw.restore_state(dataclasses.replace(snapshot, state=tuple(swapped)))
                np.testing.assert_array_equal(raw.observe(agent)["observation"], mine)
                assert raw.information_set(agent) == game.information_set(state, player)
                # the opponent's own view does change: the check can fail
                assert not np.array_equal(
                    raw.observe(raw.possible_agents[other])["observation"], theirs
                )
            raw.restore_state(snapshot)


def test_wrapped_env_plays_and_pays() -> None:
    wrapped = env()
    wrapped.reset(seed=3)
    for action in (1, 1):  # bet, call: a showdown for 2
        wrapped.step(action)
    rewards = sorted(wrapped.rewards.values())
    assert rewards == [-2.0, 2.0] and all(wrapped.terminations.values())


def test_forged_kuhn_states_are_refused_naming_the_problem() -> None:
    raw = raw_env()
    raw.reset(seed=0)
    forged = [
        ((2, 1, 1), "a card is dealt twice"),
        ((0, 1, -1), "expected the first 0 seats dealt"),
        ((2, 0, -1), "expected the first 2 seats dealt"),
        ((2, 0, 5), "card_1 must be in"),
        ((99, 0, 1), "node must be in"),
        ((2, 0), "tuple of 3 fields"),
    ]
    for state, match in forged:
        assert_state_refused(raw, state, match)


def test_kuhn_is_reachable_keeps_the_deal_and_the_betting() -> None:
    """Kuhn's is_reachable was True for any key: now a key with another deal or an earlier
    betting node is unreachable, and every later key of the hand is reachable."""
    raw = raw_env()
    raw.reset(seed=1)
    node, c0, c1 = raw.state
    assert node == 2
    assert not raw.is_reachable((2, c1, c0))  # the cards swapped
    assert not raw.is_reachable((0, -1, -1))  # before the deal
    raw.step(0)  # pass
    assert raw.is_reachable(raw.state)
    assert not raw.is_reachable((2, c0, c1))  # the betting only grows
