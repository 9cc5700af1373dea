"""numba's threads: how many a caller's parallel kernels use, and how idle ones wait.

numba imports lazily here: a process that has not loaded numba has run no kernel, and nothing
in this module loads it for a caller that does not search with one.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

from mcts_agents.checks import check_int

T = TypeVar("T")

__all__ = ["CHUNK_SIZE", "WAIT_POLICY", "chunked", "limit_threads", "start_threads"]

#: OpenMP's threads sleep when idle unless the caller chose otherwise (``OMP_WAIT_POLICY`` in
#: the environment): threads that spin after each parallel loop take the cores the
#: interpreter's part of a step, and other programs, need (found here: Connect Four N=64 on 2
#: cores ran 2-3x slower with spinning threads).
WAIT_POLICY = "PASSIVE"

#: The parallel kernels over trees hand their trees out to numba's threads this many at a time,
#: as each thread finishes its last (numba's ``set_parallel_chunksize``); 0 is numba's default,
#: one static block of trees per thread. Trees differ in cost (proven roots search nothing), so a
#: static split leaves threads idle while the busiest finishes: Connect Four, 256 trees of
#: MCTS-100 on a 16-core Xeon (run 45), the kernel ran 11.7x its one-core speed handed out one at
#: a time against 9.6x split statically; on 2 cores the two are equal. Read at each call (a
#: benchmark may set it); the caller's own chunk size is restored after.
CHUNK_SIZE = 1


def start_threads() -> None:
    """Start numba's threading layer (as its first parallel call would), OpenMP's wait policy
    set first where the environment names none and the layer has not started yet (OpenMP
    reads it once, as it loads; set later, it would only mislead child processes)."""
    import numba
    from numba.np.ufunc import parallel

    if not getattr(parallel, "_is_initialized", True):  # (numba's private flag)
        os.environ.setdefault("OMP_WAIT_POLICY", WAIT_POLICY)
    numba.get_num_threads()  # starts the threading layer


def chunked(function: Callable[..., T], *args: Any) -> T:
    """``function(*args)``, a parallel kernel over trees, with numba's parallel chunk size
    ``CHUNK_SIZE`` (numba keeps it per calling thread; the caller's again after)."""
    import numba

    before = numba.set_parallel_chunksize(CHUNK_SIZE)
    try:
        return function(*args)
    finally:
        numba.set_parallel_chunksize(before)


@contextmanager
def limit_threads(threads: int | None) -> Iterator[None]:
    """numba's thread count for the parallel kernels this thread calls: ``threads`` (at most
    ``NUMBA_NUM_THREADS``) inside the block, the caller's again after it (numba keeps the
    count per calling thread). ``None``, or numba not loaded: nothing changes.

    Raises:
        InvalidOptionError: ``threads`` below 1; OptionTypeError: not an int.
    """
    check_int(threads, "threads", low=1, optional=True)
    if threads is None or "numba" not in sys.modules:
        yield
        return
    import numba

    start_threads()
    before = numba.get_num_threads()
    most = numba.config.NUMBA_NUM_THREADS  # type: ignore[attr-defined]
    numba.set_num_threads(min(threads, most))
    try:
        yield
    finally:
        numba.set_num_threads(before)
