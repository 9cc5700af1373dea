"""The web server's games: made from specs, found by id, freed when their pages close.

``Sessions`` holds every open game (one per page). A page says it closed (a ``close`` request
when it is hidden for good), and a page that stops asking about its game for ``idle_seconds``
(a tab killed without a word) loses it at the next ``sweep``; at most ``max_sessions`` are held
at once. ``new_play`` and ``new_watch`` check every spec before anything is made, through the
server's ``ServerPolicy`` (``policy``: the command line's parsers behind a gate that refuses
anything a request may not name, or ask for), so a bad env, agent or seat is named at once.
"""

from __future__ import annotations

import logging
import secrets
import threading
import time
from collections.abc import Sequence
from typing import Any

from mcts_agents.agents.specs import AgentSpec, EnvSpec, make_agent
from mcts_agents.errors import SpecError, TooManyGamesError
from mcts_agents.seeding import derive_seed
from mcts_agents.web.policy import ServerPolicy, search_nodes
from mcts_agents.web.session import Seat, Session

__all__ = [
    "DEFAULT_OPPONENT",
    "DEFAULT_WATCH",
    "Sessions",
    "make_env",
    "new_play",
    "new_watch",
]

logger = logging.getLogger(__name__)

#: The agent a person plays against unless the page names one, and watch mode's default.
DEFAULT_OPPONENT = "mcts:time=1"
DEFAULT_WATCH = "mcts:time=0.5"


def make_env(spec: EnvSpec) -> Any:
    """A fresh env of ``spec``: ours as they are (drawn from the rules core), others with
    ``render_mode="rgb_array"`` where they offer it (drawn from their picture)."""
    if spec.factory:
        modes = (getattr(spec(), "metadata", None) or {}).get("render_modes", ())
        if "rgb_array" in modes:
            try:
                return spec(render_mode="rgb_array")
            except TypeError:  # a factory that takes no render_mode
                pass
    return spec()


def _seats(env: Any, controllers: Sequence[AgentSpec | None]) -> list[Seat]:
    return [
        Seat(i, str(agent), "you" if c is None else c.name, c is None or c.kind == "human")
        for i, (agent, c) in enumerate(zip(env.possible_agents, controllers, strict=True))
    ]


def _session(
    spec: EnvSpec,
    env: Any,
    controllers: Sequence[AgentSpec | None],
    seed: int,
    mode: str,
    policy: ServerPolicy,
    delay: float = 0.0,
) -> Session:
    seats = _seats(env, controllers)
    agents = [
        (seat, controller)
        for seat, controller in zip(seats, controllers, strict=True)
        if not seat.person and controller is not None
    ]
    players = {
        seat.index: make_agent(controller, seed=derive_seed(seed, seat.index))
        for seat, controller in agents
    }
    return Session(
        secrets.token_urlsafe(9),
        env,
        seats,
        players,
        seed,
        mode,
        delay,
        env_name=str(spec),
        move_seconds=policy.limits.seconds,
        nodes=sum(search_nodes(controller) for _, controller in agents),
    )


def new_play(
    env_text: str, opponent: str, seat: int, seed: int, policy: ServerPolicy | None = None
) -> Session:
    """A person in ``seat`` against ``opponent`` (an agent spec) in every other seat; the
    specs are untrusted, read by ``policy`` (default: ``ServerPolicy()``).

    Raises:
        SpecError: a bad env or agent spec, one the policy refuses, or a seat the env does
            not have.
    """
    policy = policy or ServerPolicy()
    spec = policy.env_spec(env_text)
    agent = policy.agent_spec(opponent)
    env = make_env(spec)
    count = len(env.possible_agents)
    if not 0 <= seat < count:
        raise SpecError(
            f"seat {seat} is not a seat of {env_text}: it has {count} seats (0..{count - 1})"
        )
    controllers: list[AgentSpec | None] = [None if i == seat else agent for i in range(count)]
    return _session(spec, env, controllers, seed, "play", policy)


def new_watch(
    env_text: str,
    agents: Sequence[str | None],
    seed: int,
    delay: float,
    policy: ServerPolicy | None = None,
) -> Session:
    """Agents against each other: ``agents[i]`` plays seat ``i`` (``None``: ``DEFAULT_WATCH``);
    the specs are untrusted, read by ``policy`` (default: ``ServerPolicy()``).

    Raises:
        SpecError: a bad env or agent spec, one the policy refuses, or more agents than the
            env has seats.
    """
    policy = policy or ServerPolicy()
    spec = policy.env_spec(env_text)
    env = make_env(spec)
    count = len(env.possible_agents)
    extra = [i for i, text in enumerate(agents) if text is not None and i >= count]
    if extra:
        raise SpecError(
            f"p{extra[0]}={agents[extra[0]]!r} names seat {extra[0]}, but {env_text} has "
            f"{count} seats (p0..p{count - 1})"
        )
    texts = [*agents[:count], *[None] * max(0, count - len(agents))]
    controllers = [policy.agent_spec(text or DEFAULT_WATCH) for text in texts]
    return _session(spec, env, controllers, seed, "watch", policy, delay)


class Sessions:
    """The open games by id.

    Args:
        max_sessions: most games held at once (``TooManyGamesError`` past it).
        idle_seconds: a game whose page has not asked about it for this long is freed.
    """

    def __init__(self, max_sessions: int = 64, idle_seconds: float = 180.0) -> None:
        self.max_sessions = max_sessions
        self.idle_seconds = idle_seconds
        self._games: dict[str, Session] = {}
        self._lock = threading.Lock()

    def __len__(self) -> int:
        with self._lock:
            return len(self._games)

    def ids(self) -> list[str]:
        with self._lock:
            return list(self._games)

    def add(self, session: Session, max_nodes: int | None = None) -> Session:
        """Hold ``session``; closing it if the server is full: ``max_sessions`` games, or the
        games' searches would hold more than ``max_nodes`` nodes together (``Session.nodes``;
        ``None``: no bound).

        Raises:
            TooManyGamesError: the server is full (HTTP 503), saying which bound.
        """
        self.sweep()
        with self._lock:
            held = sum(game.nodes for game in self._games.values())
            full = len(self._games) >= self.max_sessions
            if not full and (max_nodes is None or held + session.nodes <= max_nodes):
                self._games[session.id] = session
                return session
        session.close()
        if full:
            raise TooManyGamesError(
                f"the server already holds {self.max_sessions} games; close some of their pages"
            )
        raise TooManyGamesError(
            f"this game's searches need {session.nodes} nodes and the open games' hold {held} of "
            f"the server's {max_nodes} (serve --max-total-nodes); close some pages, or ask for "
            "a smaller max_nodes"
        )

    def get(self, id: str) -> Session | None:
        """The game ``id`` (its page is alive: touched), or ``None``."""
        with self._lock:
            session = self._games.get(id)
        if session is not None:
            session.touch()
        return session

    def close(self, id: str) -> bool:
        """Free the game ``id``; whether it was open."""
        with self._lock:
            session = self._games.pop(id, None)
        if session is None:
            return False
        session.close()
        logger.info("game %s closed (%d open)", id, len(self))
        return True

    def sweep(self, now: float | None = None) -> list[str]:
        """Free the games whose pages have been silent for ``idle_seconds``; their ids."""
        now = time.monotonic() if now is None else now
        with self._lock:
            idle = [i for i, s in self._games.items() if now - s.last_seen > self.idle_seconds]
        return [i for i in idle if self.close(i)]

    def close_all(self) -> None:
        for id in self.ids():
            self.close(id)
