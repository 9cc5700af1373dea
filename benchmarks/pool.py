"""Learned opponents in the vector env: learner steps/s with one forward pass per policy over
the sub-envs (``FrozenPolicy.batch`` through ``agents.batch.act_batch``) against one call per
sub-env.

Run from the repository root (the ``rl`` extra)::

    python -m benchmarks.pool [--num-envs 64] [--steps 50] [--repeats 3] [--game connect_four]
        [--device cpu] [--json PATH]

The opponent of every sub-env is a snapshot of a fresh MaskablePPO ``MlpPolicy`` (SB3's
default size, two layers of 64, as in the README), frozen with ``rl.snapshots.add_snapshot``
into an ``OpponentPool`` of that one entry. ``batched``: the snapshot itself (its boards kept on
the rules' words, ``rl.board_policies``: one compiled observation call, one forward pass and one
compiled move call per round of replies for all the sub-envs); ``aec-batched``: the same with
``fast_path=False`` (the AEC envs observed one by one, one forward pass: the first step's path);
``per-env``: the same snapshot behind a plain callable, so each sub-env's move is a forward pass
of batch 1 on its AEC env. The learner plays
uniformly random legal moves, seeded, so both modes play the same games (checked). Steps/s are
medians of ``--repeats`` runs of ``--steps`` steps after one warm-up step; ``x`` is the median
ratio of runs made side by side. Target (issue 40): ``x`` >= 10 at N=64 on 2 cores.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from typing import Any

import numpy as np


def build(game: str, num_envs: int, opponent: Any, fast_path: bool = True) -> Any:
    from mcts_agents.rl import VectorVsOpponent
    from mcts_agents.rl.pool import OpponentPool

    pool = OpponentPool([opponent])
    return VectorVsOpponent(num_envs, game, opponent=pool, seed=0, fast_path=fast_path)


def run(env: Any, steps: int) -> tuple[float, list[Any]]:
    rng = np.random.default_rng(0)
    env.reset(seed=0)
    trace: list[Any] = []

    def one() -> None:
        masks = env.action_masks()
        actions = [int(rng.choice(np.flatnonzero(m))) if m.any() else 0 for m in masks]
        _, rewards, _, _, _ = env.step(np.array(actions))
        trace.append(float(rewards.sum()))

    one()  # warm-up
    start = time.perf_counter()
    for _ in range(steps):
        one()
    return steps * env.num_envs / (time.perf_counter() - start), trace


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--num-envs", type=int, default=64)
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--game", default="connect_four")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--json", default=None)
    args = parser.parse_args(argv)
    import torch
    from sb3_contrib import MaskablePPO

    from mcts_agents.rl.pool import OpponentPool
    from mcts_agents.rl.sb3_vec import sb3_vec_env
    from mcts_agents.rl.snapshots import add_snapshot

    torch.set_num_threads(1)
    model = MaskablePPO("MlpPolicy", sb3_vec_env(1, args.game, opponent="random"), seed=0)
    holder = OpponentPool(["random"])
    frozen = holder.entry(add_snapshot(holder, model, device=args.device))

    def per_env(observation: Any, mask: np.ndarray) -> int:  # no ``batch``: one call each
        return frozen(observation, mask)

    batched, aec, alone, ratios, aec_ratios = [], [], [], [], []
    for _ in range(args.repeats):
        fast, fast_trace = run(build(args.game, args.num_envs, frozen), args.steps)
        middle, middle_trace = run(build(args.game, args.num_envs, frozen, False), args.steps)
        slow, slow_trace = run(build(args.game, args.num_envs, per_env), args.steps)
        if not fast_trace == middle_trace == slow_trace:
            print("the modes played different games", file=sys.stderr)
            return 1
        batched.append(fast)
        aec.append(middle)
        alone.append(slow)
        ratios.append(fast / slow)
        aec_ratios.append(middle / slow)
    row = {
        "game": args.game,
        "num_envs": args.num_envs,
        "device": args.device,
        "batched_steps_per_s": statistics.median(batched),
        "aec_batched_steps_per_s": statistics.median(aec),
        "per_env_steps_per_s": statistics.median(alone),
        "x": statistics.median(ratios),
        "aec_x": statistics.median(aec_ratios),
    }
    print(
        f"{args.game} N={args.num_envs} {args.device}: batched {row['batched_steps_per_s']:.0f} "
        f"steps/s, aec-batched {row['aec_batched_steps_per_s']:.0f} steps/s, per-env "
        f"{row['per_env_steps_per_s']:.0f} steps/s, x {row['x']:.1f} (aec-batched "
        f"x {row['aec_x']:.1f})"
    )
    if args.json:
        with open(args.json, "w") as handle:
            json.dump(row, handle, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
