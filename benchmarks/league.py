"""Issue 40's curriculum target: MaskablePPO on Connect Four, the ladder curriculum (plus
snapshots) against the fixed ``mcts:iterations=5``, the same 200k steps, seeds side by side.

    python -m benchmarks.league [--seeds 1 2 3] [--dir runs/league] [--workers 2]
        [--curve-games 400] [--plot docs/img/league_connect_four.png] [--json PATH]
        [-- EXTRA train_league ARGS]

Each run is ``examples/train_league.py --full [--fixed] --seed S --checkpoint-every 25000``
(one process per run, ``--workers`` at a time, torch on one thread each): the model saved every
25k steps and at the end, the end rated by ``rate`` with 400 games (the target's rating). Runs
whose record (``DIR/<arm><seed>.json``) exists are not trained again. The saved checkpoints are
then rated with ``--curve-games`` games each (``rate``, seed 0; ``DIR/curves.jsonl``, resumed):
the curve of Elo on the ladder's scale against steps, drawn with the end's 400-game ratings to
``--plot`` (matplotlib, the ``plot`` extra). Printed: each run's rating and training seconds,
each arm's mean, the difference against the target (>= 150 Elo) and its 95% interval over the
seeds (a t interval on the runs' difference of means).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from benchmarks._common import fmt, machine_info, print_machine, print_table, write_json

#: Issue 40's target: the curriculum at least this many Elo above the fixed opponent.
TARGET = 150
ARMS = ("curriculum", "fixed")
EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "train_league.py"
#: Two-sided 97.5% quantiles of Student's t (degrees of freedom 1..10).
T975 = (12.71, 4.30, 3.18, 2.78, 2.57, 2.45, 2.36, 2.31, 2.26, 2.23)


def train(directory: Path, arm: str, seed: int, extra: list[str]) -> dict[str, Any]:
    """The run's record, training it first when it has none."""
    log = directory / f"{arm}{seed}.json"
    if not log.exists():
        command = [sys.executable, str(EXAMPLE), "--full", "--seed", str(seed)]
        command += ["--checkpoint-every", "25000", *extra]
        command += ["--save", str(directory / f"{arm}{seed}" / "ppo"), "--log", str(log)]
        if arm == "fixed":
            command.append("--fixed")
        threads = {"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "NUMBA_NUM_THREADS": "1"}
        with open(directory / f"{arm}{seed}.log", "w") as out:
            subprocess.run(
                command,
                check=True,
                stdout=out,
                stderr=subprocess.STDOUT,
                env={**os.environ, **threads},
            )
    return dict(json.loads(log.read_text()))


def checkpoints(directory: Path, arm: str, seed: int) -> list[tuple[int, Path]]:
    """The run's saved models before the end, ``(steps, path)`` in order."""
    found = []
    for path in (directory / f"{arm}{seed}").glob("ppo_*_steps.zip"):
        found.append((int(path.stem.split("_")[1]), path))
    return sorted(found)


def rate_curves(directory: Path, runs: list[tuple[str, int]], games: int) -> list[dict[str, Any]]:
    """Every checkpoint's rating (``games`` games), read from ``curves.jsonl`` or played."""
    from mcts_agents.arena import rate

    path = directory / "curves.jsonl"
    rows = [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []
    done = {(r["arm"], r["seed"], r["steps"], r["games"]) for r in rows}
    with path.open("a") as out:
        for arm, seed in runs:
            for steps, model in checkpoints(directory, arm, seed):
                if (arm, seed, steps, games) in done:
                    continue
                rating = rate(f"policy:model={model}", "connect_four", games=games, seed=0)
                row = {
                    "arm": arm,
                    "seed": seed,
                    "steps": steps,
                    "games": games,
                    "elo": rating.elo,
                    "low": rating.low,
                    "high": rating.high,
                }
                out.write(json.dumps(row) + "\n")
                out.flush()
                rows.append(row)
                print(f"{arm} seed {seed} at {steps:,} steps: Elo {rating.elo:.0f}", flush=True)
    return [r for r in rows if r["games"] == games]


def plot(
    path: str, records: dict[tuple[str, int], dict[str, Any]], rows: list[dict[str, Any]]
) -> None:
    """Elo against steps: each run's checkpoints and its 400-game end, an arm a colour."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(8, 4.5))
    FigureCanvasAgg(figure)
    axes = figure.subplots()
    colours = {"curriculum": "tab:blue", "fixed": "tab:orange"}
    for (arm, seed), record in sorted(records.items()):
        points = sorted(  # a checkpoint within 1% of the end: the end's rating stands for it
            (r["steps"], r["elo"])
            for r in rows
            if (r["arm"], r["seed"]) == (arm, seed) and r["steps"] < 0.99 * record["steps"]
        )
        end = record["rating"]
        points.append((record["steps"], end["elo"]))
        label = None if seed != min(s for a, s in records if a == arm) else arm
        axes.plot(
            *zip(*points, strict=True),
            color=colours[arm],
            alpha=0.7,
            marker="o",
            markersize=3,
            label=label,
        )
        axes.errorbar(
            [record["steps"]],
            [end["elo"]],
            color=colours[arm],
            capsize=3,
            yerr=[[end["elo"] - end["low"]], [end["high"] - end["elo"]]],
        )
    axes.set_xlabel("training steps")
    axes.set_ylabel("Elo on the Connect Four ladder (rate)")
    axes.set_title("MaskablePPO: ladder curriculum + snapshots vs fixed mcts:iterations=5")
    axes.grid(alpha=0.3)
    axes.legend()
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    print(f"# plot saved to {path}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3])
    parser.add_argument("--dir", default="runs/league")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--curve-games", type=int, default=400)
    parser.add_argument("--plot", default=None)
    parser.add_argument("--json", default=None)
    parser.add_argument("extra", nargs="*", help="more train_league arguments (after --)")
    args = parser.parse_args(argv)
    info = machine_info()
    print_machine(info)
    directory = Path(args.dir)
    directory.mkdir(parents=True, exist_ok=True)
    runs = [(arm, seed) for seed in args.seeds for arm in ARMS]
    with ThreadPoolExecutor(args.workers) as pool:
        found = pool.map(lambda run: train(directory, *run, args.extra), runs)
        records = dict(zip(runs, found, strict=True))
    elos = {arm: [records[arm, s]["rating"]["elo"] for s in args.seeds] for arm in ARMS}
    seconds = {arm: [records[arm, s]["train_seconds"] for s in args.seeds] for arm in ARMS}
    table = []
    for arm, seed in runs:
        rating = records[arm, seed]["rating"]
        table.append(
            [
                arm,
                str(seed),
                f"{rating['elo']:.0f} [{rating['low']:.0f}, {rating['high']:.0f}]",
                fmt(records[arm, seed]["train_seconds"]),
            ]
        )
    print_table(["arm", "seed", "Elo (400 games)", "training s"], table, left=2)
    gain = statistics.mean(elos["curriculum"]) - statistics.mean(elos["fixed"])
    n = len(args.seeds)
    half = None
    if n > 1:
        pooled = (
            statistics.variance(elos["curriculum"]) / n + statistics.variance(elos["fixed"]) / n
        )
        half = T975[min(2 * n - 2, len(T975)) - 1] * pooled**0.5
    print(
        f"curriculum - fixed: {gain:+.0f} Elo"
        + (f" (+/- {half:.0f})" if half else "")
        + f" over {n} seeds; target >= {TARGET}: {'met' if gain >= TARGET else 'NOT met'}"
    )
    for arm in ARMS:
        print(
            f"{arm}: mean Elo {statistics.mean(elos[arm]):.0f}, training "
            f"{statistics.mean(seconds[arm]):.0f} s a run"
        )
    rows = rate_curves(directory, runs, args.curve_games) if args.curve_games else []
    if args.plot:
        plot(args.plot, records, rows)
    if args.json:
        data = {
            "seeds": args.seeds,
            "extra": args.extra,
            "elo": elos,
            "train_seconds": seconds,
            "gain": gain,
            "half_width": half,
            "curves": rows,
            "machine": info,
        }
        write_json(args.json, data)
    return 0


if __name__ == "__main__":
    sys.exit(main())
