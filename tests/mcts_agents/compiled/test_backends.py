"""The agent on every game with a compiled search, on both backends: the same contract.

For each env spec the kernel plays: ``backend="auto"`` picks the kernel, ``"python"`` the
Python search; both return a legal move, leave the live env untouched, give the same move for
the same seed, reuse their table from move to move, and take an immediate win.
"""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("numba")

from mcts_agents import MCTSAgent
from mcts_agents.agents.specs import make_env

SPECS = ["tic_tac_toe", "gomoku", "tic_tac_toe_deluxe", "mnk_5x5x4", "othello", "nim"]
SPECS += ["othello:size=6", "othello:size=10", "ultimate_tic_tac_toe", "connect_four"]
SPECS += ["multi_mnk", "connect_four:k=3"]  # three players (max^n); the shared kernel
BACKENDS = {"auto": "numba", "python": "python"}


def fresh(spec: str, moves: list[int]) -> Any:
    env = make_env(spec)
    env.reset(seed=0)
    for action in moves:
        env.step(action)
    return env


@pytest.mark.parametrize("backend", sorted(BACKENDS))
@pytest.mark.parametrize("spec", SPECS)
def test_same_contract_on_both_backends(spec: str, backend: str) -> None:
    env = fresh(spec, [])
    raw = env.unwrapped
    before = raw.game.key(raw.state)
    agents = [MCTSAgent(iterations=400, seed=3, backend=backend) for _ in range(2)]
    first, twin = (a.search(env) for a in agents)
    assert first.backend == BACKENDS[backend]
    assert first.best_action == twin.best_action and first.children == twin.children
    assert first.best_action in raw.legal_actions()
    assert raw.game.key(raw.state) == before  # the live env is untouched
    agent = agents[0]
    env.step(first.best_action)
    reply = agent.act(env)
    assert reply in env.unwrapped.legal_actions()
    env.step(reply)
    assert agent.search(env).reused_nodes > 0


WINS = {  # a position and the only winning move of the player to move
    "tic_tac_toe": ([0, 3, 1, 4], 2),
    "mnk_5x5x4": ([0, 5, 1, 6, 2, 7], 3),
    "connect_four": ([3, 0, 3, 0, 3, 1], 3),
}


@pytest.mark.parametrize("backend", sorted(BACKENDS))
@pytest.mark.parametrize("spec", sorted(WINS))
def test_both_backends_take_a_win_and_prove_it(spec: str, backend: str) -> None:
    moves, winning = WINS[spec]
    result = MCTSAgent(iterations=2_000, seed=0, backend=backend).search(fresh(spec, moves))
    assert result.best_action == winning and result.proven == "win"
