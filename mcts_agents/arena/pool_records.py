"""The results file of an RL run against an ``OpponentPool`` (``kind: "pool"``), checked field
by field as the arena's own (``record_checks``).

A header ``{"type": "header", "kind": "pool", "version": 1, "env", "agents", "specs", "rule",
"seed", "weights", "band", "window", "start"}`` names the game, the pool's entries when it was
made (names, and their agent specs; ``null`` for a policy), its rule, its seed (``null``:
unseeded) and the rule's settings (``null`` where the rule has none). Then one line per finished
game, in the order played: ``{"type": "game", "index", "entry", "score", "seat", "seats",
"returns", "moves"}``: the entry played (any name: snapshots join the pool later), the learner's
score (1, 1/2, 0), its seat, the seats in order and their returns (which the score must follow
from, as the arena scores: ``tasks.scores``), and the game's moves where the env's path keeps
them (the vector env's boards on the rules' words), else ``null``. ``seat``, ``seats`` and
``returns`` are ``null`` for a score recorded by hand (``OpponentPool.record``). Unlike a match,
a pool's run has no game count: it grows as long as training goes on.
"""

from __future__ import annotations

from typing import Any

from mcts_agents.arena.tasks import Record, line_shape_problem, scores
from mcts_agents.checks import is_int, is_number

__all__ = ["POOL_IDENTITY", "pool_header_problem", "pool_record_problem"]

#: The versions of a pool file read now.
POOL_VERSIONS = (1,)
#: The header fields that say which run a pool file belongs to.
POOL_IDENTITY = (
    "kind", "env", "agents", "specs", "rule", "seed", "weights", "band", "window", "start",
)  # fmt: skip
_RULES = ("fixed", "pfsp_hard", "pfsp_even", "curriculum")
_SCORES = (0.0, 0.5, 1.0)
_LONGEST = 200  # characters of an entry's or a seat's name


def _name(value: Any) -> bool:
    return isinstance(value, str) and 0 < len(value) <= _LONGEST


def pool_header_problem(found: Record) -> str | None:
    """What is wrong with a pool header (``None``: nothing)."""
    agents, specs, weights = found.get("agents"), found.get("specs"), found.get("weights")
    band, window, seed = found.get("band"), found.get("window"), found.get("seed")
    if found.get("version") not in POOL_VERSIONS:
        return f"'version' {found.get('version')!r} of a pool is not one of {list(POOL_VERSIONS)}"
    if not _name(found.get("env")):
        return f"'env' should be a string, got {found.get('env')!r}"
    if not (isinstance(agents, list) and agents and all(map(_name, agents))) or len(
        set(agents)
    ) != len(agents):
        return f"'agents' should be a list of distinct names, got {agents!r}"
    if not (
        isinstance(specs, list)
        and len(specs) == len(agents)
        and all(s is None or isinstance(s, str) for s in specs)
    ):
        return f"'specs' should be one string or null per agent, got {specs!r}"
    if found.get("rule") not in _RULES:
        return f"'rule' should be one of {list(_RULES)}, got {found.get('rule')!r}"
    if seed is not None and not (is_int(seed) and seed >= 0):
        return f"'seed' should be an int >= 0 or null, got {seed!r}"
    if weights is not None and not (
        isinstance(weights, list)
        and len(weights) == len(agents)
        and all(is_number(w) and w >= 0 for w in weights)
    ):
        return f"'weights' should be null or one number >= 0 per agent, got {weights!r}"
    if band is not None and not (
        isinstance(band, list) and len(band) == 2 and all(map(is_number, band))
    ):
        return f"'band' should be null or two numbers, got {band!r}"
    if window is not None and not (is_int(window) and window >= 1):
        return f"'window' should be null or an int >= 1, got {window!r}"
    start = found.get("start")
    if start is not None and not (is_int(start) and 0 <= start < len(agents)):
        return f"'start' should be null or an agent's index, got {start!r}"
    return None


def pool_record_problem(record: Any) -> str | None:
    """What is wrong with a pool file's game line (``None``: nothing)."""
    problem = line_shape_problem(record, _FIELDS)
    if problem is not None:
        return problem
    index, entry, score = record["index"], record["entry"], record["score"]
    seat, seats, returns = record["seat"], record["seats"], record["returns"]
    moves = record["moves"]
    if not is_int(index) or index < 0:
        return f"'index' should be an int >= 0, got {index!r}"
    if not _name(entry):
        return f"'entry' should be a pool entry's name, got {entry!r}"
    if not is_number(score) or float(score) not in _SCORES:
        return f"'score' should be 1, 0.5 or 0, got {score!r}"
    if moves is not None and not (isinstance(moves, list) and all(is_int(m) for m in moves)):
        return f"'moves' should be null or a list of ints, got {moves!r}"
    if seat is None and seats is None and returns is None:
        return None  # a score recorded by hand
    if not (isinstance(seats, list) and seats and all(map(_name, seats))):
        return f"'seats' should be a list of seat names, got {seats!r}"
    if seat not in seats:
        return f"'seat' {seat!r} is not one of the seats {seats}"
    if not (
        isinstance(returns, list) and len(returns) == len(seats) and all(map(is_number, returns))
    ):
        return f"'returns' should be {len(seats)} finite numbers, got {returns!r}"
    expected = scores(returns)[0][seats.index(seat)]
    if float(score) != expected:
        return f"'score' {score!r} does not follow from 'returns' {returns} ({expected})"
    return None


_FIELDS = ("index", "entry", "score", "seat", "seats", "returns", "moves")
