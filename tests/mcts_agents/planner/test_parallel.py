"""Root parallelism (``MCTSAgent(workers=N)``): budgets, determinism, truths, merging, lifecycle."""

from __future__ import annotations

import gc
import multiprocessing
import pickle
import random
import signal
from pathlib import Path
from typing import Any

import pytest

from mcts_agents import Budget, MCTSAgent, SearchConfig, SearchResult, make_searcher
from mcts_agents.envs import connect_four_v0, nim_v0, tic_tac_toe_v0
from mcts_agents.errors import (
    InvalidOptionError,
    UnpicklableError,
    UnpicklableGameError,
    WorkerError,
)
from mcts_agents.planner import RootParallelSearch
from mcts_agents.planner.parallel import worker_seed
from mcts_agents.search.searcher import split_iterations
from tests.processes import cpu_seconds, survivors_of_killed_script
from tests.reference import exact_returns, optimal_actions

TTT = tic_tac_toe_v0.raw_env().game
SOLVE_TTT = exact_returns(TTT)


def connect_four(*moves: int) -> Any:
    env = connect_four_v0.raw_env()
    env.reset()
    for column in moves:
        env.step(column)
    return env


def visits(result: SearchResult) -> list[tuple[int, int]]:
    return [(c.action, c.visits) for c in result.children]


def snapshot(env: Any) -> tuple[Any, ...]:
    raw = env.unwrapped
    observations = tuple(
        (o["observation"].tobytes(), o["action_mask"].tobytes())
        for o in (raw.observe(a) for a in raw.possible_agents)
    )
    return (
        raw.save_state(),
        observations,
        list(raw.agents),
        raw.agent_selection,
        dict(raw.rewards),
    )


# --------------------------------------------------------------------------- budgets, determinism
def test_iteration_budget_is_the_total_and_the_result_is_deterministic() -> None:
    env = connect_four()
    with (
        MCTSAgent(iterations=2001, seed=3, workers=2) as one,
        MCTSAgent(iterations=2001, seed=3, workers=2) as two,
        MCTSAgent(iterations=2001, seed=4, workers=2) as other,
    ):
        first, second = one.search(env), two.search(env)
        assert first.iterations == 2001
        assert [w.iterations for w in first.workers] == [1001, 1000]
        # a fresh tree and an unproven root: every simulation passes through one root action
        assert sum(c.visits for c in first.children) == first.iterations
        assert first.nodes == sum([w.nodes for w in first.workers])
        assert visits(first) == visits(second)
        assert first.best_action == second.best_action
        assert first.root_value == second.root_value
        assert first.principal_variation[0] == first.best_action
        seeded_4 = other.search(env)
        assert visits(seeded_4) != visits(first)
        # tree reuse in every process: both tables survive the two plies
        env.step(first.best_action)
        env.step(3)  # every reply is in both trees after 1000 simulations each
        again = one.search(env)
        assert again.reused_nodes > 0 and again.iterations == 2001
        # reset(seed) forgets every table and reseeds every process: same as a fresh agent
        one.reset(seed=4)
        assert visits(one.search(connect_four())) == visits(seeded_4)


def test_time_budget_applies_to_every_worker() -> None:
    env = connect_four()
    with RootParallelSearch(Budget(time_limit=0.3), SearchConfig(), 0, workers=2) as search:
        search.start()
        result = search.search(env.game, env.state)
    assert all(n > 0 for n in [w.iterations for w in result.workers])
    assert result.iterations == sum([w.iterations for w in result.workers])
    assert 0.3 <= result.elapsed < 10.0


def test_seeds_and_shares() -> None:
    assert worker_seed(7, 0) == 7 and worker_seed(None, 3) is None
    seeds = [worker_seed(7, i) for i in range(1, 5)]
    assert len(set(seeds)) == 4 and seeds == [worker_seed(7, i) for i in range(1, 5)]
    assert split_iterations(10, 3) == [4, 3, 3] and split_iterations(2, 4) == [1, 1, 0, 0]


# --------------------------------------------------------------------------- truths
def test_never_loses_tic_tac_toe_to_perfect_play() -> None:
    with MCTSAgent(iterations=4000, seed=0, workers=2) as agent:
        for seed in range(2):
            for seat in (0, 1):
                agent.reset(seed=seed)
                env = tic_tac_toe_v0.raw_env()
                env.reset()
                rng = random.Random(seed)
                while not TTT.is_terminal(env.state):
                    if TTT.to_play(env.state) == seat:
                        env.step(agent.act(env))
                    else:
                        env.step(rng.choice(optimal_actions(TTT, env.state, SOLVE_TTT)))
                assert TTT.returns(env.state)[seat] >= 0, (seed, seat)


def test_nim_takes_pile_mod_4() -> None:
    """One pile, take 1-3, last chip wins: the winning move leaves a multiple of 4."""
    with MCTSAgent(iterations=3000, seed=1, workers=2) as agent:
        for pile in (5, 6, 7, 10, 13, 19):
            env = nim_v0.raw_env(piles=(pile,), max_take=3)
            env.reset()
            assert agent.act(env) == pile % 4 - 1, pile  # one pile: action = take - 1


@pytest.mark.parametrize(
    ("moves", "best"),
    [([3, 0, 3, 0, 3, 0], 3), ([3, 0, 3, 0, 3], 3), ([0, 0, 1, 1, 2, 6], 3), ([0, 6, 1, 6, 2], 3)],
    ids=["win-vertical", "block-vertical", "win-row", "block-row"],
)
def test_connect_four_wins_at_once_and_blocks(moves: list[int], best: int) -> None:
    with MCTSAgent(iterations=3000, seed=0, workers=2) as agent:
        assert agent.act(connect_four(*moves)) == best


def test_a_proof_from_the_workers_is_kept() -> None:
    """X (0 8 6) to move against O (4 2 3), who threatens 5: X wins at once on 7."""
    moves = (0, 4, 8, 2, 6, 3)
    env = tic_tac_toe_v0.raw_env()
    env.reset()
    for square in moves:
        env.step(square)
    state = env.state
    assert SOLVE_TTT(state)[TTT.to_play(state)] == 1.0
    with MCTSAgent(iterations=2000, seed=0, workers=2) as agent:
        found = agent.search(env)
    me = TTT.to_play(state)
    assert found.proven == "win" and found.root_value == 1.0
    assert SOLVE_TTT(TTT.next_state(state, found.best_action))[me] == 1.0
    assert found.child(found.best_action).proven == "win"


# --------------------------------------------------------------------------- honesty, lifecycle
def test_the_live_env_is_unchanged() -> None:
    env = connect_four(3, 3, 2)
    before = snapshot(env)
    with MCTSAgent(iterations=1000, seed=0, workers=2) as agent:
        agent.search(env)
    assert snapshot(env) == before


def test_workers_stop_on_close_and_when_the_agent_is_collected() -> None:
    agent = MCTSAgent(iterations=200, seed=0, workers=3)
    agent.search(connect_four())
    procs = agent.searcher.processes  # type: ignore[union-attr]
    assert len(procs) == 2 and all(p.is_alive() for p in procs)
    agent.close()
    assert not any(p.is_alive() for p in procs)
    assert agent.search(connect_four()).iterations == 200  # restarted lazily
    procs = agent.searcher.processes  # type: ignore[union-attr]
    del agent
    gc.collect()
    for proc in procs:
        proc.join(timeout=5)
    assert not any(p.is_alive() for p in procs)


def test_a_dead_worker_raises_then_the_next_search_restarts() -> None:
    with MCTSAgent(iterations=200, seed=0, workers=2) as agent:
        agent.search(connect_four())
        (proc,) = agent.searcher.processes  # type: ignore[union-attr]
        proc.kill()
        proc.join(timeout=5)
        with pytest.raises(WorkerError, match="died") as error:
            agent.search(connect_four())
        assert isinstance(error.value, RuntimeError)
        assert agent.search(connect_four()).iterations == 200


def fails_in_workers(game: Any, state: Any) -> tuple[list[float], None]:
    """An evaluator that works in the calling process and raises in a worker process."""
    if multiprocessing.current_process().name.startswith("mcts-worker"):
        raise ZeroDivisionError("evaluator broke in a worker")
    return [0.0] * game.num_players, None


def test_an_error_in_a_worker_search_is_reported_with_its_traceback() -> None:
    with MCTSAgent(iterations=100, seed=0, workers=2, evaluator=fails_in_workers) as agent:
        with pytest.raises(WorkerError, match="ZeroDivisionError: evaluator broke in a worker"):
            agent.search(connect_four())
        assert isinstance(agent.searcher, RootParallelSearch) and not agent.searcher.started


def test_a_game_that_cannot_be_pickled_is_refused() -> None:
    from tests.mcts_agents.adapters.support import Pile

    env = Pile(7)  # searched over verified clones of the env (generic.EnvGame)
    env.reset(seed=0)
    with (
        MCTSAgent(iterations=100, seed=0, workers=2) as agent,
        pytest.raises(UnpicklableError, match=r"EnvGame.*picklable rules core"),
    ):
        agent.search(env)
    assert UnpicklableGameError is UnpicklableError  # the old name
    assert issubclass(UnpicklableError, TypeError)


@pytest.mark.parametrize("workers", [0, -2, 1.5, True, "2", None, 10**6])
def test_bad_workers_are_named(workers: Any) -> None:
    with pytest.raises(InvalidOptionError, match="workers"):
        MCTSAgent(iterations=10, workers=workers)


def test_an_evaluator_that_cannot_be_pickled_is_named() -> None:
    with pytest.raises(UnpicklableError, match=r"search configuration.*cannot be pickled"):
        MCTSAgent(iterations=10, workers=2, evaluator=lambda game, state: ([0.0, 0.0], None))
    assert issubclass(UnpicklableError, InvalidOptionError)  # what this raised before


def test_an_agent_with_workers_pickles_its_configuration_only() -> None:
    env = connect_four()
    with MCTSAgent(iterations=600, seed=5, workers=2) as agent:
        agent.search(env)
        copy = pickle.loads(pickle.dumps(agent))
    with copy, MCTSAgent(iterations=600, seed=5, workers=2) as fresh:
        assert isinstance(copy.searcher, RootParallelSearch)
        assert not copy.searcher.started and copy.searcher.table_size() == 0
        assert visits(copy.search(env)) == visits(fresh.search(env))
        assert repr(copy) == "MCTSAgent(iterations=600, seed=5, workers=2)"


def test_one_worker_keeps_the_plain_search() -> None:
    agent = MCTSAgent(iterations=300, seed=2)
    assert agent.workers == 1
    agent.close()  # a no-op
    env = connect_four()
    plain = make_searcher(env.game, Budget(iterations=300), SearchConfig(), seed=2)
    assert not isinstance(plain, RootParallelSearch)
    assert visits(agent.search(env)) == visits(plain.search(env.game, env.state))


SEARCH_FOR_EVER = """
from mcts_agents import MCTSAgent
from mcts_agents.envs import connect_four_v0

env = connect_four_v0.env()
env.reset(seed=0)
MCTSAgent(iterations=10**9, workers=2, backend="python", seed=0).search(env)
"""


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc (Linux)")
@pytest.mark.parametrize("how", [signal.SIGKILL, signal.SIGTERM], ids=["SIGKILL", "SIGTERM"])
def test_search_workers_end_when_the_searching_process_is_killed(how: signal.Signals) -> None:
    # a worker only reads its pipe between searches: without the parent watch it would run
    # its part of a 10**9-iteration search long after the parent died
    survivors = survivors_of_killed_script(
        SEARCH_FOR_EVER,
        Path(__file__).resolve().parents[3],
        how,
        workers=1,
        is_worker=lambda p, c: cpu_seconds(p) > 2.0,
    )
    assert not survivors
