"""Hidden information and chance, side by side with OpenSpiel: exploitability, speed, matches.

Run from the repository root (each part prints a table; ``--json PATH`` saves the results)::

    python -m benchmarks.imperfect exploitability [--games kuhn,leduc] [--iterations 1000,10000]
    python -m benchmarks.imperfect speed
    python -m benchmarks.imperfect headtohead --game leduc_poker --time 0.05,0.25 --count 200
    python -m benchmarks.imperfect observers --games phantom_444,oh_hell --iterations 500 --count 40
    python -m benchmarks.imperfect pig --time 0.1 --count 200
    python -m benchmarks.imperfect pettingzoo
    python -m benchmarks.imperfect holdem --time 0.05 --count 200

- ``exploitability``: for every information state of Kuhn or Leduc poker, one search rooted
  there (a state of that information set, found by walking OpenSpiel's game); the tabular
  policy is the searches' normalised root visits, and OpenSpiel's ``exploitability`` scores it
  (0 is an equilibrium). Ours in several settings, and OpenSpiel's C++ ``ISMCTSBot`` (its
  ``step_with_policy``, normalised and max-visit policies, ``uct_c`` 1 and 2) at the same
  number of simulations per search.
- ``speed``: simulations per second from Leduc's first decision: ours (MO-ISMCTS on our Leduc
  rules), OpenSpiel's Python ``ISMCTSBot`` and its C++ ``ISMCTSBot``; median of 5.
- ``headtohead``: our ``MCTSAgent`` (defaults) against ``pyspiel.ISMCTSBot`` at equal wall time
  per move, both on OpenSpiel's states through Shimmy; ours takes seat ``i % players`` in game
  ``i`` and every other seat is theirs; hearts starts after its passing phase (played at random,
  seeded: their bot crashes while passing). Mean return per game of ours and of theirs (per
  seat) with 95% intervals, and the paired difference.
- ``observers``: MO-ISMCTS, SO-ISMCTS, PIMC and the oracle at equal iterations: a round robin
  on phantom (4,4,4), and on Oh Hell each variant against two MO-ISMCTS agents.
- ``pig``: our search (chance nodes, our Pig rules) against OpenSpiel's C++ ``MCTSBot`` at
  equal wall time on one ``pyspiel`` state; both sides see the same dice (drawn by the
  benchmark's seeded generator and applied to both).
- ``pettingzoo``: ISMCTS on PettingZoo's rlcard poker, the rules cores (the compiled search the
  factory picks, and the Python ``ISMCTS``) against the old clone path side by side
  (``benchmarks/poker_speed.py``).
- ``holdem``: the compiled ISMCTS against the Python one at equal time per move on the limit
  and no-limit hold'em cores, duplicate deals (``poker_speed.holdem_duel``).
"""

from __future__ import annotations

import argparse
import multiprocessing
import random
import statistics
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from time import perf_counter
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # `python benchmarks/imperfect.py`

import numpy as np
import pyspiel

from benchmarks._common import machine_info, median, print_machine, print_table, write_json
from mcts_agents import Budget, MCTSAgent, SearchConfig, make_searcher, play_match, tournament
from mcts_agents.agents.agent import play_move
from mcts_agents.arena.results import mean_interval
from mcts_agents.envs.games.kuhn_poker import KuhnPoker
from mcts_agents.envs.games.leduc_holdem import LeducHoldem
from mcts_agents.envs.games.pig import Pig
from mcts_agents.ratings import wilson_interval

CORES: dict[str, tuple[str, Callable[[], Any]]] = {
    "kuhn": ("kuhn_poker", KuhnPoker),
    "leduc": ("leduc_poker", LeducHoldem),
}
#: Our settings measured for exploitability: label -> SearchConfig options.
OURS: dict[str, dict[str, Any]] = {
    "ours default (compiled, search_from=auto): what act plays": {},
    "ours default but play=best (the argmax act played before)": {"play": "best"},
    "ours MO-ISMCTS, search_from=here": {"search_from": "here"},
    "ours SO-ISMCTS, search_from=here": {"information": "so_ismcts", "search_from": "here"},
    "ours MO-ISMCTS, search_from=start": {"search_from": "start"},
    "ours MO-ISMCTS, start, smooth=0.1, c=1": {"search_from": "start", "smooth": 0.1, "c": 1.0},
}
CORES_BY_SPIEL: dict[str, Callable[[], Any]] = {name: make for name, make in CORES.values()}
CPP_FINAL = {
    "normalised": pyspiel.ISMCTSFinalPolicyType.NORMALIZED_VISIT_COUNT,
    "max-visit": pyspiel.ISMCTSFinalPolicyType.MAX_VISIT_COUNT,
}
UNLIMITED = 10**9


# ----------------------------------------------------------------------- exploitability
def information_states(name: str) -> tuple[Any, dict[str, tuple[int, list[int]]]]:
    """OpenSpiel's game and, per information state string, its player and one history."""
    game = pyspiel.load_game(name)
    found: dict[str, tuple[int, list[int]]] = {}
    stack = [game.new_initial_state()]
    while stack:
        state = stack.pop()
        if state.is_terminal():
            continue
        if state.is_chance_node():
            stack.extend(state.child(a) for a, _ in state.chance_outcomes())
            continue
        player = state.current_player()
        found.setdefault(state.information_state_string(player), (player, state.history()))
        stack.extend(state.child(a) for a in state.legal_actions())
    return game, found


def ours_policy(
    core: Any, infos: dict[str, tuple[int, list[int]]], iterations: int, seed: int,
    time_limit: float | None = None, **options: Any,
) -> dict[str, list[tuple[int, float]]]:  # fmt: skip
    """What our ``act`` plays at every information state (one search each): a draw from the
    search's ``SearchResult.policy`` where ``play`` samples (the default on these games), else
    its ``best_action`` (``play="best"``: a pure strategy).

    A compiled search from the start (``search_from`` "start", or "auto" where it means that)
    builds the same table whichever decision it is asked about (self-play from the deal; only
    the root's empty node is made first), so one search serves every information state: its
    table's visits are read at each (``stored_policy``), and only a decision the self-play left
    with fewer visits than actions gets its own search (which falls back to a search from
    there, as the agent's would). ``time_limit``: that one search's budget instead.
    """
    budget = Budget(iterations=None if time_limit else iterations, time_limit=time_limit)
    config = SearchConfig(**options)
    pure = config.play == "best"
    shared = None
    policy = {}
    for key, (_, history) in infos.items():
        state = core.apply(core.initial_state(), history)
        stored = None
        if pure:
            best = make_searcher(core, budget, config, seed).search(core, state).best_action
            policy[key] = [(a, float(a == best)) for a in sorted(core.legal_actions(state))]
            continue
        if shared is None:
            searcher = make_searcher(core, budget, config, seed)
            if getattr(searcher, "from_start", False) and hasattr(searcher, "stored_policy"):
                shared = searcher
                shared.search(core, state)
        if shared is not None:
            stored = shared.stored_policy(core, state)
        if stored is None:
            searcher = make_searcher(core, budget, config, seed)
            stored = searcher.search(core, state).policy
        policy[key] = [(a, stored.get(a, 0.0)) for a in sorted(core.legal_actions(state))]
    return policy


def cpp_policy(
    game: Any, infos: dict[str, tuple[int, list[int]]], iterations: int, seed: int,
    final: str, uct_c: float,
) -> dict[str, list[tuple[int, float]]]:  # fmt: skip
    """OpenSpiel's C++ ISMCTSBot's policy at every information state (one search each)."""
    policy = {}
    for key, (_, history) in infos.items():
        state = game.new_initial_state()
        for action in history:
            state.apply_action(action)
        bot = pyspiel.ISMCTSBot(
            seed, pyspiel.RandomRolloutEvaluator(1, seed), uct_c, iterations, -1,
            CPP_FINAL[final], False, False,
        )  # fmt: skip
        found = dict(bot.step_with_policy(state)[0])
        policy[key] = [(a, found.get(a, 0.0)) for a in state.legal_actions()]
    return policy


def exploitability(
    games: Sequence[str], iterations: Sequence[int], seeds: int, backend: str = "auto",
    only: str | None = None, time_limit: float | None = None, workers: int = 1,
) -> list[dict]:  # fmt: skip
    """``backend``: ours compiled where it can (``"auto"``) or the Python ISMCTS; ``only``: the
    settings whose label contains it (``"cpp"``: OpenSpiel's only); ``time_limit``: ours only,
    one search of that many seconds per seed (searches from the start only)."""
    rows = []
    searches: list[tuple[str, str, Any]] = [
        ("ours", label + ("" if backend == "auto" else f", backend={backend}"),
         {**o, "backend": backend})
        for label, o in OURS.items()
    ]  # fmt: skip
    searches += [
        ("cpp", f"OpenSpiel C++ ISMCTSBot, {final}, uct_c={c:g}", (final, c))
        for final in CPP_FINAL
        for c in (1.0, 2.0)
    ]
    if only is not None:
        searches = [s for s in searches if only in s[1] or (only == "cpp" and s[0] == "cpp")]
    if time_limit is not None:
        searches = [s for s in searches if s[0] == "ours" and s[2].get("search_from") != "here"]
        iterations = [0]
    for short in games:
        name = CORES[short][0]
        for n in iterations:
            for kind, label, options in searches:
                started = perf_counter()
                tasks = [(short, kind, n, seed, time_limit, options) for seed in range(seeds)]
                if workers > 1:
                    with multiprocessing.get_context("spawn").Pool(min(workers, seeds)) as pool:
                        values = pool.map(_exploitability_of, tasks)
                else:
                    values = [_exploitability_of(task) for task in tasks]
                row = {
                    "game": name,
                    "iterations": n if time_limit is None else f"{time_limit:g} s",
                    "search": label,
                    "exploitability": values,
                    "median": median(values),
                    "seconds": perf_counter() - started,
                }
                rows.append(row)
                print(f"  {name} {n:>7} {label}: {[round(v, 3) for v in values]}", flush=True)
    print_table(
        ["game", "simulations per search", "search", "exploitability (median)", "per seed"],
        [
            [
                r["game"],
                f"{r['iterations']:,}" if isinstance(r["iterations"], int) else r["iterations"],
                r["search"],
                f"{r['median']:.3f}",
                " ".join(f"{v:.3f}" for v in r["exploitability"]),
            ]
            for r in rows
        ],
    )
    return rows


def _exploitability_of(task: tuple) -> float:
    """One seed's exploitability (a pool's task: the game, whose search, budget, seed)."""
    short, kind, n, seed, time_limit, options = task
    name, make = CORES[short]
    game, infos = information_states(name)
    if kind == "ours":
        policy = ours_policy(make(), infos, n, seed, time_limit, **options)
    else:
        policy = cpp_policy(game, infos, n, seed, *options)
    return float(pyspiel.exploitability(game, policy))


# ---------------------------------------------------------------------------- speed
def speed(repeats: int = 5) -> list[dict]:
    core = LeducHoldem()
    state = core.apply(core.initial_state(), [0, 3])
    game = pyspiel.load_game("leduc_poker")
    spiel = game.new_initial_state()
    for action in (0, 3):
        spiel.apply_action(action)

    def ours(n: int, **options: Any) -> Callable[[], float]:
        def run() -> float:
            searcher = make_searcher(core, Budget(iterations=n), SearchConfig(**options), 0)
            result = searcher.search(core, state)
            return result.iterations / result.elapsed

        return run

    def cpp() -> float:
        bot = pyspiel.ISMCTSBot(0, pyspiel.RandomRolloutEvaluator(1, 0), 2.0, 100_000, -1,
                                CPP_FINAL["max-visit"], False, False)  # fmt: skip
        started = perf_counter()
        bot.step(spiel)
        return 100_000 / (perf_counter() - started)

    def python() -> float:
        from open_spiel.python.algorithms import ismcts, mcts

        evaluator = mcts.RandomRolloutEvaluator(1, np.random.RandomState(0))
        bot = ismcts.ISMCTSBot(game, evaluator, 2.0, 4000, random_state=np.random.RandomState(0))
        started = perf_counter()
        bot.step(spiel)
        return 4000 / (perf_counter() - started)

    make_searcher(core, Budget(iterations=10), SearchConfig(), 0)  # load the kernel first
    searches: dict[str, Callable[[], float]] = {
        "ours compiled, default (search_from=auto: from the start at this budget)": ours(2_000_000),
        "ours compiled, MO-ISMCTS, search_from=here": ours(2_000_000, search_from="here"),
        "ours Python, MO-ISMCTS, search_from=here": ours(
            20_000, search_from="here", backend="python"
        ),
        "OpenSpiel Python": python,
        "OpenSpiel C++": cpp,
    }
    runs: dict[str, list[float]] = {k: [] for k in searches}
    for _ in range(repeats):  # interleaved, so that load from elsewhere hits all alike
        for label, run in searches.items():
            runs[label].append(run())
    python_rate = median(runs["OpenSpiel Python"])
    cpp_rate = median(runs["OpenSpiel C++"])
    rows = [
        {"search": k, "sims_per_s": median(v), "vs_python": median(v) / python_rate,
         "vs_cpp": median(v) / cpp_rate, "runs": v}
        for k, v in runs.items()
    ]  # fmt: skip
    print_table(
        ["ISMCTS on Leduc, first decision", "simulations/s (median)", "vs OpenSpiel Python",
         "vs OpenSpiel C++"],
        [[r["search"], f"{r['sims_per_s']:,.0f}", f"{r['vs_python']:.2f}x",
          f"{r['vs_cpp']:.2f}x"] for r in rows],
    )  # fmt: skip
    return rows


# ----------------------------------------------------------------------- head to head
def shimmy_env(name: str, params: dict[str, Any], seed: int) -> Any:
    """Shimmy's env of an OpenSpiel game, counting player moves only towards the game's
    ``max_game_length``. Shimmy 2.0 counts the dealt cards too, though OpenSpiel's bound leaves
    chance out, and so truncates hearts after 11 of its 64 moves (euchre and skat likewise)."""
    from shimmy.openspiel_compatibility import OpenSpielCompatibilityV0

    class PlayerMovesOnly(OpenSpielCompatibilityV0):  # type: ignore[misc]
        def _execute_chance_node(self) -> None:
            moves = self.game_length
            super()._execute_chance_node()
            self.game_length = moves

    env = PlayerMovesOnly(pyspiel.load_game(name, params))
    env.reset(seed=seed)
    env.game_length = 0  # reset counts its deal
    return env


def headtohead_game(task: dict[str, Any]) -> dict[str, Any]:
    """One game: ours in one seat, ``pyspiel.ISMCTSBot`` in the others, equal time per move."""
    name, params, t, seed, seat = (task[k] for k in ("name", "params", "time", "seed", "seat"))
    env = shimmy_env(name, params, seed)
    rng = random.Random(seed)
    spiel = env.unwrapped.game_state
    passes = task["random_plies"] and "No Pass" not in str(spiel).splitlines()[0]
    for _ in range(task["random_plies"] if passes else 0):  # hearts' passing phase
        legal = env.unwrapped.game_state.legal_actions()  # Shimmy keeps the mask in infos
        env.step(int(legal[rng.randrange(len(legal))]))
    core = CORES_BY_SPIEL[name]() if task.get("ours") == "core" else None
    agent = (
        None if core is not None else MCTSAgent(time_limit=t, seed=seed, **task.get("options", {}))
    )
    searcher = None
    if core is not None:
        config = SearchConfig.from_options(task.get("options", {}))
        searcher = make_searcher(core, Budget(time_limit=t), config, seed)
        play_rng = random.Random(f"play {seed}")  # as MCTSAgent's own move draws
    bot = pyspiel.ISMCTSBot(seed, pyspiel.RandomRolloutEvaluator(1, seed), 2.0, UNLIMITED, -1,
                            CPP_FINAL["max-visit"], False, False, t)  # fmt: skip
    seconds = {"ours": 0.0, "theirs": 0.0}
    moves = {"ours": 0, "theirs": 0}
    sims = 0
    for who in env.agent_iter():
        _, _, termination, truncation, _ = env.last()
        if termination or truncation:
            env.step(None)
            continue
        side = "ours" if env.possible_agents.index(who) == seat else "theirs"
        started = perf_counter()
        if side == "ours" and searcher is not None:  # our rules core, fed OpenSpiel's moves
            state = core.apply(core.initial_state(), env.unwrapped.game_state.history())
            result = searcher.search(core, state)
            action, sims = play_move(result, config.play, play_rng), sims + result.iterations
        elif side == "ours" and agent is not None:
            action = agent.act(env)
            sims += agent.last_result.iterations  # type: ignore[union-attr]
        else:
            action = bot.step(env.unwrapped.game_state)
        seconds[side] += perf_counter() - started
        moves[side] += 1
        env.step(action)
    returns = list(env.unwrapped.game_state.returns())
    return {"index": task["index"], "seat": seat, "returns": returns, "seconds": seconds,
            "moves": moves, "ours_sims": sims}  # fmt: skip


def headtohead(
    name: str, times: Sequence[float], games: int, seed: int, workers: int,
    searcher: str = "agent", options: dict[str, Any] | None = None,
) -> list:  # fmt: skip
    """``searcher``: ours, ``"agent"`` (``MCTSAgent`` on Shimmy's env: the Python ISMCTS on
    OpenSpiel's states) or ``"core"`` (Kuhn and Leduc: our searcher on our rules core, which takes
    OpenSpiel's action ids and chance outcomes one to one, replayed from the state's history;
    the compiled ISMCTS by default); ``options``: our ``SearchConfig`` options."""
    params = {"players": 3} if name == "oh_hell" else {}
    players = pyspiel.load_game(name, params).num_players()
    random_plies = 12 if name == "hearts" else 0  # 4 players pass 3 cards each
    rows = []
    for t in times:
        tasks = [
            {
                "index": i,
                "name": name,
                "params": params,
                "time": t,
                "seed": seed + i,
                "seat": i % players,
                "random_plies": random_plies,
                "ours": searcher,
                "options": options or {},
            }
            for i in range(games)
        ]
        records = _run(headtohead_game, tasks, workers, f"{name} t={t:g}")
        ours = [r["returns"][r["seat"]] for r in records]
        theirs = [v for r in records for s, v in enumerate(r["returns"]) if s != r["seat"]]
        diffs = [
            r["returns"][r["seat"]]
            - statistics.fmean([v for s, v in enumerate(r["returns"]) if s != r["seat"]])
            for r in records
        ]
        row = {
            "game": name, "time": t, "games": len(records), "ours_search": searcher,
            "options": options or {},
            "ours": mean_interval(ours), "theirs": mean_interval(theirs),
            "difference": mean_interval(diffs),
            "ours_s_per_move": sum(r["seconds"]["ours"] for r in records)
            / max(1, sum(r["moves"]["ours"] for r in records)),
            "theirs_s_per_move": sum(r["seconds"]["theirs"] for r in records)
            / max(1, sum(r["moves"]["theirs"] for r in records)),
            "ours_sims_per_move": sum(r["ours_sims"] for r in records)
            / max(1, sum(r["moves"]["ours"] for r in records)),
            "records": records,
        }  # fmt: skip
        rows.append(row)
    print_table(
        [
            "game",
            "s/move",
            "games",
            "ours mean return",
            "ISMCTSBot mean return (per seat)",
            "ours - theirs",
            "s/move ours / theirs",
            "ours sims/move",
        ],
        [
            [
                r["game"],
                f"{r['time']:g}",
                str(r["games"]),
                _mean(r["ours"]),
                _mean(r["theirs"]),
                _mean(r["difference"]),
                f"{r['ours_s_per_move']:.3f} / {r['theirs_s_per_move']:.3f}",
                f"{r['ours_sims_per_move']:,.0f}",
            ]
            for r in rows
        ],
    )
    return rows


def _options(text: str) -> dict[str, Any]:
    """``"search_from=here,c=1"`` -> ``{"search_from": "here", "c": 1.0}``."""
    options: dict[str, Any] = {}
    for item in filter(None, text.split(",")):
        key, _, value = item.partition("=")
        try:
            options[key] = float(value)
        except ValueError:
            options[key] = None if value == "None" else value
    return options


def _mean(interval: tuple[float, float, float]) -> str:
    mean, low, high = interval
    return f"{mean:+.3f} [{low:+.3f}, {high:+.3f}]"


def _run(play: Callable[[dict], dict], tasks: list[dict], workers: int, label: str) -> list:
    records: list[dict] = []
    started = perf_counter()
    if workers > 1:
        with multiprocessing.get_context("spawn").Pool(workers) as pool:
            for record in pool.imap_unordered(play, tasks):
                records.append(record)
                _progress(label, len(records), len(tasks), started)
    else:
        for task in tasks:
            records.append(play(task))
            _progress(label, len(records), len(tasks), started)
    return sorted(records, key=lambda r: r["index"])


def _progress(label: str, done: int, total: int, started: float) -> None:
    if done % 10 == 0 or done == total:
        print(f"  [{label}] {done}/{total} games, {perf_counter() - started:.0f} s", flush=True)


# ----------------------------------------------------------------------------- observers
def observers(games: Sequence[str], iterations: int, count: int, seed: int, workers: int) -> list:
    modes = ["mo_ismcts", "so_ismcts", "pimc", "oracle"]
    specs = {m: f"mcts:iterations={iterations},information={m},name={m}" for m in modes}
    rows = []
    for name in games:
        if name == "oh_hell":
            baseline = f"mcts:iterations={iterations},information=mo_ismcts"
            for mode in modes:
                match = play_match(
                    "oh_hell", [specs[mode], baseline, baseline], count, seed, workers=workers
                )
                stats = {s.name: s for s in match.standings()}
                mine = stats[mode]
                others = [s for s in match.standings() if s.name != mode]
                rows.append({"game": name, "search": mode, "opponents": "2 x mo_ismcts",
                             "mean_return": (mine.mean_return, mine.return_low, mine.return_high),
                             "opponents_mean_return": statistics.fmean(
                                 s.mean_return for s in others)})  # fmt: skip
                print(f"  oh_hell {mode}: {_mean(rows[-1]['mean_return'])}", flush=True)
        else:
            table = tournament(name, [specs[m] for m in modes], count, seed, workers=workers)
            ratings = table.ratings()
            for s in table.standings():
                rows.append({"game": name, "search": s.name, "opponents": "round robin",
                             "score": (s.rate, s.low, s.high), "elo": ratings[s.name]})  # fmt: skip
            print(table, flush=True)
    return rows


# --------------------------------------------------------------------------------- pig
def pig_game(task: dict[str, Any]) -> dict[str, Any]:
    """One Pig game on one ``pyspiel`` state; our rules core follows in lockstep."""
    t, seed, seat = task["time"], task["seed"], task["seat"]
    game = pyspiel.load_game("pig")
    spiel = game.new_initial_state()
    core = Pig()
    state = core.initial_state()
    dice = random.Random(seed)
    searcher = make_searcher(core, Budget(time_limit=t), SearchConfig(), seed)
    bot = pyspiel.MCTSBot(
        game,
        pyspiel.RandomRolloutEvaluator(1, seed),
        2.0,
        UNLIMITED,
        10**6,
        True,
        seed,
        False,
        pyspiel.ChildSelectionPolicy.UCT,
        t,
    )
    seconds = {"ours": 0.0, "theirs": 0.0}
    moves = {"ours": 0, "theirs": 0}
    while not spiel.is_terminal():
        if spiel.is_chance_node():
            outcomes = spiel.chance_outcomes()
            action = outcomes[int(dice.random() * len(outcomes))][0]  # a fair die
        elif spiel.current_player() == seat:
            started = perf_counter()
            action = searcher.search(core, state).best_action
            seconds["ours"] += perf_counter() - started
            moves["ours"] += 1
        else:
            started = perf_counter()
            action = bot.step(spiel)
            seconds["theirs"] += perf_counter() - started
            moves["theirs"] += 1
        spiel.apply_action(action)
        state = core.next_state(state, action)
    returns = list(spiel.returns())
    if tuple(returns) != core.returns(state):
        raise RuntimeError(f"the two implementations disagree: {returns} vs {core.returns(state)}")
    return {"index": task["index"], "seat": seat, "returns": returns, "seconds": seconds,
            "moves": moves}  # fmt: skip


def pig(times: Sequence[float], games: int, seed: int, workers: int) -> list[dict]:
    rows = []
    for t in times:
        tasks = [{"index": i, "time": t, "seed": seed + i, "seat": i % 2} for i in range(games)]
        records = _run(pig_game, tasks, workers, f"pig t={t:g}")
        scores = [(r["returns"][r["seat"]] + 1) / 2 for r in records]
        wins = sum(scores)
        low, high = wilson_interval(wins, len(scores))
        rows.append({"time": t, "games": len(records), "score": wins / len(records),
                     "ci95": [low, high], "records": records,
                     "ours_s_per_move": sum(r["seconds"]["ours"] for r in records)
                     / max(1, sum(r["moves"]["ours"] for r in records)),
                     "theirs_s_per_move": sum(r["seconds"]["theirs"] for r in records)
                     / max(1, sum(r["moves"]["theirs"] for r in records))})  # fmt: skip
    print_table(
        ["Pig vs C++ MCTSBot", "games", "ours score (95% CI)", "s/move ours / theirs"],
        [
            [
                f"{r['time']:g} s/move",
                str(r["games"]),
                f"{r['score']:.1%} [{r['ci95'][0]:.1%}, {r['ci95'][1]:.1%}]",
                f"{r['ours_s_per_move']:.3f} / {r['theirs_s_per_move']:.3f}",
            ]
            for r in rows
        ],
    )
    return rows


# ---------------------------------------------------------------------------------- main
def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("part", choices=["exploitability", "speed", "headtohead", "observers",
                                         "pig", "pettingzoo", "holdem"])  # fmt: skip
    parser.add_argument("--games", default=None, help="games (exploitability, observers: names)")
    parser.add_argument("--game", default="leduc_poker", help="headtohead: OpenSpiel game")
    parser.add_argument("--iterations", default=None, help="simulations, comma-separated")
    parser.add_argument("--seeds", type=int, default=3, help="exploitability: searches' seeds")
    parser.add_argument("--time", default="0.05,0.25", help="seconds per move, comma-separated")
    parser.add_argument("--count", type=int, default=200, help="games per match")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--backend", default="auto", help="exploitability: ours' backend")
    parser.add_argument("--only", default=None, help="exploitability: settings containing this")
    parser.add_argument(
        "--budget-time",
        type=float,
        default=None,
        help="exploitability: one search of this many seconds (from the start)",
    )
    parser.add_argument(
        "--ours",
        default="agent",
        choices=["agent", "core"],
        help="headtohead: MCTSAgent through Shimmy, or our rules core",
    )
    parser.add_argument(
        "--options", default="", help="headtohead: our SearchConfig options, k=v comma-separated"
    )
    parser.add_argument("--json", metavar="PATH")  # fmt: skip
    args = parser.parse_args(argv)
    info = machine_info()
    print_machine(info)
    times = [float(x) for x in args.time.split(",")]
    started = perf_counter()
    if args.part == "exploitability":
        games = (args.games or "kuhn,leduc").split(",")
        iterations = [int(float(x)) for x in (args.iterations or "1000,10000").split(",")]
        results: Any = exploitability(
            games, iterations, args.seeds, args.backend, args.only, args.budget_time, args.workers
        )
    elif args.part == "speed":
        results = speed()
    elif args.part == "headtohead":
        results = headtohead(args.game, times, args.count, args.seed, args.workers, args.ours,
                             _options(args.options))  # fmt: skip
    elif args.part == "observers":
        games = (args.games or "phantom_444,oh_hell").split(",")
        iterations = int(float(args.iterations or 500))
        results = observers(games, iterations, args.count, args.seed, args.workers)
    elif args.part == "pettingzoo":
        from benchmarks.poker_speed import pettingzoo_speed

        results = pettingzoo_speed(seed=args.seed)
    elif args.part == "holdem":
        from benchmarks.poker_speed import holdem_duel

        results = [holdem_duel(t, args.count, args.seed) for t in times]
    else:
        results = pig(times, args.count, args.seed, args.workers)
    data = {"benchmark": f"imperfect {args.part}", "machine": info, "results": results,
            "total_s": perf_counter() - started}  # fmt: skip
    print(f"\n# total {data['total_s']:.0f} s")
    if args.json:
        write_json(args.json, data)
    return data


if __name__ == "__main__":
    main()
