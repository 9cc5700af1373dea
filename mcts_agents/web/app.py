"""The web app (Starlette): pages, the games' JSON API, and error pages without stack traces.

Pages: ``/`` (envs and agent kinds, forms), ``/play/<env>?opponent=<spec>&seat=<n>&seed=<n>``
(a person against an agent), ``/watch/<env>?p0=<spec>&p1=<spec>&delay=<s>&seed=<n>`` (agents
against each other), ``/replay?file=<results file>&game=<n>&step=<n>``. Every game page opens
its own game, held by ``Sessions``; the page's script polls ``GET /api/games/<id>``, plays with
``POST /api/games/<id>/move`` (``{"action": n}``; an illegal move is refused with 409 and
changes nothing), sets watch mode's speed with ``POST /api/games/<id>/watch``
(``{"delay": s, "paused": bool}``) and frees the game with ``POST /api/games/<id>/close`` when
the page goes away. ``GET /api/sessions`` counts the open games (their ids are each page's
own: a game id is the page's key to its game); ``GET /api/registry`` lists the envs and agent
kinds as JSON.

Every spec in an address, and the env of a replayed results file, is untrusted: the app's
``ServerPolicy`` (``policy``) reads it, so nothing a request names is imported, and the numbers
it asks for are capped. ``guard.RequestGuard`` refuses other sites' requests and foreign
``Host`` headers before any page sees them; a move or watch request must be a JSON object of
at most ``MAX_BODY`` bytes.

A bad env, spec, seat, file or game number gets an error page (400, or 404 for what does not
exist) whose message names it; any other failure a 500 page that says so, the trace going only
to the server's log.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import AsyncIterator
from importlib import resources
from typing import Any
from urllib.parse import quote

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import ClientDisconnect, Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from mcts_agents.agents.specs import AGENT_KINDS, ENV_SPECS, agent_options, env_parameters
from mcts_agents.checks import is_number
from mcts_agents.errors import ResultsFileError, SpecError, TooManyGamesError
from mcts_agents.web import pages
from mcts_agents.web.guard import FRAME_HEADERS, RequestGuard
from mcts_agents.web.policy import ServerPolicy
from mcts_agents.web.replays import GameNotFound, load_game, replay
from mcts_agents.web.store import DEFAULT_OPPONENT, DEFAULT_WATCH, Sessions, new_play, new_watch
from mcts_agents.web.svg import compose
from mcts_agents.web.views import game_json, position_drawing

__all__ = ["create_app"]

logger = logging.getLogger(__name__)

_STATIC = {"game.js": "text/javascript", "replay.js": "text/javascript", "style.css": "text/css"}
#: Most bytes of a JSON request body.
MAX_BODY = 16_384


class Gone(Exception):
    """The client went away mid-request: nothing to answer (logged in one line)."""


class BadRequest(Exception):
    """A request whose value is wrong: a page (or JSON) with ``status`` and the message."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


def _number(request: Request, name: str, default: float, low: float, high: float) -> float:
    text = request.query_params.get(name)
    if text is None or text.strip() == "":
        return default
    try:
        value = float(text)
    except ValueError:
        raise BadRequest(f"{name}={text!r} is not a number") from None
    if not low <= value <= high:
        raise BadRequest(f"{name}={text!r} must be between {low:g} and {high:g}")
    return value


def _int(request: Request, name: str, default: int, low: int = 0, high: int = 2**31 - 1) -> int:
    text = request.query_params.get(name)
    if text is None or text.strip() == "":
        return default
    try:
        value = int(text)
    except ValueError:
        raise BadRequest(f"{name}={text!r} is not an integer") from None
    if not low <= value <= high:
        raise BadRequest(f"{name}={text!r} must be an integer from {low} to {high}")
    return value


def _sessions(request: Request) -> Sessions:
    sessions: Sessions = request.app.state.sessions
    return sessions


def _policy(request: Request) -> ServerPolicy:
    policy: ServerPolicy = request.app.state.policy
    return policy


# ------------------------------------------------------------------------------ pages
def index(request: Request) -> Response:
    return HTMLResponse(pages.index_page(DEFAULT_OPPONENT, DEFAULT_WATCH))


def form_redirect(request: Request) -> Response:
    """``/play?env=...`` (the index's forms) -> ``/play/<env>?...``."""
    params = dict(request.query_params)
    env = params.pop("env", "").strip()
    if not env:
        raise BadRequest("no env given: choose one on the index page")
    kind = request.url.path.strip("/")
    return RedirectResponse(f"/{kind}/{quote(env, safe=':=,/')}{pages.query(**params)}", 303)


def _game_page(request: Request, session: Any, title: str) -> Response:
    _sessions(request).add(session, _policy(request).limits.total_nodes)
    links = {"new game": str(request.url), "index": "/"}
    return HTMLResponse(pages.game_page(game_json(session), title, links))


def play(request: Request) -> Response:
    env = request.path_params["env"]
    opponent = request.query_params.get("opponent") or DEFAULT_OPPONENT
    seat = _int(request, "seat", 0, 0, 64)
    seed = _int(request, "seed", 0)
    session = new_play(env, opponent, seat, seed, _policy(request))
    return _game_page(request, session, f"{env}: you against {opponent}")


def watch(request: Request) -> Response:
    env = request.path_params["env"]
    specs = [request.query_params.get(f"p{i}") for i in range(8)]
    while specs and specs[-1] is None:
        specs.pop()
    delay = _number(request, "delay", 0.5, 0.0, 10.0)
    session = new_watch(env, specs, _int(request, "seed", 0), delay, _policy(request))
    names = " vs ".join(seat.name for seat in session.seats)
    return _game_page(request, session, f"{env}: {names}")


def replay_page(request: Request) -> Response:
    file = request.query_params.get("file", "").strip()
    if not file:
        raise BadRequest("no results file given: /replay?file=results.jsonl&game=0")
    recorded = load_game(_policy(request).results_path(file), _int(request, "game", 0))
    total = len(recorded.moves)
    step = _int(request, "step", total, 0, total)
    frame, names = replay(recorded, step, _policy(request))
    drawing = position_drawing(frame.game, frame.state, frame.pixels, None)
    record = recorded.record
    seats = record["seats"]
    board = compose(drawing, (), None, str, frame.last)
    if step < total:
        mover = seats[record["movers"][step]]
        status = f"Move {step + 1} of {total}: {mover} to play"
    else:
        status = "Game over: " + (
            f"a win for {record['winner']}" if record["outcome"] == "win" else "a draw"
        )
    facts = [
        f"env {recorded.header['env']}, game {record['index']}, seed {record['seed']}",
        *(f"seat {i}: {name}" for i, name in enumerate(seats)),
        "returns " + ", ".join(f"{r:+g}" for r in record["returns"]),
    ]
    moves = [(seats[m], name) for m, name in zip(record["movers"], names, strict=True)]
    link = "/replay" + pages.query(file=file, game=record["index"]) + "&step={step}"
    title = f"Replay of game {record['index']} of {file}"
    return HTMLResponse(pages.replay_page(title, board, status, moves, step, link, facts))


def favicon(request: Request) -> Response:
    return Response(status_code=204)


def static(request: Request) -> Response:
    name = request.path_params["name"]
    if name not in _STATIC:
        raise BadRequest(f"no static file {name!r}", 404)
    content = (resources.files("mcts_agents.web") / "static" / name).read_text("utf-8")
    return Response(content, media_type=_STATIC[name], headers={"cache-control": "no-cache"})


# -------------------------------------------------------------------------------- API
def _session_or_404(request: Request) -> Any:
    session = _sessions(request).get(request.path_params["id"])
    if session is None:
        raise BadRequest(f"no open game {request.path_params['id']!r} (closed or idle)", 404)
    return session


async def _body(request: Request) -> dict[str, Any]:
    """The JSON object of a state change: its type must say JSON (which no form of another
    site can send without the browser asking this server first), at most ``MAX_BODY`` bytes."""
    kind = request.headers.get("content-type", "").partition(";")[0].strip().lower()
    if kind != "application/json":
        raise BadRequest(f"the request body should be application/json, not {kind!r}")
    body = b""
    try:
        async for chunk in request.stream():
            body += chunk
            if len(body) > MAX_BODY:
                raise BadRequest(f"the request body is over {MAX_BODY} bytes", 413)
    except ClientDisconnect:
        logger.info(
            "%s %s: the client left before its body ended", request.method, request.url.path
        )
        raise Gone from None
    try:
        data = json.loads(body or b"{}")
    except (ValueError, RecursionError):  # RecursionError: nested too deep to read
        raise BadRequest("the request body is not JSON (or is nested too deep)") from None
    if not isinstance(data, dict):
        raise BadRequest("the request body should be a JSON object")
    return data


def game_state(request: Request) -> Response:
    return JSONResponse(game_json(_session_or_404(request)))


async def move(request: Request) -> Response:
    session = _session_or_404(request)
    data = await _body(request)
    if "action" not in data:
        raise BadRequest('the body should be {"action": <action id>}')
    refused = session.play(data["action"])
    if refused is not None:
        return JSONResponse({"error": refused, "game": game_json(session)}, 409)
    return JSONResponse({"ok": True, "game": game_json(session)})


async def watch_control(request: Request) -> Response:
    session = _session_or_404(request)
    data = await _body(request)
    delay, paused = data.get("delay"), data.get("paused")
    if delay is not None and (not is_number(delay) or not 0 <= delay <= 10):
        raise BadRequest(f"delay should be a number of seconds from 0 to 10, got {delay!r}")
    if paused is not None and not isinstance(paused, bool):
        raise BadRequest(f"paused should be true or false, got {paused!r}")
    session.set_watch(delay, paused)
    return JSONResponse({"ok": True, "game": game_json(session)})


def close(request: Request) -> Response:
    closed = _sessions(request).close(request.path_params["id"])
    return JSONResponse({"closed": closed})


def sessions_info(request: Request) -> Response:
    return JSONResponse({"count": len(_sessions(request))})  # not the ids: each page's own


def registry(request: Request) -> Response:
    envs = {
        name: {k: repr(v) for k, v in {**env_parameters(module), **base}.items()}
        for name, (module, base) in ENV_SPECS.items()
    }
    agents = {kind: agent_options(kind) for kind in AGENT_KINDS}
    return JSONResponse({"envs": envs, "agents": agents})


# ----------------------------------------------------------------------------- errors
def _error(request: Request, status: int, message: str) -> Response:
    return _render(request.url.path, status, message)


def _render(path: str, status: int, message: str) -> Response:
    headers = {name.decode(): value.decode() for name, value in FRAME_HEADERS}
    if path.startswith("/api/"):  # a 500 is sent from outside the guard: its headers here
        return JSONResponse({"error": message}, status, headers=headers)
    return HTMLResponse(pages.error_page(status, message), status, headers=headers)


async def _bad_request(request: Request, error: Exception) -> Response:
    status = getattr(error, "status", 400)
    return _error(request, status, str(error))


async def _not_found(request: Request, error: Exception) -> Response:
    return _error(request, 404, str(error))


async def _gone(request: Request, error: Exception) -> Response:
    return Response(status_code=400)  # no one reads it


async def _busy(request: Request, error: Exception) -> Response:
    return _error(request, 503, str(error))


async def _http(request: Request, error: Exception) -> Response:
    status = getattr(error, "status_code", 500)
    detail = getattr(error, "detail", "")
    if status == 404:
        detail = f"no page at {request.url.path!r}"
    return _error(request, status, str(detail))


async def _internal(request: Request, error: Exception) -> Response:
    logger.exception("%s %s failed", request.method, request.url.path)
    return _error(request, 500, f"the server failed ({type(error).__name__}); see its log")


def create_app(
    sessions: Sessions | None = None,
    sweep_seconds: float = 5.0,
    policy: ServerPolicy | None = None,
) -> Starlette:
    """The web app; ``sessions`` holds its games (a new ``Sessions()`` by default), ``policy``
    says what a request may name and ask for (default ``ServerPolicy()``: the registry's envs
    and agents, no model, the default limits, loopback ``Host`` names only). While it runs,
    idle games are swept every ``sweep_seconds``; at shutdown every game is closed."""
    held = sessions if sessions is not None else Sessions()
    rules = policy if policy is not None else ServerPolicy()

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        async def sweeper() -> None:
            while True:
                await asyncio.sleep(sweep_seconds)
                await asyncio.to_thread(held.sweep)

        task = asyncio.create_task(sweeper())
        try:
            yield
        finally:
            task.cancel()
            held.close_all()

    routes = [
        Route("/", index),
        Route("/play", form_redirect),
        Route("/watch", form_redirect),
        Route("/play/{env:path}", play),
        Route("/watch/{env:path}", watch),
        Route("/replay", replay_page),
        Route("/static/{name}", static),
        Route("/favicon.ico", favicon),
        Route("/api/registry", registry),
        Route("/api/sessions", sessions_info),
        Route("/api/games/{id}", game_state),
        Route("/api/games/{id}/move", move, methods=["POST"]),
        Route("/api/games/{id}/watch", watch_control, methods=["POST"]),
        Route("/api/games/{id}/close", close, methods=["POST"]),
    ]
    handlers: dict[Any, Any] = {
        BadRequest: _bad_request,
        Gone: _gone,
        SpecError: _bad_request,
        ResultsFileError: _bad_request,
        GameNotFound: _not_found,
        TooManyGamesError: _busy,
        ValueError: _bad_request,  # the library's bad-value errors (InvalidOptionError, ...)
        HTTPException: _http,
        Exception: _internal,
    }
    guard = Middleware(RequestGuard, policy=rules, render=_render)
    app = Starlette(
        routes=routes, exception_handlers=handlers, lifespan=lifespan, middleware=[guard]
    )
    app.state.sessions = held
    app.state.policy = rules
    return app
