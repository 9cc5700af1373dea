"""The compiled kernel's entry points, one per game: compiling one compiles that game's rules only.

``kernel.run`` and ``kernel.reroot`` take the game's id ``g``, on which ``games`` dispatches
while compiling (overloads on a literal id). Each entry point here calls them with its game's
id as a constant, so that the first search of a game compiles the kernel with that game's rules
and none of the others' (tic-tac-toe no longer compiles Othello 16x16), and numba caches each
entry point like any module-level function. ``run(g, ...)`` and ``reroot(g, ...)`` call the
entry of ``g`` with the kernel's other arguments.

``announce(g)`` logs one warning (logger ``mcts_agents.compiled``) before the first call of a
game whose entry point numba's cache does not hold: the compile takes tens of seconds, once.
"""

from __future__ import annotations

import logging
from typing import Any

from numba import njit

from mcts_agents.compiled import games, kernel

# The ids by name: numba reads a module's global int as a constant (a literal, on which
# ``games`` picks the rules), but ``games.MNK`` as a plain int64.
from mcts_agents.compiled.games import CONNECT_FOUR, MNK, NIM, OTHELLO, OTHELLO_WIDE, ULTIMATE

__all__ = ["announce", "is_cached", "reroot", "run"]

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


def is_cached(g: int) -> bool:
    """Whether numba's cache holds both entry points of game ``g`` for this source (a
    compiled one in this process counts too). Reads numba's cache index (a private API: where
    that fails, ``False``)."""
    for entry in ENTRIES[g]:
        if getattr(entry, "signatures", None):
            continue
        try:
            index = entry._cache._cache_file._load_index()
        except Exception:  # another numba: assume a compile
            return False
        if not index:
            return False
    return True


def cache_folder(g: int) -> str:
    """Where numba caches game ``g``'s entry points (``NUMBA_CACHE_DIR`` moves it)."""
    return str(ENTRIES[g][0].stats.cache_path)


def announce(g: int) -> bool:
    """Log one warning if game ``g``'s kernel is about to be compiled (not cached); return
    whether it was logged."""
    if is_cached(g):
        return False
    logger.warning(
        "compiling the search kernel for %s, once (tens of seconds); cached in %s",
        _NAMES[g],
        cache_folder(g),
    )
    return True
