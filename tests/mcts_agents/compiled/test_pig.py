"""Compiled Pig playouts (mcts_agents/compiled/pig.py) against the rules core's own playout."""

from __future__ import annotations

import random

import pytest

from mcts_agents import Budget, SearchConfig, make_searcher
from mcts_agents.envs.games.pig import DECIDING, OVER, ROLLING, Pig

pytest.importorskip("numba")

from mcts_agents.compiled.rules.pig import pig_playout
from tests.mcts_agents.compiled.playouts import assert_same_outcomes

#: (game, state): starts, a rolling die, a player near the win, three players, piglet, and a
#: horizon close enough that many playouts are draws.
CASES = [
    (Pig(winscore=20), None),
    (Pig(winscore=20), (3, 1, 4, ROLLING, (12, 7))),
    (Pig(winscore=20), (9, 0, 5, DECIDING, (14, 18))),
    (Pig(players=3, winscore=15, diceoutcomes=4), (4, 2, 0, DECIDING, (6, 0, 9))),
    (Pig(players=4, winscore=10, diceoutcomes=3, piglet=True), None),
    (Pig(winscore=25, horizon=30), (10, 1, 0, DECIDING, (5, 3))),
]


@pytest.mark.parametrize("kind", ["random", "decisive"])
@pytest.mark.parametrize("case", range(len(CASES)))
def test_outcomes_match_the_cores_playout(case: int, kind: str) -> None:
    """Each outcome's frequency agrees with ``Pig.rollout``'s (``decisive_rollout``'s)."""
    game, state = CASES[case]
    state = game.initial_state() if state is None else state
    reference = game.decisive_rollout if kind == "decisive" else game.rollout
    play = pig_playout(game, kind)
    ours = assert_same_outcomes(game, play, state, 20_000, case, reference)
    if game.horizon == 30 and kind == "random":  # the horizon is reachable: draws happen
        assert ours[-1] > 0


def test_returns_are_the_games_and_the_seed_decides() -> None:
    game = Pig(players=3, winscore=12)
    play = pig_playout(game)
    over = (20, 2, 0, OVER, (3, 5, 12))
    assert play(over, random.Random(0)) == game.returns(over)
    start = game.initial_state()

    def stream(seed: int) -> list[tuple[float, ...]]:
        rng = random.Random(seed)
        return [tuple(play(start, rng)) for _ in range(50)]

    first = stream(8)
    assert first == stream(8)
    assert first != stream(9)
    wins = set(first)
    assert wins <= {game.returns((0, 0, 0, OVER, s)) for s in [(12, 0, 0), (0, 12, 0), (0, 0, 12)]}
    assert len(wins) > 1  # fifty playouts from one stream do not all end the same


def test_the_python_search_uses_them_where_it_can() -> None:
    game = Pig(winscore=30)
    state = (4, 0, 6, DECIDING, (18, 21))
    budget = Budget(iterations=400)
    auto = make_searcher(game, budget, SearchConfig(), seed=3).search(game, state)
    assert auto.playouts == "numba"
    again = make_searcher(game, budget, SearchConfig(), seed=3).search(game, state)
    assert again.best_action == auto.best_action and again.children == auto.children
    for config in (SearchConfig(backend="python"), SearchConfig(rollout_depth=20)):
        result = make_searcher(game, budget, config, seed=3).search(game, state)
        assert result.playouts == "python"
    other = Pig(winscore=31)  # a searcher built for one game plays another with its own playout
    searcher = make_searcher(game, budget, SearchConfig(), seed=3)
    assert searcher.search(other, state).playouts == "python"


def test_both_playouts_find_the_same_decision() -> None:
    """At 21 banked against 29 of 30, with 8 on the turn, stopping is clearly wrong (the opponent
    wins almost surely from 29); rolling is right. Both playouts lead the search there."""
    game = Pig(winscore=30)
    state = (30, 0, 8, DECIDING, (21, 29))
    for backend in ("auto", "python"):
        result = make_searcher(
            game, Budget(iterations=3000), SearchConfig(backend=backend), seed=1
        ).search(game, state)
        assert result.best_action == 0, (backend, result.children)
