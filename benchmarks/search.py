"""MCTS simulations per second from the initial position: ours vs OpenSpiel (Python and C++).

Run from the repository root::

    python -m benchmarks.search [--quick] [--repeats N] [--json PATH] [--profile]

For tic-tac-toe, Connect Four, Othello and ultimate tic-tac-toe, one search from the initial
position by (OpenSpiel's ultimate tic-tac-toe starts with a choice of board, a move of its own):

- ours, ``MCTSAgent(iterations=n, c=2, solver=..., playout="random", backend="python")
  .search(env)`` on our wrapped env ("agent": uniform random playouts, like OpenSpiel's), the
  same with our default decisive playouts ("agent, decisive": fewer, stronger simulations)
  and with root parallelism over 2 processes ("agent, workers=2"); where the game has a
  compiled kernel the same with ``backend="numba"``, random and decisive
  playouts ("agent, numba": every game on the one tree core, ``mcts_agents.compiled.core``);
  and
  ``MCTS(Budget(iterations=n), SearchConfig(c=2, solver=...)).search(game, state)`` on the
  rules core ("core"); a fresh agent / ``MCTS`` for every search, so nothing is reused;
- OpenSpiel's Python ``open_spiel.python.algorithms.mcts.MCTSBot`` and C++ ``pyspiel.MCTSBot``,
  ``uct_c=2``, one random rollout per leaf, ``solve`` off and on.

Simulations/s = simulations run / wall time of the search. OpenSpiel's searches are timed on
``mcts_search(state)`` (all of ``step()`` except picking the most visited child) and counted by
the root's ``explore_count``; ours by ``SearchResult.iterations``. With the solver on, a
search stops early once the root is proven (our solver proves tic-tac-toe a draw in ~8k
simulations), so the count can be below the budget: the "sims" column shows what ran.

Also our agent on PettingZoo's own ``connect_four_v3`` through ``game_from_env``: the generic
cloning adapter in the runs recorded before 2026-11-23, our Connect Four rules core since
(``adapters.pettingzoo_classic``; Python search, as ``backend`` is ``python`` here).
``--profile`` adds a cProfile of one core search on Connect Four (top functions by tottime).
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from time import perf_counter
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # `python benchmarks/search.py` too

import numpy as np
import pyspiel
from open_spiel.python.algorithms import mcts as os_mcts
from pettingzoo.classic import connect_four_v3

from benchmarks._common import (
    fmt,
    load_average,
    machine_info,
    median,
    print_machine,
    print_table,
    spread,
    write_json,
)
from mcts_agents import Budget, MCTSAgent, SearchConfig
from mcts_agents.envs import connect_four_v0, othello_v0, tic_tac_toe_v0, ultimate_tic_tac_toe_v0
from mcts_agents.search import MCTS

C = 2.0  # exploration constant, ours and OpenSpiel's (both on returns in [-1, 1])
CPP_MAX_MEMORY_MB = 4000  # far above what these searches need: the tree is never capped


@dataclass(frozen=True)
class GameSpec:
    """One game and the simulation budget of each implementation (~0.3-2 s per search here)."""

    label: str
    make_env: Callable[[], Any]
    openspiel_name: str
    ours: int
    python: int
    cpp: int
    compiled: int | None = None  # our compiled kernel (numba), where the game has one


GAMES: tuple[GameSpec, ...] = (
    GameSpec("tic-tac-toe", tic_tac_toe_v0.env, "tic_tac_toe", 20_000, 20_000, 500_000, 1_000_000),
    GameSpec("connect four", connect_four_v0.env, "connect_four", 20_000, 10_000, 200_000, 200_000),
    GameSpec("othello", othello_v0.env, "othello", 3_000, 2_000, 5_000, 50_000),
    GameSpec(
        "ultimate tic-tac-toe",
        ultimate_tic_tac_toe_v0.env,
        "ultimate_tic_tac_toe",
        3_000,
        2_000,
        20_000,
        100_000,
    ),
)
ADAPTER_SIMS = 1_000  # our agent on PettingZoo's connect_four_v3 (see the docstring)

#: A measurement: run one search with this seed, return (simulations, seconds).
Runner = Callable[[int], tuple[int, float]]


@dataclass
class Variant:
    """One row of the table: an implementation on a game, solver off or on."""

    game: str
    impl: str
    solver: bool
    budget: int
    run: Runner
    baseline: str  # the OpenSpiel game the ratios compare against


# ---------------------------------------------------------------------------- runners
def ours_agent(
    make_env: Callable[[], Any],
    sims: int,
    solver: bool,
    playout: str = "random",
    workers: int = 1,
    backend: str = "python",
) -> Runner:
    """``MCTSAgent.search(env)`` from the initial position, a fresh agent per search.

    With ``workers > 1`` one agent is kept (its worker processes start once) and ``reset``
    before every search, so no tree is reused either way.
    """
    kept: list[MCTSAgent] = []

    def run(seed: int) -> tuple[int, float]:
        env = make_env()
        env.reset(seed=seed)
        if workers == 1:
            agent = MCTSAgent(
                iterations=sims, seed=seed, solver=solver, c=C, playout=playout, backend=backend
            )
        else:
            if not kept:
                kept.append(
                    MCTSAgent(
                        iterations=sims,
                        seed=seed,
                        solver=solver,
                        c=C,
                        playout=playout,
                        workers=workers,
                        backend=backend,
                    )
                )
                kept[0].search(env)  # start the worker processes outside the timing
            agent = kept[0]
            agent.reset(seed=seed)
        start = perf_counter()
        result = agent.search(env)
        return result.iterations, perf_counter() - start

    return run


def ours_core(make_env: Callable[[], Any], sims: int, solver: bool) -> Runner:
    """``MCTS(...).search(game, state)`` on the rules core, a fresh ``MCTS`` per search."""
    game = make_env().unwrapped.game

    def run(seed: int) -> tuple[int, float]:
        search = MCTS(
            Budget(iterations=sims),
            SearchConfig(c=C, solver=solver, playout="random", backend="python"),
            seed,
        )
        state = game.initial_state()
        start = perf_counter()
        result = search.search(game, state)
        return result.iterations, perf_counter() - start

    return run


def openspiel_python(name: str, sims: int, solve: bool) -> Runner:
    """OpenSpiel's Python ``MCTSBot``: one ``mcts_search`` from the initial state."""
    game = pyspiel.load_game(name)

    def run(seed: int) -> tuple[int, float]:
        evaluator = os_mcts.RandomRolloutEvaluator(
            n_rollouts=1, random_state=np.random.RandomState(seed)
        )
        bot = os_mcts.MCTSBot(
            game,
            C,
            sims,
            evaluator,
            solve=solve,
            random_state=np.random.RandomState(seed + 1),
        )
        state = game.new_initial_state()
        start = perf_counter()
        root = bot.mcts_search(state)
        return root.explore_count, perf_counter() - start

    return run


def openspiel_cpp(name: str, sims: int, solve: bool) -> Runner:
    """OpenSpiel's C++ ``pyspiel.MCTSBot``: one ``mcts_search`` from the initial state."""
    game = pyspiel.load_game(name)

    def run(seed: int) -> tuple[int, float]:
        evaluator = pyspiel.RandomRolloutEvaluator(1, seed)
        bot = pyspiel.MCTSBot(game, evaluator, C, sims, CPP_MAX_MEMORY_MB, solve, seed + 1, False)
        state = game.new_initial_state()
        start = perf_counter()
        root = bot.mcts_search(state)
        return root.explore_count, perf_counter() - start

    return run


def variants() -> list[Variant]:
    """Every row of the benchmark, in table order."""
    rows = []
    for g in GAMES:
        for solver in (False, True):
            rows += [
                Variant(
                    g.label,
                    "ours agent",
                    solver,
                    g.ours,
                    ours_agent(g.make_env, g.ours, solver),
                    g.label,
                ),
                Variant(
                    g.label,
                    "ours core",
                    solver,
                    g.ours,
                    ours_core(g.make_env, g.ours, solver),
                    g.label,
                ),
                Variant(
                    g.label,
                    "ours agent, decisive",
                    solver,
                    g.ours,
                    ours_agent(g.make_env, g.ours, solver, playout="decisive"),
                    g.label,
                ),
                Variant(
                    g.label,
                    "ours agent, workers=2",
                    solver,
                    g.ours,
                    ours_agent(g.make_env, g.ours, solver, workers=2),
                    g.label,
                ),
                Variant(
                    g.label,
                    "OpenSpiel Python",
                    solver,
                    g.python,
                    openspiel_python(g.openspiel_name, g.python, solver),
                    g.label,
                ),
                Variant(
                    g.label,
                    "OpenSpiel C++",
                    solver,
                    g.cpp,
                    openspiel_cpp(g.openspiel_name, g.cpp, solver),
                    g.label,
                ),
            ]
            if g.compiled is not None:
                rows += [
                    Variant(
                        g.label,
                        "ours agent, numba",
                        solver,
                        g.compiled,
                        ours_agent(g.make_env, g.compiled, solver, backend="numba"),
                        g.label,
                    ),
                    Variant(
                        g.label,
                        "ours agent, numba, decisive",
                        solver,
                        g.compiled,
                        ours_agent(
                            g.make_env, g.compiled, solver, playout="decisive", backend="numba"
                        ),
                        g.label,
                    ),
                ]
    for solver in (False, True):
        rows.append(
            Variant(
                "PZ connect_four_v3",
                "ours agent (adapter)",
                solver,
                ADAPTER_SIMS,
                ours_agent(connect_four_v3.env, ADAPTER_SIMS, solver),
                "connect four",
            )
        )
    return rows


# ---------------------------------------------------------------------------- measuring
def measure(rows: list[Variant], repeats: int) -> list[dict[str, Any]]:
    """Median simulations/s of every row; the repeats of all rows are interleaved."""
    for v in rows:  # warm-up: imports, caches, the first allocation of big tables
        v.run(12345)
    samples: list[list[tuple[int, float]]] = [[] for _ in rows]
    for repeat in range(repeats):
        for i, v in enumerate(rows):
            samples[i].append(v.run(repeat))
    results: list[dict[str, Any]] = []
    for v, runs in zip(rows, samples, strict=True):
        rates = [sims / seconds for sims, seconds in runs]
        results.append(
            {
                "game": v.game,
                "impl": v.impl,
                "solver": v.solver,
                "budget": v.budget,
                "sims_median": median([s for s, _ in runs]),
                "seconds_median": median([t for _, t in runs]),
                "sims_per_s": median(rates),
                "spread": spread(rates),
                "baseline": v.baseline,
            }
        )
    for r in results:
        for impl, field in (("OpenSpiel Python", "vs_python"), ("OpenSpiel C++", "vs_cpp")):
            ref = next(
                x
                for x in results
                if x["game"] == r["baseline"] and x["impl"] == impl and x["solver"] == r["solver"]
            )
            r[field] = r["sims_per_s"] / ref["sims_per_s"]
    return results


def print_results(results: list[dict[str, Any]]) -> None:
    """The table: one row per implementation, game and solver setting."""
    rows = [
        [
            r["game"],
            r["impl"],
            "on" if r["solver"] else "off",
            fmt(r["sims_median"]),
            f"{r['seconds_median']:.2f}",
            fmt(r["sims_per_s"]),
            f"{r['vs_python']:.2f}x",
            f"{r['vs_cpp']:.3f}x",
            f"{100 * r['spread']:.0f}%",
        ]
        for r in results
    ]
    print_table(
        [
            "game",
            "implementation",
            "solver",
            "sims",
            "s",
            "sims/s",
            "vs OS Py",
            "vs OS C++",
            "spread",
        ],
        rows,
        left=3,
    )


def profile_connect_four(sims: int, top: int = 15) -> str:
    """cProfile of one core search on Connect Four (solver on): top functions by tottime."""
    game = connect_four_v0.raw_env().game
    search = MCTS(Budget(iterations=sims), SearchConfig(c=C, solver=True, backend="python"), 0)
    profiler = cProfile.Profile()
    profiler.enable()
    search.search(game, game.initial_state())
    profiler.disable()
    out = io.StringIO()
    pstats.Stats(profiler, stream=out).sort_stats("tottime").print_stats(top)
    return out.getvalue()


def main(argv: list[str] | None = None) -> None:
    """Run every search, print the table, optionally save JSON and a profile."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="2 repeats instead of 5")
    parser.add_argument("--repeats", type=int, default=None, help="repeats (default 5)")
    parser.add_argument("--json", metavar="PATH", help="save the results as JSON")
    parser.add_argument(
        "--profile", action="store_true", help="also cProfile one Connect Four core search"
    )
    args = parser.parse_args(argv)
    repeats = args.repeats or (2 if args.quick else 5)
    info = machine_info()
    print_machine(info)
    start = perf_counter()
    print(f"\n## MCTS simulations/s from the initial position, c = {C:g} (median of {repeats})\n")
    results = measure(variants(), repeats)
    print_results(results)
    profile = None
    if args.profile:
        profile = profile_connect_four(20_000)
        print("\n## cProfile: ours core, Connect Four, 20,000 simulations, solver on\n")
        print(profile)
    total = perf_counter() - start
    end_load = load_average()
    print(f"\n# total {total:.0f} s; load average at end: {end_load}")
    if args.json:
        data = {
            "benchmark": "search",
            "machine": info,
            "repeats": repeats,
            "quick": args.quick,
            "c": C,
            "results": results,
            "profile": profile,
            "total_s": total,
            "loadavg_at_end": end_load,
        }
        write_json(args.json, data)


if __name__ == "__main__":
    main()
