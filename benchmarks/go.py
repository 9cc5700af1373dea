"""Go: simulations per second (go_v5's two paths side by side, our core, OpenSpiel's C++ MCTS)
and games of the GTP engine against GNU Go.

Run from the repository root::

    python -m benchmarks.go [--quick] [--repeats N] [--size 9]
                            [--gnugo GAMES] [--level L] [--move-time S] [--out FILE]

Speed, one process, from the empty board, each row the median of ``--repeats`` searches (a
fresh searcher each, so nothing is reused), all rows in one run on one machine:

- ``go_v5, position copies``: PettingZoo's ``go_v5`` searched as before the Go core (the
  ``pettingzoo_go.position_game`` reference: copies of ``go_base.Position``, playouts by
  ``random_point``), ``MCTS(Budget(iterations=n), SearchConfig())``;
- ``go_v5, fast path``: the same env read into our Go core (``game_from_env`` ->
  ``pettingzoo_go.go_game``), the same search (uniform playouts, as the copies' playouts):
  the ratio of the two is the fast path's gain; then with the agent's default playouts
  (``decisive``: no own-eye filling, no voluntary pass: longer playouts);
- ``go_v0, MCTSAgent``: our env and agent (positional superko; Python search);
- ``playouts``: ``Go.rollout`` alone from the empty board (uniformly random legal moves);
- with numba (the ``fast`` extra), the compiled playouts (``compiled/go_playout.py``): the
  same searches through ``make_searcher`` (``backend="auto"``: the Python tree, compiled
  playouts, 10x the iterations), Go's compiled tree search (the defaults: ``make_searcher``,
  ``MCTSAgent``), and the compiled playouts
  alone (uniform and decisive, called one by one from Python as the search calls them, then
  all in one compiled call: ``go_playout.black_wins``);
- OpenSpiel's C++ ``pyspiel.MCTSBot`` on ``go`` (one random rollout per leaf, ``uct_c=2``):
  the bar (issue 28: >= 10x its playouts/s); the last column is each row over it.

``--games N`` (``--gnugo``): the GTP engine (``mcts-agents gtp``, default agent: here a fixed
``--seconds`` a move through ``mcts:time=S``) against GNU Go (``gnugo --mode gtp --level L
--chinese-rules --capture-all-dead``: it captures dead stones before it passes, so the board's
area is the score), komi 7.5, colours alternating, refereed by our core (GNU Go's
``final_score``, which judges dead stones itself, reported beside ours), ``--workers`` games at
a time (each engine on one core); each game, with its moves, is appended to ``--out`` (JSON
lines) as it ends and a rerun with the same file plays only the missing game indices of that
level. GNU Go comes from Debian's ``gnugo`` package (``apt-get install gnugo``); without it the
games are skipped with a line saying so.

``--judge``: for each game of ``--out`` that ours lost, GNU Go's ``final_score`` (level 10) of
the position before our engine's first pass: whether the game was lost before it passed.

``--ab N``: Go's compiled tree search with ``GoOptions`` ``--a`` against ``--b`` (``"rave=0"``,
``"heavy=0,patterns=0"``; ``python``: the Python tree with compiled playouts) at
``--ab-time`` seconds a move, colours alternating, resumable through ``--ab-out``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from time import perf_counter
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # `python benchmarks/go.py` too

from benchmarks._common import fmt, machine_info, median, print_machine, print_table, spread

C = 2.0
#: Go's compiled tree search with nothing but UCT and the decisive playouts: the closest to
#: the old path's search (uniform playouts, no RAVE, no priors).
_PLAIN = "rave=0,priors=0,heavy=0,patterns=0"


def _search_rate(
    make: Callable[[], tuple[Any, Any]],
    iterations: int,
    repeats: int,
    playout: str = "random",
    compiled: bool = False,
    kernel: bool = False,
    options: str | None = None,
) -> list[float]:
    """Simulations per second of the Python search; ``compiled``: with the game's compiled
    playouts (the Python tree; playout loaded before the clock starts); ``kernel``: Go's
    compiled tree search (``make_searcher`` with the defaults, built before the clock), or with
    ``options`` (``GoOptions`` as ``--ab`` reads them: ``"heavy=0,patterns=0"``)."""
    from mcts_agents.compiled.go_playout import go_playout
    from mcts_agents.compiled.go_searcher import GoSearch
    from mcts_agents.planner.factory import make_searcher
    from mcts_agents.search.config import Budget, SearchConfig
    from mcts_agents.search.mcts import MCTS

    rates = []
    for seed in range(repeats):
        game, state = make()
        config = SearchConfig(c=C, playout=playout)  # type: ignore[arg-type]
        budget = Budget(iterations=iterations)
        if kernel and options is not None:
            searcher = GoSearch(game, budget, SearchConfig(), seed, _options(options))
        elif kernel:
            searcher = make_searcher(game, budget, SearchConfig(), seed=seed)
        elif compiled:
            searcher = MCTS(budget, config, seed, (game, go_playout(game, playout)))
        else:
            searcher = MCTS(budget, config, seed=seed)
        start = perf_counter()
        result = searcher.search(game, state)
        rates.append(result.iterations / (perf_counter() - start))
        if compiled and result.playouts != "numba":
            raise RuntimeError("the compiled playouts did not run (is numba installed?)")
        if kernel and result.backend != "numba":
            raise RuntimeError("the compiled tree search did not run (is numba installed?)")
    return rates


def _compiled_playout_rate(game: Any, kind: str, playouts: int, repeats: int) -> list[float]:
    """Compiled playouts from the empty board per second, called one by one as the search
    calls them (from Python, each seeded by the generator)."""
    import random

    from mcts_agents.compiled.go_playout import go_playout

    play = go_playout(game, kind)
    rng = random.Random(0)
    rates = []
    for _ in range(repeats):
        start = perf_counter()
        for _ in range(playouts):
            play(game.initial_state(), rng)
        rates.append(playouts / (perf_counter() - start))
    return rates


def speed(size: int, repeats: int, quick: bool) -> list[list[str]]:
    """The table's rows: path, simulations, simulations/s (median), spread, x position copies."""
    import pyspiel
    from pettingzoo.classic import go_v5

    from mcts_agents import MCTSAgent
    from mcts_agents.adapters import game_from_env
    from mcts_agents.adapters.pettingzoo_go import position_game
    from mcts_agents.compiled import numba_available
    from mcts_agents.envs.go_v0 import env as go_v0

    scale = 1 if quick else 4
    env = go_v5.env(board_size=size, komi=7.5)
    env.reset(seed=0)
    rows: list[tuple[str, int, list[float]]] = []
    slow = 50 * scale
    rows.append(
        (
            "go_v5, position copies",
            slow,
            _search_rate(lambda: position_game(env, env.unwrapped, 0), slow, repeats),  # type: ignore[arg-type,return-value]
        )
    )
    fast = 500 * scale
    rows.append(("go_v5, fast path", fast, _search_rate(lambda: game_from_env(env), fast, repeats)))
    rows.append(
        (
            "go_v5, fast path, decisive playouts",
            fast,
            _search_rate(lambda: game_from_env(env), fast, repeats, "decisive"),
        )
    )
    numba = numba_available()
    compiled = 10 * fast
    if numba:
        for playout in ("random", "decisive"):
            rows.append(
                (
                    f"go_v5, fast path, compiled {playout} playouts",
                    compiled,
                    _search_rate(lambda: game_from_env(env), compiled, repeats, playout, True),
                )
            )
        rows.append(
            (
                "go_v5, fast path, compiled tree search (defaults)",
                compiled,
                _search_rate(lambda: game_from_env(env), compiled, repeats, kernel=True),
            )
        )
        # the same tree with lighter playouts: the old path's playouts are uniform, so the
        # plain rows compare like with like
        for name, options in (
            ("light playouts (heavy=0, patterns=0)", "heavy=0,patterns=0"),
            ("plain UCT (rave=0, priors=0, heavy=0, patterns=0)", _PLAIN),
        ):
            rows.append(
                (
                    f"go_v5, fast path, compiled tree search, {name}",
                    compiled,
                    _search_rate(
                        lambda: game_from_env(env), compiled, repeats, kernel=True, options=options
                    ),
                )
            )
    ours = go_v0(size=size)
    ours.reset(seed=0)
    rates = []
    for seed in range(repeats):
        agent = MCTSAgent(iterations=fast, seed=seed, c=C, backend="python", playout="random")
        result = agent.search(ours)
        rates.append(result.iterations / result.elapsed)
    rows.append(("go_v0, MCTSAgent (superko)", fast, rates))
    if numba:  # the agent's defaults: backend="auto", decisive: the compiled tree search
        rates = []
        for seed in range(repeats):
            agent = MCTSAgent(iterations=compiled, seed=seed, c=C)
            agent.search(ours)  # the first search loads the playout: not timed
            result = agent.search(ours)
            rates.append(result.iterations / result.elapsed)
        rows.append(("go_v0, MCTSAgent defaults (compiled tree search)", compiled, rates))
    game = ours.unwrapped.game
    import random

    rng = random.Random(0)
    playouts = 200 * scale
    rates = []
    for _ in range(repeats):
        start = perf_counter()
        for _ in range(playouts):
            game.rollout(game.initial_state(), rng)
        rates.append(playouts / (perf_counter() - start))
    rows.append(("go_v0 core, playouts alone", playouts, rates))
    if numba:
        for playout in ("random", "decisive"):
            rates = _compiled_playout_rate(game, playout, 50 * playouts, repeats)
            rows.append((f"compiled {playout} playouts alone", 50 * playouts, rates))
        from mcts_agents.compiled.go_playout import black_wins

        for playout in ("random", "decisive"):
            rates = []
            for seed in range(repeats):
                start = perf_counter()
                black_wins(game, game.initial_state(), 50 * playouts, seed, playout)
                rates.append(50 * playouts / (perf_counter() - start))
            rows.append((f"compiled {playout} playouts, one call", 50 * playouts, rates))
    spiel = pyspiel.load_game("go", {"board_size": size, "komi": 7.5})
    sims = 1000 * scale
    rates = []
    for seed in range(repeats):
        bot = pyspiel.MCTSBot(
            spiel, pyspiel.RandomRolloutEvaluator(1, seed), C, sims, 1000, False, seed + 1, False
        )
        start = perf_counter()
        root = bot.mcts_search(spiel.new_initial_state())
        rates.append(root.explore_count / (perf_counter() - start))
    rows.append(("OpenSpiel C++ MCTSBot", sims, rates))
    base = median(rows[0][2])
    spiel_rate = median(rows[-1][2])
    return [
        [
            name,
            fmt(n),
            fmt(median(r)),
            f"{spread(r):.0%}",
            f"{median(r) / base:.1f}x",
            f"{median(r) / spiel_rate:.2f}x",
        ]
        for name, n, r in rows
    ]


# ------------------------------------------------------------------------------- GNU Go
class Engine:
    """A GTP engine in a subprocess."""

    def __init__(self, command: list[str]) -> None:
        self.process = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )

    def send(self, command: str) -> str:
        assert self.process.stdin is not None and self.process.stdout is not None
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
        reply = " ".join(lines)
        if not reply.startswith("="):
            raise RuntimeError(f"{command!r}: {reply}")
        return reply[1:].strip()

    def close(self) -> None:
        with contextlib.suppress(RuntimeError, OSError):
            self.send("quit")
        self.process.wait(timeout=10)


def play_gnugo(size: int, level: int, move_time: float, black_is_ours: bool, seed: int) -> dict:
    """One game, refereed by our core (positional superko off: GNU Go plays simple ko)."""
    from mcts_agents.envs.games.go import Go, parse_vertex

    ours = Engine(
        [
            sys.executable,
            "-m",
            "mcts_agents",
            "gtp",
            "--size",
            str(size),
            "--no-superko",
            "--seed",
            str(seed),
            f"mcts:time={move_time}",
        ]
    )
    # --capture-all-dead: GNU Go takes dead stones off by play, so the board's area counts
    options = ["--mode", "gtp", "--level", str(level), "--chinese-rules", "--capture-all-dead"]
    gnugo = Engine([gnugo_path(), *options])
    game = Go(size, 7.5, superko=False)
    state = game.initial_state()
    engines = (ours, gnugo) if black_is_ours else (gnugo, ours)
    for engine in engines:
        engine.send(f"boardsize {size}")
        engine.send("clear_board")
        engine.send("komi 7.5")
    moves = 0
    played: list[str] = []
    resigned = None
    start = perf_counter()
    while not game.is_terminal(state) and moves < 4 * size * size:
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
        moves += 1
    gnugo_score = gnugo.send("final_score")
    for engine in engines:
        engine.close()
    if resigned is not None:
        black_wins = resigned == "w"
        score = "resign"
    else:
        score_value = game.score(state)
        black_wins = score_value > 0
        score = f"{'B' if black_wins else 'W'}+{abs(score_value):g}"
    return {
        "black": "ours" if black_is_ours else "gnugo",
        "ours_won": black_wins == black_is_ours,
        "score": score,
        "gnugo_score": gnugo_score,
        "moves": moves,
        "seconds": round(perf_counter() - start, 1),
        "record": " ".join(played),
    }


def gnugo_path() -> str:
    """GNU Go's program: on the PATH, else where Debian puts it (``/usr/games``), else ''."""
    found = shutil.which("gnugo") or shutil.which("gnugo", path="/usr/games")
    return found or ""


def _gnugo_game(task: tuple[int, int, float, int]) -> dict:
    size, level, move_time, index = task
    record = play_gnugo(size, level, move_time, index % 2 == 0, index)
    record.update(index=index, level=level, move_time=move_time, size=size)
    return record


def gnugo_games(args: argparse.Namespace) -> None:
    """``--games N`` against GNU Go at ``--level``, ``--seconds`` a move, ``--workers`` games
    at a time (each engine on one core); results appended to ``--out`` as they finish, a
    rerun plays only the missing game indices. Prints wins/games with a Wilson interval."""
    from multiprocessing import Pool

    from mcts_agents.compiled.go_searcher import warm_up
    from mcts_agents.ratings import wilson_interval

    if not gnugo_path():
        print("gnugo not found (Debian: apt-get install gnugo); the games are skipped")
        return
    warm_up()  # Go's kernel in numba's cache once, before the engines start
    out = Path(args.out)
    done = [json.loads(line) for line in out.read_text().splitlines()] if out.exists() else []
    done = [r for r in done if r["level"] == args.level and r["size"] == args.size]
    have = {r["index"] for r in done}
    tasks = [(args.size, args.level, args.move_time, i) for i in range(args.gnugo) if i not in have]
    with Pool(max(1, args.workers)) as pool:
        for record in pool.imap_unordered(_gnugo_game, tasks):
            with out.open("a") as sink:
                sink.write(json.dumps(record) + "\n")
            done.append(record)
            print(json.dumps(record), flush=True)
    wins = sum(r["ours_won"] for r in done)
    low, high = wilson_interval(wins, len(done)) if done else (0.0, 1.0)
    print(
        f"ours against GNU Go level {args.level}: {wins} wins in {len(done)} games "
        f"(95% Wilson [{low:.2f}, {high:.2f}])"
    )


def judge_losses(args: argparse.Namespace) -> None:
    """``--judge``: for every game of ``--out`` that ours lost (with its moves recorded), GNU Go's
    ``final_score`` (level 10, which judges dead stones) of the position before our first pass:
    whether the game was already lost when our engine began to pass."""
    if not gnugo_path():
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
        judge = Engine([gnugo_path(), "--mode", "gtp", "--level", "10", "--chinese-rules"])
        judge.send(f"boardsize {r['size']}")
        judge.send("komi 7.5")
        for i, move in enumerate(moves[:upto]):
            judge.send(f"play {'bw'[i % 2]} {move}")
        before = judge.send("final_score")
        judge.close()
        colour = "black" if ours == 0 else "white"
        print(
            f"level {r['level']} game {r['index']}: ours {colour}, lost {r['score']}; "
            f"our first pass at move {upto + 1} of {len(moves)}; GNU Go's final_score there: "
            f"{before}"
        )


def _options(text: str) -> Any:
    """``GoOptions`` from ``"rave=0,c=0.5"`` (empty: the defaults); ``"python"``: the Python
    tree with the compiled decisive playouts (the path before the compiled search)."""
    from mcts_agents.compiled.go_searcher import GoOptions

    if text == "python":
        return "python"
    changes: dict[str, Any] = {}
    for item in filter(None, text.split(",")):
        name, _, value = item.partition("=")
        kind = type(getattr(GoOptions(), name))
        changes[name] = bool(int(value)) if kind is bool else kind(value)
    return GoOptions(**changes)


def _ab_game(task: dict[str, Any]) -> dict[str, Any]:
    """One game of ``--ab``: side A (black in even games) against side B, equal time a move."""
    from mcts_agents.compiled.go_playout import go_playout
    from mcts_agents.compiled.go_searcher import GoSearch
    from mcts_agents.envs.games.go import Go
    from mcts_agents.search.config import Budget, SearchConfig
    from mcts_agents.search.mcts import MCTS

    game = Go(task["size"], 7.5)
    index = task["index"]
    budget = Budget(time_limit=task["time"])
    sides = []
    for n, text in enumerate((task["a"], task["b"])):
        options, seed = _options(text), 1000 * index + n
        if options == "python":
            play = (game, go_playout(game, "decisive"))
            sides.append(MCTS(budget, SearchConfig(playout="decisive"), seed, play))
        else:
            sides.append(GoSearch(game, budget, SearchConfig(), seed, options))
    a_colour = index % 2
    state = game.initial_state()
    sims = [0, 0]
    plies = 0
    while not game.is_terminal(state) and plies < 3 * game.points:
        side = 0 if state[2] == a_colour else 1
        result = sides[side].search(game, state)
        sims[side] += result.iterations
        state = game.next_state(state, result.best_action)
        plies += 1
    black_won = game.score(state) > 0
    return {
        "index": index,
        "a_black": a_colour == 0,
        "a_won": black_won == (a_colour == 0),
        "score": game.score(state),
        "plies": plies,
        "a_sims_per_move": sims[0] / max(1, (plies + 1 - a_colour) // 2),
        "b_sims_per_move": sims[1] / max(1, (plies + a_colour) // 2),
    }


def search_ab(args: argparse.Namespace) -> None:
    """``--ab GAMES``: Go's compiled search with options ``--a`` against ``--b`` (``GoOptions``
    fields, ``"rave=0,heavy=0"``; ``python``: the Python tree with compiled playouts), on the
    core (positional superko, komi 7.5), ``--ab-time`` seconds a move each, colours
    alternating; each game appended to ``--ab-out`` (a rerun continues), ``--workers``
    processes. Prints A's wins with a Wilson interval."""
    from multiprocessing import Pool

    from mcts_agents.ratings import wilson_interval

    out = Path(args.ab_out)
    done = [json.loads(line) for line in out.read_text().splitlines()] if out.exists() else []
    have = {r["index"] for r in done}
    tasks = [
        {"index": i, "size": args.size, "time": args.ab_time, "a": args.a, "b": args.b}
        for i in range(args.ab)
        if i not in have
    ]
    with Pool(args.workers) as pool:
        for record in pool.imap_unordered(_ab_game, tasks):
            record.update(a=args.a, b=args.b, time=args.ab_time)
            with out.open("a") as sink:
                sink.write(json.dumps(record) + "\n")
            done.append(record)
            print(json.dumps(record), flush=True)
    wins = sum(r["a_won"] for r in done)
    low, high = wilson_interval(wins, len(done))
    print(
        f"A ({args.a or 'defaults'}) against B ({args.b or 'defaults'}), {args.ab_time} s a "
        f"move, {args.size}x{args.size}: {wins}/{len(done)} wins, 95% [{low:.2f}, {high:.2f}]"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="small budgets")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--size", type=int, default=9)
    parser.add_argument("--gnugo", "--games", type=int, default=0, help="games against GNU Go")
    parser.add_argument("--level", type=int, default=1, help="GNU Go's level")
    parser.add_argument(
        "--move-time", "--seconds", type=float, default=2.0, help="our seconds a move"
    )
    parser.add_argument("--out", default="go_gnugo.jsonl", help="JSON lines of the games")
    parser.add_argument("--no-speed", action="store_true", help="only the games")
    parser.add_argument("--ab", type=int, default=0, help="games: options --a against --b")
    parser.add_argument("--a", default="", help="side A's GoOptions (rave=0,...) or python")
    parser.add_argument("--b", default="python", help="side B's GoOptions or python")
    parser.add_argument("--ab-time", type=float, default=0.5, help="seconds a move in --ab")
    parser.add_argument("--ab-out", default="go_search_ab.jsonl", help="results of --ab")
    parser.add_argument("--workers", type=int, default=1, help="games at a time (--ab, --gnugo)")
    parser.add_argument(
        "--judge", action="store_true", help="GNU Go's score of --out's losses at our first pass"
    )
    args = parser.parse_args()
    info = machine_info()
    print_machine(info)
    if not args.no_speed:
        rows = speed(args.size, args.repeats, args.quick)
        board = f"{args.size}x{args.size}"
        print(f"\n{board}, from the empty board, one process, median of {args.repeats}")
        print_table(["path", "sims", "sims/s", "spread", "x copies", "x OpenSpiel"], rows)
    if args.ab:
        search_ab(args)
    if args.gnugo:
        gnugo_games(args)
    if args.judge:
        judge_losses(args)


if __name__ == "__main__":
    main()
