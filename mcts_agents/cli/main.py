"""Command line: ``mcts-agents list | play | arena | rate | train | serve | gtp | demo``.

- ``list``: envs with their options, agent kinds with theirs.
- ``play ENV --p0 human --p1 mcts:time=1``: play in the terminal against agents.
- ``arena ENV --agents SPEC SPEC ... --games N``: a match (two agents) or a round robin, with
  results, Wilson intervals and Elo ratings; ``--out results.jsonl`` records and resumes.
- ``rate ENV SPEC``: the agent's Elo on ENV's calibrated ladder (``cli_rate``).
- ``demo [ENV]``: the MCTS agent against a random agent, printed move by move.
- ``train ENV --minutes M --out DIR``: AlphaZero by self-play, resumable (``cli_train``; torch).
- ``serve [--host 127.0.0.1] [--port 8000]``: play in the browser (``cli_serve``; the web extra).
- ``gtp [--size 9] [--komi 7.5] [SPEC]``: a Go engine speaking GTP on stdin/stdout (``cli.gtp``).

ENV is any env spec of ``specs.parse_env_spec``: ours (``connect_four:width=8``), a PettingZoo
registry id, a module with ``env()``, or ``module:factory`` (imported from the installed
packages, else from the current folder).

A bad spec, env, option or value exits with code 2 and a one-line message on stderr, checked
before any game is played (so does a results file that is not usable, or that another run is
writing); a failure while playing (a dead worker, a full disk) exits with
code 1 and one line; Ctrl-C exits with code 130. ``--debug`` prints the full traceback first;
an error raised inside the code of the env spec's own module prints its traceback without it
(``cli_debug``).
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import os
import sys
from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

# Only what the parser needs: a command imports the library when it runs (``--help`` is fast).
from mcts_agents import __version__
from mcts_agents.cli.commands import COMMANDS, Commands, Parser, add_commands, int_type, run_command
from mcts_agents.cli.debug import add_debug_option, traceback_text

if TYPE_CHECKING:
    from mcts_agents.agents.play import Move
    from mcts_agents.agents.specs import EnvSpec


class UsageError(Exception):
    """A bad command line: reported in one line, exit code 2."""


#: most games (per pair) one arena command plays; more is a typo, not a plan.
MAX_GAMES = 1_000_000


def _max_workers() -> int:
    """Most worker processes of one arena command (the arena's own limit)."""
    from mcts_agents.arena import runner

    return runner.MAX_WORKERS


#: seats ``play`` can fill (``--p0`` ... ``--p3``) and their defaults.
SEAT_DEFAULTS = ("human", "mcts:time=1", "mcts:time=1", "mcts:time=1")


# ------------------------------------------------------------------------------- helpers
def _result_line(env: Any, totals: dict[str, float]) -> str:
    returns = {agent: totals.get(agent, 0.0) for agent in env.possible_agents}
    return "result: " + ", ".join(f"{agent} {reward:+g}" for agent, reward in returns.items())


def _terminal_env(spec: EnvSpec) -> Any:
    """A fresh env that draws itself as text where it can (ours always; others that offer
    ``ansi``)."""
    if not spec.factory:
        return spec(render_mode="ansi")
    env = spec()
    if "ansi" in (getattr(env, "metadata", None) or {}).get("render_modes", ()):
        with contextlib.suppress(TypeError):  # a factory that takes no render_mode
            return spec(render_mode="ansi")
    return env


def _show_board(env: Any, gap: bool = True) -> None:
    """Print the board (and a blank line after it with ``gap``) if the env draws as text."""
    if getattr(env.unwrapped, "render_mode", None) == "ansi":
        board = env.render()
        print(board, "\n") if gap else print(board)


def _close(players: Mapping[str, Any]) -> None:
    """Stop the agents' worker processes (``mcts:workers=N``)."""
    for player in players.values():
        close = getattr(player, "close", None)
        if callable(close):
            close()


def search_summary(result: Any) -> str:
    """One or two lines from an agent's ``last_result``."""
    proven = f", proven {result.proven}" if getattr(result, "proven", None) else ""
    pv = " ".join(str(a) for a in getattr(result, "principal_variation", ())[:10])
    return (
        f"  best {result.best_action}, {result.iterations} iterations in {result.elapsed:.2f}s, "
        f"value {result.root_value:+.3f}{proven}\n  principal variation: {pv}"
    )


def _check_output_file(option: str, text: str, *, make_folders: bool) -> None:
    """Refuse an output file that could not be written, before any game is played
    (``checks.check_output_file``: folders, FIFOs and devices, links to nothing, folders that
    do not exist unless ``make_folders`` (``--out``), places that cannot be written)."""
    from mcts_agents.checks import check_output_file

    check_output_file(text, option, make_folders=make_folders, error=UsageError)


# ------------------------------------------------------------------------------ commands
def demo(name: str, iterations: int, seed: int) -> int:
    """MCTS (player_0) against random (player_1): print every position and the result."""
    from mcts_agents.agents.agent import MCTSAgent, RandomAgent
    from mcts_agents.agents.play import play_game
    from mcts_agents.agents.specs import parse_env_spec

    env = _terminal_env(parse_env_spec(name))
    env.reset(seed=seed)
    players: dict[str, MCTSAgent | RandomAgent] = {
        env.possible_agents[0]: MCTSAgent(iterations=iterations, seed=seed),
        **{agent: RandomAgent(seed=seed + i) for i, agent in enumerate(env.possible_agents[1:], 1)},
    }
    print(f"{name}: MCTS ({iterations} iterations) as {env.possible_agents[0]} vs random\n")
    _show_board(env)

    def show(move: Move) -> None:
        print(f"{move.agent} plays {move.action}")
        _show_board(env)

    try:
        totals = play_game(env, players, on_move=show)
    finally:
        _close(players)
    print(_result_line(env, totals))
    return 0


def play(spec: str, seat_specs: Sequence[str | None], seed: int) -> int:
    """Play one game in the terminal: humans type moves, agents answer with a search summary.

    ``seat_specs[i]`` is the agent spec of seat ``i``; ``None`` takes ``SEAT_DEFAULTS[i]``.
    """
    from mcts_agents.agents.agent import HumanAgent
    from mcts_agents.agents.play import play_game
    from mcts_agents.agents.specs import make_agent, parse_env_spec

    env = _terminal_env(parse_env_spec(spec))
    seats = env.possible_agents
    if len(seats) > len(SEAT_DEFAULTS):
        raise UsageError(
            f"{spec} has {len(seats)} seats; play fills at most {len(SEAT_DEFAULTS)} "
            "(use arena for more)"
        )
    extra = [i for i, given in enumerate(seat_specs) if given is not None and i >= len(seats)]
    if extra:
        raise UsageError(
            f"--p{extra[0]} {seat_specs[extra[0]]!r} names seat {extra[0]}, but {spec} has "
            f"{len(seats)} seats ({', '.join(map(str, seats))}): --p0 ... --p{len(seats) - 1}"
        )
    chosen = [given or SEAT_DEFAULTS[i] for i, given in enumerate(seat_specs)]
    players: dict[str, Any] = {}
    try:
        for i, agent in enumerate(seats):
            streams = {"input": sys.stdin, "output": sys.stdout}
            players[agent] = make_agent(chosen[i], seed=seed + i, **streams)
        env.reset(seed=seed)
        for i, agent in enumerate(seats):
            print(f"{agent}: {chosen[i]}")

        def show(move: Move) -> None:
            print(f"{move.agent} plays {move.action}")
            if not isinstance(players[move.agent], HumanAgent) and move.result is not None:
                print(search_summary(move.result))
            following = env.agent_selection
            over = not env.agents or env.terminations[following] or env.truncations[following]
            if over or not isinstance(players[following], HumanAgent):
                _show_board(env, gap=False)  # a human's own prompt shows the board

        try:
            totals = play_game(env, players, on_move=show)
        except EOFError:
            print("mcts-agents: input ended; quitting the game", file=sys.stderr)
            return 1
    finally:
        _close(players)
    print(_result_line(env, totals))
    return 0


def _check_arena(args: argparse.Namespace) -> tuple[EnvSpec, bool]:
    """Everything about an arena command that can be checked before a game is played: the env
    spec and whether this is a round robin."""
    from mcts_agents.agents.specs import parse_agent_spec, parse_env_spec
    from mcts_agents.plotting import check_plot_path

    if len(args.agents) < 2:
        raise UsageError(f"--agents needs at least 2 agent specs, got {args.agents}")
    env_spec = parse_env_spec(args.env)
    env = env_spec()
    seats = len(env.possible_agents)
    for text in args.agents:
        parse_agent_spec(text)
    round_robin = args.tournament or (len(args.agents) > 2 and seats == 2)
    if not round_robin and len(args.agents) != seats:
        raise UsageError(
            f"{args.env} has {seats} seats but {len(args.agents)} agents were given "
            "(a round robin needs a 2-player env)"
        )
    if args.anchor is not None and not round_robin:
        raise UsageError("--anchor applies to a tournament (3+ agents or --tournament)")
    if args.plot is not None:
        if seats != 2:
            raise UsageError(
                f"--plot draws Elo ratings, which need 2-player games; {args.env} has {seats} seats"
            )
        _check_output_file("--plot", args.plot, make_folders=False)
        check_plot_path(args.plot)
    if args.out is not None:
        _check_output_file("--out", args.out, make_folders=True)
    return env_spec, round_robin


def arena(args: argparse.Namespace) -> int:
    """A match (two agents) or a round robin; print the table and the ratings."""
    from mcts_agents.arena import play_match, tournament

    env_spec, round_robin = _check_arena(args)
    progress = sys.stderr.isatty() if args.progress is None else args.progress
    options = dict(
        workers=args.workers,
        out=args.out,
        progress=progress,
        backend=args.backend,
        address=args.address,
    )
    try:
        if round_robin:
            result: Any = tournament(
                env_spec, args.agents, args.games, args.seed, anchor=args.anchor, **options
            )
        else:
            result = play_match(env_spec, args.agents, args.games, args.seed, **options)
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


# -------------------------------------------------------------------------------- parser
_DESCRIPTION = """\
Monte Carlo Tree Search agents for PettingZoo games.

env specs: one of ours with options (connect_four:width=8), a PettingZoo registry id
(classic/connect_four-v3), a module with env() (pettingzoo.classic.connect_four_v3) or
module:factory[:key=value,...]. Agent specs: kind:key=value,... (mcts:time=0.5,c=1.4).
"""

_EXAMPLES = """\
examples:
  mcts-agents list
  mcts-agents play connect_four --p0 human --p1 mcts:time=1
  mcts-agents arena connect_four --agents mcts:iterations=1000 random --games 20
  mcts-agents demo tic_tac_toe
  mcts-agents train tic_tac_toe --minutes 5 --out runs/ttt
  mcts-agents serve                      # play in the browser at http://127.0.0.1:8000/
  mcts-agents arena tic_tac_toe --agents az:model=runs/ttt,simulations=200 mcts:iterations=1000

A bad spec, env, option or value exits with code 2 and a one-line message.
"""


def build_parser() -> argparse.ArgumentParser:
    """The ``mcts-agents`` argument parser."""
    parser = Parser(
        prog="mcts-agents",
        description=_DESCRIPTION,
        epilog=_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(
        dest="command", parser_class=Parser, title="commands", metavar="COMMAND", action=Commands
    )
    commands.add_parser(
        "list",
        help="envs and agent kinds with their options",
        description="List the envs and agent kinds with their options and defaults.",
    )
    seed_help = "seed (an int >= 0; default 0)"
    env_help = "env spec, e.g. connect_four or connect_four:width=8 (see list)"

    demo_parser = commands.add_parser(
        "demo",
        help="MCTS vs random, printed move by move (the default command)",
        description="The MCTS agent (first seat) against random agents, printed move by move.",
    )
    demo_parser.add_argument(
        "env", nargs="?", default="connect_four", help=env_help + "; default connect_four"
    )
    demo_parser.add_argument(
        "--iterations", type=int_type(1), default=2000, help="MCTS simulations per move"
    )
    demo_parser.add_argument("--seed", type=int_type(0), default=0, help=seed_help)

    play_parser = commands.add_parser(
        "play",
        help="play in the terminal against agents",
        description="Play one game in the terminal: type moves as action numbers; agents "
        "answer with a summary of their search.",
    )
    play_parser.add_argument("env", help=env_help)
    play_parser.add_argument("--seed", type=int_type(0), default=0, help=seed_help)
    for seat, default in enumerate(SEAT_DEFAULTS):
        play_parser.add_argument(
            f"--p{seat}", metavar="SPEC", help=f"agent of seat {seat} (default {default})"
        )

    arena_parser = commands.add_parser(
        "arena",
        help="matches and tournaments with ratings",
        description="A match (one agent per seat) or a round robin (3+ agents in a 2-player "
        "env, or --tournament): standings with 95% intervals and Elo ratings.",
    )
    arena_parser.add_argument("env", help=env_help)
    arena_parser.add_argument(
        "--agents", nargs="+", required=True, metavar="SPEC", help="agent specs (2 or more)"
    )
    arena_parser.add_argument(
        "--games", type=int_type(1, MAX_GAMES), default=20, help="games (per pair); default 20"
    )
    arena_parser.add_argument(
        "--workers",
        type=int_type(1, _max_workers),
        default=1,
        help="processes playing games; default 1",
    )
    arena_parser.add_argument("--seed", type=int_type(0), default=0, help=seed_help)
    arena_parser.add_argument("--out", help="JSONL file of the games (resumed if it exists)")
    arena_parser.add_argument(
        "--plot", help="save Elo and the score matrix to this image (.png, .svg, .pdf, ...)"
    )
    arena_parser.add_argument("--anchor", help="agent rated Elo 0 (default: the first)")
    arena_parser.add_argument("--tournament", action="store_true", help="round robin")
    arena_parser.add_argument(
        "--backend",
        choices=["process", "ray"],
        default="process",
        help="where games are played with --workers: processes here or Ray tasks",
    )
    arena_parser.add_argument("--address", help="Ray cluster address (backend ray)")
    arena_parser.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="progress on stderr (default: when stderr is a terminal)",
    )
    add_commands(commands, int_type)  # rate, train, serve, gtp, warm-up: defined when named
    add_debug_option(parser, commands.choices.values())
    return parser


# ---------------------------------------------------------------------------------- main
class _StderrHandler(logging.Handler):
    """Log lines on whatever ``sys.stderr`` is when they are emitted."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            print(self.format(record), file=sys.stderr)
        except Exception:
            self.handleError(record)


@contextlib.contextmanager
def _command_context() -> Iterator[None]:
    """While a command runs: the library's log lines (progress without tqdm, warnings) reach
    stderr, and ``module:factory`` env specs may name a module in the current folder."""
    logger = logging.getLogger("mcts_agents")
    handler = _StderrHandler(logging.INFO)
    handler.setFormatter(logging.Formatter("mcts-agents: %(message)s"))
    level = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    here = os.getcwd()
    added = here not in sys.path and "" not in sys.path
    if added:
        sys.path.append(here)  # last, so that it shadows no installed module
    try:
        yield
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)
        if added and here in sys.path:
            sys.path.remove(here)


def _fail(message: str, code: int = 2, error: BaseException | None = None, args: Any = None) -> int:
    """Print the one-line message (after ``error``'s traceback where ``cli_debug`` says so)
    and return ``code``."""
    if error is not None:
        env = getattr(args, "env", None)
        print(
            traceback_text(error, bool(getattr(args, "debug", False)), env), end="", file=sys.stderr
        )
    print(f"mcts-agents: error: {' '.join(message.split())}", file=sys.stderr)
    return code


def _described(error: BaseException) -> str:
    return f"{type(error).__name__}: {error}" if str(error) else type(error).__name__


def _run(args: argparse.Namespace) -> int:
    if args.command in (None, "demo"):
        return demo(
            getattr(args, "env", "connect_four"),
            getattr(args, "iterations", 2000),
            getattr(args, "seed", 0),
        )
    if args.command == "list":
        from mcts_agents.agents.specs import listing

        print(listing())
        return 0
    if args.command == "play":
        return play(args.env, [args.p0, args.p1, args.p2, args.p3], args.seed)
    if args.command in COMMANDS:
        return run_command(args.command, args)
    return arena(args)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code (argparse exits by itself on --help,
    --version and usage errors)."""
    args = build_parser().parse_args(argv)
    with _command_context():
        try:
            return _run(args)
        except UsageError as error:
            return _fail(str(error), error=error, args=args)
        except KeyboardInterrupt:
            print("mcts-agents: interrupted", file=sys.stderr)
            return 130
        except (ValueError, TypeError, ImportError) as error:  # the library refused a value
            return _fail(str(error) or _described(error), error=error, args=args)
        except (RuntimeError, OSError) as error:  # a dead worker, a full disk
            return _fail(_described(error), code=1, error=error, args=args)


__all__ = ["build_parser", "demo", "main", "play"]

if __name__ == "__main__":
    raise SystemExit(main())
