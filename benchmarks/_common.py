"""Shared helpers of the benchmarks: medians, the machine description, tables, JSON output."""

from __future__ import annotations

import json
import os
import platform
import statistics
import time
from collections.abc import Callable, Sequence
from importlib import metadata
from pathlib import Path
from typing import Any

PACKAGES = ("pettingzoo", "open_spiel", "numpy", "gymnasium", "mcts-agents")


def cpu_model() -> str:
    """The CPU model name from ``/proc/cpuinfo`` (or ``platform.processor()`` elsewhere)."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def machine_info() -> dict[str, Any]:
    """What ran the benchmark: CPU, core count, Python and package versions, load, time."""
    versions: dict[str, str | None] = {}
    for name in PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    return {
        "cpu": cpu_model(),
        "nproc": os.cpu_count(),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "packages": versions,
        "loadavg_at_start": load_average(),
        "timestamp": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
    }


def print_machine(info: dict[str, Any]) -> None:
    """One line about the machine, so that a pasted table says where it came from."""
    packages = ", ".join(f"{k} {v}" for k, v in info["packages"].items())
    print(f"# {info['cpu']} ({info['nproc']} CPUs), Python {info['python']}; {packages}")
    if info["loadavg_at_start"] is not None:
        load = ", ".join(f"{x:.2f}" for x in info["loadavg_at_start"])
        print(f"# load average at start: {load}")


def load_average() -> list[float] | None:
    """The 1, 5 and 15 minute load averages (``None`` where the OS has none)."""
    return [round(x, 2) for x in os.getloadavg()] if hasattr(os, "getloadavg") else None


def median(values: Sequence[float]) -> float:
    """The median of a non-empty sequence."""
    return float(statistics.median(values))


def spread(values: Sequence[float]) -> float:
    """(max - min) / median: how much the repeats disagree (0.05 = 5%)."""
    mid = median(values)
    return (max(values) - min(values)) / mid if mid else 0.0


def calibrate(run: Callable[[int], float], target_s: float, start: int = 1) -> int:
    """The count ``n`` for which ``run(n)`` (which returns its own seconds) takes ~``target_s``."""
    n = start
    while True:
        seconds = run(n)
        if seconds >= target_s / 4 or n >= 1 << 30:
            return max(1, int(n * target_s / max(seconds, 1e-9)))
        n *= 4


def fmt(value: float | None, digits: int = 0) -> str:
    """A number with thousands separators (``-`` for a missing value)."""
    if value is None:
        return "-"
    return f"{value:,.{digits}f}"


def print_table(headers: Sequence[str], rows: Sequence[Sequence[str]], left: int = 1) -> None:
    """A Markdown table, padded; the first ``left`` columns left-aligned, the rest right."""
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(headers)]

    def line(cells: Sequence[str]) -> str:
        pairs = enumerate(zip(cells, widths, strict=True))
        padded = [c.ljust(w) if i < left else c.rjust(w) for i, (c, w) in pairs]
        return "| " + " | ".join(padded) + " |"

    print(line(headers))
    rule = ["-" * (w + 2) if i < left else "-" * (w + 1) + ":" for i, w in enumerate(widths)]
    print("|" + "|".join(rule) + "|")
    for row in rows:
        print(line(row))


def run_with_torch(args: Any, body: Callable[[Any], dict[str, Any]]) -> dict[str, Any]:
    """``body(args)`` with torch on ``args.threads`` threads: the machine printed first and kept
    with the results, which are saved at ``args.json`` when it is given."""
    import torch

    torch.set_num_threads(args.threads)
    info = machine_info()
    print_machine(info)
    data = body(args)
    data["machine"] = info
    if args.json:
        write_json(args.json, data)
    return data


def write_json(path: str, data: dict[str, Any]) -> None:
    """Save ``data`` as indented JSON at ``path`` (parent folders are created)."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(data, indent=2) + "\n")
    print(f"# results saved to {target}")
