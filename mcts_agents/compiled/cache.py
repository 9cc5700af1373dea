"""Where numba caches the compiled kernels: a folder of the user's, never the package's.

numba caches a function beside its source file (``compiled/__pycache__``) unless told
otherwise: inside an installed package that folder outlives ``pip uninstall`` (and shadowed a
later ``pip install -e`` as an empty namespace package), and in a checkout it fills the source
tree. The kernels are cached in ``cache_dir()`` instead, by these rules:

1. ``$MCTS_AGENTS_CACHE_DIR/numba`` where the environment variable ``MCTS_AGENTS_CACHE_DIR``
   (this library's setting) is set;
2. else ``$NUMBA_CACHE_DIR`` where numba's own setting is set;
3. else the platform's per-user cache folder: ``$XDG_CACHE_HOME/mcts-agents/numba`` or
   ``~/.cache/mcts-agents/numba`` (Linux and other POSIX systems), ``~/Library/Caches/
   mcts-agents/numba`` (macOS), ``%LOCALAPPDATA%\\mcts-agents\\numba`` (Windows).

Inside it numba keeps a folder per source folder (its own layout: the folder's name and a hash
of its path), so two checkouts or two installs do not clobber each other's kernels; the entry
points' hash of the sources (``entries.check_sources``) lives there too. The folder is read once
per process, when the first kernel is defined: set the variable before that.

``njit`` is numba's ``njit`` with the kernels' cache there: only this library's functions are
cached there; a user's own ``@njit(cache=True)`` code keeps numba's rules (``numba.config.
CACHE_DIR`` is set only while one of ours is defined, then restored). Where the folder cannot
be written, a per-user folder in the system's temporary folder (``fallback_dir()``) takes its
place, and where that cannot be written either the kernels are not cached (one warning):
numba's own fallback would write them beside their source, inside the package. This module
imports numba only when ``njit`` is called.

numba offers no public way to read a function's cache index or to empty it:
``cache_index`` and ``empty_cache`` are the only uses of that private API.
"""

from __future__ import annotations

import functools
import getpass
import logging
import os
import sys
import tempfile
import threading
from collections.abc import Callable, Mapping
from pathlib import Path, PureWindowsPath
from types import FunctionType
from typing import Any

__all__ = [
    "CACHE_DIR_ENV",
    "cache_dir",
    "cache_index",
    "empty_cache",
    "empty_folder",
    "fallback_dir",
    "njit",
    "source_cache_folder",
    "user_cache_root",
    "writable",
]

logger = logging.getLogger("mcts_agents.compiled")

#: This library's setting: the folder of its caches (the kernels in its ``numba`` folder).
CACHE_DIR_ENV = "MCTS_AGENTS_CACHE_DIR"
#: The library's folder name inside the platform's cache folder.
APP = "mcts-agents"


def _absolute(text: str | None) -> Path | None:
    """``text`` as an absolute path (``~`` expanded), or ``None`` where it is empty."""
    if not text or not text.strip():
        return None
    return Path(os.path.abspath(os.path.expanduser(text)))


def user_cache_root(
    environ: Mapping[str, str] | None = None, platform: str | None = None
) -> Path | None:
    """The platform's per-user cache folder (``~/.cache``, ``~/Library/Caches``,
    ``%LOCALAPPDATA%``), or ``None`` where there is no home folder to find.

    Args:
        environ: the environment to read (default ``os.environ``).
        platform: a ``sys.platform`` value (default this one's).
    """
    environ = os.environ if environ is None else environ
    platform = sys.platform if platform is None else platform
    try:
        home = Path(environ["HOME"]) if environ.get("HOME") else Path.home()
    except (RuntimeError, KeyError):  # no home folder known
        home = None
    if platform.startswith("win"):
        local = environ.get("LOCALAPPDATA", "")
        if PureWindowsPath(local).is_absolute():
            return Path(local)
        return None if home is None else home / "AppData" / "Local"
    if platform == "darwin":
        return None if home is None else home / "Library" / "Caches"
    xdg = environ.get("XDG_CACHE_HOME", "")
    if xdg and Path(xdg).is_absolute():  # the XDG spec: a relative path is to be ignored
        return Path(xdg)
    return None if home is None else home / ".cache"


def cache_dir(environ: Mapping[str, str] | None = None, platform: str | None = None) -> Path | None:
    """The folder the kernels are cached in, by the module's rules (``None``: no folder
    found, numba's own rules apply).

    Args:
        environ: the environment to read (default ``os.environ``).
        platform: a ``sys.platform`` value (default this one's).
    """
    environ = os.environ if environ is None else environ
    ours = _absolute(environ.get(CACHE_DIR_ENV))
    if ours is not None:
        return ours / "numba"
    numbas = _absolute(environ.get("NUMBA_CACHE_DIR"))
    if numbas is not None:
        return numbas
    root = user_cache_root(environ, platform)
    return None if root is None else root / APP / "numba"


def writable(folder: Path) -> bool:
    """Whether ``folder`` can be made (with its parents) and a file written in it."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError:
        return False
    return True


def fallback_dir() -> Path:
    """Where the kernels are cached when ``cache_dir()`` is missing or cannot be written: a
    per-user folder in the system's temporary folder (never the package's)."""
    try:
        user = getpass.getuser()
    except (KeyError, OSError):  # no name for this user id (a bare container)
        user = str(os.getuid()) if hasattr(os, "getuid") else "user"
    return Path(tempfile.gettempdir()) / f"{APP}-{user}" / "numba"


@functools.cache
def _folder() -> Path | None:
    """The folder every kernel of this process is cached in, chosen once: ``cache_dir()``
    where it can be written, else ``fallback_dir()``, else ``None`` (the kernels are then not
    cached at all, with one warning: numba's own rule would write them beside their source,
    inside the package)."""
    for folder in (cache_dir(), fallback_dir()):
        if folder is not None and writable(folder):
            return folder
    logger.warning(
        "no writable folder for the compiled kernels' cache (tried %s and %s): they are "
        "compiled in every process; set %s to a writable folder",
        cache_dir(), fallback_dir(), CACHE_DIR_ENV,
    )  # fmt: skip
    return None


_defining = threading.Lock()


def njit(*args: Any, **options: Any) -> Any:
    """``numba.njit(*args, **options)``; with ``cache=True`` the function is cached in
    ``cache_dir()`` (numba's user-provided folder, set only while it is defined).

    Used as numba's: ``@njit(cache=True)``, ``njit(cache=True)(function)``, ``njit(function)``.
    """
    import numba

    if args and isinstance(args[0], FunctionType):  # njit(function, ...)
        function, *rest = args
        return njit(*rest, **options)(function)
    folder = _folder() if options.get("cache") else None
    if folder is None:  # no cache asked for, or no folder to keep it in (never the package)
        return numba.njit(*args, **{**options, "cache": False})
    decorator = numba.njit(*args, **options)

    def define(function: Callable[..., Any]) -> Any:
        # numba picks a function's cache folder when it is defined (``enable_caching``).
        from numba.core import config as numba_config

        config: Any = numba_config
        with _defining:
            previous = config.CACHE_DIR
            config.CACHE_DIR = str(folder)
            try:
                return decorator(function)
            finally:
                config.CACHE_DIR = previous

    return define


# ------------------------------------------------------------- numba's private cache API
def cache_index(dispatcher: Any) -> dict[Any, Any] | None:
    """The entries of ``dispatcher``'s cache index for its current source (empty: nothing
    cached), or ``None`` where this numba does not let it be read (a private API)."""
    try:
        index: dict[Any, Any] = dispatcher._cache._cache_file._load_index()
    except Exception:  # another numba, an unreadable index
        return None
    return index


def empty_cache(dispatcher: Any) -> bool:
    """Empty ``dispatcher``'s cache index (its compiled code is then compiled again); return
    whether it could (a private API)."""
    try:
        dispatcher._cache.flush()
    except (AttributeError, OSError):  # another numba, a read-only cache
        return False
    return True


def source_cache_folder(source_folder: Path) -> Path | None:
    """The folder in which numba caches the kernels defined in ``source_folder``'s files
    (numba's layout inside ``cache_dir()``: the folder's name and a SHA-1 of its path; a
    private API), or ``None`` where no folder of ours is used."""
    folder = _folder()
    if folder is None:
        return None
    try:
        from numba.core.caching import _CacheLocator

        sub = _CacheLocator.get_suitable_cache_subpath(str(source_folder / "module.py"))
    except Exception:  # another numba
        return None
    return folder / sub


def empty_folder(folder: Path) -> None:
    """Remove numba's index files (``.nbi``) from ``folder`` (one of ours:
    ``source_cache_folder``), so that every kernel cached there compiles again. The data
    files stay (a process that read an index before may still load them); a compile writes
    over them."""
    if not folder.is_dir():
        return
    for path in folder.glob("*.nbi"):
        path.unlink(missing_ok=True)
