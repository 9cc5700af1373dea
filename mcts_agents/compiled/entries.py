"""The tree core's entry points, one pair per game: compiling one compiles that game's rules only.

``core.search_tree`` and ``core.begin`` take the game's id ``g``, on which ``dispatch``
dispatches while compiling (overloads on a literal id). Each entry point here (a pair per rule
set of ``rules.RULE_SETS``, made by ``_entry_points``) calls them with its game's id as a
constant, so that the first search of a game compiles the core with that game's rules and none
of the others' (tic-tac-toe no longer compiles Othello 16x16), and numba caches each entry point
in a file of its own. ``search(g, ...)`` and ``begin(g, ...)`` call the entry of ``g`` with the
core's other arguments.

``announce(g)`` logs one warning (logger ``mcts_agents.compiled``) before the first call of a
game whose entry point numba's cache does not hold: the compile takes tens of seconds, once.

numba checks only the source file of a cached function, not the files of the functions it
calls. ``check_sources()`` (run at the import of the modules whose kernels are cached and by
``is_cached``, once per process) keeps a hash of the compiled package's and the rules cores'
sources beside numba's cache (in ``cache.cache_dir()``, a folder per source folder) and empties
the index of every cache folder of those sources when they changed, so that an edit to
``core.py``, ``common.py`` or a rule set recompiles every kernel that compiled it in.
"""

from __future__ import annotations

import functools
import hashlib
import logging
from pathlib import Path
from typing import Any

from mcts_agents.compiled import cache, core
from mcts_agents.compiled.cache import njit
from mcts_agents.compiled.rules import RULE_SETS, RuleSet
from mcts_agents.envs import games as rules_cores

__all__ = [
    "announce",
    "announce_compile",
    "begin",
    "check_sources",
    "dispatchers_cached",
    "is_cached",
    "search",
    "sources_hash",
]

logger = logging.getLogger("mcts_agents.compiled")


def _entry_points(rules: RuleSet) -> tuple[Any, Any]:
    """The ``search`` and ``begin`` entry points of one rule set: ``core.search_tree`` and
    ``core.begin`` with its id as a constant (a closure's int is a literal to numba, as a
    module's global is), their other arguments passed on.

    numba caches a closure by its qualified name and source line, with its closed-over values
    in the key: each pair gets a name of its own (``search_mnk``...), hence a cache index of its
    own, which ``is_cached`` reads; two closures of one name would share one index.
    """
    g = rules.game_id

    def search_game(t, o, root, iterations):
        return core.search_tree(g, t, o, root, iterations)

    def begin_game(t, o, s, seed):
        return core.begin(g, t, o, s, seed)

    for f, kind in ((search_game, "search"), (begin_game, "begin")):
        f.__name__ = f.__qualname__ = f"{kind}_{rules.name}"
    return njit(cache=True)(search_game), njit(cache=True)(begin_game)


#: Game id -> (its ``search`` entry, its ``begin`` entry).
ENTRIES: dict[int, tuple[Any, Any]] = {one.game_id: _entry_points(one) for one in RULE_SETS}
_NAMES = {one.game_id: one.title for one in RULE_SETS}


def search(g: int, *args: Any) -> tuple[int, int]:
    """``core.search_tree(g, *args)`` through the entry point of game ``g``: ``(done, status)``."""
    done, status = ENTRIES[g][0](*args)
    return int(done), int(status)


def begin(g: int, *args: Any) -> tuple[int, int, int]:
    """``core.begin(g, *args)`` through the entry point of game ``g``: ``(root, reused,
    pruned)``."""
    root, reused, pruned = ENTRIES[g][1](*args)
    return int(root), int(reused), int(pruned)


#: The sources compiled into the entry points: this package, its rule sets and the rules cores
#: it compiles.
SOURCES = (
    Path(__file__).parent,
    Path(__file__).parent / "rules",
    Path(rules_cores.__file__).parent,
)
_STAMP = "sources.sha256"


def sources_hash() -> str:
    """A hash of every ``.py`` file of ``SOURCES`` (names and contents)."""
    digest = hashlib.sha256()
    for folder in SOURCES:
        for path in sorted(folder.glob("*.py")):
            digest.update(path.name.encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()


def check_sources(group: str = "entries") -> bool:
    """Empty every kernel numba cached from ``SOURCES`` (the index files of their cache
    folders: the entry points, the batch's and the boards' kernels, the core's phases and the
    rule sets' functions alike) if the sources changed since it was filled (see the module's
    docstring); return whether it did. Once per process; ``group`` names the caller (each
    module whose kernels are cached checks at its import), all check the one stamp.

    Folder-wide, not per function: numba checks a cached function against its own file only,
    so a rule set's ``play`` cached before a change to a helper it calls in ``common.py``
    would load stale."""
    return _check_all_sources()


@functools.cache
def _check_all_sources() -> bool:
    folders = [cache.source_cache_folder(folder) for folder in SOURCES]
    if any(folder is None for folder in folders):
        return False  # no cache folder of ours (nothing is cached), or another numba
    stamp = folders[0] / _STAMP  # type: ignore[operator]
    try:
        current = sources_hash()
        if stamp.is_file() and stamp.read_text() == current:
            return False
        for folder in folders:
            cache.empty_folder(folder)  # type: ignore[arg-type]
        stamp.parent.mkdir(parents=True, exist_ok=True)
        stamp.write_text(current)
    except OSError:  # a read-only cache: numba's own rules
        return False
    return True


def dispatchers_cached(dispatchers: Any) -> bool:
    """Whether each numba dispatcher in ``dispatchers`` is compiled in this process or has an
    entry in numba's cache index for its current source (``cache.cache_index``, a private API:
    where that fails, ``False``)."""
    for dispatcher in dispatchers:
        if getattr(dispatcher, "signatures", None):
            continue
        if not cache.cache_index(dispatcher):  # nothing cached, or another numba: a compile
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
