"""``play_game``: the one AEC loop, against a hand-written ``agent_iter`` loop and the rules."""

from __future__ import annotations

import random
from typing import Any

import pytest
from pettingzoo.classic import connect_four_v3

from mcts_agents import MCTSAgent, RandomAgent, play_game
from mcts_agents.agents.play import Move
from mcts_agents.envs import connect_four_v0, multi_mnk_v0, nim_v0
from mcts_agents.errors import IllegalActionError


def reference_loop(env: Any, players: dict[str, Any]) -> dict[str, float]:
    """PettingZoo's documented loop, rewards read with ``last()``."""
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        _, reward, termination, truncation, _ = env.last()
        totals[agent] += reward
        env.step(None if termination or truncation else players[agent].act(env))
    return totals


@pytest.mark.parametrize(
    "make_env",
    [connect_four_v0.env, connect_four_v3.env, lambda: multi_mnk_v0.env(m=4, n=4, k=3)],
    ids=["ours", "pettingzoo", "three-players"],
)
def test_same_games_and_returns_as_the_agent_iter_loop(make_env: Any) -> None:
    for seed in range(5):
        results = []
        for loop in (reference_loop, play_game):
            env = make_env()
            env.reset(seed=seed)
            players = {a: RandomAgent(seed=seed * 10 + i) for i, a in enumerate(env.agents)}
            moves: list[Move] = []
            if loop is play_game:
                totals = play_game(env, players, on_move=moves.append)
                assert not env.agents  # played to the very end
                assert all(m.seconds >= 0 and m.result is None for m in moves)
            else:
                totals = loop(env, players)
            results.append({a: totals.get(a, 0.0) for a in env.possible_agents})
        assert results[0] == results[1]
        assert sorted(results[0].values()) in ([-1.0, 1.0], [0.0, 0.0], [-1.0, -1.0, 1.0],
                                               [0.0, 0.0, 0.0])  # fmt: skip


def test_nim_returns_match_the_rules_core() -> None:
    rng = random.Random(0)
    for _ in range(20):
        env = nim_v0.raw_env(piles=(rng.randrange(3, 12),))
        env.reset()
        players = {a: RandomAgent(seed=rng.randrange(99)) for a in env.possible_agents}
        moves: list[Move] = []
        totals = play_game(env, players, on_move=moves.append)
        game, state = env.game, env.game.initial_state()
        for move in moves:
            state = game.next_state(state, move.action)
        assert game.is_terminal(state)
        assert [totals.get(a, 0.0) for a in env.possible_agents] == list(game.returns(state))


def test_until_stops_before_a_turn_and_returns_add_up_across_calls() -> None:
    env = connect_four_v0.env()
    env.reset(seed=0)
    players = {a: RandomAgent(seed=i) for i, a in enumerate(env.possible_agents)}
    returns: dict[str, float] = {}
    turns = 0
    while env.agents:
        play_game(env, players, returns=returns, until=lambda e: e.agent_selection == "player_1")
        if not env.agents:
            break
        assert env.agent_selection == "player_1"
        play_game(env, players, returns=returns, until=lambda e: e.agent_selection == "player_0")
        turns += 1
    assert turns > 3 and sorted(returns.values()) in ([-1.0, 1.0], [])


def test_moves_carry_the_search_result() -> None:
    env = connect_four_v0.env()
    env.reset(seed=0)
    players = {"player_0": MCTSAgent(iterations=30, seed=0), "player_1": RandomAgent(seed=1)}
    moves: list[Move] = []
    play_game(env, players, on_move=moves.append)
    assert [m.agent for m in moves[:2]] == ["player_0", "player_1"]
    assert moves[0].result.iterations == 30 and moves[0].result.best_action == moves[0].action
    assert all(m.result is None for m in moves if m.agent == "player_1")


class Stubborn:
    def act(self, env: Any) -> int:
        return 0

    def __repr__(self) -> str:
        return "Stubborn()"


def test_an_illegal_action_is_refused_or_left_to_the_env() -> None:
    env = connect_four_v0.env()
    env.reset(seed=0)
    for _ in range(6):  # fill column 0
        env.step(0)
    players = {a: Stubborn() for a in env.possible_agents}
    with pytest.raises(IllegalActionError, match=r"Stubborn\(\) played the illegal action 0"):
        play_game(env, players, check_legal=True)
    assert env.agents  # nothing was stepped
    totals = play_game(env, players)  # PettingZoo's env(): the offender loses the game
    assert totals == {"player_0": -1.0}


class Recorder:
    """A random player that logs when it is prepared and when it acts."""

    def __init__(self, log: list[str], name: str) -> None:
        self.log, self.name, self.inner = log, name, RandomAgent(seed=len(name))

    def prepare(self, env: Any) -> None:
        self.log.append(f"prepare {self.name} {len(env.agents)}")

    def act(self, env: Any) -> int:
        self.log.append(f"act {self.name}")
        return self.inner.act(env)


def test_players_are_prepared_once_before_the_first_move() -> None:
    env = connect_four_v0.env()
    env.reset(seed=0)
    log: list[str] = []
    one = Recorder(log, "one")
    play_game(env, {"player_0": one, "player_1": one})  # one object in both seats
    assert log[0] == "prepare one 2" and log.count("prepare one 2") == 1
    assert all(entry == "act one" for entry in log[1:]) and len(log) > 7
    log.clear()
    env.reset(seed=0)
    players = {"player_0": Recorder(log, "a"), "player_1": Recorder(log, "b")}
    play_game(env, players, until=lambda e: True)  # stops before any move: nothing to prepare
    play_game(env, players, prepare=False, until=lambda e: len(log) >= 2)
    assert log == ["act a", "act b"]


def test_mcts_agent_prepare_builds_the_searcher_the_first_move_uses() -> None:
    env = connect_four_v0.env()
    env.reset(seed=1)
    before = env.unwrapped.save_state()
    agent = MCTSAgent(iterations=50, seed=0, backend="python")
    agent.prepare(env)
    searcher = agent.searcher
    assert searcher is not None and agent.last_result is None
    assert env.unwrapped.save_state() == before  # nothing searched, nothing stepped
    agent.act(env)
    assert agent.searcher is searcher and agent.last_result is not None
    other = nim_v0.env()
    other.reset(seed=0)
    agent.prepare(other)  # another game: another searcher
    assert agent.searcher is not searcher
