"""Running the web app with Uvicorn: ``serve`` (the command line's) and ``BackgroundServer`` (a
server in a thread, for tests and scripts).

The socket is bound here, before Uvicorn starts, so that the address is known (``--port 0``
takes any free port) and a port in use is reported in one line. The default address is the
loopback one: the server has no accounts, and it reads results files by name, so it is for
the person at this machine unless told otherwise. What requests may name and ask for, and the
``Host`` names it answers, are the app's ``ServerPolicy`` (``policy=``, ``web.policy``).
"""

from __future__ import annotations

import ipaddress
import logging
import socket
import threading
import time
from collections.abc import Callable
from types import TracebackType
from typing import Any

from mcts_agents.web import require_web

__all__ = ["BackgroundServer", "bind", "serve", "url_of"]

logger = logging.getLogger(__name__)


def bind(host: str, port: int) -> socket.socket:
    """A listening socket on ``host:port`` (``port`` 0: any free one).

    Raises:
        OSError: the address cannot be used (in use, not this machine's), in one line.
    """
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as error:
        raise OSError(f"--host {host!r} is not an address of this machine ({error})") from None
    family, kind, proto, _, address = infos[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(128)
    except OSError as error:
        sock.close()
        reason = error.strerror or str(error)
        raise OSError(
            f"cannot listen on {host}:{port} ({reason}); choose another port with --port "
            "(0 takes any free one)"
        ) from None
    sock.set_inheritable(True)
    return sock


def url_of(sock: socket.socket) -> str:
    """``http://host:port/`` of a bound socket (IPv6 hosts in brackets)."""
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}/"


def _warn_if_public(host: str, policy: Any) -> None:
    try:
        loopback = ipaddress.ip_address(host).is_loopback
    except ValueError:
        loopback = host == "localhost"
    if not loopback:
        hosts = ", ".join(policy.hosts) if policy is not None else "the loopback names"
        logger.warning(
            "serving on %s: anyone who can reach this machine can open games and replay any "
            "results file this account can read; requests must name this server as one of: "
            "%s (--allow-host NAME adds a name)",
            host,
            hosts,
        )


def _server(app: Any, **options: Any) -> Any:
    import uvicorn

    config = uvicorn.Config(app, log_level="warning", lifespan="on", **options)
    return uvicorn.Server(config)


def serve(
    host: str = "127.0.0.1",
    port: int = 8000,
    ready: Callable[[str], None] | None = None,
    **app_options: Any,
) -> None:
    """Serve the app on ``host:port`` until interrupted; ``ready(url)`` is called once the
    socket listens (the command line prints the URL). ``app_options`` go to ``create_app``.

    Raises:
        WebNotInstalledError: without the ``web`` extra.
        OSError: the address cannot be used.
    """
    require_web()
    from mcts_agents.web.app import create_app

    sock = bind(host, port)
    _warn_if_public(host, app_options.get("policy"))
    try:
        if ready is not None:
            ready(url_of(sock))
        _server(create_app(**app_options)).run(sockets=[sock])
    finally:
        sock.close()


class BackgroundServer:
    """The app served from a thread on a loopback port, as a context manager (``url``)."""

    def __init__(self, host: str = "127.0.0.1", port: int = 0, **app_options: Any) -> None:
        require_web()
        from mcts_agents.web.app import create_app

        self.app = create_app(**app_options)
        self.sessions = self.app.state.sessions
        self._sock = bind(host, port)
        self.url = url_of(self._sock)
        self._server = _server(self.app)
        self._thread = threading.Thread(
            target=self._server.run, kwargs={"sockets": [self._sock]}, daemon=True
        )

    def __enter__(self) -> BackgroundServer:
        self._thread.start()
        deadline = time.monotonic() + 20
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the web server did not start")
            time.sleep(0.02)
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._server.should_exit = True
        self._thread.join(timeout=20)
        self._sock.close()
