"""Matches at equal wall time per move: our ``MCTSAgent`` vs OpenSpiel's C++ ``pyspiel.MCTSBot``.

Run from the repository root::

    python -m benchmarks.matches [--game connect_four,othello,tic_tac_toe,ultimate_tic_tac_toe]
        [--time 0.1,0.25,1 | --simulations 100,1000]
        [--games 200] [--workers 1] [--opening-plies 2] [--seed 0] [--json PATH] [key=value ...]

For each game and each time per move ``t``:

- ours: ``MCTSAgent(time_limit=t, seed=s, **options)``, our current defaults unless overridden
  by ``key=value`` arguments (``c=2 solver=False``: ``SearchConfig`` options); one agent per
  game, so the node table is reused from move to move within a game, as a user would play;
- OpenSpiel: ``pyspiel.MCTSBot`` with ``uct_c=2``, one random rollout per leaf
  (``RandomRolloutEvaluator(1, s)``), ``solve=True``, ``max_wall_clock_time=t`` (the installed
  binding takes a wall-clock limit; ``max_simulations`` is set out of reach) and a memory cap
  far above what a search needs. It builds a fresh tree every move (OpenSpiel's bot has no
  tree reuse).

Games come in pairs with the seats swapped: game ``2p`` has ours first, game ``2p + 1`` ours
second. Both games of a pair start with the same ``--opening-plies`` uniformly random moves
(seeded by the pair), so that the pairs differ from one another while each pair is fair to
both sides; the bots choose every move after that. Every game is seeded (``--seed`` + index).
Actions: our Connect Four, Othello and tic-tac-toe envs use OpenSpiel's action numbers
(column; square ``row * 8 + col`` and 64 for a pass; cell), so the mapping is the identity.
OpenSpiel's ultimate tic-tac-toe splits a move with a free choice of board into two actions
(board, then cell) where ours is one (``9 board + cell``): the C++ bot then makes two searches
of half the time each, so that a move costs both sides the same. The legal moves are compared
every move.

``--simulations N`` plays at equal simulations per move instead (ours ``iterations=N``, the C++
bot ``max_simulations=N`` and no clock): results that do not depend on the machine's speed or
load (the tests use it). A C++ search that comes back with no child at the root (its clock ran
out before the first simulation: seen at 0.01 s on a loaded machine) plays a seeded random
legal move instead; such moves are counted (``empty_searches``) and reported under the table.

The time each side actually spent per move is measured around ``agent.act(env)`` and
``bot.mcts_search(state)`` (plus picking its best child) and reported, with the simulations per
move, so that equal time is verified rather than assumed. ``--workers W`` plays ``W`` games at
once in separate processes (one game uses one core: the two bots take turns); keep ``W`` at most
the number of idle cores or both sides are slowed alike but unpredictably.

Output per game and time: ours' wins/draws/losses, the score rate (draw = half) with a 95%
Wilson interval, the Elo difference (with the interval mapped through the same formula), the
score by seat, and the time and simulations per move of each side.
"""

from __future__ import annotations

import argparse
import ast
import math
import multiprocessing
import random
import statistics
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from time import perf_counter
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # `python benchmarks/matches.py`

import pyspiel

from benchmarks._common import (
    fmt,
    load_average,
    machine_info,
    print_machine,
    print_table,
    write_json,
)
from mcts_agents import MCTSAgent, compiled
from mcts_agents.envs import connect_four_v0, othello_v0, tic_tac_toe_v0, ultimate_tic_tac_toe_v0
from mcts_agents.ratings import elo_from_rate, wilson_interval

UCT_C = 2.0  # OpenSpiel's exploration constant (its returns are in [-1, 1])
CPP_MAX_SIMULATIONS = 10**9  # out of reach: the wall-clock limit ends every search
CPP_MAX_MEMORY_MB = 8000  # far above a 1 s search (~10^5 nodes of ~100 bytes)


@dataclass(frozen=True)
class MatchGame:
    """A game playable by both sides: our env factory and OpenSpiel's game name.

    ``two_phase``: OpenSpiel's ultimate tic-tac-toe splits a move with a free choice of board
    into two actions (choose the board, then the cell); ours is one action ``9 board + cell``.
    """

    label: str
    make_env: Callable[[], Any]
    openspiel_name: str
    two_phase: bool = False


GAMES: dict[str, MatchGame] = {
    "connect_four": MatchGame("Connect Four", connect_four_v0.env, "connect_four"),
    "othello": MatchGame("Othello 8x8", othello_v0.env, "othello"),
    "tic_tac_toe": MatchGame("Tic-tac-toe", tic_tac_toe_v0.env, "tic_tac_toe"),
    "ultimate_tic_tac_toe": MatchGame(
        "Ultimate tic-tac-toe", ultimate_tic_tac_toe_v0.env, "ultimate_tic_tac_toe", True
    ),
}


# ---------------------------------------------------------------------------- action mapping
def choosing_board(state: Any) -> bool:
    """Whether OpenSpiel's ultimate tic-tac-toe mover must first choose a board."""
    return bool(state.action_to_string(state.legal_actions()[0]).startswith("Choose local"))


def forced_board(state: Any) -> int:
    """The board OpenSpiel's ultimate tic-tac-toe mover is sent to ("Local board 4: ...")."""
    return int(state.action_to_string(state.legal_actions()[0]).split(":")[0].split()[-1])


def legal_ours(spec: MatchGame, state: Any) -> list[int]:
    """OpenSpiel's legal moves as our actions (identity but for ultimate tic-tac-toe)."""
    if not spec.two_phase:
        return sorted(state.legal_actions())
    if not choosing_board(state):
        board = forced_board(state)
        return sorted(9 * board + cell for cell in state.legal_actions())
    moves = []
    for board in state.legal_actions():
        child = state.clone()
        child.apply_action(board)
        moves += [9 * board + cell for cell in child.legal_actions()]
    return sorted(moves)


def apply_ours(spec: MatchGame, state: Any, action: int) -> None:
    """Play our action in OpenSpiel's state (one action, or board then cell)."""
    if spec.two_phase:
        board, cell = divmod(action, 9)
        if choosing_board(state):
            state.apply_action(board)
        state.apply_action(cell)
    else:
        state.apply_action(action)


def check_same_position(spec: MatchGame, raw: Any, spiel_state: Any) -> None:
    """Raise if our env and OpenSpiel's state disagree on the mover or the legal actions."""
    ours = sorted(raw.legal_actions())
    theirs = legal_ours(spec, spiel_state)
    mover = int(raw.agent_selection.rsplit("_", 1)[1])
    if ours != theirs or mover != spiel_state.current_player():
        raise RuntimeError(
            f"our env and OpenSpiel disagree: legal {ours} vs {theirs}, "
            f"to move {mover} vs {spiel_state.current_player()}\n{spiel_state}"
        )


# ---------------------------------------------------------------------------- statistics
# the arena's statistics, under the names this module's callers use
wilson = wilson_interval
elo = elo_from_rate


def json_float(x: float) -> float | str:
    """``x``, or ``"inf"``/``"-inf"`` (JSON has no infinities)."""
    return x if math.isfinite(x) else ("inf" if x > 0 else "-inf")


def signed(x: float | str) -> str:
    """An Elo difference for the table: ``+35``, ``-120``, ``inf``."""
    return x if isinstance(x, str) else f"{round(x):+d}"


# ---------------------------------------------------------------------------- one game
def opening(game: str, plies: int, seed: int) -> list[int]:
    """``plies`` uniformly random moves from the start (stops early if the game ends)."""
    spec = GAMES[game]
    rng = random.Random(seed)
    state = pyspiel.load_game(spec.openspiel_name).new_initial_state()
    moves: list[int] = []
    for _ in range(plies):
        if state.is_terminal():
            break
        action = rng.choice(legal_ours(spec, state))
        apply_ours(spec, state, action)
        moves.append(action)
    return moves


def make_bot(game: Any, seed: int, t: float, simulations: int | None = None) -> Any:
    """OpenSpiel's C++ ``MCTSBot`` with ``t`` seconds a search (see the docstring), or with
    ``simulations`` a search and no clock (``max_wall_clock_time=0`` is no limit)."""
    return pyspiel.MCTSBot(
        game,
        pyspiel.RandomRolloutEvaluator(1, seed),
        UCT_C,
        CPP_MAX_SIMULATIONS if simulations is None else simulations,
        CPP_MAX_MEMORY_MB,
        True,  # solve
        seed,
        False,  # verbose
        pyspiel.ChildSelectionPolicy.UCT,
        t if simulations is None else 0.0,  # max_wall_clock_time, seconds
    )


def best_action(root: Any, state: Any, rng: random.Random) -> tuple[int, bool]:
    """The action of ``root``'s best child, and ``False``; or, where the search returned a root
    without children (its clock ran out before the first simulation: seen at 0.01 s on a
    loaded machine), a uniformly random legal move of ``state`` and ``True``."""
    if root.children:
        return int(root.best_child().action), False
    return rng.choice(state.legal_actions()), True


def bot_move(
    spec: MatchGame, bots: tuple[Any, Any], state: Any, rng: random.Random
) -> tuple[int, int, int]:
    """The C++ bot's move as our action, its simulations, and how many of its searches came
    back empty (a random legal move was played instead, see ``best_action``). A two-phase
    move (choose the board, then the cell) is two searches of half the budget each
    (``bots[1]``)."""
    if spec.two_phase and choosing_board(state):
        root = bots[1].mcts_search(state)
        board, empty_board = best_action(root, state, rng)
        child = state.clone()
        child.apply_action(board)
        second = bots[1].mcts_search(child)
        cell, empty_cell = best_action(second, child, rng)
        sims = root.explore_count + second.explore_count
        return 9 * board + cell, sims, int(empty_board) + int(empty_cell)
    root = bots[0].mcts_search(state)
    action, empty = best_action(root, state, rng)
    if spec.two_phase:
        action += 9 * forced_board(state)
    return action, root.explore_count, int(empty)


def play_game(task: dict[str, Any]) -> dict[str, Any]:
    """Play one game; ``task`` holds the game key, budget (``time`` or ``simulations`` per
    move), seat, seed, opening and options."""
    spec = GAMES[task["game"]]
    t, seed, ours_seat = task["time"], task["seed"], task["ours_seat"]
    n = task.get("simulations")
    env = spec.make_env()
    env.reset(seed=seed)
    raw = env.unwrapped
    game = pyspiel.load_game(spec.openspiel_name)
    state = game.new_initial_state()
    if n is None:
        agent = MCTSAgent(time_limit=t, seed=seed, **task["options"])
        bots = (make_bot(game, seed, t), make_bot(game, seed, t / 2))
    else:
        agent = MCTSAgent(iterations=n, seed=seed, **task["options"])
        bots = (make_bot(game, seed, t, n), make_bot(game, seed, t, max(1, n // 2)))
    fallback = random.Random(seed)  # the C++ side's move where its search came back empty
    sides: dict[str, dict[str, Any]] = {
        name: {"moves": 0, "time": 0.0, "sims": 0, "times": [], "empty_searches": 0}
        for name in ("ours", "cpp")
    }
    for action in task["opening"]:
        check_same_position(spec, raw, state)
        env.step(action)
        apply_ours(spec, state, action)
    while not state.is_terminal():
        check_same_position(spec, raw, state)
        if state.current_player() == ours_seat:
            start = perf_counter()
            action = agent.act(env)
            spent = perf_counter() - start
            side = sides["ours"]
            side["sims"] += agent.last_result.iterations  # type: ignore[union-attr]
        else:
            start = perf_counter()
            action, sims, empty = bot_move(spec, bots, state, fallback)
            spent = perf_counter() - start
            side = sides["cpp"]
            side["sims"] += sims
            side["empty_searches"] += empty
        side["moves"] += 1
        side["time"] += spent
        side["times"].append(round(spent, 6))
        env.step(action)
        apply_ours(spec, state, action)
    returns = state.returns()
    ours_return = [env.rewards[a] for a in env.possible_agents][ours_seat]
    if ours_return != returns[ours_seat]:
        raise RuntimeError(f"final returns disagree: ours {ours_return}, OpenSpiel {returns}")
    return {
        "index": task["index"],
        "game": task["game"],
        "time": t,
        "simulations": n,
        "seed": seed,
        "ours_seat": ours_seat,
        "opening": task["opening"],
        "result": int(returns[ours_seat]),  # +1 ours won, 0 draw, -1 ours lost
        "plies": len(task["opening"]) + sides["ours"]["moves"] + sides["cpp"]["moves"],
        "sides": sides,
    }


# ---------------------------------------------------------------------------- a match
def tasks_for(
    game: str,
    t: float,
    games: int,
    seed: int,
    opening_plies: int,
    options: dict[str, Any],
    simulations: int | None = None,
) -> list[dict[str, Any]]:
    """The games of one match: pairs with the seats swapped and a shared random opening; ``t``
    seconds a move, or ``simulations`` a move where given (``t`` is then unused)."""
    out = []
    for i in range(games):
        pair = i // 2
        out.append(
            {
                "index": i,
                "game": game,
                "time": t,
                "simulations": simulations,
                "seed": seed + i,
                "ours_seat": i % 2,
                "opening": opening(game, opening_plies, seed + 7919 * pair),
                "options": options,
            }
        )
    return out


def summarize(records: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Wins/draws/losses of ours, score with CI, Elo, by seat, time and sims per move."""
    n = len(records)
    wins = sum(r["result"] == 1 for r in records)
    draws = sum(r["result"] == 0 for r in records)
    losses = n - wins - draws
    points = wins + 0.5 * draws
    score = points / n if n else 0.0
    low, high = wilson(points, n)
    per_side: dict[str, dict[str, float]] = {}
    for name in ("ours", "cpp"):
        moves = sum(r["sides"][name]["moves"] for r in records)
        seconds = sum(r["sides"][name]["time"] for r in records)
        sims = sum(r["sides"][name]["sims"] for r in records)
        times = [x for r in records for x in r["sides"][name]["times"]]
        per_side[name] = {
            "empty_searches": sum(r["sides"][name].get("empty_searches", 0) for r in records),
            "moves": moves,
            "time_per_move": seconds / moves if moves else 0.0,
            "median_time_per_move": statistics.median(times) if times else 0.0,
            "sims_per_move": sims / moves if moves else 0.0,
            "sims_per_s": sims / seconds if seconds else 0.0,
        }
    by_seat = {}
    for seat in (0, 1):
        rs = [r for r in records if r["ours_seat"] == seat]
        by_seat[f"ours_seat_{seat}"] = {
            "games": len(rs),
            "wins": sum(r["result"] == 1 for r in rs),
            "draws": sum(r["result"] == 0 for r in rs),
            "losses": sum(r["result"] == -1 for r in rs),
        }
    return {
        "games": n,
        "wins": wins,
        "draws": draws,
        "losses": losses,
        "score": score,
        "score_ci95": [low, high],
        "elo": json_float(elo(score)),
        "elo_ci95": [json_float(elo(low)), json_float(elo(high))],
        "by_seat": by_seat,
        "ours": per_side["ours"],
        "cpp": per_side["cpp"],
        "mean_plies": sum(r["plies"] for r in records) / n if n else 0.0,
    }


def run_match(
    game: str,
    t: float,
    games: int,
    seed: int,
    opening_plies: int,
    options: dict[str, Any],
    workers: int,
    log: Callable[[str], None],
    simulations: int | None = None,
) -> dict[str, Any]:
    """Play one match (one game, one budget per move: ``t`` seconds, or ``simulations`` where
    given) and return its summary and games."""
    tasks = tasks_for(game, t, games, seed, opening_plies, options, simulations)
    budget = f"t={t:g}" if simulations is None else f"simulations={simulations}"
    records: list[dict[str, Any]] = []
    points = 0.0
    start = perf_counter()

    def note(record: dict[str, Any]) -> None:
        nonlocal points
        records.append(record)
        points += (record["result"] + 1) / 2
        s = record["sides"]
        outcome = {1: "win", 0: "draw", -1: "loss"}[record["result"]]
        log(
            f"[{game} {budget}] {len(records)}/{games} game {record['index']} "
            f"(ours seat {record['ours_seat']}): ours {outcome} in {record['plies']} plies; "
            f"s/move ours {s['ours']['time'] / max(1, s['ours']['moves']):.3f} "
            f"C++ {s['cpp']['time'] / max(1, s['cpp']['moves']):.3f}; "
            f"score {points:g}/{len(records)}; {perf_counter() - start:.0f} s"
        )

    compiled.warm_up()  # load our compiled kernels (if any) before any move is timed
    if workers > 1:
        with multiprocessing.Pool(workers, initializer=compiled.warm_up) as pool:
            for record in pool.imap_unordered(play_game, tasks):
                note(record)
    else:
        for task in tasks:
            note(play_game(task))
    records.sort(key=lambda r: r["index"])
    return {
        "game": game,
        "time": t,
        "simulations": simulations,
        "summary": summarize(records),
        "wall_s": perf_counter() - start,
        "records": records,
    }


def print_summaries(matches: Sequence[dict[str, Any]]) -> None:
    """One table row per (game, time)."""
    rows = []
    empty = []
    for m in matches:
        s = m["summary"]
        low, high = s["score_ci95"]
        elo_low, elo_high = s["elo_ci95"]
        rows.append(
            [
                GAMES[m["game"]].label,
                budget_label(m),
                str(s["games"]),
                f"{s['wins']}/{s['draws']}/{s['losses']}",
                f"{100 * s['score']:.1f}% [{100 * low:.1f}, {100 * high:.1f}]",
                f"{signed(s['elo'])} [{signed(elo_low)}, {signed(elo_high)}]",
                f"{s['ours']['time_per_move']:.3f} / {s['ours']['median_time_per_move']:.3f}",
                f"{s['cpp']['time_per_move']:.3f} / {s['cpp']['median_time_per_move']:.3f}",
                fmt(s["ours"]["sims_per_move"]),
                fmt(s["cpp"]["sims_per_move"]),
            ]
        )
    print_table(
        [
            "game",
            "budget/move",
            "games",
            "ours W/D/L",
            "score (95% CI)",
            "Elo (95% CI)",
            "ours s/move mean/median",
            "C++ s/move mean/median",
            "ours sims/move",
            "C++ sims/move",
        ],
        rows,
        left=1,
    )
    for m in matches:
        if m["summary"]["cpp"]["empty_searches"]:
            empty.append(
                f"{GAMES[m['game']].label} {budget_label(m)}: "
                f"{m['summary']['cpp']['empty_searches']}"
            )
    if empty:
        print(
            "\nC++ searches that returned no child (a random legal move was played): "
            + "; ".join(empty)
        )


def budget_label(match: dict[str, Any]) -> str:
    """``0.1 s`` or ``200 sims``: a match's budget per move."""
    n = match.get("simulations")
    return f"{match['time']:g} s" if n is None else f"{n} sims"


def parse_option(text: str) -> tuple[str, Any]:
    """``key=value`` -> (key, value) with the value read as a Python literal when it is one."""
    if "=" not in text:
        raise argparse.ArgumentTypeError(f"options are key=value, got {text!r}")
    key, raw = text.split("=", 1)
    try:
        value = ast.literal_eval(raw)
    except (ValueError, SyntaxError):
        value = raw
    return key.strip(), value


def main(argv: list[str] | None = None) -> dict[str, Any]:
    """Play the matches, print the table, optionally save JSON; return the results."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="connect_four,othello", help="comma-separated games")
    parser.add_argument("--time", default="0.1,0.25,1", help="seconds per move, comma-separated")
    parser.add_argument(
        "--simulations",
        default="",
        help="simulations per move, comma-separated: equal simulations instead of equal time "
        "(replaces --time; the results then do not depend on the machine's speed or load)",
    )
    parser.add_argument("--games", type=int, default=200, help="games per match (even)")
    parser.add_argument("--workers", type=int, default=1, help="games played at once")
    parser.add_argument("--opening-plies", type=int, default=2, help="random opening moves")
    parser.add_argument("--seed", type=int, default=0, help="base seed")
    parser.add_argument("--json", metavar="PATH", help="save the results as JSON")
    parser.add_argument("options", nargs="*", help="our SearchConfig options as key=value")
    args = parser.parse_args(argv)
    games = [g.strip() for g in args.game.split(",") if g.strip()]
    for g in games:
        if g not in GAMES:
            parser.error(f"unknown game {g!r}; expected one of {sorted(GAMES)}")
    budgets: list[tuple[float, int | None]]
    if args.simulations.strip():
        sims = [int(x) for x in args.simulations.split(",") if x.strip()]
        for n in sims:
            if n < 1:
                parser.error(f"--simulations must be positive integers, got {n}")
        budgets = [(0.0, n) for n in sims]
    else:
        budgets = [(float(x), None) for x in args.time.split(",") if x.strip()]
    options = dict(parse_option(o) for o in args.options)
    MCTSAgent(time_limit=1.0, **options)  # an unknown or bad option fails here, not in a worker
    equal = "time" if not args.simulations.strip() else "simulations"
    info = machine_info()
    print_machine(info)
    print(
        f"\n## Matches at equal {equal} per move: ours MCTSAgent({options or 'defaults'}) vs "
        f"OpenSpiel C++ MCTSBot (uct_c={UCT_C:g}, 1 random rollout, solve), "
        f"{args.opening_plies} random opening plies per pair, seats swapped\n"
    )

    def log(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    start = perf_counter()
    matches = [
        run_match(g, t, args.games, args.seed, args.opening_plies, options, args.workers, log, n)
        for g in games
        for t, n in budgets
    ]
    print_summaries(matches)
    total = perf_counter() - start
    end_load = load_average()
    print(f"\n# total {total:.0f} s; load average at end: {end_load}")
    data = {
        "benchmark": "matches",
        "machine": info,
        "options": {k: repr(v) for k, v in options.items()},
        "games_per_match": args.games,
        "opening_plies": args.opening_plies,
        "seed": args.seed,
        "workers": args.workers,
        "uct_c": UCT_C,
        "matches": matches,
        "total_s": total,
        "loadavg_at_end": end_load,
    }
    if args.json:
        write_json(args.json, data)
    return data


if __name__ == "__main__":
    main()
