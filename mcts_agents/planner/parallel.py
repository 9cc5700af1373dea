"""Root parallelism: N independent searches of one position in N processes, merged at the root.

``RootParallelSearch`` runs one search in the calling process and ``workers - 1`` in persistent
worker processes. Each process owns a searcher for the game (``backends.local_searcher``: a
compiled kernel or the Python ``MCTS``) with its own node table and seed, kept from move to move
(tree reuse per worker). The root statistics are merged (``merge.merge_results``): per action,
visits and value sums add up; a proof from any worker is exact and is kept.

Why processes: the Python search holds the interpreter lock, so threads would take turns. Workers
are started with the ``forkserver`` method where the platform has it, else ``spawn`` (never a
bare ``fork`` of a process that may hold threads or locks), as daemons, lazily on the first
search. The game is pickled to the workers once per game; each search sends only the state.

The workers are not a ``processes`` pool: each keeps its own tree from move to move and answers
requests on its pipe (a persistent protocol, not a ``map``), so this module runs them itself,
with ``processes``' pieces: the bound (``check_workers``), the parent watch
(``exit_with_parent``, a worker's first act) and the picklability check (``check_picklable``,
``UnpicklableError``).

As with any ``spawn``/``forkserver`` process, a script that starts workers must guard its entry
point with ``if __name__ == "__main__":`` (the workers import the main module).
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import pickle
import traceback
import weakref
from collections.abc import Hashable
from dataclasses import replace
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from time import perf_counter
from types import TracebackType
from typing import Any

from mcts_agents.adapters.generic import EnvGame
from mcts_agents.errors import UnpicklableError, WorkerError
from mcts_agents.planner.choice import local_searcher
from mcts_agents.planner.merge import merge_results
from mcts_agents.processes import check_picklable, check_workers, exit_with_parent
from mcts_agents.search.config import Budget, SearchConfig
from mcts_agents.search.game import Game, State
from mcts_agents.search.result import SearchResult
from mcts_agents.search.searcher import (
    ROBUST_MAX_EXTENSION,
    Progress,
    Searcher,
    StopCheck,
    game_identity,
    split_iterations,
)
from mcts_agents.seeding import derive_seed

__all__ = [
    "RootParallelSearch",
    "check_config_picklable",
    "validate_workers",
    "worker_seed",
]

#: Seconds a worker may run past its budget before it is deemed hung (a slow simulation, a
#: loaded machine); a dead worker is noticed at once, whatever this says.
GRACE_SECONDS = 30.0
POLL_SECONDS = 0.05


def validate_workers(workers: Any) -> int:
    """``workers`` as an int in ``[1, MAX_WORKERS]`` (``processes``' bound, one for every
    pool of the library), else ``InvalidOptionError`` naming it."""
    return check_workers(workers)


def check_config_picklable(config: SearchConfig, workers: int) -> None:
    """``UnpicklableError`` (an ``InvalidOptionError``) if ``config`` cannot be sent to
    worker processes."""
    check_picklable(
        config,
        f"the search configuration (workers={workers})",
        "use a module-level evaluator function",
    )


def worker_seed(seed: int | None, index: int) -> int | None:
    """The seed of search ``index``: ``seed`` itself for the calling process (index 0), else
    ``seeding.derive_seed(seed, index)`` (stable across runs and platforms). ``None`` stays
    ``None``: each process then draws its own seed from the operating system."""
    if seed is None or index == 0:
        return seed
    return derive_seed(seed, index)


# ---------------------------------------------------------------------------- the worker side
def _worker_main(
    conn: Connection, budget: Budget, config: SearchConfig, seed: int | None, parent: int
) -> None:
    """A worker's loop: one reply per request, until ``close`` or the parent goes away (at once,
    even in the middle of a search: ``processes.exit_with_parent``)."""
    exit_with_parent(parent)
    searcher: Searcher | None = None
    identity: Hashable = None
    game: Any = None
    try:
        conn.send(("ok", None))
        while True:
            try:
                kind, payload = conn.recv()
            except (EOFError, OSError):
                return  # the parent is gone
            if kind == "close":
                return
            try:
                if kind == "game":
                    game = pickle.loads(payload)
                    if searcher is None or game_identity(game) != identity:
                        searcher = local_searcher(game, budget, config, seed)
                        identity = game_identity(game)
                    reply: Any = None
                elif kind == "search":
                    if searcher is None:
                        raise ValueError("a search request before any game")
                    reply = searcher.search(game, payload)
                elif kind == "reset":
                    if payload is not None:
                        seed = payload
                    if searcher is not None:
                        searcher.reset(payload)
                    reply = None
                else:
                    raise ValueError(f"unknown request {kind!r}")
            except Exception as error:  # reported to the parent, which raises WorkerError
                detail = "".join(traceback.format_exception(error))
                conn.send(("error", detail))
            else:
                conn.send(("ok", reply))
    except KeyboardInterrupt:
        return
    finally:
        conn.close()


def _shutdown(processes: list[BaseProcess], connections: list[Connection]) -> None:
    """Ask the workers to stop, then terminate (and kill) any that do not; idempotent."""
    for conn in connections:
        with contextlib.suppress(OSError, ValueError):  # already dead or closed
            conn.send(("close", None))
    for proc in processes:
        proc.join(timeout=1.0)
        if proc.is_alive():
            proc.terminate()
            proc.join(timeout=1.0)
        if proc.is_alive():
            proc.kill()
            proc.join(timeout=1.0)
    for conn in connections:
        conn.close()


_preloaded = False


def _default_context() -> multiprocessing.context.BaseContext:
    """``forkserver`` (preloading this module: a worker then starts in tens of milliseconds
    instead of a fresh interpreter's imports) where the platform has it, else ``spawn``."""
    global _preloaded
    if "forkserver" not in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("spawn")
    context = multiprocessing.get_context("forkserver")
    if not _preloaded:  # the default preload is ["__main__"]; keep it
        context.set_forkserver_preload(["__main__", __name__])
        _preloaded = True
    return context


# ---------------------------------------------------------------------------- the parent side
class RootParallelSearch:
    """``workers`` independent searches of the same position, merged at the root.

    Search ``i`` (0 in the calling process, 1.. in worker processes) uses the game's searcher
    (``backends.local_searcher``) with seed ``worker_seed(seed, i)`` and keeps its own node
    table from move to move. Implements ``Searcher``; ``table_size`` and ``table_keys`` show
    the table of the search in this process.

    Budgets: ``time_limit`` applies to every search (all run for that long); ``iterations`` is
    the total across searches, split evenly (``split_iterations``), so it still means that many
    simulations per move (with fewer than ``workers`` iterations, only that many searches run);
    ``max_nodes`` bounds each search's table.

    Same seed and an iteration budget give the same result whatever the processes' timing
    (results are merged in worker order). Workers start on the first search (``start()`` starts
    them ahead of time) and stop on ``close()``, on leaving a ``with`` block, when the object is
    garbage-collected, and when the interpreter exits. A worker that dies or hangs makes the
    search raise ``WorkerError``; the workers are then shut down and the next search starts
    fresh ones (with fresh tables). Pickling keeps only the configuration. The first search's
    ``elapsed`` includes starting the workers (tens of milliseconds with ``forkserver`` once its
    server runs, about a second for a fresh interpreter).

    The merged result's ``workers`` holds each search's iterations, nodes and best action (the
    calling process first).

    Args:
        budget: the budget (see above for how it is shared).
        config: the search configuration; it must pickle (no lambda evaluator).
        seed: the base seed, or ``None`` for unseeded searches.
        workers: number of searches, ``>= 1`` (1 runs only the local search).
        context: a ``multiprocessing`` context (default: ``forkserver`` where available, else
            ``spawn``).

    Raises:
        InvalidOptionError: ``workers`` is not a positive int; ``UnpicklableError`` (one):
            ``config`` does not pickle.
    """

    def __init__(
        self,
        budget: Budget,
        config: SearchConfig,
        seed: int | None = None,
        workers: int = 2,
        context: multiprocessing.context.BaseContext | None = None,
    ) -> None:
        self.workers = validate_workers(workers)
        self.budget = budget
        self.config = config
        self.seed = seed
        self._context = context
        check_config_picklable(config, workers)
        if budget.iterations is not None:
            shares = split_iterations(budget.iterations, self.workers)
            self._budgets = [replace(budget, iterations=n) for n in shares if n > 0]
        else:
            self._budgets = [budget] * self.workers
        self.local: Searcher | None = None  # the search in this process, for the last game
        self._local_identity: Hashable = None
        self._processes: list[BaseProcess] = []
        self._connections: list[Connection] = []
        self._finalizer: weakref.finalize | None = None
        self._game: Any = None  # the game the workers hold (a strong ref: ids are not reused)
        self._game_bytes: bytes | None = None
        self.should_stop: StopCheck | None = None  # see Searcher: stops this process's search
        self.on_progress: Progress | None = None  # see Searcher: this process's search's progress

    # ------------------------------------------------------------------ lifecycle
    @property
    def processes(self) -> tuple[BaseProcess, ...]:
        """The worker processes now running (empty before the first search and after close)."""
        return tuple(self._processes)

    @property
    def started(self) -> bool:
        return bool(self._processes)

    def start(self) -> None:
        """Start the worker processes now (the first search does it otherwise)."""
        if self._processes or len(self._budgets) == 1:
            return
        if multiprocessing.current_process().daemon:
            raise WorkerError(
                f"workers={self.workers} cannot start worker processes inside a daemonic process "
                "(a multiprocessing.Pool worker); use a processes.open_pool('spawn') pool "
                "(as the arena does) or workers=1"
            )
        context: Any = self._context or _default_context()
        deadline = perf_counter() + GRACE_SECONDS + 30.0  # interpreters and imports, under load
        try:
            for i, budget in enumerate(self._budgets[1:], start=1):
                parent_end, child_end = context.Pipe()
                proc = context.Process(
                    target=_worker_main,
                    args=(child_end, budget, self.config, worker_seed(self.seed, i), os.getpid()),
                    name=f"mcts-worker-{i}",
                    daemon=True,
                )
                self._connections.append(parent_end)
                proc.start()
                child_end.close()
                self._processes.append(proc)
            self._finalizer = weakref.finalize(self, _shutdown, self._processes, self._connections)
            for i in range(1, len(self._budgets)):
                self._receive(i, deadline, "start")
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        """Stop the workers (their tables are lost); a later search starts new ones."""
        if self._finalizer is not None:
            self._finalizer()
            self._finalizer = None
        else:
            _shutdown(self._processes, self._connections)
        self._processes, self._connections = [], []
        self._game, self._game_bytes = None, None

    def __enter__(self) -> RootParallelSearch:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def __getstate__(self) -> dict[str, Any]:
        return {
            "budget": self.budget,
            "config": self.config,
            "seed": self.seed,
            "workers": self.workers,
        }

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(**state)  # type: ignore[misc]

    def __repr__(self) -> str:
        running = f"{len(self._processes)} running" if self._processes else "not started"
        return f"RootParallelSearch(workers={self.workers}, seed={self.seed}, {running})"

    # ------------------------------------------------------------------ searching
    def prepare(self, game: Game) -> None:
        """Build this process's search for ``game`` (its kernel loaded) and start the workers."""
        self.local_for(game).prepare(game)
        self.start()

    def local_for(self, game: Game) -> Searcher:
        """The search in this process for ``game``, built if the game is new to it."""
        identity = game_identity(game)
        if self.local is None or identity != self._local_identity:
            self.local = local_searcher(game, self._budgets[0], self.config, self.seed)
            self._local_identity = identity
        return self.local

    def table_size(self) -> int:
        """Entries in the node table of the search in this process."""
        return 0 if self.local is None else self.local.table_size()

    def table_keys(self) -> list[Hashable]:
        """The keys in the node table of the search in this process."""
        return [] if self.local is None else self.local.table_keys()

    def reset(self, seed: int | None = None) -> None:
        """Forget every search's table (between games); reseed every search if ``seed`` is given."""
        if seed is not None:
            self.seed = seed
        if self.local is not None:
            self.local.reset(worker_seed(seed, 0))
        if not self._processes:
            return
        self._check_alive()
        for i in range(1, len(self._budgets)):
            self._send(i, ("reset", worker_seed(seed, i) if seed is not None else None))
        deadline = perf_counter() + GRACE_SECONDS
        for i in range(1, len(self._budgets)):
            self._receive(i, deadline, "reset")

    def search(self, game: Game, state: State) -> SearchResult:
        """Search ``state`` in every process and merge the root statistics.

        Raises:
            UnpicklableError: the game or its states cannot be sent to worker processes.
            WorkerError: a worker died, hung past its budget, or its search raised.
        """
        start = perf_counter()
        local_search = self.local_for(game)
        local_search.should_stop, local_search.on_progress = self.should_stop, self.on_progress
        if len(self._budgets) == 1:
            return local_search.search(game, state)
        payload = self._game_payload(game, state)  # None: the workers hold this game
        self.start()
        self._check_alive()
        workers = range(1, len(self._budgets))
        for i in workers:
            if payload is not None:
                self._send(i, ("game", payload))
            self._send(i, ("search", state))
        self._game = game
        begin = perf_counter()
        try:
            local = local_search.search(game, state)
        except BaseException:
            self.close()  # the workers are mid-search: stop them rather than wait
            raise
        deadline = self._deadline(begin, perf_counter() - begin)
        results = [local]
        for i in workers:
            if payload is not None:
                self._receive(i, deadline, "game")
            results.append(self._receive(i, deadline, "search"))
        return merge_results(results, self.config.final_move, perf_counter() - start)

    # ------------------------------------------------------------------ internals
    def _game_payload(self, game: Game, state: State) -> bytes | None:
        """The pickled game if the workers do not hold it yet, else ``None``.

        Checked here, in the caller's process, so that errors name the game: the generic env
        cloner's ``EnvGame`` is refused (its states hold envs, and pickling a PettingZoo classic
        env mid-game silently gives a fresh board), as is any game or state that does not pickle
        or whose state comes back with another key.
        """
        if game is self._game:
            return None
        spec = getattr(game, "spec", None)
        if spec is not None and spec == getattr(self._game, "spec", None):
            return None
        name = type(game).__name__
        hint = (
            "workers > 1 needs a picklable rules core (this library's envs, OpenSpiel games "
            "through Shimmy); use workers=1"
        )
        if isinstance(game, EnvGame):
            raise UnpicklableError(
                f"{name} (the generic env cloner's game) cannot be sent to worker processes: "
                f"its states are live env clones; {hint}"
            )
        try:
            data = pickle.dumps(game)
            key = game.key(pickle.loads(pickle.dumps(state)))
        except Exception as error:
            raise UnpicklableError(
                f"game {name} or its state cannot be pickled ({error}); {hint}"
            ) from None
        if key != game.key(state):
            raise UnpicklableError(
                f"a state of game {name} comes back from pickling with another key; {hint}"
            )
        if data == self._game_bytes and self._game is not None:
            return None
        self._game_bytes = data
        return data

    def _deadline(self, start: float, local_elapsed: float) -> float:
        """When to give up waiting for the workers (a dead worker is noticed earlier)."""
        limit = self.budget.time_limit
        if limit is not None:
            if self.config.final_move == "robust_max":
                limit *= 1.0 + ROBUST_MAX_EXTENSION
            return start + limit + GRACE_SECONDS + limit
        # iterations or nodes: the workers do about the local search's work, maybe one at a time
        return start + GRACE_SECONDS + 2.0 * len(self._budgets) * local_elapsed

    def _check_alive(self) -> None:
        for i, proc in enumerate(self._processes, start=1):
            if not proc.is_alive():
                self.close()
                raise WorkerError(
                    f"search worker {i} (pid {proc.pid}) died with exit code {proc.exitcode}; "
                    "the workers were shut down and the next search starts fresh ones"
                )

    def _send(self, i: int, message: tuple[str, Any]) -> None:
        try:
            self._connections[i - 1].send(message)
        except (OSError, ValueError) as error:
            proc = self._processes[i - 1]
            self.close()
            raise WorkerError(
                f"search worker {i} (pid {proc.pid}) cannot be reached ({error}); the workers "
                "were shut down and the next search starts fresh ones"
            ) from None

    def _receive(self, i: int, deadline: float, what: str) -> Any:
        """Worker ``i``'s reply to a ``what`` request, or ``WorkerError`` (workers shut down)."""
        conn, proc = self._connections[i - 1], self._processes[i - 1]
        problem = None
        while not conn.poll(POLL_SECONDS):
            if not proc.is_alive():
                if conn.poll(0):  # it answered, then exited
                    break
                problem = f"died with exit code {proc.exitcode}"
                break
            if perf_counter() > deadline:
                problem = f"did not answer its {what} request in time (hung?)"
                break
        if problem is None:
            try:
                status, payload = conn.recv()
            except (EOFError, OSError):
                proc.join(timeout=1.0)
                problem = f"died with exit code {proc.exitcode}"
            else:
                if status == "ok":
                    return payload
                problem = f"failed in its {what} request:\n{payload}"
        self.close()
        raise WorkerError(
            f"search worker {i} (pid {proc.pid}) {problem}; the workers were shut down and the "
            "next search starts fresh ones"
        )
