"""What a results file may hold: a header of ours, then game records, checked field by field.

A file is used only when its first line is a valid header; every game line is checked for the
fields the results read (types, lengths, seeds, and scores that follow from the returns by
``games.scores``), so a damaged or edited file is refused with its name, the line number and
what is wrong instead of failing later with a ``KeyError`` or giving wrong standings.
"""

from __future__ import annotations

from typing import Any

from mcts_agents.arena.pool_records import (
    POOL_IDENTITY,
    pool_header_problem,
    pool_record_problem,
)
from mcts_agents.arena.tasks import Record, line_shape_problem, scores
from mcts_agents.checks import is_int, is_number
from mcts_agents.errors import ResultsFileError
from mcts_agents.seeding import derive_seed

__all__ = [
    "VERSION",
    "check_header",
    "check_record",
    "count_key",
    "different_run",
    "header_total",
    "seat_count",
]

#: The header version written now. Version 1 numbered a tournament's games pair by pair
#: (``pair * games_per_pair + game``); version 2 interleaves the pairs (``game * pairs + pair``)
#: so that a tournament can be extended. Version 1 matches are read (their numbering is the same).
VERSION = 2
_READABLE = {"match": (1, 2), "tournament": (2,), "rate": (2,), "pool": (1,)}
#: The header fields that say which run a file belongs to (the game count may grow).
_IDENTITY = ("kind", "env", "agents", "specs", "seed")


def count_key(header: Record) -> str:
    """The header field holding the run's game count: ``games`` or ``games_per_pair``."""
    return "games_per_pair" if header["kind"] == "tournament" else "games"


def header_total(header: Record) -> int:
    """How many games the run has: indices ``0 .. total - 1``."""
    if header["kind"] == "tournament":
        n = len(header["agents"])
        return int(header["games_per_pair"]) * (n * (n - 1) // 2)
    return int(header["games"])


def seat_count(header: Record) -> int:
    """Seats per game: two in a round robin and in a rating run (``rating.rate``: the rated
    agent against one ladder level), one per agent in a match."""
    return 2 if header["kind"] in ("tournament", "rate") else len(header["agents"])


def game_seed(header: Record, index: int) -> int:
    """Game ``index``'s seed: ``derive_seed(seed, index)``; in a duplicate run (a header
    ``hands`` > 1: ``rating``'s chip units) games ``2k`` and ``2k + 1`` deal the same cards,
    both seeded ``derive_seed(seed, k)``."""
    hands = header.get("hands", 1)
    return derive_seed(header["seed"], index // 2 if is_int(hands) and hands > 1 else index)


def check_header(found: Any, name: str) -> Record:
    """``found`` (line 1 of ``name``, parsed) if it is a valid header of ours, else an error."""
    if not isinstance(found, dict) or found.get("type") != "header":
        raise ResultsFileError(
            f"{name} is not an mcts-agents results file (its first line is not a results "
            "header); refusing to overwrite it: choose another file"
        )
    kind = found.get("kind")
    problem = None
    if kind == "pool":  # an RL run against an ``OpponentPool`` (``arena.pool_records``)
        problem = pool_header_problem(found)
    elif kind not in _READABLE:
        problem = f"'kind' {kind!r} is not one of {sorted(_READABLE)}"
    elif found.get("version") not in _READABLE[kind]:
        problem = f"'version' {found.get('version')!r} of a {kind} is not one of {_READABLE[kind]}"
        if kind == "tournament" and found.get("version") == 1:
            problem += (
                " (version 1 numbered a tournament's games pair by pair; finish it with the "
                "version of mcts-agents that wrote it, or use another file)"
            )
    elif not isinstance(found.get("env"), str):
        problem = f"'env' should be a string, got {found.get('env')!r}"
    elif not _names(found.get("agents")):
        problem = f"'agents' should be a list of distinct names, got {found.get('agents')!r}"
    elif not _specs(found.get("specs"), len(found["agents"])):
        problem = f"'specs' should be one string or null per agent, got {found.get('specs')!r}"
    elif not is_int(found.get("seed")) or found["seed"] < 0:
        problem = f"'seed' should be an int >= 0, got {found.get('seed')!r}"
    else:
        key = count_key(found)
        if not is_int(found.get(key)) or found[key] < 0:
            problem = f"{key!r} should be an int >= 0, got {found.get(key)!r}"
    if problem is not None:
        raise ResultsFileError(f"{name}, line 1: a damaged results header: {problem}")
    return found


def _names(value: Any) -> bool:
    return (
        isinstance(value, list)
        and len(value) > 0
        and all(isinstance(v, str) for v in value)
        and len(set(value)) == len(value)
    )


def _specs(value: Any, count: int) -> bool:
    return (
        isinstance(value, list)
        and len(value) == count
        and all(v is None or isinstance(v, str) for v in value)
    )


def different_run(found: Record, header: Record) -> str | None:
    """What differs between the file's header and this run's (``None``: the same run)."""
    identity = POOL_IDENTITY if header.get("kind") == "pool" else _IDENTITY
    different = [k for k in identity if found.get(k) != header.get(k)]
    if not different:
        return None
    return "; ".join(f"{k}: file {found.get(k)!r}, now {header[k]!r}" for k in different)


def check_record(record: Any, header: Record, name: str, number: int) -> int:
    """The index of a valid game record (line ``number`` of ``name``), else an error naming
    the file, the line and what is wrong."""
    if header["kind"] == "pool":
        problem = pool_record_problem(record)
    else:
        problem = _record_problem(record, header)
    if problem is not None:
        raise ResultsFileError(
            f"{name}, line {number}: {problem}; the file is damaged or was edited (restore it, "
            "or delete the line to play that game again)"
        )
    return int(record["index"])


def _record_problem(record: Any, header: Record) -> str | None:
    problem = line_shape_problem(record, _FIELDS)
    if problem is not None:
        return problem
    index, seats, moves = record["index"], record["seats"], record["moves"]
    if not is_int(index) or index < 0:
        return f"'index' should be an int >= 0, got {index!r}"
    if header["version"] >= 2 and index >= header_total(header):
        return f"'index' {index} is beyond the header's {header_total(header)} games"
    if record["seed"] != game_seed(header, index):
        return f"'seed' {record['seed']!r} is not the seed of game {index}"
    if record["env"] != header["env"]:
        return f"'env' {record['env']!r} is not the header's {header['env']!r}"
    n = seat_count(header)
    agents = header["agents"]
    if not isinstance(seats, list) or len(seats) != n or any(s not in agents for s in seats):
        return f"'seats' should be {n} of the agents {agents}, got {seats!r}"
    specs = [header["specs"][agents.index(s)] for s in seats]
    if record["specs"] != specs:
        return f"'specs' {record['specs']!r} are not the seats' specs {specs}"
    if not isinstance(moves, list) or not all(is_int(m) for m in moves):
        return f"'moves' should be a list of ints, got {moves!r}"
    for key, valid, what in (
        ("movers", lambda v: is_int(v) and 0 <= v < n, f"seats 0..{n - 1}"),
        ("times", lambda v: is_number(v) and v >= 0, "seconds >= 0"),
    ):
        values = record[key]
        if not isinstance(values, list) or len(values) != len(moves):
            return f"{key!r} should hold one value per move ({len(moves)}), got {values!r}"
        if not all(valid(v) for v in values):
            return f"{key!r} should hold {what}, got {values!r}"
    iterations = record["iterations"]
    if iterations is not None and not (
        isinstance(iterations, list)
        and len(iterations) == len(moves)
        and all(i is None or (is_int(i) and i >= 0) for i in iterations)
    ):
        return f"'iterations' should be null or one int >= 0 (or null) per move, got {iterations!r}"
    if record["length"] != len(moves):
        return f"'length' {record['length']!r} is not the number of moves {len(moves)}"
    returns = record["returns"]
    if not isinstance(returns, list) or len(returns) != n or not all(map(is_number, returns)):
        return f"'returns' should be {n} finite numbers, got {returns!r}"
    expected, outcome = scores(returns)
    winner = seats[expected.index(1.0)] if outcome == "win" else None
    if record["scores"] != expected:
        return f"'scores' {record['scores']!r} do not follow from 'returns' {returns} ({expected})"
    if record["outcome"] != outcome or record["winner"] != winner:
        return (
            f"'outcome' {record['outcome']!r} and 'winner' {record['winner']!r} do not follow "
            f"from 'returns' {returns} ({outcome!r}, {winner!r})"
        )
    return None


_FIELDS = (
    "index", "seed", "env", "seats", "specs", "moves", "movers", "times", "iterations",
    "returns", "scores", "outcome", "winner", "length",
)  # fmt: skip
