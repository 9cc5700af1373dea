"""A/B of a game's decisive playout against its uniform one in the compiled kernel, at equal
time per move: is the decisive playout worth its cost? (The evidence a playout needs before it
becomes a default; results in ``docs/benchmarks.md``, run 8.)

Run from the repository root::

    python -m benchmarks.playout_ab --game mnk --env m=15 --env n=15 --env k=5 \\
        [--time 0.1] [--games 60] [--opening-plies 2] [--workers 2] [--seed 2] [--json PATH]

Both sides are ``CompiledSearch`` with the agent's defaults; one plays the rule set's decisive
playout (``Codec.decisive`` forced on), the other uniform playouts (forced off), whatever the
game's default is. Seats alternate from game to game; each game starts with random opening
plies. Prints the decisive side's wins/draws/losses, its score with a Wilson interval, and the
simulations each side ran.
"""

from __future__ import annotations

import argparse
import dataclasses
import random
import sys
from multiprocessing import Pool
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # `python benchmarks/...`

from benchmarks._common import machine_info, print_machine, print_table, write_json
from benchmarks.matches import parse_option
from mcts_agents import Budget, SearchConfig, envs
from mcts_agents.compiled.searcher import CompiledSearch
from mcts_agents.ratings import wilson_interval


def play_game(task: dict[str, Any]) -> tuple[float, list[int]]:
    """One game: the decisive side's return and each side's simulations (decisive first)."""
    game = envs.load(f"{task['game']}_v0").raw_env(**task["env"]).game
    index, seed = task["index"], task["seed"]
    rng = random.Random(seed * 1_000_003 + index)
    sides = []
    for decisive in (True, False):
        budget = (
            Budget(iterations=task["iterations"])
            if task.get("iterations")
            else Budget(time_limit=task["time"])
        )
        searcher = CompiledSearch(game, budget, SearchConfig(), seed=rng.getrandbits(32))
        searcher.codec = dataclasses.replace(searcher.codec, decisive=decisive)
        sides.append(searcher)
    decisive_seat = index % 2
    state = game.initial_state()
    for _ in range(task["opening_plies"]):
        if not game.is_terminal(state):
            state = game.next_state(state, rng.choice(game.legal_actions(state)))
    sims = [0, 0]
    while not game.is_terminal(state):
        side = 0 if game.to_play(state) == decisive_seat else 1
        result = sides[side].search(game, state)
        sims[side] += result.iterations
        state = game.next_state(state, result.best_action)
    return game.returns(state)[decisive_seat], sims


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="ultimate_tic_tac_toe", help="one of our envs' modules")
    parser.add_argument("--env", action="append", default=[], metavar="KEY=VALUE")
    parser.add_argument("--time", type=float, default=0.1, help="seconds per move")
    parser.add_argument(
        "--iterations",
        type=int,
        default=0,
        help="simulations per move instead of --time (the playouts' quality, not their cost)",
    )
    parser.add_argument("--games", type=int, default=60)
    parser.add_argument("--opening-plies", type=int, default=2)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", metavar="PATH")
    args = parser.parse_args(argv)
    env = dict(parse_option(o) for o in args.env)
    info = machine_info()
    print_machine(info)
    base = {
        "game": args.game, "env": env, "time": args.time, "iterations": args.iterations,
        "seed": args.seed,
    }  # fmt: skip
    tasks = [{**base, "index": i, "opening_plies": args.opening_plies} for i in range(args.games)]
    with Pool(args.workers) as pool:
        results = pool.map(play_game, tasks, chunksize=1)
    wins = sum(r > 0 for r, _ in results)
    draws = sum(r == 0 for r, _ in results)
    losses = len(results) - wins - draws
    points = wins + draws / 2
    low, high = wilson_interval(points, len(results))
    sims = [sum(s[0] for _, s in results), sum(s[1] for _, s in results)]
    summary = {
        "game": args.game, "env": env, "time": args.time, "iterations": args.iterations,
        "games": len(results),
        "decisive_wins": wins, "draws": draws, "decisive_losses": losses,
        "decisive_score": points / len(results), "score_ci95": [low, high],
        "simulations_decisive": sims[0], "simulations_uniform": sims[1],
    }  # fmt: skip
    per_move = f"{args.iterations} simulations" if args.iterations else f"{args.time} s"
    print(f"\n## Decisive vs uniform playouts: {args.game}{env or ''}, {per_move} a move\n")
    print_table(
        ["games", "decisive W/D/L", "decisive score (95% CI)", "simulations decisive / uniform"],
        [[
            str(len(results)), f"{wins}/{draws}/{losses}",
            f"{100 * points / len(results):.1f}% [{100 * low:.1f}, {100 * high:.1f}]",
            f"{sims[0]:,} / {sims[1]:,}",
        ]],
    )  # fmt: skip
    if args.json:
        write_json(args.json, {"benchmark": "playout_ab", "machine": info, **summary})
    return summary


if __name__ == "__main__":
    main()
