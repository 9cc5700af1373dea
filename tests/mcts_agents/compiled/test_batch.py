"""``compiled.batch``: one parallel kernel call over many trees gives each tree's own search."""

from __future__ import annotations

import gc
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("numba")

from mcts_agents.compiled import batch
from mcts_agents.compiled import threads as compiled_threads
from mcts_agents.compiled.searcher import CompiledSearch
from mcts_agents.envs.games.connect_four import ConnectFour
from mcts_agents.envs.games.mnk import MNK
from mcts_agents.envs.games.othello import Othello
from mcts_agents.search.config import Budget, SearchConfig
from mcts_agents.search.result import SearchResult


def summary(result: SearchResult) -> tuple[Any, ...]:
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
        result.mean_depth,
    )


def build(game: Any, budget: Budget, config: SearchConfig, seed: int) -> Any:
    return CompiledSearch(game, budget, config, seed, capacity=16)


def play_line(game: Any, moves: list[int]) -> Any:
    state = game.initial_state()
    for move in moves:
        state = game.next_state(state, move)
    return state


@pytest.fixture(params=["threads", "threads, static split", "one thread"])
def threads(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Both kernels: the parallel one (every batch; the trees handed out one at a time, the
    default, or split statically) and the serial one (no batch)."""
    parallel = request.param != "one thread"
    monkeypatch.setattr(batch, "PARALLEL_MIN", 0 if parallel else 1 << 62)
    monkeypatch.setattr(compiled_threads, "CHUNK_SIZE", 0 if "static" in request.param else 1)
    return str(request.param)


@pytest.mark.parametrize(
    ("game", "budget", "config"),
    [
        (ConnectFour(), Budget(iterations=300), SearchConfig()),
        (ConnectFour(), Budget(iterations=300, max_nodes=120), SearchConfig(playout="random")),
        (MNK(3, 3, 3), Budget(iterations=400), SearchConfig(c=0.7)),  # proves the root
        (Othello(6), Budget(iterations=200), SearchConfig(solver=False)),
    ],
)
def test_one_batch_call_equals_each_trees_own_search_with_growth_and_reuse(
    game: Any, budget: Budget, config: SearchConfig, threads: str
) -> None:
    """Tables that start at 16 nodes grow inside the batch; three moves re-root each tree."""
    lines = [[], [game.legal_actions(game.initial_state())[0]], []]
    alone = [build(game, budget, config, seed) for seed in range(3)]
    batched = [build(game, budget, config, seed) for seed in range(3)]
    assert all(batch.batchable(s) for s in batched)
    states = [play_line(game, line) for line in lines]
    for _ in range(3):
        want = [s.search(game, st) for s, st in zip(alone, states, strict=True)]
        got = batch.search_compiled(batched, [game] * 3, states)
        assert [summary(r) for r in got] == [summary(r) for r in want]
        # the trees are the searchers' own tables: the same bytes per node as alone
        assert [s.used_bytes for s in batched] == [s.used_bytes for s in alone]
        assert [s.nbytes for s in batched] == [s.nbytes for s in alone]
        following = []
        for state, result in zip(states, want, strict=True):
            state = game.next_state(state, result.best_action)
            if not game.is_terminal(state):
                state = game.next_state(state, game.legal_actions(state)[-1])
            following.append(game.initial_state() if game.is_terminal(state) else state)
        states = following


def test_a_collected_searchers_slot_is_reused_by_the_next() -> None:
    gc.collect()  # searchers of earlier tests, freed now: then only ``first``'s slot is freed below
    game = MNK(3, 3, 3)
    budget, config = Budget(iterations=50), SearchConfig()
    first = build(game, budget, config, 0)
    batch.search_compiled([first], [game], [game.initial_state()])
    pool = batch.pool_for(first)
    slot = pool.index[first]
    del first
    gc.collect()
    assert slot in pool.free and pool.held[slot] is pool.spare
    second = build(game, budget, config, 0)
    result = batch.search_compiled([second], [game], [game.initial_state()])[0]
    assert pool.index[second] == slot
    alone = build(game, budget, config, 0).search(game, game.initial_state())
    assert summary(result) == summary(alone)


def test_time_budgets_and_robust_max_search_one_by_one() -> None:
    game = MNK(3, 3, 3)
    timed = build(game, Budget(time_limit=0.01), SearchConfig(), 0)
    robust = build(game, Budget(iterations=30), SearchConfig(final_move="robust_max"), 0)
    assert not batch.batchable(timed) and not batch.batchable(robust)
    results = batch.search_compiled([timed, robust], [game, game], [game.initial_state()] * 2)
    want = build(game, Budget(iterations=30), SearchConfig(final_move="robust_max"), 0)
    assert summary(results[1]) == summary(want.search(game, game.initial_state()))
    assert results[0].iterations > 0


def run_python(code: str, **environ: str) -> list[str]:
    """The lines ``code`` prints in a fresh interpreter, with ``environ`` set and no
    ``OMP_WAIT_POLICY`` unless given."""
    env = {k: v for k, v in os.environ.items() if k != "OMP_WAIT_POLICY"}
    env["PYTHONPATH"] = str(Path(batch.__file__).resolve().parents[2])
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
        env={**env, **environ},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


@pytest.mark.parametrize(
    ("first", "environ", "want"),
    [
        ("", {}, ["None", "PASSIVE"]),  # set just before the first parallel call
        ("", {"OMP_WAIT_POLICY": "ACTIVE"}, ["ACTIVE", "ACTIVE"]),  # the caller's kept
        ("numba.get_num_threads()\n", {}, ["None", "None"]),  # the pool started: too late
    ],
)
def test_the_wait_policy_is_set_at_the_first_parallel_batch_not_at_import(
    first: str, environ: dict[str, str], want: list[str]
) -> None:
    """Importing ``compiled.batch`` leaves the environment alone; ``thread_count`` (called
    before a batch's first parallel call) asks for sleeping threads only where the caller set
    no policy and numba's thread pool has not started."""
    code = (
        "import os\nimport numba\n" + first + "from mcts_agents.compiled import batch\n"
        "print(os.environ.get('OMP_WAIT_POLICY'))\n"
        "batch.thread_count()\n"
        "print(os.environ.get('OMP_WAIT_POLICY'))\n"
    )
    assert run_python(code, **environ) == want


def test_games_whose_trees_differ_in_type_batch_in_one_process() -> None:
    """One searcher class, trees of two column types (tic-tac-toe's int8 moves, Gomoku 15x15's
    int16: more than 127 actions): each kind of tree gets a pool of its own (one typed list
    holds one numba type), and each batch still equals each tree's own search."""
    for game in (MNK(3, 3, 3), MNK(15, 15, 5), MNK(3, 3, 3)):
        state = game.initial_state()
        budget, config = Budget(iterations=30), SearchConfig()
        alone = [build(game, budget, config, seed).search(game, state) for seed in (1, 2)]
        together = batch.search_compiled(
            [build(game, budget, config, seed) for seed in (1, 2)], [game, game], [state, state]
        )
        assert [summary(r) for r in together] == [summary(r) for r in alone]
