"""``mcts-agents serve [--host 127.0.0.1] [--port 8000]``: play in the browser.

Starts the web server (``mcts_agents.web``: Starlette on Uvicorn, the ``web`` extra) on the
loopback address unless ``--host`` says otherwise, prints its URL and serves until Ctrl-C.
Without the extra it says what to install and exits with code 2; an address that cannot be used
(a port in use) exits with code 1 in one line.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from typing import Any

__all__ = ["add_serve_parser", "serve"]


def add_serve_parser(commands: Any, int_type: Any) -> None:
    """Add the ``serve`` subcommand to ``commands`` (``int_type(low, high)``: an int type)."""
    parser = commands.add_parser(
        "serve",
        help="play in the browser (needs the web extra)",
        description="Start a local web server: pick an env and play against any agent spec, "
        "watch agents play each other, replay arena games, and see the agent's search as it "
        'thinks. Needs Starlette and Uvicorn: pip install "mcts-agents[web]".',
    )
    parser.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to listen on (default 127.0.0.1: this machine only)",
    )
    parser.add_argument(
        "--port", type=int_type(0, 65535), default=8000, help="port (default 8000; 0: any free)"
    )
    parser.add_argument(
        "--max-games",
        type=int_type(1, 10_000),
        default=64,
        help="most games open at once (one per page; default 64)",
    )


def serve(args: argparse.Namespace) -> int:
    """Run the server until interrupted (the web extra is checked first)."""
    from mcts_agents.web import require_web

    require_web()  # WebNotInstalledError (an ImportError): exit code 2, naming the extra
    from mcts_agents.web.server import serve as run
    from mcts_agents.web.store import Sessions

    def ready(url: str) -> None:
        print(f"mcts-agents: serving on {url}  (Ctrl-C to stop)", flush=True)

    with contextlib.suppress(KeyboardInterrupt):  # Uvicorn stops cleanly on Ctrl-C
        run(args.host, args.port, ready=ready, sessions=Sessions(max_sessions=args.max_games))
    print("mcts-agents: server stopped", file=sys.stderr)
    return 0
