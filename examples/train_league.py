"""MaskablePPO on Connect Four against a league: the ladder curriculum plus self-play snapshots,
rated at the end on the calibrated ladder (``mcts-agents rate``).

The training env (``sb3_vec_env``, the native vector env) draws each sub-env's opponent at every
episode start from an ``OpponentPool``: by default a ladder level that moves up or down to keep
the learner's score in ``--band`` (0.4 to 0.7) over the last ``--window`` games against it,
plus frozen snapshots of the learner every ``--snapshot-every`` steps (``PoolCallback``, at most
``--cap``), drawn in ``--others`` of the episodes; with ``--fixed`` the baseline, ``--opponent``
(``mcts:iterations=5``) only. PPO is set up as the README's example
(``examples/train_maskable_ppo_vs_mcts.py``): rollouts of 1024 steps in all, minibatches of
128. The callback logs the learner's Elo on the ladder scale (fitted from its games against
ladder levels, the levels held fixed) to SB3's logger (TensorBoard with ``--tensorboard
DIR``). At the end the model is saved and rated with ``rate`` (what ``mcts-agents rate
connect_four policy:model=PATH.zip --games 400`` does); ``--checkpoint-every K`` also saves it
every K steps and ``--log FILE`` writes the run's record (``benchmarks/league.py`` runs both
arms over seeds and draws the curves).

Run (the ``rl`` extra):
    python examples/train_league.py                        # 20k steps, under a minute
    python examples/train_league.py --full --seed 1        # 200k steps, rated with 400 games
    python examples/train_league.py --full --fixed --seed 1   # the baseline of issue 40
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from mcts_agents.rl.pool import OpponentPool


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--full", action="store_true", help="200k steps, 400 rating games")
    parser.add_argument("--steps", type=int, default=None)
    parser.add_argument("--envs", type=int, default=16)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--fixed", action="store_true", help="against --opponent only")
    parser.add_argument("--opponent", default="mcts:iterations=5", help="--fixed's opponent")
    parser.add_argument("--start", default="L1", help="the curriculum's first level")
    parser.add_argument("--window", type=int, default=50)
    parser.add_argument(
        "--rollout", type=int, default=1024, help="PPO's steps per update, all envs together"
    )
    parser.add_argument("--band", type=float, nargs=2, default=(0.4, 0.7))
    parser.add_argument(
        "--net", type=int, nargs="+", default=[64, 64], help="the policy's hidden layers"
    )
    parser.add_argument(
        "--others", type=float, default=0.2, help="the share of episodes against the snapshots"
    )
    parser.add_argument("--snapshot-every", type=int, default=20_000)
    parser.add_argument("--cap", type=int, default=5)
    parser.add_argument("--rate-games", type=int, default=None)
    parser.add_argument("--save", default="runs/league_ppo")
    parser.add_argument("--tensorboard", default=None)
    parser.add_argument(
        "--checkpoint-every", type=int, default=None, help="also save the model every K steps"
    )
    parser.add_argument("--log", default=None, help="a JSON record of the run (curve, rating)")
    args = parser.parse_args(argv)
    steps = args.steps or (200_000 if args.full else 20_000)
    rate_games = args.rate_games or (400 if args.full else 40)
    try:
        from sb3_contrib import MaskablePPO
        from stable_baselines3.common.callbacks import (
            BaseCallback,
            CallbackList,
            CheckpointCallback,
        )

        from mcts_agents.rl.pool_callback import PoolCallback
        from mcts_agents.rl.sb3_vec import sb3_vec_env
    except ImportError as error:
        print(f'this example needs the rl extra: {error}\n    pip install ".[rl]"', file=sys.stderr)
        return 2
    from mcts_agents.agents.policy import PolicyAgent
    from mcts_agents.arena.rating import rate

    if args.fixed:
        pool = OpponentPool([args.opponent], seed=args.seed)
    else:
        pool = OpponentPool.curriculum(
            "connect_four",
            start=args.start,
            band=args.band,
            window=args.window,
            seed=args.seed,
            others=args.others,
        )
    env = sb3_vec_env(args.envs, "connect_four", opponent=pool, learner="random", seed=args.seed)
    model = MaskablePPO(  # the README's setup (examples/train_maskable_ppo_vs_mcts.py)
        "MlpPolicy",
        env,
        n_steps=max(args.rollout // args.envs, 1),
        batch_size=128,
        policy_kwargs={"net_arch": list(args.net)},
        seed=args.seed,
        verbose=1,
        tensorboard_log=args.tensorboard,
    )
    every = None if args.fixed else args.snapshot_every
    callback = PoolCallback(pool, snapshot_every=every, cap=args.cap)
    callbacks: list[BaseCallback] = [callback]
    if args.checkpoint_every:  # saved as {save}_{steps}_steps.zip
        callbacks.append(
            CheckpointCallback(
                max(1, args.checkpoint_every // args.envs),
                str(Path(args.save).parent),
                name_prefix=Path(args.save).name,
            )
        )
    start = time.perf_counter()
    model.learn(total_timesteps=steps, callback=CallbackList(callbacks))
    train_seconds = time.perf_counter() - start
    model.save(args.save)
    for step, elo, low, high in callback.history[-5:]:
        print(f"step {step}: Elo {elo:.0f} [{low:.0f}, {high:.0f}] on the ladder's scale")
    agent = PolicyAgent.from_sb3(model, deterministic=True, name="ppo")
    rating = rate(agent, "connect_four", games=rate_games, seed=args.seed)
    print(f"rated: {rating.elo:.0f} [{rating.low:.0f}, {rating.high:.0f}] ({rating.games} games)")
    if args.log:
        record = {
            "args": vars(args),
            "steps": steps,
            "train_seconds": round(train_seconds, 1),
            "history": callback.history,
            "rating": {"elo": rating.elo, "low": rating.low, "high": rating.high},
            "rate_games": rating.games,
            "pool": pool.stats(),
        }
        Path(args.log).write_text(json.dumps(record, indent=1) + "\n")
    print(
        f"saved {args.save}.zip; rate it again: mcts-agents rate connect_four "
        f"policy:model={args.save}.zip --games {rate_games}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
