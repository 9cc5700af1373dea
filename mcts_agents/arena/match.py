"""Matches and round robins: which games to play, with which seats and seeds.

Game ``i`` of a match puts agent ``(s + i) % n`` in seat ``s``; a round robin plays every pair,
seats swapped game by game, game ``g`` of pair ``p`` (of ``P`` pairs) having index ``g * P + p``.
Every game has its own seed, ``derive_seed(seed, index)``, so a longer run (more games, or more
games per pair) begins with the same games as a shorter one and can extend its results file.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from mcts_agents.arena.entrants import Entrant, env_factory, env_label, make_entrants
from mcts_agents.arena.lockstep import check_lockstep, use_lockstep
from mcts_agents.arena.record_checks import VERSION
from mcts_agents.arena.results import MatchResult, TournamentResult
from mcts_agents.arena.runner import MAX_GAMES, check_options, run_tasks
from mcts_agents.arena.tasks import GameTask
from mcts_agents.checks import check_int
from mcts_agents.errors import InvalidOptionError
from mcts_agents.seeding import derive_seed

__all__ = ["check_game_count", "play_match", "results_header", "tournament"]


def _prepare(
    env_fn: Any, agents: Any, seed: int, backend: str, workers: int
) -> tuple[Callable[[], Any], str, int, list[Entrant]]:
    check_int(seed, "seed", low=0)
    check_options(backend, workers)
    make = env_factory(env_fn)
    env = make()
    return make, env_label(make, env), len(env.possible_agents), make_entrants(agents)


def results_header(
    kind: str, env_name: str, entrants: Sequence[Entrant], seed: int, **extra: int
) -> dict[str, Any]:
    """The results file's first line: what was played, so a resumed run can be checked."""
    return {
        "type": "header",
        "version": VERSION,
        "kind": kind,
        "env": env_name,
        "agents": [e.name for e in entrants],
        "specs": [e.spec for e in entrants],
        "seed": seed,
        **extra,
    }


def check_game_count(name: str, value: Any, per_game: int = 1) -> None:
    """``value`` must be an int >= 0 with ``value * per_game <= MAX_GAMES`` games in all."""
    check_int(value, name, low=0)
    if value * per_game > MAX_GAMES:
        games = "" if per_game == 1 else f" ({value} x {per_game} pairs = {value * per_game} games)"
        raise InvalidOptionError(
            f"{name}={value} is too many{games}: at most {MAX_GAMES} games per run; "
            "split the run (results files can be extended)"
        )


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
    lockstep: bool | str = "auto",
) -> MatchResult:
    """Play ``games`` games between ``agents``, one per seat, rotating seats game by game.

    Args:
        env_fn: an env spec (``"connect_four:width=8"``), an ``EnvSpec``, or a zero-argument
            callable returning a fresh PettingZoo AEC env.
        agents: one per seat; each an agent spec string, an ``AgentSpec``, a factory
            (zero-argument callable returning a fresh agent) or an agent instance (anything
            with ``act(env)``; ``reset(seed=...)`` is called before every game if it has one).
        games: number of games (at most ``runner.MAX_GAMES``, 10**7); game ``i`` puts agent
            ``(s + i) % n`` in seat ``s``.
        seed: the match seed; game ``i`` is seeded by ``derive_seed(seed, i)``.
        workers: processes (``spawn``, at most ``runner.MAX_WORKERS``, 256; agents and env_fn
            must pickle: specs or module-level factories). Results are the same for every
            number of workers; a worker exits as soon as this process dies.
        out: a JSONL file: a header line, then one line per game as it finishes, locked while
            the run lasts (a second run on it raises ``ResultsFileBusyError``). A rerun with the
            same file resumes (only missing games are played); more games extend it. A file
            that is not a results file of this run, or has a damaged line, is refused
            (``ResultsFileError``); a read-only one is only read.
        progress: a tqdm bar on stderr (log lines without tqdm).
        backend: ``"process"`` or ``"ray"`` (Ray remote tasks; ``workers`` is then left to Ray).
        address: the Ray cluster's address (``None``: reuse an initialised Ray or start a local
            one bound to 127.0.0.1); see ``backends.ray_session`` for what a cluster exposes
            and how long a bad address takes to fail.
        lockstep: play the games together in this process, up to ``LOCKSTEP_GAMES`` (64) at a
            time, every round's moves asked in one batch (``arena.lockstep``: a ``policy:``
            model's moves in one forward pass, compiled searches in one kernel call). The
            records are those of game by game but for their ``times`` (each round's time
            shared among its moves). ``"auto"`` (default): when ``workers`` is 1, the backend
            ``"process"`` and every agent acts in batches (``agents.batch.acts_in_batches``:
            ``policy:`` and ``az:`` agents, ``mcts:`` agents with an iteration budget,
            ``random``, given as specs); ``True`` insists (specs and factories, not
            instances: one object cannot play many games at once), ``False``: game by game.
            A run stopped (Ctrl-C) loses the games in flight; a rerun with ``out`` plays them.

    Raises:
        WorkerError: a worker process died (the message names the game; the finished games
            are in ``out``).
    """
    make, env_name, seats, entrants = _prepare(env_fn, agents, seed, backend, workers)
    check_lockstep(lockstep)
    check_game_count("games", games)
    if len(entrants) != seats:
        raise InvalidOptionError(
            f"{env_name} has {seats} seats but {len(entrants)} agents were given: "
            f"{[e.name for e in entrants]}"
        )
    n = len(entrants)
    tasks = [
        GameTask(i, derive_seed(seed, i), make, env_name,
                  tuple(entrants[(s + i) % n] for s in range(n)))
        for i in range(games)
    ]  # fmt: skip
    header = results_header("match", env_name, entrants, seed, games=games)
    records = run_tasks(
        tasks, header, workers=workers, out=out, progress=progress, backend=backend,
        address=address, lockstep=use_lockstep(lockstep, tasks, workers, backend),
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
    lockstep: bool | str = "auto",
) -> TournamentResult:
    """Round robin in a 2-player env: every pair plays ``games_per_pair`` games, seats swapped.

    ``agents`` is as in ``play_match`` or a dict ``name -> agent``. Elo ratings (Bradley-Terry,
    95% CIs) are anchored so that ``anchor`` (default: the first agent) has Elo 0. The other
    arguments are those of ``play_match``; ``lockstep="auto"`` plays in lockstep the games of
    the pairs whose both agents act in batches, the others game by game. With ``P`` pairs,
    game ``g`` of pair ``p`` has index ``g * P + p``, so more games per pair extend a results
    file; at most ``runner.MAX_GAMES`` games in all.
    """
    make, env_name, seats, entrants = _prepare(env_fn, agents, seed, backend, workers)
    check_lockstep(lockstep)
    if seats != 2:
        raise InvalidOptionError(
            f"a round robin needs a 2-player env; {env_name} has {seats} seats"
        )
    if len(entrants) < 2:
        raise InvalidOptionError(
            f"a tournament needs at least 2 agents, got {[e.name for e in entrants]}"
        )
    names = [e.name for e in entrants]
    anchor = names[0] if anchor is None else anchor
    if anchor not in names:
        raise InvalidOptionError(f"anchor {anchor!r} is not one of the agents {names}")
    check_game_count("games_per_pair", games_per_pair, len(names) * (len(names) - 1) // 2)
    pairs = list(itertools.combinations(entrants, 2)) if games_per_pair else []
    tasks = []
    for g in range(games_per_pair):
        for p, (a, b) in enumerate(pairs):
            index = g * len(pairs) + p
            seating = (a, b) if g % 2 == 0 else (b, a)
            tasks.append(GameTask(index, derive_seed(seed, index), make, env_name, seating))
    header = results_header("tournament", env_name, entrants, seed, games_per_pair=games_per_pair)
    records = run_tasks(
        tasks, header, workers=workers, out=out, progress=progress, backend=backend,
        address=address, lockstep=use_lockstep(lockstep, tasks, workers, backend),
    )  # fmt: skip
    return TournamentResult(
        env_name, names, seed, records, games_per_pair=games_per_pair, anchor=anchor
    )
