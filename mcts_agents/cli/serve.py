"""``mcts-agents serve [--host 127.0.0.1] [--port 8000] [...]``: play in the browser.

Starts the web server (``mcts_agents.web``: Starlette on Uvicorn, the ``web`` extra) on the
loopback address unless ``--host`` says otherwise, prints its URL and serves until Ctrl-C.
Without the extra it says what to install and exits with code 2; an address that cannot be used
(a port in use) exits with code 1 in one line.

What a request may name and ask for is the server's ``ServerPolicy`` (``web.policy``), built
here: ``--allow-env`` (``module:factory`` envs of the person's own), ``--models`` (the folder
of the models ``az``/``policy`` agents may load by name), the limits (``--max-workers``,
``--max-iterations``, ``--max-time``, ``--max-nodes``, ``--max-total-nodes``, ``--max-threads``,
``--max-board``) and the ``Host`` names
the server answers (the ``--host`` address, plus ``--allow-host``). A ``--host`` that is not
an address or a name of this machine, or an ``--allow-env`` that is not ``module:factory`` or a
module name, is a usage error (exit 2).
"""

from __future__ import annotations

import argparse
import contextlib
import ipaddress
import re
import socket
import sys
from pathlib import Path
from typing import Any

__all__ = ["add_serve_parser", "serve"]

#: One label of a host name.
_LABEL = re.compile(r"(?!-)[A-Za-z0-9-]{1,63}(?<!-)")


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"{text!r} should be a number of seconds > 0")
    return value


def _host(text: str) -> str:
    """An IP address, or a host name that resolves here (``999.1.1.1`` is neither)."""
    name = text.strip().strip("[]")
    try:
        ipaddress.ip_address(name)
        return name
    except ValueError:
        pass
    labels = name.rstrip(".").split(".")
    if not name or labels[-1].isdigit() or not all(_LABEL.fullmatch(x) for x in labels):
        raise argparse.ArgumentTypeError(f"{text!r} is not an IP address or a host name")
    try:
        socket.getaddrinfo(name, None, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except (OSError, UnicodeError) as error:
        reason = f"{text!r} is not an address of this machine ({error})"
        raise argparse.ArgumentTypeError(reason) from None
    return name


def _env_path(text: str) -> str:
    """An env of the person's own: ``module:factory`` or a dotted module name (not imported)."""
    from mcts_agents.adapters.env_sources import factory_form, is_dotted

    path = text.strip()
    form = factory_form(path)
    if (form is None or form[1]) and not is_dotted(path):
        raise argparse.ArgumentTypeError(
            f"{text!r} is not module:factory or a module name (mygames:make_env, mygames.env)"
        )
    return form[0] if form is not None else path


def _folder(text: str) -> Path:
    path = Path(text)
    if not path.is_dir():
        raise argparse.ArgumentTypeError(f"{text!r} is not a folder")
    return path


def add_serve_parser(commands: Any, int_type: Any) -> None:
    """Add the ``serve`` subcommand to ``commands`` (``int_type(low, high)``: an int type)."""
    parser = commands.add_parser(
        "serve",
        help="play in the browser (needs the web extra)",
        description="Start a local web server: pick an env and play against any agent spec, "
        "watch agents play each other, replay arena games, and see the agent's search as it "
        'thinks. Needs Starlette and Uvicorn: pip install ".[web]". A request may '
        "name the listed envs, PettingZoo registry ids and the agent kinds, within the limits "
        "below; nothing it names is imported.",
    )
    parser.add_argument(
        "--host",
        type=_host,
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
    parser.add_argument(
        "--allow-env",
        type=_env_path,
        action="append",
        default=[],
        metavar="MODULE:FACTORY",
        help="an env of your own that pages may name (module:factory, or a module with env()); "
        "repeat for more. Without it no request makes the server import anything",
    )
    parser.add_argument(
        "--models",
        type=_folder,
        default=None,
        metavar="DIR",
        help="folder of trained models: az/policy agents of a page load model=NAME from it "
        "(a model file is code: list only your own). Without it no model is loaded",
    )
    parser.add_argument(
        "--results",
        type=_folder,
        default=None,
        metavar="DIR",
        help="folder of arena results files that /replay may read (default: the folder the "
        "server runs in); no path leading out of it is read",
    )
    parser.add_argument(
        "--allow-host",
        action="append",
        default=[],
        metavar="NAME",
        help="another name the server answers to in the Host header (it answers the --host "
        "address, and localhost for a loopback one); '*' for any. Repeat for more",
    )
    limits = parser.add_argument_group("limits of what a page may ask for")
    limits.add_argument(
        "--max-workers",
        type=int_type(1, 1024),
        default=1,
        help="processes of one agent (workers=; default 1: none beside the server)",
    )
    limits.add_argument(
        "--max-iterations",
        type=int_type(1, 10**9),
        default=100_000,
        help="simulations per move (default 100000)",
    )
    limits.add_argument(
        "--max-time",
        type=_positive_float,
        default=60.0,
        help="seconds per move: every search stops by then, whatever its budget (default 60)",
    )
    limits.add_argument(
        "--max-nodes",
        type=int_type(1_000, 10**10),  # a root of 361 moves (19x19) and its tree fit
        default=1_000_000,
        help="nodes of a search's tree (default 1000000; about 440 bytes a node in Python); a "
        "search that names none gets the least of this and a 16th of --max-total-nodes",
    )
    limits.add_argument(
        "--max-total-nodes",
        type=int_type(1_000, 10**11),
        default=4_000_000,
        help="nodes of all open games' searches together (default 4000000, about 1.8 GB); a "
        "new game past it is refused (503) until others close",
    )
    limits.add_argument(
        "--max-threads",
        type=int_type(1, 1024),
        default=1,
        help="torch threads of an az/policy agent (threads=; torch's setting is the whole "
        "server's; default 1)",
    )
    limits.add_argument(
        "--max-board",
        type=int_type(1, 10_000),
        default=19,
        help="a number given as an env option: board side, players (default 19)",
    )


def policy_of(args: argparse.Namespace) -> Any:
    """The ``ServerPolicy`` of the command line's options."""
    from mcts_agents.web.policy import Limits, ServerPolicy, hosts_for

    limits = Limits(
        workers=args.max_workers,
        iterations=args.max_iterations,
        seconds=args.max_time,
        nodes=args.max_nodes,
        board=args.max_board,
        total_nodes=args.max_total_nodes,
        threads=args.max_threads,
    )
    return ServerPolicy(
        allow_env=tuple(args.allow_env),
        models=args.models,
        results=args.results,
        limits=limits,
        hosts=hosts_for(args.host, args.allow_host),
    )


def serve(args: argparse.Namespace) -> int:
    """Run the server until interrupted (the web extra is checked first)."""
    from mcts_agents.web import require_web

    require_web()  # WebNotInstalledError (an ImportError): exit code 2, naming the extra
    from mcts_agents.web.server import serve as run
    from mcts_agents.web.store import Sessions

    policy = policy_of(args)

    def ready(url: str) -> None:
        print(f"mcts-agents: serving on {url}  (Ctrl-C to stop)", flush=True)

    with contextlib.suppress(KeyboardInterrupt):  # Uvicorn stops cleanly on Ctrl-C
        run(
            args.host,
            args.port,
            ready=ready,
            sessions=Sessions(max_sessions=args.max_games),
            policy=policy,
        )
    print("mcts-agents: server stopped", file=sys.stderr)
    return 0
