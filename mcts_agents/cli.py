"""Command line: ``mcts-agents demo [ENV]`` plays the MCTS agent against a random agent.

The ``play`` and ``arena`` commands arrive with the arena; until then they exit with code 2
and say so instead of pretending to work.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any

import envs
from mcts_agents.agent import MCTSAgent, RandomAgent

ENV_NAMES = {
    variant: (module, kwargs)
    for module, v in envs.ENV_MODULES.items()
    for variant, kwargs in v.items()
}


def make_env(name: str, render_mode: str | None = None) -> Any:
    """Build a registered env by its short name (``connect_four``, ``gomoku``, ...)."""
    if name not in ENV_NAMES:
        raise SystemExit(f"mcts-agents: unknown env {name!r}; expected one of {sorted(ENV_NAMES)}")
    module, kwargs = ENV_NAMES[name]
    return envs.load(module).env(render_mode=render_mode, **kwargs)


def demo(name: str, iterations: int, seed: int) -> int:
    """MCTS (player_0) against random (player_1): print every position and the result."""
    env = make_env(name, render_mode="ansi")
    env.reset(seed=seed)
    players: dict[str, MCTSAgent | RandomAgent] = {
        env.possible_agents[0]: MCTSAgent(iterations=iterations, seed=seed),
        **{agent: RandomAgent(seed=seed + i) for i, agent in enumerate(env.possible_agents[1:], 1)},
    }
    print(f"{name}: MCTS ({iterations} iterations) as {env.possible_agents[0]} vs random\n")
    print(env.render(), "\n")
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        _, reward, termination, truncation, _ = env.last()
        totals[agent] += reward
        if termination or truncation:
            env.step(None)
            continue
        action = players[agent].act(env)
        env.step(action)
        print(f"{agent} plays {action}")
        print(env.render(), "\n")
    print("result:", ", ".join(f"{agent} {reward:+g}" for agent, reward in totals.items()))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="mcts-agents", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command")
    demo_parser = commands.add_parser("demo", help="MCTS vs random, printed move by move")
    demo_parser.add_argument("env", nargs="?", default="connect_four", choices=sorted(ENV_NAMES))
    demo_parser.add_argument("--iterations", type=int, default=2000)
    demo_parser.add_argument("--seed", type=int, default=0)
    for name in ("play", "arena", "list"):
        commands.add_parser(name, help="not available yet (arrives with the arena)")
    args = parser.parse_args(argv)
    if args.command in (None, "demo"):
        return demo(
            getattr(args, "env", "connect_four"),
            getattr(args, "iterations", 2000),
            getattr(args, "seed", 0),
        )
    print(f"mcts-agents: '{args.command}' is not implemented yet", file=sys.stderr)
    return 2


if __name__ == "__main__":
    raise SystemExit(main())
