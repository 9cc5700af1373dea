"""Training-step time of the AlphaZero trainer in float32 and in bfloat16 autocast, side by side.

Run from the repository root (needs the ``az`` extra, torch)::

    python -m benchmarks.train_precision [--game connect_four] [--threads 2] [--repeats 5]
                                         [--steps 8] [--batch-size 256] [--json PATH]

The network is the Connect Four runs' (64 channels, 4 residual blocks, ``benchmarks.
alphazero_connect_four.SETTINGS``), trained by ``Trainer.update`` on one fixed random batch of
``--batch-size`` positions. Each repeat times ``--steps`` steps in float32 and then in bfloat16
(``TrainConfig(precision="bfloat16")``), each after two untimed warm-up steps; the table gives
the medians of the repeats, their spread, and the ratio. bfloat16 paid off on this project's
2-core AMD EPYC, which has AVX-512 BF16 (1.53x, docs/benchmarks.md, run 30); a CPU without
bfloat16 instructions can be slower.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # `python benchmarks/...` too

from benchmarks._common import median, print_table, run_with_torch, spread

PRECISIONS = ("float32", "bfloat16")


def step_seconds(game: Any, precision: str, steps: int, batch_size: int, seed: int) -> float:
    """Seconds per ``Trainer.update`` step at ``precision`` (after two warm-up steps)."""
    import numpy as np

    from benchmarks.alphazero_connect_four import SETTINGS
    from mcts_agents.alphazero.learn import NetConfig, TrainConfig, Trainer, build_net

    rng = np.random.default_rng(seed)
    net = build_net(game, NetConfig(**SETTINGS["net"]), seed=seed)
    trainer = Trainer(net, TrainConfig(batch_size=batch_size, precision=precision), seed=seed)
    shape = (batch_size, *net.observation_shape)
    observations = rng.integers(0, 2, shape).astype(np.float32)
    masks = np.ones((batch_size, net.num_actions), dtype=bool)
    policies = rng.dirichlet(np.ones(net.num_actions), batch_size).astype(np.float32)
    values = rng.uniform(-1, 1, batch_size).astype(np.float32)
    batch = (observations, masks, policies, values)
    for _ in range(2):
        trainer.update(*batch)
    started = time.perf_counter()
    for _ in range(steps):
        trainer.update(*batch)
    return (time.perf_counter() - started) / steps


def run(args: argparse.Namespace) -> dict[str, Any]:
    from benchmarks.gumbel import _game

    game = _game(args.game)
    times: dict[str, list[float]] = {p: [] for p in PRECISIONS}
    for repeat in range(args.repeats):
        for precision in PRECISIONS:
            times[precision].append(
                step_seconds(game, precision, args.steps, args.batch_size, repeat)
            )
    rows = [
        [p, f"{1000 * median(times[p]):.1f}", f"{100 * spread(times[p]):.0f}%"] for p in PRECISIONS
    ]
    ratio = median(times["float32"]) / median(times["bfloat16"])
    print_table(["precision", "ms a step (median)", "spread"], rows)
    print(f"bfloat16 is {ratio:.2f}x float32's speed")
    return {"times": times, "ratio": ratio, "settings": vars(args)}


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="connect_four", choices=("connect_four", "tic_tac_toe"))
    parser.add_argument("--threads", type=int, default=2, help="torch threads")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--steps", type=int, default=8, help="timed steps per repeat")
    parser.add_argument("--batch-size", type=int, default=256)
    parser.add_argument("--json", default=None, help="save the results here")
    args = parser.parse_args(argv)
    return run_with_torch(args, run)


if __name__ == "__main__":
    main()
