"""Replaying an arena game from its results file: the recorded moves played again in the env.

A results file (``arena --out``, ``play_match(out=...)``) holds the env spec, every game's seed
and its moves; the env reset with the game's seed and stepped through the moves is the game
again, dice and deals included (the env draws chance from its seed). The file is only read,
never locked or repaired (an arena may be writing it): its header and the wanted game's line are
checked as the arena checks them (lines read by ``checks.load_json``: bounded depth, finite
numbers), a cut last line is skipped, and the game is played again through the arena's
``replay_check.replay_record``: a line whose moves do not give its outcome is refused (400).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from mcts_agents.arena.record_checks import check_header, check_record
from mcts_agents.arena.replay_check import replay_record
from mcts_agents.checks import load_json, read_capped
from mcts_agents.errors import ResultsFileError
from mcts_agents.web.pictures import core_position, picture
from mcts_agents.web.policy import ServerPolicy
from mcts_agents.web.store import make_env

__all__ = ["Frame", "GameNotFound", "RecordedGame", "load_game", "replay"]

#: Most bytes of a results file read for a replay.
MAX_BYTES = 256 << 20


class GameNotFound(LookupError):
    """No such results file, or no such game in it (HTTP 404)."""


@dataclass(frozen=True)
class RecordedGame:
    """One game of a results file: its header (the run), its record (the game) and the
    record's line number."""

    file: str
    header: dict[str, Any]
    record: dict[str, Any]
    line: int = 0

    @property
    def moves(self) -> list[int]:
        return list(self.record["moves"])


def load_game(file: str, game: int) -> RecordedGame:
    """Game number ``game`` (its arena index) of the results file ``file``.

    Raises:
        GameNotFound: no such file, or no game ``game`` in it (the message says which games it
            holds).
        ResultsFileError: not a results file, or a damaged header or game line (naming the file
            and line, as the arena does).
    """
    if not os.path.isfile(file):
        raise GameNotFound(f"results file {file!r} not found (from the server's folder)")
    lines = read_capped(file, repr(file), MAX_BYTES, ResultsFileError).split(b"\n")
    try:
        first = load_json(lines[0], file, line=1, error=ResultsFileError)
    except ResultsFileError as error:
        raise ResultsFileError(
            f"{file!r} is not an mcts-agents results file (its first line is not JSON: {error})"
        ) from None
    header = check_header(first, file)
    if header["kind"] == "pool":
        raise ResultsFileError(
            f"{file!r} is an RL run's record of its games against an opponent pool; its games "
            "are not replayed here (replay a match, tournament or rating run)"
        )
    found = []
    for number, line in enumerate(lines[1:], 2):
        if not line.strip():
            continue
        try:
            record = load_json(line, file, line=number, error=ResultsFileError)
        except ResultsFileError:
            if number == len(lines):  # a line being written: not a game yet
                break
            raise
        index = check_record(record, header, file, number)
        if index == game:
            return RecordedGame(file, header, record, number)
        found.append(index)
    held = f"games {min(found)}..{max(found)}" if found else "no game yet"
    raise GameNotFound(f"game {game} is not in {file!r} (it holds {held})")


@dataclass(frozen=True)
class Frame:
    """A position of a replay, for drawing: our rules core and its state, else the env's
    picture; the last move played; whether the game is over there."""

    game: Any
    state: Any
    pixels: Any
    last: int | None
    over: bool


def replay(
    recorded: RecordedGame, step: int, policy: ServerPolicy | None = None
) -> tuple[Frame, list[str]]:
    """The position after the first ``step`` moves of the game, and every move's name (the
    whole game is played again, so every move and the outcome are checked). The file's env
    spec is untrusted (a file names it): ``policy`` (default ``ServerPolicy()``) reads it as a
    request's.

    Raises:
        SpecError: the file's env cannot be made here, or the policy refuses it.
        ResultsFileError: a move that the env does not accept where the file has it, or an
            outcome that the moves do not give (``replay_check.replay_record``).
    """
    spec = (policy or ServerPolicy()).env_spec(recorded.header["env"])
    env = make_env(spec)
    moves = recorded.moves
    names: list[str] = []
    frames: list[Frame] = []

    def seen(ply: int, position: Any) -> None:
        if ply < len(moves):
            names.append(_name(position, moves[ply]))
        if ply == step:
            frames.append(_frame(position, moves[ply - 1] if ply else None))

    where = f"{recorded.file}, line {recorded.line}" if recorded.line else recorded.file
    replay_record(env, recorded.record, where, on_position=seen)
    frame = frames[0] if frames else _frame(env, None)  # not reached: step is within the game
    return frame, names


def _frame(env: Any, last: int | None) -> Frame:
    over = not env.agents
    core = core_position(env)  # our envs, PettingZoo's connect four and tic-tac-toe
    if core is not None:
        return Frame(*core, None, last, over)
    return Frame(None, None, picture(env), last, over)


def _name(env: Any, action: int) -> str:
    core = core_position(env)
    if core is not None:
        return str(core[0].action_to_string(core[1], action))
    raw = env.unwrapped
    game = getattr(raw, "game", None)
    if game is not None and hasattr(game, "action_to_string"):
        return str(game.action_to_string(raw.state, action))
    return str(action)
