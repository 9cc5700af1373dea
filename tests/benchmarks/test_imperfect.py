"""The hidden-information benchmark's pieces, on tiny budgets (the benchmark itself is run by
hand; see docs/benchmarks.md)."""

from __future__ import annotations

import pyspiel
import pytest

from benchmarks.imperfect import (
    headtohead_game,
    information_states,
    ours_policy,
    pig_game,
)
from mcts_agents.envs.games.kuhn_poker import KuhnPoker
from mcts_agents.envs.games.leduc_holdem import LeducHoldem


def test_information_states_are_the_published_counts() -> None:
    assert len(information_states("kuhn_poker")[1]) == 12  # 6 per player
    assert len(information_states("leduc_poker")[1]) == 936


def test_our_policy_is_a_distribution_at_every_information_state_and_beats_uniform() -> None:
    game, infos = information_states("kuhn_poker")
    policy = ours_policy(KuhnPoker(), infos, 2000, 0, search_from="start")
    assert set(policy) == set(infos)
    assert all(sum(p for _, p in row) == pytest.approx(1.0) for row in policy.values())
    uniform = {k: [(a, 0.5) for a, _ in row] for k, row in policy.items()}
    assert pyspiel.exploitability(game, uniform) == pytest.approx(0.4583, abs=1e-3)
    assert pyspiel.exploitability(game, policy) < 0.2


def test_leduc_histories_replay_in_our_rules() -> None:
    core = LeducHoldem()
    _, infos = information_states("leduc_poker")
    for _, history in list(infos.values())[::50]:
        state = core.apply(core.initial_state(), history)
        assert not core.is_terminal(state) and not core.is_chance(state)


def test_a_pig_game_and_a_head_to_head_game_play_out() -> None:
    pig = pig_game({"index": 0, "time": 0.005, "seed": 1, "seat": 1})
    assert sorted(pig["returns"]) == [-1.0, 1.0] and pig["moves"]["ours"] > 0
    record = headtohead_game(
        {
            "index": 0,
            "name": "leduc_poker",
            "params": {},
            "time": 0.005,
            "seed": 2,
            "seat": 0,
            "random_plies": 0,
        }
    )
    assert sum(record["returns"]) == pytest.approx(0.0) and record["moves"]["ours"] > 0
