"""Tracebacks on the command line: ``--debug``, and errors raised inside a user's own env code.

The CLI reports a refused value or a failure in one line (``cli.main``). That hides where an
error came from when it was raised by someone else's code: a ``module:factory`` env whose
factory has a bug reads ``myenv:env() failed (TypeError: 'module' object is not callable)``.
``traceback_text`` gives the text printed before that line:

- with ``--debug`` (accepted before or after the command), the full traceback of any error;
- without it, the traceback of the first exception in the error's chain (``__cause__``,
  ``__context__``) that passed through the module the env spec names (or its package), where
  that module is not ours nor part of Python's standard library;
- otherwise nothing: the error is ours, and its one line says what was wrong.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import sysconfig
import traceback
from collections.abc import Iterable, Iterator
from pathlib import Path

__all__ = ["add_debug_option", "traceback_text", "user_code_root"]


def _envs_file() -> str:
    """Where ``mcts_agents.envs`` lives (found, not imported: ``--help`` stays fast)."""
    spec = importlib.util.find_spec("mcts_agents.envs")
    return (spec.origin if spec is not None else None) or __file__


_DEBUG_HELP = "on an error, print the full traceback (for bug reports and your own env's errors)"
#: Folders whose code is never the user's: this package, its envs, the standard library.
_NOT_USER = tuple(
    Path(p).resolve()
    for p in (
        Path(__file__).parent.parent,
        Path(_envs_file()).parent,
        sysconfig.get_paths()["stdlib"],
        sysconfig.get_paths()["platstdlib"],
    )
)


def add_debug_option(
    parser: argparse.ArgumentParser, commands: Iterable[argparse.ArgumentParser]
) -> None:
    """``--debug`` on ``parser`` and on every command's parser (``mcts-agents --debug arena``
    and ``mcts-agents arena ... --debug`` both work)."""
    parser.add_argument("--debug", action="store_true", help=_DEBUG_HELP)
    for command in commands:
        command.add_argument(
            "--debug", action="store_true", default=argparse.SUPPRESS, help=_DEBUG_HELP
        )


def user_code_root(env_text: str | None) -> Path | None:
    """The file or package folder of the module an env spec names (``module:factory`` or a
    module with ``env()``), once imported, unless that module is ours or the standard
    library's; else ``None`` (our envs, registry ids, nothing imported)."""
    if not env_text:
        return None
    name = env_text.split(":", 1)[0].strip()
    module = sys.modules.get(name)
    top = sys.modules.get(name.split(".", 1)[0])
    if module is None or top is None or not getattr(module, "__file__", None):
        return None
    if getattr(top, "__path__", None) and getattr(top, "__file__", None):
        root = Path(str(top.__file__)).resolve().parent  # the whole package
    else:
        root = Path(str(module.__file__)).resolve()
    if any(root == folder or root.is_relative_to(folder) for folder in _NOT_USER):
        return None
    return root


def _chain(error: BaseException) -> Iterator[BaseException]:
    """``error``, then its causes and contexts, each once."""
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


def _passes_through(error: BaseException, root: Path) -> bool:
    for frame in traceback.extract_tb(error.__traceback__):
        path = Path(frame.filename)
        if path.is_absolute() and (path == root or path.resolve().is_relative_to(root)):
            return True
    return False


def traceback_text(error: BaseException, debug: bool, env_text: str | None) -> str:
    """What to print before the CLI's one-line message about ``error``: its full traceback
    with ``debug``; else the traceback of the error raised in the user's env code (see the
    module's docstring), with a line saying so; else ``""``."""
    if debug:
        return "".join(traceback.format_exception(error))
    root = user_code_root(env_text)
    if root is None:
        return ""
    for link in _chain(error):
        if _passes_through(link, root):
            text = "".join(traceback.format_exception(link, chain=False))
            return (
                f"mcts-agents: the error below was raised in your env's code ({root}):\n"
                f"{text}(run with --debug for the whole traceback)\n"
            )
    return ""
