"""Connect Four positions labelled by an exact solver: does a move keep the game-theoretic result?

Run from the repository root::

    python -m benchmarks.positions build [--seed 0] [--per-k 50] [--empties 16,20,24,28]
    python -m benchmarks.positions run [--time 0.1] [--json PATH] [key=value ...]

``build`` plays uniformly random games from the empty board (seeded) and stops each at a
given number of empty cells ``K`` (an equal share of positions per ``K``). A position is kept
when the game is still running, its answer is not one ply deep (neither side has a four to
complete on a playable cell: no immediate win to take and no immediate threat to block; both
bots see those at once), and not every legal move keeps the value ("interesting": a wrong move
exists, so lost positions never qualify). The solver (``benchmarks/c4_solver.py``) labels
each with its value for the side to move (+1, 0, -1), every move's value and the moves that
keep the value. The set is written to ``benchmarks/data/c4_positions.jsonl``, one JSON object
a line, deterministic for a seed (``solver_nodes`` records what each label cost the solver).

``run`` asks, for every position, our ``MCTSAgent(time_limit=t, seed=i, **options)`` (the
position set up by replaying the moves in ``mcts_agents.envs.connect_four_v0``) and OpenSpiel's C++
``pyspiel.MCTSBot`` (the settings of ``benchmarks/matches.py``: ``uct_c=2``, one random
rollout, ``solve=True``, ``max_wall_clock_time=t``) for a move, each from a fresh search, and
reports the share of positions where the move keeps the game-theoretic result, with 95%
Wilson intervals, overall, per ``K`` and per value; the paired counts of positions that only
one side gets right; and the time and simulations each side spent per position (a search
stops early once its solver proves the root, so the mean time can be below ``t``).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from time import perf_counter
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # `python benchmarks/positions.py`

import pyspiel

from benchmarks._common import load_average, machine_info, print_machine, print_table, write_json
from benchmarks.c4_solver import BOARD, BOTTOM, WIDTH, Solver, has_won, state_after, threats
from benchmarks.matches import (
    CPP_MAX_MEMORY_MB,
    CPP_MAX_SIMULATIONS,
    UCT_C,
    parse_option,
    wilson,
)
from mcts_agents import MCTSAgent
from mcts_agents.envs import connect_four_v0

DATA = Path(__file__).resolve().parent / "data" / "c4_positions.jsonl"
DEFAULT_EMPTIES = (16, 20, 24, 28)


# ---------------------------------------------------------------------------- building
def random_line(rng: random.Random, empties: int) -> list[int] | None:
    """Random moves from the empty board until ``empties`` cells are left (``None`` if it ended)."""
    heights = [0] * WIDTH
    boards = [0, 0]
    moves: list[int] = []
    mask = 0
    while 42 - len(moves) > empties:
        c = rng.choice([c for c in range(WIDTH) if heights[c] < 6])
        move = (mask + BOTTOM) & (((1 << 6) - 1) << (7 * c))
        mask |= move
        player = len(moves) & 1
        boards[player] |= move
        heights[c] += 1
        moves.append(c)
        if has_won(boards[player]):
            return None
    return moves


def one_ply_deep(moves: Sequence[int]) -> bool:
    """Whether the mover can win at once or must block an immediate threat."""
    b0, b1, _, _ = state_after(moves)
    mask = b0 | b1
    possible = (mask + BOTTOM) & BOARD
    return bool((threats(b0, mask) | threats(b1, mask)) & possible)


def label(moves: Sequence[int], solver: Solver) -> dict[str, Any]:
    """The solver's labels of the position after ``moves``."""
    state = state_after(moves)
    solution = solver.solve(state)
    ply = state[2]
    return {
        "moves": list(moves),
        "empty": 42 - ply,
        "to_play": ply & 1,
        "value": solution.value,
        "best_moves": list(solution.best_moves),
        "move_values": [solution.move_values.get(c) for c in range(WIDTH)],
        "solver_nodes": solution.nodes,
    }


def build(seed: int, per_k: int, empties: Sequence[int]) -> list[dict[str, Any]]:
    """``per_k`` interesting positions for each number of empty cells, deterministic."""
    rng = random.Random(seed)
    solver = Solver()
    positions: list[dict[str, Any]] = []
    seen: set[tuple[int, int]] = set()
    for k in empties:
        found = 0
        while found < per_k:
            moves = random_line(rng, k)
            if moves is None:
                continue
            state = state_after(moves)
            if state[:2] in seen or one_ply_deep(moves):
                continue
            entry = label(moves, solver)
            if len(entry["best_moves"]) == sum(v is not None for v in entry["move_values"]):
                continue
            seen.add(state[:2])
            positions.append(entry)
            found += 1
            print(f"K={k}: {found}/{per_k}", file=sys.stderr, end="\r")
        print(file=sys.stderr)
    return positions


def load(path: Path = DATA) -> list[dict[str, Any]]:
    """The position set, one dict per line."""
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def save(positions: Sequence[dict[str, Any]], path: Path = DATA) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(p, separators=(",", ":")) + "\n" for p in positions))


# ---------------------------------------------------------------------------- running
def ours_move(
    moves: Sequence[int], t: float, seed: int, options: dict[str, Any]
) -> tuple[int, float, int]:
    """Our agent's move after ``moves``: (action, seconds, simulations)."""
    env = connect_four_v0.env()
    env.reset(seed=seed)
    for c in moves:
        env.step(c)
    agent = MCTSAgent(time_limit=t, seed=seed, **options)
    start = perf_counter()
    action = agent.act(env)
    spent = perf_counter() - start
    return action, spent, agent.last_result.iterations  # type: ignore[union-attr]


def cpp_move(moves: Sequence[int], t: float, seed: int) -> tuple[int, float, int]:
    """OpenSpiel C++ MCTSBot's move after ``moves``: (action, seconds, simulations)."""
    game = pyspiel.load_game("connect_four")
    state = game.new_initial_state()
    for c in moves:
        state.apply_action(c)
    bot = pyspiel.MCTSBot(
        game,
        pyspiel.RandomRolloutEvaluator(1, seed),
        UCT_C,
        CPP_MAX_SIMULATIONS,
        CPP_MAX_MEMORY_MB,
        True,
        seed,
        False,
        pyspiel.ChildSelectionPolicy.UCT,
        t,
    )
    start = perf_counter()
    root = bot.mcts_search(state)
    action = root.best_child().action
    spent = perf_counter() - start
    return action, spent, root.explore_count


def share(records: Sequence[dict[str, Any]], side: str) -> dict[str, Any]:
    """Share of positions where ``side``'s move keeps the value, with a 95% Wilson interval."""
    n = len(records)
    good = sum(r[side]["correct"] for r in records)
    low, high = wilson(good, n)
    return {"n": n, "correct": good, "share": good / n if n else 0.0, "ci95": [low, high]}


def run(
    positions: Sequence[dict[str, Any]],
    t: float,
    options: dict[str, Any],
    log: Callable[[str], None],
) -> dict[str, Any]:
    """Both bots on every position; the shares overall and by number of empty cells."""
    records = []
    for i, p in enumerate(positions):
        record: dict[str, Any] = {"index": i, "empty": p["empty"], "value": p["value"]}
        for side in ("ours", "cpp"):
            if side == "ours":
                action, spent, sims = ours_move(p["moves"], t, i, options)
            else:
                action, spent, sims = cpp_move(p["moves"], t, i)
            record[side] = {
                "move": action,
                "correct": action in p["best_moves"],
                "time": spent,
                "sims": sims,
            }
        records.append(record)
        ok = sum(r["ours"]["correct"] for r in records), sum(r["cpp"]["correct"] for r in records)
        log(f"[positions t={t:g}] {i + 1}/{len(positions)}: correct ours {ok[0]}, C++ {ok[1]}")
    groups: dict[str, list[dict[str, Any]]] = {"all": records}
    for k in sorted({r["empty"] for r in records}):
        groups[f"K={k}"] = [r for r in records if r["empty"] == k]
    for v, name in ((1, "win"), (0, "draw"), (-1, "loss")):
        groups[f"value={name}"] = [r for r in records if r["value"] == v]
    summary = {}
    for name, rs in groups.items():
        if not rs:
            continue
        summary[name] = {
            "ours": share(rs, "ours"),
            "cpp": share(rs, "cpp"),
            # paired: positions only one side gets right (what a McNemar test would compare)
            "only_ours": sum(r["ours"]["correct"] and not r["cpp"]["correct"] for r in rs),
            "only_cpp": sum(r["cpp"]["correct"] and not r["ours"]["correct"] for r in rs),
            "ours_time": sum(r["ours"]["time"] for r in rs) / len(rs),
            "cpp_time": sum(r["cpp"]["time"] for r in rs) / len(rs),
            "ours_sims": sum(r["ours"]["sims"] for r in rs) / len(rs),
            "cpp_sims": sum(r["cpp"]["sims"] for r in rs) / len(rs),
        }
    return {"time": t, "summary": summary, "records": records}


def print_summary(result: dict[str, Any]) -> None:
    rows = []
    for name, s in result["summary"].items():
        cells = [name, str(s["ours"]["n"])]
        for side in ("ours", "cpp"):
            low, high = s[side]["ci95"]
            cells.append(f"{100 * s[side]['share']:.1f}% [{100 * low:.1f}, {100 * high:.1f}]")
        cells += [
            f"{s['only_ours']}/{s['only_cpp']}",
            f"{s['ours_time']:.3f}",
            f"{s['cpp_time']:.3f}",
            f"{s['ours_sims']:,.0f}",
            f"{s['cpp_sims']:,.0f}",
        ]
        rows.append(cells)
    print_table(
        [
            "positions",
            "n",
            "ours correct (95% CI)",
            "C++ correct (95% CI)",
            "only ours/only C++",
            "ours s",
            "C++ s",
            "ours sims",
            "C++ sims",
        ],
        rows,
        left=1,
    )


def main(argv: list[str] | None = None) -> dict[str, Any] | None:
    """``build`` the position set or ``run`` both bots on it."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    b = sub.add_parser("build", help="generate and label the position set")
    b.add_argument("--seed", type=int, default=0)
    b.add_argument("--per-k", type=int, default=50, help="positions per number of empty cells")
    b.add_argument("--empties", default=",".join(map(str, DEFAULT_EMPTIES)))
    b.add_argument("--out", default=str(DATA))
    r = sub.add_parser("run", help="both bots on the position set")
    r.add_argument("--time", type=float, default=0.1, help="seconds per move")
    r.add_argument("--data", default=str(DATA))
    r.add_argument("--limit", type=int, default=None, help="only the first N positions")
    r.add_argument("--json", metavar="PATH", help="save the results as JSON")
    r.add_argument("options", nargs="*", help="our SearchConfig options as key=value")
    args = parser.parse_args(argv)
    if args.command == "build":
        empties = [int(x) for x in args.empties.split(",")]
        start = perf_counter()
        positions = build(args.seed, args.per_k, empties)
        save(positions, Path(args.out))
        print(f"# {len(positions)} positions in {perf_counter() - start:.0f} s -> {args.out}")
        return None
    positions = load(Path(args.data))[: args.limit]
    options = dict(parse_option(o) for o in args.options)
    info = machine_info()
    print_machine(info)
    print(
        f"\n## Connect Four: share of {len(positions)} solved positions where the move keeps "
        f"the game-theoretic result, {args.time:g} s per move\n"
    )
    result = run(positions, args.time, options, lambda line: print(line, file=sys.stderr))
    print_summary(result)
    data = {
        "benchmark": "positions",
        "machine": info,
        "options": {k: repr(v) for k, v in options.items()},
        "data": str(args.data),
        **result,
        "loadavg_at_end": load_average(),
    }
    if args.json:
        write_json(args.json, data)
    return data


if __name__ == "__main__":
    main()
