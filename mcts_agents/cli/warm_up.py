"""``mcts-agents warm-up [KERNEL...]``: compile the numba kernels ahead, once.

Each kernel (``compiled.warm.KERNELS``; all of them by default) gets one line on stderr:
``compiling connect_four ... 11.8 s``, or ``connect_four: cached`` where numba's cache already
holds it (nothing is loaded then). An unknown name exits with code 2 before anything compiles.
"""

from __future__ import annotations

import argparse
import logging
import sys
import time
from typing import Any

__all__ = ["add_warm_up_parser", "prepare_agent", "warm_up"]


def add_warm_up_parser(commands: Any, int_type: Any) -> None:
    """Add the ``warm-up`` subcommand to ``commands``."""
    from mcts_agents.compiled.warm import KERNELS

    parser = commands.add_parser(
        "warm-up",
        help="compile the numba kernels ahead, so that no first search waits for them",
        description="Compile the numba kernels now (each once per install: seconds to a minute "
        "each) and keep them in numba's cache, so that no game's first search waits for its "
        "compile. A line per kernel on stderr.",
        epilog="kernels: " + ", ".join(f"{one.name} ({one.title})" for one in KERNELS),
    )
    parser.add_argument(
        "kernels", nargs="*", metavar="KERNEL", help="kernels to compile (default: all)"
    )


def warm_up(args: argparse.Namespace) -> int:
    """Compile the kernels ``args.kernels`` names (all by default); exit code 0."""
    from mcts_agents.compiled import numba_available
    from mcts_agents.compiled.cache import cache_dir
    from mcts_agents.compiled.warm import kernels_named, warm_up_kernel

    kernels = kernels_named(args.kernels)  # an unknown name: exit 2 before any compile
    if not numba_available():
        print(
            "mcts-agents: error: numba is not installed, so there is nothing to compile "
            '(pip install ".[fast]" from a checkout)',
            file=sys.stderr,
        )
        return 1
    print(f"numba's cache: {cache_dir() or 'numba default'}", file=sys.stderr)
    quiet = logging.getLogger("mcts_agents.compiled")  # this line says what the warning says
    level = quiet.level
    quiet.setLevel(logging.ERROR)
    try:
        for kernel in kernels:
            if kernel.cached():
                print(f"{kernel.name}: cached", file=sys.stderr)
                continue
            print(f"compiling {kernel.name} ... ", end="", file=sys.stderr, flush=True)
            print(f"{warm_up_kernel(kernel):.1f} s", file=sys.stderr, flush=True)
    finally:
        quiet.setLevel(level)
    return 0


def prepare_agent(agent: Any, env: Any) -> None:
    """``agent.prepare(env)`` (its searcher built, its kernel compiled or loaded) before any
    clock runs, with a line on stderr before and after where the kernel is about to be
    compiled: ``compiling the go kernel (Go's tree search), once ...`` / ``... done in 83.0 s``.
    """
    prepare = getattr(agent, "prepare", None)
    if prepare is None:
        return
    kernel = None
    config = getattr(agent, "config", None)
    if config is not None:
        from mcts_agents.adapters import game_from_env
        from mcts_agents.compiled.warm import kernel_for

        kernel = kernel_for(game_from_env(env)[0], config)
        kernel = None if kernel is None or kernel.cached() else kernel
    if kernel is not None:
        print(
            f"mcts-agents: compiling the {kernel.name} kernel ({kernel.title}), once (up to a "
            "minute or two; 'mcts-agents warm-up' does it ahead) ...",
            file=sys.stderr,
            flush=True,
        )
    start = time.perf_counter()
    quiet = logging.getLogger("mcts_agents.compiled")  # the line above says it
    level = quiet.level
    quiet.setLevel(logging.ERROR)
    try:
        prepare(env)
    finally:
        quiet.setLevel(level)
    if kernel is not None:
        print(
            f"mcts-agents: ... done in {time.perf_counter() - start:.1f} s",
            file=sys.stderr,
            flush=True,
        )
