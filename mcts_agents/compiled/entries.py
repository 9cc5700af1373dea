"""The compiled kernel's entry points, one per game: compiling one compiles that game's rules only.

``kernel.run`` and ``kernel.reroot`` take the game's id ``g``, on which ``games`` dispatches
while compiling (overloads on a literal id). Each entry point here calls them with its game's
id as a constant, so that the first search of a game compiles the kernel with that game's rules
and none of the others' (tic-tac-toe no longer compiles Othello 16x16), and numba caches each
entry point like any module-level function. ``run(g, ...)`` and ``reroot(g, ...)`` call the
entry of ``g`` with the kernel's other arguments.

``announce(g)`` logs one warning (logger ``mcts_agents.compiled``) before the first call of a
game whose entry point numba's cache does not hold: the compile takes tens of seconds, once.

numba checks only the source file of a cached function (here this one), not the files of the
functions it calls. ``check_sources()`` (run by ``is_cached``, once per process) keeps a hash of
the compiled package's and the rules cores' sources beside numba's cache and empties the entry
points' cache when they changed, so that an edit to ``kernel.py`` or a rule set recompiles.
"""

from __future__ import annotations

import functools
import hashlib
import logging
from pathlib import Path
from typing import Any

from numba import njit

from mcts_agents.compiled import dispatch as games
from mcts_agents.compiled import kernel

# The ids by name: numba reads a module's global int as a constant (a literal, on which
# ``games`` picks the rules), but ``games.MNK`` as a plain int64.
from mcts_agents.compiled.dispatch import CONNECT_FOUR, MNK, NIM, OTHELLO, OTHELLO_WIDE, ULTIMATE
from mcts_agents.envs import games as rules_cores

__all__ = [
    "announce",
    "announce_compile",
    "check_sources",
    "dispatchers_cached",
    "is_cached",
    "reroot",
    "run",
    "sources_hash",
]

logger = logging.getLogger("mcts_agents.compiled")


# One pair per game; the arguments are kernel.run's and kernel.reroot's after g.
@njit(cache=True)
def _run_othello(
    p, nd, ed, slots, meta, rng, root, iterations, c, solver, decisive, max_nodes,
    stop_when_full, max_actions, max_depth, outcomes,
):  # fmt: skip
    return kernel.run(
        OTHELLO, p, nd, ed, slots, meta, rng, root, iterations, c, solver, decisive,
        max_nodes, stop_when_full, max_actions, max_depth, outcomes,
    )  # fmt: skip


@njit(cache=True)
def _reroot_othello(p, nd, ed, slots, meta, root_state):
    kernel.reroot(OTHELLO, p, nd, ed, slots, meta, root_state)


@njit(cache=True)
def _run_mnk(
    p, nd, ed, slots, meta, rng, root, iterations, c, solver, decisive, max_nodes,
    stop_when_full, max_actions, max_depth, outcomes,
):  # fmt: skip
    return kernel.run(
        MNK, p, nd, ed, slots, meta, rng, root, iterations, c, solver, decisive,
        max_nodes, stop_when_full, max_actions, max_depth, outcomes,
    )  # fmt: skip


@njit(cache=True)
def _reroot_mnk(p, nd, ed, slots, meta, root_state):
    kernel.reroot(MNK, p, nd, ed, slots, meta, root_state)


@njit(cache=True)
def _run_ultimate(
    p, nd, ed, slots, meta, rng, root, iterations, c, solver, decisive, max_nodes,
    stop_when_full, max_actions, max_depth, outcomes,
):  # fmt: skip
    return kernel.run(
        ULTIMATE, p, nd, ed, slots, meta, rng, root, iterations, c, solver, decisive,
        max_nodes, stop_when_full, max_actions, max_depth, outcomes,
    )  # fmt: skip


@njit(cache=True)
def _reroot_ultimate(p, nd, ed, slots, meta, root_state):
    kernel.reroot(ULTIMATE, p, nd, ed, slots, meta, root_state)


@njit(cache=True)
def _run_nim(
    p, nd, ed, slots, meta, rng, root, iterations, c, solver, decisive, max_nodes,
    stop_when_full, max_actions, max_depth, outcomes,
):  # fmt: skip
    return kernel.run(
        NIM, p, nd, ed, slots, meta, rng, root, iterations, c, solver, decisive,
        max_nodes, stop_when_full, max_actions, max_depth, outcomes,
    )  # fmt: skip


@njit(cache=True)
def _reroot_nim(p, nd, ed, slots, meta, root_state):
    kernel.reroot(NIM, p, nd, ed, slots, meta, root_state)


@njit(cache=True)
def _run_othello_wide(
    p, nd, ed, slots, meta, rng, root, iterations, c, solver, decisive, max_nodes,
    stop_when_full, max_actions, max_depth, outcomes,
):  # fmt: skip
    return kernel.run(
        OTHELLO_WIDE, p, nd, ed, slots, meta, rng, root, iterations, c, solver, decisive,
        max_nodes, stop_when_full, max_actions, max_depth, outcomes,
    )  # fmt: skip


@njit(cache=True)
def _reroot_othello_wide(p, nd, ed, slots, meta, root_state):
    kernel.reroot(OTHELLO_WIDE, p, nd, ed, slots, meta, root_state)


@njit(cache=True)
def _run_connect_four(
    p, nd, ed, slots, meta, rng, root, iterations, c, solver, decisive, max_nodes,
    stop_when_full, max_actions, max_depth, outcomes,
):  # fmt: skip
    return kernel.run(
        CONNECT_FOUR, p, nd, ed, slots, meta, rng, root, iterations, c, solver, decisive,
        max_nodes, stop_when_full, max_actions, max_depth, outcomes,
    )  # fmt: skip


@njit(cache=True)
def _reroot_connect_four(p, nd, ed, slots, meta, root_state):
    kernel.reroot(CONNECT_FOUR, p, nd, ed, slots, meta, root_state)


#: Game id -> (its ``run`` entry, its ``reroot`` entry).
ENTRIES: dict[int, tuple[Any, Any]] = {
    games.OTHELLO: (_run_othello, _reroot_othello),
    games.MNK: (_run_mnk, _reroot_mnk),
    games.ULTIMATE: (_run_ultimate, _reroot_ultimate),
    games.NIM: (_run_nim, _reroot_nim),
    games.OTHELLO_WIDE: (_run_othello_wide, _reroot_othello_wide),
    games.CONNECT_FOUR: (_run_connect_four, _reroot_connect_four),
}
_NAMES = {
    games.OTHELLO: "Othello",
    games.MNK: "m,n,k",
    games.ULTIMATE: "ultimate tic-tac-toe",
    games.NIM: "Nim",
    games.OTHELLO_WIDE: "Othello 10x10 to 16x16",
    games.CONNECT_FOUR: "Connect Four",
}


def run(g: int, *args: Any) -> tuple[int, int]:
    """``kernel.run(g, *args)`` through the entry point of game ``g``."""
    done, status = ENTRIES[g][0](*args)
    return int(done), int(status)


def reroot(g: int, *args: Any) -> None:
    """``kernel.reroot(g, *args)`` through the entry point of game ``g``."""
    ENTRIES[g][1](*args)


#: The sources compiled into the entry points: this package and the rules cores it compiles.
SOURCES = (Path(__file__).parent, Path(rules_cores.__file__).parent)
_STAMP = "-sources.sha256"


def sources_hash() -> str:
    """A hash of every ``.py`` file of ``SOURCES`` (names and contents)."""
    digest = hashlib.sha256()
    for folder in SOURCES:
        for path in sorted(folder.glob("*.py")):
            digest.update(path.name.encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()


#: Other cached kernels that compile the kernel's code into their own (``compiled.batch``'s),
#: by group name: ``check_sources(name)`` treats them as it treats the entry points.
GROUPS: dict[str, tuple[Any, ...]] = {}


@functools.cache
def check_sources(group: str = "entries") -> bool:
    """Empty the cache of the entry points (or of the dispatchers of ``GROUPS[group]``) if the
    sources changed since it was filled (see the module's docstring); return whether it did.
    Once per process and group."""
    dispatchers = (
        tuple(entry for pair in ENTRIES.values() for entry in pair)
        if group == "entries"
        else GROUPS[group]
    )
    try:
        stamp = Path(dispatchers[0]._cache._cache_path) / f"{group}{_STAMP}"
        current = sources_hash()
        if stamp.is_file() and stamp.read_text() == current:
            return False
        for dispatcher in dispatchers:
            dispatcher._cache.flush()
        stamp.parent.mkdir(parents=True, exist_ok=True)
        stamp.write_text(current)
    except (AttributeError, OSError):  # another numba, a read-only cache: numba's own rules
        return False
    return True


def dispatchers_cached(dispatchers: Any) -> bool:
    """Whether each numba dispatcher in ``dispatchers`` is compiled in this process or has an
    entry in numba's cache index for its current source (a private API: where that fails,
    ``False``)."""
    for dispatcher in dispatchers:
        if getattr(dispatcher, "signatures", None):
            continue
        try:
            index = dispatcher._cache._cache_file._load_index()
        except Exception:  # another numba: assume a compile
            return False
        if not index:
            return False
    return True


def announce_compile(what: str, dispatchers: Any) -> bool:
    """Log one warning if ``dispatchers`` (the search kernel of ``what``) are about to be
    compiled, not loaded from numba's cache; return whether it was logged."""
    if dispatchers_cached(dispatchers):
        return False
    folder = next(iter(dispatchers)).stats.cache_path
    logger.warning(
        "compiling the search kernel for %s, once (tens of seconds); cached in %s", what, folder
    )
    return True


def is_cached(g: int) -> bool:
    """Whether numba's cache holds both entry points of game ``g`` for these sources (a
    compiled one in this process counts too; see ``dispatchers_cached``)."""
    check_sources()
    return dispatchers_cached(ENTRIES[g])


def announce(g: int) -> bool:
    """Log one warning if game ``g``'s kernel is about to be compiled (not cached); return
    whether it was logged."""
    check_sources()
    return announce_compile(_NAMES[g], ENTRIES[g])
