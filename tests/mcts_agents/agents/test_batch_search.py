"""``mcts_agents.agents.batch``: a batch of searches equals the same searches made one by one."""

from __future__ import annotations

from typing import Any

import pytest

from mcts_agents import MCTSAgent, RandomAgent
from mcts_agents.agents.batch import BatchedMCTS, act_batch, acts_in_batches, search_batch
from mcts_agents.envs import connect_four_v0, tic_tac_toe_v0
from mcts_agents.envs.games.connect_four import ConnectFour
from mcts_agents.envs.games.mnk import MNK
from mcts_agents.errors import InvalidOptionError
from mcts_agents.planner.factory import make_searcher
from mcts_agents.search.config import Budget, SearchConfig
from mcts_agents.search.result import SearchResult


def summary(result: SearchResult) -> tuple[Any, ...]:
    """Everything of a result but its timing."""
    return (
        result.best_action,
        result.iterations,
        result.nodes,
        result.reused_nodes,
        result.pruned_nodes,
        result.children,
        result.principal_variation,
        result.root_value,
        result.proven,
    )


def positions(game: Any, moves: list[list[int]]) -> list[Any]:
    states = []
    for line in moves:
        state = game.initial_state()
        for move in line:
            state = game.next_state(state, move)
        states.append(state)
    return states


@pytest.mark.parametrize(
    ("game", "lines", "config"),
    [
        (ConnectFour(), [[], [3], [3, 3], [0, 6, 1]], SearchConfig()),  # its own kernel
        (MNK(3, 3, 3), [[], [4], [4, 0], [0, 1, 2]], SearchConfig()),  # the shared kernel
        (MNK(3, 3, 3), [[], [4]], SearchConfig(backend="python")),  # the Python search
    ],
)
def test_search_batch_equals_the_searches_one_by_one(
    game: Any, lines: list[list[int]], config: SearchConfig
) -> None:
    """Two rounds (the second re-roots each tree after two more moves): same results."""
    budget = Budget(iterations=150)
    states = positions(game, lines)
    alone = [make_searcher(game, budget, config, seed=10 + i) for i in range(len(states))]
    batch = [make_searcher(game, budget, config, seed=10 + i) for i in range(len(states))]
    for _ in range(2):
        want = [s.search(game, st) for s, st in zip(alone, states, strict=True)]
        got = search_batch(batch, game, states)
        assert [summary(r) for r in got] == [summary(r) for r in want]
        states = [advance(game, st, r.best_action) for st, r in zip(states, want, strict=True)]


def advance(game: Any, state: Any, action: int) -> Any:
    """``action`` and the first legal reply; a new game where that ends the game."""
    state = game.next_state(state, action)
    if not game.is_terminal(state):
        state = game.next_state(state, game.legal_actions(state)[0])
    return game.initial_state() if game.is_terminal(state) else state


def test_search_batch_refuses_one_searcher_for_two_states() -> None:
    game = MNK(3, 3, 3)
    searcher = make_searcher(game, Budget(iterations=10), SearchConfig(), seed=0)
    state = game.initial_state()
    with pytest.raises(InvalidOptionError, match="states 0 and 1"):
        search_batch([searcher, searcher], game, [state, state])
    with pytest.raises(InvalidOptionError, match="one searcher and one game per state"):
        search_batch([searcher], game, [state, state])


def test_batched_mcts_tree_i_plays_as_an_agent_seeded_seed_plus_i() -> None:
    envs = [connect_four_v0.env() for _ in range(3)]
    for i, env in enumerate(envs):
        env.reset(seed=i)
    batched = BatchedMCTS(3, iterations=80, seed=5)
    agents = [MCTSAgent(iterations=80, seed=5 + i) for i in range(3)]
    for _ in range(3):  # the trees are kept and re-rooted between moves
        want = [agent.act(env) for agent, env in zip(agents, envs, strict=True)]
        assert batched.act_batch(envs) == want
        for env, action in zip(envs, want, strict=True):
            env.step(action)
    assert [summary(a.last_result) for a in batched.agents if a.last_result] == [
        summary(a.last_result) for a in agents if a.last_result
    ]


def test_batched_mcts_search_batch_picks_trees_and_refuses_bad_ones() -> None:
    game = MNK(3, 3, 3)
    state = game.initial_state()
    batched = BatchedMCTS(3, iterations=40, seed=1)
    got = batched.search_batch(game, [state], trees=[2])
    want = MCTSAgent(iterations=40, seed=3)._searcher_for(game).search(game, state)
    assert summary(got[0]) == summary(want)
    with pytest.raises(InvalidOptionError, match="distinct indices below 3"):
        batched.search_batch(game, [state, state], trees=[1, 1])
    with pytest.raises(InvalidOptionError, match="4 positions for 3 trees"):
        batched.search_batch(game, [state] * 4)
    with pytest.raises(InvalidOptionError, match="trees must be an int >= 1, got 0"):
        BatchedMCTS(0, iterations=5)
    with pytest.raises(InvalidOptionError, match="seed must list 2 ints"):
        BatchedMCTS(2, iterations=5, seed=[1])


def test_act_batch_asks_other_agents_through_act() -> None:
    envs = [tic_tac_toe_v0.env() for _ in range(2)]
    for env in envs:
        env.reset(seed=0)
    mcts, other = MCTSAgent(iterations=30, seed=2), RandomAgent(seed=4)
    got = act_batch([mcts, other], envs)
    assert got == [MCTSAgent(iterations=30, seed=2).act(envs[0]), RandomAgent(seed=4).act(envs[1])]
    assert mcts.last_result is not None and mcts.last_result.best_action == got[0]
    with pytest.raises(InvalidOptionError, match="2 agents and 1 envs"):
        act_batch([mcts, other], envs[:1])


@pytest.mark.parametrize("make_env", [connect_four_v0.env, tic_tac_toe_v0.env])
def test_act_batch_without_results_plays_the_same_moves_and_leaves_the_same_trees(
    make_env: Any,
) -> None:
    envs = [make_env() for _ in range(3)]
    for i, env in enumerate(envs):
        env.reset(seed=i)
    lean = [MCTSAgent(iterations=60, seed=i) for i in range(3)]
    full = [MCTSAgent(iterations=60, seed=i) for i in range(3)]
    for _ in range(2):
        moves = act_batch(lean, envs, keep_results=False)
        assert moves == [agent.act(env) for agent, env in zip(full, envs, strict=True)]
        assert all(agent.last_result is None for agent in lean)
        for env, move in zip(envs, moves, strict=True):
            env.step(move)
    after = act_batch(lean, envs)  # full results now: the trees were left as search leaves them
    assert [summary(a.last_result) for a in lean if a.last_result] == [
        summary(agent.search(env)) for agent, env in zip(full, envs, strict=True)
    ]
    assert after == [a.last_result.best_action for a in lean if a.last_result]


def test_prior_agents_of_one_model_move_in_one_forward_pass() -> None:
    from mcts_agents.agents.models import PriorAgent
    from tests.mcts_agents.arena.test_lockstep import Linear

    model = Linear()
    envs = []
    for seed, opening in enumerate(([], [4], [0, 8], [4, 0, 2])):
        env = tic_tac_toe_v0.env()
        env.reset(seed=seed)
        for move in opening:
            env.step(move)
        envs.append(env)
    alone = [PriorAgent(model, temperature=1.0, seed=i).act(env) for i, env in enumerate(envs)]
    before = len(model.sizes)
    agents = [PriorAgent(model, temperature=1.0, seed=i) for i in range(len(envs))]
    assert act_batch(agents, envs) == alone
    assert model.sizes[before:] == [len(envs)]


class Batched:
    """A learned policy's stand-in: ``batch(observations, masks)`` gives the first legal move."""

    def batch(self, observations: Any, masks: Any) -> Any:
        return masks.argmax(axis=1)

    def __call__(self, observation: Any, mask: Any) -> int:
        return int(mask.argmax())


class Moody(RandomAgent):
    def act(self, env: Any) -> int:  # anything at all
        return 0


def test_acts_in_batches_names_the_agents_whose_moves_batch_and_ignore_the_clock() -> None:
    from mcts_agents.agents.models import PriorAgent
    from mcts_agents.agents.policy import PolicyAgent

    class Uniform:
        def evaluate_batch(self, observations: Any, masks: Any) -> Any:
            return masks / masks.sum(axis=1, keepdims=True), masks[:, 0] * 0.0

    yes = [MCTSAgent(iterations=8), MCTSAgent(iterations=8, backend="python"), RandomAgent(),
           PriorAgent(Uniform()), PolicyAgent(Batched())]  # fmt: skip
    no = [MCTSAgent(time_limit=0.1), MCTSAgent(iterations=8, workers=2), Moody(),
          PolicyAgent(lambda observation, mask: 0), object()]  # fmt: skip
    assert [acts_in_batches(agent) for agent in yes] == [True] * len(yes)
    assert [acts_in_batches(agent) for agent in no] == [False] * len(no)


def test_puct_agents_of_one_network_search_in_lockstep(monkeypatch: pytest.MonkeyPatch) -> None:
    """``az:``-style agents (``PUCTAgent``) and an ``MCTSAgent`` over the same network: the
    moves and results their ``act`` gives one by one, their trees searched in lockstep (one
    network call a round for all of them, where one by one each tree makes its own); a time
    limit searches on its own (its seconds are its own)."""
    from mcts_agents.agents.models import PUCTAgent
    from tests.mcts_agents.search.test_tree_batch import RowByRow, tiny_network

    network = RowByRow(tiny_network(ConnectFour()))
    # the slow-search hint times the network (more calls) the first time a search is slow
    monkeypatch.setattr("mcts_agents.agents.agent.hint_if_slow", lambda *a, **k: False)
    envs = []
    for seed, opening in enumerate(([], [3], [3, 3], [0, 6, 1])):
        env = connect_four_v0.env()
        env.reset(seed=seed)
        for move in opening:
            env.step(move)
        envs.append(env)

    def agents() -> list[Any]:
        return [
            PUCTAgent(network, simulations=24, seed=0, batch_size=1),
            PUCTAgent(network, simulations=24, seed=1, batch_size=8),
            PUCTAgent(network, simulations=24, seed=2, search="gumbel", batch_size=4),
            MCTSAgent(iterations=24, seed=3, selection="puct", evaluator=network, batch_size=4),
        ]

    alone = agents()
    moves, calls_alone = [], []
    for agent, env in zip(alone, envs, strict=True):
        before = len(network.calls)
        moves.append(agent.act(env))
        calls_alone.append(len(network.calls) - before)
    together = agents()
    before = len(network.calls)
    assert act_batch(together, envs) == moves
    calls_together = len(network.calls) - before
    assert [summary(a.last_result) for a in together] == [summary(a.last_result) for a in alone]
    assert calls_alone[0] == 1 + 24  # the root, then one leaf a call (K = 1)
    assert calls_together == max(calls_alone) < sum(calls_alone)  # a call a round for all
    lean = agents()
    assert act_batch(lean, envs, keep_results=False) == moves
    timed = PUCTAgent(network, time_limit=0.05, seed=0)
    assert act_batch([timed, agents()[1]], envs[:2])[1] == moves[1]
