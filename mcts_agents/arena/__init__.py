"""Matches and round-robin tournaments between agents, with seeds, seat swapping and ratings.

Modules, in the order data flows:

- ``entrants``: agents from specs, factories or instances; the env to play in;
- ``match``: ``play_match`` and ``tournament`` decide the games (seats, seeds);
- ``runner``: skips games already in the results file and plays the rest;
- ``executors``: plays them here, in worker processes or as Ray tasks (``BACKENDS``);
- ``tasks``: one game (``mcts_agents.agents.play.play_game``) and its record;
- ``records``: the JSONL results file (header, a line per game; locked, resumed, extended);
- ``record_checks``: what a results file may hold, checked line by line;
- ``rating``: ``rate``, an agent's Elo on a game's calibrated ladder (``Rating``);
- ``results`` and ``plots``: standings (``AgentStats``), ``MatchResult``, ``TournamentResult``
  (score matrix, Elo), tables and figures.

Every game is played by ``tasks.run_game`` from a picklable task, in this process, in a pool of
worker processes or as Ray remote tasks, so all three give the same games. Each game gets its
own seed derived from ``(seed, game index)``; the env is reset with it and every agent gets a
seed derived from it. Specs and factories build a fresh agent for every game (no search table
survives from one game to the next); agent instances are ``reset(seed=...)`` before every game.
"""

from __future__ import annotations

from mcts_agents.arena.executors import BACKENDS
from mcts_agents.arena.match import play_match, tournament
from mcts_agents.arena.rating import Rating, rate
from mcts_agents.arena.results import AgentStats, ArenaResult, MatchResult, TournamentResult
from mcts_agents.errors import (
    RayNotInstalledError,
    ResultsFileBusyError,
    ResultsFileError,
    WorkerError,
)
from mcts_agents.seeding import derive_seed

__all__ = [
    "BACKENDS",
    "AgentStats",
    "ArenaResult",
    "MatchResult",
    "Rating",
    "RayNotInstalledError",
    "ResultsFileBusyError",
    "ResultsFileError",
    "TournamentResult",
    "WorkerError",
    "derive_seed",
    "play_match",
    "rate",
    "tournament",
]
