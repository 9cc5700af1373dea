"""PettingZoo's rlcard poker envs searched without peeking (``mcts_agents.adapters.rlcard``).

Before this adapter the agent cloned the deck and the opponent's hand and reported a proven win
on every Leduc deal. The truths here: a redeal keeps exactly what the player saw and shuffles
everything else; two live envs the player cannot tell apart get the same search.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest
from pettingzoo.classic import leduc_holdem_v4, texas_holdem_no_limit_v6, texas_holdem_v4

from mcts_agents import MCTSAgent
from mcts_agents.adapters import RLCardGame, game_from_env

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
    game, root = game_from_env(env)
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


@pytest.mark.parametrize("make", [texas_holdem_v4.env, texas_holdem_no_limit_v6.env])
def test_holdem_plays_to_the_end_through_the_agent(make: Any) -> None:
    env = dealt(make, 3)
    agent = MCTSAgent(iterations=60, seed=0)
    for _ in env.agent_iter():
        _, _, termination, truncation, _ = env.last()
        env.step(None if termination or truncation else agent.act(env))
    assert not env.agents
