"""``mcts-agents gtp [--size 9] [--komi 7.5] [AGENT_SPEC]``: a Go engine speaking GTP v2.

The Go Text Protocol (version 2) on stdin and stdout, so the agent plays in GoGui or Sabaki
and against other engines (GNU Go: ``gnugo --mode gtp``). The rules are ``go_v0``'s: area
scoring with the komi, suicide illegal, positional superko (``--no-superko``: simple ko only).
Nothing but protocol replies is written to stdout; the library's log lines go to stderr.

Commands: ``protocol_version``, ``name``, ``version``, ``known_command``, ``list_commands``,
``boardsize``, ``clear_board``, ``komi``, ``play``, ``genmove``, ``undo``, ``final_score``,
``time_settings``, ``time_left``, ``showboard``, ``quit``. A command may start with an id
(``12 genmove b``), which the reply repeats (``=12 D4``); a failure is a ``?`` reply naming
what was wrong (``? illegal move``, ``? unknown command``, ``? invalid vertex``, ...). Vertices
are GTP's: a column letter without I and the row counted from the bottom (``D4``, ``pass``).

The agent (default ``mcts``): a spec with a budget of its own (``mcts:iterations=2000``,
``mcts:time=1``) plays by it. A ``mcts`` spec with no budget uses its clock: each move gets
the time left by ``time_left`` (or ``time_settings``' main time) shared over the moves still to
come, plus most of a byo-yomi period's share of each stone; 1 s a move when there is no clock.
``final_score`` counts the board as it stands (Tromp-Taylor area: no stones taken off as dead),
as the game's end would.
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import replace
from time import perf_counter
from typing import Any, TextIO, cast

from mcts_agents.envs.games.go import Go, State, parse_vertex, vertex
from mcts_agents.envs.go_v0 import GoEnv

__all__ = ["COMMANDS", "GtpEngine", "add_gtp_parser", "gtp", "move_time"]

COMMANDS = (
    "protocol_version",
    "name",
    "version",
    "known_command",
    "list_commands",
    "boardsize",
    "clear_board",
    "komi",
    "play",
    "genmove",
    "undo",
    "final_score",
    "time_settings",
    "time_left",
    "showboard",
    "quit",
)
#: seconds a move without a clock, when the spec gives no budget.
DEFAULT_MOVE_TIME = 1.0
#: seconds kept back from each move's share for the protocol and the controller.
MARGIN = 0.1
_COLOURS = {"b": 0, "black": 0, "w": 1, "white": 1}
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


class GtpError(Exception):
    """A command that fails: its message is the ``?`` reply's text."""


def move_time(
    left: float | None,
    stones: int,
    byo_yomi: float,
    byo_stones: int,
    moves_to_come: int,
) -> float:
    """Seconds for one move: ``left`` seconds (None: no clock) for ``stones`` more moves
    (0: main time, shared over ``moves_to_come``, with most of a byo-yomi period's share of
    one stone on top), less ``MARGIN``; at least 0.05 s."""
    if left is None:
        return DEFAULT_MOVE_TIME
    if stones > 0:  # in byo-yomi: this period's time over its stones
        share = left / stones
    else:
        share = left / max(moves_to_come, 1)
        if byo_yomi > 0 and byo_stones > 0:
            share += 0.8 * byo_yomi / byo_stones
    return max(0.05, share - MARGIN)


class GtpEngine:
    """One Go game driven by GTP commands (``handle``) or a stream of them (``run``)."""

    def __init__(
        self,
        size: int = 9,
        komi: float = 7.5,
        superko: bool = True,
        agent_spec: str = "mcts",
        seed: int = 0,
    ) -> None:
        from mcts_agents.agents.specs import make_agent, read_agent_spec

        self.superko = superko
        self.spec = read_agent_spec(agent_spec)
        options = self.spec.options
        self.clocked = self.spec.kind == "mcts" and not any(
            options.get(k) is not None for k in ("iterations", "time_limit", "max_nodes")
        )
        if self.clocked:
            if int(options.get("workers", 1)) > 1:
                raise ValueError(
                    f"agent spec {self.spec.text!r}: with workers > 1 give the spec a budget "
                    "(time=, iterations=); the clock stops only this process's search"
                )
            self.spec = replace(self.spec, options={**options, "time_limit": 3600.0})
        self.agent = make_agent(self.spec, seed=seed)
        self.seed = seed
        self.komi = float(komi)
        self.main_time: float | None = None
        self.byo_yomi, self.byo_stones = 0.0, 0
        self.clock: dict[int, tuple[float, int]] = {}
        self.done = False
        self._new_board(size)

    # ------------------------------------------------------------------ the board
    def _new_board(self, size: int) -> None:
        self.env = GoEnv(size, self.komi, self.superko)
        self.env.reset(seed=self.seed)
        self.game = cast(Go, self.env.game)
        self.history: list[State] = [self.game.initial_state()]
        if hasattr(self.agent, "reset"):
            self.agent.reset()

    @property
    def state(self) -> State:
        return self.history[-1]

    def _for(self, colour: int) -> State:
        """The current position with ``colour`` to move: as it is, or (a move out of turn, or
        play after two passes) with the side to move set, no ko and no passes pending."""
        state = self.state
        if state[2] == colour and state[4] < 2:
            return state
        return (state[0], state[1], colour, -1, 0, *state[5:])

    def _colour(self, text: str) -> int:
        colour = _COLOURS.get(text.lower())
        if colour is None:
            raise GtpError("invalid color")
        return colour

    def _vertex(self, text: str) -> int:
        action = parse_vertex(text, self.game.size)
        if action is None:
            raise GtpError("invalid vertex")
        return action

    # ------------------------------------------------------------------ commands
    def handle(self, line: str) -> str | None:
        """The full reply (``=...`` or ``?...``, ending in a blank line) to one input line,
        or None for a line that holds no command."""
        line = _CONTROL.sub("", line.split("#", 1)[0]).replace("\t", " ").strip()
        if not line:
            return None
        words = line.split()
        command_id = ""
        if words[0].isdigit():
            command_id = words.pop(0)
            if not words:
                return f"?{command_id} unknown command\n\n"
        command, args = words[0].lower(), words[1:]
        try:
            result = self._dispatch(command, args)
        except GtpError as error:
            return f"?{command_id} {error}\n\n"
        return f"={command_id} {result}".rstrip(" ") + "\n\n"

    def _dispatch(self, command: str, args: list[str]) -> str:
        if command not in COMMANDS:
            raise GtpError("unknown command")
        if command == "protocol_version":
            return "2"
        if command == "name":
            return "mcts-agents"
        if command == "version":
            from mcts_agents import __version__

            return __version__
        if command == "known_command":
            return "true" if args and args[0].lower() in COMMANDS else "false"
        if command == "list_commands":
            return "\n".join(COMMANDS)
        if command == "quit":
            self.done = True
            return ""
        return getattr(self, f"_{command}")(args)

    def _boardsize(self, args: list[str]) -> str:
        if len(args) != 1 or not args[0].isdigit():
            raise GtpError("boardsize expects one integer")
        size = int(args[0])
        if not 5 <= size <= 19:
            raise GtpError("unacceptable size")
        self._new_board(size)
        return ""

    def _clear_board(self, args: list[str]) -> str:
        self._new_board(self.game.size)
        return ""

    def _komi(self, args: list[str]) -> str:
        try:
            komi = float(args[0]) if len(args) == 1 else None
        except ValueError:
            komi = None
        if komi is None or not abs(komi) <= 1000:
            raise GtpError("komi expects one number")
        self.komi = komi
        moves = self.history
        self._new_board(self.game.size)  # the same position under the new komi
        self.history = moves
        return ""

    def _play(self, args: list[str]) -> str:
        if len(args) != 2:
            raise GtpError("play expects a color and a vertex")
        colour, action = self._colour(args[0]), self._vertex(args[1])
        state = self._for(colour)
        if not self.game.is_legal(state, action):
            raise GtpError("illegal move")
        self.history.append(self.game.next_state(state, action))
        return ""

    def _genmove(self, args: list[str]) -> str:
        if len(args) != 1:
            raise GtpError("genmove expects a color")
        colour = self._colour(args[0])
        state = self._for(colour)
        env = self.env
        snapshot = env.save_state()
        env.restore_state(
            replace(
                snapshot,
                state=state,
                agents=tuple(env.possible_agents),
                agent_selection=env.possible_agents[colour],
                rewards=tuple((a, 0.0) for a in env.possible_agents),
                cumulative_rewards=tuple((a, 0.0) for a in env.possible_agents),
                terminations=tuple((a, False) for a in env.possible_agents),
                truncations=tuple((a, False) for a in env.possible_agents),
            )
        )
        if self.clocked:
            seconds = self._move_time(colour)
            deadline = perf_counter() + seconds
            action = self.agent.search(env, should_stop=lambda: perf_counter() >= deadline)
            action = action.best_action
        else:
            action = self.agent.act(env)
        self.history.append(self.game.next_state(state, int(action)))
        return vertex(int(action), self.game.size)

    def _move_time(self, colour: int) -> float:
        left, stones = self.clock.get(colour, (self.main_time, 0))
        if left is None or (self.main_time == 0 and self.byo_yomi > 0 and self.byo_stones == 0):
            return move_time(None, 0, 0.0, 0, 0)
        empty = self.game.points - self.state[0].bit_count() - self.state[1].bit_count()
        return move_time(left, stones, self.byo_yomi, self.byo_stones, max(empty // 2, 10))

    def _undo(self, args: list[str]) -> str:
        if len(self.history) < 2:
            raise GtpError("cannot undo")
        self.history.pop()
        if hasattr(self.agent, "reset"):
            self.agent.reset()
        return ""

    def _final_score(self, args: list[str]) -> str:
        score = self.game.score(self.state)
        if score == 0:
            return "0"
        return f"{'B' if score > 0 else 'W'}+{abs(score):g}"

    def _time_settings(self, args: list[str]) -> str:
        try:
            main, byo, stones = float(args[0]), float(args[1]), int(args[2])
        except (ValueError, IndexError):
            raise GtpError("time_settings expects main_time byo_yomi_time stones") from None
        if len(args) != 3 or main < 0 or byo < 0 or stones < 0:
            raise GtpError("time_settings expects main_time byo_yomi_time stones")
        self.main_time, self.byo_yomi, self.byo_stones = main, byo, stones
        self.clock = {}
        return ""

    def _time_left(self, args: list[str]) -> str:
        try:
            colour, left, stones = self._colour(args[0]), float(args[1]), int(args[2])
        except (ValueError, IndexError):
            raise GtpError("time_left expects a color, seconds and stones") from None
        if len(args) != 3 or left < 0 or stones < 0:
            raise GtpError("time_left expects a color, seconds and stones")
        self.clock[colour] = (left, stones)
        return ""

    def _showboard(self, args: list[str]) -> str:
        return "\n" + self.game.render_text(self.state)

    # ------------------------------------------------------------------ the stream
    def run(self, source: TextIO, sink: TextIO) -> None:
        """Answer every command line of ``source`` on ``sink`` until ``quit`` or the end."""
        for line in source:
            reply = self.handle(line)
            if reply is not None:
                sink.write(reply)
                sink.flush()
            if self.done:
                return


def add_gtp_parser(commands: Any, int_type: Any) -> None:
    """The ``gtp`` subcommand of ``commands`` (``int_type(low, high)``: main's int checker)."""
    parser = commands.add_parser(
        "gtp",
        help="a Go engine speaking GTP on stdin/stdout",
        description="A Go engine speaking the Go Text Protocol v2 on stdin and stdout (for "
        "GoGui, Sabaki, GNU Go's twogtp): go_v0's rules, area scoring.",
    )
    parser.add_argument(
        "agent",
        metavar="AGENT_SPEC",
        nargs="?",
        default="mcts",
        help="agent spec (default mcts: its clock decides each move's time)",
    )
    parser.add_argument("--size", type=int_type(5, 19), default=9, help="board size (default 9)")
    parser.add_argument("--komi", type=_komi_type, default=7.5, help="komi (default 7.5)")
    parser.add_argument(
        "--superko",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="positional superko (default); --no-superko: simple ko only",
    )
    parser.add_argument("--seed", type=int_type(0), default=0, help="seed (default 0)")


def _komi_type(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not abs(value) <= 1000:
        raise argparse.ArgumentTypeError(f"komi must be in [-1000, 1000], got {text}")
    return value


def gtp(args: argparse.Namespace) -> int:
    """Build the engine (a bad spec exits with code 2 before any command is read), then
    answer GTP on stdin/stdout until ``quit`` or the end of the input."""
    engine = GtpEngine(args.size, args.komi, args.superko, args.agent, args.seed)
    from mcts_agents.cli.warm_up import prepare_agent  # the kernel before any clock runs

    prepare_agent(engine.agent, engine.env)
    engine.run(sys.stdin, sys.stdout)
    return 0
