"""Running an arena's games: skip those already recorded, play the rest, record each at once."""

from __future__ import annotations

import json
import logging
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from mcts_agents.arena.backends import BACKENDS, game_records
from mcts_agents.arena.games import GameTask, Record
from mcts_agents.arena.records import open_results

__all__ = ["Progress", "run_tasks"]

logger = logging.getLogger(__name__)


class Progress:
    """A tqdm bar on stderr when tqdm is installed, else a log line per game."""

    def __init__(self, enabled: bool, total: int, initial: int, label: str) -> None:
        self.bar: Any = None
        self.enabled = enabled
        self.total, self.count, self.label = total, initial, label
        if not enabled:
            return
        try:
            from tqdm.auto import tqdm
        except ImportError:
            logger.info("%s: %d/%d games", label, initial, total)
            return
        self.bar = tqdm(total=total, initial=initial, desc=label, unit="game", file=sys.stderr)

    def update(self) -> None:
        self.count += 1
        if self.bar is not None:
            self.bar.update(1)
        elif self.enabled:
            logger.info("%s: %d/%d games", self.label, self.count, self.total)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def run_tasks(
    tasks: Sequence[GameTask],
    header: Record,
    *,
    workers: int,
    out: str | os.PathLike[str] | None,
    progress: bool,
    backend: str,
    address: str | None,
) -> list[Record]:
    """Play the tasks not yet recorded in ``out``; return every task's record, by index."""
    if backend not in BACKENDS:
        raise ValueError(f"unknown backend {backend!r}; expected one of {list(BACKENDS)}")
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ValueError(f"workers must be an int >= 1, got {workers!r}")
    path = Path(out) if out is not None else None
    done = open_results(path, header) if path is not None else {}
    for task in tasks:
        old = done.get(task.index)
        if old is not None and (
            old.get("seed") != task.seed or old.get("seats") != _seat_names(task)
        ):
            raise ValueError(
                f"{path}: game {task.index} was played with other seats or seed; "
                "use another file to start afresh"
            )
    pending = [task for task in tasks if task.index not in done]
    bar = Progress(progress, len(tasks), len(tasks) - len(pending), str(header["env"]))
    handle = path.open("a", encoding="utf-8") if path is not None else None
    try:
        for record in game_records(pending, workers, backend, address):
            if handle is not None:
                handle.write(json.dumps(record) + "\n")
                handle.flush()
                os.fsync(handle.fileno())
            done[record["index"]] = record
            bar.update()
    finally:
        bar.close()
        if handle is not None:
            handle.close()
    return [done[task.index] for task in tasks]


def _seat_names(task: GameTask) -> list[str]:
    return [entrant.name for entrant in task.seats]
