"""AlphaZero smoke run: train a network on tic-tac-toe for a few minutes, then play it against
perfect play.

Run from the repository root (needs the ``az`` extra, torch)::

    python -m benchmarks.alphazero [--minutes 3] [--games 200] [--simulations 50] [--out DIR]
                                   [--threads 1] [--seed 0] [--json PATH]

The issue's target: a network trained in at most 3 minutes, searching 50 simulations per move, never
loses in 200 games against perfect play. ``main()`` trains with
``mcts_agents.alphazero.learn.train`` (self-play, training, gating; resumed if ``--out`` holds a
run), then plays ``--games`` games against a perfect player, seats alternating: the network's side
is the Python search (PUCT over ``TorchEvaluator``, ``--simulations`` per move, temperature 0,
MCTS-Solver on); the perfect player is a negamax over the rules core written here (no MCTS code),
which picks uniformly among the moves that keep its game-theoretic value, so the games differ. The
same games are played by the untrained network (the run's seed, no training) for comparison."""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Hashable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # `python benchmarks/...` too

import numpy as np

from benchmarks._common import machine_info, print_machine, print_table, write_json
from mcts_agents import Budget, SearchConfig, derive_seed
from mcts_agents.envs.games.mnk import MNK
from mcts_agents.search import MCTS

GAME = MNK(3, 3, 3)


class Negamax:
    """Exact game values of a two-player zero-sum game by negamax with a memo (small games)."""

    def __init__(self, game: Any) -> None:
        self.game = game
        self.memo: dict[Hashable, float] = {}

    def value(self, state: Any) -> float:
        """The game-theoretic value of a non-terminal ``state`` for the player to move."""
        key = self.game.key(state)
        found = self.memo.get(key)
        if found is None:
            mover = self.game.to_play(state)
            found = max(self.after(state, a, mover) for a in self.game.legal_actions(state))
            self.memo[key] = found
        return found

    def after(self, state: Any, action: int, mover: int) -> float:
        """The value for ``mover`` of playing ``action`` in ``state``."""
        game = self.game
        child = game.next_state(state, action)
        if game.is_terminal(child):
            return float(game.returns(child)[mover])
        value = self.value(child)
        return value if game.to_play(child) == mover else -value

    def best_moves(self, state: Any) -> list[int]:
        """Every move that keeps the mover's value."""
        mover = self.game.to_play(state)
        values = {a: self.after(state, a, mover) for a in self.game.legal_actions(state)}
        top = max(values.values())
        return [a for a, v in values.items() if v == top]


class PerfectPlayer:
    """Plays a move drawn uniformly from ``Negamax.best_moves``."""

    def __init__(self, solver: Negamax, seed: int) -> None:
        self.solver = solver
        self.rng = np.random.default_rng(seed)

    def move(self, state: Any) -> int:
        return int(self.rng.choice(self.solver.best_moves(state)))


class SearchPlayer:
    """The Python search over a batch evaluator, temperature 0."""

    def __init__(self, evaluator: Any, simulations: int, batch: int, seed: int) -> None:
        config = SearchConfig(
            selection="puct", c=1.5, evaluator=evaluator, batch_size=batch, backend="python"
        )
        self.searcher = MCTS(Budget(iterations=simulations), config, seed)

    def move(self, state: Any) -> int:
        return self.searcher.search(GAME, state).best_action


def play(game: Any, players: list[Any]) -> tuple[float, ...]:
    """One game, ``players[p]`` moving for seat ``p``; the final returns."""
    state = game.initial_state()
    while not game.is_terminal(state):
        state = game.next_state(state, players[game.to_play(state)].move(state))
    return tuple(float(r) for r in game.returns(state))


def against_perfect(make_player: Any, games: int, seed: int, solver: Negamax) -> dict[str, int]:
    """``games`` games of ``make_player(seed)`` against the perfect player, seats alternating:
    the player's wins, draws and losses."""
    counts = {"wins": 0, "draws": 0, "losses": 0}
    for index in range(games):
        game_seed = derive_seed(seed, index)
        seat = index % 2
        players = [make_player(derive_seed(game_seed, 1)), PerfectPlayer(solver, game_seed)]
        if seat:
            players.reverse()
        returns = play(GAME, players)
        mine, theirs = returns[seat], returns[1 - seat]
        counts["wins" if mine > theirs else "draws" if mine == theirs else "losses"] += 1
    return counts


def run_config(args: argparse.Namespace) -> Any:
    from mcts_agents.alphazero.learn import NetConfig, RunConfig, TrainConfig

    return RunConfig(
        net=NetConfig(channels=32, blocks=2, value_hidden=32),
        training=TrainConfig(batch_size=128, learning_rate=2e-3, weight_decay=1e-4),
        simulations=args.simulations,
        search_batch=args.batch,
        c=1.5,
        root_noise=(1.0, 0.25),  # about 10 / the legal moves, as AlphaZero scaled alpha
        temperature=(4, 1.0, 0.0),
        games_per_iteration=args.selfplay_games,
        steps_per_iteration=args.steps_per_iteration,
        buffer_capacity=20_000,
        gate_every=args.gate_every,
        gate_games=args.gate_games,
        seed=args.seed,
        workers=args.workers,
    )


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=3.0, help="training time")
    parser.add_argument("--games", type=int, default=200, help="games against perfect play")
    parser.add_argument("--simulations", type=int, default=50, help="per move, both phases")
    parser.add_argument("--batch", type=int, default=8, help="leaves per network call")
    parser.add_argument("--selfplay-games", type=int, default=32, help="per iteration")
    parser.add_argument("--steps-per-iteration", type=int, default=32)
    parser.add_argument("--gate-every", type=int, default=4, help="iterations; 0: no gate")
    parser.add_argument("--gate-games", type=int, default=40)
    parser.add_argument("--workers", type=int, default=1, help="self-play processes")
    parser.add_argument("--threads", type=int, default=1, help="torch threads here")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default=None, help="the run's folder (default: a temporary one)")
    parser.add_argument("--json", default=None, help="save the results here")
    args = parser.parse_args(argv)

    import torch

    from mcts_agents.alphazero.learn import TorchEvaluator, build_net, load_net, train

    torch.set_num_threads(args.threads)
    info = machine_info()
    print_machine(info)
    config = run_config(args)
    with tempfile.TemporaryDirectory() as scratch:
        out = Path(args.out) if args.out else Path(scratch) / "run"
        started = time.perf_counter()
        summary = train(GAME, out, config=config, minutes=args.minutes)
        wall = time.perf_counter() - started
        best = load_net(out)
        last = summary.metrics[-1] if summary.metrics else {}
    print(
        f"# tic-tac-toe: trained {summary.seconds:.0f} s in all ({wall:.0f} s in this call): "
        f"{summary.iteration} iterations, {summary.step} steps, {summary.promotions} promotions; "
        f"last losses {last.get('loss')}"
    )
    solver = Negamax(GAME)
    nets = {
        "trained": best,
        "untrained": build_net(GAME, config.net, seed=derive_seed(args.seed, 3)),
    }
    rows, results = [], {}
    for name, net in nets.items():
        evaluator = TorchEvaluator(net, "cpu")
        begun = time.perf_counter()
        counts = against_perfect(
            lambda seed, ev=evaluator: SearchPlayer(ev, args.simulations, args.batch, seed),
            args.games,
            derive_seed(args.seed, 99),
            solver,
        )
        seconds = time.perf_counter() - begun
        results[name] = {**counts, "seconds": seconds}
        rows.append(
            [
                name,
                str(counts["wins"]),
                str(counts["draws"]),
                str(counts["losses"]),
                f"{seconds:.0f}",
            ]
        )
    print(
        f"# {args.games} games against perfect play, seats alternating, {args.simulations} "
        f"simulations per move (batches of {args.batch})"
    )
    print_table(["network", "wins", "draws", "losses", "seconds"], rows)
    data = {
        "machine": info,
        "config": config.to_dict(),
        "training": {
            "seconds": summary.seconds,
            "iterations": summary.iteration,
            "steps": summary.step,
            "promotions": summary.promotions,
            "last": last,
        },
        "games": args.games,
        "simulations": args.simulations,
        "results": results,
    }
    if args.json:
        write_json(args.json, data)
    return data


if __name__ == "__main__":
    main()
