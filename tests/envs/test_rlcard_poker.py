"""rlcard's Leduc and limit hold'em rules cores against the live PettingZoo envs, step by step.

The truths come from outside the cores: PettingZoo's ``leduc_holdem_v4`` and ``texas_holdem_v4``
(rlcard's games) played with their own seeding, rlcard's card indices, and rlcard's own hand
evaluator (``compare_hands``).
"""

from __future__ import annotations

import json
import random
import warnings
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import rlcard
from pettingzoo.classic import leduc_holdem_v4, texas_holdem_no_limit_v6, texas_holdem_v4
from rlcard.games.limitholdem.utils import compare_hands

from mcts_agents.adapters.rlcard import core_game
from mcts_agents.envs import InvalidParameterError, InvalidStateError
from mcts_agents.envs.core.game import CHANCE
from mcts_agents.envs.games.holdem_eval import CATEGORY_NAMES, card_name, category, hand_value
from mcts_agents.envs.games.limit_holdem import LimitHoldem
from mcts_agents.envs.games.nolimit_holdem import NoLimitHoldem
from mcts_agents.envs.games.rlcard_leduc import RLCardLeduc
from mcts_agents.envs.games.rlcard_poker import RLCardPoker

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")  # rlcard's Box precision warnings

CARD2INDEX = json.loads(
    (Path(rlcard.__path__[0]) / "games/limitholdem/card2index.json").read_text()
)
CALL, RAISE, FOLD, CHECK = 0, 1, 2, 3
CORES = [RLCardLeduc(), LimitHoldem(), NoLimitHoldem()]


def rlcard_card(core: RLCardPoker, card: Any) -> int:
    """Our id of an rlcard ``Card``: Leduc's rank, hold'em's rlcard index."""
    if isinstance(core, RLCardLeduc):
        return "JQK".index(card.rank)
    return CARD2INDEX[card.get_index()]


def true_state(core: RLCardPoker, env: Any) -> tuple[int, tuple[int, ...]]:
    """The core's state of a freshly reset env: every dealt card and the small-blind seat."""
    game = env.unwrapped.env.game
    hands = [p.hand if isinstance(p.hand, list) else [p.hand] for p in game.players]
    if isinstance(core, NoLimitHoldem):  # the chance node draws the dealer (the big blind)
        seat = game.dealer_id
        assert [p.in_chips for p in game.players][seat] == 2
    else:  # the small blind
        seat = [p.in_chips for p in game.players].index(1)
    cards = [rlcard_card(core, c) for hand in hands for c in hand]
    return core.apply(core.initial_state(), [*cards, seat])


def board(core: RLCardPoker, env: Any) -> list[int]:
    game = env.unwrapped.env.game
    public = game.public_cards if isinstance(core, LimitHoldem) else [game.public_card]
    return [rlcard_card(core, c) for c in public if c is not None]


def play_side_by_side(make: Any, core: RLCardPoker, seed: int, rng: random.Random) -> int:
    """One seeded game of the live env with random moves (folding seldom), the core stepped
    alongside; every state compared. Returns the number of decisions."""
    env = make()
    env.reset(seed=seed)
    raw = env.unwrapped
    state = true_state(core, env)
    decisions = 0
    while True:
        done = core.is_terminal(state)
        assert all(raw.terminations[a] for a in raw.possible_agents) == done
        for p, agent in enumerate(raw.possible_agents):
            seen = raw.observe(agent)
            assert np.array_equal(seen["observation"], core.observation(state, p))
            assert np.array_equal(seen["action_mask"], core.legal_mask(state))
        if done:
            rewards = tuple(raw.rewards[a] for a in raw.possible_agents)
            assert rewards == core.returns(state)
            return decisions
        player = raw.possible_agents.index(raw.agent_selection)
        assert core.to_play(state) == player
        legal = core.legal_actions(state)
        assert legal == sorted(raw.next_legal_moves)
        # the adapter reads what the player to move sees: same information set, same moves
        read = core_game(env, raw)
        assert read is not None and read[0] == core
        assert core.information_set(read[1], player) == core.information_set(state, player)
        assert core.legal_actions(read[1]) == legal
        oracle = core_game(env, raw, oracle=True)
        assert oracle is not None and oracle[1] == state
        # fold seldom; in no-limit go all in seldom too, so that hands reach every street
        dull = {0, 4} if isinstance(core, NoLimitHoldem) else {FOLD}
        u = rng.random()
        moves = [a for a in legal if a not in dull or u > 0.93] or legal
        action = rng.choice(moves)
        env.step(action)
        decisions += 1
        state = core.next_state(state, action)
        dealt = board(core, env)
        while core.is_chance(state):
            assert core.to_play(state) == CHANCE
            state = core.next_state(
                state,
                core.check_action(
                    state, dealt[len(state[1]) - 4 if isinstance(core, LimitHoldem) else 0]
                ),
            )
        assert list(core.public_cards(state[1])) == sorted(dealt[:3]) + dealt[3:]


@pytest.mark.parametrize(
    ("make", "core", "games"),
    [
        (leduc_holdem_v4.env, RLCardLeduc(), 2000),
        (texas_holdem_v4.env, LimitHoldem(), 2000),
        (texas_holdem_no_limit_v6.env, NoLimitHoldem(), 2000),
    ],
    ids=["leduc", "limit", "no-limit"],
)
def test_every_state_of_random_games_matches_the_live_env(
    make: Any, core: RLCardPoker, games: int
) -> None:
    rng = random.Random(7)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        decisions = sum(play_side_by_side(make, core, seed, rng) for seed in range(games))
    assert decisions > 4 * games


def test_the_evaluator_orders_hands_as_rlcards_on_random_showdowns() -> None:
    rng = random.Random(3)
    names = {v: k for k, v in CARD2INDEX.items()}
    seen = Counter()
    for i in range(6000):
        # every third deal from a narrow deck, so flushes, straights and quads show up
        deck = range(52) if i % 3 else [c for c in range(52) if c // 13 < 2 or c % 13 < 4]
        cards = rng.sample(list(deck), 9)
        ours = [hand_value([*cards[2 * p : 2 * p + 2], *cards[4:]]) for p in (0, 1)]
        seen[category(ours[0])] += 1
        theirs = compare_hands(
            [[names[c] for c in (*cards[2 * p : 2 * p + 2], *cards[4:])] for p in (0, 1)]
        )
        assert [int(ours[0] >= ours[1]), int(ours[1] >= ours[0])] == theirs, [
            card_name(c) for c in cards
        ]
    assert set(seen) == set(range(1, 10)), seen  # every category was compared


@pytest.mark.parametrize(
    ("better", "worse"),
    [
        ("SA S2 S3 S4 S5 HK DK", "H6 D7 C8 S9 HT C2 D3"),  # wheel flush > any straight
        ("H6 D7 C8 S9 HT C2 D3", "SA H2 D3 C4 S5 HK DK"),  # six-high straight > the wheel
        ("SK HK DK S2 H2 C9 D8", "SA SQ S9 S7 S4 H2 D3"),  # full house > flush
        ("S9 H9 D9 C9 S2 H3 D4", "SK HK DK SQ HQ DQ C2"),  # quads > full house
        ("SA HA D9 C9 S2 H3 D4", "SK HK DQ CQ SJ HJ C2"),  # two pairs: the top pair first
        ("SA HA DK C2 S3 H7 D8", "SA HA DQ CJ S3 H7 D8"),  # a pair's kicker
    ],
)
def test_known_hands_rank_as_poker_says(better: str, worse: str) -> None:
    assert hand_value([CARD2INDEX[n] for n in better.split()]) > hand_value(
        [CARD2INDEX[n] for n in worse.split()]
    )
    assert CATEGORY_NAMES[category(hand_value([CARD2INDEX[n] for n in better.split()]))]


@pytest.mark.parametrize("core", CORES, ids=["leduc", "limit", "no-limit"])
def test_determinize_keeps_what_the_player_saw_and_redeals_the_rest_uniformly(
    core: RLCardPoker,
) -> None:
    rng = random.Random(1)
    state = core.initial_state()
    while core.is_chance(state) or core.public_cards(state[1]) == ():
        if core.is_chance(state):
            state = core.next_state(state, core.sample_chance(state, rng))
        else:
            legal = core.legal_actions(state)
            passive = 1 if isinstance(core, NoLimitHoldem) else (CALL if CALL in legal else CHECK)
            state = core.next_state(state, passive)
    player = core.to_play(state)
    seen = core.information_set(state, player)
    others: Counter[int] = Counter()
    draws = 6000
    for _ in range(draws):
        world = core.determinize(state, player, rng)
        assert core.information_set(world, player) == seen
        assert world[0] == state[0] and len(world[1]) == len(state[1])
        assert len(set(world[1])) == len(world[1]) or isinstance(core, RLCardLeduc)
        core.check_state(world)
        other = world[1][(1 - player) * core.hole : (2 - player) * core.hole]
        others.update(other)
    visible = [*core.own_cards(state[1], player), *core.public_cards(state[1])]
    if isinstance(core, RLCardLeduc):  # each rank by its copies left
        left = {r: 2 - visible.count(r) for r in range(3)}
        for r, n in left.items():
            assert abs(others[r] / draws - n / sum(left.values())) < 0.03
    else:
        assert set(others) == set(range(52)) - set(visible)
        expected = 2 * draws / (52 - len(visible))
        assert max(others.values()) < 1.3 * expected and min(others.values()) > 0.7 * expected


@pytest.mark.parametrize("core", CORES, ids=["leduc", "limit", "no-limit"])
def test_chance_outcomes_are_a_distribution_and_rollouts_end(core: RLCardPoker) -> None:
    rng = random.Random(0)
    for _ in range(300):
        state = core.initial_state()
        while not core.is_terminal(state):
            if core.is_chance(state):
                outcomes = core.chance_outcomes(state)
                assert sum(p for _, p in outcomes) == pytest.approx(1.0)
                assert [o for o, _ in outcomes] == core.legal_actions(state)
                state = core.next_state(state, core.sample_chance(state, rng))
            else:
                state = core.next_state(state, rng.choice(core.legal_actions(state)))
            core.check_state(state)
        low, high = core.return_range
        assert sum(core.returns(state)) == 0 and low <= core.returns(state)[0] <= high
        assert core.legal_actions(state) == []
        assert core.render_text(state)


def test_refusals_name_what_was_expected() -> None:
    with pytest.raises(InvalidParameterError, match="players must be 2"):
        LimitHoldem(players=3)
    core = LimitHoldem()
    for bad in [
        None,
        (0,),
        (10**6, ()),
        (0, (1, 1)),
        (2, (1, 2, 3)),
        (2, (1, 2, 3, 52)),
        (0, ("a",)),
    ]:
        with pytest.raises(InvalidStateError):
            core.check_state(bad)
    with pytest.raises(InvalidStateError):
        RLCardLeduc().check_state((0, (0, 0, 0)))
