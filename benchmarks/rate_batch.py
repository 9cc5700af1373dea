"""``rate`` of a MaskablePPO policy on Connect Four: games in lockstep against game by game.

    python -m benchmarks.rate_batch [--model PPO.zip] [--games 400] [--repeats 3]
        [--train-steps 4096] [--batch 20] [--json PATH]

Without ``--model`` a MaskablePPO ``MlpPolicy`` is trained for ``--train-steps`` steps against a
random opponent (``rl.sb3_vec.sb3_vec_env``) and saved to a temporary file: the rated agent is
``policy:model=THAT`` (``PriorAgent``: the policy's most probable legal move). Each repeat rates
it twice side by side, ``lockstep=False`` (today's path: one game at a time, the model opened for
every game, one forward pass of batch 1 per move, one MCTS search at a time) and
``lockstep=True`` (``arena.lockstep``: a batch's games together, one forward pass and one kernel
call per round, agents reused from game to game); both must give the same rating (checked).
The two paths run interleaved (game by game, then lockstep, in every repeat), so that a load
that comes and goes weighs on both. Seconds are medians; ``x`` is the median of the repeats'
ratios. Printed: both paths' ratings, the seconds, the ratio against the target (issue 41:
``x`` >= 10 at 400 games on 2 cores) and the load average before and after.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks._common import machine_info, write_json

#: Issue 41's target: lockstep at least this many times faster than game by game.
TARGET = 10


def train(steps: int, path: Path) -> None:
    import torch
    from sb3_contrib import MaskablePPO

    from mcts_agents.rl.sb3_vec import sb3_vec_env

    torch.set_num_threads(1)
    env = sb3_vec_env(8, "connect_four", opponent="random")
    model = MaskablePPO("MlpPolicy", env, n_steps=128, seed=0, device="cpu", verbose=0)
    model.learn(total_timesteps=steps)
    model.save(path)


def timed(model: str, games: int, batch: int, lockstep: bool) -> tuple[float, Any]:
    from mcts_agents.arena import rate

    start = time.perf_counter()
    rating = rate(f"policy:model={model}", "connect_four", games=games, seed=0, batch=batch,
                  lockstep=lockstep)  # fmt: skip
    return time.perf_counter() - start, rating


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default=None, help="a MaskablePPO .zip (default: train one)")
    parser.add_argument("--games", type=int, default=400)
    parser.add_argument("--batch", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--train-steps", type=int, default=4096)
    parser.add_argument("--json", default=None)
    args = parser.parse_args(argv)
    folder = tempfile.TemporaryDirectory()
    model = args.model
    if model is None:
        model = str(Path(folder.name) / "ppo_c4.zip")
        train(args.train_steps, Path(model))
    timed(model, 2, 2, True)  # kernels loaded, torch warm
    load = os.getloadavg()[0]
    slow, fast, ratios = [], [], []
    for _ in range(args.repeats):
        alone, rating = timed(model, args.games, args.batch, False)
        together, same = timed(model, args.games, args.batch, True)
        if same != rating:
            print(f"the paths rated differently: {rating} and {same}", file=sys.stderr)
            return 1
        slow.append(alone)
        fast.append(together)
        ratios.append(alone / together)
    loads = (load, os.getloadavg()[0])
    row = {
        "games": args.games,
        "batch": args.batch,
        "game_by_game_s": statistics.median(slow),
        "lockstep_s": statistics.median(fast),
        "x": statistics.median(ratios),
        "elo": [rating.elo, rating.low, rating.high],
        "scores": rating.scores,
        "load": list(loads),
    }
    for name, found in (("game by game", rating), ("lockstep", same)):
        print(
            f"{name:>12}: Elo {found.elo:.0f} [{found.low:.0f}, {found.high:.0f}] "
            f"({found.games} games: {found.scores})"
        )
    verdict = "met" if row["x"] >= TARGET else "missed"
    print(
        f"{args.games} games, batch {args.batch}: game by game {row['game_by_game_s']:.2f} s, "
        f"lockstep {row['lockstep_s']:.2f} s (medians of {args.repeats}): x {row['x']:.1f} "
        f"(ratios {', '.join(f'{r:.1f}' for r in ratios)}); target x >= {TARGET}: {verdict}; "
        f"load average {loads[0]:.2f} before, {loads[1]:.2f} after, {os.cpu_count()} cores"
    )
    if args.json:
        write_json(args.json, {"machine": machine_info(), "rows": [row]})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
