"""What every worker process of the library shares: a bound on how many, a watch that ends
each with its parent, and one check that what it is sent can be pickled.

- ``MAX_WORKERS``: the most worker processes a pool may be asked for (``check_workers``
  refuses more, naming the bound): each is a fresh interpreter (``spawn``) with its own
  imports, hundreds of megabytes with torch, so an unbounded count can fill the machine's
  memory before anything runs.
- ``exit_with_parent(parent)``: called first thing in a worker, it ends the worker when its
  parent process is gone (SIGKILL, SIGTERM, a crash), instead of leaving it running or blocked
  on a queue for ever: on Linux the kernel sends SIGKILL at the parent's death
  (``PR_SET_PDEATHSIG``, which works even while a search holds the GIL), and everywhere a
  daemon thread waits on the parent's sentinel and checks ``os.getppid()``.
- ``check_picklable(obj, what, hint)``: ``UnpicklableError`` (the one error of this fault,
  whichever pool) naming ``what`` unless ``obj`` pickles.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import multiprocessing.pool
import os
import pickle
import signal
import sys
import threading
import time
from typing import Any

from mcts_agents.checks import check_int
from mcts_agents.errors import UnpicklableError

__all__ = ["MAX_WORKERS", "WATCH_SECONDS", "check_picklable", "check_workers", "exit_with_parent"]

#: The most worker processes a pool may be asked for (the arena's bound too).
MAX_WORKERS = 256
#: How often a worker checks that its parent process is alive (seconds).
WATCH_SECONDS = 0.2


def check_workers(workers: Any, option: str = "workers") -> int:
    """``workers`` as an int in ``[1, MAX_WORKERS]``, else ``InvalidOptionError`` naming
    ``option``, the value and the bound."""
    note = f"worker processes, at most MAX_WORKERS = {MAX_WORKERS}"
    return int(check_int(workers, option, low=1, high=MAX_WORKERS, note=note))


def exit_with_parent(parent: int) -> None:
    """End this process at once when process ``parent`` is gone (see the module); call it
    first thing in a worker, with the parent's pid as the parent saw it.

    A worker that ``parent`` started itself (``spawn``, ``fork``) also watches its own parent
    pid and has the kernel's death signal; one started by a ``forkserver`` (whose parent is
    the server) watches the sentinel that multiprocessing gives it for ``parent``, or, without
    one, whether a process ``parent`` still exists."""
    direct = os.getppid() == parent
    if direct and sys.platform.startswith("linux"):
        with contextlib.suppress(Exception):  # the thread below still watches
            import ctypes

            ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # 1: PR_SET_PDEATHSIG
    sentinel = multiprocessing.parent_process()

    def gone() -> bool:
        if direct:
            return sys.platform != "win32" and os.getppid() != parent
        if sentinel is not None:
            return False  # its join below says when it ends
        try:
            os.kill(parent, 0)
        except ProcessLookupError:
            return True
        except OSError:
            return False
        return False

    def watch() -> None:
        while (sentinel is None or sentinel.is_alive()) and not gone():
            if sentinel is None:
                time.sleep(WATCH_SECONDS)
            else:
                sentinel.join(WATCH_SECONDS)
        os._exit(1)

    threading.Thread(target=watch, name="mcts-agents-parent-watch", daemon=True).start()


#: What ``check_picklable`` suggests when its caller has nothing better to say.
PICKLE_HINT = "use module-level functions and classes (not lambdas or local ones)"


def check_picklable(obj: Any, what: str, hint: str = PICKLE_HINT) -> None:
    """``UnpicklableError`` naming ``what`` (and saying ``hint``) unless ``obj`` pickles: what
    a worker process is sent must, and this says so before any worker starts, in the
    caller's terms, rather than as a pickling error from deep inside a pool."""
    try:
        pickle.dumps(obj)
    except Exception as error:  # PicklingError, TypeError, AttributeError, RecursionError...
        raise UnpicklableError(
            f"{what} cannot be pickled to be sent to worker processes ({error}); {hint}"
        ) from None
