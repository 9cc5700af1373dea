"""Go: the GTP engine against GNU Go, at a fixed number of simulations a move or at wall time;
the lost games judged and profiled (``benchmarks/go.py``'s ``--games``, ``--judge``,
``--profile``).

Each game: our engine (``python -m mcts_agents gtp --no-superko``, its agent
``mcts:iterations=N`` with ``--simulations N``, else ``mcts:time=S`` with ``--seconds S``;
``--kernel defend=1`` adds ``kernel.defend=1``: Go's ``GoOptions``, each record holding them all)
against ``gnugo --mode gtp --level L --chinese-rules --capture-all-dead`` (dead stones taken
off by play, so the board's area is the score), komi 7.5, colours alternating (even game
indices: ours black), refereed by our core (positional superko off: GNU Go plays simple ko),
GNU Go's own ``final_score`` beside ours. ``--workers`` games at a time, each game's two
engines pinned to one core of their own (where there are as many cores). A resignation
(``resign``) ends a game.

Each game's record names the machine: ``rate``, the simulations a second of Go's compiled
search from the empty board (``RATE_SIMULATIONS``, one process) measured in the game's worker
just before it, and ``ours_seconds``/``ours_moves`` (our ``genmove`` replies' wall time), so
that at a fixed budget ``sims_per_s`` (in the game) and at wall time ``sims_per_move`` (from
``rate``) are known. Records are JSON lines, appended as games end; a rerun with the same file
plays only the missing game indices of that level and budget.

``--profile``: for each lost game of ``--out``, our search (``--simulations``, default 15,000)
and GNU Go's ``estimate_score`` (level 10) at every position where ours was to move, as one
line each: where our evaluation and GNU Go's part.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import multiprocessing
import os
import shutil
import subprocess
import sys
from pathlib import Path
from time import perf_counter, time
from typing import Any

KOMI = 7.5
#: simulations of the rate measured before each game (about 0.6 s here).
RATE_SIMULATIONS = 15_000


class Engine:
    """A GTP engine in a subprocess; ``seconds``: the wall time of its ``genmove`` replies."""

    def __init__(self, command: list[str]) -> None:
        self.process = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        self.seconds = 0.0
        self.moves = 0

    def send(self, command: str) -> str:
        if self.process.stdin is None or self.process.stdout is None:
            raise RuntimeError("engine without pipes")
        began = perf_counter()
        self.process.stdin.write(command + "\n")
        self.process.stdin.flush()
        lines = []
        while True:
            line = self.process.stdout.readline()
            if not line:
                raise RuntimeError(f"engine {self.process.args} closed its output on {command!r}")
            if line == "\n" and lines:
                break
            lines.append(line.strip())
        if command.startswith("genmove"):
            self.seconds += perf_counter() - began
            self.moves += 1
        reply = " ".join(lines)
        if not reply.startswith("="):
            raise RuntimeError(f"{command!r}: {reply}")
        return reply[1:].strip()

    def close(self) -> None:
        with contextlib.suppress(RuntimeError, OSError):
            self.send("quit")
        self.process.wait(timeout=10)


def gnugo_path(given: str | None = None) -> str:
    """GNU Go's program: ``given``, else ``$GNUGO``, else on the PATH, else where Debian puts
    it (``/usr/games``), else ''."""
    found = given or os.environ.get("GNUGO")
    if found:
        return found if Path(found).is_file() else ""
    found = shutil.which("gnugo") or shutil.which("gnugo", path="/usr/games")
    return found or ""


def our_spec(simulations: int | None, move_time: float, kernel: str = "") -> str:
    """Our agent: a fixed number of simulations a move, else a fixed wall time; ``kernel``:
    Go's ``GoOptions`` as ``"defend=1,c=0.2"`` (the spec's ``kernel.defend=1,...``)."""
    spec = f"mcts:iterations={simulations}" if simulations else f"mcts:time={move_time}"
    return spec + "".join(f",kernel.{item.strip()}" for item in kernel.split(",") if item.strip())


#: ``GoOptions`` fields whose default differed when records did not yet name their options.
_BEFORE_OPTIONS = {"defend": False}


def go_options(kernel: str) -> dict[str, Any]:
    """Every ``GoOptions`` field our engine plays with ``--kernel`` (checked, as the engine
    will read them), as a record holds them."""
    from dataclasses import asdict

    from mcts_agents.agents.spec_text import option_pairs, parse_value
    from mcts_agents.compiled.go_searcher import GoOptions

    given = option_pairs(kernel, kernel, "--kernel")
    return asdict(GoOptions().updated({k: parse_value(v) for k, v in given.items()}))


def search_rate(size: int = 9, simulations: int = RATE_SIMULATIONS) -> float:
    """Simulations a second of Go's compiled search (the defaults) from the empty board."""
    from mcts_agents.compiled.go_searcher import GoSearch
    from mcts_agents.envs.games.go import Go
    from mcts_agents.search.config import Budget, SearchConfig

    game = Go(size, KOMI)
    searcher = GoSearch(game, Budget(iterations=simulations), SearchConfig(), 0)
    result = searcher.search(game, game.initial_state())
    return result.iterations / result.elapsed


def play_gnugo(task: dict[str, Any]) -> dict[str, Any]:
    """One game of ``task`` (``size``, ``level``, ``index``, ``simulations`` or ``move_time``,
    ``gnugo``, ``resign``): its record."""
    from mcts_agents.envs.games.go import Go, parse_vertex

    size, index = task["size"], task["index"]
    black_is_ours = index % 2 == 0
    spec = our_spec(task.get("simulations"), task.get("move_time", 2.0), task.get("kernel", ""))
    ours = Engine(
        [sys.executable, "-m", "mcts_agents", "gtp", "--size", str(size), "--no-superko",
         "--seed", str(index), "--resign-threshold", str(task.get("resign", 0.05)), spec]
    )  # fmt: skip
    options = ["--mode", "gtp", "--level", str(task["level"]), "--chinese-rules"]
    gnugo = Engine([task["gnugo"], *options, "--capture-all-dead"])
    game = Go(size, KOMI, superko=False)
    state = game.initial_state()
    engines = (ours, gnugo) if black_is_ours else (gnugo, ours)
    for engine in engines:
        engine.send(f"boardsize {size}")
        engine.send("clear_board")
        engine.send(f"komi {KOMI}")
    played: list[str] = []
    resigned = None
    start = perf_counter()
    while not game.is_terminal(state) and len(played) < 4 * size * size:
        colour = "bw"[state[2]]
        mover, other = engines[state[2]], engines[1 - state[2]]
        reply = mover.send(f"genmove {colour}")
        if reply.lower() == "resign":
            resigned = colour
            break
        action = parse_vertex(reply, size)
        if action is None or not game.is_legal(state, action):
            raise RuntimeError(f"illegal move {reply!r} by {'ours' if mover is ours else 'gnugo'}")
        other.send(f"play {colour} {reply}")
        state = game.next_state(state, action)
        played.append(reply.upper())
    gnugo_score = gnugo.send("final_score")
    for engine in engines:
        engine.close()
    if resigned is not None:
        black_wins = resigned == "w"
        score = f"{'B' if black_wins else 'W'}+R"
    else:
        value = game.score(state)
        black_wins = value > 0
        score = f"{'B' if black_wins else 'W'}+{abs(value):g}"
    record = {
        "black": "ours" if black_is_ours else "gnugo",
        "ours_won": black_wins == black_is_ours,
        "score": score,
        "gnugo_score": gnugo_score,
        "resigned": {None: None, "b" if black_is_ours else "w": "ours"}.get(resigned, "gnugo"),
        "moves": len(played),
        "seconds": round(perf_counter() - start, 1),
        "ours_seconds": round(ours.seconds, 2),
        "ours_moves": ours.moves,
        "record": " ".join(played),
    }
    if task.get("simulations") and ours.seconds > 0:
        record["sims_per_s"] = round(task["simulations"] * ours.moves / ours.seconds)
    return record


def _pin() -> None:
    """Pin this pool worker (and the engines it starts) to one core of its own, where the
    machine has a core for each worker."""
    cores = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
    identity = multiprocessing.current_process()._identity
    if cores and identity and identity[0] <= len(cores):
        os.sched_setaffinity(0, {cores[identity[0] - 1]})


def _game(task: dict[str, Any]) -> dict[str, Any] | None:
    if task.get("stop_at") and time() >= task["stop_at"]:
        return None  # --stop-after: no new game
    if task.get("pin"):
        _pin()
    rate = search_rate(task["size"])
    record = play_gnugo(task)
    record.update(
        index=task["index"],
        level=task["level"],
        size=task["size"],
        simulations=task.get("simulations"),
        move_time=None if task.get("simulations") else task.get("move_time"),
        rate=round(rate),
        kernel=task.get("kernel", ""),
        go_options=task.get("go_options"),
    )
    if not task.get("simulations"):
        record["sims_per_move"] = round(rate * task["move_time"])
    return record


def _same_setting(record: dict[str, Any], args: argparse.Namespace, options: Any) -> bool:
    if record["level"] != args.level or record["size"] != args.size:
        return False
    if record.get("go_options", {**options, **_BEFORE_OPTIONS}) != options:
        return False
    if args.simulations:
        return bool(record.get("simulations") == args.simulations)
    return not record.get("simulations") and record.get("move_time") == args.move_time


def gnugo_games(args: argparse.Namespace) -> dict[str, Any] | None:
    """``--games N`` against GNU Go at ``--level``, ``--simulations`` or ``--seconds`` a move,
        ``--workers`` games at a time; results appended to ``--out`` as they finish, a rerun plays
        only the missing game indices of the same setting. Prints wins/games with a Wilson
        interval and the rates (``--stop-after S``: no game starts after S seconds, those playing
    finish); returns that summary (None without GNU Go)."""
    from multiprocessing import Pool

    from mcts_agents.compiled.go_searcher import warm_up
    from mcts_agents.ratings import wilson_interval

    program = gnugo_path(getattr(args, "gnugo_binary", None))
    if not program:
        print("gnugo not found (Debian: apt-get install gnugo; or --gnugo-binary); no games")
        return None
    warm_up()  # Go's kernel in numba's cache once, before the engines start
    out = Path(args.out)
    done = [json.loads(line) for line in out.read_text().splitlines()] if out.exists() else []
    kernel = getattr(args, "kernel", "")
    options = go_options(kernel)
    done = [r for r in done if _same_setting(r, args, options)]
    have = {r["index"] for r in done}
    workers = max(1, args.workers)
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1
    base = {
        "size": args.size,
        "level": args.level,
        "simulations": args.simulations or None,
        "move_time": args.move_time,
        "gnugo": program,
        "resign": args.resign_threshold,
        "pin": 1 < workers <= cores,
        "stop_at": time() + args.stop_after if args.stop_after else None,
        "kernel": kernel,
        "go_options": options,
    }
    tasks = [{**base, "index": i} for i in range(args.gnugo) if i not in have]
    with Pool(workers) as pool:
        for record in pool.imap_unordered(_game, tasks):
            if record is None:
                continue
            with out.open("a") as sink:
                sink.write(json.dumps(record) + "\n")
            done.append(record)
            print(json.dumps({k: v for k, v in record.items() if k != "record"}), flush=True)
    wins = sum(r["ours_won"] for r in done)
    low, high = wilson_interval(wins, len(done)) if done else (0.0, 1.0)
    rates = sorted(r["rate"] for r in done if r.get("rate"))
    in_game = sorted(r["sims_per_s"] for r in done if r.get("sims_per_s"))
    budget = f"{args.simulations} simulations" if args.simulations else f"{args.move_time} s"
    summary = {
        "level": args.level,
        "budget": budget,
        "games": len(done),
        "wins": wins,
        "wilson95": [round(low, 3), round(high, 3)],
        "as_black": sum(r["ours_won"] for r in done if r["black"] == "ours"),
        "rate_median": rates[len(rates) // 2] if rates else None,
        "in_game_sims_per_s_median": in_game[len(in_game) // 2] if in_game else None,
        "workers": workers,
        "kernel": kernel,
    }
    ours = f"ours ({kernel})" if kernel else "ours"
    print(
        f"{ours} against GNU Go level {args.level} at {budget} a move: {wins} wins in "
        f"{len(done)} games (95% Wilson [{low:.2f}, {high:.2f}]); {summary['as_black']} as "
        f"black; simulations/s from the empty board (median, {workers} games at a time): "
        f"{summary['rate_median']}; in the games: {summary['in_game_sims_per_s_median']}"
    )
    return summary


def _gnugo_at(program: str, size: int, moves: list[str]) -> Engine:
    judge = Engine([program, "--mode", "gtp", "--level", "10", "--chinese-rules"])
    judge.send(f"boardsize {size}")
    judge.send(f"komi {KOMI}")
    for i, move in enumerate(moves):
        judge.send(f"play {'bw'[i % 2]} {move}")
    return judge


def judge_losses(args: argparse.Namespace) -> None:
    """``--judge``: for every game of ``--out`` that ours lost (with its moves recorded), GNU Go's
    ``final_score`` (level 10, which judges dead stones) of the position before our first pass:
    whether the game was already lost when our engine began to pass."""
    program = gnugo_path(getattr(args, "gnugo_binary", None))
    if not program:
        print("gnugo not found (Debian: apt-get install gnugo); nothing judged")
        return
    records = [json.loads(line) for line in Path(args.out).read_text().splitlines()]
    for r in records:
        if r["ours_won"] or not r.get("record"):
            continue
        moves = r["record"].split()
        ours = 0 if r["black"] == "ours" else 1
        passes = [i for i, m in enumerate(moves) if m == "PASS" and i % 2 == ours]
        upto = passes[0] if passes else len(moves)
        judge = _gnugo_at(program, r["size"], moves[:upto])
        before = judge.send("final_score")
        judge.close()
        colour = "black" if ours == 0 else "white"
        print(
            f"level {r['level']} game {r['index']}: ours {colour}, lost {r['score']}; "
            f"our first pass at move {upto + 1} of {len(moves)}; GNU Go's final_score there: "
            f"{before}"
        )


def _ours_ahead(score: str, ours: int) -> float:
    """GNU Go's ``B+3.5``/``W+2.5`` as points for ours (black 0, white 1)."""
    text = score.split()[0]
    if text in ("0", "Jigo"):
        return 0.0
    points = float(text[2:])
    return points if (text[0] == "B") == (ours == 0) else -points


def profile_losses(args: argparse.Namespace) -> None:
    """``--profile``: along each lost game of ``--out``, at every position where ours was to
    move, our search's win probability for ours (``--simulations``, 15,000 by default: the
    best move's value, and the root's) beside GNU Go's ``estimate_score`` for ours; one line a
    position, then each game's first position where GNU Go has ours behind by 10 points or
    more while our search still gives ours over one half."""
    from mcts_agents.compiled.go_searcher import GoSearch
    from mcts_agents.envs.games.go import Go, parse_vertex
    from mcts_agents.search.config import Budget, SearchConfig

    program = gnugo_path(getattr(args, "gnugo_binary", None))
    if not program:
        print("gnugo not found; nothing profiled")
        return
    simulations = args.simulations or 15_000
    records = [json.loads(line) for line in Path(args.out).read_text().splitlines()]
    for r in records:
        if r["ours_won"] or not r.get("record"):
            continue
        moves, size = r["record"].split(), r["size"]
        ours = 0 if r["black"] == "ours" else 1
        game = Go(size, KOMI, superko=False)
        state = game.initial_state()
        turn = None
        print(f"game {r['index']} (level {r['level']}, ours {'bw'[ours]}, {r['score']}):")
        for i, move in enumerate(moves):
            if i % 2 == ours and move != "PASS":
                searcher = GoSearch(game, Budget(iterations=simulations), SearchConfig(), i)
                result = searcher.search(game, state)
                best = next(c for c in result.children if c.action == result.best_action)
                judge = _gnugo_at(program, size, moves[:i])
                ahead = _ours_ahead(judge.send("estimate_score"), ours)
                judge.close()
                win = (best.value + 1) / 2
                print(
                    f"  move {i + 1:3d}: ours {win:.2f} (root {(result.root_value + 1) / 2:.2f})"
                    f", GNU Go {ahead:+.1f}; searched {result.best_action}, played {move}"
                )
                if turn is None and ahead <= -10 and win > 0.5:
                    turn = i + 1
            action = parse_vertex(move, size)
            if action is None:
                raise RuntimeError(f"game {r['index']}: bad move {move!r}")
            state = game.next_state(state, action)
        print(f"  first move where GNU Go has ours 10+ behind and ours thinks it wins: {turn}")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The GNU Go options of ``benchmarks/go.py``."""
    parser.add_argument("--gnugo", "--games", type=int, default=0, help="games against GNU Go")
    parser.add_argument("--level", type=int, default=10, help="GNU Go's level (default 10)")
    parser.add_argument(
        "--move-time", "--seconds", type=float, default=2.0, help="our seconds a move"
    )
    parser.add_argument(
        "--simulations", type=int, default=0, help="our simulations a move (instead of time)"
    )
    parser.add_argument(
        "--resign-threshold", type=float, default=0.05, help="our engine's (0: never)"
    )
    parser.add_argument(
        "--stop-after", type=float, default=0, help="seconds after which no game starts"
    )
    parser.add_argument("--gnugo-binary", default=None, help="GNU Go's program ($GNUGO)")
    parser.add_argument(
        "--kernel",
        default="",
        help="our GoOptions (defend=1,...)",
    )
    parser.add_argument("--out", default="go_gnugo.jsonl", help="JSON lines of the games")
    parser.add_argument(
        "--judge", action="store_true", help="GNU Go's score of --out's losses at our first pass"
    )
    parser.add_argument(
        "--profile", action="store_true", help="our value vs GNU Go's estimate in --out's losses"
    )
