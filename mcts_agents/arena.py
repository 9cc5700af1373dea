"""Matches and round-robin tournaments between agents, with seeds, seat swapping and ratings.

Every game is played by one module-level function (``_run_game``) from a picklable task, in
this process, in a pool of worker processes or as Ray remote tasks, so all three give the same
games. Each game gets its own seed derived from ``(seed, game index)``; the env is reset with
it and every agent gets a seed derived from it. Specs and factories build a fresh agent for
every game (no search table survives from one game to the next); agent instances are
``reset(seed=...)`` before every game.

With ``out=path.jsonl`` the first line is a header (env, agents, seed) and every finished game
is appended as one JSON line as soon as it is known, so an interrupted run loses nothing and
the same call resumes it.
"""

from __future__ import annotations

import concurrent.futures
import itertools
import json
import logging
import math
import multiprocessing
import os
import pickle
import signal
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from mcts_agents.ratings import bradley_terry_elo, mle_is_finite, wilson_interval
from mcts_agents.specs import AgentSpec, EnvSpec, make_agent, parse_agent_spec, parse_env_spec

__all__ = [
    "BACKENDS",
    "AgentStats",
    "MatchResult",
    "RayNotInstalledError",
    "TournamentResult",
    "derive_seed",
    "play_match",
    "tournament",
]

logger = logging.getLogger(__name__)

BACKENDS = ("process", "ray")
Record = dict[str, Any]


class RayNotInstalledError(ImportError):
    """``backend="ray"`` without Ray installed."""


# ------------------------------------------------------------------------------- entrants
@dataclass(frozen=True)
class _Entrant:
    """One agent of a match: its display name and how to get an agent for a game."""

    name: str
    spec: str | None  # the spec text, for spec entrants
    how: str  # "spec", "factory" or "instance"
    item: Any


def _entrant(item: Any, name: str | None = None) -> _Entrant:
    if isinstance(item, (str, AgentSpec)):
        spec = parse_agent_spec(item)
        return _Entrant(name or spec.name, spec.text, "spec", spec)
    if isinstance(item, type) or (callable(item) and not hasattr(item, "act")):
        label = getattr(item, "name", None) or getattr(item, "__qualname__", None) or repr(item)
        return _Entrant(name or str(label), None, "factory", item)
    if hasattr(item, "act"):
        return _Entrant(
            name or str(getattr(item, "name", None) or repr(item)), None, "instance", item
        )
    raise TypeError(
        f"agent {item!r} is neither a spec string, an AgentSpec, a factory nor an agent "
        "(an object with act(env))"
    )


def _entrants(agents: Sequence[Any] | Mapping[str, Any]) -> list[_Entrant]:
    if isinstance(agents, Mapping):
        entrants = [_entrant(item, str(name)) for name, item in agents.items()]
    elif isinstance(agents, (str, bytes)) or not isinstance(agents, Sequence):
        raise TypeError(f"agents must be a sequence (or a dict name -> agent), got {agents!r}")
    else:
        entrants = [_entrant(item) for item in agents]
    seen: dict[str, int] = {}
    unique = []
    for entrant in entrants:  # the same spec twice: "spec", "spec #2"
        seen[entrant.name] = seen.get(entrant.name, 0) + 1
        if seen[entrant.name] > 1:
            entrant = _Entrant(
                f"{entrant.name} #{seen[entrant.name]}", entrant.spec, entrant.how, entrant.item
            )
        unique.append(entrant)
    return unique


def _build_agent(entrant: _Entrant, seed: int) -> Any:
    if entrant.how == "spec":
        return make_agent(entrant.item, seed=seed)
    agent = entrant.item() if entrant.how == "factory" else entrant.item
    reset = getattr(agent, "reset", None)
    if callable(reset):
        reset(seed=seed)
    return agent


def _env_fn(env_fn: Any) -> Callable[[], Any]:
    if isinstance(env_fn, (str, EnvSpec)):
        return parse_env_spec(env_fn)
    if callable(env_fn):
        return env_fn
    raise TypeError(
        f"env_fn must be an env spec string, an EnvSpec or a callable returning a fresh env, "
        f"got {env_fn!r}"
    )


def _env_name(env_fn: Callable[[], Any], env: Any) -> str:
    if isinstance(env_fn, EnvSpec):
        return str(env_fn)
    name = getattr(env, "metadata", {}).get("name")
    return str(name or getattr(env_fn, "__qualname__", None) or repr(env_fn))


def derive_seed(*parts: int) -> int:
    """A 32-bit seed from integers (the match seed and game index, a game seed and a seat)."""
    return int(np.random.SeedSequence([int(p) for p in parts]).generate_state(1)[0])


# ----------------------------------------------------------------------------- one game
@dataclass(frozen=True)
class _GameTask:
    index: int
    seed: int
    env_fn: Any
    env_name: str
    seats: tuple[_Entrant, ...]


def _scores(returns: Sequence[float]) -> tuple[list[float], str | None]:
    """Win 1, draw 1/2, loss 0: the unique best return wins; a tie at the top draws."""
    best = max(returns)
    top = [i for i, r in enumerate(returns) if r == best]
    if len(top) == 1:
        return [1.0 if i == top[0] else 0.0 for i in range(len(returns))], "win"
    return [0.5 if i in top else 0.0 for i in range(len(returns))], "draw"


def _run_game(task: _GameTask) -> Record:
    """Play one game from a task (in this process, a worker process or a Ray task)."""
    env = task.env_fn()
    env.reset(seed=task.seed)
    seat_of = {agent: seat for seat, agent in enumerate(env.possible_agents)}
    players = [
        _build_agent(entrant, derive_seed(task.seed, seat))
        for seat, entrant in enumerate(task.seats)
    ]
    totals = [0.0] * len(players)
    moves: list[int] = []
    movers: list[int] = []
    times: list[float] = []
    iterations: list[int | None] = []
    for agent_id in env.agent_iter():
        _, reward, termination, truncation, _ = env.last()
        seat = seat_of[agent_id]
        totals[seat] += float(reward)
        if termination or truncation:
            env.step(None)
            continue
        player = players[seat]
        start = time.perf_counter()
        action = player.act(env)
        times.append(time.perf_counter() - start)
        result = getattr(player, "last_result", None)
        iterations.append(getattr(result, "iterations", None))
        env.step(action)
        moves.append(int(action))
        movers.append(seat)
    scores, outcome = _scores(totals)
    names = [entrant.name for entrant in task.seats]
    return {
        "type": "game",
        "index": task.index,
        "seed": task.seed,
        "env": task.env_name,
        "seats": names,
        "specs": [entrant.spec for entrant in task.seats],
        "moves": moves,
        "movers": movers,
        "times": times,
        "iterations": iterations if any(i is not None for i in iterations) else None,
        "returns": totals,
        "scores": scores,
        "outcome": outcome,
        "winner": names[scores.index(1.0)] if outcome == "win" else None,
        "length": len(moves),
    }


# -------------------------------------------------------------------------------- backends
def _ignore_sigint() -> None:
    """Workers leave Ctrl-C to the parent, which records what finished and stops them."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _check_picklable(tasks: Sequence[_GameTask]) -> None:
    if not tasks:
        return
    try:
        pickle.dumps(tasks[0].env_fn)
    except Exception as error:
        raise TypeError(
            f"env_fn {tasks[0].env_fn!r} cannot be sent to worker processes ({error}); "
            "use an env spec string such as 'connect_four' or a module-level function"
        ) from None
    seen: set[str] = set()
    for task in tasks:
        for entrant in task.seats:
            if entrant.name in seen:
                continue
            seen.add(entrant.name)
            try:
                pickle.dumps(entrant.item)
            except Exception as error:
                raise TypeError(
                    f"agent {entrant.name!r} ({entrant.item!r}) cannot be sent to worker "
                    f"processes ({error}); use an agent spec string such as "
                    "'mcts:iterations=1000' or a module-level factory function"
                ) from None


def _in_process(tasks: Sequence[_GameTask]) -> Iterator[Record]:
    for task in tasks:
        yield _run_game(task)


def _process_pool(tasks: Sequence[_GameTask], workers: int) -> Iterator[Record]:
    _check_picklable(tasks)
    context = multiprocessing.get_context("spawn")
    executor = concurrent.futures.ProcessPoolExecutor(
        max_workers=workers, mp_context=context, initializer=_ignore_sigint
    )
    finished = False
    try:
        futures = [executor.submit(_run_game, task) for task in tasks]
        for future in concurrent.futures.as_completed(futures):
            yield future.result()
        finished = True
    finally:
        if finished:
            executor.shutdown(wait=True)
        else:  # interrupted or failed: stop at once, the finished games are recorded
            processes = list((getattr(executor, "_processes", None) or {}).values())
            executor.shutdown(wait=False, cancel_futures=True)
            for process in processes:
                process.terminate()


def _ray(tasks: Sequence[_GameTask], address: str | None) -> Iterator[Record]:
    try:
        import ray
    except ImportError as error:
        raise RayNotInstalledError(
            'backend="ray" needs Ray: pip install "mcts-agents[ray]"'
        ) from error
    started = False
    if not ray.is_initialized():
        if address is None:
            ray.init(include_dashboard=False)
        else:
            ray.init(address=address)
        started = True
    pending: list[Any] = []
    try:
        remote = ray.remote(num_cpus=1)(_run_game)
        pending = [remote.remote(task) for task in tasks]
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            for ref in done:
                yield ray.get(ref)
    finally:
        for ref in pending:  # interrupted or failed: the finished games are recorded
            ray.cancel(ref, force=True)
        if started:
            ray.shutdown()


def _results(
    tasks: Sequence[_GameTask], workers: int, backend: str, address: str | None
) -> Iterator[Record]:
    if backend == "ray":
        return _ray(tasks, address)
    if workers > 1 and len(tasks) > 1:
        return _process_pool(tasks, workers)
    return _in_process(tasks)


# -------------------------------------------------------------------------- the records file
def _read_records(path: Path, header: Record) -> tuple[dict[int, Record], bool]:
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


def _write_lines(path: Path, lines: Sequence[Record]) -> None:
    temporary = path.with_name(path.name + ".tmp")
    with temporary.open("w", encoding="utf-8") as handle:
        for line in lines:
            handle.write(json.dumps(line) + "\n")
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(temporary, path)


def _open_results(path: Path, header: Record) -> dict[int, Record]:
    """Resume from ``path`` (checking its header), or start it with ``header``."""
    if path.exists() and path.stat().st_size > 0:
        records, dirty = _read_records(path, header)
        if dirty:
            old = records or {}
            _write_lines(path, [header, *(old[i] for i in sorted(old))])
        return records
    path.parent.mkdir(parents=True, exist_ok=True)
    _write_lines(path, [header])
    return {}


class _Progress:
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


def _play(
    tasks: Sequence[_GameTask],
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
    done = _open_results(path, header) if path is not None else {}
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
    bar = _Progress(progress, len(tasks), len(tasks) - len(pending), str(header["env"]))
    handle = path.open("a", encoding="utf-8") if path is not None else None
    try:
        for record in _results(pending, workers, backend, address):
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


def _seat_names(task: _GameTask) -> list[str]:
    return [entrant.name for entrant in task.seats]


def _prepare(
    env_fn: Any, agents: Any, seed: int
) -> tuple[Callable[[], Any], str, int, list[_Entrant]]:
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"seed must be an int >= 0, got {seed!r}")
    make = _env_fn(env_fn)
    env = make()
    entrants = _entrants(agents)
    return make, _env_name(make, env), len(env.possible_agents), entrants


def _check_count(name: str, value: Any) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{name} must be an int >= 0, got {value!r}")


# ------------------------------------------------------------------------------- results
@dataclass(frozen=True)
class AgentStats:
    """One agent's results: games, wins, draws, losses, score (draw = 1/2), rate with 95% CI."""

    name: str
    games: int
    wins: int
    draws: int
    losses: int
    score: float
    rate: float
    low: float
    high: float
    mean_move_time: float


def _standings(names: Sequence[str], records: Sequence[Record]) -> list[AgentStats]:
    tally = {name: [0, 0, 0, 0.0] for name in names}
    clock = {name: [0.0, 0] for name in names}
    for record in records:
        for seat, name in enumerate(record["seats"]):
            score = record["scores"][seat]
            t = tally[name]
            t[0 if score == 1.0 else 1 if score == 0.5 else 2] += 1
            t[3] += score
        for seat, seconds in zip(record["movers"], record["times"], strict=True):
            clock[record["seats"][seat]][0] += seconds
            clock[record["seats"][seat]][1] += 1
    stats = []
    for name in names:
        wins, draws, losses, score = tally[name]
        games = int(wins + draws + losses)
        low, high = wilson_interval(score, games)
        seconds, count = clock[name]
        stats.append(
            AgentStats(
                name, games, int(wins), int(draws), int(losses), float(score),
                score / games if games else math.nan, low, high,
                seconds / count if count else math.nan,
            )
        )  # fmt: skip
    return stats


_PRIOR_NOTE = (
    "(someone won or lost every game against others, where the maximum-likelihood Elo is "
    "infinite: one virtual draw per pair is added)"
)


def _pair_results(records: Sequence[Record]) -> list[tuple[str, str, float]]:
    return [
        (r["seats"][0], r["seats"][1], float(r["scores"][0]))
        for r in records
        if len(r["seats"]) == 2
    ]


def _standings_table(
    stats: Sequence[AgentStats], elo: Mapping[str, tuple[float, float, float]] | None
) -> list[str]:
    width = max([5, *(len(s.name) for s in stats)])
    head = (
        f"{'agent':<{width}}  {'games':>5} {'wins':>5} {'draws':>5} {'losses':>6} "
        f"{'score':>6}  {'rate':>5}  95% CI        {'s/move':>7}"
    )
    if elo is not None:
        head += f"  {'Elo':>7}  95% CI"
    lines = [head, "-" * len(head)]
    for s in stats:
        line = (
            f"{s.name:<{width}}  {s.games:>5} {s.wins:>5} {s.draws:>5} {s.losses:>6} "
            f"{s.score:>6g}  {s.rate:>5.3f}  [{s.low:.3f}, {s.high:.3f}]  {s.mean_move_time:>7.4f}"
        )
        if elo is not None:
            e, low, high = elo[s.name]
            line += f"  {e:>+7.1f}  [{low:+.0f}, {high:+.0f}]"
        lines.append(line)
    return lines


@dataclass
class MatchResult:
    """The games of ``play_match`` (ordered by index) and what they say.

    Attributes:
        env: the env's name (its spec string, or its metadata name).
        agents: the agents' display names.
        seed: the match seed.
        records: one dict per game: ``index``, ``seed``, ``env``, ``seats`` (agent names in seat
            order), ``specs``, ``moves``, ``movers`` (seat of each move), ``times`` (seconds per
            move), ``iterations`` (per move, or ``None``), ``returns`` and ``scores`` (per
            seat), ``outcome`` (``"win"``/``"draw"``), ``winner`` (a name or ``None``), ``length``.
    """

    env: str
    agents: list[str]
    seed: int
    records: list[Record] = field(default_factory=list)

    def standings(self) -> list[AgentStats]:
        """Per agent: wins, draws, losses, score (draw = 1/2) and its rate with a 95% CI."""
        return _standings(self.agents, self.records)

    def ratings(self, anchor: str | None = None) -> dict[str, tuple[float, float, float]]:
        """Bradley-Terry Elo with 95% CIs (2-player games only), ``anchor`` (default: the
        second agent) at 0."""
        if len(self.agents) != 2:
            raise ValueError(f"Elo needs a 2-player match, got agents {self.agents}")
        anchor = self.agents[1] if anchor is None else anchor
        return bradley_terry_elo(self.agents, _pair_results(self.records), anchor)

    def elo_difference(self) -> tuple[float, float, float]:
        """Elo of the first agent minus the second, with a 95% CI: ``(diff, low, high)``."""
        return self.ratings()[self.agents[0]]

    def table(self) -> str:
        """A text table of the standings (and the Elo difference for two agents)."""
        lines = [f"{self.env}: {len(self.records)} games, seed {self.seed}"]
        lines += _standings_table(self.standings(), None)
        if len(self.agents) == 2 and self.records:
            diff, low, high = self.elo_difference()
            lines.append(
                f"Elo {self.agents[0]} - {self.agents[1]}: {diff:+.1f} "
                f"(95% CI {low:+.1f} .. {high:+.1f})"
            )
            if not mle_is_finite(self.agents, _pair_results(self.records)):
                lines.append(_PRIOR_NOTE)
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.table()

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable dict: env, agents, seed, standings, Elo (two agents), records."""
        data: dict[str, Any] = {
            "kind": "match",
            "env": self.env,
            "agents": list(self.agents),
            "seed": self.seed,
            "standings": [asdict(s) for s in self.standings()],
            "records": list(self.records),
        }
        if len(self.agents) == 2 and self.records:
            data["elo_difference"] = list(self.elo_difference())
        return data

    def plot(self, path: str | os.PathLike[str]) -> None:
        """Save Elo with error bars and the score matrix (2 agents) as an image."""
        ratings = self.ratings()
        _plot(
            path, self.agents, ratings, _matrix(self.agents, self.records), self.env, self.agents[1]
        )


def _matrix(names: Sequence[str], records: Sequence[Record]) -> list[list[float | None]]:
    index = {name: i for i, name in enumerate(names)}
    points = np.zeros((len(names), len(names)))
    games = np.zeros((len(names), len(names)))
    for a, b, score in _pair_results(records):
        i, j = index[a], index[b]
        points[i, j] += score
        points[j, i] += 1.0 - score
        games[i, j] += 1
        games[j, i] += 1
    return [
        [float(points[i, j] / games[i, j]) if games[i, j] else None for j in range(len(names))]
        for i in range(len(names))
    ]


@dataclass
class TournamentResult:
    """The games of a round robin (ordered by index), its standings, score matrix and Elo.

    Attributes:
        env, agents, seed: as in ``MatchResult``.
        games_per_pair: games each pair played (seats swapped game by game).
        anchor: the agent rated Elo 0.
        records: one dict per game, as in ``MatchResult.records``.
    """

    env: str
    agents: list[str]
    seed: int
    games_per_pair: int
    anchor: str
    records: list[Record] = field(default_factory=list)

    def standings(self) -> list[AgentStats]:
        """Per agent over all its games: wins, draws, losses, score and rate with a 95% CI."""
        return _standings(self.agents, self.records)

    def matrix(self) -> list[list[float | None]]:
        """``matrix()[i][j]``: agent ``i``'s score rate against ``j`` (``None`` on the diagonal)."""
        return _matrix(self.agents, self.records)

    def ratings(self) -> dict[str, tuple[float, float, float]]:
        """``{name: (elo, low, high)}``: Bradley-Terry Elo, 95% CI, the anchor at 0."""
        return bradley_terry_elo(self.agents, _pair_results(self.records), self.anchor)

    def table(self) -> str:
        """Standings sorted by Elo, then the pairwise score matrix."""
        ratings = self.ratings()
        stats = sorted(self.standings(), key=lambda s: -ratings[s.name][0])
        lines = [
            f"{self.env}: round robin, {self.games_per_pair} games per pair, "
            f"{len(self.records)} games, seed {self.seed}, Elo anchored at {self.anchor!r} "
            f"(95% CIs)"
        ]
        lines += _standings_table(stats, ratings)
        lines.append("")
        lines.append("score rate of row against column:")
        width = max(len(name) for name in self.agents)
        lines.append(" " * (width + 4) + " ".join(f"{j + 1:>6}" for j in range(len(self.agents))))
        for i, row in enumerate(self.matrix()):
            cells = " ".join(f"{'-':>6}" if v is None else f"{v:>6.3f}" for v in row)
            lines.append(f"{i + 1:>2} {self.agents[i]:<{width}} {cells}")
        if not mle_is_finite(self.agents, _pair_results(self.records)):
            lines.append(_PRIOR_NOTE)
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.table()

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable dict: standings, matrix, ratings and records."""
        return {
            "kind": "tournament",
            "env": self.env,
            "agents": list(self.agents),
            "seed": self.seed,
            "games_per_pair": self.games_per_pair,
            "anchor": self.anchor,
            "standings": [asdict(s) for s in self.standings()],
            "matrix": self.matrix(),
            "ratings": {name: list(value) for name, value in self.ratings().items()},
            "records": list(self.records),
        }

    def plot(self, path: str | os.PathLike[str]) -> None:
        """Save one figure: Elo with 95% error bars, and the pairwise score matrix."""
        _plot(path, self.agents, self.ratings(), self.matrix(), self.env, self.anchor)


def _plot(
    path: str | os.PathLike[str],
    names: Sequence[str],
    ratings: Mapping[str, tuple[float, float, float]],
    matrix: Sequence[Sequence[float | None]],
    title: str,
    anchor: str,
) -> None:
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError as error:
        raise ImportError('plots need matplotlib: pip install "mcts-agents[plot]"') from error
    figure = Figure(figsize=(11, 0.5 * len(names) + 3))
    FigureCanvasAgg(figure)
    left, right = figure.subplots(1, 2)
    order = sorted(names, key=lambda n: ratings[n][0])
    elo = np.array([ratings[n][0] for n in order])
    low = np.array([ratings[n][1] for n in order])
    high = np.array([ratings[n][2] for n in order])
    left.errorbar(elo, range(len(order)), xerr=[elo - low, high - elo], fmt="o", capsize=4)
    left.set_yticks(range(len(order)), order)
    left.axvline(0.0, color="grey", linewidth=0.8)
    left.set_xlabel(f"Elo (anchor {anchor} = 0), 95% CI")
    left.set_title(title)
    values = np.array([[np.nan if v is None else v for v in row] for row in matrix])
    image = right.imshow(values, vmin=0.0, vmax=1.0, cmap="RdYlGn")
    labels = [str(i + 1) for i in range(len(names))]
    right.set_xticks(range(len(names)), labels)
    right.set_yticks(range(len(names)), [f"{n} {i + 1}" for i, n in enumerate(names)])
    for i, row in enumerate(matrix):
        for j, v in enumerate(row):
            if v is not None:
                right.text(j, i, f"{v:.2f}", ha="center", va="center", fontsize=8)
    right.set_title("score rate of row vs column")
    figure.colorbar(image, ax=right)
    figure.tight_layout()
    figure.savefig(os.fspath(path))


# ----------------------------------------------------------------------------- public API
def play_match(
    env_fn: Any,
    agents: Sequence[Any],
    games: int,
    seed: int = 0,
    *,
    workers: int = 1,
    out: str | os.PathLike[str] | None = None,
    progress: bool = False,
    backend: str = "process",
    address: str | None = None,
) -> MatchResult:
    """Play ``games`` games between ``agents``, one per seat, rotating seats game by game.

    Args:
        env_fn: an env spec (``"connect_four:width=8"``), an ``EnvSpec``, or a zero-argument
            callable returning a fresh PettingZoo AEC env.
        agents: one per seat; each an agent spec string, an ``AgentSpec``, a factory
            (zero-argument callable returning a fresh agent) or an agent instance (anything
            with ``act(env)``; ``reset(seed=...)`` is called before every game if it has one).
        games: number of games; game ``i`` puts agent ``(s + i) % n`` in seat ``s``.
        seed: the match seed; game ``i`` is seeded by ``derive_seed(seed, i)``.
        workers: processes (``spawn``; agents and env_fn must pickle: specs or module-level
            factories). Results are the same for every number of workers.
        out: a JSONL file: a header line, then one line per game as it finishes; a rerun with
            the same file resumes (only missing games are played).
        progress: a tqdm bar on stderr (log lines without tqdm).
        backend: ``"process"`` or ``"ray"`` (Ray remote tasks; ``workers`` is then left to Ray).
        address: the Ray cluster's address (``None``: reuse an initialised Ray or start a
            local one).
    """
    make, env_name, seats, entrants = _prepare(env_fn, agents, seed)
    _check_count("games", games)
    if len(entrants) != seats:
        raise ValueError(
            f"{env_name} has {seats} seats but {len(entrants)} agents were given: "
            f"{[e.name for e in entrants]}"
        )
    n = len(entrants)
    tasks = [
        _GameTask(i, derive_seed(seed, i), make, env_name,
                  tuple(entrants[(s + i) % n] for s in range(n)))
        for i in range(games)
    ]  # fmt: skip
    header = {
        "type": "header",
        "version": 1,
        "kind": "match",
        "env": env_name,
        "agents": [e.name for e in entrants],
        "specs": [e.spec for e in entrants],
        "seed": seed,
        "games": games,
    }
    records = _play(
        tasks, header, workers=workers, out=out, progress=progress, backend=backend,
        address=address,
    )  # fmt: skip
    return MatchResult(env_name, [e.name for e in entrants], seed, records)


def tournament(
    env_fn: Any,
    agents: Sequence[Any] | Mapping[str, Any],
    games_per_pair: int,
    seed: int = 0,
    *,
    anchor: str | None = None,
    workers: int = 1,
    out: str | os.PathLike[str] | None = None,
    progress: bool = False,
    backend: str = "process",
    address: str | None = None,
) -> TournamentResult:
    """Round robin in a 2-player env: every pair plays ``games_per_pair`` games, seats swapped.

    ``agents`` is as in ``play_match`` or a dict ``name -> agent``. Elo ratings (Bradley-Terry,
    95% CIs) are anchored so that ``anchor`` (default: the first agent) has Elo 0. The other
    arguments are those of ``play_match``; the games of pair ``p`` have indices
    ``p * games_per_pair ...``.
    """
    make, env_name, seats, entrants = _prepare(env_fn, agents, seed)
    _check_count("games_per_pair", games_per_pair)
    if seats != 2:
        raise ValueError(f"a round robin needs a 2-player env; {env_name} has {seats} seats")
    if len(entrants) < 2:
        raise ValueError(f"a tournament needs at least 2 agents, got {[e.name for e in entrants]}")
    names = [e.name for e in entrants]
    anchor = names[0] if anchor is None else anchor
    if anchor not in names:
        raise ValueError(f"anchor {anchor!r} is not one of the agents {names}")
    tasks = []
    for p, (i, j) in enumerate(itertools.combinations(range(len(entrants)), 2)):
        for g in range(games_per_pair):
            index = p * games_per_pair + g
            pair = (entrants[i], entrants[j]) if g % 2 == 0 else (entrants[j], entrants[i])
            tasks.append(_GameTask(index, derive_seed(seed, index), make, env_name, pair))
    header = {
        "type": "header",
        "version": 1,
        "kind": "tournament",
        "env": env_name,
        "agents": names,
        "specs": [e.spec for e in entrants],
        "seed": seed,
        "games_per_pair": games_per_pair,
    }
    records = _play(
        tasks, header, workers=workers, out=out, progress=progress, backend=backend,
        address=address,
    )  # fmt: skip
    return TournamentResult(env_name, names, seed, games_per_pair, anchor, records)
