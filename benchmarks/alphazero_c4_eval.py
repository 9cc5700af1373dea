"""Measure a Connect Four network trained by ``benchmarks.alphazero_connect_four``.

Run from the repository root (needs the ``az`` extra, torch)::

    python -m benchmarks.alphazero_c4_eval match --model runs/c4 [--games 400] [--workers 2]
    python -m benchmarks.alphazero_c4_eval policy --model runs/c4 [--games 400]
    python -m benchmarks.alphazero_c4_eval positions --model runs/c4 [--simulations 200]
    python -m benchmarks.alphazero_c4_eval curve --run runs/c4 [--games 20] [--plot PNG]

The issue's targets, one command each:

- ``match``: the network searching ``--simulations`` (200) per move (``az:`` spec, PUCT,
  leaves in batches of 8) against our MCTS with 1,000 iterations of uniformly random playouts
  in the Python search (``mcts:iterations=1000,playout=random,backend=python``). Games come in
  pairs from one opening of 2 uniformly random plies, the network first in one game of the
  pair and second in the other; target >= 90% over 400 games.
- ``policy``: the network's raw policy (``policy:`` spec, the legal move of highest prior, no
  search) against a one-ply win-or-block player (takes a win when it has one, else blocks the
  opponent's immediate win, else plays a uniformly random legal move), same pairs; target
  >= 50%.
- ``positions``: the 200 solver-labelled positions of ``benchmarks/data/c4_positions.jsonl``
  (``benchmarks.positions``): the share where the network's move (a fresh search per position)
  keeps the game-theoretic result, and the share for our MCTS (the default agent: the compiled
  search) given the same time the network took on each position.
- ``curve``: every gated network of a run (``nets/iteration-*.pt``) plays ``--games`` games
  against each fixed MCTS opponent (Python search, uniform playouts, 100 / 300 / 1,000 /
  3,000 iterations; the opponents also play each other) and a Bradley-Terry fit puts them all
  on one Elo scale (MCTS 1,000 = 0), each network at the training time it was promoted.

Seats, openings and searches are seeded (``--seed``): the same command plays the same games.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import random
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # `python benchmarks/...` too

from benchmarks._common import machine_info, print_machine, print_table, write_json
from mcts_agents import derive_seed
from mcts_agents.envs import connect_four_v0
from mcts_agents.envs.games.connect_four import ConnectFour, won4
from mcts_agents.ratings import bradley_terry_elo, wilson_interval

GAME = ConnectFour()
#: The issue's opponent: our MCTS, 1,000 iterations of uniform random playouts, Python search.
MCTS_1000 = "mcts:iterations=1000,playout=random,backend=python"


class WinOrBlock:
    """One ply deep: win now, else block the opponent's win now, else a uniform random move."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def move(self, state: Any) -> int:
        layout = GAME.layout
        current, occupied = GAME.position(state)
        other = current ^ occupied
        playable = (occupied + layout.bottom_row) & layout.full
        legal = list(GAME.legal_actions(state))
        for stones in (current, other):  # my four first, then theirs to block
            for column in legal:
                column_bits = ((1 << layout.height) - 1) << (column * layout.stride)
                cell = playable & column_bits
                if won4(stones | cell, layout.stride):
                    return column
        return self.rng.choice(legal)


# ---------------------------------------------------------------------------- games
def _player(spec: str, seed: int) -> Any:
    """A fresh player for one game: ``"win-or-block"`` or an agent spec."""
    if spec == "win-or-block":
        return WinOrBlock(seed)
    from mcts_agents.agents.specs import make_agent

    return make_agent(spec, seed=seed)


def _act(player: Any, env: Any, state: Any) -> int:
    return player.move(state) if isinstance(player, WinOrBlock) else int(player.act(env))


def play_game(task: tuple[str, str, int, int, int]) -> dict[str, Any]:
    """One game: ``spec_a`` against ``spec_b`` after a random opening of ``plies``; ``seat`` is
    ``spec_a``'s. Returns ``spec_a``'s points, the plies and the seconds each side spent."""
    spec_a, spec_b, pair_seed, seat, plies = task
    if any(spec.startswith(("az:", "policy:")) for spec in (spec_a, spec_b)):
        import torch

        torch.set_num_threads(1)  # one process per core
    rng = random.Random(pair_seed)
    env = connect_four_v0.env()
    env.reset(seed=pair_seed)
    state = GAME.initial_state()
    for _ in range(plies):
        action = rng.choice(list(GAME.legal_actions(state)))
        env.step(action)
        state = GAME.next_state(state, action)
    players = [
        _player(spec_a, derive_seed(pair_seed, 1)),
        _player(spec_b, derive_seed(pair_seed, 2)),
    ]
    seats = [players[0], players[1]] if seat == 0 else [players[1], players[0]]
    spent = [0.0, 0.0]
    moves = 0
    while not GAME.is_terminal(state):
        mover = GAME.to_play(state)
        started = time.perf_counter()
        action = _act(seats[mover], env, state)
        spent[mover] += time.perf_counter() - started
        env.step(action)
        state = GAME.next_state(state, action)
        moves += 1
    returns = GAME.returns(state)
    mine, theirs = returns[seat], returns[1 - seat]
    points = 1.0 if mine > theirs else 0.5 if mine == theirs else 0.0
    return {
        "points": points,
        "plies": plies + moves,
        "seat": seat,
        "a_seconds": spent[seat],
        "b_seconds": spent[1 - seat],
    }


def match(
    spec_a: str, spec_b: str, games: int, seed: int, workers: int, plies: int = 2
) -> dict[str, Any]:
    """``games`` games (pairs from one opening, seats swapped) of ``spec_a`` against
    ``spec_b``: ``spec_a``'s wins, draws, losses, score and its Wilson 95% interval."""
    tasks = [
        (spec_a, spec_b, derive_seed(seed, index // 2), index % 2, plies) for index in range(games)
    ]
    started = time.perf_counter()
    if workers > 1:
        with multiprocessing.get_context("spawn").Pool(workers) as pool:
            records = pool.map(play_game, tasks, chunksize=1)
    else:
        records = [play_game(task) for task in tasks]
    points = sum(r["points"] for r in records)
    wins = sum(1 for r in records if r["points"] == 1.0)
    draws = sum(1 for r in records if r["points"] == 0.5)
    low, high = wilson_interval(points, games)
    return {
        "a": spec_a,
        "b": spec_b,
        "games": games,
        "wins": wins,
        "draws": draws,
        "losses": games - wins - draws,
        "score": points / games,
        "ci95": [low, high],
        "a_seconds_per_game": sum(r["a_seconds"] for r in records) / games,
        "b_seconds_per_game": sum(r["b_seconds"] for r in records) / games,
        "mean_plies": sum(r["plies"] for r in records) / games,
        "seconds": time.perf_counter() - started,
    }


def _row(result: dict[str, Any]) -> list[str]:
    low, high = result["ci95"]
    return [
        result["a"],
        result["b"],
        f"{result['wins']}/{result['draws']}/{result['losses']}",
        f"{100 * result['score']:.1f}% [{100 * low:.1f}, {100 * high:.1f}]",
        f"{result['seconds']:.0f}",
    ]


def _print_matches(results: Sequence[dict[str, Any]]) -> None:
    print_table(
        ["player", "opponent", "W/D/L", "score [95%]", "seconds"], [_row(r) for r in results]
    )


# ---------------------------------------------------------------------------- positions
def positions(model: str, simulations: int, seed: int) -> dict[str, Any]:
    """The labelled positions: the network's moves, then our MCTS at the network's time."""
    from benchmarks.positions import load
    from mcts_agents.agents.specs import make_agent

    records = []
    for index, p in enumerate(load()):
        env = connect_four_v0.env()
        env.reset(seed=index)
        for c in p["moves"]:
            env.step(c)
        agent = make_agent(
            f"az:model={model},simulations={simulations}", seed=derive_seed(seed, index)
        )
        started = time.perf_counter()
        az_move = int(agent.act(env))
        az_time = time.perf_counter() - started
        mcts = make_agent(f"mcts:time={az_time:.6f}", seed=derive_seed(seed, index))
        started = time.perf_counter()
        mcts_move = int(mcts.act(env))
        mcts_time = time.perf_counter() - started
        records.append(
            {
                "index": index,
                "empty": p["empty"],
                "value": p["value"],
                "az": {"move": az_move, "correct": az_move in p["best_moves"], "time": az_time},
                "mcts": {
                    "move": mcts_move,
                    "correct": mcts_move in p["best_moves"],
                    "time": mcts_time,
                    "sims": mcts.last_result.iterations,
                },
            }
        )
    summary = {}
    for side in ("az", "mcts"):
        good = sum(r[side]["correct"] for r in records)
        low, high = wilson_interval(good, len(records))
        summary[side] = {
            "correct": good,
            "n": len(records),
            "share": good / len(records),
            "ci95": [low, high],
            "mean_time": sum(r[side]["time"] for r in records) / len(records),
        }
    summary["only_az"] = sum(r["az"]["correct"] and not r["mcts"]["correct"] for r in records)
    summary["only_mcts"] = sum(r["mcts"]["correct"] and not r["az"]["correct"] for r in records)
    summary["mcts_sims"] = sum(r["mcts"]["sims"] for r in records) / len(records)
    return {"summary": summary, "records": records}


# ---------------------------------------------------------------------------- curve
CURVE_OPPONENTS = (
    "mcts:iterations=100,playout=random,backend=python",
    "mcts:iterations=300,playout=random,backend=python",
    MCTS_1000,
    "mcts:iterations=3000,playout=random,backend=python",
)


def curve(run: Path, games: int, simulations: int, seed: int, workers: int) -> dict[str, Any]:
    """Every gated network against the fixed MCTS opponents, and the opponents among
    themselves; Elo by Bradley-Terry with MCTS 1,000 at 0."""
    nets = sorted((run / "nets").glob("iteration-*.pt"))
    seconds = _promotion_seconds(run)
    results: list[tuple[str, str, float, int]] = []
    rows = []
    for i, a in enumerate(CURVE_OPPONENTS):
        for b in CURVE_OPPONENTS[i + 1 :]:
            r = match(a, b, games, derive_seed(seed, 7, i), workers)
            results.append((a, b, r["score"] * games, games))
            rows.append(r)
    for net in nets:
        spec = f"az:model={net},simulations={simulations}"
        for j, opponent in enumerate(CURVE_OPPONENTS):
            r = match(spec, opponent, games, derive_seed(seed, 8, j), workers)
            results.append((spec, opponent, r["score"] * games, games))
            rows.append(r)
        scores = [round(x["score"], 3) for x in rows[-len(CURVE_OPPONENTS) :]]
        print(f"# {net.name}: {scores}", flush=True)
    names = [MCTS_1000, *(n for n in CURVE_OPPONENTS if n != MCTS_1000)]
    names += [f"az:model={net},simulations={simulations}" for net in nets]
    elo = bradley_terry_elo(names, results, anchor=MCTS_1000)
    points = []
    for net in nets:
        iteration = int(net.stem.split("-")[1])
        rating = elo[f"az:model={net},simulations={simulations}"]
        points.append(
            {
                "net": net.name,
                "iteration": iteration,
                "train_seconds": seconds.get(iteration, 0.0),
                "elo": rating[0],
                "low": rating[1],
                "high": rating[2],
            }
        )
    anchors = {name: elo[name] for name in CURVE_OPPONENTS}
    return {"simulations": simulations, "points": points, "anchors": anchors, "matches": rows}


def _promotion_seconds(run: Path) -> dict[int, float]:
    """Training seconds at the end of each iteration (``metrics.jsonl``)."""
    seconds = {0: 0.0}
    path = run / "metrics.jsonl"
    if path.exists():
        for line in path.read_text().splitlines():
            if line.strip():
                data = json.loads(line)
                seconds[int(data["iteration"])] = float(data["seconds"])
    return seconds


def plot_curve(data: dict[str, Any], path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    points = data["points"]
    x = [p["train_seconds"] / 60 for p in points]
    y = [p["elo"] for p in points]
    err = [[p["elo"] - p["low"] for p in points], [p["high"] - p["elo"] for p in points]]
    figure, axes = plt.subplots(figsize=(7, 4))
    label = f"gated network, {data['simulations']} simulations"
    axes.errorbar(x, y, yerr=err, marker="o", capsize=3, label=label)
    for name, (elo, _, _) in data["anchors"].items():
        iterations = name.split("iterations=")[1].split(",")[0]
        axes.axhline(elo, linestyle="--", linewidth=0.8, color="grey")
        axes.text(0, elo, f" MCTS {iterations}", va="bottom", fontsize=8, color="grey")
    axes.set_xlabel("training time (minutes, 2 CPU cores)")
    axes.set_ylabel("Elo (MCTS 1,000 iterations = 0)")
    axes.set_title("Connect Four: AlphaZero networks against fixed MCTS opponents")
    axes.legend(loc="lower right")
    figure.tight_layout()
    figure.savefig(path, dpi=120)


# ---------------------------------------------------------------------------- main
def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    for name in ("match", "policy", "positions"):
        sub = commands.add_parser(name)
        sub.add_argument("--model", required=True, help="a run's folder or a network file")
    commands.add_parser("curve").add_argument("--run", required=True)
    for sub in commands.choices.values():
        sub.add_argument("--games", type=int, default=20 if sub.prog.endswith("curve") else 400)
        sub.add_argument("--simulations", type=int, default=200)
        sub.add_argument("--workers", type=int, default=2)
        sub.add_argument("--seed", type=int, default=0)
        sub.add_argument("--json", default=None)
        sub.add_argument("--plot", default=None, help="curve: the PNG to write")
    args = parser.parse_args(argv)
    print_machine(machine_info())
    data: dict[str, Any] = {"machine": machine_info(), "command": args.command}
    if args.command == "match":
        spec = f"az:model={args.model},simulations={args.simulations}"
        data["result"] = match(spec, MCTS_1000, args.games, args.seed, args.workers)
        _print_matches([data["result"]])
    elif args.command == "policy":
        data["result"] = match(
            f"policy:model={args.model}", "win-or-block", args.games, args.seed, args.workers
        )
        _print_matches([data["result"]])
    elif args.command == "positions":
        data["result"] = positions(args.model, args.simulations, args.seed)
        print(json.dumps(data["result"]["summary"], indent=2))
    else:
        data["result"] = curve(
            Path(args.run), args.games, args.simulations, args.seed, args.workers
        )
        print_table(
            ["network", "minutes", "Elo", "95%"],
            [
                [
                    p["net"],
                    f"{p['train_seconds'] / 60:.1f}",
                    f"{p['elo']:+.0f}",
                    f"[{p['low']:+.0f}, {p['high']:+.0f}]",
                ]
                for p in data["result"]["points"]
            ],
        )
        if args.plot:
            plot_curve(data["result"], args.plot)
    if args.json:
        write_json(args.json, data)
    return data


if __name__ == "__main__":
    main()
