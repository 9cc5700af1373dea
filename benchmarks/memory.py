"""Memory per node and time per iteration as our node table grows to 10^6 nodes.

Run from the repository root::

    python -m benchmarks.memory [--game connect_four] [--env KEY=VALUE ...]
        [--checkpoints 1e4,1e5,3e5,1e6] [--seed 0] [--tracemalloc N] [--json PATH] [key=value ...]

One ``MCTS`` (our current defaults, or ``key=value`` ``SearchConfig`` options) searches the
initial position again and again, ``iterations`` at a time, with tree reuse: the node table
keeps growing, as it does over a long game. Each interval between checkpoints is run in 5
chunks, sized from the nodes added per iteration so far, until the table holds at least the
checkpoint's number of nodes.

Per interval: microseconds per iteration (and, from the compiled kernel, the mean number of
tree levels a simulation walks through). Each ``search`` call also re-roots the table and
prunes what cannot occur any more (O(nodes)), so a 1-iteration search is timed after every
chunk and its time (the "re-root" column: what tree reuse costs per move at that size) is taken
off the chunk's time. At each checkpoint, outside the timed chunks, after ``gc.collect()``:

- RSS: the resident set size (``/proc/self/statm``) above what it was before the search,
  divided by the nodes: bytes per node as the OS sees it (freed memory that the allocator
  keeps counts too, so it is an upper bound);
- accounted: a walk over the table adding up ``sys.getsizeof`` of the table's dict and of
  every object a node holds (the node, its lists, its state tuple and the ints in it, the floats
  in its statistics), each object once (shared ones, like a bitboard that a parent and a child
  have in common, are counted once), divided by the nodes. When a compiled kernel searches
  (the default with numba for Connect Four, Othello, m,n,k and ultimate tic-tac-toe): the
  bytes of its arrays as allocated (they double when full, so up to half can be spare room),
  and "used": the rows holding the stored nodes and their edges, plus the hash table.

``--tracemalloc N`` adds a cross-check of the accounting with ``tracemalloc`` (total traced
bytes / nodes) on a second table of about ``N`` nodes built the same way. It is off by default
and only for small ``N``: tracing slows our search about 80 times, because every bitboard
operation on Connect Four's 49-bit ints allocates a new Python int.
"""

from __future__ import annotations

import argparse
import gc
import math
import os
import sys
import tracemalloc
from collections.abc import Callable, Sequence
from pathlib import Path
from time import perf_counter
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # `python benchmarks/memory.py`

from benchmarks._common import (
    fmt,
    load_average,
    machine_info,
    print_machine,
    print_table,
    write_json,
)
from benchmarks.matches import parse_option
from mcts_agents import Budget, SearchConfig, envs, make_searcher
from mcts_agents.compiled.searcher import CompiledSearch
from mcts_agents.search import MCTS, Searcher

CHUNKS_PER_INTERVAL = 5
PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def rss_bytes() -> int:
    """Resident set size of this process (0 where ``/proc`` is missing)."""
    try:
        return int(Path("/proc/self/statm").read_text().split()[1]) * PAGE
    except OSError:
        return 0


def accounted_bytes(search: MCTS) -> int:
    """``sys.getsizeof`` of the table's dict and of everything its nodes hold, each object once.

    Nodes are found through the table only (a node's ``children`` list is counted, the children
    themselves as table entries). Slots are read generically, so the walk follows ``Node``'s
    fields as they are.
    """
    table = search.table.nodes
    seen: set[int] = set()
    node_type = None

    def size(obj: Any) -> int:
        if id(obj) in seen or obj is None or type(obj) is node_type:
            return 0
        seen.add(id(obj))
        total = sys.getsizeof(obj)
        if isinstance(obj, (list, tuple)):
            total += sum(size(x) for x in obj)
        elif isinstance(obj, dict):
            total += sum(size(k) + size(v) for k, v in obj.items())
        return total

    total = sys.getsizeof(table)
    for key, node in table.items():
        if node_type is None:
            node_type = type(node)
        seen.add(id(node))
        total += sys.getsizeof(node) + size(key)
        for slot in node_type.__slots__:
            total += size(getattr(node, slot, None))
    return total


def grow(
    game: Any,
    config: SearchConfig,
    seed: int,
    checkpoints: Sequence[int],
    on_checkpoint: Callable[[Searcher, int], dict[str, Any]],
    log: Callable[[str], None],
) -> list[dict[str, Any]]:
    """Grow one table through ``checkpoints`` (node counts); one row per interval."""
    state = game.initial_state()
    search = make_searcher(game, Budget(iterations=1), config, seed)
    rows: list[dict[str, Any]] = []
    nodes, iterations_total, proven = 0, 0, False
    for target in checkpoints:
        start_nodes = nodes
        loop_s = reroot_s = 0.0
        iterations = chunks = 0
        depth_sum: float | None = 0.0
        rate = 1.0  # nodes added per iteration, re-estimated after every chunk
        while nodes < target and not proven:
            step = max(1, (target - start_nodes) // CHUNKS_PER_INTERVAL)
            n = max(100, math.ceil(min(step, target - nodes) / max(rate, 0.05)))
            search.budget = Budget(iterations=n)
            before = nodes
            result = search.search(game, state)
            search.budget = Budget(iterations=1)
            quick = search.search(game, state)  # re-root + prune + 1 iteration
            nodes = quick.nodes
            iterations += result.iterations
            depth = result.mean_depth  # reported by the compiled kernel
            depth_sum = None if depth is None or depth_sum is None else depth_sum + depth * n
            chunks += 1
            reroot_s += quick.elapsed
            loop_s += max(0.0, result.elapsed - quick.elapsed)
            rate = max(nodes - before, 1) / n
            if result.iterations < n or quick.proven is not None:
                proven = True
                log(f"root proven after {iterations_total + iterations} iterations")
        iterations_total += iterations
        row = {
            "nodes": nodes,
            "interval": [start_nodes, nodes],
            "iterations": iterations,
            "total_iterations": iterations_total,
            "us_per_iteration": 1e6 * loop_s / iterations if iterations else None,
            "reroot_ms": 1e3 * reroot_s / chunks if chunks else None,
            "mean_depth": depth_sum / iterations if depth_sum is not None and iterations else None,
        }
        gc.collect()
        row.update(on_checkpoint(search, nodes))
        rows.append(row)
        log(f"{nodes:,} nodes: {row}")
        if proven:
            break
    return rows


def main(argv: list[str] | None = None) -> dict[str, Any]:
    """Grow the table, print the table of checkpoints, optionally save JSON; return the rows."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="connect_four", help="one of our envs' modules")
    parser.add_argument(
        "--env", action="append", default=[], metavar="KEY=VALUE",
        help="an option of the env (e.g. --env preset=gomoku, --env size=16); repeatable",
    )  # fmt: skip
    parser.add_argument("--checkpoints", default="1e4,1e5,3e5,1e6", help="node counts")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--tracemalloc", type=float, default=0, metavar="N", help="cross-check at ~N nodes"
    )
    parser.add_argument("--json", metavar="PATH", help="save the results as JSON")
    parser.add_argument("options", nargs="*", help="our SearchConfig options as key=value")
    args = parser.parse_args(argv)
    checkpoints = [int(float(x)) for x in args.checkpoints.split(",")]
    options = dict(parse_option(o) for o in args.options)
    config = SearchConfig.from_options(options)
    env_options = dict(parse_option(o) for o in args.env)
    game = envs.load(f"{args.game}_v0").raw_env(**env_options).game
    info = machine_info()
    print_machine(info)

    def log(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    # warm-up: imports, caches, the allocator's first arenas
    warm = make_searcher(game, Budget(iterations=2000), config, args.seed + 1)
    warm.search(game, game.initial_state())
    gc.collect()
    rss0 = rss_bytes()

    def measure(search: Searcher, nodes: int) -> dict[str, Any]:
        rss = rss_bytes()
        started = perf_counter()
        row = {
            "rss_mb": rss / 2**20,
            "rss_bytes_per_node": (rss - rss0) / max(nodes, 1),
        }
        if isinstance(search, CompiledSearch):  # arrays: exact sizes
            row["accounted_bytes_per_node"] = search.nbytes / max(nodes, 1)
            row["used_bytes_per_node"] = search.used_bytes / max(nodes, 1)
        elif isinstance(search, MCTS):
            row["accounted_bytes_per_node"] = accounted_bytes(search) / max(nodes, 1)
        row["accounting_s"] = perf_counter() - started
        return row

    start = perf_counter()
    rows = grow(game, config, args.seed, checkpoints, measure, log)
    cross_check = None
    if args.tracemalloc:
        del measure
        gc.collect()
        tracemalloc.start()

        def traced(search: Searcher, nodes: int) -> dict[str, Any]:
            current = tracemalloc.get_traced_memory()[0]
            # the Python table walked, or the compiled kernel's arrays
            is_python = isinstance(search, MCTS)
            accounted = accounted_bytes(search) if is_python else search.nbytes  # type: ignore[attr-defined]
            return {
                "traced_bytes_per_node": current / max(nodes, 1),
                "accounted_bytes_per_node": accounted / max(nodes, 1),
            }

        cross_check = grow(game, config, args.seed, [int(args.tracemalloc)], traced, log)[0]
        tracemalloc.stop()

    print(
        f"\n## Node table growth: {args.game}{env_options or ''}, MCTS({options or 'defaults'}), "
        f"searching the initial position with tree reuse\n"
    )
    print_table(
        [
            "nodes",
            "interval",
            "iterations",
            "µs/iteration",
            "mean depth",
            "re-root ms",
            "RSS MB",
            "RSS B/node",
            "accounted B/node",
            "used B/node",
        ],
        [
            [
                fmt(r["nodes"]),
                f"{fmt(r['interval'][0])}-{fmt(r['interval'][1])}",
                fmt(r["iterations"]),
                fmt(r["us_per_iteration"], 1),
                fmt(r["mean_depth"], 1),
                fmt(r["reroot_ms"], 1),
                fmt(r["rss_mb"]),
                fmt(r["rss_bytes_per_node"]),
                fmt(r["accounted_bytes_per_node"]),
                fmt(r.get("used_bytes_per_node")),
            ]
            for r in rows
        ],
        left=2,
    )
    if cross_check is not None:
        print(
            f"\n# tracemalloc cross-check at {cross_check['nodes']:,} nodes: "
            f"traced {cross_check['traced_bytes_per_node']:,.0f} B/node (everything the search "
            f"allocated and still holds), accounted {cross_check['accounted_bytes_per_node']:,.0f}"
        )
    total = perf_counter() - start
    print(f"\n# total {total:.0f} s; load average at end: {load_average()}")
    data = {
        "benchmark": "memory",
        "machine": info,
        "game": args.game,
        "options": {k: repr(v) for k, v in options.items()},
        "seed": args.seed,
        "rows": rows,
        "tracemalloc_cross_check": cross_check,
        "total_s": total,
        "loadavg_at_end": load_average(),
    }
    if args.json:
        write_json(args.json, data)
    return data


if __name__ == "__main__":
    main()
