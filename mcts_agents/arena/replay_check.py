"""A recorded game played again: its outcome is what its moves give in the env, not what the
line says.

A results file's line records a game's seed, its moves and movers, and its returns, scores,
outcome and winner. The env reset with the seed and stepped through the moves (dice and deals
come from the env's own generator, seeded by ``reset``) is the game again, so its returns are
known without trusting the line: ``replay_record`` plays the moves through ``play_game`` (the
arena's own loop, summing rewards as a game did) and refuses, naming the line, a move by the
wrong seat or not legal where it stands, a game that goes on after the last move or ends before
it, and returns other than the recorded ones (whose scores, outcome and winner
``record_checks`` already ties to the returns). The arena checks every game it resumes; the web
replay every game it shows.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mcts_agents.adapters.aec import legal_actions
from mcts_agents.agents.play import play_game
from mcts_agents.arena.tasks import Record
from mcts_agents.errors import ResultsFileError

__all__ = ["replay_record"]

#: ``on_position(ply, env)``: called at each position of the replay, before move ``ply``
#: (0-based) is played, and once after the last move with ``ply`` = the number of moves.
OnPosition = Callable[[int, Any], None]


class _Script:
    """The recorded moves as every seat's player: each ``act`` checks the seat to move and the
    move's legality before giving it."""

    def __init__(self, record: Record, seats: dict[Any, int], where: str, on: OnPosition | None):
        self.moves: list[int] = record["moves"]
        self.movers: list[int] = record["movers"]
        self.seats = seats
        self.where = where
        self.on_position = on
        self.ply = 0

    def refuse(self, problem: str) -> ResultsFileError:
        return ResultsFileError(
            f"{self.where}: {problem}; the recorded outcome does not follow from the moves "
            "(the file is damaged or was edited, or was made with other rules)"
        )

    def act(self, env: Any) -> int:
        ply = self.ply
        seat = self.seats[env.agent_selection]
        if ply >= len(self.moves):
            raise self.refuse(
                f"the game is not over after its {len(self.moves)} recorded moves (seat {seat} "
                "is to move)"
            )
        action = self.moves[ply]
        if seat != self.movers[ply]:
            raise self.refuse(f"move {ply + 1} is recorded for seat {self.movers[ply]}, but "
                              f"seat {seat} is to move")  # fmt: skip
        if action not in legal_actions(env):
            raise self.refuse(f"move {ply + 1} ({action}) is not legal where it is played")
        if self.on_position is not None:
            self.on_position(ply, env)
        self.ply += 1
        return action


def replay_record(
    env: Any, record: Record, where: str, *, on_position: OnPosition | None = None
) -> list[float]:
    """Play ``record``'s game again in ``env`` (a fresh AEC env of the record's game, reset here
    with the record's seed) and return each seat's return, equal to the recorded ones.

    ``record`` must have passed ``record_checks.check_record``; ``where`` names it in messages
    (``"games.jsonl, line 7"``).

    Raises:
        ResultsFileError: naming ``where``: a move by another seat than the one to move, an
            illegal move, moves after the end or an end after the moves, or returns other
            than those recorded.
    """
    env.reset(seed=record["seed"])
    agents = list(env.possible_agents)
    script = _Script(record, {agent: seat for seat, agent in enumerate(agents)}, where,
                     on_position)  # fmt: skip
    totals = play_game(env, dict.fromkeys(agents, script), prepare=False)
    if script.ply < len(script.moves):
        raise script.refuse(
            f"the game ended after move {script.ply}, but {len(script.moves)} moves are recorded"
        )
    if script.on_position is not None:
        script.on_position(script.ply, env)
    returns = [totals.get(agent, 0.0) for agent in agents]
    if returns != list(record["returns"]):
        raise script.refuse(f"played again, the moves give the returns {returns}, not the "
                            f"recorded {record['returns']}")  # fmt: skip
    return returns
