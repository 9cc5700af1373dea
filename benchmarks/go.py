"""Go: simulations per second (go_v5's two paths side by side, our core, OpenSpiel's C++ MCTS)
and games of the GTP engine against GNU Go.

Run from the repository root::

    python -m benchmarks.go [--quick] [--repeats N] [--size 9]
                            [--games N] [--level L] [--simulations N | --seconds S]
                            [--kernel defend=1] [--workers W] [--out FILE] [--judge]
                            [--profile]

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

``--games N`` (``--gnugo``): the GTP engine (``mcts-agents gtp``) against GNU Go
(``benchmarks/go_gnugo.py``) at ``--simulations N`` a move (``mcts:iterations=N``: the same
strength on any machine) or ``--seconds S`` (``mcts:time=S``: wall time, which depends on the
machine), with ``--kernel`` ``GoOptions`` (``defend=1``: the spec's ``kernel.defend=1``), GNU
Go's ``--level`` (default 10), komi 7.5, colours alternating, ``--workers`` games at a time
(each on one core of its own), each game's record with the simulations a second of the machine;
appended to ``--out`` (JSON lines) as it ends, a rerun plays only the missing game indices. GNU
Go comes from Debian's ``gnugo`` package (``apt-get install gnugo``; ``--gnugo-binary`` or
``$GNUGO`` elsewhere); without it the games are skipped with a line saying so. ``--judge``: GNU
Go's ``final_score`` of each lost game before our engine's first pass; ``--profile``: our
search's win probability beside GNU Go's ``estimate_score`` along each lost game.

``--ab N``: Go's compiled tree search with ``GoOptions`` ``--a`` against ``--b`` (``"rave=0"``,
``"heavy=0,patterns=0"``; ``python``: the Python tree with compiled playouts) at
``--ab-time`` seconds a move (``--ab-simulations N``: N simulations a move), colours
alternating, resumable through ``--ab-out``; ``--ab-first K``: game indices K to K+N-1 (each
game's seeds are ``1000 * index`` and one more: new games after an earlier run's 0 to K-1).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from time import perf_counter
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # `python benchmarks/go.py` too

from benchmarks import go_gnugo
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
    per_move = task.get("simulations")
    budget = Budget(iterations=per_move) if per_move else Budget(time_limit=task["time"])
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
        {
            "index": i,
            "size": args.size,
            "time": args.ab_time,
            "a": args.a,
            "b": args.b,
            "simulations": args.ab_simulations or None,
        }
        for i in range(args.ab_first, args.ab_first + args.ab)
        if i not in have
    ]
    with Pool(args.workers) as pool:
        for record in pool.imap_unordered(_ab_game, tasks):
            record.update(a=args.a, b=args.b, time=args.ab_time, sims=args.ab_simulations)
            with out.open("a") as sink:
                sink.write(json.dumps(record) + "\n")
            done.append(record)
            print(json.dumps(record), flush=True)
    wins = sum(r["a_won"] for r in done)
    low, high = wilson_interval(wins, len(done))
    per_move = f"{args.ab_simulations} simulations" if args.ab_simulations else f"{args.ab_time} s"
    print(
        f"A ({args.a or 'defaults'}) against B ({args.b or 'defaults'}), {per_move} a "
        f"move, {args.size}x{args.size}: {wins}/{len(done)} wins, 95% [{low:.2f}, {high:.2f}]"
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="small budgets")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--size", type=int, default=9)
    go_gnugo.add_arguments(parser)
    parser.add_argument("--no-speed", action="store_true", help="only the games")
    parser.add_argument("--ab", type=int, default=0, help="games: options --a against --b")
    parser.add_argument("--a", default="", help="side A's GoOptions (rave=0,...) or python")
    parser.add_argument("--b", default="python", help="side B's GoOptions or python")
    parser.add_argument("--ab-time", type=float, default=0.5, help="seconds a move in --ab")
    parser.add_argument(
        "--ab-simulations", type=int, default=0, help="simulations a move in --ab (not time)"
    )
    parser.add_argument("--ab-out", default="go_search_ab.jsonl", help="results of --ab")
    parser.add_argument(
        "--ab-first", type=int, default=0, help="first game index (and seed) of --ab: new games"
    )
    parser.add_argument("--workers", type=int, default=1, help="games at a time (--ab, --gnugo)")
    args = parser.parse_args(argv)
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
        go_gnugo.gnugo_games(args)
    if args.judge:
        go_gnugo.judge_losses(args)
    if args.profile:
        go_gnugo.profile_losses(args)


if __name__ == "__main__":
    main()
