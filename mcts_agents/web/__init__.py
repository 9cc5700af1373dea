"""Play in the browser: ``mcts-agents serve`` (the ``web`` extra: Starlette and Uvicorn).

``serve(host, port)`` runs the app of ``web.app`` on a local address; ``create_app()`` builds
it (for tests, or another ASGI server). The drawing (``svg``, ``boards``, ``tables``), the games
(``session``, ``store``, ``live``), the views (``views``, ``pages``, ``replays``) and what a
request may ask for (``policy``) import neither Starlette nor Uvicorn; ``app``, ``guard`` and
``server`` need them, and without them ``require_web`` raises ``WebNotInstalledError`` naming
the extra. ``serve`` and ``create_app`` are imported from their modules
(``from mcts_agents.web.server import serve``), not exported here: those modules import
``require_web`` from this package, which must not import them back.
"""

from __future__ import annotations

import importlib.util

from mcts_agents.errors import WebNotInstalledError

__all__ = ["require_web"]

#: the packages of the ``web`` extra (their import names).
WEB_PACKAGES = ("starlette", "uvicorn")


def require_web() -> None:
    """``WebNotInstalledError`` unless Starlette and Uvicorn can be imported."""
    missing = [name for name in WEB_PACKAGES if importlib.util.find_spec(name) is None]
    if missing:
        raise WebNotInstalledError(
            f"the web server needs {' and '.join(missing)}, which are not installed: "
            'pip install ".[web]"'
        )
