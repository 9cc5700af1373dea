"""Batched leaf evaluation in the Python search: simulations/s by batch size K on Connect Four.

Run from the repository root::

    python -m benchmarks.batched [--quick] [--repeats N] [--overhead-ms MS] [--json PATH]
    python -m benchmarks.batched --model runs/c4 [--threads 1]   # the reference net (torch)

The question: with an evaluator that costs a fixed amount per call (a framework's dispatch, a
transfer to an accelerator and back) plus a little per position, how much does evaluating
``K`` leaves per call (``SearchConfig(batch_size=K)``, virtual loss between them) buy?

The evaluator is numpy only (``DummyNetwork``): each call first spins for ``--overhead-ms``
(the per-call cost; a spin, not a sleep, so that it is exact), then runs a two-layer perceptron
over the flattened observation planes (``--hidden`` units; the per-position cost), a softmax
over the actions and a tanh value. Its numbers mean nothing; its costs are the point.

With ``--model`` (a Connect Four run's folder or network file) the evaluator is the reference
network itself (``TorchEvaluator`` on the CPU, ``--threads`` torch threads), counted the same
way.

``main()`` searches the initial position with PUCT for K in 1, 8, 32, 128 (interleaved in
each repeat, medians of ``--repeats``) and prints simulations/s, evaluator calls per search,
the mean batch, and the share of the time spent in the evaluator.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from time import perf_counter
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # `python benchmarks/...` too

import numpy as np

from benchmarks._common import fmt, machine_info, median, print_machine, print_table, write_json
from mcts_agents import Budget, SearchConfig
from mcts_agents.envs.games.connect_four import ConnectFour
from mcts_agents.search import MCTS

KS = (1, 8, 32, 128)


class DummyNetwork:
    """A numpy batch evaluator with a fixed cost per call and a small cost per position.

    Attributes:
        overhead: seconds spun at every call, whatever the batch.
        calls, positions, seconds: what it was asked and how long it took, for the report.
    """

    def __init__(self, game: Any, hidden: int = 128, overhead: float = 0.0005) -> None:
        rng = np.random.default_rng(0)
        inputs = int(np.prod(game.observation_shape))
        self.w1 = rng.normal(0.0, inputs**-0.5, size=(inputs, hidden))
        self.w2 = rng.normal(0.0, hidden**-0.5, size=(hidden, game.num_actions + 1))
        self.overhead = overhead
        self.calls = self.positions = 0
        self.seconds = 0.0

    def evaluate_batch(self, observations: np.ndarray, legal_masks: np.ndarray) -> Any:
        start = perf_counter()
        while perf_counter() - start < self.overhead:
            pass
        x = observations.reshape(len(observations), -1).astype(np.float64)
        out = np.maximum(x @ self.w1, 0.0) @ self.w2
        logits = out[:, :-1] - out[:, :-1].max(axis=1, keepdims=True)
        priors = np.exp(logits)
        values = np.tanh(out[:, -1])
        self.calls += 1
        self.positions += len(observations)
        self.seconds += perf_counter() - start
        return priors, values


class Counted:
    """A batch evaluator with the counters of ``DummyNetwork``."""

    def __init__(self, evaluator: Any) -> None:
        self.evaluator = evaluator
        self.calls = self.positions = 0
        self.seconds = 0.0

    def evaluate_batch(self, observations: np.ndarray, legal_masks: np.ndarray) -> Any:
        start = perf_counter()
        out = self.evaluator.evaluate_batch(observations, legal_masks)
        self.calls += 1
        self.positions += len(observations)
        self.seconds += perf_counter() - start
        return out


def run(
    k: int, iterations: int, seed: int, hidden: int, overhead: float, model: Any = None
) -> dict[str, float]:
    """One search of the initial position at batch size ``k``: its rate and the evaluator's
    share."""
    game = ConnectFour()
    network: Any = DummyNetwork(game, hidden, overhead) if model is None else Counted(model)
    config = SearchConfig(evaluator=network, selection="puct", batch_size=k)
    search = MCTS(Budget(iterations=iterations), config, seed)
    start = perf_counter()
    result = search.search(game, game.initial_state())
    seconds = perf_counter() - start
    return {
        "simulations_per_s": result.iterations / seconds,
        "calls": network.calls,
        "mean_batch": network.positions / network.calls,
        "evaluator_share": network.seconds / seconds,
    }


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="500 simulations per search")
    parser.add_argument("--iterations", type=int, default=3000, help="simulations per search")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--overhead-ms", type=float, default=0.5, help="cost of every call")
    parser.add_argument("--hidden", type=int, default=128, help="hidden units per position")
    parser.add_argument("--model", default=None, help="the reference network instead (torch)")
    parser.add_argument("--threads", type=int, default=1, help="torch threads with --model")
    parser.add_argument("--json", default=None, help="save the results here")
    args = parser.parse_args(argv)
    model = None
    if args.model is not None:
        import torch

        from mcts_agents.alphazero.learn import TorchEvaluator, load_net

        torch.set_num_threads(args.threads)
        model = TorchEvaluator(load_net(args.model), "cpu")
    iterations = 500 if args.quick else args.iterations
    overhead = args.overhead_ms / 1000.0
    info = machine_info()
    print_machine(info)
    evaluator = (
        f"{args.overhead_ms} ms per call + a {args.hidden}-unit perceptron per position"
        if model is None
        else f"the reference network {args.model} on the CPU, {args.threads} torch thread(s)"
    )
    print(
        f"# Connect Four, initial position, PUCT, {iterations} simulations per search; "
        f"evaluator: {evaluator}"
    )
    runs: dict[int, list[dict[str, float]]] = {k: [] for k in KS}
    for rep in range(args.repeats):
        for k in KS:
            runs[k].append(run(k, iterations, rep, args.hidden, overhead, model))
    rows, out = [], []
    base = median([r["simulations_per_s"] for r in runs[1]])
    for k in KS:
        summary = {
            key: median([r[key] for r in runs[k]])
            for key in ("simulations_per_s", "calls", "mean_batch", "evaluator_share")
        }
        rows.append(
            [
                str(k),
                fmt(summary["simulations_per_s"]),
                f"{summary['simulations_per_s'] / base:.2f}x",
                fmt(summary["calls"]),
                f"{summary['mean_batch']:.1f}",
                f"{summary['evaluator_share']:.0%}",
            ]
        )
        out.append({"k": k, **summary})
    print_table(["K", "simulations/s", "vs K=1", "calls", "mean batch", "evaluator time"], rows)
    data = {
        "machine": info,
        "iterations": iterations,
        "overhead_ms": args.overhead_ms,
        "hidden": args.hidden,
        "model": args.model,
        "results": out,
    }
    if args.json:
        write_json(args.json, data)
    return data


if __name__ == "__main__":
    main()
