"""Compiled searchers searched as one batch: one numba call over many trees, in parallel.

``search_compiled`` (behind ``mcts_agents.agents.batch.search_batch``) takes compiled
searchers (``CompiledSearch``), each with its own tree, and a position for each. Every tree is
prepared as its own ``search`` prepares it (``CompiledSearch.begin``: its seed drawn from its own
generator, the root found or re-rooted with reachability pruning), then the simulations of all
the trees of one game run in one call (``run_trees``: a ``prange`` over the trees, each running
``core.search_tree`` on its own tree with its own options), again for the trees that had to
grow, and each result is built by the searcher's own code. Each tree's simulations are exactly
those of its own ``search``: same seed, same result.

The core reaches the trees through a numba typed list kept in a ``_Pool`` (an item a searcher:
its ``(tree, options)``, a slot freed when the searcher is collected); a slot is written again
only when its searcher's tree was reallocated (growth), so a batch call costs a few identity
checks per tree instead of building lists.

Threads: numba's OpenMP threads spin after each parallel loop (GNU OpenMP: about 0.2 s by
default), taking the core that the interpreter's part of a step (and the next batch) needs
(Connect Four N=64 on 2 cores ran 2-3x slower with spinning threads). ``thread_count`` (called
before the batches' first parallel call) asks for threads that sleep when idle
(``OMP_WAIT_POLICY=PASSIVE``) unless the caller set a policy, and only while numba's thread
pool has not started (the runtime reads it then): importing this module changes nothing.

Batched here: an iteration budget without a time limit, and a final move other than
``robust_max``; any other searcher searches on its own (``search``), in turn.
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence
from time import perf_counter
from typing import Any

import numpy as np
from numba import get_num_threads, literally, prange, typeof, types
from numba.typed import List

from mcts_agents.compiled import core, entries
from mcts_agents.compiled.cache import njit
from mcts_agents.compiled.searcher import CompiledSearch
from mcts_agents.compiled.threads import chunked, start_threads
from mcts_agents.search.result import SearchResult
from mcts_agents.search.searcher import check_room

__all__ = [
    "PARALLEL_MIN",
    "batchable",
    "moves_compiled",
    "search_compiled",
    "thread_count",
    "warm_up",
]

#: Fewer simulations than this in one call run on one thread: waking the other threads (and,
#: on a busy machine, waiting for them to be scheduled) would cost more than they save.
PARALLEL_MIN = 2048


def thread_count() -> int:
    """numba's threads for a parallel batch, its threading layer started by
    ``threads.start_threads`` (sleeping idle threads where the caller set no policy; see the
    module's docstring)."""
    start_threads()
    return int(get_num_threads())


def _over_trees(name: str, parallel: bool) -> Any:
    """``core.search_tree`` of tree ``trees[j]`` (game ``g``) from ``roots[j]``, up to
    ``iterations[j]`` simulations, into ``done[j]`` and ``status[j]``, for every ``j``: in
    parallel, or on one thread (small batches: no thread to wake; ``prange`` is ``range``
    there). One body, two compiled functions, each cached under its own ``name`` (numba keys a
    cache file by a function's name, not by its options)."""

    def run_trees(g, items, trees, roots, iterations, done, status):
        literally(g)  # compiled per game: the rules of game g only (see compiled.entries)
        for j in prange(len(trees)):
            t, o = items[trees[j]]
            done[j], status[j] = core.search_tree(g, t, o, roots[j], iterations[j])

    run_trees.__name__ = run_trees.__qualname__ = name
    return njit(cache=True, parallel=parallel)(run_trees)


run_trees = _over_trees("run_trees", parallel=True)
run_trees_serial = _over_trees("run_trees_serial", parallel=False)


@njit(cache=True)
def _list_of(item: Any) -> Any:
    """A typed list of ``item`` (built in compiled code: the interpreter's typed-list methods
    would be compiled again in every process, about half a second per item type)."""
    items = List()
    items.append(item)
    return items


@njit(cache=True)
def _append(items: Any, item: Any) -> None:
    items.append(item)


@njit(cache=True)
def _put(items: Any, k: int, item: Any) -> None:
    items[k] = item


# The batch kernels compile the core's code into their own cache: emptied with the entry
# points' when the sources change (numba checks only this file).
entries.check_sources("batch")


#: The compiled code of a batch kernel for one game and argument types (see ``_for_game``).
_SPECIALISED: dict[tuple[Any, ...], Any] = {}


def _for_game(dispatcher: Any, g: int, *args: Any) -> Any:
    """``dispatcher(g, *args)`` for a kernel that is compiled per game (``literally(g)``).

    numba resolves a call that needs a literal argument on a slow path, ~5 ms a call whatever
    the work (measured here, against ~8 us for an ordinary call): once that call has compiled
    (or loaded) the game's code, its compiled entry point is kept and called directly."""
    key = (dispatcher, g, *(typeof(a) for a in args))
    compiled = _SPECIALISED.get(key)
    if compiled is not None:
        return compiled(g, *args)
    result = dispatcher(g, *args)
    found = dispatcher.overloads.get((types.literal(g), *key[2:]))
    if found is not None:
        _SPECIALISED[key] = found.entry_point
    return result


class _Pool:
    """The trees of every live searcher of one class, as a typed list the core indexes (one
    item a searcher: its ``(tree, options)``; one list, not one per column: each typed list
    costs ~1.5 us to pass to a compiled call)."""

    def __init__(self, searcher: Any) -> None:
        self.spare = tuple(_tiny(a) for a in _arrays(searcher))  # what a free slot holds
        self.items = _list_of(self.spare)
        self.held: list[tuple[Any, ...]] = [self.spare]  # what each slot holds now
        self.index: weakref.WeakKeyDictionary[Any, int] = weakref.WeakKeyDictionary()
        self.free: list[int] = [0]

    def slot(self, searcher: Any) -> int:
        """The searcher's slot, its arrays up to date."""
        arrays = _arrays(searcher)
        k = self.index.get(searcher)
        if k is None:
            if self.free:
                k = self.free.pop()
                self._store(k, arrays)
            else:
                k = len(self.held)
                _append(self.items, arrays)
                self.held.append(arrays)
            self.index[searcher] = k
            weakref.finalize(searcher, self._release, k)
            return k
        if any(a is not b for a, b in zip(arrays, self.held[k], strict=True)):
            self._store(k, arrays)
        return k

    def _store(self, k: int, arrays: tuple[Any, ...]) -> None:
        _put(self.items, k, arrays)
        self.held[k] = arrays

    def _release(self, k: int) -> None:
        self._store(k, self.spare)
        self.free.append(k)


def _arrays(searcher: Any) -> tuple[Any, ...]:
    return searcher.tree, searcher.options


def _tiny(a: Any) -> Any:
    """A one-row stand-in of the same types as ``a`` (an array, a record of them, a scalar)."""
    if isinstance(a, tuple):
        return type(a)(*(_tiny(field) for field in a))
    if isinstance(a, np.ndarray):
        return np.zeros((1, *a.shape[1:]), a.dtype)
    return a


_POOLS: dict[Any, _Pool] = {}
#: Each searcher's pool, found once: a searcher's tree types and options type never change, and
#: the key costs ~45 us (numba's ``typeof`` of the options), where the vector env asks once a
#: step.
_POOL_OF: weakref.WeakKeyDictionary[Any, _Pool] = weakref.WeakKeyDictionary()


def pool_for(searcher: Any) -> _Pool:
    """The pool of ``searcher``'s trees: one a searcher class and tree type (a typed list holds
    items of one numba type, and the columns' types follow the game: int8 moves for at most
    127 actions, int16 beyond)."""
    pool = _POOL_OF.get(searcher)
    if pool is not None:
        return pool
    tree = searcher.tree
    key = (type(searcher), tuple((a.dtype.char, a.ndim) for a in tree), typeof(searcher.options))
    pool = _POOLS.get(key)
    if pool is None:
        pool = _POOLS[key] = _Pool(searcher)
    _POOL_OF[searcher] = pool
    return pool


def batchable(searcher: Any) -> bool:
    """Whether ``searcher`` can run in a batch: a compiled searcher of this module's kinds with
    an iteration budget, no time limit, and a final move other than ``robust_max``."""
    budget = searcher.budget if type(searcher) in _KINDS else None
    return (
        budget is not None
        and budget.iterations is not None
        and budget.time_limit is None
        and searcher.config.final_move != "robust_max"
    )


def search_compiled(
    searchers: Sequence[Any], games: Sequence[Any], states: Sequence[Any]
) -> list[SearchResult]:
    """``searchers[i].search(games[i], states[i])`` for each ``i``: batched where ``batchable``
    (one kernel call per class and game), else one by one. The searchers are distinct."""
    return _batched(searchers, games, states, moves_only=False)


def moves_compiled(
    searchers: Sequence[Any], games: Sequence[Any], states: Sequence[Any]
) -> list[int]:
    """The moves ``search_compiled`` would give (``best_action``), without building the
    results of the batched trees (their children's statistics and principal variations cost
    more than a 100-simulation kernel search); the trees are left exactly as it leaves them."""
    return [
        r if isinstance(r, int) else r.best_action
        for r in _batched(searchers, games, states, moves_only=True)
    ]


def _batched(
    searchers: Sequence[Any], games: Sequence[Any], states: Sequence[Any], moves_only: bool
) -> list[Any]:
    results: list[Any] = [None] * len(searchers)
    groups: dict[tuple[Any, ...], list[int]] = {}
    for i, searcher in enumerate(searchers):
        if type(searcher) in _KINDS:  # other compiled searchers (ISMCTS, Go) check their own
            searcher.check_game(games[i])
        if batchable(searcher):
            groups.setdefault((type(searcher), searcher.game), []).append(i)
    for (kind, _), members in groups.items():
        done = _search_group(
            kind, [searchers[i] for i in members], [states[i] for i in members], moves_only
        )
        for i, result in zip(members, done, strict=True):
            results[i] = result
    for i, searcher in enumerate(searchers):
        if results[i] is None:
            results[i] = searcher.search(games[i], states[i])
    return [result for result in results if result is not None]


def _search_group(
    kind: type, searchers: list[Any], states: list[Any], moves_only: bool = False
) -> list[Any]:
    """One game, one searcher class: prepare each root, run all trees, build each result (or,
    ``moves_only``, each move)."""
    count = len(searchers)
    starts = np.empty(count)
    roots = np.empty(count, np.int64)
    prepared = []
    for j, (searcher, state) in enumerate(zip(searchers, states, strict=True)):
        if searcher.budget.max_nodes is not None:  # check_room refuses nothing without it
            check_room(searcher.budget, len(searcher.game.legal_actions(state)))
        starts[j] = perf_counter()
        root, reused, pruned = searcher.begin(state)
        roots[j] = root
        prepared.append((reused, pruned))
    limits = np.array([s.budget.iterations for s in searchers], np.int64)
    ran = np.zeros(count, np.int64)
    game_id = searchers[0].codec.game_id
    pool = pool_for(searchers[0])
    while True:
        active = [
            j for j, s in enumerate(searchers) if ran[j] < limits[j] and not s.solved(int(roots[j]))
        ]
        if not active:
            break
        trees = np.array([pool.slot(searchers[j]) for j in active], np.int64)
        picked = np.array(active, np.int64)
        done = np.zeros(len(active), np.int64)
        status = np.zeros(len(active), np.int64)
        items = pool.items
        want = limits[picked] - ran[picked]
        parallel = len(active) > 1 and int(want.sum()) >= PARALLEL_MIN and thread_count() > 1
        run = run_trees if parallel else run_trees_serial
        chunked(_for_game, run, game_id, items, trees, roots[picked], want, done, status)
        ran[picked] += done
        for j, code in zip(active, status.tolist(), strict=True):
            searchers[j]._grow(code)
    if moves_only:
        pairs = enumerate(zip(searchers, states, strict=True))
        return [s.best_action(state, int(roots[j])) for j, (s, state) in pairs]
    now = perf_counter()
    return [
        s._result(state, int(roots[j]), int(ran[j]), now - starts[j], *prepared[j])
        for j, (s, state) in enumerate(zip(searchers, states, strict=True))
    ]


_KINDS = (CompiledSearch,)
_warm = False


def warm_up() -> None:
    """Compile (or load from numba's cache) the batch kernels of two games once per process."""
    global _warm
    if _warm:
        return
    _warm = True
    from mcts_agents.envs.games.connect_four import ConnectFour
    from mcts_agents.envs.games.mnk import MNK
    from mcts_agents.search.config import Budget, SearchConfig

    for game in (ConnectFour(), MNK(3, 3, 3)):
        searchers = [
            CompiledSearch(game, Budget(iterations=32), SearchConfig(), seed, capacity=16)
            for seed in range(2)
        ]
        search_compiled(searchers, [game, game], [game.initial_state()] * 2)
