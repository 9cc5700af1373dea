"""MCTS in the standard PettingZoo ``agent_iter`` loop, on our env and on PettingZoo's own.

Shows that ``MCTSAgent`` drops into the loop every PettingZoo tutorial uses: one game of Connect
Four, MCTS against a random agent, on ``mcts_agents.envs.connect_four_v0`` (searched through its
rules core) and on PettingZoo's ``pettingzoo.classic.connect_four_v3`` (whose board
``game_from_env`` reads into the same rules core: the same rules and action ids, so the same
speed; any other AEC env is searched through the generic, verified cloner). Prints the final
board, the winner and the moves of each game.

Run:
    python examples/pettingzoo_loop.py            # 1000 simulations per move
    python examples/pettingzoo_loop.py --quick    # 100, a few seconds
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import Any

from pettingzoo.classic import connect_four_v3

from mcts_agents import MCTSAgent, RandomAgent
from mcts_agents.envs import connect_four_v0


def board_text(env: Any) -> str:
    """The board from the first seat's observation planes: X for it, O for the other."""
    planes = env.observe(env.possible_agents[0])["observation"]
    rows = ["".join("X" if c[0] else "O" if c[1] else "." for c in row) for row in planes]
    return "\n".join([*rows, "".join(str(c) for c in range(planes.shape[1]))])


def play(make_env: Callable[[], Any], iterations: int, seed: int) -> None:
    """One game, MCTS in the first seat against random; prints how it went."""
    env = make_env()
    env.reset(seed=seed)
    first, second = env.possible_agents
    agents: dict[str, Any] = {
        first: MCTSAgent(iterations=iterations, seed=seed),
        second: RandomAgent(seed=seed),
    }
    returns = dict.fromkeys(env.possible_agents, 0.0)
    moves: list[int] = []
    board = ""
    start = time.perf_counter()
    # The standard PettingZoo AEC loop.
    for agent in env.agent_iter():
        _observation, reward, termination, truncation, _info = env.last()
        returns[agent] += float(reward)
        if termination or truncation:
            action = None
            board = board or board_text(env)  # before the finished agents leave the env
        else:
            action = agents[agent].act(env)
            moves.append(int(action))
        env.step(action)
    seconds = time.perf_counter() - start

    name = env.metadata["name"]
    print(f"== {name}: MCTS ({iterations} iterations/move) as X vs random as O")
    print(board)
    winner = max(returns, key=returns.__getitem__)
    who = {first: "MCTS", second: "random"}
    result = f"winner: {winner} ({who[winner]})" if returns[winner] > 0 else "result: draw"
    print(f"{result} after {len(moves)} moves in {seconds:.2f} s; returns {returns}")
    print(f"moves: {moves}\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small budgets (smoke test)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    iterations = 100 if args.quick else 1000
    play(connect_four_v0.env, iterations, args.seed)
    play(connect_four_v3.env, iterations, args.seed)


if __name__ == "__main__":
    main()
