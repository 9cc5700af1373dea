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


def _duel_hand(
    game: Any, deal_seed: int, searchers: list[Any]
) -> tuple[float, list[int], list[int]]:
    """One hand on the core, chance drawn by its own generator seeded with ``deal_seed`` (so the
    same cards come in both seatings), seat ``s`` searched by ``searchers[s]`` and playing what
    ``act`` plays after that search (``agents.agent.play_move``, ``play="auto"``: a move drawn
    from the search's policy, the cards being hidden; its own generator per seat): seat 0's
    return, and each seat's simulations and moves."""
    import random

    from mcts_agents.agents.agent import play_move

    rng = random.Random(deal_seed)
    draws = [random.Random(f"{deal_seed}:{seat}") for seat in (0, 1)]
    state = game.initial_state()
    sims, moves = [0, 0], [0, 0]
    for searcher in searchers:
        searcher.reset()
    while not game.is_terminal(state):
        if game.is_chance(state):
            state = game.next_state(state, game.sample_chance(state, rng))
            continue
        seat = game.to_play(state)
        result = searchers[seat].search(game, state)
        sims[seat] += result.iterations
        moves[seat] += 1
        state = game.next_state(state, play_move(result, "auto", draws[seat]))
    return game.returns(state)[0], sims, moves


def holdem_duel(seconds: float, pairs: int, seed: int = 0) -> list[dict[str, Any]]:
    """The compiled ISMCTS against the Python one at equal time per move, on the limit and
    no-limit hold'em cores (``texas_holdem_v4``'s and ``texas_holdem_no_limit_v6``'s rules),
    default options: ``pairs`` deals, each played twice with the seats swapped (duplicate
    poker: the cards' luck cancels). The compiled side's mean return per hand (big blinds in
    limit, chips in no-limit) with a 95% interval over the pairs, and simulations per move."""
    import statistics

    from mcts_agents.envs.games.limit_holdem import LimitHoldem
    from mcts_agents.envs.games.nolimit_holdem import NoLimitHoldem

    rows = []
    for game in (LimitHoldem(), NoLimitHoldem()):
        budget = Budget(time_limit=seconds)
        compiled = make_searcher(game, budget, SearchConfig(), seed)
        python = make_searcher(game, budget, SearchConfig(backend="python"), seed + 1)
        pair_means = []
        sims = {"compiled": [0, 0], "python": [0, 0]}  # simulations, moves
        for i in range(pairs):
            first, s1, m1 = _duel_hand(game, seed + i, [compiled, python])
            second, s2, m2 = _duel_hand(game, seed + i, [python, compiled])
            pair_means.append((first - second) / 2)
            sims["compiled"][0] += s1[0] + s2[1]
            sims["compiled"][1] += m1[0] + m2[1]
            sims["python"][0] += s1[1] + s2[0]
            sims["python"][1] += m1[1] + m2[0]
        per_move = {k: v[0] / max(1, v[1]) for k, v in sims.items()}
        mean = statistics.fmean(pair_means)
        half = 1.96 * statistics.stdev(pair_means) / len(pair_means) ** 0.5
        rows.append({"game": game.name, "seconds": seconds, "pairs": pairs, "mean": mean,
                     "low": mean - half, "high": mean + half,
                     "sims_per_move": per_move})  # fmt: skip
    print_table(
        ["compiled vs Python ISMCTS, equal time", "s/move", "deals x 2", "compiled's mean return",
         "95% interval", "sims/move compiled", "sims/move Python"],
        [[r["game"], f"{r['seconds']:g}", str(r["pairs"]), f"{r['mean']:+.3f}",
          f"[{r['low']:+.3f}, {r['high']:+.3f}]", f"{r['sims_per_move']['compiled']:,.0f}",
          f"{r['sims_per_move']['python']:,.0f}"] for r in rows],
    )  # fmt: skip
    return rows
