"""An ``OpponentPool``'s games in a results file of the arena's format (``out=``), resumable.

The file is a JSON-lines results file of kind ``"pool"`` (``arena.pool_records`` says what each
line holds and how it is checked): a header naming the game, the pool's entries, rule and seed,
then one line per finished game (the entry, the learner's seat and score, every seat's return,
the moves where the env's path keeps them). It is opened through the arena's own
``arena.records.open_results``: locked for the run, each line appended and flushed to disk as
the game ends, a truncated last line dropped, a damaged or forged line refused naming the file
and the line (read with ``checks.load_json``: bounded depth, finite numbers). Opening a file
of the same run (same header) resumes it: its games are counted again into the pool in the order
played, so the pool's results, its PFSP weights and its curriculum level are those it had.
"""

from __future__ import annotations

import os
from typing import Any

from mcts_agents.arena.records import ResultsFile, open_results
from mcts_agents.arena.tasks import Record

__all__ = ["PoolRecord", "pool_header"]


def pool_header(pool: Any, env: str, start: int | None = None) -> Record:
    """The header of ``pool``'s file for a run on ``env`` (the game's spec)."""
    curriculum = pool.rule == "curriculum"
    weights = None if curriculum or all(w == 1.0 for w in pool._weights) else pool._weights
    return {
        "type": "header",
        "kind": "pool",
        "version": 1,
        "env": env,
        "agents": list(pool.names),
        "specs": [e if isinstance(e, str) else None for e in pool.entries],
        "rule": pool.rule,
        "seed": pool.seed,
        "weights": None if weights is None else list(weights),
        "band": list(pool.band) if curriculum else None,
        "window": pool.window if curriculum else None,
        "start": start if curriculum else None,
        "others": pool.others if curriculum else None,
    }


class PoolRecord:
    """A pool's open results file: ``games`` (the recorded lines, in the order played) and
    ``write`` for each game that ends.

    Raises:
        ResultsFileError: not a results file, another run's, a damaged or forged line (naming
            the file and the line); ResultsFileBusyError: another run holds it.
    """

    def __init__(self, out: str | os.PathLike[str], header: Record) -> None:
        self.name = os.fspath(out)
        self._file: ResultsFile | None = open_results(out, header)
        found = self._file.records
        self.games: list[Record] = [found[i] for i in sorted(found)]
        self._next = max(found) + 1 if found else 0

    def write(
        self,
        entry: str,
        score: float,
        seat: str | None = None,
        seats: list[str] | None = None,
        returns: list[float] | None = None,
        moves: list[int] | None = None,
    ) -> None:
        """Append one finished game's line (flushed to disk)."""
        if self._file is None:
            return
        self._file.append(
            {
                "type": "game",
                "index": self._next,
                "entry": entry,
                "score": float(score),
                "seat": seat,
                "seats": seats,
                "returns": returns,
                "moves": moves,
            }
        )
        self._next += 1

    def close(self) -> None:
        """Release the file (its lock)."""
        if self._file is not None:
            self._file.close()
            self._file = None
