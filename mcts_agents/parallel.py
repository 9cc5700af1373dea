"""Root parallelism: N independent searches of one position in N processes, merged at the root.

``RootParallelSearch`` runs one search in the calling process and ``workers - 1`` in persistent
worker processes. Each worker owns an ``MCTS`` with its own node table and seed, kept from move
to move (tree reuse per worker). The root statistics are merged: per action, visits and value
sums add up; a proof from any worker is exact and is kept.

Why processes: the search is pure Python, so threads would share one interpreter lock. Workers
are started with the ``forkserver`` method where the platform has it, else ``spawn`` (never a
bare ``fork`` of a process that may hold threads or locks), as daemons, lazily on the first
search. The game is pickled to the workers once per game; each search sends only the state.

As with any ``spawn``/``forkserver`` process, a script that starts workers must guard its entry
point with ``if __name__ == "__main__":`` (the workers import the main module).
"""

from __future__ import annotations

import contextlib
import hashlib
import multiprocessing
import pickle
import traceback
import weakref
from collections.abc import Sequence
from dataclasses import replace
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from time import perf_counter
from types import TracebackType
from typing import Any

from mcts_agents.adapters import EnvGame
from mcts_agents.config import Budget, SearchConfig
from mcts_agents.errors import InvalidOptionError
from mcts_agents.game import Game, State
from mcts_agents.result import ChildStats, Proven, SearchResult
from mcts_agents.search import MCTS, ROBUST_MAX_EXTENSION, pick_child, proven_label

__all__ = [
    "RootParallelSearch",
    "UnpicklableGameError",
    "WorkerError",
    "choose_action",
    "merge_results",
    "split_iterations",
    "validate_workers",
    "worker_seed",
]

#: Seconds a worker may run past its budget before it is deemed hung (a slow simulation, a
#: loaded machine); a dead worker is noticed at once, whatever this says.
GRACE_SECONDS = 30.0
POLL_SECONDS = 0.05


class UnpicklableGameError(TypeError):
    """A game (or state) that cannot be sent faithfully to worker processes."""


class WorkerError(RuntimeError):
    """A worker process died, hung past its budget, or failed in its search."""


def validate_workers(workers: Any) -> int:
    """``workers`` if it is a positive int, else ``InvalidOptionError`` naming it."""
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise InvalidOptionError(f"workers must be a positive int, got {workers!r}")
    return workers


def worker_seed(seed: int | None, index: int) -> int | None:
    """The seed of worker ``index``: ``seed`` itself for the calling process (index 0), else a
    64-bit hash of ``(seed, index)`` (stable across runs and platforms). ``None`` stays ``None``:
    each process then draws its own seed from the operating system."""
    if seed is None or index == 0:
        return seed
    digest = hashlib.blake2b(f"{seed}/{index}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big")


def split_iterations(total: int, workers: int) -> list[int]:
    """Share ``total`` simulations among ``workers`` as evenly as possible (first ones get more)."""
    share, extra = divmod(total, workers)
    return [share + (1 if i < extra else 0) for i in range(workers)]


# ---------------------------------------------------------------------------- merging
def choose_action(children: Sequence[ChildStats], rule: str = "visits") -> int:
    """The action to play from (merged) root statistics: ``MCTS.choose``'s rule
    (``search.pick_child``) over ``ChildStats``, ties to the smaller action."""
    if not children:
        raise ValueError("no root statistics to choose from")
    ordered = sorted(children, key=lambda c: c.action)
    i = pick_child(
        [c.visits for c in ordered], [c.value for c in ordered], [c.proven for c in ordered], rule
    )
    return ordered[i].action


def merge_results(
    results: Sequence[SearchResult], final_move: str = "visits", elapsed: float | None = None
) -> SearchResult:
    """One ``SearchResult`` from independent searches of the same position.

    Per action: visits and value sums add up (``value`` is the merged mean); a proof from any
    worker is exact and wins over estimates. The root is proven if any search proved it, if a
    child is a proven win, or if every action is proven by some search. ``iterations``,
    ``nodes``, ``reused_nodes`` and ``pruned_nodes`` are sums; the principal variation is the
    first search's if it starts with the merged best action, else just that action. Results are
    merged in the order given, so the merge is deterministic.
    """
    if not results:
        raise ValueError("no search results to merge")
    first = results[0]
    player = first.to_play
    visits: dict[int, int] = {}
    value_sum: dict[int, float] = {}
    prior: dict[int, float | None] = {}
    proof: dict[int, tuple[Proven, float]] = {}
    for result in results:
        for c in result.children:
            visits[c.action] = visits.get(c.action, 0) + c.visits
            if c.proven is None:
                value_sum[c.action] = value_sum.get(c.action, 0.0) + c.value * c.visits
            else:
                proof.setdefault(c.action, (c.proven, c.value))
            if prior.get(c.action) is None:
                prior[c.action] = c.prior
    children = []
    for action in sorted(visits):
        n = visits[action]
        if action in proof:
            label, value = proof[action]
            children.append(ChildStats(action, n, value, prior[action], label))
        else:
            mean = value_sum.get(action, 0.0) / n if n else 0.0
            children.append(ChildStats(action, n, mean, prior[action], None))
    best_action = choose_action(children, final_move)
    children.sort(key=lambda c: (-c.visits, c.action))

    proven: Proven | None = None
    root_value = 0.0
    proved = next((r for r in results if r.proven is not None), None)
    proven_children = [c for c in children if c.proven is not None]
    if proved is not None:
        proven, root_value = proved.proven, proved.root_value
    elif any(c.proven == "win" for c in children):
        root_value = max(c.value for c in children if c.proven == "win")
        proven = proven_label(root_value)
    elif children and len(proven_children) == len(children):
        root_value = max(c.value for c in children)
        proven = proven_label(root_value)
    else:
        totals = [sum(c.visits for c in r.children) for r in results]
        total = sum(totals)
        if total:
            weighted = (r.root_value * t for r, t in zip(results, totals, strict=True))
            root_value = sum(weighted) / total

    pv = first.principal_variation
    return SearchResult(
        best_action=best_action,
        iterations=sum(r.iterations for r in results),
        elapsed=first.elapsed if elapsed is None else elapsed,
        nodes=sum(r.nodes for r in results),
        reused_nodes=sum(r.reused_nodes for r in results),
        pruned_nodes=sum(r.pruned_nodes for r in results),
        children=tuple(children),
        principal_variation=pv if pv[:1] == (best_action,) else (best_action,),
        root_value=root_value,
        proven=proven,
        to_play=player,
        extra={
            "worker_iterations": [r.iterations for r in results],
            "worker_nodes": [r.nodes for r in results],
            "worker_best_actions": [r.best_action for r in results],
        },
    )


# ---------------------------------------------------------------------------- the worker side
def _worker_main(conn: Connection, budget: Budget, config: SearchConfig, seed: int | None) -> None:
    """A worker's loop: one reply per request, until ``close`` or the parent goes away."""
    mcts = MCTS(budget, config, seed)
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
                    reply: Any = None
                elif kind == "search":
                    reply = mcts.search(game, payload)
                elif kind == "reset":
                    mcts.reset()
                    if payload is not None:
                        mcts.rng.seed(payload)
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

    Search ``i`` (0 in the calling process, 1.. in worker processes) uses ``MCTS`` with seed
    ``worker_seed(seed, i)`` and keeps its own node table from move to move.

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

    The merged result's ``extra`` holds ``worker_iterations``, ``worker_nodes`` and
    ``worker_best_actions`` (one entry per search, the calling process first).

    Args:
        budget: the budget (see above for how it is shared).
        config: the search configuration; it must pickle (no lambda evaluator).
        seed: the base seed, or ``None`` for unseeded searches.
        workers: number of searches, ``>= 1`` (1 runs only the local search).
        context: a ``multiprocessing`` context (default: ``forkserver`` where available, else
            ``spawn``).

    Raises:
        InvalidOptionError: ``workers`` is not a positive int, or ``config`` does not pickle.
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
        try:
            pickle.dumps(config)
        except Exception as error:
            raise InvalidOptionError(
                f"workers={workers} sends the search configuration to worker processes, but it "
                f"cannot be pickled ({error}); use a module-level evaluator function"
            ) from None
        if budget.iterations is not None:
            shares = split_iterations(budget.iterations, self.workers)
            self._budgets = [replace(budget, iterations=n) for n in shares if n > 0]
        else:
            self._budgets = [budget] * self.workers
        self.local = MCTS(self._budgets[0], config, seed)
        self._processes: list[BaseProcess] = []
        self._connections: list[Connection] = []
        self._finalizer: weakref.finalize | None = None
        self._game: Any = None  # the game the workers hold (a strong ref: ids are not reused)
        self._game_bytes: bytes | None = None

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
                "(a multiprocessing.Pool worker); use concurrent.futures.ProcessPoolExecutor "
                "(as the arena does) or workers=1"
            )
        context: Any = self._context or _default_context()
        deadline = perf_counter() + GRACE_SECONDS + 30.0  # interpreters and imports, under load
        try:
            for i, budget in enumerate(self._budgets[1:], start=1):
                parent_end, child_end = context.Pipe()
                proc = context.Process(
                    target=_worker_main,
                    args=(child_end, budget, self.config, worker_seed(self.seed, i)),
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
    def reset(self, seed: int | None = None) -> None:
        """Forget every search's table (between games); reseed every search if ``seed`` is given."""
        if seed is not None:
            self.seed = seed
        self.local.reset()
        if seed is not None:
            self.local.rng.seed(worker_seed(seed, 0))
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
            UnpicklableGameError: the game or its states cannot be sent to worker processes.
            WorkerError: a worker died, hung past its budget, or its search raised.
        """
        start = perf_counter()
        if len(self._budgets) == 1:
            return self.local.search(game, state)
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
            local = self.local.search(game, state)
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
            raise UnpicklableGameError(
                f"{name} (the generic env cloner's game) cannot be sent to worker processes: "
                f"its states are live env clones; {hint}"
            )
        try:
            data = pickle.dumps(game)
            key = game.key(pickle.loads(pickle.dumps(state)))
        except Exception as error:
            raise UnpicklableGameError(
                f"game {name} or its state cannot be pickled ({error}); {hint}"
            ) from None
        if key != game.key(state):
            raise UnpicklableGameError(
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
