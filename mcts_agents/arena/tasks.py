"""One arena game: a picklable task, played by the same function in any process or Ray task."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from mcts_agents.agents.play import Move, play_game
from mcts_agents.arena.entrants import Entrant, build_agent
from mcts_agents.seeding import derive_seed

__all__ = [
    "GameTask",
    "Record",
    "game_record",
    "line_shape_problem",
    "run_game",
    "scores",
    "start_game",
]

#: A game's record (see ``MatchResult.records``) or a results file's header: plain JSON data.
Record = dict[str, Any]


@dataclass(frozen=True)
class GameTask:
    index: int
    seed: int
    env_fn: Any
    env_name: str
    seats: tuple[Entrant, ...]


def line_shape_problem(record: Any, fields: Sequence[str]) -> str | None:
    """What is wrong with the form of a results file's game line: not an object, not of
    ``'type': 'game'``, or lacking one of ``fields`` (``None``: nothing)."""
    if not isinstance(record, dict):
        return f"expected a game record (a JSON object), got a {type(record).__name__}"
    if record.get("type") != "game":
        return f"expected a game record ('type': 'game'), got 'type' {record.get('type')!r}"
    missing = [key for key in fields if key not in record]
    if missing:
        return f"the game record lacks {missing}"
    return None


def scores(returns: Sequence[float]) -> tuple[list[float], str | None]:
    """Win 1, draw 1/2, loss 0: the unique best return wins; a tie at the top draws."""
    best = max(returns)
    top = [i for i, r in enumerate(returns) if r == best]
    if len(top) == 1:
        return [1.0 if i == top[0] else 0.0 for i in range(len(returns))], "win"
    return [0.5 if i in top else 0.0 for i in range(len(returns))], "draw"


def run_game(task: GameTask) -> Record:
    """Play one game from a task (in this process, a worker process or a Ray task)."""
    env, players = start_game(task)
    moves: list[Move] = []
    totals = play_game(env, players, on_move=moves.append)
    return game_record(task, env, moves, totals)


def start_game(
    task: GameTask, build: Callable[[Entrant, int], Any] = build_agent, env: Any = None
) -> tuple[Any, dict[Any, Any]]:
    """The task's env, reset with its seed, and its players: seat ``s``'s agent built by
    ``build(entrant, derive_seed(task.seed, s))``. ``env``: one of ``task.env_fn`` to use
    instead of a new one (an env whose ``reset(seed=...)`` makes it a new one: a finished
    game's, reused)."""
    env = task.env_fn() if env is None else env
    env.reset(seed=task.seed)
    players = {
        agent: build(task.seats[seat], derive_seed(task.seed, seat))
        for seat, agent in enumerate(env.possible_agents)
    }
    return env, players


def game_record(
    task: GameTask, env: Any, moves: Sequence[Move], totals: dict[Any, float]
) -> Record:
    """A finished game's record: its moves (``Move`` s of ``play_game``) and summed returns."""
    seat_of = {agent: seat for seat, agent in enumerate(env.possible_agents)}
    returns = [totals.get(agent, 0.0) for agent in env.possible_agents]
    iterations = [getattr(move.result, "iterations", None) for move in moves]
    seat_scores, outcome = scores(returns)
    names = [entrant.name for entrant in task.seats]
    return {
        "type": "game",
        "index": task.index,
        "seed": task.seed,
        "env": task.env_name,
        "seats": names,
        "specs": [entrant.spec for entrant in task.seats],
        "moves": [int(move.action) for move in moves],
        "movers": [seat_of[move.agent] for move in moves],
        "times": [move.seconds for move in moves],
        "iterations": iterations if any(i is not None for i in iterations) else None,
        "returns": returns,
        "scores": seat_scores,
        "outcome": outcome,
        "winner": names[seat_scores.index(1.0)] if outcome == "win" else None,
        "length": len(moves),
    }
