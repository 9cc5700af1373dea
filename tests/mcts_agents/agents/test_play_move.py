"""What ``act`` plays: the best action on perfect-information games, a draw from the search's
mixed strategy (``SearchResult.policy``) where cards are hidden (``SearchConfig.play``)."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from mcts_agents import MCTSAgent
from mcts_agents.agents.agent import play_move
from mcts_agents.envs import kuhn_poker_v0, tic_tac_toe_v0
from mcts_agents.errors import InvalidOptionError

#: The 99.9% quantile of the chi-square distribution with one degree of freedom.
CHI2_1DF_999 = 10.828


def kuhn_queen_facing_a_bet():
    """Kuhn poker, player 1 holding the queen after player 0 bet: at equilibrium player 1
    calls with probability 1/3 + alpha, a mixed decision."""
    for seed in range(100):
        env = kuhn_poker_v0.env()
        env.reset(seed=seed)
        if env.unwrapped.state[2] == 1:  # player 1's card: the queen
            env.step(1)  # player 0 bets
            return env
    raise AssertionError("no deal gave player 1 the queen")


def test_act_draws_from_the_searched_policy_where_cards_are_hidden() -> None:
    env = kuhn_queen_facing_a_bet()
    counts: Counter[int] = Counter()
    expected: Counter[int] = Counter()
    draws = 300
    for seed in range(draws):
        agent = MCTSAgent(iterations=2000, seed=seed)  # default options: play="auto"
        counts[agent.act(env)] += 1
        for action, p in agent.last_result.policy.items():
            expected[action] += p
    # each draw follows its own search's policy: the counts' expectation is the policies' sum
    # (and their variance at most the multinomial one, so the test is conservative)
    assert 0.05 * draws < expected[1] < 0.95 * draws, "the searched policy should be mixed here"
    chi2 = sum((counts[a] - expected[a]) ** 2 / expected[a] for a in (0, 1))
    assert chi2 < CHI2_1DF_999, (counts, expected)
    assert 0 < counts[1] < draws  # both moves are played: not the argmax


def test_same_seed_same_draws() -> None:
    env = kuhn_queen_facing_a_bet()
    first = [MCTSAgent(iterations=500, seed=7).act(env) for _ in range(3)]
    agent = MCTSAgent(iterations=500, seed=7)
    moves = [agent.act(env)]
    agent.reset(seed=7)
    moves.append(agent.act(env))
    assert len(set(first)) == 1 and moves == [first[0], first[0]]


def test_play_best_plays_the_argmax_on_a_card_game() -> None:
    env = kuhn_queen_facing_a_bet()
    for seed in range(20):
        agent = MCTSAgent(iterations=300, seed=seed, play="best")
        assert agent.act(env) == agent.last_result.best_action


def test_perfect_information_keeps_the_best_action_by_default() -> None:
    env = tic_tac_toe_v0.env()
    env.reset(seed=0)
    mixed = 0
    for seed in range(20):
        agent = MCTSAgent(iterations=60, seed=seed, backend="python")
        assert agent.act(env) == agent.last_result.best_action
        mixed += max(agent.last_result.policy.values()) < 1
    assert mixed  # the policies were mixed, yet the argmax was played


def test_play_sample_draws_on_any_game_but_plays_a_proven_win() -> None:
    env = tic_tac_toe_v0.env()
    env.reset(seed=0)
    played = {MCTSAgent(iterations=30, seed=s, play="sample").act(env) for s in range(40)}
    assert len(played) > 1
    for move in (0, 3, 1, 4):  # X: 0, 1; O: 3, 4; X to move wins at 2
        env.step(move)
    for seed in range(10):
        agent = MCTSAgent(iterations=200, seed=seed, play="sample", backend="python")
        assert agent.act(env) == 2 and agent.last_result.proven == "win"


def test_play_move_follows_the_policy() -> None:
    env = kuhn_queen_facing_a_bet()
    result = MCTSAgent(iterations=2000, seed=0).search(env)
    rng = random.Random(0)
    n = 4000
    calls = sum(play_move(result, "sample", rng) for _ in range(n))
    p = result.policy[1]
    assert abs(calls - n * p) < 4 * (n * p * (1 - p)) ** 0.5 + 1


def test_bad_play_option_is_refused() -> None:
    with pytest.raises(InvalidOptionError, match="play"):
        MCTSAgent(iterations=10, play="random")


def test_act_batch_draws_as_act_does() -> None:
    from mcts_agents.agents.batch import act_batch

    env = kuhn_queen_facing_a_bet()
    for keep in (True, False):
        alone = [MCTSAgent(iterations=500, seed=s).act(env) for s in range(12)]
        agents = [MCTSAgent(iterations=500, seed=s) for s in range(12)]
        assert act_batch(agents, [env] * 12, keep_results=keep) == alone


def test_play_sample_never_draws_a_move_proven_lost() -> None:
    env = tic_tac_toe_v0.env()
    env.reset(seed=0)
    for move in (0, 4, 8, 1):  # X: 0, 8; O: 4, 1: O threatens 1-4-7, X must block at 7
        env.step(move)
    played = set()
    for seed in range(20):
        agent = MCTSAgent(iterations=3000, seed=seed, play="sample", backend="python")
        move = agent.act(env)
        children = agent.last_result.children
        lost = {c.action for c in children if c.proven == "loss"}
        assert lost and len(lost) < len(children), "proven losses beside other moves"
        assert move not in lost
        played.add(move)
    assert played == {7}
