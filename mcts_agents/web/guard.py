"""The requests the web server refuses before any page sees them: another site's, and DNS
rebinding's.

- ``Host`` must name this server (``ServerPolicy.hosts``: the address it listens on, plus
  ``serve --allow-host``): a page of ``attacker.example`` whose name was made to resolve to
  ``127.0.0.1`` sends ``Host: attacker.example`` and is refused (400).
- A request that a browser marks as coming from another site (``Sec-Fetch-Site: cross-site``
  or ``same-site``) is refused (403), except a person following a link to a page (a top-level
  navigation: ``GET``, ``Sec-Fetch-Mode: navigate`` and ``Sec-Fetch-Dest: document``, not the
  API; a frame's navigation is refused). A state change (any method but ``GET``/``HEAD``) whose
  ``Origin`` is not this server's own is refused too (403), which covers browsers that do not
  send ``Sec-Fetch-Site``. Programs that send neither header (scripts, ``curl``) pass; the
  move and watch requests must also be JSON (``app``), which no cross-site form can send.
- Every response (pages, errors, static files, refusals) forbids framing
  (``FRAME_HEADERS``: ``Content-Security-Policy: frame-ancestors 'none'`` and
  ``X-Frame-Options: DENY``), so no other site can show a page in a frame and have it clicked.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

from starlette.datastructures import Headers
from starlette.responses import Response

from mcts_agents.web.policy import ServerPolicy

__all__ = ["FRAME_HEADERS", "RequestGuard", "refusal"]

_SAFE = ("GET", "HEAD", "OPTIONS")
#: Headers of every response: no page of this server is shown in another's frame.
FRAME_HEADERS = (
    (b"content-security-policy", b"frame-ancestors 'none'"),
    (b"x-frame-options", b"DENY"),
)


def refusal(policy: ServerPolicy, method: str, path: str, headers: Any) -> tuple[int, str] | None:
    """``(status, message)`` if the request must be refused, else ``None``; ``headers`` a
    case-insensitive mapping of the request's headers."""
    host = headers.get("host", "")
    if not host:
        return 400, "the request has no Host header"
    if not policy.host_allowed(host):
        return 400, (
            f"Host {host!r} is not an address of this server "
            f"(it answers {', '.join(policy.hosts)}; serve --allow-host NAME adds a name)"
        )
    site = headers.get("sec-fetch-site", "").lower()
    if site in ("cross-site", "same-site"):
        navigation = (
            method in ("GET", "HEAD")
            and headers.get("sec-fetch-mode", "").lower() == "navigate"
            and headers.get("sec-fetch-dest", "").lower() == "document"
            and not path.startswith("/api/")
        )
        if not navigation:
            return 403, f"a {site} request to {path!r} is refused: open the page itself"
    origin = headers.get("origin")
    if method not in _SAFE and origin is not None:
        parts = urlsplit(origin)
        if origin == "null" or parts.netloc.lower() != host.lower():
            return 403, f"a request from {origin!r} to {path!r} is refused (another site)"
    return None


class RequestGuard:
    """ASGI middleware: ``refusal`` for every HTTP request; ``render(path, status, message)``
    makes the refusal's response (a page, or JSON for the API); ``FRAME_HEADERS`` on every
    response."""

    def __init__(
        self, app: Any, policy: ServerPolicy, render: Callable[[str, int, str], Response]
    ) -> None:
        self.app = app
        self.policy = policy
        self.render = render

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def framed(message: Any) -> None:
            if message["type"] == "http.response.start":
                named = {name.lower() for name, _ in message.get("headers", ())}
                extra = [pair for pair in FRAME_HEADERS if pair[0] not in named]
                message = {**message, "headers": [*message.get("headers", ()), *extra]}
            await send(message)

        path = scope.get("path", "")
        refused = refusal(self.policy, scope["method"], path, Headers(scope=scope))
        if refused is not None:
            await self.render(path, *refused)(scope, receive, framed)
            return
        await self.app(scope, receive, framed)
