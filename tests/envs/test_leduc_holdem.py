"""Leduc hold'em: every history against OpenSpiel's ``leduc_poker`` (default and each parameter),
information sets, determinization, observations, rollouts, the env and its generator."""

from __future__ import annotations

import dataclasses
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
from mcts_agents.envs.games.leduc_holdem import LeducHoldem, State
from mcts_agents.envs.leduc_holdem_v0 import LeducHoldemEnv, env, raw_env
from tests.envs.conftest import assert_state_refused

pyspiel = pytest.importorskip("pyspiel")

VARIANTS: list[dict[str, Any]] = [
    {},
    {"suit_isomorphism": True},
    {"action_mapping": True},
    {"starting_player": 1},
]
IDS = ["default", "suit_isomorphism", "action_mapping", "starting_player_1"]
FOLD, CALL, RAISE = 0, 1, 2
J1, J2, Q1, Q2, K1, K2 = range(6)


def spiel_game(**params: Any) -> Any:
    return pyspiel.load_game("leduc_poker", params)


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


def both_histories(game: LeducHoldem, theirs: Any) -> Iterator[tuple[State, Any]]:
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


def assert_same_node(game: LeducHoldem, state: State, spiel: Any) -> None:
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
@pytest.mark.parametrize("params", VARIANTS, ids=IDS)
def test_every_history_matches_openspiel(params: dict[str, Any]) -> None:
    game = LeducHoldem(**params)
    partitions = [Partition(), Partition()]
    histories = 0
    for state, spiel in both_histories(game, spiel_game(**params)):
        histories += 1
        assert_same_node(game, state, spiel)
        for p in (0, 1):
            partitions[p].add(game.information_set(state, p), spiel.information_state_string(p))
    # OpenSpiel's counts, read off its tree just now
    expected = 1939 if params.get("suit_isomorphism") else 9457
    assert histories == (44527 if params.get("action_mapping") else expected)
    # every history's string: 3247 and 3241 (seat 1 sees nothing while seat 0 is dealt)
    if not params.get("suit_isomorphism"):
        assert [len(p.ours) for p in partitions] == [3247, 3241]


@pytest.mark.parametrize("params", VARIANTS, ids=IDS)
def test_random_games_match_openspiel_move_for_move(params: dict[str, Any]) -> None:
    game, theirs = LeducHoldem(**params), spiel_game(**params)
    partitions = [Partition(), Partition()]
    outcomes = set()
    for seed in range(500):
        rng = random.Random(seed)
        state, spiel = game.initial_state(), theirs.new_initial_state()
        while True:
            assert_same_node(game, state, spiel)
            for p in (0, 1):
                partitions[p].add(game.information_set(state, p), spiel.information_state_string(p))
            if spiel.is_terminal():
                break
            if spiel.is_chance_node():
                cards, weights = zip(*spiel.chance_outcomes(), strict=True)
                action = rng.choices(cards, weights)[0]
            else:
                action = rng.choice(spiel.legal_actions())
            state = game.next_state(state, action)
            spiel.apply_action(action)
        outcomes.add(game.returns(state))
    assert len(outcomes) >= 10  # folds, showdowns and splits of many sizes


@pytest.mark.parametrize("params", VARIANTS[:2], ids=IDS[:2])
def test_counts_match_openspiel(params: dict[str, Any]) -> None:
    game, theirs = LeducHoldem(**params), spiel_game(**params)
    ours = all_states(game)
    terminal = sum(game.is_terminal(s) for s in ours)
    decisions = [{game.information_set(s, p) for s in ours if game.to_play(s) == p} for p in (0, 1)]
    spiel_histories = spiel_terminal = 0
    spiel_sets: list[set[str]] = [set(), set()]
    stack = [theirs.new_initial_state()]
    while stack:
        s = stack.pop()
        spiel_histories += 1
        if s.is_terminal():
            spiel_terminal += 1
            continue
        if not s.is_chance_node():
            spiel_sets[s.current_player()].add(s.information_state_string())
        stack.extend(s.child(a) for a in s.legal_actions())
    assert (len(ours), terminal) == (spiel_histories, spiel_terminal)
    assert [len(d) for d in decisions] == [len(d) for d in spiel_sets]
    # the published sizes: 936 information sets (288 with suits merged), 468 (144) a player
    if params:
        assert (len(ours), terminal, [len(d) for d in decisions]) == (1939, 1116, [144, 144])
    else:
        assert (len(ours), terminal, [len(d) for d in decisions]) == (9457, 5520, [468, 468])


def test_parameters_and_ranges_match_openspiel() -> None:
    for params in VARIANTS:
        game, theirs = LeducHoldem(**params), spiel_game(**params)
        assert game.return_range == (theirs.min_utility(), theirs.max_utility()) == (-13, 13)
        assert game.num_actions == theirs.num_distinct_actions() == 3
        assert game.num_cards == theirs.max_chance_outcomes()
        assert game.params() == {**theirs.get_parameters(), "players": 2}
    game = LeducHoldem()
    assert (game.has_chance, game.perfect_information, game.acyclic) == (True, False, True)
    assert game.name == "leduc_holdem" and game.observation_shape == (69,)
    assert LeducHoldem(suit_isomorphism=True).observation_shape == (63,)
    assert LeducHoldem() == LeducHoldem(starting_player=0) != LeducHoldem(starting_player=1)


# ---------------------------------------------------------------------- scripted hands
def deal(game: LeducHoldem, c0: int, c1: int) -> State:
    state = game.initial_state()
    for card in (c0, c1):
        assert game.to_play(state) == CHANCE and card in game.legal_actions(state)
        state = game.next_state(state, card)
    return state


def play(game: LeducHoldem, state: State, moves: list[int], public: int | None = None) -> State:
    """Betting ``moves``; the public card ``public`` is dealt when round 1 ends."""
    for move in moves:
        if game.is_chance(state):
            assert public is not None and public in game.legal_actions(state)
            state = game.next_state(state, public)
        assert move in game.legal_actions(state), (move, game.legal_actions(state))
        state = game.next_state(state, move)
    if game.is_chance(state) and public is not None:
        state = game.next_state(state, public)
    return state


@pytest.mark.parametrize(
    ("cards", "public", "moves", "returns"),
    [
        ((K1, J1), Q1, [CALL, CALL, CALL, CALL], (1.0, -1.0)),  # checked down: high card
        ((K1, J1), J2, [CALL, CALL, CALL, CALL], (-1.0, 1.0)),  # a pair beats a king
        ((Q1, Q2), K1, [CALL, CALL, CALL, CALL], (0.0, 0.0)),  # equal ranks split
        ((K1, J1), Q1, [RAISE, FOLD], (1.0, -1.0)),  # fold to a raise: lose the ante
        ((K1, J1), Q1, [RAISE, RAISE, FOLD], (-3.0, 3.0)),  # fold after raising: lose 3
        ((K1, J1), Q1, [RAISE, CALL, RAISE, FOLD], (3.0, -3.0)),  # round 2 fold: lose 3
        ((K1, J1), Q1, [RAISE, CALL, RAISE, CALL], (7.0, -7.0)),  # raises of 2, then 4
        ((J1, K1), Q1, [CALL, RAISE, RAISE, CALL, RAISE, RAISE, CALL], (-13.0, 13.0)),  # the max
    ],
)
def test_scripted_hands_end_with_the_expected_returns(
    cards: tuple[int, int], public: int, moves: list[int], returns: tuple[float, float]
) -> None:
    game = LeducHoldem()
    state = play(game, deal(game, *cards), moves, public)
    assert game.is_terminal(state) and game.returns(state) == returns
    assert game.legal_actions(state) == []


def test_legal_actions_follow_the_betting() -> None:
    game = LeducHoldem()
    state = deal(game, K1, J1)
    assert game.legal_actions(state) == [CALL, RAISE]  # no fold without a raise to face
    state = play(game, state, [RAISE])
    assert game.legal_actions(state) == [FOLD, CALL, RAISE]
    state = play(game, state, [RAISE])
    assert game.legal_actions(state) == [FOLD, CALL]  # two raises a round at most
    state = play(game, state, [CALL])
    assert game.is_chance(state) and game.to_play(state) == CHANCE
    assert game.chance_outcomes(state) == [(c, 0.25) for c in (J2, Q1, Q2, K2)]
    state = game.next_state(state, Q2)
    assert game.to_play(state) == 0 and game.legal_actions(state) == [CALL, RAISE]
    assert LeducHoldem(starting_player=1).to_play(deal(LeducHoldem(), K1, J1)) == 1
    mapped = LeducHoldem(action_mapping=True)
    start = deal(mapped, K1, J1)
    assert mapped.legal_actions(start) == [FOLD, CALL, RAISE]
    assert mapped.next_state(start, FOLD) == mapped.next_state(start, CALL)
    assert mapped.action_to_string(start, FOLD) == "fold (plays as check)"


def test_chance_outcomes_and_sampling() -> None:
    game = LeducHoldem()
    root = game.initial_state()
    assert game.chance_outcomes(root) == [(c, 1 / 6) for c in range(6)]
    assert game.chance_outcomes(game.next_state(root, Q2)) == [
        (c, 0.2) for c in (J1, J2, Q1, K1, K2)
    ]
    iso = LeducHoldem(suit_isomorphism=True)
    first = iso.next_state(iso.initial_state(), 1)  # seat 0 holds a queen
    assert iso.chance_outcomes(first) == [(0, 0.4), (1, 0.2), (2, 0.4)]
    with pytest.raises(TypeError, match="not a chance node"):
        game.chance_outcomes(deal(game, K1, J1))
    rng = random.Random(1)
    counts = Counter(iso.sample_chance(first, rng) for _ in range(10000))
    stat, df = chi_square(counts, {0: 0.4, 1: 0.2, 2: 0.4})
    assert stat < chi_square_bound(df)


# ---------------------------------------------------------------------- information
@pytest.mark.parametrize("params", VARIANTS[:2], ids=IDS[:2])
def test_determinize_keeps_the_information_set_and_reads_only_it(params: dict[str, Any]) -> None:
    game = LeducHoldem(**params)
    states = all_states(game)
    copies = 2 if params.get("suit_isomorphism") else 1
    for player in (0, 1):
        groups: dict[Any, list[State]] = defaultdict(list)
        for state in states:
            groups[game.information_set(state, player)].append(state)
        for key, members in groups.items():
            seed = hash(key) & 0xFFFF
            results = {game.determinize(s, player, random.Random(seed)) for s in members}
            assert len(results) == 1, (key, results)  # the same for every state of the set
            world = results.pop()
            assert game.information_set(world, player) == key
            cards = Counter(c for c in world[1:] if c >= 0)
            assert all(n <= copies for n in cards.values())  # a real deal
            if key[2] >= 0 and world[0] != 1:  # a card in hand: the opponent's is drawn
                assert -1 not in world[1:3]


@pytest.mark.parametrize("player", [0, 1])
def test_determinize_draws_the_opponent_card_uniformly(player: int) -> None:
    game = LeducHoldem()
    rng = random.Random(17 + player)
    n = 10000
    own, truth = K1, Q2
    preflop = deal(game, *((own, truth) if player == 0 else (truth, own)))
    flop = play(game, preflop, [CALL, CALL], public=J1)
    for state, unseen in ((preflop, {J1, J2, Q1, Q2, K2}), (flop, {J2, Q1, Q2, K2})):
        counts = Counter(game.determinize(state, player, rng)[2 - player] for _ in range(n))
        assert set(counts) == unseen
        stat, df = chi_square(counts, dict.fromkeys(unseen, 1 / len(unseen)))
        assert stat < chi_square_bound(df)
    # a showdown shows the result: only cards that beat a king without a pair are left out
    end = play(game, flop, [CALL, CALL])
    assert game.returns(end)[player] == 1.0  # the king beat the queen
    counts = Counter(game.determinize(end, player, rng)[2 - player] for _ in range(n))
    assert set(counts) == {Q1, Q2}  # a jack pairs the public card, the other king splits
    stat, df = chi_square(counts, {Q1: 0.5, Q2: 0.5})
    assert stat < chi_square_bound(df)


def test_determinize_with_suit_isomorphism_weighs_ranks_by_copies_left() -> None:
    game = LeducHoldem(suit_isomorphism=True)
    state = game.next_state(game.next_state(game.initial_state(), 2), 0)  # K against J
    state = play(game, state, [CALL, CALL], public=1)  # the public card a queen
    rng = random.Random(23)
    n = 12000
    counts = Counter(game.determinize(state, 0, rng)[2] for _ in range(n))
    # unseen: both jacks, one queen, one king
    stat, df = chi_square(counts, {0: 0.5, 1: 0.25, 2: 0.25})
    assert set(counts) == {0, 1, 2} and stat < chi_square_bound(df)


@pytest.mark.parametrize("params", VARIANTS[:2], ids=IDS[:2])
def test_observation_is_exactly_a_function_of_the_information_set(params: dict[str, Any]) -> None:
    game = LeducHoldem(**params)
    for player in (0, 1):
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
    game = LeducHoldem()
    state = play(game, deal(game, Q1, K2), [RAISE, CALL, CALL], public=J2)
    obs = game.observation(state, 1)
    assert obs.shape == (69,)
    np.testing.assert_array_equal(obs[0:2], [0, 1])  # observer
    np.testing.assert_array_equal(obs[2:8], [0, 0, 0, 0, 0, 1])  # own card K2
    np.testing.assert_array_equal(obs[8:14], [0, 1, 0, 0, 0, 0])  # public card J2
    np.testing.assert_array_equal(obs[14:16], [0, 1])  # seat 1 to act
    betting = obs[16:40].reshape(2, 4, 3)
    np.testing.assert_array_equal(betting[0], [[0, 0, 1], [0, 1, 0], [0, 0, 0], [0, 0, 0]])
    np.testing.assert_array_equal(betting[1], [[0, 1, 0], [0, 0, 0], [0, 0, 0], [0, 0, 0]])
    chips = obs[40:66].reshape(2, 13)
    assert list(chips.sum(axis=1)) == [3, 3] and chips[0, :3].all()
    np.testing.assert_array_equal(obs[66:], [0, 0, 0])  # not over
    end = play(game, state, [CALL])
    np.testing.assert_array_equal(game.observation(end, 1)[66:], [1, 0, 0])  # a king won
    np.testing.assert_array_equal(game.observation(end, 0)[66:], [0, 0, 1])
    assert not game.observation(end, 0)[2 + K2]  # never the opponent's card


def test_information_set_keys_hold_only_what_the_seat_has_seen() -> None:
    game = LeducHoldem()
    root = game.initial_state()
    one = game.next_state(root, K1)
    two = game.next_state(one, J1)
    assert game.information_set(root, 1) == game.information_set(one, 1) == (1, 0, -1, -1, 0)
    assert game.information_set(one, 0) == (0, 1, K1, -1, 0)
    assert game.information_set(two, 0) == (0, 2, K1, -1, 0)  # seat 0 now to act: it sees that
    assert game.information_set(two, 1) == (1, 2, J1, -1, 0)


# ---------------------------------------------------------------------- rollouts
def exact_random_play_returns(start: Any) -> dict[tuple[float, ...], float]:
    """OpenSpiel's distribution of returns under uniformly random play from ``start``."""
    dist: dict[tuple[float, ...], float] = defaultdict(float)
    stack = [(start, 1.0)]
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


@pytest.mark.parametrize("params", VARIANTS[:3], ids=IDS[:3])
def test_rollout_has_the_distribution_of_random_play(params: dict[str, Any]) -> None:
    game, theirs = LeducHoldem(**params), spiel_game(**params)
    # from the root, and from the public card's chance node after raise, call
    mid_ours = game.next_state(game.next_state(game.initial_state(), 1), 2)  # valid ranks too
    mid_theirs = theirs.new_initial_state()
    for action in (1, 2, RAISE, CALL):
        mid_theirs.apply_action(action)
    mid_ours = play(game, mid_ours, [RAISE, CALL])
    assert game.is_chance(mid_ours) and mid_theirs.is_chance_node()
    for ours, spiel in ((game.initial_state(), theirs.new_initial_state()), (mid_ours, mid_theirs)):
        exact = exact_random_play_returns(spiel)
        for rollout in (game.rollout, lambda s, r: BoardGame.rollout(game, s, r)):
            rng = random.Random(8)
            counts = Counter(rollout(ours, rng) for _ in range(20000))
            stat, df = chi_square(counts, exact)
            assert df >= 3 and stat < chi_square_bound(df)


# ---------------------------------------------------------------------- errors and text
@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"players": 3}, r"players must be 2 .*got 3"),
        ({"players": 1}, r"players must be 2 .*got 1"),
        ({"players": True}, "players must be 2"),
        ({"players": "2"}, "players must be 2"),
        ({"action_mapping": 1}, "action_mapping must be a bool, got 1"),
        ({"suit_isomorphism": "yes"}, "suit_isomorphism must be a bool, got 'yes'"),
        ({"starting_player": 2}, "starting_player must be 0 or 1, got 2"),
        ({"starting_player": -1}, "starting_player must be 0 or 1, got -1"),
        ({"starting_player": 1.0}, "starting_player must be 0 or 1, got 1.0"),
        ({"starting_player": True}, "starting_player"),
    ],
)
def test_bad_parameters_raise_clear_errors(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(InvalidParameterError, match=message):
        LeducHoldem(**kwargs)
    with pytest.raises(InvalidParameterError, match=message):
        LeducHoldemEnv(**kwargs)


def test_render_and_action_names() -> None:
    game = LeducHoldem()
    root = game.initial_state()
    assert game.action_to_string(root, K2) == "deal K2 to player 0"
    state = deal(game, Q1, K2)
    assert [game.action_to_string(state, a) for a in (CALL, RAISE)] == ["check", "raise"]
    state = play(game, state, [RAISE])
    assert [game.action_to_string(state, a) for a in (FOLD, CALL)] == ["fold", "call"]
    state = play(game, state, [CALL])
    assert game.action_to_string(state, J2) == "public card J2"
    state = game.next_state(state, J2)
    assert game.render_text(state) == (
        "cards: player 0 Q1, player 1 K2, public J2\nround 1: raise call\nround 2: -\n"
        "pot 6; chips in: 3 3\nplayer 0 to play"
    )
    assert game.render_text(play(game, state, [CALL, CALL])).endswith("player 1 wins 3")
    assert LeducHoldem(suit_isomorphism=True).card_name(2) == "K"


# ---------------------------------------------------------------------- the env
def test_env_passes_the_pettingzoo_api_and_seed_tests() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for params in VARIANTS:
            api_test(env(**params), num_cycles=300, verbose_progress=False)
        seed_test(env, num_cycles=50)
    raw = raw_env(render_mode="ansi")
    assert raw.metadata["name"] == "leduc_holdem_v0"
    assert raw.metadata["render_modes"] == ["ansi", "human"]
    with pytest.raises(InvalidParameterError, match="render_mode"):
        raw_env(render_mode="rgb_array")
    raw.reset(seed=0)
    assert raw.render() == raw.game.render_text(raw.state)


def play_env(raw: LeducHoldemEnv, rng: random.Random) -> list[tuple[int, int]]:
    """Random moves to the end through ``step``; agents only ever see decisions. Returns each
    move with the public card after it."""
    moves = []
    while not raw.game.is_terminal(raw.state):
        assert not raw.game.is_chance(raw.state)
        assert raw.agent_selection == f"player_{raw.game.to_play(raw.state)}"
        action = rng.choice(raw.legal_actions())
        raw.step(action)
        moves.append((action, raw.state[3]))
    return moves


def test_same_seed_same_deals_and_observations() -> None:
    deals = set()
    rng = random.Random(0)
    for seed in range(40):
        a, b = raw_env(), raw_env()
        a.reset(seed=seed)
        b.reset(seed=seed)
        assert a.state == b.state
        for agent in a.possible_agents:
            np.testing.assert_array_equal(
                a.observe(agent)["observation"], b.observe(agent)["observation"]
            )
        for action in (CALL, CALL):  # round 1 checked through: the public card comes
            a.step(action)
            b.step(action)
        assert a.state == b.state and a.state[3] >= 0
        play_env(a, rng)
        deals.add(a.state[1:])
    assert len(deals) >= 30  # different seeds, different deals


@pytest.mark.parametrize("params", VARIANTS, ids=IDS)
def test_env_games_pay_openspiel_returns(params: dict[str, Any]) -> None:
    raw, theirs = raw_env(**params), spiel_game(**params)
    rng = random.Random(2)
    for seed in range(150):
        raw.reset(seed=seed)
        c0, c1 = raw.state[1:3]
        moves = play_env(raw, rng)
        spiel = theirs.new_initial_state()
        spiel.apply_action(c0)
        spiel.apply_action(c1)
        for action, public in moves:
            spiel.apply_action(action)
            if spiel.is_chance_node():
                spiel.apply_action(public)
        assert spiel.is_terminal()
        rewards = tuple(raw.rewards[agent] for agent in raw.possible_agents)
        assert rewards == raw.game.returns(raw.state) == tuple(spiel.returns())
        assert all(raw.terminations.values())


def test_save_restore_carries_the_generator() -> None:
    raw = raw_env()
    publics = set()
    for seed in range(40):
        raw.reset(seed=seed)
        raw.step(RAISE)
        snapshot = raw.save_state()
        raw.step(CALL)  # the env draws the public card now
        first = raw.state
        raw.step(RAISE)
        raw.restore_state(snapshot)
        assert raw.save_state() == snapshot
        raw.step(CALL)
        assert raw.state == first  # the same public card again
        publics.add(first[3])
    assert len(publics) >= 4


def test_observations_never_show_the_opponent_card() -> None:
    raw = raw_env()
    game = raw.game
    rng = random.Random(9)
    checked = 0
    for seed in range(60):
        raw.reset(seed=seed)
        for _ in range(rng.randrange(5)):
            if game.is_terminal(raw.state):
                break
            raw.step(rng.choice(raw.legal_actions()))
        snapshot = raw.save_state()
        state = snapshot.state
        for player, agent in enumerate(raw.possible_agents):
            other = 1 - player
            opponent = raw.possible_agents[other]
            mine = raw.observe(agent)["observation"]
            theirs = raw.observe(opponent)["observation"]
            key = raw.information_set(agent)
            for card in set(range(6)) - {state[1], state[2], state[3]}:
                swapped = list(state)
                swapped[1 + other] = card
                if game.information_set(tuple(swapped), player) != key:
                    continue  # a showdown whose result the new card changes
                raw.restore_state(dataclasses.replace(snapshot, state=tuple(swapped)))
                np.testing.assert_array_equal(raw.observe(agent)["observation"], mine)
                # the opponent's own view does change: the check can fail
                assert not np.array_equal(raw.observe(opponent)["observation"], theirs)
                checked += 1
            raw.restore_state(snapshot)
    assert checked > 300


def test_wrapped_env_punishes_an_illegal_fold() -> None:
    wrapped = env()
    wrapped.reset(seed=3)
    offender = wrapped.agent_selection
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        wrapped.step(FOLD)  # nothing to face: folding is illegal
    assert all(wrapped.terminations.values()) and wrapped.rewards[offender] == -1.0


def test_forged_leduc_states_are_refused_naming_the_problem() -> None:
    raw = raw_env()
    raw.reset(seed=0)
    forged = [
        ((2, 1, 1, -1), "card 1 is dealt 2 times"),
        ((2, 0, 1, 2), "expected dealt"),  # a public card in round 1
        ((2, 0, -1, -1), "expected dealt"),
        ((0, 0, -1, -1), "expected dealt"),
        ((500, 0, 1, -1), "node must be in"),
        ((2, 0, 7, -1), "card_1 must be in"),
        ((2, 0, 1), "tuple of 4 fields"),
    ]
    for state, match in forged:
        assert_state_refused(raw, state, match)


def test_leduc_is_reachable_keeps_the_deal_and_the_betting() -> None:
    raw = raw_env()
    raw.reset(seed=2)
    start = raw.state
    node, c0, c1, _ = start
    assert not raw.is_reachable((node, c1, c0, -1))  # the private cards swapped
    raw.step(1)  # check
    assert raw.is_reachable(raw.state)
    assert not raw.is_reachable(start)  # the betting only grows


def test_a_leduc_rank_dealt_three_times_is_refused_with_suit_isomorphism() -> None:
    """With suit isomorphism cards are ranks, two of each: a third copy is no deal."""
    raw = raw_env(suit_isomorphism=True)
    rng = random.Random(0)
    for seed in range(50):  # a hand that reaches round 2 (the public card dealt)
        raw.reset(seed=seed)
        while raw.state[3] < 0 and not raw.game.is_terminal(raw.state):
            raw.step(rng.choice(raw.legal_actions()))
        if raw.state[3] >= 0:
            break
    node, c0, _, public = raw.state
    assert public >= 0
    assert_state_refused(raw, (node, c0, c0, c0), "dealt 3 times; the deck has 2")
