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
Numbers are read by one parser (``gtp_number``): ASCII decimals, finite, and signed only where
the command allows it (``komi``); anything else is GTP's ``? syntax error``, a well-formed
number out of range its own reply (``boardsize 25``: ``? unacceptable size``), and the engine
goes on.

The agent must play unattended (no ``human``: its moves would be read from the GTP stream),
and a model (``az:``, ``policy:``) must be one of Go at the engine's board size; anything else
exits with code 2 before any command is read. A model plays at any komi and ko rule (neither is
in its inputs); ``boardsize`` of another size answers ``? unacceptable size``.

The agent (default ``mcts``): a spec with a budget of its own (``mcts:iterations=2000``,
``mcts:time=1``) plays by it. A ``mcts`` spec with no budget uses its clock: each move gets
the time left by ``time_left`` (or ``time_settings``' main time) shared over the moves still to
come, plus most of a byo-yomi period's share of each stone; 1 s a move when there is no clock.
``genmove`` answers ``resign`` for a lost game: the searched move's win probability under
``--resign-threshold`` (``gtp_resign``; default 0.05, 0: never).
``final_score`` counts the board as it stands (Tromp-Taylor area: no stones taken off as dead),
as the game's end would.
"""

from __future__ import annotations

import argparse
import logging
import math
import re
import sys
from dataclasses import replace
from time import perf_counter
from typing import Any, TextIO, cast

from mcts_agents.agents.agent import HumanAgent
from mcts_agents.agents.models import ModelInfo
from mcts_agents.checks import check_number
from mcts_agents.cli.gtp_resign import DEFAULT_RESIGN_THRESHOLD, resign_type, resigns
from mcts_agents.envs.games.go import Go, State, parse_vertex, vertex
from mcts_agents.envs.go_v0 import GoEnv
from mcts_agents.errors import CheckpointError, SpecError

__all__ = ["COMMANDS", "GtpEngine", "add_gtp_parser", "gtp", "gtp_number", "move_time"]

logger = logging.getLogger(__name__)

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
_INTEGER = re.compile(r"[0-9]+")
_REAL = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_VERTEX = re.compile(r"[A-Za-z][0-9]+")
#: the value of an integer of more digits than this (past every bound the engine has; Python's
#: ``int`` refuses 4,300 digits).
HUGE = 10**18
SYNTAX_ERROR = "syntax error"


class GtpError(Exception):
    """A command that fails: its message is the ``?`` reply's text."""


def gtp_number(text: str, *, integer: bool = False, signed: bool = False) -> float:
    """The number GTP's ``text`` writes: ASCII digits only (no other script's digits, no
    ``_``), finite (no ``inf``, ``nan``, ``1e999``), with a sign only if ``signed``;
    ``integer``: decimal digits alone, read as an ``int`` (``HUGE`` past 18 digits, so that a
    range check refuses it rather than ``int()``).

    Raises:
        GtpError: ``syntax error`` for anything else.
    """
    if integer:
        if not _INTEGER.fullmatch(text):
            raise GtpError(SYNTAX_ERROR)
        digits = text.lstrip("0")
        return int(digits or "0") if len(digits) <= 18 else HUGE
    if not _REAL.fullmatch(text) or (text[0] == "-" and not signed):
        raise GtpError(SYNTAX_ERROR)
    value = float(text)
    if not math.isfinite(value):
        raise GtpError(SYNTAX_ERROR)
    return value


def _arguments(args: list[str], count: int) -> list[str]:
    """``args`` if there are ``count`` of them, else GTP's syntax error."""
    if len(args) != count:
        raise GtpError(SYNTAX_ERROR)
    return args


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
        resign_threshold: float = DEFAULT_RESIGN_THRESHOLD,
    ) -> None:
        from mcts_agents.agents.specs import make_agent, read_agent_spec

        self.resign = check_number(resign_threshold, "resign_threshold", low=0.0, high=0.5)

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
        self._check_agent(size)
        self.seed = seed
        self.komi = float(komi)
        self.main_time: float | None = None
        self.byo_yomi, self.byo_stones = 0.0, 0
        self.clock: dict[int, tuple[float, int]] = {}
        self.done = False
        self._new_board(size)

    def _check_agent(self, size: int) -> None:
        """``SpecError`` for an agent that cannot play here: one that needs a person, or a
        model of another game or board size (checked now, not at the first ``genmove``)."""
        text = self.spec.text
        if isinstance(self.agent, HumanAgent):
            raise SpecError(
                f"agent spec {text!r}: the engine's agent must play unattended (a 'human' "
                "would read its moves from the GTP stream); give mcts, random, az:model=... "
                "or policy:model=..."
            )
        model = getattr(self.agent, "model", None)
        if not isinstance(model, ModelInfo):
            return
        if model.game is not None and not model.game.startswith("Go("):
            raise SpecError(
                f"agent spec {text!r}: model {model.source!r} was trained for {model.game}; "
                "the engine plays Go: give a model of Go"
            )
        # komi and the ko rule are in no model's inputs: the model plays the engine's Go
        self.agent.model = model = replace(model, game=None)
        why = self._misfit(size)
        if why is not None:
            raise SpecError(
                f"agent spec {text!r}: {why}; the engine plays Go on a {size}x{size} board "
                "(--size): give a model of Go at that size"
            )

    def _misfit(self, size: int) -> str | None:
        """Why the agent's model cannot play Go at ``size`` (None: it can, or no model)."""
        model = getattr(self.agent, "model", None)
        if not isinstance(model, ModelInfo):
            return None
        try:
            model.check(Go(size))
        except CheckpointError as error:
            return str(error)
        return None

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
        if text.lower() != "pass" and not _VERTEX.fullmatch(text):
            raise GtpError(SYNTAX_ERROR)
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
        if _INTEGER.fullmatch(words[0]):
            command_id = words.pop(0)
            if not words:
                return f"?{command_id} unknown command\n\n"
        command, args = words[0].lower(), words[1:]
        try:
            result = self._dispatch(command, args)
        except GtpError as error:
            return f"?{command_id} {error}\n\n"
        except ValueError as error:  # the library refused something: the engine goes on
            logger.warning("GTP %s: %s", command, error)
            text = " ".join(str(error).split()) or type(error).__name__
            return f"?{command_id} {text}\n\n"
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
        size = int(gtp_number(_arguments(args, 1)[0], integer=True))
        if not 5 <= size <= 19 or self._misfit(size) is not None:
            raise GtpError("unacceptable size")
        self._new_board(size)
        return ""

    def _clear_board(self, args: list[str]) -> str:
        self._new_board(self.game.size)
        return ""

    def _komi(self, args: list[str]) -> str:
        komi = gtp_number(_arguments(args, 1)[0], signed=True)
        if not abs(komi) <= 1000:
            raise GtpError("komi must be in [-1000, 1000]")
        self.komi = komi
        moves = self.history
        self._new_board(self.game.size)  # the same position under the new komi
        self.history = moves
        return ""

    def _play(self, args: list[str]) -> str:
        colour, action = self._colour(_arguments(args, 2)[0]), self._vertex(args[1])
        state = self._for(colour)
        if not self.game.is_legal(state, action):
            raise GtpError("illegal move")
        self.history.append(self.game.next_state(state, action))
        return ""

    def _genmove(self, args: list[str]) -> str:
        colour = self._colour(_arguments(args, 1)[0])
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
        result, moves = getattr(self.agent, "last_result", None), len(self.history) - 1
        if resigns(result, colour, moves, self.game.points, self.resign):
            return "resign"
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
        main, byo, stones = _arguments(args, 3)
        self.main_time, self.byo_yomi, self.byo_stones = (
            gtp_number(main),
            gtp_number(byo),
            int(gtp_number(stones, integer=True)),
        )
        self.clock = {}
        return ""

    def _time_left(self, args: list[str]) -> str:
        who, left, stones = _arguments(args, 3)
        colour = self._colour(who)
        self.clock[colour] = (gtp_number(left), int(gtp_number(stones, integer=True)))
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
    parser.add_argument(
        "--resign-threshold",
        type=resign_type,
        default=DEFAULT_RESIGN_THRESHOLD,
        help="resign when the searched move's win probability is under this (0: never)",
    )


def _komi_type(text: str) -> float:
    try:
        value = gtp_number(text.strip(), signed=True)
    except GtpError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a finite decimal number") from None
    if not abs(value) <= 1000:
        raise argparse.ArgumentTypeError(f"komi must be in [-1000, 1000], got {text}")
    return value


def gtp(args: argparse.Namespace) -> int:
    """Build the engine (a bad spec exits with code 2 before any command is read), then
    answer GTP on stdin/stdout until ``quit`` or the end of the input."""
    engine = GtpEngine(
        args.size, args.komi, args.superko, args.agent, args.seed, args.resign_threshold
    )
    from mcts_agents.cli.warm_up import prepare_agent  # the kernel before any clock runs

    prepare_agent(engine.agent, engine.env)
    engine.run(sys.stdin, sys.stdout)
    return 0
