"""The commands defined in modules of their own, each imported only when it is named.

``mcts-agents --help`` lists every command but imports none of these modules (nor what they
import: the envs, numpy, numba, torch, the web stack): ``COMMANDS`` holds each one's line of
help, and ``Commands`` (the parser's subcommand action) imports a command's module and adds its
options when the command is named on the command line, before argparse reads them, so that
``mcts-agents train --help`` shows them all.
"""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, NoReturn

__all__ = [
    "COMMANDS",
    "Command",
    "Commands",
    "Parser",
    "add_commands",
    "define",
    "int_type",
    "run_command",
]


@dataclass(frozen=True)
class Command:
    """A command of a module of its own: ``module.add_<name>_parser(commands, int_type)`` adds
    its parser (named ``name``, with ``help``), ``module.<name>(args)`` runs it."""

    module: str
    help: str

    def load(self) -> Any:
        return importlib.import_module(self.module)


#: Command -> its module and line of help (the module's own ``add_parser`` help, checked by
#: the tests), in the order ``--help`` lists them.
COMMANDS: dict[str, Command] = {
    "rate": Command("mcts_agents.cli.rate", "an agent's Elo on the game's calibrated ladder"),
    "train": Command(
        "mcts_agents.cli.train", "train an AlphaZero network by self-play (needs torch)"
    ),
    "serve": Command("mcts_agents.cli.serve", "play in the browser (needs the web extra)"),
    "gtp": Command("mcts_agents.cli.gtp", "a Go engine speaking GTP on stdin/stdout"),
    "warm-up": Command(
        "mcts_agents.cli.warm_up",
        "compile the numba kernels ahead, so that no first search waits for them",
    ),
}


def int_type(low: int, most: int | Callable[[], int] | None = None) -> Any:
    """An argparse type: an int in ``[low, most]`` (``most()`` read when a value is given)."""

    def convert(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
        high = most() if callable(most) else most
        if value < low or (high is not None and value > high):
            bounds = f">= {low}" if high is None else f"between {low} and {high}"
            raise argparse.ArgumentTypeError(f"must be an int {bounds}, got {value}")
        return value

    convert.__name__ = "int"
    return convert


class Parser(argparse.ArgumentParser):
    """Usage errors in one line on stderr, exit code 2."""

    def error(self, message: str) -> NoReturn:
        message = " ".join(message.split())
        self.exit(2, f"{self.prog}: error: {message} (see --help)\n")


def _function(name: str, kind: str) -> str:
    base = name.replace("-", "_")
    return f"add_{base}_parser" if kind == "add" else base


class _Filled:
    """What a module's ``add_<name>_parser(commands, ...)`` calls ``add_parser`` on: it fills in
    the parser already listed (its description, epilog, ...) instead of adding another."""

    def __init__(self, parser: argparse.ArgumentParser) -> None:
        self.parser = parser

    def add_parser(self, name: str, **options: Any) -> argparse.ArgumentParser:
        for key, value in options.items():
            if key not in ("help", "aliases"):
                setattr(self.parser, key, value)
        return self.parser


class Commands(argparse._SubParsersAction):
    """The subcommand action: a command of ``COMMANDS`` gets its options when it is named."""

    int_type: Callable[..., Any] | None = None

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        if isinstance(values, Sequence) and values:
            define(self, str(values[0]))
        super().__call__(parser, namespace, values, option_string)


_DEFINED = "_mcts_agents_defined"


def add_commands(commands: Any, int_type: Callable[..., Any]) -> None:
    """List every command of ``COMMANDS`` on ``commands`` (their options come when named;
    ``int_type(low, high=None)``: the parser's int type)."""
    commands.int_type = int_type
    for name, command in COMMANDS.items():
        commands.add_parser(name, help=command.help)


def define(commands: Any, name: str) -> None:
    """Import command ``name``'s module and add its options to its parser (once)."""
    command = COMMANDS.get(name)
    parser = commands.choices.get(name)
    if command is None or parser is None or getattr(parser, _DEFINED, False):
        return
    add = getattr(command.load(), _function(name, "add"))
    add(_Filled(parser), commands.int_type)
    setattr(parser, _DEFINED, True)


def run_command(name: str, args: argparse.Namespace) -> int:
    """Run command ``name`` of ``COMMANDS`` with its parsed ``args``; its exit code."""
    code: int = getattr(COMMANDS[name].load(), _function(name, "run"))(args)
    return code
