"""The arena's results file: JSON lines, a header then one record per finished game.

A run holds a lock on its file from opening to the end (``fcntl.flock``; ``msvcrt.locking`` on
Windows), so a second run on the same file is refused at once instead of playing every game
again beside the first. Every finished game is appended and flushed to disk at once, so an
interrupted run loses no finished game; opening the file again resumes, checking that the file
is this run's (``checks``). A file is only ever replaced whole, by an exclusive temporary file
in its folder (``tempfile.mkstemp``, which never follows a planted link) renamed over it
atomically with the file's mode kept: to drop a truncated last line (a run killed mid-write),
or to raise the header's game count when a run is extended. A file that is not a results file
of ours is never written, and a read-only one is only read.
"""

from __future__ import annotations

import contextlib
import errno
import json
import logging
import os
import stat
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from mcts_agents.arena.record_checks import (
    check_header,
    check_record,
    count_key,
    different_run,
    header_total,
)
from mcts_agents.arena.tasks import Record
from mcts_agents.checks import load_json
from mcts_agents.errors import ResultsFileBusyError, ResultsFileError

__all__ = ["ResultsFile", "open_results"]

logger = logging.getLogger(__name__)

_ATTEMPTS = 20  # tries to lock a file that another run keeps replacing
_FIRST_READ = 1 << 20  # a first line longer than this is no header of ours
_BUSY_ERRNOS = {errno.EAGAIN, errno.EWOULDBLOCK, errno.EACCES, getattr(errno, "EDEADLOCK", -1)}


class ResultsFile:
    """A results file open for one run: locked, its valid games read, appended to as games
    finish. ``close`` releases the lock."""

    def __init__(
        self,
        name: str,
        fd: int,
        records: dict[int, Record],
        writable: bool,
        lines: dict[int, int] | None = None,
    ) -> None:
        self.name = name
        self.records = records
        self.writable = writable
        #: each recorded game's line number in the file (by game index), for messages
        self.lines = lines if lines is not None else {}
        self._fd: int | None = fd

    def append(self, record: Record) -> None:
        """Append a finished game's line and flush it to disk."""
        if self._fd is None or not self.writable:
            raise ResultsFileError(f"{self.name} is not open for writing")
        os.lseek(self._fd, 0, os.SEEK_END)
        _write(self._fd, (json.dumps(record) + "\n").encode())
        os.fsync(self._fd)

    def close(self) -> None:
        """Close the file, releasing its lock."""
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


def open_results(out: str | os.PathLike[str], header: Record) -> ResultsFile:
    """Open ``out`` for the run described by ``header``, locked.

    A new or empty file is started with ``header``. A results file of this run is resumed: its
    games are read (each line checked), a truncated last line is dropped, and the header's game
    count is raised when this run asks for more games. Anything else is refused with a
    ``ResultsFileError`` naming the file and why: not a results file, a damaged line, another
    run's games, a read-only file that would have to change; ``ResultsFileBusyError`` when
    another run holds the file.
    """
    name = os.fspath(out)
    path = Path(os.path.realpath(name))  # a link the caller made is followed to its file
    if os.path.islink(name) and not path.exists():
        raise ResultsFileError(
            f"{name} is a link to {path}, which does not exist; out= should name a file"
        )
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise ResultsFileError(f"cannot make the folder of {name}: {error}") from None
    for _ in range(_ATTEMPTS):
        fd, writable, created = _open(path, name)
        if fd is None:
            continue  # removed while we looked: try again
        try:
            _lock(fd, name, exclusive=writable)
            current = _is_current(fd, path)
            data = b"" if created or not current else _read(fd)
        except BaseException:
            os.close(fd)
            raise
        if not current:  # replaced by another run between our open and our lock
            os.close(fd)
            continue
        return _resume(fd, writable, data, name, path, header)
    raise ResultsFileBusyError(
        f"another run keeps replacing {name}; wait for it to finish or use another file"
    )


def _open(path: Path, name: str) -> tuple[int | None, bool, bool]:
    """``(descriptor, writable, created)``: a new file made exclusively, or the existing one
    (read-only when it has no write permission); ``None`` when it vanished meanwhile."""
    binary = getattr(os, "O_BINARY", 0)
    try:
        return os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL | binary, 0o666), True, True
    except FileExistsError:
        pass
    except OSError as error:
        raise ResultsFileError(f"cannot create the results file {name}: {error}") from None
    flags = binary | getattr(os, "O_NOFOLLOW", 0)
    try:
        info = os.stat(path)
        if not stat.S_ISREG(info.st_mode):
            raise ResultsFileError(f"{name} is not a regular file; out= should name a file")
        # Write permission for nobody means read-only, even to root (who may write anyway).
        if info.st_mode & 0o222 and os.access(path, os.W_OK):
            with contextlib.suppress(PermissionError):
                return os.open(path, os.O_RDWR | flags), True, False
        return os.open(path, os.O_RDONLY | flags), False, False
    except FileNotFoundError:
        return None, False, False
    except OSError as error:
        if error.errno == errno.EROFS:  # a read-only file system
            return os.open(path, os.O_RDONLY | flags), False, False
        raise ResultsFileError(f"cannot open the results file {name}: {error}") from None


def _lock(fd: int, name: str, exclusive: bool) -> None:
    """Lock the file without waiting: exclusive to write it, shared to read it."""
    try:
        if sys.platform == "win32":
            import msvcrt

            os.lseek(fd, 0, os.SEEK_SET)
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)  # the first byte stands for the file
        else:
            import fcntl

            fcntl.flock(fd, (fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH) | fcntl.LOCK_NB)
    except OSError as error:
        if error.errno not in _BUSY_ERRNOS:  # a file system without locks: go on, unguarded
            logger.warning("%s cannot be locked (%s): no other run may write it", name, error)
            return
        raise ResultsFileBusyError(
            f"another run is writing {name} (it holds the file's lock); wait for it to finish "
            "or use another file"
        ) from None


def _is_current(fd: int, path: Path) -> bool:
    """Whether ``fd`` is still the file at ``path`` (not replaced since it was opened)."""
    try:
        now = os.stat(path)
    except FileNotFoundError:
        return False
    mine = os.fstat(fd)
    return (now.st_dev, now.st_ino) == (mine.st_dev, mine.st_ino)


def _read(fd: int) -> bytes:
    os.lseek(fd, 0, os.SEEK_SET)
    chunks = [os.read(fd, _FIRST_READ)]
    if len(chunks[0]) == _FIRST_READ and b"\n" not in chunks[0]:
        return chunks[0]  # no header is that long: enough to refuse it
    while chunks[-1]:
        chunks.append(os.read(fd, 1 << 20))
    return b"".join(chunks)


def _write(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _resume(
    fd: int, writable: bool, data: bytes, name: str, path: Path, header: Record
) -> ResultsFile:
    """The run's file from its descriptor (which this owns: closed on failure)."""
    try:
        if not data:
            if not writable:
                raise ResultsFileError(f"{name} is empty and read-only: no game can be recorded")
            _write(fd, (json.dumps(header) + "\n").encode())
            os.fsync(fd)
            return ResultsFile(name, fd, {}, True)
        found, records, repair, numbers = _parse(data, name, header)
        if found["kind"] == "pool":  # no game count: the run grows as long as training goes on
            if repair and writable:
                lines = [found, *(records[i] for i in sorted(records))]
                owned, fd = fd, -1
                fd = _replace(owned, path, name, lines)
                numbers = {index: number for number, index in enumerate(sorted(records), 2)}
            return ResultsFile(name, fd, records, writable, numbers)
        wanted = header_total(header)
        have = sum(1 for index in records if index < wanted)
        key = count_key(header)
        count = max(found[key], header[key])
        if key == "games" and records:  # version 1 left the count behind when extended
            count = max(count, max(records) + 1)
        if not writable:
            if have < wanted:
                raise ResultsFileError(
                    f"{name} is read-only: it holds {have} of the {wanted} games asked for and "
                    f"cannot be extended{' or repaired' if repair else ''}; make it writable or "
                    "use another file"
                )
            return ResultsFile(name, fd, records, False, numbers)
        if repair or count != found[key]:
            lines = [{**found, key: count}, *(records[i] for i in sorted(records))]
            owned, fd = fd, -1
            fd = _replace(owned, path, name, lines)
            numbers = {index: number for number, index in enumerate(sorted(records), 2)}
        return ResultsFile(name, fd, records, True, numbers)
    except BaseException:
        if fd >= 0:
            os.close(fd)
        raise


def _parse(
    data: bytes, name: str, header: Record
) -> tuple[Record, dict[int, Record], bool, dict[int, int]]:
    """The file's header, its games by index, whether it needs repair (a truncated last line
    or a game recorded twice), and each game's line number."""
    lines = data.split(b"\n")
    unfinished = lines.pop()  # b"" when the file ends with a newline
    try:
        first = _loads(lines[0] if lines else unfinished, name, 1)
    except ValueError as error:
        raise ResultsFileError(
            f"{name} is not an mcts-agents results file (its first line is not JSON: {error}); "
            "refusing to overwrite it: choose another file"
        ) from None
    found = check_header(first, name)
    repair = False
    if unfinished:
        try:  # a complete line whose newline was lost is kept; a cut one is dropped
            _loads(unfinished, name, len(lines) + 1)
            lines.append(unfinished)
        except ValueError:
            logger.warning("%s: dropping a truncated last line (line %d)", name, len(lines) + 1)
        repair = True
    difference = different_run(found, header)
    if difference is not None:
        raise ResultsFileError(
            f"{name} holds games of another run ({difference}); use another file to start afresh"
        )
    records: dict[int, Record] = {}
    numbers: dict[int, int] = {}
    for number, line in enumerate(lines[1:], 2):
        try:
            record = _loads(line, name, number)
        except ValueError as error:
            raise ResultsFileError(f"{error}; the file is damaged or was edited") from None
        index = check_record(record, found, name, number)
        if index in records:
            logger.warning("%s, line %d: game %d recorded twice; keeping the first", name,
                           number, index)  # fmt: skip
            repair = True
            continue
        records[index] = record
        numbers[index] = number
    return found, records, repair, numbers


def _loads(line: bytes, name: str, number: int) -> Any:
    """Line ``number`` of ``name`` read as JSON (``checks.load_json``: bounded depth, finite
    numbers), else a ``ResultsFileError`` naming the file and the line."""
    return load_json(line, name, line=number, error=ResultsFileError)


def _replace(fd: int, path: Path, name: str, lines: Sequence[Record]) -> int:
    """Write ``lines`` to an exclusive temporary file beside ``path``, lock it and rename it
    over ``path`` (atomic), keeping the file's mode; the new descriptor. ``fd`` (the old file)
    is closed, whatever happens."""
    try:
        mode = stat.S_IMODE(os.fstat(fd).st_mode)
        try:
            new, temporary = tempfile.mkstemp(
                prefix=f".{path.name}.", suffix=".tmp", dir=path.parent
            )
        except OSError as error:
            raise ResultsFileError(
                f"cannot repair or extend {name}: no temporary file can be made in "
                f"{path.parent} ({error})"
            ) from None
        try:
            _write(new, b"".join(json.dumps(line).encode() + b"\n" for line in lines))
            os.fsync(new)
            if sys.platform == "win32":
                os.chmod(temporary, mode)
                os.close(fd)  # Windows renames no file over an open one
                fd = -1
            else:
                os.fchmod(new, mode)
            _lock(new, name, exclusive=True)  # held before the file takes the name
            os.replace(temporary, path)
        except BaseException:
            os.close(new)
            with contextlib.suppress(OSError):
                os.unlink(temporary)
            raise
    finally:
        if fd >= 0:
            os.close(fd)
    if sys.platform != "win32":
        with contextlib.suppress(OSError):  # make the rename durable
            folder = os.open(path.parent, os.O_RDONLY)
            try:
                os.fsync(folder)
            finally:
                os.close(folder)
    return new
