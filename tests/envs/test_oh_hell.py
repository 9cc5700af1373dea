"""Oh Hell: move-for-move against OpenSpiel's ``oh_hell``, information sets partitioned as
OpenSpiel's information-state strings, determinization checked by OpenSpiel replays and for
uniformity, observations that hide the other hands, scripted rules, errors, and the env."""

from __future__ import annotations

import itertools
import math
import random
import warnings
from collections import Counter, defaultdict
from typing import Any

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from mcts_agents.envs import InvalidParameterError
from mcts_agents.envs.core.game import CHANCE
from mcts_agents.envs.games.oh_hell import MADE_BID_BONUS, TERMINAL, OhHell, State
from mcts_agents.envs.oh_hell_v0 import OhHellEnv, env
from tests.envs.conftest import assert_state_refused

try:
    import pyspiel
except ImportError:  # the rules, views and env tests run without OpenSpiel
    pyspiel = None
needs_openspiel = pytest.mark.skipif(pyspiel is None, reason="needs OpenSpiel (pyspiel)")


# ---------------------------------------------------------------------- helpers
def cards_of(mask: int) -> list[int]:
    return [c for c in range(mask.bit_length()) if mask >> c & 1]


def spiel_state(game: OhHell, state: State) -> Any:
    """OpenSpiel's state with the same deal and public actions as ours, or None when OpenSpiel
    finds one of the public actions illegal (a bid or card the dealt hands cannot make).

    Card ``i`` of OpenSpiel's deal goes to player ``i % players``, so each hand is dealt in
    ascending order, interleaved; OpenSpiel's state does not depend on that order."""
    spiel = pyspiel.load_game("oh_hell", game.params()).new_initial_state()
    tricks, dealer, dealt, trump, _, initial, history = state[:7]
    if tricks == 0:
        return spiel
    spiel.apply_action(tricks)
    if dealer < 0:
        return spiel
    spiel.apply_action(dealer)
    n = game.num_players
    hands = [cards_of(h) for h in initial]
    for i in range(min(dealt, n * tricks)):
        spiel.apply_action(hands[i % n][i // n])
    if trump >= 0:
        spiel.apply_action(trump)
    for action in history:
        if action not in spiel.legal_actions():
            return None
        spiel.apply_action(action)
    return spiel


def random_states(game: OhHell, rng: random.Random, games: int) -> list[State]:
    """Every state (chance, decision, terminal) of ``games`` random games."""
    states = []
    for _ in range(games):
        state = game.initial_state()
        states.append(state)
        while not game.is_terminal(state):
            if game.is_chance(state):
                action = game.sample_chance(state, rng)
            else:
                action = rng.choice(game.legal_actions(state))
            state = game.next_state(state, action)
            states.append(state)
    return states


def chi2_critical(df: int, z: float = 3.09) -> float:
    """Upper 0.1% point of the chi-square distribution (Wilson-Hilferty approximation)."""
    return df * (1 - 2 / (9 * df) + z * math.sqrt(2 / (9 * df))) ** 3


def chi2(counts: Counter[Any], support: list[Any]) -> float:
    expected = sum(counts.values()) / len(support)
    return sum((counts[x] - expected) ** 2 / expected for x in support)


def play_to(game: OhHell, seed: int, public_actions: int) -> State:
    """The first decision state with ``public_actions`` bids and cards of a seeded random game."""
    rng = random.Random(seed)
    state = game.initial_state()
    while game.is_chance(state) or len(state[6]) < public_actions:
        if game.is_chance(state):
            state = game.next_state(state, game.sample_chance(state, rng))
        else:
            state = game.next_state(state, rng.choice(game.legal_actions(state)))
    return state


# ---------------------------------------------------------------------- differential
CONFIGS = [  # (parameters, games): 3-7 players, fixed tricks, scoring options, small decks
    ({}, 150),
    ({"players": 4}, 100),
    ({"players": 5}, 80),
    ({"players": 6}, 30),
    ({"players": 7}, 30),
    ({"num_tricks_fixed": 5}, 150),
    ({"players": 5, "off_bid_penalty": True, "points_per_trick": 2}, 80),
    ({"players": 4, "num_tricks_fixed": 1, "off_bid_penalty": True}, 200),
    ({"num_suits": 2, "num_cards_per_suit": 4}, 2000),
    ({"players": 4, "num_suits": 3, "num_cards_per_suit": 4}, 1000),
    ({"players": 5, "num_suits": 1, "num_cards_per_suit": 11}, 400),
]


@needs_openspiel
@pytest.mark.parametrize(("params", "games"), CONFIGS, ids=[str(c[0]) for c in CONFIGS])
def test_random_games_match_openspiel_move_for_move(params: dict[str, Any], games: int) -> None:
    game = OhHell(**params)
    spiel_game = pyspiel.load_game("oh_hell", params)
    assert game.num_actions == spiel_game.num_distinct_actions()
    assert game.return_range == (spiel_game.min_utility(), spiel_game.max_utility())
    assert game.num_players == spiel_game.num_players()
    rng = random.Random(repr(params))
    key_to_string: dict[Any, str] = {}
    string_to_key: dict[tuple[int, str], Any] = {}
    histories: defaultdict[Any, set[tuple[int, ...]]] = defaultdict(set)
    scores: set[tuple[float, ...]] = set()
    for _ in range(games):
        state, spiel = game.initial_state(), spiel_game.new_initial_state()
        while True:
            history = tuple(spiel.history())
            for player in range(game.num_players):
                # information sets: equal keys iff equal strings, at every node of the game
                key, text = (
                    game.information_set(state, player),
                    spiel.information_state_string(player),
                )
                assert key_to_string.setdefault(key, text) == text
                assert string_to_key.setdefault((player, text), key) == key
                histories[key].add(history)
            assert game.is_terminal(state) == spiel.is_terminal()
            assert game.returns(state) == tuple(spiel.returns())
            if spiel.is_terminal():
                scores.add(game.returns(state))
                break
            assert game.is_chance(state) == spiel.is_chance_node()
            assert game.to_play(state) == (
                CHANCE if spiel.is_chance_node() else spiel.current_player()
            )
            assert game.legal_actions(state) == spiel.legal_actions()
            if spiel.is_chance_node():
                ours, theirs = game.chance_outcomes(state), spiel.chance_outcomes()
                assert [a for a, _ in ours] == [a for a, _ in theirs]
                assert [p for _, p in ours] == pytest.approx([p for _, p in theirs], abs=1e-12)
                action = rng.choice(theirs)[0]
            else:
                action = rng.choice(spiel.legal_actions())
                text = spiel.action_to_string(spiel.current_player(), action)
                ours_text = game.action_to_string(state, action)
                # OpenSpiel writes suit then rank ("HQ") and bare bids; we write "QH", "bid 2"
                bid = action >= game.num_cards
                assert ours_text == (f"bid {text}" if bid else text[1] + text[0])
            state = game.next_state(state, action)
            spiel.apply_action(action)
        assert game.to_play(state) == TERMINAL and game.legal_actions(state) == []
    # the sample is a real test of the partition: many information sets hold several histories
    shared = sum(1 for h in histories.values() if len(h) > 1)
    assert shared > (0.05 * len(histories) if game.num_cards <= 12 else 25), shared
    assert len(scores) > 1


def test_openspiel_numbering_of_cards_bids_and_utilities() -> None:
    game = OhHell()
    assert (game.num_actions, game.max_tricks, game.return_range) == (70, 17, (0.0, 27.0))
    state = game.initial_state()
    assert game.chance_outcomes(state) == [(t, 1 / 17) for t in range(1, 18)]
    state = game.next_state(state, 2)
    assert game.chance_outcomes(state) == [(p, 1 / 3) for p in range(3)]
    state = game.next_state(state, 1)  # dealer 1
    assert game.chance_outcomes(state) == [(c, 1 / 52) for c in range(52)]
    assert [game.card_string(c) for c in (0, 1, 2, 3, 4, 51, 42)] == [
        "2C", "2D", "2S", "2H", "3C", "AH", "QS",
    ]  # fmt: skip
    state = game.apply(state, [48, 44, 40, 49, 45, 41])  # CA CK CQ DA DK DQ, in deal order
    assert state[4] == (1 << 48 | 1 << 49, 1 << 44 | 1 << 45, 1 << 40 | 1 << 41)
    state = game.next_state(state, 3)  # the trump card: 2H, hearts are trumps
    assert game.to_play(state) == 2  # left of the dealer
    assert game.legal_actions(state) == [52, 53, 54]
    assert game.action_to_string(state, 54) == "bid 2"
    penalty = OhHell(num_tricks_fixed=4, off_bid_penalty=True, points_per_trick=3)
    assert penalty.num_actions == 52 + 5 and penalty.return_range == (-12.0, 22.0)


# ---------------------------------------------------------------------- scripted rules
def deal(game: OhHell, tricks: int, dealer: int, hands: list[list[int]], trump: int) -> State:
    """Deal ``hands`` (one list per player) and turn ``trump``."""
    state = game.apply(game.initial_state(), [tricks, dealer])
    for i in range(tricks):
        for hand in hands:
            state = game.next_state(state, hand[i])
    return game.next_state(state, trump)


def test_trumps_following_suit_the_dealers_hook_and_scores() -> None:
    game = OhHell()
    card = {
        f"{r}{s}": i * 4 + j for i, r in enumerate("23456789TJQKA") for j, s in enumerate("CDSH")
    }
    hands = [["AC", "2H", "KD"], ["KC", "3C", "AD"], ["QC", "5D", "4S"]]
    state = deal(game, 3, 2, [[card[c] for c in h] for h in hands], card["9H"])
    assert game.to_play(state) == 0  # left of dealer 2
    state = game.apply(state, [52 + 1, 52 + 1])  # players 0 and 1 bid 1 each
    # the dealer bids last and may not bring the total to 3 tricks
    assert game.legal_actions(state) == [52, 52 + 2, 52 + 3]
    state = game.next_state(state, 52 + 0)
    assert game.bids(state) == (1, 1, 0)
    # player 0 leads: must follow with clubs when holding clubs, anything otherwise
    assert game.legal_actions(state) == [card["2H"], card["KD"], card["AC"]]
    state = game.next_state(state, card["AC"])
    assert game.legal_actions(state) == [card["3C"], card["KC"]]
    state = game.apply(state, [card["KC"], card["QC"]])
    assert state[8] == (1, 0, 0) and game.to_play(state) == 0  # the ace won and leads
    state = game.next_state(state, card["KD"])
    state = game.next_state(state, card["AD"])
    assert game.legal_actions(state) == [card["5D"]]
    state = game.next_state(state, card["5D"])
    assert state[8] == (1, 1, 0) and game.to_play(state) == 1
    # a trump beats a higher card of the led suit; an off-suit card never wins
    state = game.apply(state, [card["3C"], card["4S"], card["2H"]])
    assert state[8] == (2, 1, 0) and game.is_terminal(state)
    assert state[10] == 1 << (2 * 4 + 0) | 1 << (0 * 4 + 0)  # player 2 and player 0: no clubs
    assert game.returns(state) == (2.0, 1.0 + MADE_BID_BONUS, 0.0 + MADE_BID_BONUS)
    penalty = OhHell(off_bid_penalty=True, points_per_trick=2)
    line = [card["AC"], card["KC"], card["QC"], card["KD"], card["AD"], card["5D"]]
    line += [card["3C"], card["4S"], card["2H"]]
    end = penalty.apply(
        deal(penalty, 3, 2, [[card[c] for c in h] for h in hands], card["9H"]), [53, 53, 52, *line]
    )
    assert penalty.returns(end) == (-2.0, 2.0 + MADE_BID_BONUS, 0.0 + MADE_BID_BONUS)
    text = game.render_text(state)
    assert "player 1: KC 3C AD" in text and "score 11" in text and "game over" in text


def test_fixed_number_of_tricks_is_a_one_outcome_chance_node() -> None:
    game = OhHell(players=4, num_tricks_fixed=5)
    start = game.initial_state()
    assert game.is_chance(start) and game.chance_outcomes(start) == [(5, 1.0)]
    assert game.action_to_string(start, 5) == "5 tricks"
    assert game.action_to_string(game.next_state(start, 5), 3) == "dealer 3"


def test_sample_chance_draws_outcomes_uniformly() -> None:
    game = OhHell()
    start = game.initial_state()
    for rng in (random.Random(0), np.random.default_rng(0)):
        counts = Counter(game.sample_chance(start, rng) for _ in range(17_000))
        assert sorted(counts) == list(range(1, 18))
        assert chi2(counts, list(range(1, 18))) < chi2_critical(16)


# ---------------------------------------------------------------------- determinization
DET_CONFIGS = [{}, {"players": 5}, {"players": 7}, {"num_suits": 2, "num_cards_per_suit": 5}]


@needs_openspiel
@pytest.mark.parametrize("params", DET_CONFIGS, ids=[str(c) for c in DET_CONFIGS])
def test_determinize_is_consistent_with_what_the_player_saw(params: dict[str, Any]) -> None:
    game = OhHell(**params)
    rng = random.Random(repr(params))
    states = random_states(game, rng, 12)
    moved = 0
    for state in rng.sample(states, 150):
        spiel = spiel_state(game, state)
        for player in range(game.num_players):
            sample = game.determinize(state, player, rng)
            assert game.information_set(sample, player) == game.information_set(state, player)
            assert sample[4][player] == state[4][player]
            assert [h.bit_count() for h in sample[4]] == [h.bit_count() for h in state[4]]
            # OpenSpiel replays every bid and card as legal with the redealt hands (so no
            # player holds a suit it showed void in) and shows the player the same
            other = spiel_state(game, sample)
            assert other is not None
            assert other.information_state_string(player) == spiel.information_state_string(player)
            if not other.is_terminal():
                assert game.legal_actions(sample) == other.legal_actions()
            moved += sample != state
    assert moved > 100  # the redeal really changes the hidden cards


def test_states_of_one_information_set_determinize_alike() -> None:
    game = OhHell(players=4)
    rng = random.Random(11)
    for state in rng.sample(random_states(game, rng, 10), 120):
        for player in range(game.num_players):
            twin = game.determinize(state, player, random.Random(rng.getrandbits(32)))
            assert game.information_set(twin, player) == game.information_set(state, player)
            seed = rng.getrandbits(32)
            a = game.determinize(state, player, random.Random(seed))
            b = game.determinize(twin, player, random.Random(seed))
            assert a == b


def enumerate_consistent_deals(game: OhHell, state: State, player: int) -> list[tuple[Any, ...]]:
    """Every way to give the other players unseen cards, checked by OpenSpiel alone: a deal
    counts iff OpenSpiel replays the game with it and shows ``player`` the same information."""
    n = game.num_players
    truth = spiel_state(game, state).information_state_string(player)
    seen = state[5][player] | (1 << state[3])
    played = {q: state[5][q] & ~state[4][q] for q in range(n)}
    for q in range(n):
        seen |= played[q]
    unseen = [c for c in range(game.num_cards) if not seen >> c & 1]
    others = [q for q in range(n) if q != player]
    consistent = []

    def extend(i: int, pool: list[int], chosen: tuple[tuple[int, ...], ...]) -> None:
        if i == len(others):
            initial = list(state[5])
            for q, hand in zip(others, chosen, strict=True):
                initial[q] = played[q] | sum(1 << c for c in hand)
            trial = (*state[:5], tuple(initial), *state[6:])
            spiel = spiel_state(game, trial)
            if spiel is not None and spiel.information_state_string(player) == truth:
                consistent.append(chosen)
            return
        for hand in itertools.combinations(pool, state[4][others[i]].bit_count()):
            extend(i + 1, [c for c in pool if c not in hand], (*chosen, hand))

    extend(0, unseen, ())
    return consistent


def naive_redeal(game: OhHell, state: State, player: int, rng: random.Random) -> tuple[Any, ...]:
    """A plausible but biased sampler: each other player in turn draws uniformly from the
    unseen cards of the suits it may hold."""
    seen = state[5][player] | state[11] | (1 << state[3])
    pool = [c for c in range(game.num_cards) if not seen >> c & 1]
    hands = []
    for q in range(game.num_players):
        if q != player:
            voids = state[10] >> (q * game.num_suits)
            allowed = [c for c in pool if not voids >> (c % game.num_suits) & 1]
            hand = tuple(sorted(rng.sample(allowed, state[4][q].bit_count())))
            pool = [c for c in pool if c not in hand]
            hands.append(hand)
    return tuple(hands)


@needs_openspiel
@pytest.mark.parametrize(
    ("params", "seed", "public", "voids"),
    [
        # two opponents, each void in a different suit that both may still hold cards of
        ({"num_suits": 3, "num_cards_per_suit": 5, "num_tricks_fixed": 4}, 118, 9, 2),
        # no voids yet (bidding): a plain uniform redeal
        ({"num_suits": 2, "num_cards_per_suit": 3}, 0, 0, 0),
        ({"players": 4, "num_suits": 3, "num_cards_per_suit": 4, "num_tricks_fixed": 2}, 55, 8, 2),
    ],
)
def test_determinize_is_uniform_over_consistent_deals(
    params: dict[str, Any], seed: int, public: int, voids: int
) -> None:
    game = OhHell(**params)
    state = play_to(game, seed, public)
    player = game.to_play(state)
    others = [q for q in range(game.num_players) if q != player]
    suits = (1 << game.num_suits) - 1
    void_players = {q for q in others if state[10] >> (q * game.num_suits) & suits}
    assert len(void_players) == voids
    consistent = enumerate_consistent_deals(game, state, player)
    assert 6 <= len(consistent) < 200
    draws = 300 * len(consistent)
    rng = random.Random(1)
    counts = Counter(
        tuple(tuple(cards_of(sample[4][q])) for q in others)
        for sample in (game.determinize(state, player, rng) for _ in range(draws))
    )
    assert set(counts) == set(consistent)  # every consistent deal, and nothing else
    critical = chi2_critical(len(consistent) - 1)
    assert chi2(counts, consistent) < critical
    if voids == 2 and game.num_players == 3:  # the test can tell a biased sampler
        biased = Counter(naive_redeal(game, state, player, rng) for _ in range(draws))
        assert set(biased) == set(consistent)
        assert chi2(biased, consistent) > 10 * critical


def test_determinize_leaves_known_states_alone() -> None:
    game = OhHell()
    start = game.initial_state()
    assert game.determinize(start, 0, random.Random(0)) == start
    end = random_states(game, random.Random(2), 1)[-1]
    assert game.is_terminal(end) and game.determinize(end, 1, random.Random(0)) == end


# ---------------------------------------------------------------------- observation
def test_observation_hides_other_hands() -> None:
    game = OhHell(players=4)
    rng = random.Random(5)
    changed = 0
    for state in rng.sample(random_states(game, rng, 10), 150):
        for player in range(game.num_players):
            sample = game.determinize(state, player, rng)
            mine = game.observation(state, player)
            assert mine.dtype == np.int8 and mine.shape == game.observation_shape
            np.testing.assert_array_equal(game.observation(sample, player), mine)
            for other in range(game.num_players):
                if sample[4][other] != state[4][other]:  # their own view shows the change
                    changed += 1
                    assert not np.array_equal(
                        game.observation(sample, other), game.observation(state, other)
                    )
    assert changed > 100


def test_observation_vectors_have_the_documented_layout() -> None:
    game = OhHell()
    c, n, t = 52, 3, 17
    hands = [[48, 3, 45], [44, 4, 49], [40, 13, 10]]  # AC 2H KD, KC 3C AD, QC 5D 4S
    state = deal(game, 3, 2, hands, 31)  # trump 9H
    state = game.apply(state, [53, 53, 52, 48, 44])  # bids 1 1 0; AC, KC played
    obs = game.observation(state, 2)  # player 2, to play, is seat 0
    assert obs.shape == ((2 + 2 * n) * c + n * (t + 2) + n * t + t + n,)
    assert list(np.flatnonzero(obs[:c])) == [10, 13, 40]
    assert list(np.flatnonzero(obs[c : 2 * c])) == [31]
    trick = obs[2 * c : (2 + n) * c].reshape(n, c)
    assert [list(np.flatnonzero(row)) for row in trick] == [[], [48], [44]]  # seats 0, 1, 2
    played = obs[(2 + n) * c : (2 + 2 * n) * c].reshape(n, c)
    assert [list(np.flatnonzero(row)) for row in played] == [[], [48], [44]]
    base = (2 + 2 * n) * c
    bids = obs[base : base + n * (t + 2)].reshape(n, t + 2)
    assert [int(np.flatnonzero(row)[0]) - 1 for row in bids] == [0, 1, 1]
    base += n * (t + 2)
    assert not obs[base : base + n * t].any()  # no trick won yet
    base += n * t
    assert list(np.flatnonzero(obs[base : base + t])) == [2]  # 3 tricks
    assert list(np.flatnonzero(obs[base + t :])) == [0]  # the dealer is player 2 itself
    state = game.next_state(state, 40)  # QC: player 0 wins the trick
    won = game.observation(state, 1)[(2 + 2 * n) * c + n * (t + 2) :][: n * t].reshape(n, t)
    assert won.sum(axis=1).tolist() == [0, 0, 1] and won[2, 0] == 1  # seat 2 = player 0


# ---------------------------------------------------------------------- parameters
@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"players": 2}, r"players must be in \[3, 7\], got 2"),
        ({"players": 8}, "players must be in"),
        ({"players": 3.0}, "players must be an int"),
        ({"num_suits": 0}, r"num_suits must be in \[1, 4\], got 0"),
        ({"num_suits": 5}, "num_suits"),
        ({"num_cards_per_suit": 1}, r"num_cards_per_suit must be in \[2, 13\], got 1"),
        ({"num_cards_per_suit": 14}, "num_cards_per_suit"),
        ({"num_suits": 1, "num_cards_per_suit": 3}, "3 cards must hold at least players"),
        ({"num_tricks_fixed": 0}, r"num_tricks_fixed must be in \[1, 17\] or -1"),
        ({"num_tricks_fixed": 18}, "got 18"),
        ({"num_tricks_fixed": -2}, "num_tricks_fixed"),
        ({"players": 7, "num_tricks_fixed": 8}, r"\[1, 7\] or -1"),
        ({"num_tricks_fixed": True}, "num_tricks_fixed must be an int"),
        ({"off_bid_penalty": 1}, "off_bid_penalty must be a bool, got 1"),
        ({"points_per_trick": -1}, "points_per_trick must be >= 0, got -1"),
        ({"points_per_trick": 1.5}, "points_per_trick must be an int"),
    ],
)
def test_bad_parameters_raise_clear_errors(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(InvalidParameterError, match=message):
        OhHell(**kwargs)
    with pytest.raises(InvalidParameterError, match=message):
        OhHellEnv(**kwargs)


def test_params_spec_and_views() -> None:
    game = OhHell(players=4, num_tricks_fixed=3, points_per_trick=2)
    assert game.params() == {
        "players": 4,
        "num_suits": 4,
        "num_cards_per_suit": 13,
        "num_tricks_fixed": 3,
        "off_bid_penalty": False,
        "points_per_trick": 2,
    }
    assert game == OhHell(**game.params()) and game != OhHell(players=4)
    assert (game.name, game.has_chance, game.perfect_information, game.acyclic) == (
        "oh_hell", True, False, True,
    )  # fmt: skip
    assert "not drawn yet" in game.render_text(game.initial_state())
    with pytest.raises(TypeError, match="render it as 'ansi'"):
        game.grid(game.initial_state())
    rng = random.Random(0)
    low, high = game.return_range
    for _ in range(50):
        result = game.rollout(game.initial_state(), rng)
        assert all(low <= r <= high for r in result) and len(result) == 4


# ---------------------------------------------------------------------- env
@pytest.mark.parametrize("players", [3, 4])
def test_pettingzoo_api_test_passes(players: int) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(env(players=players), num_cycles=300, verbose_progress=False)


def test_pettingzoo_seed_test_passes() -> None:
    seed_test(lambda **kwargs: env(players=4, **kwargs), num_cycles=50)


def play_random(raw: OhHellEnv, rng: random.Random) -> list[int]:
    """Random legal moves to the end; agents are never asked to act at a chance node."""
    moves = []
    while not raw.game.is_terminal(raw.state):
        state = raw.state
        assert not raw.game.is_chance(state)
        assert raw.agent_selection == f"player_{raw.game.to_play(state)}"
        mask = raw.observe(raw.agent_selection)["action_mask"]
        assert list(np.flatnonzero(mask)) == raw.legal_actions()
        action = rng.choice(raw.legal_actions())
        raw.step(action)
        moves.append(action)
    return moves


@needs_openspiel
def test_env_seeds_deals_and_pays_the_scores() -> None:
    raw = OhHellEnv(players=4)
    rng = random.Random(0)
    deals = set()
    for seed in range(30):
        raw.reset(seed=seed)
        first = raw.state
        raw.reset(seed=seed)
        assert raw.state == first  # the same seed deals the same cards
        deals.add(first[:6])
        play_random(raw, rng)
        rewards = [raw.rewards[a] for a in raw.possible_agents]
        assert tuple(rewards) == raw.game.returns(raw.state)
        assert tuple(rewards) == tuple(spiel_state(raw.game, raw.state).returns())
    assert len(deals) == 30


def test_env_save_restore_includes_the_generator() -> None:
    raw = OhHellEnv()
    raw.reset(seed=3)
    rng = random.Random(3)
    for _ in range(4):
        raw.step(rng.choice(raw.legal_actions()))
    snapshot = raw.save_state()
    line = play_random(raw, random.Random(9))
    ended = raw.save_state()
    raw.reset()  # unseeded: the next deal comes from the env's generator
    next_deal = raw.state
    for target in (raw, OhHellEnv()):
        target.restore_state(snapshot)
        assert target.state == snapshot.state
        for action in line:
            target.step(action)
        assert target.save_state() == ended
        target.reset()
        assert target.state == next_deal


def test_env_metadata_observation_and_render(capsys: pytest.CaptureFixture[str]) -> None:
    raw = OhHellEnv(players=5, render_mode="ansi")
    assert raw.metadata["name"] == "oh_hell_v0"
    assert raw.metadata["render_modes"] == ["ansi", "human"]
    raw.reset(seed=1)
    game = raw.game
    assert raw.action_space("player_0").n == game.num_actions == 52 + 10 + 1
    space = raw.observation_space("player_3")["observation"]
    assert space.shape == game.observation_shape
    for agent in raw.possible_agents:
        assert space.contains(raw.observe(agent)["observation"])
        assert raw.information_set(agent) == game.information_set(raw.state, int(agent[-1]))
    text = raw.render()
    assert isinstance(text, str) and "trump" in text and "to bid" in text
    human = OhHellEnv(render_mode="human")
    human.reset(seed=1)
    assert human.render() is None and "dealer" in capsys.readouterr().out
    with pytest.raises(InvalidParameterError, match="render_mode"):
        OhHellEnv(render_mode="rgb_array")


def bidding_state(seed: int) -> Any:
    raw = OhHellEnv()
    raw.reset(seed=seed)
    raw.step(raw.legal_actions()[0])  # one bid
    return raw


def test_forged_oh_hell_states_are_refused_naming_the_problem() -> None:
    raw = bidding_state(0)
    state = raw.state
    hands, initial = list(state[4]), list(state[5])
    stolen = hands[1] & -hands[1]
    twice = (*state[:4], (hands[0] | stolen, *hands[1:]), (initial[0] | stolen, *initial[1:]))
    forged = [
        ((*state[:4], (hands[0] | stolen, *hands[1:]), *state[5:]), "hands is"),
        ((*twice, *state[6:]), "a card is dealt twice"),
        ((*state[:6], (*state[6], 0), *state[7:]), "is not legal there"),  # a card while bidding
        ((*state[:3], (hands[0] & -hands[0]).bit_length() - 1, *state[4:]), "trump card"),
        ((*state[:8], (1, 1, 1), *state[9:]), "won is"),
        (state[:11], "tuple of 12 fields"),
        ((*state[:6], list(state[6]), *state[7:]), "history must be a tuple"),
    ]
    for forgery, match in forged:
        assert_state_refused(raw, forgery, match)


def test_oh_hell_is_reachable_keeps_the_deal_and_the_history() -> None:
    raw = bidding_state(1)
    state = raw.state
    other_dealer = (state[0], (state[1] + 1) % 3, *state[2:])
    assert not raw.is_reachable(other_dealer)
    before = state
    raw.step(raw.legal_actions()[0])
    assert raw.is_reachable(raw.state)
    assert not raw.is_reachable(before)  # the history only grows
