"""AlphaZero on Connect Four: train a network for 45 minutes on this machine, then measure it.

Run from the repository root (needs the ``az`` extra, torch)::

    python -m benchmarks.alphazero_connect_four train --out runs/c4 [--minutes 45] [--teacher]

``train`` runs ``mcts_agents.alphazero.learn.train`` with the settings below (resumes the folder's
run): AlphaZero from zero, or with ``--teacher`` a warm start by Expert Iteration (``TEACHER``).
``benchmarks.alphazero_c4_eval`` measures the result."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # `python benchmarks/...` too

from benchmarks._common import machine_info, print_machine

SETTINGS: dict[str, Any] = {
    "net": {"channels": 64, "blocks": 4, "value_hidden": 64},
    "training": {"batch_size": 256, "learning_rate": 1e-3, "weight_decay": 1e-4},
    "simulations": 128,
    "search_batch": 16,
    "c": 1.5,
    "root_noise": (1.0, 0.25),  # alpha about 10 / 7 legal moves, as AlphaZero scaled it
    "temperature": (10, 1.0, 0.0),
    "games_per_iteration": 64,
    "steps_per_iteration": 32,
    "buffer_capacity": 60_000,
    "augment": True,
    "gate_every": 20,
    "gate_games": 200,
    "gate_simulations": 64,
    "gate_threshold": 0.55,
    "playout_cap": (0.5, 32),
    "resign": (-0.95, 0.2),
    "value_mix": 0.3,
}


#: ``--teacher``: the same run with a warm start by Expert Iteration: the first 100 iterations'
#: games are the compiled MCTS's (5,000 simulations a move) against itself; more steps per
#: iteration (its positions are plentiful) and a buffer that holds them.
TEACHER: dict[str, Any] = {
    "teacher_iterations": 100,
    "teacher_simulations": 5000,
    "steps_per_iteration": 64,
    "buffer_capacity": 200_000,
}


def run_config(seed: int, workers: int, teacher: bool = False) -> Any:
    from mcts_agents.alphazero.learn import RunConfig

    settings = {**SETTINGS, **(TEACHER if teacher else {}), "seed": seed, "workers": workers}
    return RunConfig.from_dict(settings)


def train_main(args: argparse.Namespace) -> None:
    import torch

    from mcts_agents.alphazero.learn import train
    from mcts_agents.envs.games.connect_four import ConnectFour

    torch.set_num_threads(args.threads)
    print_machine(machine_info())
    started = time.perf_counter()

    def progress(line: dict[str, Any]) -> None:
        print(json.dumps(line), flush=True)

    summary = train(
        ConnectFour(),
        args.out,
        config=run_config(args.seed, args.workers, args.teacher),
        minutes=args.minutes,
        on_iteration=progress,
    )
    print(
        f"# trained {summary.seconds:.0f} s in all ({time.perf_counter() - started:.0f} s in "
        f"this call): {summary.iteration} iterations, {summary.step} steps, "
        f"{summary.promotions} promotions",
        flush=True,
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    train = commands.add_parser("train")
    train.add_argument("--out", required=True)
    train.add_argument("--minutes", type=float, default=45.0)
    train.add_argument("--workers", type=int, default=2)
    train.add_argument("--threads", type=int, default=2, help="torch threads for training")
    train.add_argument("--seed", type=int, default=0)
    train.add_argument("--teacher", action="store_true", help="warm start (see TEACHER)")
    args = parser.parse_args(argv)
    if args.command == "train":
        train_main(args)


if __name__ == "__main__":
    main()
