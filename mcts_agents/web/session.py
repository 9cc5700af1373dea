"""One game in the browser: a live env, who sits where, the moves, and the agents' searches.

A ``Session`` owns its env. People (the seats without an agent) move through ``play``, under the
session's lock; agents move in a worker thread of the session's own, started whenever an agent
is to move, which plays them with ``play_game`` (the loop the arena and the CLI use) until a
person is to move, the game ends, or the page pauses or closes. An agent that searches
(``SearchingAgent``: ``MCTSAgent`` and its kinds) is searched with ``live.live_search``, whose
progress reports are published as they come, so the page shows the search while it runs. Only
one side can move at a time (a person's click is refused while an agent is to move), and every
move ends, under the lock, with a new immutable ``Position`` (the rules core's state, or the
env's picture), from which pages are drawn without touching the env. ``close`` stops the
worker's search within a few simulations, whatever its budget, and releases the agents.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from mcts_agents.adapters.aec import legal_actions
from mcts_agents.agents.agent import SearchingAgent
from mcts_agents.agents.play import Move as PlayedMove
from mcts_agents.agents.play import action_index, play_game
from mcts_agents.search.result import SearchResult
from mcts_agents.web.live import (
    SearchView,
    live_search,
    played_move,
    prepare_watched,
    pv_labels,
    search_view,
)
from mcts_agents.web.pictures import core_position, picture

__all__ = ["Move", "Position", "Seat", "Session", "Snapshot"]

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Seat:
    """A seat: its env agent id, who plays it (``"you"``, a spec) and whether a person does."""

    index: int
    agent: str
    name: str
    person: bool


@dataclass(frozen=True)
class Move:
    """A move played: ``ply`` (moves before it), the seat, the action and its name."""

    ply: int
    seat: int
    action: int
    label: str
    seconds: float


@dataclass(frozen=True)
class Position:
    """The env after a change, for drawing without touching the env.

    Attributes:
        ply: moves played.
        mover: the seat to move, ``None`` once the game is over.
        legal: the mover's legal moves, each with its name (``labels``).
        returns: each seat's return once the game is over.
        game, state: the rules core and its immutable state (``core_position``); else
            ``None``.
        pixels: other envs' ``rgb_array`` picture (``None`` if it draws none).
        last: the last move's action.
    """

    ply: int
    mover: int | None
    legal: tuple[int, ...]
    labels: dict[int, str]
    returns: tuple[float, ...] | None
    game: Any
    state: Any
    pixels: Any
    last: int | None

    @property
    def over(self) -> bool:
        return self.returns is not None

    def label(self, action: int) -> str:
        """A move's name in this position (the rules core's, else the action id)."""
        if action in self.labels:
            return self.labels[action]
        if self.game is not None and self.state is not None:
            try:
                return str(self.game.action_to_string(self.state, action))
            except Exception:  # a name is a courtesy: never fail a page for it
                return str(action)
        return str(action)


@dataclass(frozen=True)
class Snapshot:
    """A session as one page sees it at one instant (``Session.snapshot``)."""

    version: int
    position: Position
    moves: tuple[Move, ...]
    values: tuple[tuple[int, int, float], ...]
    search: SearchView | None
    thinking: bool
    error: str | None
    paused: bool
    delay: float
    clickable: tuple[int, ...]
    view: int | None


class Session:
    """A game between people (clicks) and agents, one page's worth.

    Args:
        id: the session's key (in its page's URLs).
        env: a fresh env (not reset).
        seats: who plays each seat, in seat order.
        players: seat index -> agent, for the seats that are not people.
        seed: the env's seed (``reset(seed=seed)``).
        mode: ``"play"`` or ``"watch"``.
        delay: watch mode's pause after each move, in seconds.
        env_name: the env spec, as shown.
        move_seconds: the longest an agent's search may run, whatever its budget says (the
            server's ``--max-time``).
        nodes: the nodes its agents' searches may hold (``policy.search_nodes``), counted
            against the server's ``--max-total-nodes`` while it is open.
    """

    def __init__(
        self,
        id: str,
        env: Any,
        seats: Sequence[Seat],
        players: dict[int, Any],
        seed: int,
        mode: str = "play",
        delay: float = 0.0,
        env_name: str = "",
        *,
        move_seconds: float = math.inf,
        nodes: int = 0,
    ) -> None:
        self.id = id
        self.move_seconds = move_seconds
        self.nodes = nodes
        self.env = env
        self.seats = tuple(seats)
        self.players = players
        self.seed = seed
        self.mode = mode
        self.env_name = env_name
        self.delay = delay
        self.paused = False
        self.moves: list[Move] = []
        self.values: list[tuple[int, int, float]] = []  # (seat, ply, root value) per search
        self.search: SearchView | None = None
        self.thinking = False
        self.error: str | None = None
        self.version = 0
        self.last_seen = time.monotonic()
        self._totals: dict[Any, float] = {}
        self._lock = threading.RLock()
        self._closed = threading.Event()
        self._wake = threading.Event()
        self._worker: threading.Thread | None = None
        self._agents_closed = False
        self._seat_of = {seat.agent: seat.index for seat in self.seats}
        env.reset(seed=seed)
        self._settle()
        self.position = self._position(None)
        self._kick()

    # ------------------------------------------------------------------ reading
    @property
    def people(self) -> list[int]:
        return [seat.index for seat in self.seats if seat.person]

    @property
    def running(self) -> bool:
        """Whether the agents' worker is at work (an agent is to move, thinking or moving)."""
        with self._lock:
            return self._worker is not None

    @property
    def closed(self) -> bool:
        return self._closed.is_set()

    def view(self) -> int | None:
        """The seat whose view is drawn: the one person's, else ``None`` (everything); ``None``
        once the game is over."""
        people = self.people
        return people[0] if len(people) == 1 and not self.position.over else None

    def clickable(self) -> list[int]:
        """The moves a click may play now: the legal moves when a person is to move."""
        position = self.position
        if position.mover is None or not self.seats[position.mover].person or self.error:
            return []
        return list(position.legal)

    def snapshot(self) -> Snapshot:
        """Everything a page shows, read at one instant (under the lock)."""
        with self._lock:
            return Snapshot(
                version=self.version,
                position=self.position,
                moves=tuple(self.moves),
                values=tuple(self.values),
                search=self.search,
                thinking=self.thinking,
                error=self.error,
                paused=self.paused,
                delay=self.delay,
                clickable=tuple(self.clickable()),
                view=self.view(),
            )

    def touch(self) -> None:
        """The page is still open (every request of it says so)."""
        self.last_seen = time.monotonic()

    # ------------------------------------------------------------------ moving
    def play(self, action: Any) -> str | None:
        """A person's move; ``None`` when played, else why not (nothing changes then)."""
        try:
            action = action_index(action, "the page")
        except (TypeError, ValueError) as error:
            return str(error)
        with self._lock:
            if self.closed:
                return "this game is closed"
            mover = self.position.mover
            if action not in self.clickable() or mover is None:
                if mover is None:
                    return f"the game is over; {action} cannot be played"
                if not self.seats[mover].person:
                    return f"it is {self.seats[mover].agent}'s turn, not a person's"
                if self.error:
                    return f"the game stopped: {self.error}"
                return f"{action} is not a legal move; legal: {list(self.position.legal)}"
            self._step(action, mover, 0.0)
        self._kick()
        return None

    def set_watch(self, delay: float | None = None, paused: bool | None = None) -> None:
        """Watch mode's speed (seconds between moves) and pause."""
        with self._lock:
            if delay is not None:
                self.delay = max(0.0, min(10.0, float(delay)))
            if paused is not None:
                self.paused = bool(paused)
            self.version += 1
        self._wake.set()
        self._kick()

    def close(self) -> None:
        """Free the game: the worker's search stops within a few simulations (it checks the
        session's closed flag between them), the worker ends, the agents' trees are dropped and
        the agents closed."""
        self._closed.set()
        self._wake.set()
        with self._lock:
            if self._worker is None:  # else the worker closes them as it ends
                self._close_agents()

    def _close_agents(self) -> None:
        if self._agents_closed:
            return
        self._agents_closed = True
        for player in self.players.values():
            if isinstance(player, SearchingAgent):
                player.reset()  # its node table goes now, not when the session is collected
            close = getattr(player, "close", None)
            if callable(close):
                try:
                    close()
                except Exception:  # closing is best effort; the session is gone either way
                    logger.exception("closing %r failed", player)

    def _step(self, action: int, seat: int, seconds: float) -> None:
        """Play ``action`` for ``seat`` (under the lock), settle, publish the new position."""
        label = self.position.label(action)
        self.env.step(action)
        self._add()
        self.moves.append(Move(len(self.moves), seat, action, label, seconds))
        self._settle()
        self.position = self._position(action)
        self.version += 1

    def _add(self) -> None:
        for agent, reward in self.env.rewards.items():
            if reward:
                self._totals[agent] = self._totals.get(agent, 0.0) + float(reward)

    def _settle(self) -> None:
        """Step finished agents with ``None`` until a live agent is to move or none is left."""
        env = self.env
        while env.agents and (
            env.terminations[env.agent_selection] or env.truncations[env.agent_selection]
        ):
            env.step(None)
            self._add()

    def _position(self, last: int | None) -> Position:
        env = self.env
        over = not env.agents
        legal: tuple[int, ...] = () if over else tuple(int(a) for a in legal_actions(env))
        game = state = pixels = None
        core = core_position(env)
        if core is not None:
            game, state = core
            labels = {a: str(game.action_to_string(state, a)) for a in legal}
        else:
            labels = {a: str(a) for a in legal}
            pixels = picture(env)
        returns = None
        if over:
            returns = tuple(self._totals.get(seat.agent, 0.0) for seat in self.seats)
        mover = None if over else self._seat_of[env.agent_selection]
        return Position(len(self.moves), mover, legal, labels, returns, game, state, pixels, last)

    # ------------------------------------------------------------------ the agents' worker
    def _kick(self) -> None:
        """Start the worker if an agent is to move and none is running."""
        with self._lock:
            if self.closed or self.error or self._worker is not None:
                return
            if self._agent_to_move() is None:
                return
            self._worker = threading.Thread(
                target=self._run, name=f"mcts-agents-web-{self.id}", daemon=True
            )
            self._worker.start()

    def _agent_to_move(self) -> int | None:
        mover = self.position.mover
        if mover is None or self.seats[mover].person or self.paused:
            return None
        return mover

    def _stop_playing(self, env: Any) -> bool:
        """``play_game``'s ``until``: true (and the worker's slot freed in the same breath, so
        that a ``_kick`` right after starts a new one) once no agent is to move, or the game
        stopped or closed."""
        with self._lock:
            if not (self.closed or self.error) and self._agent_to_move() is not None:
                return False
            self._end_worker()
            return True

    def _end_worker(self) -> None:
        """Under the lock: this worker thread is done."""
        if self._worker is threading.current_thread():
            self._worker = None
            self.thinking = False
            if self.closed:
                self._close_agents()

    def _run(self) -> None:
        """The worker: the agents' moves through ``play_game``."""
        movers = {self.seats[s].agent: _Mover(self, s, p) for s, p in self.players.items()}
        try:
            play_game(
                self.env,
                movers,
                returns=self._totals,
                until=self._stop_playing,
                on_move=self._moved,
                check_legal=True,
            )
        except _Closed:
            pass  # the page closed mid-search
        except Exception as error:  # an agent that fails: shown on the page, logged here
            logger.exception("game %s: the agent failed", self.id)
            with self._lock:
                self.error = f"{type(error).__name__}: {error}"
                self.version += 1
        finally:
            with self._lock:
                self._end_worker()

    def _moved(self, move: PlayedMove) -> None:
        """``play_game``'s ``on_move``: publish the move and the position after it (under the
        lock); in watch mode, wait the pause between moves."""
        with self._lock:
            seat = self._seat_of[move.agent]
            label = self.position.label(move.action)  # still the position it was played in
            self.thinking = False
            self.moves.append(Move(len(self.moves), seat, move.action, label, move.seconds))
            self._settle()
            self.position = self._position(move.action)
            self.version += 1
        if self.mode == "watch" and self.delay > 0 and not self.position.over:
            self._wake.clear()
            self._wake.wait(self.delay)

    # ------------------------------------------------------------------ results
    def outcome(self, seat: int) -> str | None:
        """``"win"``, ``"loss"`` or ``"draw"`` for ``seat`` once the game is over: its return
        against the best of the others (higher: a win; lower: a loss; equal: a draw)."""
        returns = self.position.returns
        if returns is None:
            return None
        mine = returns[seat]
        best_other = max(r for i, r in enumerate(returns) if i != seat)
        return "win" if mine > best_other else "loss" if mine < best_other else "draw"


class _Closed(Exception):
    """The page closed while its agent searched: the worker ends without a move."""


class _Mover:
    """A seat's agent as ``play_game`` sees it: a searching agent's search published live."""

    def __init__(self, session: Session, seat: int, player: Any) -> None:
        self.session, self.seat, self.player = session, seat, player

    def __repr__(self) -> str:
        return self.session.seats[self.seat].name

    def prepare(self, env: Any) -> None:
        if getattr(self.player, "prepare", None) is not None:
            # kernels load, workers start: not part of the first move (the page says so
            # while a kernel compiles)
            session, seat = self.session, self.seat
            who = (seat, session.seats[seat].agent, session.seats[seat].name)
            prepare_watched(self.player, env, who, session.position.ply, self._show)

    def _show(self, view: SearchView | None) -> None:
        with self.session._lock:
            self.session.search = view
            self.session.version += 1

    def act(self, env: Any) -> Any:
        session, seat, player = self.session, self.seat, self.player
        with session._lock:
            session.thinking = True
            session.version += 1
            position = session.position
        if not isinstance(player, SearchingAgent):
            return player.act(env)
        ply, legal = position.ply, position.legal
        who = (seat, session.seats[seat].agent, session.seats[seat].name)

        def report(result: SearchResult, final: bool) -> None:
            labels = pv_labels(position.game, position.state, result.principal_variation)
            view = search_view(result, legal, final, who, ply, labels)
            with session._lock:
                session.search = view
                if final:
                    session.values.append((seat, ply, view.root_value))
                session.version += 1

        # the search checks this between simulations: a close stops it within milliseconds
        result = live_search(player, env, report, session._closed.is_set, session.move_seconds)
        if result is None:
            raise _Closed
        return played_move(player, result)
