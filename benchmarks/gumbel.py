"""Gumbel search (``selection="gumbel"``) against PUCT, and Gumbel AlphaZero's training targets.

Run from the repository root (needs the ``az`` extra, torch)::

    python -m benchmarks.gumbel compare --model DIR [--game connect_four] [--games 200]
                                        [--simulations 2,4,8,16,32,200] [--workers 2]
    python -m benchmarks.gumbel ttt [--iterations 40 | --minutes 3] [--simulations 8]
                                    [--games 200] [--out DIR] [--json PATH]
    python -m benchmarks.gumbel c4 --out runs/c4-gumbel [--minutes 45] [--simulations 16]
                                   [--teacher K] [--steps 64] [--gate-simulations N]
                                   [--no-resign] [--games-per-iteration 64] [--buffer N]
                                   [--gate-every 20] [--precision bfloat16]
                                   [--device cpu] [--workers 2]
                                   [--threads 1] [--games 400]

- ``compare``: the same trained network searched by Gumbel search (``--gumbel``: without the
  root's draw by default, ``gumbel_scale=0``, the stronger to play with) and by PUCT at each
  simulation count ``n`` (both the Python search, leaves in batches of up to 8, MCTS-Solver
  on, PUCT ``c = 1.5``), ``--games`` games per ``n`` in pairs from one opening of 2 uniformly
  random plies with the seats swapped; then Gumbel at 8 against PUCT at 32 (the issue's
  few-simulation target: >= 50%). Gumbel's score, its Wilson 95% interval, and the Elo
  difference with the interval's Elo bounds.
- ``ttt``: the issue's tic-tac-toe target: a network trained by Gumbel self-play at
  ``--simulations`` (8) per move, for ``--iterations`` iterations (a fixed count, so that a
  loaded machine trains the same network; ``--minutes`` instead for a time budget), then
  ``--games`` (200) games against perfect play (``benchmarks.alphazero``'s negamax player,
  which draws uniformly among the moves that keep its value), seats alternating, the network
  searching ``--simulations`` per move with Gumbel search (the run's ``--max-actions`` and
  ``--c-scale``) without the draw (``gumbel_scale=0``, deterministic, as PUCT plays), with the
  draw (as self-play searched), and with PUCT. Target: no loss. The defaults (``--max-actions
  4``: with 8 simulations, four actions once each and the best two twice more, rather than
  eight one-ply looks; ``--c-scale 0.1``; no gate) are those of the runs that met it
  (``docs/benchmarks.md``).
- ``c4``: the Connect Four run of the issue: Gumbel self-play at ``--simulations`` per move
  for ``--minutes`` (45) on ``--workers`` processes (``C4_CHANGES``: the PUCT run's network,
  trainer and gate of ``benchmarks.alphazero_connect_four``, without root noise or playout
  caps; ``--teacher K``: warm-started by K iterations of its teacher's games; ``--steps``
  training steps an iteration, ``--gate-simulations``, ``--no-resign``,
  ``--games-per-iteration``, ``--buffer``, ``--gate-every`` (0: no gate), ``--precision``
  (the training steps'), ``--device`` (where the training steps run; the games always run on
  the CPU workers); ``--threads`` torch
  threads for the training steps, while the self-play workers wait), then
  ``benchmarks.alphazero_c4_eval``'s evaluation: 400 games at 200 simulations against MCTS
  with 1,000 uniform-playout iterations, with Gumbel search (the run's ``--c-scale``) and with
  PUCT, the raw policy against the one-ply win-or-block player, and Gumbel at 8 simulations
  against PUCT at 32 with the same network (no draw, the run's ``--c-scale``).

Seats, openings and searches are seeded (``--seed``): the same command plays the same games.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # `python benchmarks/...` too

from benchmarks._common import print_table, run_with_torch
from mcts_agents import Budget, SearchConfig, derive_seed
from mcts_agents.ratings import elo_from_rate, wilson_interval
from mcts_agents.search import MCTS

SIMULATIONS = (2, 4, 8, 16, 32, 200)
_MODELS: dict[str, Any] = {}  # a worker's opened models, by path


def _game(name: str) -> Any:
    from mcts_agents.envs.games.connect_four import ConnectFour
    from mcts_agents.envs.games.mnk import MNK

    return {"connect_four": ConnectFour(), "tic_tac_toe": MNK(3, 3, 3)}[name]


def searcher(
    evaluator: Any, search: str, simulations: int, seed: int, batch: int = 8, **gumbel: Any
) -> MCTS:
    """The Python search over ``evaluator``: ``search`` is ``"puct"``, ``"gumbel"`` (the
    training's Gumbel search: draws of scale 1) or ``"gumbel-det"`` (no draw, ``gumbel_scale=0``:
    the considered actions are the best priors and the move is deterministic, as PUCT's);
    ``gumbel``: more ``SearchConfig`` options of Gumbel search."""
    config = SearchConfig(
        selection="gumbel" if search.startswith("gumbel") else "puct",
        gumbel_scale=0.0 if search == "gumbel-det" else 1.0,
        c=1.5,
        evaluator=evaluator,
        batch_size=batch,
        backend="python",
        **(gumbel if search.startswith("gumbel") else {}),
    )
    return MCTS(Budget(iterations=simulations), config, seed)


def _evaluator(model: str) -> Any:
    if model not in _MODELS:
        from mcts_agents.agents.models import open_model

        _MODELS[model] = open_model(model, "cpu", threads=1)[0]
    return _MODELS[model]


def play_pair_game(task: tuple[Any, ...]) -> float:
    """One game: side A (``(search, n)``) against side B, A in ``seat``, after 2 random plies
    drawn from ``seed``; A's points. ``gumbel``: Gumbel search's options."""
    game_name, model, side_a, side_b, seed, seat, gumbel = task
    game, evaluator = _game(game_name), _evaluator(model)
    rng = random.Random(seed)
    state = game.initial_state()
    for _ in range(2):
        state = game.next_state(state, rng.choice(list(game.legal_actions(state))))
    sides = [
        searcher(evaluator, side_a[0], side_a[1], derive_seed(seed, 1), **gumbel),
        searcher(evaluator, side_b[0], side_b[1], derive_seed(seed, 2), **gumbel),
    ]
    seats = sides if seat == 0 else sides[::-1]
    while not game.is_terminal(state):
        state = game.next_state(state, seats[game.to_play(state)].search(game, state).best_action)
    returns = game.returns(state)
    mine, theirs = returns[seat], returns[1 - seat]
    return 1.0 if mine > theirs else 0.5 if mine == theirs else 0.0


def pair_match(
    game: str, model: str, side_a: tuple[str, int], side_b: tuple[str, int], games: int,
    seed: int, pool: Any, **gumbel: Any,
) -> dict[str, Any]:  # fmt: skip
    """``games`` games of A against B, pairs from one opening with seats swapped: A's score,
    its Wilson 95% interval, and the Elo difference with the interval's bounds."""
    tasks = [
        (game, model, side_a, side_b, derive_seed(seed, index // 2), index % 2, gumbel)
        for index in range(games)
    ]
    started = time.perf_counter()
    points = list(
        pool.map(play_pair_game, tasks, chunksize=1) if pool else map(play_pair_game, tasks)
    )
    total = sum(points)
    low, high = wilson_interval(total, games)
    return {
        "a": f"{side_a[0]} {side_a[1]}",
        "b": f"{side_b[0]} {side_b[1]}",
        "games": games,
        "wins": sum(1 for p in points if p == 1.0),
        "draws": sum(1 for p in points if p == 0.5),
        "losses": sum(1 for p in points if p == 0.0),
        "score": total / games,
        "ci95": [low, high],
        "elo": elo_from_rate(total / games),
        "elo95": [elo_from_rate(low), elo_from_rate(high)],
        "seconds": time.perf_counter() - started,
    }


def _elo(value: float) -> str:
    return f"{value:+.0f}" if math.isfinite(value) else ("+inf" if value > 0 else "-inf")


def _match_row(r: dict[str, Any]) -> list[str]:
    low, high = r["ci95"]
    return [
        r["a"],
        r["b"],
        f"{r['wins']}/{r['draws']}/{r['losses']}",
        f"{100 * r['score']:.1f}% [{100 * low:.1f}, {100 * high:.1f}]",
        f"{_elo(r['elo'])} [{_elo(r['elo95'][0])}, {_elo(r['elo95'][1])}]",
        f"{r['seconds']:.0f}",
    ]


def compare(args: argparse.Namespace) -> dict[str, Any]:
    sims = [int(n) for n in args.simulations.split(",")]
    gumbel = args.gumbel
    pairs = [((gumbel, n), ("puct", n)) for n in sims] + [((gumbel, 8), ("puct", 32))]
    results = []
    context = multiprocessing.get_context("spawn")
    pool = context.Pool(args.workers) if args.workers > 1 else None
    try:
        for index, (a, b) in enumerate(pairs):
            seed = derive_seed(args.seed, index)
            options = {"gumbel_max_actions": args.max_actions, "gumbel_c_scale": args.c_scale}
            result = pair_match(args.game, args.model, a, b, args.games, seed, pool, **options)
            results.append(result)
            print_table(["player", "opponent", "W/D/L", "score [95%]", "Elo [95%]", "s"],
                        [_match_row(result)])  # fmt: skip
    finally:
        if pool is not None:
            pool.close()
    print(f"# {args.game}, model {args.model}: Gumbel against PUCT, {args.games} games each")
    print_table(["player", "opponent", "W/D/L", "score [95%]", "Elo [95%]", "s"],
                [_match_row(r) for r in results])  # fmt: skip
    return {"game": args.game, "model": args.model, "results": results}


# ---------------------------------------------------------------------------- tic-tac-toe
class _Player:
    def __init__(self, evaluator: Any, search: str, simulations: int, seed: int, **gumbel: Any):
        self.search = searcher(evaluator, search, simulations, seed, **gumbel)

    def move(self, state: Any) -> int:
        from benchmarks.alphazero import GAME

        return self.search.search(GAME, state).best_action


def ttt_config(args: argparse.Namespace) -> Any:
    """``benchmarks.alphazero``'s tic-tac-toe run with Gumbel self-play at ``--simulations``."""
    from mcts_agents.alphazero.learn import NetConfig, RunConfig, TrainConfig

    return RunConfig(
        net=NetConfig(channels=32, blocks=2, value_hidden=32),
        training=TrainConfig(batch_size=128, learning_rate=2e-3, weight_decay=1e-4),
        simulations=args.simulations,
        search_batch=8,
        search="gumbel",
        gumbel_max_actions=args.max_actions,
        gumbel_c_scale=args.c_scale,
        games_per_iteration=32,
        steps_per_iteration=32,
        buffer_capacity=20_000,
        gate_every=args.gate_every,
        gate_games=40,
        seed=args.seed,
        workers=args.workers,
    )


def ttt(args: argparse.Namespace) -> dict[str, Any]:
    from benchmarks.alphazero import Negamax, against_perfect
    from mcts_agents.alphazero.learn import TorchEvaluator, load_net, train

    config = ttt_config(args)
    with tempfile.TemporaryDirectory() as scratch:
        out = Path(args.out) if args.out else Path(scratch) / "run"
        steps = None if args.minutes else args.iterations * config.steps_per_iteration
        summary = train(_game("tic_tac_toe"), out, config=config, steps=steps, minutes=args.minutes)
        evaluator = TorchEvaluator(load_net(out), "cpu")
    print(
        f"# tic-tac-toe, Gumbel self-play at {args.simulations} simulations: trained "
        f"{summary.seconds:.0f} s, {summary.iteration} iterations, {summary.step} steps, "
        f"{summary.promotions} promotions"
    )
    solver, rows, results = Negamax(_game("tic_tac_toe")), [], {}
    for search in ("gumbel-det", "gumbel", "puct"):
        begun = time.perf_counter()
        counts = against_perfect(
            lambda seed, s=search: _Player(
                evaluator,
                s,
                args.simulations,
                seed,
                gumbel_max_actions=args.max_actions,
                gumbel_c_scale=args.c_scale,
            ),
            args.games,
            derive_seed(args.seed, 99),
            solver,
        )
        seconds = time.perf_counter() - begun
        results[search] = {**counts, "seconds": seconds}
        rows.append(
            [search, *(str(counts[k]) for k in ("wins", "draws", "losses")), f"{seconds:.0f}"]
        )
    print(
        f"# {args.games} games against perfect play, seats alternating, {args.simulations} "
        "simulations a move"
    )
    print_table(["search", "wins", "draws", "losses", "seconds"], rows)
    return {
        "config": config.to_dict(),
        "training": {
            "seconds": summary.seconds,
            "iterations": summary.iteration,
            "steps": summary.step,
            "promotions": summary.promotions,
        },
        "results": results,
    }


# ---------------------------------------------------------------------------- Connect Four
#: ``c4``: the PUCT run's settings (``benchmarks.alphazero_connect_four.SETTINGS``) with Gumbel
#: self-play and gate at ``--simulations``: no root noise (the Gumbel draw explores), no playout
#: caps (every search is a cheap one).
C4_CHANGES: dict[str, Any] = {"search": "gumbel", "root_noise": None, "playout_cap": None}


def c4(args: argparse.Namespace) -> dict[str, Any]:
    from benchmarks.alphazero_c4_eval import MCTS_1000, match
    from benchmarks.alphazero_connect_four import SETTINGS, TEACHER
    from mcts_agents.alphazero.learn import RunConfig, train

    teacher = {**TEACHER, "teacher_iterations": args.teacher} if args.teacher else {}
    settings = {
        **SETTINGS,
        **teacher,
        **C4_CHANGES,
        "simulations": args.simulations,
        "gate_simulations": args.simulations,
        "gumbel_c_scale": args.c_scale,
        "seed": args.seed,
        "workers": args.workers,
    }
    if args.steps is not None:
        settings["steps_per_iteration"] = args.steps
    if args.gate_simulations is not None:
        settings["gate_simulations"] = args.gate_simulations
    if args.no_resign:
        settings["resign"] = None
    if args.precision is not None:
        settings["training"] = {**settings["training"], "precision": args.precision}
    for option, key in (
        ("games_per_iteration", "games_per_iteration"),
        ("buffer", "buffer_capacity"),
        ("gate_every", "gate_every"),
    ):
        if getattr(args, option) is not None:
            settings[key] = getattr(args, option)
    print(json.dumps(settings, default=str), flush=True)
    summary = train(
        _game("connect_four"),
        args.out,
        config=RunConfig.from_dict(settings),
        minutes=args.minutes,
        device=args.device,
        on_iteration=lambda line: print(json.dumps(line), flush=True),
    )
    print(
        f"# trained {summary.seconds:.0f} s: {summary.iteration} iterations, {summary.step} steps"
    )
    results = [
        match(
            f"az:model={args.out},simulations=200,{search},gumbel_c_scale={args.c_scale}",
            MCTS_1000,
            args.games,
            args.seed,
            args.workers,
        )
        for search in ("search=gumbel,gumbel_scale=0", "search=puct")
    ]
    results.append(
        match(f"policy:model={args.out}", "win-or-block", args.games, args.seed, args.workers)
    )
    few = f"az:model={args.out},search=gumbel,gumbel_scale=0,gumbel_c_scale={args.c_scale}"
    results.append(
        match(
            f"{few},simulations=8",
            f"az:model={args.out},simulations=32,search=puct",
            args.games,
            args.seed,
            args.workers,
        )
    )
    for r in results:
        low, high = r["ci95"]
        print(f"{r['a']} vs {r['b']}: {100 * r['score']:.1f}% [{100 * low:.1f}, {100 * high:.1f}]")
    return {"settings": settings, "seconds": summary.seconds, "results": results}


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    one = commands.add_parser("compare")
    one.add_argument("--model", required=True, help="a training run's folder or a .pt file")
    one.add_argument("--game", default="connect_four", choices=("connect_four", "tic_tac_toe"))
    one.add_argument("--games", type=int, default=200, help="per simulation count (even)")
    one.add_argument("--simulations", default=",".join(map(str, SIMULATIONS)))
    one.add_argument(
        "--gumbel",
        default="gumbel-det",
        choices=("gumbel-det", "gumbel"),
        help="Gumbel's side: no draw (gumbel_scale=0, default) or draws of scale 1",
    )
    one.add_argument("--max-actions", type=int, default=16, help="gumbel_max_actions")
    one.add_argument("--c-scale", type=float, default=0.1, help="gumbel_c_scale")
    two = commands.add_parser("ttt")
    two.add_argument("--iterations", type=int, default=40, help="training iterations")
    two.add_argument("--minutes", type=float, default=None, help="train this long instead")
    two.add_argument("--simulations", type=int, default=8)
    two.add_argument("--games", type=int, default=200)
    two.add_argument("--out", default=None, help="the run's folder (default: a temporary one)")
    two.add_argument("--max-actions", type=int, default=4, help="gumbel_max_actions")
    two.add_argument("--c-scale", type=float, default=0.1, help="gumbel_c_scale")
    two.add_argument("--gate-every", type=int, default=0, help="iterations; 0: no gate")
    three = commands.add_parser("c4")
    three.add_argument("--out", required=True)
    three.add_argument("--minutes", type=float, default=45.0)
    three.add_argument("--simulations", type=int, default=16)
    three.add_argument("--games", type=int, default=400)
    three.add_argument("--c-scale", type=float, default=0.1, help="gumbel_c_scale")
    three.add_argument(
        "--teacher", type=int, default=0, help="warm start: K iterations of teacher games"
    )
    three.add_argument(
        "--steps", type=int, default=None, help="training steps an iteration (default: 64)"
    )
    three.add_argument(
        "--gate-simulations", type=int, default=None, help="the gate's (default: --simulations)"
    )
    three.add_argument(
        "--no-resign", action="store_true", help="no resignation in self-play (default: -0.95)"
    )
    three.add_argument(
        "--games-per-iteration", type=int, default=None, help="self-play games (default: 64)"
    )
    three.add_argument(
        "--buffer", type=int, default=None, help="replay positions (default: 200,000)"
    )
    three.add_argument(
        "--gate-every", type=int, default=None, help="iterations between gates (default: 20)"
    )
    three.add_argument(
        "--precision", default=None, choices=("float32", "bfloat16"), help="training steps'"
    )
    three.add_argument("--device", default=None, help="where the steps run (default: cuda if any)")
    for command in (one, two, three):
        command.add_argument("--workers", type=int, default=1, help="processes")
        command.add_argument("--threads", type=int, default=1, help="torch threads here")
        command.add_argument("--seed", type=int, default=0)
        command.add_argument("--json", default=None, help="save the results here")
    args = parser.parse_args(argv)
    return run_with_torch(args, {"compare": compare, "ttt": ttt, "c4": c4}[args.command])


if __name__ == "__main__":
    main()
