"""Command line: ``mcts-agents list | play | arena | demo``.

- ``list``: envs with their options, agent kinds with theirs.
- ``play ENV --p0 human --p1 mcts:time=1``: play in the terminal against agents.
- ``arena ENV --agents SPEC SPEC ... --games N``: a match (two agents) or a round robin, with
  results, Wilson intervals and Elo ratings; ``--out results.jsonl`` records and resumes.
- ``demo [ENV]``: the MCTS agent against a random agent, printed move by move.

A bad spec, env, option or value exits with code 2 and a one-line message on stderr (so does a
results file that is not usable, or that another run is writing); a dead arena worker exits with
code 1.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

from mcts_agents.agent import HumanAgent, MCTSAgent, RandomAgent
from mcts_agents.arena import play_match, tournament
from mcts_agents.errors import SpecError, WorkerError
from mcts_agents.play import Move, play_game
from mcts_agents.specs import ENV_SPECS, listing, make_agent, make_env, parse_env_spec


class UsageError(Exception):
    """A bad command line: reported in one line, exit code 2."""


def _result_line(env: Any, totals: dict[str, float]) -> str:
    returns = {agent: totals.get(agent, 0.0) for agent in env.possible_agents}
    return "result: " + ", ".join(f"{agent} {reward:+g}" for agent, reward in returns.items())


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

    def show(move: Move) -> None:
        print(f"{move.agent} plays {move.action}")
        print(env.render(), "\n")

    totals = play_game(env, players, on_move=show)
    print(_result_line(env, totals))
    return 0


def search_summary(result: Any) -> str:
    """One or two lines from an agent's ``last_result``."""
    proven = f", proven {result.proven}" if getattr(result, "proven", None) else ""
    pv = " ".join(str(a) for a in getattr(result, "principal_variation", ())[:10])
    return (
        f"  best {result.best_action}, {result.iterations} iterations in {result.elapsed:.2f}s, "
        f"value {result.root_value:+.3f}{proven}\n  principal variation: {pv}"
    )


def play(spec: str, seat_specs: Sequence[str], seed: int) -> int:
    """Play one game in the terminal: humans type moves, agents answer with a search summary."""
    env = make_env(spec, render_mode="ansi")
    seats = env.possible_agents
    if len(seat_specs) < len(seats):
        raise UsageError(
            f"{spec} has {len(seats)} seats; give --p0 ... --p{len(seats) - 1} "
            f"(got {len(seat_specs)})"
        )
    try:
        players = {
            agent: make_agent(seat_specs[i], seed=seed + i, input=sys.stdin, output=sys.stdout)
            for i, agent in enumerate(seats)
        }
    except SpecError as error:
        raise UsageError(str(error)) from None
    env.reset(seed=seed)
    for i, agent in enumerate(seats):
        print(f"{agent}: {seat_specs[i]}")

    def show(move: Move) -> None:
        print(f"{move.agent} plays {move.action}")
        if not isinstance(players[move.agent], HumanAgent) and move.result is not None:
            print(search_summary(move.result))
        following = env.agent_selection
        over = not env.agents or env.terminations[following] or env.truncations[following]
        if over or not isinstance(players[following], HumanAgent):
            print(env.render())  # a human's own prompt shows the board

    try:
        totals = play_game(env, players, on_move=show)
    except EOFError:
        print("mcts-agents: input ended; quitting the game", file=sys.stderr)
        return 1
    print(_result_line(env, totals))
    return 0


def arena(args: argparse.Namespace) -> int:
    """A match (two agents) or a round robin; print the table and the ratings."""
    if len(args.agents) < 2:
        raise UsageError(f"--agents needs at least 2 agent specs, got {args.agents}")
    progress = sys.stderr.isatty() if args.progress is None else args.progress
    options = dict(
        workers=args.workers,
        out=args.out,
        progress=progress,
        backend=args.backend,
        address=args.address,
    )
    try:
        env = parse_env_spec(args.env)()
        seats = len(env.possible_agents)
        if args.tournament or (len(args.agents) > 2 and seats == 2):
            result: Any = tournament(
                args.env, args.agents, args.games, args.seed, anchor=args.anchor, **options
            )
        else:
            if args.anchor is not None:
                raise UsageError("--anchor applies to a tournament (3+ agents or --tournament)")
            result = play_match(args.env, args.agents, args.games, args.seed, **options)
    except (SpecError, ValueError, TypeError) as error:
        raise UsageError(str(error)) from None
    except WorkerError as error:  # not a usage error: exit code 1
        print(f"mcts-agents: error: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        where = f"; finished games are in {args.out} (rerun to resume)" if args.out else ""
        print(f"mcts-agents: interrupted{where}", file=sys.stderr)
        return 130
    print(result.table())
    if args.out:
        print(f"games recorded in {args.out}")
    if args.plot:
        result.plot(args.plot)
        print(f"plot saved to {args.plot}")
    return 0


class _Parser(argparse.ArgumentParser):
    """Usage errors in one line on stderr, exit code 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see --help)\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="mcts-agents", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", parser_class=_Parser)
    commands.add_parser("list", help="envs and agent kinds with their options")

    demo_parser = commands.add_parser("demo", help="MCTS vs random, printed move by move")
    demo_parser.add_argument("env", nargs="?", default="connect_four", choices=sorted(ENV_SPECS))
    demo_parser.add_argument("--iterations", type=int, default=2000)
    demo_parser.add_argument("--seed", type=int, default=0)

    play_parser = commands.add_parser("play", help="play in the terminal against agents")
    play_parser.add_argument("env", help="env spec, e.g. connect_four or connect_four:width=8")
    play_parser.add_argument("--seed", type=int, default=0)
    defaults = ["human", "mcts:time=1", "mcts:time=1", "mcts:time=1"]
    for seat, default in enumerate(defaults):
        play_parser.add_argument(
            f"--p{seat}", default=default, metavar="SPEC", help=f"seat {seat} (default {default})"
        )

    arena_parser = commands.add_parser("arena", help="matches and tournaments with ratings")
    arena_parser.add_argument("env", help="env spec, e.g. connect_four or connect_four:width=8")
    arena_parser.add_argument("--agents", nargs="+", required=True, metavar="SPEC")
    arena_parser.add_argument("--games", type=int, default=20, help="games (per pair)")
    arena_parser.add_argument("--workers", type=int, default=1)
    arena_parser.add_argument("--seed", type=int, default=0)
    arena_parser.add_argument("--out", help="JSONL file of the games (resumed if it exists)")
    arena_parser.add_argument("--plot", help="save Elo and the score matrix to this image")
    arena_parser.add_argument("--anchor", help="agent rated Elo 0 (default: the first)")
    arena_parser.add_argument("--tournament", action="store_true", help="round robin")
    arena_parser.add_argument("--backend", choices=["process", "ray"], default="process")
    arena_parser.add_argument("--address", help="Ray cluster address (backend ray)")
    arena_parser.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="progress bar on stderr (default: when stderr is a terminal)",
    )
    return parser


def _fail(message: str) -> int:
    print(f"mcts-agents: error: {message}", file=sys.stderr)
    return 2


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        if args.command in (None, "demo"):
            return demo(
                getattr(args, "env", "connect_four"),
                getattr(args, "iterations", 2000),
                getattr(args, "seed", 0),
            )
        if args.command == "list":
            print(listing())
            return 0
        if args.command == "play":
            seats = [args.p0, args.p1, args.p2, args.p3]
            return play(args.env, seats, args.seed)
        return arena(args)
    except (UsageError, SpecError) as error:
        return _fail(str(error))


__all__ = ["build_parser", "demo", "main"]

if __name__ == "__main__":
    raise SystemExit(main())
