"""PettingZoo's rlcard poker envs searched without peeking (``mcts_agents.adapters.rlcard``).

Before this adapter the agent cloned the deck and the opponent's hand and reported a proven win
on every Leduc deal. The truths here: a redeal keeps exactly what the player saw and shuffles
everything else; two live envs the player cannot tell apart get the same search, on the rules
cores (two-player Leduc and limit hold'em) and on the clone path (``clone=True``, no-limit).
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest
from pettingzoo.classic import leduc_holdem_v4, texas_holdem_no_limit_v6, texas_holdem_v4

from mcts_agents import MCTSAgent
from mcts_agents.adapters import RLCardGame, game_from_env, hint_if_slow
from mcts_agents.adapters.rlcard import rlcard_game
from mcts_agents.envs.games.limit_holdem import LimitHoldem
from mcts_agents.envs.games.nolimit_holdem import NoLimitHoldem
from mcts_agents.envs.games.rlcard_leduc import RLCardLeduc

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")  # rlcard's Box precision warnings


def dealt(make: Any, seed: int) -> Any:
    env = make()
    env.reset(seed=seed)
    return env


def cards(env: Any) -> list[str]:
    game = env.unwrapped.env.game
    hands = [p.hand if isinstance(p.hand, list) else [p.hand] for p in game.players]
    return [c.get_index() for hand in hands for c in hand] + [
        c.get_index() for c in game.dealer.deck
    ]


@pytest.mark.parametrize(
    ("make", "low", "high"),
    [
        (leduc_holdem_v4.env, -7, 7),
        (texas_holdem_v4.env, -25, 25),
        (texas_holdem_no_limit_v6.env, -100, 100),
    ],
    ids=["leduc", "limit", "no-limit"],
)
def test_a_redeal_keeps_what_the_player_saw_and_shuffles_the_rest(
    make: Any, low: float, high: float
) -> None:
    env = dealt(make, 0)
    game, root = rlcard_game(env, env.unwrapped, clone=True)
    assert isinstance(game, RLCardGame) and not game.perfect_information
    assert game.return_range == (low, high)
    player = game.to_play(root)
    seen = game.information_set(root, player)
    before = cards(root.env)
    others = Counter()
    for seed in range(60):
        world = game.determinize(root, player, random.Random(seed))
        assert game.information_set(world, player) == seen  # what the player saw stays
        after = cards(world.env)
        assert sorted(after) == sorted(before)  # no card lost or added
        mine = len(after) - len(world.env.unwrapped.env.game.dealer.deck)
        others[tuple(after[mine // 2 :] if player == 0 else after[: mine // 2])] += 1
    assert len(others) > 10  # the hidden cards really are redealt
    assert cards(root.env) == before  # the root state is untouched


def test_two_player_leduc_and_limit_take_the_rules_cores_the_rest_the_clone_path() -> None:
    leduc, _ = game_from_env(dealt(leduc_holdem_v4.env, 0))
    limit, _ = game_from_env(dealt(texas_holdem_v4.env, 0))
    assert isinstance(leduc, RLCardLeduc) and leduc.return_range == (-7, 7)
    assert isinstance(limit, LimitHoldem) and limit.return_range == (-25, 25)
    nolimit, _ = game_from_env(dealt(texas_holdem_no_limit_v6.env, 0))
    assert isinstance(nolimit, NoLimitHoldem) and nolimit.return_range == (-100, 100)
    for make in (texas_holdem_v4.env, texas_holdem_no_limit_v6.env):
        three = make(num_players=3)
        three.reset(seed=0)
        assert isinstance(game_from_env(three)[0], RLCardGame)  # no core for three players


def hidden_swapped(make: Any, seed: int, moves: list[int]) -> tuple[Any, Any]:
    """Two live envs, same seed and moves, then in the second the other seat's hole cards
    swapped for cards still in the deck: the player to move cannot tell them apart."""
    envs = [dealt(make, seed) for _ in range(2)]
    for env in envs:
        for action in moves:
            env.step(action)
    game = envs[1].unwrapped.env.game
    other = game.players[1 - game.game_pointer]
    deck = game.dealer.deck
    if isinstance(other.hand, list):
        other.hand, deck[:2] = deck[:2], other.hand
    else:  # Leduc: a card of another rank (suits never matter)
        j = next(i for i, card in enumerate(deck) if card.rank != other.hand.rank)
        other.hand, deck[j] = deck[j], other.hand
    return envs[0], envs[1]


@pytest.mark.parametrize(
    ("make", "moves"),
    [
        (leduc_holdem_v4.env, [1, 0]),
        (texas_holdem_v4.env, [0, 3, 3, 1, 0]),
        (texas_holdem_no_limit_v6.env, [1, 1, 2, 1]),
    ],
    ids=["leduc", "limit", "no-limit"],
)
def test_hidden_cards_never_reach_the_cores_search(make: Any, moves: list[int]) -> None:
    """No peeking on the fast path: other hidden cards, same view, identical root statistics;
    the live envs are not changed by the search."""
    first, second = hidden_swapped(make, 5, moves)
    assert cards(first) != cards(second)
    before = [cards(first), cards(second)]
    results = [MCTSAgent(iterations=1500, seed=4).search(env) for env in (first, second)]
    assert results[0].children == results[1].children
    assert results[0].information == "mo_ismcts"
    assert [cards(first), cards(second)] == before
    # the true states differ (the oracle reads them); the player's views are one state
    assert game_from_env(first, True)[1] != game_from_env(second, True)[1]
    assert game_from_env(first)[1] == game_from_env(second)[1]


def test_the_slow_hint_names_the_clone_path_for_rlcard(caplog: pytest.LogCaptureFixture) -> None:
    env = texas_holdem_v4.env(num_players=3)
    env.reset(seed=0)
    game, _ = game_from_env(env)
    with caplog.at_level("WARNING", logger="mcts_agents.adapters"):
        assert hint_if_slow(env, game, 10, 1.0)
    message = caplog.records[-1].getMessage()
    assert "clones of the whole env" in message and "rules cores" in message


def test_leduc_is_no_longer_a_proven_win_on_every_deal() -> None:
    for seed in range(6):
        result = MCTSAgent(iterations=300, seed=seed).search(dealt(leduc_holdem_v4.env, seed))
        assert result.proven is None and result.information == "mo_ismcts"
        assert all(-1.0 <= c.value <= 1.0 for c in result.children)


def test_deals_the_player_cannot_tell_apart_give_the_same_search() -> None:
    """The invariant on a live PettingZoo env: other hidden cards, same information set."""
    by_view: dict[Any, tuple[int, list[str]]] = {}
    pair = None
    for seed in range(200):
        env = dealt(leduc_holdem_v4.env, seed)
        game, root = game_from_env(env)
        view = (game.to_play(root), game.information_set(root, game.to_play(root)))
        if view in by_view and by_view[view][1] != cards(env):
            pair = (by_view[view][0], seed)
            break
        by_view.setdefault(view, (seed, cards(env)))
    assert pair is not None
    results = [
        MCTSAgent(iterations=400, seed=9).search(dealt(leduc_holdem_v4.env, s)) for s in pair
    ]
    assert results[0].children == results[1].children


@pytest.mark.parametrize(
    "make", [leduc_holdem_v4.env, texas_holdem_v4.env, texas_holdem_no_limit_v6.env]
)
def test_holdem_plays_to_the_end_through_the_agent(make: Any) -> None:
    env = dealt(make, 3)
    agent = MCTSAgent(iterations=60, seed=0)
    for _ in env.agent_iter():
        _, _, termination, truncation, _ = env.last()
        env.step(None if termination or truncation else agent.act(env))
    assert not env.agents
