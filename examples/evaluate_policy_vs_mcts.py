"""Rate a policy against MCTS at several budgets and a random agent, with the arena's Elo.

Shows how to put any ``policy(observation, action_mask) -> action`` into the arena with
``PolicyAgent``: here a hand-written Connect Four heuristic (win at once if possible, else block
the opponent's immediate win, else the legal column nearest the centre), or a trained
sb3-contrib ``MaskablePPO`` model given with ``--model`` (``PolicyAgent.from_sb3``; trained on
``SingleAgentVsOpponent`` over the same env, so it sees the same observations). A round robin
against ``MCTSAgent`` at 10, 100 and 1000 iterations per move and a random agent prints the
standings, the pairwise score matrix and Bradley-Terry Elo ratings with 95% CIs, anchored at
the random agent.

Run:
    python examples/evaluate_policy_vs_mcts.py                  # 20 games per pair, a few seconds
    python examples/evaluate_policy_vs_mcts.py --quick          # budgets 10/50, a few seconds
    python examples/evaluate_policy_vs_mcts.py --model ppo.zip  # a MaskablePPO Connect Four model
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

import numpy as np

from mcts_agents import PolicyAgent
from mcts_agents.arena import tournament
from mcts_agents.envs import connect_four_v0

DIRECTIONS = ((0, 1), (1, 0), (1, 1), (1, -1))


def wins_at(plane: np.ndarray, row: int, col: int, k: int = 4) -> bool:
    """Would a stone at ``(row, col)`` complete ``k`` in a row on ``plane``?"""
    height, width = plane.shape
    for dr, dc in DIRECTIONS:
        count = 1
        for sign in (1, -1):
            r, c = row + sign * dr, col + sign * dc
            while 0 <= r < height and 0 <= c < width and plane[r, c]:
                count += 1
                r, c = r + sign * dr, c + sign * dc
        if count >= k:
            return True
    return False


def heuristic(observation: np.ndarray, action_mask: np.ndarray) -> int:
    """Connect Four: win now, else block an immediate loss, else the centre-most legal column.

    ``observation`` has shape ``(height, width, 2)``: the mover's stones, then the opponent's,
    row 0 at the top (PettingZoo's layout).
    """
    mine, theirs = observation[..., 0], observation[..., 1]
    filled = (mine + theirs) > 0
    legal = [int(c) for c in np.flatnonzero(action_mask)]
    landing = {c: int(np.flatnonzero(~filled[:, c])[-1]) for c in legal}
    for plane in (mine, theirs):  # first our win, then their threat
        for col in legal:
            if wins_at(plane, landing[col], col):
                return col
    centre = (observation.shape[1] - 1) / 2
    return min(legal, key=lambda c: (abs(c - centre), c))


def load_model(path: str) -> Any:
    try:
        from sb3_contrib import MaskablePPO
    except ImportError:
        sys.exit('--model needs sb3-contrib: pip install ".[rl]"')
    return MaskablePPO.load(path)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small budgets, few games")
    parser.add_argument("--model", help="a MaskablePPO model (.zip) for Connect Four")
    parser.add_argument("--games", type=int, help="games per pair (default 20; quick: 4)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args()

    if args.model:
        policy = PolicyAgent.from_sb3(load_model(args.model), name="ppo")
    else:
        policy = PolicyAgent(heuristic, name="heuristic")
    budgets = (10, 50) if args.quick else (10, 100, 1000)
    games = args.games or (4 if args.quick else 20)
    agents: dict[str, Any] = {policy.name: policy}
    agents.update({f"mcts{n}": f"mcts:iterations={n}" for n in budgets})
    agents["random"] = "random"

    result = tournament(
        connect_four_v0.env, agents, games, seed=args.seed, anchor="random", workers=args.workers
    )
    print(result)
    elo, low, high = result.ratings()[policy.name]
    print(f"\n{policy.name}: Elo {elo:+.0f} (95% CI {low:+.0f} .. {high:+.0f}) vs random = 0")


if __name__ == "__main__":
    main()
