"""Train an AlphaZero network for Connect Four by self-play, then play it against MCTS.

Shows the ``az`` extra end to end: ``mcts_agents.alphazero.learn.train`` runs self-play with the
best network (PUCT search, root noise), training steps and the gate, writing a run folder that a
second call resumes; the network as last trained (the run's ``checkpoint.pt``) then plays through
the agent spec ``az:model=FILE,simulations=N`` (the Python search with the network as its batch
evaluator) against three yardsticks in the arena, seats swapped: random moves and plain MCTS at
100 and 1000 iterations of uniform playouts per move; the script prints each score, what runs of
these settings scored, and the command of the documented 45-minute result.

A new run starts warm (Expert Iteration: its first 100 iterations' games are played by our
compiled MCTS), then plays AlphaZero's self-play: these are the settings of
``benchmarks/alphazero_connect_four.py --teacher``. 5 minutes (the default) end inside the warm
start, before the first gate (iteration 20) on a busy machine: the gated best network (``best.pt``)
may still be the untrained one, which is why the last trained one is evaluated. On 2 quiet CPU
cores that network scored 90% against MCTS 100 and 70% against MCTS 1000 after 3.7 minutes, and
85.1% against MCTS 1000 after 45 minutes (``docs/benchmarks.md``, run 9). Teacher games for all
45 minutes reach 88-91% (``docs/alphazero.md``).

Needs the ``az`` extra (torch):
    pip install ".[az]"     # CPU-only machine: first pip install torch --index-url
                            # https://download.pytorch.org/whl/cpu

Run:
    python examples/alphazero_connect_four.py              # 5 minutes, then 10 games a yardstick
    python examples/alphazero_connect_four.py 45 --games 40
    python examples/alphazero_connect_four.py --quick      # a few steps, 2 games: a smoke test

The run folder (``--out``, default ``runs/alphazero_connect_four``) is resumed by the next call;
the same run is ``mcts-agents train connect_four --minutes 5 --out DIR`` on the command line.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from mcts_agents.arena import play_match
from mcts_agents.envs import connect_four_v0
from mcts_agents.envs.games.connect_four import ConnectFour


def import_az() -> Any:
    """``mcts_agents.alphazero.learn``, or exit with a clear message if torch is missing."""
    try:
        from mcts_agents.alphazero import learn as az
    except ImportError as error:
        print(f"this example needs the 'az' extra (torch): {error}", file=sys.stderr)
        sys.exit(2)
    import torch

    torch.set_num_threads(1)  # small networks: one thread is fastest and leaves cores free
    return az


def connect_four_run(az: Any, workers: int) -> Any:
    """The settings of ``benchmarks/alphazero_connect_four.py --teacher``: a warm start by
    Expert Iteration (the first 100 iterations' games are plain MCTS's, 5,000 simulations a
    move), then AlphaZero's self-play with playout caps, resignation and a gate of 200 games."""
    return az.RunConfig(
        net=az.NetConfig(channels=64, blocks=4, value_hidden=64),
        training=az.TrainConfig(batch_size=256, learning_rate=1e-3, weight_decay=1e-4),
        simulations=128,
        search_batch=16,
        root_noise=(1.0, 0.25),
        temperature=(10, 1.0, 0.0),
        games_per_iteration=64,
        steps_per_iteration=64,
        buffer_capacity=200_000,
        gate_every=20,
        gate_games=200,
        gate_simulations=64,
        playout_cap=(0.5, 32),
        resign=(-0.95, 0.2),
        value_mix=0.3,
        teacher_iterations=100,
        teacher_simulations=5000,
        workers=workers,
    )


#: The yardsticks: random moves, then plain MCTS of uniform playouts (the documented opponents).
YARDSTICKS = (
    "random",
    "mcts:iterations=100,playout=random,backend=python",
    "mcts:iterations=1000,playout=random,backend=python",
)

#: What the default run is measured against, and the command of the documented 45-minute result.
EXPECTATION = """\
== what to expect
On 2 quiet CPU cores these settings scored 90% against MCTS 100 and 70% against MCTS 1000 after
3.7 minutes (iteration 20), 85.1% against MCTS 1000 after 45 minutes (docs/benchmarks.md, run 9);
a busy machine gets less far in the same minutes. Teacher games for all 45 minutes reached 88.4%
against MCTS 1000 (90.8% with --precision bfloat16 on a CPU with AVX-512 BF16; docs/alphazero.md):
    python -m benchmarks.gumbel c4 --out runs/c4t --minutes 45 --simulations 32 --teacher 200 \\
        --steps 240 --games-per-iteration 192 --buffer 600000 --gate-every 0 --no-resign \\
        --workers 2 --threads 2 --device cpu
It ends by playing that network against MCTS 1000 (400 games); or play it yourself:
    mcts-agents arena connect_four --agents az:model=runs/c4t,simulations=200 \\
        mcts:iterations=1000,playout=random,backend=python --games 400"""


def score(folder: Path, simulations: int, opponent: str, games: int) -> str:
    """The network last trained (``checkpoint.pt``) against ``opponent``: one line."""
    agent = f"az:model={folder / 'checkpoint.pt'},simulations={simulations}"
    result = play_match(connect_four_v0.env, [agent, opponent], games=games, seed=0)
    stats = next(s for s in result.standings() if s.name == agent)
    return (
        f"score of the network: {stats.wins + 0.5 * stats.draws:g} / {stats.games} "
        f"({stats.wins} wins, {stats.draws} draws, {stats.losses} losses) vs {opponent}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("minutes", nargs="?", type=float, default=5.0, help="training minutes")
    parser.add_argument("--out", default="runs/alphazero_connect_four", help="the run's folder")
    parser.add_argument(
        "--games", type=int, default=10, help="evaluation games a yardstick (default 10)"
    )
    parser.add_argument("--simulations", type=int, default=200, help="az search per move")
    parser.add_argument("--workers", type=int, default=2, help="self-play processes (a new run)")
    parser.add_argument("--quick", action="store_true", help="a few steps, 2 games (smoke test)")
    args = parser.parse_args()
    az = import_az()
    game = ConnectFour()  # the rules core of connect_four_v0
    yardsticks = YARDSTICKS
    if args.quick:
        folder = Path(tempfile.mkdtemp(prefix="alphazero_connect_four_"))
        config = az.RunConfig(
            net=az.NetConfig(channels=8, blocks=1, value_hidden=8),
            simulations=8,
            search_batch=4,
            games_per_iteration=2,
            steps_per_iteration=4,
            gate_every=0,
        )
        budget: dict[str, Any] = {"steps": 8}
        games, simulations, yardsticks = 2, 16, ("random", "mcts:iterations=100")
    else:
        folder = Path(args.out)
        config = None if (folder / "run.json").exists() else connect_four_run(az, args.workers)
        budget = {"minutes": args.minutes}
        games, simulations = args.games, args.simulations

    print(f"== training connect_four in {folder} ({budget})")
    start = time.perf_counter()

    def progress(line: dict[str, Any]) -> None:
        loss = line["loss"]["total"]
        gate = line["gate"]
        print(
            f"iteration {line['iteration']:3d}  step {line['step']:5d}  "
            f"loss {'-' if loss is None else f'{loss:.3f}'}  "
            f"self-play length {line['selfplay']['mean_length']:.1f}"
            + ("" if gate is None else f"  gate {gate['score']:.2f}")
            + (" promoted" if gate is not None and gate["promoted"] else ""),
            flush=True,
        )

    summary = az.train(game, folder, config=config, on_iteration=progress, **budget)
    print(
        f"-- {summary.step} training steps in all ({len(summary.metrics)} iterations in "
        f"{time.perf_counter() - start:.0f} s), {summary.promotions} promotions by the gate"
    )

    print(
        f"== the network as last trained ({folder / 'checkpoint.pt'}, {simulations} simulations "
        f"a move) against {len(yardsticks)} yardsticks, {games} games each, seats swapped"
    )
    for opponent in yardsticks:
        print(score(folder, simulations, opponent, games), flush=True)
    print(EXPECTATION)
    if args.quick:
        shutil.rmtree(folder)


if __name__ == "__main__":
    main()
