"""The ``mcts-agents`` command's entry point (and ``python -m mcts_agents``'s).

It imports the command line inside the ``try``, so that a Ctrl-C while the library loads (a
second or so: numpy, PettingZoo, the web server's packages) ends the program with exit code
130 and one line, never a traceback. ``import mcts_agents`` itself loads nothing (its names
are imported on first use), so nothing runs before this. A Ctrl-C that lands inside a C
extension's import can come out as that extension's ``ImportError`` (numpy's does): the
handler notes every Ctrl-C, so such an error is still read as the interruption it is.
"""

from __future__ import annotations

import signal
import sys
from collections.abc import Sequence
from types import FrameType
from typing import Any

__all__ = ["run"]

INTERRUPTED = 130


def run(argv: Sequence[str] | None = None) -> int:
    """``mcts_agents.cli.main.main(argv)``, with Ctrl-C at any point an exit code of 130."""
    pressed: list[int] = []
    try:
        code, said = _run(argv, pressed), True
    except KeyboardInterrupt:
        code, said = INTERRUPTED, False
    if code not in (0, INTERRUPTED) and pressed:  # an error that the interruption caused
        code, said = INTERRUPTED, False
    if not said:  # (the command line says it when it was running)
        sys.stderr.write("mcts-agents: interrupted\n")
    return code


def _run(argv: Sequence[str] | None, pressed: list[int]) -> int:
    def on_interrupt(signum: int, frame: FrameType | None) -> Any:
        pressed.append(signum)
        raise KeyboardInterrupt

    previous = signal.getsignal(signal.SIGINT)
    signal.signal(signal.SIGINT, on_interrupt)
    try:
        from mcts_agents.cli.main import main

        return main(argv)
    except Exception:
        if not pressed:
            raise
        raise KeyboardInterrupt from None
    finally:
        signal.signal(signal.SIGINT, previous)
