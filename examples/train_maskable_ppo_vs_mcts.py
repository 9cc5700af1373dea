"""Train sb3-contrib's MaskablePPO against an MCTS opponent; report its win rate before and after.

Shows the RL drop-in: ``sb3_vec_env`` gives ``--envs`` games of a PettingZoo AEC game as one
Stable-Baselines3 vector env (``rl.vector.VectorVsOpponent``: the opponents, weak MCTS agents,
move inside ``step``, all their searches of a step in one batch, the games kept as the rules'
words, ``rl.boards``; the learner's seat is drawn at random each episode) with
``action_masks()`` for ``MaskablePPO``. While it trains, a line per rollout says the steps done
and the results of the training games lately finished. Before and after training, the model is
wrapped with ``PolicyAgent.from_sb3`` and plays a seat-swapping match against the same opponent
in the arena; the script prints both results and win rates.

Needs the ``rl`` extra (sb3-contrib, which brings Stable-Baselines3 and torch):
    pip install ".[rl]"

Run:
    python examples/train_maskable_ppo_vs_mcts.py            # tic-tac-toe, 60k steps, minutes
    python examples/train_maskable_ppo_vs_mcts.py --quick    # 2k steps, 20 games: a smoke test
    python examples/train_maskable_ppo_vs_mcts.py --game connect_four --steps 200000 --save ppo
    python examples/train_maskable_ppo_vs_mcts.py --aec     # the same run through the AEC envs
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

from mcts_agents import PolicyAgent
from mcts_agents.arena import play_match
from mcts_agents.envs import connect_four_v0, tic_tac_toe_v0

GAMES = {"tic_tac_toe": tic_tac_toe_v0.env, "connect_four": connect_four_v0.env}


def import_rl() -> tuple[Any, Any]:
    """``(MaskablePPO, torch)``, or exit with a clear message if the ``rl`` extra is missing."""
    try:
        from sb3_contrib import MaskablePPO
    except ImportError as error:
        print(
            f"this example needs the 'rl' extra (sb3-contrib, with torch): {error}\n"
            '    pip install ".[rl]"',
            file=sys.stderr,
        )
        sys.exit(2)
    import torch  # Stable-Baselines3's own dependency

    return MaskablePPO, torch


def win_rate(model: Any, game: str, opponent_iterations: int, games: int, seed: int) -> float:
    """Play ``games`` games (seats swapped) against MCTS; print the match, return the win rate."""
    learner = PolicyAgent.from_sb3(model, deterministic=True, name="ppo")
    opponent = f"mcts:iterations={opponent_iterations}"  # a fresh, seeded agent per game
    result = play_match(GAMES[game], [learner, opponent], games=games, seed=seed)
    print(result)
    stats = next(s for s in result.standings() if s.name == "ppo")
    return stats.wins / stats.games


def rollout_lines(total: int) -> Any:
    """A Stable-Baselines3 callback that prints a line at the end of every rollout: the steps
    done, the time, and the learner's results in the last 100 training games."""
    from collections import deque

    import numpy as np
    from stable_baselines3.common.callbacks import BaseCallback

    class RolloutLines(BaseCallback):
        def _on_training_start(self) -> None:
            self.start = time.perf_counter()
            self.returns = np.zeros(self.training_env.num_envs)
            self.results: deque[float] = deque(maxlen=100)
            self.rollouts = 0

        def _on_step(self) -> bool:
            self.returns += self.locals["rewards"]
            for i in np.flatnonzero(self.locals["dones"]):
                self.results.append(float(np.sign(self.returns[i])))
                self.returns[i] = 0.0
            return True

        def _on_rollout_end(self) -> None:
            self.rollouts += 1
            line = (
                f"rollout {self.rollouts:3d}: {self.num_timesteps:6d}/{total} steps "
                f"{time.perf_counter() - self.start:6.1f} s"
            )
            if self.results:
                n = len(self.results)
                won, lost = self.results.count(1.0) / n, self.results.count(-1.0) / n
                drew = 1 - won - lost
                line += f"  last {n} games: won {won:.0%}, drew {drew:.0%}, lost {lost:.0%}"
            print(line, flush=True)

    return RolloutLines()


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a short run (smoke test)")
    parser.add_argument("--game", choices=sorted(GAMES), default="tic_tac_toe")
    parser.add_argument("--steps", type=int, help="training steps (default 60000; quick: 2048)")
    parser.add_argument("--games", type=int, help="evaluation games (default 200; quick: 20)")
    parser.add_argument("--opponent-iterations", type=int, default=5)
    parser.add_argument("--envs", type=int, default=8, help="games played at once")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--save", help="save the trained model to this path (.zip)")
    parser.add_argument(
        "--aec",
        action="store_true",
        help="step every game through its AEC env (the vector env's words path off): the same "
        "games, for a wall-time comparison",
    )
    args = parser.parse_args()
    MaskablePPO, torch = import_rl()
    torch.set_num_threads(1)  # a small MLP: one thread is fastest and leaves cores free
    steps = args.steps or (2048 if args.quick else 60_000)
    games = args.games or (20 if args.quick else 200)

    from mcts_agents.rl.sb3_vec import sb3_vec_env  # imports Stable-Baselines3

    env = sb3_vec_env(
        args.envs,
        args.game,
        opponent=f"mcts:iterations={args.opponent_iterations}",
        learner="random",
        seed=args.seed,
        fast_path=not args.aec,
    )
    model = MaskablePPO(  # rollouts of 1024 steps in all, as with one env
        "MlpPolicy",
        env,
        n_steps=max(1024 // args.envs, 1),
        batch_size=128,
        gamma=0.99,
        seed=args.seed,
        verbose=0,
    )
    opponent = f"MCTS ({args.opponent_iterations} iterations/move)"
    print(
        f"== {args.game}: MaskablePPO vs {opponent}, {args.envs} games at once, "
        "learner seat random per episode"
    )
    print("-- before training")
    before = win_rate(model, args.game, args.opponent_iterations, games, args.seed)
    start = time.perf_counter()
    model.learn(total_timesteps=steps, callback=rollout_lines(steps))
    print(f"-- trained {steps} steps in {time.perf_counter() - start:.1f} s")
    after = win_rate(model, args.game, args.opponent_iterations, games, args.seed)
    print(f"win rate before training: {before:.3f}")
    print(f"win rate after training:  {after:.3f} ({games} games vs {opponent})")
    if args.save:
        model.save(args.save)
        print(f"model saved to {args.save}")


if __name__ == "__main__":
    main()
