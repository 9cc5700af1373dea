"""Running an arena's games: skip those already recorded, play the rest, record each at once."""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any

from mcts_agents.arena.executors import BACKENDS, game_records
from mcts_agents.arena.lockstep import Builders
from mcts_agents.arena.records import open_results
from mcts_agents.arena.replay_check import replay_record
from mcts_agents.arena.tasks import GameTask, Record
from mcts_agents.errors import InvalidOptionError, ResultsFileError, WorkerError
from mcts_agents.processes import MAX_WORKERS, check_workers

__all__ = ["MAX_GAMES", "MAX_WORKERS", "Progress", "check_options", "run_tasks"]

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


#: The most games one run may have (a match's ``games``, a tournament's games in all): checked
#: before any task is made, so that a typo such as ``games=10**12`` fails at once.
MAX_GAMES = 10_000_000


def check_options(backend: str, workers: int) -> None:
    """Refuse an unknown backend or a worker count outside ``1 .. MAX_WORKERS``."""
    if backend not in BACKENDS:
        raise InvalidOptionError(f"unknown backend {backend!r}; expected one of {list(BACKENDS)}")
    check_workers(workers)


def run_tasks(
    tasks: Sequence[GameTask],
    header: Record,
    *,
    workers: int,
    out: str | os.PathLike[str] | None,
    progress: bool,
    backend: str,
    address: str | None,
    on_record: Callable[[Record], None] | None = None,
    lockstep: Builders | None = None,
) -> list[Record]:
    """Play the tasks not yet recorded in ``out``; return every task's record, by index.

    ``out`` stays locked for the whole run (see ``records``). A worker process that dies raises
    ``WorkerError`` naming the game and where the finished games are. ``on_record`` is called
    with each game's record as it finishes (not with those already in ``out``). With
    ``lockstep`` (its agent builders) the games are played together in this process
    (``arena.lockstep``; the same records).
    """
    check_options(backend, workers)
    results = open_results(out, header) if out is not None else None
    try:
        done = dict(results.records) if results is not None else {}
        for task in tasks:
            old = done.get(task.index)
            if old is None:
                continue
            if old["seed"] != task.seed or old["seats"] != _seat_names(task):
                raise ResultsFileError(
                    f"{out}: game {task.index} was played with other seats or seed; "
                    "use another file to start afresh"
                )
            lines = results.lines if results is not None else {}
            _replay(task, old, f"{out}, line {lines.get(task.index, '?')}")
        pending = [task for task in tasks if task.index not in done]
        bar = Progress(progress, len(tasks), len(tasks) - len(pending), str(header["env"]))
        try:
            for record in game_records(pending, workers, backend, address, lockstep):
                if results is not None:
                    results.append(record)
                done[record["index"]] = record
                bar.update()
                if on_record is not None:
                    on_record(record)
        except WorkerError as error:
            raise WorkerError(f"{error}; {_saved(out, len(done))}") from error
        finally:
            bar.close()
    finally:
        if results is not None:
            results.close()
    return [done[task.index] for task in tasks]


def _saved(out: str | os.PathLike[str] | None, count: int) -> str:
    if out is None:
        return "the finished games were not saved (no out= file)"
    if not count:
        return f"no game had finished ({out} holds none)"
    games = "game is" if count == 1 else "games are"
    return f"the {count} finished {games} saved in {out} (run again to play the rest)"


def _replay(task: GameTask, record: Record, where: str) -> None:
    """Play a recorded game's moves again: its outcome must be what they give (a line's
    returns are not taken on trust: ``replay_check``)."""
    env = task.env_fn()
    try:
        replay_record(env, record, where)
    finally:
        close = getattr(env, "close", None)
        if callable(close):
            close()


def _seat_names(task: GameTask) -> list[str]:
    return [entrant.name for entrant in task.seats]
