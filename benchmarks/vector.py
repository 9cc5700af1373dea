"""Vector envs against MCTS: learner steps/s of the native vector env and of Gymnasium's.

Run from the repository root (a quiet machine; the full grid takes many minutes)::

    python -m benchmarks.vector [--quick] [--games connect_four,othello,tic_tac_toe]
        [--num-envs 16,64,256] [--cores 2,1] [--steps 20] [--repeats 3] [--json PATH]
        [--chunksizes 0,1]

The scaling targets' figures (issue 39; a few minutes on 2 cores)::

    python -m benchmarks.vector --games connect_four --num-envs 256 --cores 2,1 \
        --modes native,sync --steps 10 --repeats 5

For each game (opponent: Connect Four 100 iterations, Othello 200, tic-tac-toe 100), number of
sub-envs ``N`` and number of cores, side by side in one process:

- ``native``: ``gymnasium.make_vec(id, num_envs=N)`` (the ``vector_entry_point``,
  ``rl.vector.VectorVsOpponent``: the boards as rules' words, ``rl.boards``, every opponent
  search of a step in one parallel kernel call);
- ``sync``: ``make_vec(..., vectorization_mode="sync")`` over the single-env wrapper (the
  searches one after another);
- ``async``: ``make_vec(..., vectorization_mode="async")`` (one process per sub-env; only for
  ``N <= --async-max``, as each process loads the kernels).

The learner plays uniformly random legal moves (from ``action_masks()``), seeded. Learner steps
per second are medians of ``--repeats`` runs of ``--steps`` steps of every sub-env, after one
warm-up step; the modes of a row run in turn, repeat by repeat, and ``x sync``/``x async`` are
the medians of the ratios of runs made side by side (a load change hits both). For
``native``, the time inside the batch kernel calls is measured too:
``kernel bound`` is the learner steps/s that the kernel calls alone would allow for the same
simulations (N x iterations over the batched kernel's simulations per second on those cores,
i.e. steps over the seconds spent in the kernel calls), and ``kernel share`` the steps/s
reached over that bound (the seconds in the kernel over the whole step time; the target is
>= 0.8). The native env's kernel call (``board_search.run_kernel``) is the whole search of
every tree (its seed set, its root found or re-rooted, its simulations, its move: one compiled
call, in parallel over the trees). ``search share`` is the same for the whole batched searches
(seeds drawn, kernel, trees grown); ``sync kernel share`` is the share of ``sync``'s time in its
own kernel calls (one tree each, the simulations only: ``CompiledSearch._run``): with the same
kernel, no batching can beat ``sync`` by more than the cores used over ``sync kernel share`` (a
little more here: its roots and moves are outside its share). The cores
are those the process may run on (``os.sched_setaffinity``, inherited by ``async`` workers)
and numba's thread count; the core counts of ``--cores`` take turns within each repeat (a load
change hits them all), and where there are several, a second table gives, for each core count,
the medians of the ratios over the fewest cores' runs of the same repeat: the kernel bound, the
native and the sync steps/s (the targets: the kernel bound's and native's ratios near the
cores'), beside the 1-minute load averages at those runs (the cores other work took). ``cpu``:
the process's CPU seconds per second of the steps (cores kept busy); ``others``: the same for
every thread but the main one (``sync``'s searches run on the main thread alone, so anything
there is some library's threads at work). ``--chunksizes``: the kernels' parallel chunk sizes to
try (``compiled.threads.CHUNK_SIZE``, the library's 1 by default: blocks of ``k`` trees handed
out to the threads as they finish; 0 splits the trees into one static block per thread).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from time import perf_counter
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # `python benchmarks/...` too

import gymnasium
import numpy as np

from benchmarks._common import fmt, machine_info, median, print_machine, print_table, write_json
from mcts_agents.compiled import threads
from mcts_agents.rl import gym_id

ITERATIONS = {"connect_four": 100, "othello": 200, "tic_tac_toe": 100}
MODES = ("native", "sync", "async")
#: The batch kernels' calls (``_for_game`` calls ``batch.run_trees``, compiled per game).
KERNELS = ("_for_game", "run_kernel")
#: The whole batched searches: roots, kernels, moves or results.
SEARCHES = ("_search_group", "BoardSearch.moves")


class Timer:
    """Wraps a function and adds the seconds spent in it to ``seconds``."""

    def __init__(self, function: Callable[..., Any]) -> None:
        self.function = function
        self.seconds = 0.0

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        start = perf_counter()
        try:
            return self.function(*args, **kwargs)
        finally:
            self.seconds += perf_counter() - start


def instrument() -> dict[str, Timer]:
    """Time the batch kernels and the batched searches (module attributes, looked up per
    call): the AEC path's (``compiled.batch``) and the words' (``compiled.board_search``)."""
    from mcts_agents.compiled import batch, board_search

    timers = {}
    places = [(batch, name) for name in (*KERNELS[:1], "_search_group")]
    for module, name in [*places, (board_search, "run_kernel")]:
        function = getattr(module, name)
        timer = function if isinstance(function, Timer) else Timer(function)
        setattr(module, name, timer)
        timers[name] = timer
    searches: Any = board_search.BoardSearch
    if not hasattr(searches.moves, "timer"):
        timer = Timer(searches.moves)

        def moves(self: Any, *args: Any) -> Any:
            return timer(self, *args)

        moves.timer = timer  # type: ignore[attr-defined]
        searches.moves = moves
    timers["BoardSearch.moves"] = searches.moves.timer
    return timers


def instrument_single() -> dict[str, Timer]:
    """Time the single searchers' kernel calls (``CompiledSearch._run``: ``sync``'s searches,
    one tree at a time)."""
    from mcts_agents.compiled.searcher import CompiledSearch

    timers = {}
    for kind in (CompiledSearch,):
        method: Any = kind.__dict__["_run"]
        if not hasattr(method, "timer"):
            timer = Timer(method)

            def run(self: Any, *args: Any, _timer: Timer = timer) -> Any:
                return _timer(self, *args)

            run.timer = timer  # type: ignore[attr-defined]
            kind._run = run  # type: ignore[method-assign]
            method = run
        timers[kind.__name__] = method.timer
    return timers


def masks_of(env: Any) -> np.ndarray:
    if hasattr(env, "action_masks"):
        return np.asarray(env.action_masks())
    return np.stack(env.call("action_masks"))


def process_cpu() -> float:
    """CPU seconds of every thread of this process so far."""
    times = os.times()
    return times.user + times.system


def play(
    env: Any, steps: int, seed: int, timers: dict[str, Timer]
) -> tuple[float, dict[str, float]]:
    """Seconds for ``steps`` steps of random legal learner moves (after reset and one step),
    the seconds each timer counted in them, and (``"cpu"``, ``"main cpu"``) the CPU seconds of
    the process and of this thread in them."""
    rng = np.random.default_rng(seed)

    def pick() -> np.ndarray:  # a uniform legal action per row (0 where none), vectorised
        masks = masks_of(env)
        return np.asarray((rng.random(masks.shape) * masks).argmax(axis=1))

    env.reset(seed=seed)
    env.step(pick())  # warm-up: kernels loaded, tables allocated
    before = {name: t.seconds for name, t in timers.items()}
    cpu, main_cpu = process_cpu(), time.thread_time()
    start = perf_counter()
    for _ in range(steps):
        env.step(pick())
    seconds = perf_counter() - start
    spent = {name: t.seconds - before[name] for name, t in timers.items()}
    spent["cpu"], spent["main cpu"] = process_cpu() - cpu, time.thread_time() - main_cpu
    return seconds, spent


def run(
    game: str, mode: str, num_envs: int, steps: int, seed: int, iterations: int | None = None
) -> dict[str, Any]:
    """One measurement: learner steps/s (and the native env's kernel and search shares)."""
    opponent = f"mcts:iterations={iterations or ITERATIONS.get(game, 100)}"
    kwargs: dict[str, Any] = {"opponent": opponent}
    if mode != "native":
        kwargs["vectorization_mode"] = mode
    env = gymnasium.make_vec(gym_id(game), num_envs=num_envs, **kwargs)
    timers = {"native": instrument, "sync": instrument_single}.get(mode, dict)()
    try:
        seconds, spent = play(env, steps, seed, timers)
    finally:
        env.close()
    report: dict[str, Any] = {"steps_per_s": num_envs * steps / seconds, "seconds": seconds}
    report["cpu"] = spent.pop("cpu") / seconds  # cores kept busy (async: the parent's only)
    report["others"] = report["cpu"] - spent.pop("main cpu") / seconds
    report["load"] = os.getloadavg()[0] if hasattr(os, "getloadavg") else 0.0
    if mode == "native":
        kernel = sum(spent[name] for name in KERNELS)
        report["kernel_share"] = kernel / seconds
        report["kernel_bound"] = num_envs * steps / kernel
        report["search_share"] = sum(spent[name] for name in SEARCHES) / seconds
    elif mode == "sync":  # the single searches' kernel time over the whole step time
        report["kernel_share"] = sum(spent.values()) / seconds
    return report


#: the CPUs this process may use when it starts (``set_cores`` narrows the main thread's set;
#: reading it back after a narrower row would never widen it again).
CPUS = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []


def set_cores(cores: int, chunksize: int = threads.CHUNK_SIZE) -> None:
    """Run on the first ``cores`` CPUs this process may use, with as many numba threads, and
    the kernels' parallel chunk size ``chunksize`` (``compiled.threads.CHUNK_SIZE``; 0: one
    static block of trees per thread).

    numba's thread pool starts at the first parallel call and its threads keep the affinity the
    main thread had then, so ``main`` runs the widest setting first: a pool started on one CPU
    would run every later row on that CPU (found: the 2-core rows of a 1-then-2 run measured
    the same as the 1-core rows). With fewer threads than the pool's, the pool's other threads
    sleep and the kernels run on the main thread's CPUs (one thread: the serial kernels)."""
    import numba

    if CPUS:
        os.sched_setaffinity(0, CPUS[:cores])
    numba.set_num_threads(min(cores, numba.config.NUMBA_NUM_THREADS))
    threads.CHUNK_SIZE = chunksize  # the kernels set it around each call


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", default="connect_four,othello,tic_tac_toe")
    parser.add_argument("--num-envs", default="16,64,256")
    parser.add_argument("--cores", default="2,1")
    parser.add_argument("--modes", default=",".join(MODES))
    parser.add_argument("--steps", type=int, default=20, help="timed steps per repeat")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--async-max", type=int, default=16, help="largest N run async")
    parser.add_argument("--iterations", type=int, default=None, help="override the budgets")
    parser.add_argument(
        "--chunksizes",
        default=str(threads.CHUNK_SIZE),
        help="numba parallel chunk sizes to try (default: the library's)",
    )
    parser.add_argument("--quick", action="store_true", help="C4, N=16, 2 cores, 3 steps")
    parser.add_argument("--json", default=None, help="save the results here")
    args = parser.parse_args(argv)
    if args.quick:
        args.games, args.num_envs, args.cores, args.steps, args.repeats = (
            "connect_four", "16", "2", 3, 1,
        )  # fmt: skip
    info = machine_info()
    print_machine(info)
    cores_list = sorted({int(c) for c in args.cores.split(",")}, reverse=True)
    rows = [
        (game, int(n), int(chunk))
        for game in args.games.split(",")
        for n in args.num_envs.split(",")
        for chunk in args.chunksizes.split(",")
    ]
    runs: dict[tuple[Any, ...], list[dict[str, Any]]] = {}
    for seed in range(args.repeats):  # a load change hits every setting of a repeat
        for game, num_envs, chunk in rows:
            modes = [m for m in args.modes.split(",") if m != "async" or num_envs <= args.async_max]
            for cores in cores_list:  # the widest first: numba's threads start on every CPU
                set_cores(cores, chunk)
                for mode in modes:
                    runs.setdefault((game, num_envs, chunk, cores, mode), []).append(
                        run(game, mode, num_envs, args.steps, seed, args.iterations)
                    )
    results = [
        summarize(runs, game, num_envs, chunk, cores)
        for game, num_envs, chunk in rows
        for cores in cores_list
    ]
    print_results(results)
    scaling = [
        scale(runs, game, num_envs, chunk, cores, cores_list[-1])
        for game, num_envs, chunk in rows
        for cores in cores_list[:-1]
    ]
    if scaling:
        print_scaling(scaling)
    info["numba"] = numba_settings()
    print(f"# numba: {info['numba']}")
    data = {
        "machine": info, "results": results, "scaling": scaling, "steps": args.steps,
        "repeats": args.repeats,
    }  # fmt: skip
    if args.json:
        write_json(args.json, data)
    return data


def summarize(
    runs: dict[tuple[Any, ...], list[dict[str, Any]]], game: str, n: int, chunk: int, cores: int
) -> dict[str, Any]:
    """One row: each mode's medians, and the medians of native's ratios over the other modes'
    runs of the same repeats."""
    found = {
        mode: {key: median([r[key] for r in rs]) for key in rs[0] if key != "seconds"}
        for (g, size, k, c, mode), rs in runs.items()
        if (g, size, k, c) == (game, n, chunk, cores)
    }
    native = runs.get((game, n, chunk, cores, "native"))
    ratios = {
        mode: median(
            [
                a["steps_per_s"] / b["steps_per_s"]
                for a, b in zip(native, runs[(game, n, chunk, cores, mode)], strict=True)
            ]
        )
        for mode in found
        if mode != "native" and native
    }
    return {
        "game": game, "num_envs": n, "chunksize": chunk, "cores": cores, **found,
        "ratios": ratios,
    }  # fmt: skip


def scale(
    runs: dict[tuple[Any, ...], list[dict[str, Any]]],
    game: str,
    n: int,
    chunk: int,
    cores: int,
    base: int,
) -> dict[str, Any]:
    """``cores`` against ``base`` cores: the medians of the ratios of runs of the same repeat
    (the kernel bound, native and sync steps/s), and the runs' load averages."""
    row: dict[str, Any] = {
        "game": game, "num_envs": n, "chunksize": chunk, "cores": cores, "base": base,
    }  # fmt: skip
    for mode, key in (
        ("native", "kernel_bound"),
        ("native", "steps_per_s"),
        ("sync", "steps_per_s"),
    ):
        wide, narrow = (
            runs.get((game, n, chunk, cores, mode)),
            runs.get((game, n, chunk, base, mode)),
        )
        if wide and narrow:
            name = "kernel_bound" if key == "kernel_bound" else mode
            pairs = zip(wide, narrow, strict=True)
            row[name] = median([a[key] / b[key] for a, b in pairs])
            row[f"{name}_loads"] = [round(r["load"], 2) for r in (*wide, *narrow)]
    return row


def print_results(results: list[dict[str, Any]]) -> None:
    table = []
    for r in results:
        native, sync = r.get("native", {}), r.get("sync", {})
        table.append(
            [
                r["game"], str(r["num_envs"]), str(r["chunksize"]), str(r["cores"]),
                *(fmt(r.get(m, {}).get("steps_per_s")) for m in MODES),
                *(fmt(r["ratios"].get(m), 1) for m in ("sync", "async")),
                fmt(native.get("kernel_share"), 2), fmt(native.get("kernel_bound")),
                fmt(native.get("search_share"), 2), fmt(native.get("cpu"), 2),
                fmt(sync.get("kernel_share"), 2), fmt(sync.get("others"), 2),
                fmt(max((m.get("load", 0.0) for m in (native, sync)), default=None), 2),
            ]
        )  # fmt: skip
    print_table(
        [
            "game", "N", "chunk", "cores", "native steps/s", "sync steps/s", "async steps/s",
            "x sync", "x async", "kernel share", "kernel bound", "search share", "native cpu",
            "sync kernel share", "sync others", "load",
        ],
        table,
    )  # fmt: skip


def print_scaling(scaling: list[dict[str, Any]]) -> None:
    def loads(row: dict[str, Any], name: str) -> str:
        values = row.get(f"{name}_loads")
        return f"{min(values):.2f}-{max(values):.2f}" if values else "-"

    print()
    print_table(
        [
            "game", "N", "chunk", "cores", "vs", "kernel bound x", "native x", "sync x",
            "loads (native runs)", "loads (sync runs)",
        ],
        [
            [
                r["game"], str(r["num_envs"]), str(r["chunksize"]), str(r["cores"]),
                str(r["base"]), fmt(r.get("kernel_bound"), 2), fmt(r.get("native"), 2),
                fmt(r.get("sync"), 2), loads(r, "native"), loads(r, "sync"),
            ]
            for r in scaling
        ],
    )  # fmt: skip


def numba_settings() -> dict[str, Any]:
    """numba's threading layer (once a parallel call chose it), its thread count and the
    OpenMP wait policy in effect."""
    import numba

    try:
        layer = numba.threading_layer()
    except ValueError:  # no parallel call yet
        layer = None
    return {
        "threading_layer": layer,
        "NUMBA_NUM_THREADS": numba.config.NUMBA_NUM_THREADS,
        "OMP_WAIT_POLICY": os.environ.get("OMP_WAIT_POLICY"),
    }


if __name__ == "__main__":
    main()
