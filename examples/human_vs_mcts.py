"""Play Connect Four (or tic-tac-toe) against MCTS in the terminal.

Shows a person and an ``MCTSAgent`` in the standard PettingZoo loop. Moves are read from stdin
(a column for Connect Four, a cell 0-8 for tic-tac-toe); anything that is not a legal move is
explained and asked again, and ``q`` quits. After each of its moves the agent says how sure it
is: the visits and value of its move, from its ``SearchResult``.

Run:
    python examples/human_vs_mcts.py                       # you play first, 2000 iterations/move
    python examples/human_vs_mcts.py --second --iterations 20000
    python examples/human_vs_mcts.py --game tic_tac_toe
    python examples/human_vs_mcts.py --quick               # 50 iterations/move (smoke test)
    printf '3\\n3\\n3\\n3\\n' | python examples/human_vs_mcts.py --quick   # scripted input
"""

from __future__ import annotations

import argparse
import sys
from typing import Any, TextIO

from mcts_agents import MCTSAgent
from mcts_agents.envs import connect_four_v0, tic_tac_toe_v0

GAMES = {"connect_four": connect_four_v0.env, "tic_tac_toe": tic_tac_toe_v0.env}


def ask_move(env: Any, inp: TextIO) -> int | None:
    """A legal move typed by the person (``None`` to quit); re-asks until it is one."""
    mask = env.observe(env.agent_selection)["action_mask"]
    legal = [int(a) for a in mask.nonzero()[0]]
    while True:
        print(f"your move {legal}: ", end="", flush=True)
        line = inp.readline()
        if not line:
            print("\nend of input")
            return None
        text = line.strip()
        if not inp.isatty():
            print(text)  # echo piped input, so the transcript reads like a session
        if text.lower() in ("q", "quit", "exit"):
            return None
        try:
            move = int(text)
        except ValueError:
            print(f"{text!r} is not a number; type one of {legal} (q to quit)")
            continue
        if move not in legal:
            print(f"{move} is not a legal move here; legal: {legal}")
            continue
        return move


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--game", choices=sorted(GAMES), default="connect_four")
    parser.add_argument("--iterations", type=int, default=2000, help="MCTS simulations/move")
    parser.add_argument("--second", action="store_true", help="let MCTS move first")
    parser.add_argument("--quick", action="store_true", help="50 iterations/move (smoke test)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    iterations = 50 if args.quick else args.iterations

    env = GAMES[args.game](render_mode="ansi")
    env.reset(seed=args.seed)
    human = env.possible_agents[1 if args.second else 0]
    mcts = MCTSAgent(iterations=iterations, seed=args.seed)
    print(f"{args.game}: you are {human} ({'second' if args.second else 'first'}); "
          f"MCTS thinks {iterations} iterations per move")  # fmt: skip
    returns = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        _, reward, termination, truncation, _ = env.last()
        returns[agent] += float(reward)
        if termination or truncation:
            env.step(None)
            continue
        if agent == human:
            print(env.render())
            action = ask_move(env, sys.stdin)
            if action is None:
                print("you left the game")
                return 1
        else:
            result = mcts.search(env)
            action = result.best_action
            best = next((c for c in result.children if c.action == action), None)
            sure = f" ({best.visits} visits, value {best.value:+.2f})" if best else ""
            print(f"MCTS plays {action}{sure}")
        env.step(action)
    print(env.render())
    outcome = returns[human]
    print("you win!" if outcome > 0 else "MCTS wins" if outcome < 0 else "a draw")
    return 0


if __name__ == "__main__":
    sys.exit(main())
