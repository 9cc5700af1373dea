"""ISMCTS on PettingZoo's rlcard poker: the rules cores against the old clone path, side by side.

``python -m benchmarks.imperfect pettingzoo`` runs it (``imperfect.py`` owns the command line).
For each env, at seeded decisions (the first one, and for hold'em one on the flop): simulations
per second of the same MO-ISMCTS (``make_searcher``, default options) on

- the rules core (``RLCardLeduc``, ``LimitHoldem``, ``NoLimitHoldem``) with the search the
  factory picks (``backend="auto"``: the compiled ``CompiledISMCTS`` or ``HoldemISMCTS``, what
  ``MCTSAgent.act(env)`` searches now), ``COMPILED_ITERATIONS`` a search,
- the same core with the Python ``ISMCTS`` (``backend="python"``, what ran before the compiled
  hold'em search), ``CORE_ITERATIONS`` a search,
- the clone path (``rlcard_game(env, raw, clone=True)``: ``RLCardGame``, what ran before the
  cores), ``CLONE_ITERATIONS`` a search,

and ``MCTSAgent(...).act(env)`` end to end on the core (the reading of the env included).
Repeats are interleaved so that load from elsewhere hits every row alike; medians are shown.
"""

from __future__ import annotations

import warnings
from time import perf_counter
from typing import Any

from benchmarks._common import median, print_table
from mcts_agents import Budget, MCTSAgent, SearchConfig, make_searcher
from mcts_agents.adapters import game_from_env
from mcts_agents.adapters.rlcard import rlcard_game

#: label -> (PettingZoo module name, moves played from the deal before the measured decision)
POSITIONS: dict[str, tuple[str, list[int]]] = {
    "leduc_holdem_v4, first decision": ("leduc_holdem_v4", []),
    "texas_holdem_v4, first decision": ("texas_holdem_v4", []),
    "texas_holdem_v4, on the flop": ("texas_holdem_v4", [0, 3]),
    "texas_holdem_no_limit_v6, first decision": ("texas_holdem_no_limit_v6", []),
    "texas_holdem_no_limit_v6, on the flop": ("texas_holdem_no_limit_v6", [1, 1]),
}
CORE_ITERATIONS = 20_000
COMPILED_ITERATIONS = 200_000
CLONE_ITERATIONS = 200


def _env(name: str, moves: list[int], seed: int) -> Any:
    import importlib

    module = importlib.import_module(f"pettingzoo.classic.{name}")
    env = module.env()
    env.reset(seed=seed)
    for action in moves:
        env.step(action)
    return env


def _rate(
    game: Any, state: Any, iterations: int, seed: int, backend: str = "auto"
) -> tuple[float, str]:
    """Simulations per second of one search, and the searcher's class name."""
    searcher = make_searcher(game, Budget(iterations=iterations), SearchConfig(backend=backend),
                             seed)  # fmt: skip
    started = perf_counter()
    result = searcher.search(game, state)
    return result.iterations / (perf_counter() - started), type(searcher).__name__


def pettingzoo_speed(repeats: int = 5, seed: int = 0) -> list[dict[str, Any]]:
    """The table described in the module docstring; one row per position."""
    warnings.filterwarnings("ignore", category=UserWarning)  # rlcard's Box precision warnings
    rows = []
    for label, (name, moves) in POSITIONS.items():
        runs: dict[str, list[float]] = {"core": [], "python": [], "clone": [], "act": []}
        core_type = searcher = ""
        for r in range(repeats):
            env = _env(name, moves, seed + r)
            clone_game, clone_root = rlcard_game(env, env.unwrapped, clone=True)
            runs["clone"].append(_rate(clone_game, clone_root, CLONE_ITERATIONS, r)[0])
            game, state = game_from_env(env)
            core_type = type(game).__name__
            if core_type == "RLCardGame":
                continue  # no core for this env: the clone path is what runs
            rate, searcher = _rate(game, state, COMPILED_ITERATIONS, r)
            runs["core"].append(rate)
            runs["python"].append(_rate(game, state, CORE_ITERATIONS, r, "python")[0])
            agent = MCTSAgent(iterations=COMPILED_ITERATIONS, seed=r)
            agent.prepare(env)  # the kernel loaded outside the clock
            started = perf_counter()
            agent.act(env)
            runs["act"].append(COMPILED_ITERATIONS / (perf_counter() - started))
        clone = median(runs["clone"])
        core = median(runs["core"]) if runs["core"] else None
        python = median(runs["python"]) if runs["python"] else None
        rows.append(
            {
                "position": label,
                "runs_on": f"{core_type}, {searcher}",
                "core_sims_per_s": core,
                "act_sims_per_s": median(runs["act"]) if runs["act"] else None,
                "python_sims_per_s": python,
                "clone_sims_per_s": clone,
                "compiled_vs_python": None if core is None or python is None else core / python,
                "speedup": None if core is None else core / clone,
                "runs": runs,
            }
        )

    def fmt(x: float | None, spec: str = ",.0f") -> str:
        return "-" if x is None else format(x, spec)

    print_table(
        ["MO-ISMCTS, simulations/s (median)", "core, search", "core, compiled (auto)",
         "act(env), compiled", "core, Python ISMCTS", "clone path", "compiled / Python",
         "compiled / clone"],
        [[r["position"], r["runs_on"], fmt(r["core_sims_per_s"]), fmt(r["act_sims_per_s"]),
          fmt(r["python_sims_per_s"]), fmt(r["clone_sims_per_s"]),
          fmt(r["compiled_vs_python"], ".0f") + ("x" if r["compiled_vs_python"] else ""),
          fmt(r["speedup"], ".0f") + ("x" if r["speedup"] else "")]
         for r in rows],
    )  # fmt: skip
    return rows
