"""The arena's results file: JSON lines, a header then one record per finished game.

Every finished game is appended and flushed to disk at once, so an interrupted run loses no
finished game; opening the same file again resumes (checking that its header is this run's).
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Sequence
from pathlib import Path

from mcts_agents.arena.games import Record

__all__ = ["open_results", "read_records", "write_lines"]

logger = logging.getLogger(__name__)


def read_records(path: Path, header: Record) -> tuple[dict[int, Record], bool]:
    """Games already in ``path`` (by index) and whether the file needs rewriting."""
    data = path.read_bytes()
    lines = data.split(b"\n")
    dirty = False
    if lines and lines[-1] == b"":
        lines.pop()
    elif lines:  # no newline at the end: a write was cut off
        dirty = True
    parsed: list[Record] = []
    for number, line in enumerate(lines, 1):
        try:
            parsed.append(json.loads(line))
        except ValueError:
            if number == len(lines):  # a truncated last line is dropped
                logger.warning("%s: dropping a truncated last line", path)
                dirty = True
                break
            raise ValueError(
                f"{path}: line {number} is not valid JSON; not a results file?"
            ) from None
    if not parsed:
        return {}, True
    found = parsed[0]
    if found.get("type") != "header":
        raise ValueError(f"{path}: the first line is not a results header")
    keys = [k for k in header if k not in ("type", "version", "games")]
    different = [k for k in keys if found.get(k) != header[k]]
    if different:
        detail = "; ".join(f"{k}: file {found.get(k)!r}, now {header[k]!r}" for k in different)
        raise ValueError(
            f"{path} holds games of another run ({detail}); use another file to start afresh"
        )
    records: dict[int, Record] = {}
    for record in parsed[1:]:
        if record.get("type") != "game" or not isinstance(record.get("index"), int):
            raise ValueError(f"{path}: unexpected line {record!r}")
        if record["index"] in records:
            dirty = True
            continue
        records[record["index"]] = record
    return records, dirty


def write_lines(path: Path, lines: Sequence[Record]) -> None:
    temporary = path.with_name(path.name + ".tmp")
    with temporary.open("w", encoding="utf-8") as handle:
        for line in lines:
            handle.write(json.dumps(line) + "\n")
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(temporary, path)


def open_results(path: Path, header: Record) -> dict[int, Record]:
    """Resume from ``path`` (checking its header), or start it with ``header``."""
    if path.exists() and path.stat().st_size > 0:
        records, dirty = read_records(path, header)
        if dirty:
            old = records or {}
            write_lines(path, [header, *(old[i] for i in sorted(old))])
        return records
    path.parent.mkdir(parents=True, exist_ok=True)
    write_lines(path, [header])
    return {}
