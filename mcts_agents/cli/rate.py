"""``mcts-agents rate ENV AGENT_SPEC``: an agent's Elo on the game's calibrated ladder.

Plays the agent against the levels of ENV's ladder (``mcts_agents.arena.rating.rate``: adaptive,
seats swapped, the ladder's ratings held fixed) and prints its rating ``elo [low, high]`` (95%)
with the games played and a table of its score against each level it met (and, when
``--precision`` was not reached within ``--games``, a line that says so); ``--progress`` shows
the games done and the Elo so far on stderr; ``--out`` records every game
(a second run with the same file and seed continues it), ``--backend ray --address HOST:PORT``
spreads the games over a Ray cluster, ``--plot`` draws the ladder with the agent placed on it,
``--ladder FILE`` rates on a ladder file instead of the game's own. A bad env, agent spec or
option, or a game without a ladder, exits with code 2 and one line, before any game is played.
"""

from __future__ import annotations

import argparse
import logging
import math
import os
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mcts_agents.agents.specs import parse_agent_spec, parse_env_spec
from mcts_agents.checks import check_output_file
from mcts_agents.errors import InvalidOptionError
from mcts_agents.plotting import NEEDS_MATPLOTLIB, check_plot_path
from mcts_agents.processes import MAX_WORKERS

if TYPE_CHECKING:
    from mcts_agents.agents.ladder import Ladder, Level
    from mcts_agents.arena.rating import Rating

__all__ = ["RateProgress", "add_rate_parser", "plot_rating", "rate", "rating_table"]

logger = logging.getLogger(__name__)

#: most games one rate command plays.
MAX_GAMES = 1_000_000


def _precision(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"must be a positive number of Elo, got {text}")
    return value


def add_rate_parser(commands: Any, int_type: Any) -> None:
    """The ``rate`` subcommand of ``commands`` (``int_type(low, high)``: main's int checker)."""
    parser = commands.add_parser(
        "rate",
        help="an agent's Elo on the game's calibrated ladder",
        description="Rate an agent on ENV's calibrated ladder (the levels' Elo held fixed): "
        "its Elo with a 95% interval, the games played and its score against each level.",
    )
    parser.add_argument("env", help="env spec with a ladder, e.g. tic_tac_toe or connect_four")
    parser.add_argument("agent", metavar="AGENT_SPEC", help="agent spec, e.g. mcts:iterations=64")
    parser.add_argument(
        "--games",
        type=int_type(1, MAX_GAMES),
        default=400,
        help="most games (for poker: duplicate matches of several hands); default 400",
    )
    parser.add_argument("--seed", type=int_type(0), default=0, help="seed (default 0)")
    parser.add_argument(
        "--precision",
        type=_precision,
        help="stop when the interval's half width is at most this many Elo",
    )
    parser.add_argument("--out", help="JSONL file of the games (resumed if it exists)")
    parser.add_argument("--plot", help="save the ladder with the rating on it (.png, .svg, ...)")
    parser.add_argument(
        "--ladder",
        metavar="FILE",
        help="a ladder file (JSON, as benchmarks/ladder.py writes) instead of the game's own",
    )
    parser.add_argument(
        "--workers",
        type=int_type(1, MAX_WORKERS),
        default=1,
        help="processes playing games; default 1",
    )
    parser.add_argument(
        "--backend",
        choices=["process", "ray"],
        default="process",
        help="where games are played: processes here (--workers) or Ray tasks spread over a "
        "Ray cluster (--address)",
    )
    parser.add_argument(
        "--address",
        help="the Ray cluster (--backend ray): host:port of its head, or 'local' (default: a "
        "local Ray instance)",
    )
    parser.add_argument(
        "--lockstep",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="play each batch's games together, every round's moves in one batch (a policy's "
        "in one forward pass, the levels' searches in one kernel call); default: on with "
        "--workers 1 for an agent that acts in batches (policy:, az:, mcts: with iterations)",
    )
    parser.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="games done and the Elo so far on stderr (default: when stderr is a terminal)",
    )


class RateProgress:
    """``rate``'s ``on_progress`` for the command: a tqdm bar on stderr (games done of
    ``total``, the Elo so far and its interval) when tqdm is installed, else a log line
    (``mcts-agents: rate: 120/400 games, Elo 1234 [1180, 1290]``) at most every ``every``
    seconds, and the last one at ``close``."""

    def __init__(
        self,
        total: int,
        label: str,
        every: float = 5.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.total, self.label, self.every, self.clock = total, label, every, clock
        self.last: Rating | None = None
        self.said: Rating | None = None
        self.said_at = clock()
        self.bar: Any = None
        try:
            from tqdm.auto import tqdm
        except ImportError:
            return
        self.bar = tqdm(total=total, desc=f"rate {label}", unit="game", file=sys.stderr)

    def __call__(self, rating: Rating) -> None:
        self.last = rating
        text = f"Elo {rating.elo:.0f} [{rating.low:.0f}, {rating.high:.0f}]"
        if self.bar is not None:
            self.bar.update(rating.games - self.bar.n)
            self.bar.set_postfix_str(text, refresh=False)
            return
        now = self.clock()
        if now - self.said_at >= self.every:
            self._say(rating, now)

    def _say(self, rating: Rating, now: float) -> None:
        self.said, self.said_at = rating, now
        logger.info(
            "rate: %d/%d games, Elo %.0f [%.0f, %.0f]",
            rating.games, self.total, rating.elo, rating.low, rating.high,
        )  # fmt: skip

    def close(self) -> None:
        """End the bar, or log the last rating if its line is not out yet."""
        if self.bar is not None:
            self.bar.close()
        elif self.last is not None and self.said is not self.last:
            self._say(self.last, self.clock())


def _check_file(option: str, text: str, *, make_folder: bool) -> None:
    """Refuse an output file name that could not be written, before any game is played."""
    check_output_file(text, option, make_folders=make_folder)


def _ladder(env: str, path: str | None) -> Ladder:
    """The game's calibrated ladder, or the ladder file ``path`` (which must be of the env's game
    where the env is one of ours)."""
    from mcts_agents.agents.ladder import ladder_game, load_ladder

    if path is None:
        return load_ladder(ladder_game(env))  # none: InvalidOptionError naming those with one
    if not Path(path).is_file():
        raise InvalidOptionError(f"--ladder {path!r} is not a file")
    loaded = load_ladder(Path(path))
    try:
        game = ladder_game(env)
    except ValueError:  # an env of someone else's, rated on its own ladder
        return loaded
    if game != loaded.game:
        raise InvalidOptionError(
            f"--ladder {path!r} is the ladder of {loaded.game!r}, not of {env!r} ({game!r})"
        )
    return loaded
    if game != loaded.game:
        raise InvalidOptionError(
            f"--ladder {path!r} is the ladder of {loaded.game!r}, not of {env!r} ({game!r})"
        )
    return loaded.levels


def rating_table(rating: Rating, levels: Sequence[Level], agent: str) -> str:
    """The rating line, then a row per level the agent played: the level's Elo, spec and the
    agent's score against it."""
    lines = [
        f"{agent} on the {rating.game} ladder: Elo {rating.elo:.0f} "
        f"[{rating.low:.0f}, {rating.high:.0f}] (95%), {rating.games} games"
        + (f" (each a duplicate match of {rating.hands} hands)" if rating.hands > 1 else ""),
        f"{'level':<6} {'elo':>7} {'score':>8} {'games':>6} {'rate':>6}  spec",
    ]
    for level in levels:
        points, games = rating.scores.get(level.name, (0.0, 0))
        if not games:  # a level it never met says nothing about the agent
            continue
        share = f"{points / games:6.0%}"
        lines.append(
            f"{level.name:<6} {level.elo:7.0f} {points:8g} {games:6d} {share}  {level.spec}"
        )
    return "\n".join(lines)


def plot_rating(
    path: str | os.PathLike[str], levels: Sequence[Level], rating: Rating, agent: str
) -> None:
    """Save the ladder (each level's Elo with its 95% interval) with the agent's rating and
    interval drawn across it."""
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError as error:
        raise ImportError(NEEDS_MATPLOTLIB) from error
    figure = Figure(figsize=(7, 0.35 * len(levels) + 3))
    FigureCanvasAgg(figure)
    axes = figure.subplots()
    for i, level in enumerate(levels):
        axes.errorbar(
            [i],
            [level.elo],
            yerr=[[level.elo - level.low], [level.high - level.elo]],
            fmt="o",
            color="tab:blue",
            capsize=3,
        )
    axes.axhspan(rating.low, rating.high, color="tab:orange", alpha=0.25)
    axes.axhline(rating.elo, color="tab:orange", label=f"{agent}: {rating.elo:.0f}")
    axes.set_xticks(range(len(levels)), [level.name for level in levels])
    axes.set_ylabel("Elo (L0 = 0), 95% intervals")
    axes.set_title(f"{rating.game} ladder, {rating.games} games")
    axes.legend(loc="upper left")
    figure.tight_layout()
    figure.savefig(os.fspath(path))


def rate(args: argparse.Namespace) -> int:
    """Check everything, rate the agent, print the rating and its table (and save the plot)."""
    from mcts_agents.arena.rating import rate as rate_agent

    parse_env_spec(args.env)
    chosen = _ladder(args.env, args.ladder)  # its hands: a poker unit is a duplicate match
    levels = chosen.levels
    parse_agent_spec(args.agent)
    if args.lockstep and args.workers > 1:
        raise InvalidOptionError(
            f"--lockstep plays in one process; --workers {args.workers} plays game by game"
        )
    if args.lockstep and args.backend == "ray":
        raise InvalidOptionError("--lockstep plays in one process; --backend ray plays Ray tasks")
    if args.address is not None and args.backend != "ray":
        raise InvalidOptionError(f"--address {args.address!r} is for --backend ray")
    if args.plot is not None:
        _check_file("--plot", args.plot, make_folder=False)
        check_plot_path(args.plot)
    if args.out is not None:
        _check_file("--out", args.out, make_folder=True)
    shown = sys.stderr.isatty() if args.progress is None else args.progress
    progress = RateProgress(args.games, chosen.game) if shown else None
    try:
        rating = rate_agent(
            args.agent,
            args.env,
            games=args.games,
            seed=args.seed,
            precision=args.precision,
            out=args.out,
            workers=args.workers,
            levels=chosen,
            on_progress=progress,
            lockstep="auto" if args.lockstep is None else args.lockstep,
            backend=args.backend,
            address=args.address,
        )
    except KeyboardInterrupt:
        where = f"; finished games are in {args.out} (rerun to resume)" if args.out else ""
        print(f"mcts-agents: interrupted{where}", file=sys.stderr)
        return 130
    finally:
        if progress is not None:
            progress.close()
    print(rating_table(rating, levels, args.agent))
    if args.precision is not None and rating.half_width > args.precision:
        print(
            f"precision +/-{args.precision:g} not reached in {rating.games} games: "
            f"+/-{rating.half_width:.0f}"
        )
    if args.out:
        print(f"games recorded in {args.out}")
    if args.plot:
        plot_rating(args.plot, levels, rating, args.agent)
        print(f"plot saved to {args.plot}")
    return 0
