"""``az:`` opponents in the vector env: learner steps/s with the sub-envs' trees searched in
lockstep (one forward pass a round for all of them) against tree after tree.

Run from the repository root (the ``az`` and ``rl`` extras)::

    python -m benchmarks.az_pool [--num-envs 16 64] [--steps 4] [--repeats 3]
        [--simulations 32] [--batch-size 8] [--channels 32] [--blocks 2] [--json PATH]

The opponent of every sub-env is one ``az:`` entry of an ``OpponentPool``
(``az:model=NET,simulations=S,batch_size=K``): an untrained AlphaZero network for Connect
Four (by default of the default size, ``NetConfig()``: 32 channels, 2 blocks; ``--channels``
and ``--blocks`` for another), saved to a temporary file and
opened once for all the sub-envs (``agents.spec_builder``). ``lockstep``: the trees of every
round of replies searched together (``search.tree_batch``: each tree selects its ``K``
leaves, one ``evaluate_batch`` for all the trees' leaves, each tree backs up); ``per-tree``:
the same agents searched one after another, each search batching only its own ``K`` leaves
(``joins_lockstep`` turned off: the path before). The learner plays uniformly random legal
moves, seeded, so both modes play the same games (said, not required: a network's rows may
round differently in a bigger batch). The two modes run interleaved in every repeat so that
a load that comes and goes weighs on both; steps/s are medians of ``--repeats`` runs of
``--steps`` steps after one warm-up step, ``x`` the median of the repeats' ratios. torch runs
one CPU thread (the ``az:`` spec's default). The load average is printed before and after.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks._common import load_average, machine_info, write_json


def build(num_envs: int, entry: str) -> Any:
    from mcts_agents.rl import VectorVsOpponent
    from mcts_agents.rl.pool import OpponentPool

    return VectorVsOpponent(num_envs, "connect_four", opponent=OpponentPool([entry]), seed=0)


def run(env: Any, steps: int) -> tuple[float, list[float]]:
    rng = np.random.default_rng(0)
    env.reset(seed=0)
    trace: list[float] = []

    def one() -> None:
        masks = env.action_masks()
        actions = [int(rng.choice(np.flatnonzero(m))) if m.any() else 0 for m in masks]
        _, rewards, _, _, _ = env.step(np.array(actions))
        trace.append(float(rewards.sum()))

    one()  # warm-up: the roots of the first searches, torch's first calls
    start = time.perf_counter()
    for _ in range(steps):
        one()
    return steps * env.num_envs / (time.perf_counter() - start), trace


def measure(num_envs: int, entry: str, steps: int, lockstep: bool) -> tuple[float, list[float]]:
    from mcts_agents.agents import batch

    joins = batch.joins_lockstep
    if not lockstep:
        batch.joins_lockstep = lambda searcher: False  # type: ignore[assignment]
    try:
        env = build(num_envs, entry)
        try:
            return run(env, steps)
        finally:
            env.close()
    finally:
        batch.joins_lockstep = joins  # type: ignore[assignment]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--num-envs", type=int, nargs="+", default=[16, 64])
    parser.add_argument("--steps", type=int, default=4)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--simulations", type=int, default=32)
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--channels", type=int, default=32)
    parser.add_argument("--blocks", type=int, default=2)
    parser.add_argument("--json", default=None)
    args = parser.parse_args(argv)
    import torch

    from mcts_agents.alphazero.learn import NetConfig, build_net, save_net
    from mcts_agents.envs.games.connect_four import ConnectFour

    torch.set_num_threads(1)
    load_before = load_average()
    print(f"load average before: {load_before}")
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "c4.pt"
        game = ConnectFour()
        net = NetConfig(channels=args.channels, blocks=args.blocks)
        save_net(path, build_net(game, net, seed=0), game)
        entry = f"az:model={path},simulations={args.simulations},batch_size={args.batch_size}"
        for num_envs in args.num_envs:
            together, alone, ratios, same = [], [], [], True
            for _ in range(args.repeats):
                fast, fast_trace = measure(num_envs, entry, args.steps, lockstep=True)
                slow, slow_trace = measure(num_envs, entry, args.steps, lockstep=False)
                same = same and fast_trace == slow_trace
                together.append(fast)
                alone.append(slow)
                ratios.append(fast / slow)
            row = {
                "num_envs": num_envs,
                "channels": args.channels,
                "blocks": args.blocks,
                "simulations": args.simulations,
                "batch_size": args.batch_size,
                "lockstep_steps_per_s": statistics.median(together),
                "per_tree_steps_per_s": statistics.median(alone),
                "x": statistics.median(ratios),
                "same_games": same,
            }
            rows.append(row)
            print(
                f"connect_four N={num_envs} az {args.channels}x{args.blocks} "
                f"simulations={args.simulations} "
                f"K={args.batch_size}: lockstep {row['lockstep_steps_per_s']:.1f} steps/s, "
                f"per-tree {row['per_tree_steps_per_s']:.1f} steps/s, x {row['x']:.2f} "
                f"(same games: {same})",
                flush=True,
            )
    load_after = load_average()
    print(f"load average after: {load_after}")
    if args.json:
        write_json(
            args.json,
            {"machine": machine_info(), "load": [load_before, load_after], "rows": rows},
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
