"""Env and rules-core speed: AEC steps vs PettingZoo classic, save/restore, random playouts.

Run from the repository root::

    python -m benchmarks.envs [--quick] [--repeats N] [--json PATH]

Three measurements, each the median of ``--repeats`` runs (the runs of all variants are
interleaved, so a burst of load elsewhere on the machine hits them alike):

a. AEC ``env.step`` per second in random legal games through the standard wrapped ``env()``,
   ours vs PettingZoo's classic ``connect_four_v3`` / ``tictactoe_v3``. Both loops do the same:
   ``env.last()``, pick a uniformly random action from the observation's ``action_mask``,
   ``env.step(action)``, until the game ends; ``reset()`` is outside the clock. "step/s" times
   ``env.step`` alone, "loop/s" the whole agent loop (``last`` + mask + ``step``).
b. ``save_state()`` and ``restore_state()`` of each of our envs, in a mid-game position, vs
   ``copy.deepcopy`` of PettingZoo's wrapped env (for context only: the copy is not faithful,
   see the "faithful" column: ``EzPickle`` rebuilds the raw env from its constructor arguments).
c. Uniformly random playouts (``game.rollout(state, rng)``) per second of each rules core from
   the initial position, on one core.
"""

from __future__ import annotations

import argparse
import copy
import random
import sys
from collections.abc import Callable
from functools import partial
from pathlib import Path
from time import perf_counter
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # `python benchmarks/envs.py` too

import numpy as np
from pettingzoo.classic import connect_four_v3, tictactoe_v3

from benchmarks._common import (
    calibrate,
    fmt,
    load_average,
    machine_info,
    median,
    print_machine,
    print_table,
    spread,
    write_json,
)
from mcts_agents.envs import (
    connect_four_v0,
    mnk_v0,
    multi_mnk_v0,
    nim_v0,
    othello_v0,
    tic_tac_toe_v0,
    ultimate_tic_tac_toe_v0,
)

EnvFactory = Callable[[], Any]

#: (game, ours, PettingZoo's) for the AEC comparison: the standard wrapped ``env()`` (the
#: measurement the target is about) and, to show what the wrappers cost, the bare ``raw_env()``.
AEC_PAIRS: tuple[tuple[str, str, EnvFactory, EnvFactory], ...] = (
    ("connect four", "env()", connect_four_v0.env, connect_four_v3.env),
    ("tic-tac-toe", "env()", tic_tac_toe_v0.env, tictactoe_v3.env),
    ("connect four", "raw_env()", connect_four_v0.raw_env, connect_four_v3.raw_env),
    ("tic-tac-toe", "raw_env()", tic_tac_toe_v0.raw_env, tictactoe_v3.raw_env),
)

#: Our envs, by game, for save/restore and for their rules cores' playouts.
OUR_ENVS: dict[str, EnvFactory] = {
    "connect four": connect_four_v0.env,
    "tic-tac-toe": tic_tac_toe_v0.env,
    "othello": othello_v0.env,
    "uttt": ultimate_tic_tac_toe_v0.env,
    "gomoku": lambda: mnk_v0.env(preset="gomoku"),
    "nim": nim_v0.env,
    "multi_mnk": multi_mnk_v0.env,
    "deluxe": lambda: mnk_v0.env(preset="deluxe"),
}

#: PettingZoo's envs for the deepcopy context rows.
PZ_ENVS: dict[str, EnvFactory] = {
    "connect_four_v3": connect_four_v3.env,
    "tictactoe_v3": tictactoe_v3.env,
}

TARGET_STEP_RATIO = 3.0
TARGET_C4_PLAYOUTS = 25_000.0


# ---------------------------------------------------------------------------- (a) AEC steps
def random_action(observation: dict[str, np.ndarray], rng: random.Random) -> int:
    """A uniformly random action among those the observation's ``action_mask`` allows."""
    legal = np.flatnonzero(observation["action_mask"])
    return int(legal[int(rng.random() * len(legal))])


def play_random_games(env: Any, games: int, seed: int) -> tuple[int, float, float]:
    """Play ``games`` random legal games; return (steps, seconds in step, seconds in the loop)."""
    rng = random.Random(seed)
    steps = 0
    step_s = loop_s = 0.0
    for game in range(games):
        env.reset(seed=seed + game)
        start = perf_counter()
        while True:
            observation, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                break
            action = random_action(observation, rng)
            before = perf_counter()
            env.step(action)
            step_s += perf_counter() - before
            steps += 1
        loop_s += perf_counter() - start
    return steps, step_s, loop_s


def loop_seconds(env: Any, games: int) -> float:
    """Seconds of the agent loop in ``games`` random games (for calibration)."""
    return play_random_games(env, games, seed=1)[2]


def bench_aec(repeats: int, target_s: float) -> list[dict[str, Any]]:
    """Steps per second of ours vs PettingZoo's envs (medians over interleaved repeats)."""
    variants = []
    for label, stack, ours, theirs in AEC_PAIRS:
        for side, factory in (("ours", ours), ("pettingzoo", theirs)):
            env = factory()
            play_random_games(env, 5, seed=0)  # warm-up
            games = calibrate(partial(loop_seconds, env), target_s)
            variants.append(
                {"game": label, "stack": stack, "side": side, "env": env, "games": games}
            )
    samples: dict[int, list[tuple[int, float, float]]] = {i: [] for i in range(len(variants))}
    for repeat in range(repeats):
        for i, v in enumerate(variants):
            samples[i].append(play_random_games(v["env"], v["games"], seed=1000 * repeat))
    results: list[dict[str, Any]] = []
    for i, v in enumerate(variants):
        step_rates = [steps / step_s for steps, step_s, _ in samples[i]]
        loop_rates = [steps / loop_s for steps, _, loop_s in samples[i]]
        steps = [s for s, _, _ in samples[i]]
        results.append(
            {
                "game": v["game"],
                "stack": v["stack"],
                "side": v["side"],
                "games_per_repeat": v["games"],
                "steps_per_repeat_median": median(steps),
                "steps_per_s": median(step_rates),
                "loop_steps_per_s": median(loop_rates),
                "step_spread": spread(step_rates),
            }
        )
    return results


def print_aec(results: list[dict[str, Any]]) -> None:
    """The AEC table, one row per game and wrapper stack, with the ours/theirs ratios."""
    rows = []
    for label, stack, _, _ in AEC_PAIRS:
        ours, theirs = (
            next(r for r in results if (r["game"], r["stack"], r["side"]) == (label, stack, side))
            for side in ("ours", "pettingzoo")
        )
        ours["step_ratio"] = ours["steps_per_s"] / theirs["steps_per_s"]
        ours["loop_ratio"] = ours["loop_steps_per_s"] / theirs["loop_steps_per_s"]
        rows.append(
            [
                label,
                stack,
                fmt(ours["steps_per_s"]),
                fmt(theirs["steps_per_s"]),
                f"{ours['step_ratio']:.2f}x",
                fmt(ours["loop_steps_per_s"]),
                fmt(theirs["loop_steps_per_s"]),
                f"{ours['loop_ratio']:.2f}x",
            ]
        )
    print_table(
        [
            "game",
            "env",
            "ours step/s",
            "PZ step/s",
            "ratio",
            "ours loop/s",
            "PZ loop/s",
            "loop ratio",
        ],
        rows,
        left=2,
    )


# ---------------------------------------------------------------------------- (b) save/restore
def mid_game(env: Any, seed: int, moves: int) -> None:
    """Reset ``env`` and play up to ``moves`` random legal moves, stopping before the end."""
    rng = random.Random(seed)
    env.reset(seed=seed)
    raw = env.unwrapped
    for _ in range(moves):
        observation = env.observe(env.agent_selection)
        action = random_action(observation, rng)
        before = raw.save_state() if hasattr(raw, "save_state") else None
        env.step(action)
        if env.terminations[env.agent_selection] or not env.agents:
            if before is None:
                raise RuntimeError("a random game ended before the mid-game position")
            raw.restore_state(before)  # one move too many: take it back and stop
            return


def time_save_restore(raw: Any, n: int) -> tuple[float, float]:
    """Seconds for ``n`` ``save_state()`` calls and for ``n`` ``restore_state()`` calls."""
    save, restore = raw.save_state, raw.restore_state
    snapshot = save()
    start = perf_counter()
    for _ in range(n):
        save()
    middle = perf_counter()
    for _ in range(n):
        restore(snapshot)
    return middle - start, perf_counter() - middle


def save_restore_seconds(raw: Any, n: int) -> float:
    """Seconds for ``n`` saves plus ``n`` restores (for calibration)."""
    return sum(time_save_restore(raw, n))


def time_deepcopy(env: Any, n: int) -> float:
    """Seconds for ``n`` ``copy.deepcopy(env)`` calls."""
    start = perf_counter()
    for _ in range(n):
        copy.deepcopy(env)
    return perf_counter() - start


def restore_is_faithful(env: Any, seed: int) -> bool:
    """Save, play on to the end, restore: is the env exactly where it was?"""
    raw = env.unwrapped
    snapshot = raw.save_state()
    state, selection = raw.state, env.agent_selection
    rng = random.Random(seed)
    while env.agents and not env.terminations[env.agent_selection]:
        env.step(random_action(env.observe(env.agent_selection), rng))
    raw.restore_state(snapshot)
    return bool(raw.state == state and env.agent_selection == selection and raw.legal_actions())


def deepcopy_is_faithful(env: Any) -> bool:
    """Does ``copy.deepcopy`` of a PettingZoo classic env keep its board and agent to move?"""
    clone = copy.deepcopy(env)
    board = np.asarray(env.unwrapped.board)
    clone_board = np.asarray(getattr(clone.unwrapped, "board", None))
    same_board = board.shape == clone_board.shape and bool((board == clone_board).all())
    same_turn = getattr(clone.unwrapped, "agent_selection", None) == env.agent_selection
    return same_board and same_turn


def bench_snapshots(repeats: int, target_s: float) -> list[dict[str, Any]]:
    """Save/restore µs of our envs and deepcopy µs of ours and PettingZoo's, mid-game."""
    variants = []
    for label, factory in OUR_ENVS.items():
        env = factory()
        mid_game(env, seed=7, moves=10)
        raw = env.unwrapped
        n = calibrate(partial(save_restore_seconds, raw), target_s, start=64)
        m = calibrate(partial(time_deepcopy, env), target_s / 4)
        variants.append({"env": label, "side": "ours", "obj": env, "n": n, "m": m})
    for label, factory in PZ_ENVS.items():
        env = factory()
        mid_game(env, seed=7, moves=4)
        m = calibrate(partial(time_deepcopy, env), target_s / 4)
        variants.append({"env": label, "side": "pettingzoo", "obj": env, "n": 0, "m": m})
    samples: dict[int, dict[str, list[float]]] = {
        i: {"save": [], "restore": [], "deepcopy": []} for i in range(len(variants))
    }
    for _ in range(repeats):
        for i, v in enumerate(variants):
            if v["n"]:
                save_s, restore_s = time_save_restore(v["obj"].unwrapped, v["n"])
                samples[i]["save"].append(save_s / v["n"] * 1e6)
                samples[i]["restore"].append(restore_s / v["n"] * 1e6)
            samples[i]["deepcopy"].append(time_deepcopy(v["obj"], v["m"]) / v["m"] * 1e6)
    results: list[dict[str, Any]] = []
    for i, v in enumerate(variants):
        env = v["obj"]
        row: dict[str, Any] = {"env": v["env"], "side": v["side"]}
        if v["n"]:
            row["save_us"] = median(samples[i]["save"])
            row["restore_us"] = median(samples[i]["restore"])
            row["save_restore_us"] = row["save_us"] + row["restore_us"]
            row["faithful"] = restore_is_faithful(env, seed=11)
            row["deepcopy_faithful"] = None  # not checked for ours: no EzPickle involved
        else:
            row["faithful"] = None
            row["deepcopy_faithful"] = deepcopy_is_faithful(env)
        row["deepcopy_us"] = median(samples[i]["deepcopy"])
        results.append(row)
    return results


def print_snapshots(results: list[dict[str, Any]]) -> None:
    """The save/restore table."""
    rows = []
    for r in results:
        faithful = r["faithful"] if r["side"] == "ours" else r["deepcopy_faithful"]
        rows.append(
            [
                r["env"] if r["side"] == "ours" else f"PZ {r['env']}",
                fmt(r.get("save_us"), 2),
                fmt(r.get("restore_us"), 2),
                fmt(r.get("save_restore_us"), 2),
                fmt(r["deepcopy_us"], 1),
                "yes" if faithful else "NO",
            ]
        )
    print_table(
        ["env (mid-game)", "save µs", "restore µs", "save+restore µs", "deepcopy µs", "faithful"],
        rows,
    )


# ---------------------------------------------------------------------------- (c) playouts
def time_playouts(game: Any, n: int, seed: int) -> float:
    """Seconds for ``n`` random playouts of ``game`` from its initial position."""
    rollout, state, rng = game.rollout, game.initial_state(), random.Random(seed)
    start = perf_counter()
    for _ in range(n):
        rollout(state, rng)
    return perf_counter() - start


def mean_length(game: Any, games: int, seed: int) -> float:
    """Mean number of moves of a uniformly random game (untimed, through ``next_state``)."""
    rng = random.Random(seed)
    total = 0
    for _ in range(games):
        state = game.initial_state()
        while not game.is_terminal(state):
            actions = game.legal_actions(state)
            state = game.next_state(state, actions[int(rng.random() * len(actions))])
            total += 1
    return total / games


def bench_playouts(repeats: int, target_s: float) -> list[dict[str, Any]]:
    """Random playouts per second of each rules core (medians over interleaved repeats)."""
    variants = []
    for label, factory in OUR_ENVS.items():
        game = factory().unwrapped.game
        time_playouts(game, 10, seed=0)  # warm-up
        n = calibrate(partial(time_playouts, game, seed=1), target_s)
        variants.append((label, game, n))
    samples: dict[str, list[float]] = {label: [] for label, _, _ in variants}
    for repeat in range(repeats):
        for label, game, n in variants:
            samples[label].append(n / time_playouts(game, n, seed=repeat))
    results: list[dict[str, Any]] = []
    for label, game, n in variants:
        rate = median(samples[label])
        length = mean_length(game, 200, seed=3)
        results.append(
            {
                "game": label,
                "spec": repr(game),
                "playouts_per_repeat": n,
                "playouts_per_s": rate,
                "us_per_playout": 1e6 / rate,
                "mean_moves": length,
                "moves_per_s": rate * length,
                "spread": spread(samples[label]),
            }
        )
    return results


def print_playouts(results: list[dict[str, Any]]) -> None:
    """The playouts table."""
    rows = [
        [
            r["game"],
            fmt(r["playouts_per_s"]),
            fmt(r["us_per_playout"], 1),
            fmt(r["mean_moves"], 1),
            fmt(r["moves_per_s"]),
            f"{100 * r['spread']:.0f}%",
        ]
        for r in results
    ]
    print_table(["core", "playouts/s", "µs/playout", "moves/game", "moves/s", "spread"], rows)


# ---------------------------------------------------------------------------- main
def targets(aec: list[dict[str, Any]], playouts: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The two targets, met or not."""
    verdicts = []
    for r in aec:
        if r["side"] == "ours" and r["stack"] == "env()":
            verdicts.append(
                {
                    "target": f"{r['game']}: our AEC step >= {TARGET_STEP_RATIO:g}x PettingZoo's",
                    "value": r["step_ratio"],
                    "met": r["step_ratio"] >= TARGET_STEP_RATIO,
                }
            )
    c4 = next(r for r in playouts if r["game"] == "connect four")
    verdicts.append(
        {
            "target": f"Connect Four core playouts >= {TARGET_C4_PLAYOUTS:,.0f} games/s",
            "value": c4["playouts_per_s"],
            "met": c4["playouts_per_s"] >= TARGET_C4_PLAYOUTS,
        }
    )
    return verdicts


def main(argv: list[str] | None = None) -> None:
    """Run the three env benchmarks, print their tables, optionally save JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="3 repeats of ~0.15 s (smoke test)")
    parser.add_argument("--repeats", type=int, default=None, help="repeats (default 5)")
    parser.add_argument("--json", metavar="PATH", help="save the results as JSON")
    args = parser.parse_args(argv)
    repeats = args.repeats or (3 if args.quick else 5)
    target_s = 0.15 if args.quick else 0.4
    info = machine_info()
    print_machine(info)
    start = perf_counter()

    print(f"\n## (a) AEC env.step per second, random legal games (median of {repeats})\n")
    aec = bench_aec(repeats, target_s)
    print_aec(aec)

    print(f"\n## (b) save_state + restore_state, mid-game (median of {repeats})\n")
    snapshots = bench_snapshots(repeats, target_s)
    print_snapshots(snapshots)

    print(f"\n## (c) random playouts from the initial position, one core (median of {repeats})\n")
    playouts = bench_playouts(repeats, target_s)
    print_playouts(playouts)

    verdicts = targets(aec, playouts)
    print("\n## targets\n")
    for v in verdicts:
        print(f"- {v['target']}: {v['value']:,.2f} -> {'met' if v['met'] else 'NOT met'}")
    total = perf_counter() - start
    end_load = load_average()
    print(f"\n# total {total:.0f} s; load average at end: {end_load}")
    if args.json:
        data = {
            "benchmark": "envs",
            "machine": info,
            "repeats": repeats,
            "quick": args.quick,
            "aec": aec,
            "snapshots": snapshots,
            "playouts": playouts,
            "targets": verdicts,
            "total_s": total,
            "loadavg_at_end": end_load,
        }
        write_json(args.json, data)


if __name__ == "__main__":
    main()
