"""A game closed during an agent's search: the search stops within a few simulations, whatever
its budget (the page is gone, nobody waits for the move), the worker thread ends and the agents'
trees are dropped. Budgets here are iteration or node counts that would take minutes to hours."""

from __future__ import annotations

import time
from typing import Any

import pytest

from mcts_agents import MCTSAgent, make_searcher
from mcts_agents.envs import connect_four_v0
from mcts_agents.envs.games.connect_four import ConnectFour
from mcts_agents.search.config import Budget, SearchConfig
from mcts_agents.web.session import Seat, Session

pytest.importorskip("starlette")

#: Seconds a closed game's worker may take to end: far above what stopping takes (milliseconds),
#: far below what any of these budgets would take.
GRACE = 5.0


def _watch(**budget: Any) -> Session:
    """Two agents with ``budget`` playing Connect Four, the first already searching."""
    seats = [Seat(0, "player_0", "a", False), Seat(1, "player_1", "b", False)]
    players = {0: MCTSAgent(seed=1, **budget), 1: MCTSAgent(seed=2, **budget)}
    session = Session("huge", connect_four_v0.env(), seats, players, seed=0, mode="watch")
    deadline = time.monotonic() + 60
    while not session.thinking:  # the worker has started the first search
        assert time.monotonic() < deadline, "the agent never started to think"
        time.sleep(0.01)
    return session


def _close_and_join(session: Session) -> None:
    worker = session._worker
    assert worker is not None and worker.is_alive()  # still searching its budget
    session.close()
    worker.join(GRACE)
    assert not worker.is_alive(), f"the worker still searches {GRACE} s after close()"
    assert not session.running and not session.thinking
    assert session.moves == []  # the stopped search played nothing
    searcher = session.players[0].searcher  # the first agent's tree is gone with the game
    assert searcher is not None and searcher.table_size() == 0


@pytest.mark.parametrize(
    "budget",
    [
        {"iterations": 20_000_000, "backend": "python"},
        {"max_nodes": 3_000_000, "backend": "python"},
    ],
    ids=["iterations", "max_nodes"],
)
def test_closing_a_game_stops_a_huge_python_search_within_seconds(budget: dict) -> None:
    session = _watch(**budget)
    time.sleep(0.5)  # well into the search
    _close_and_join(session)


def test_closing_a_game_stops_a_huge_compiled_search_within_seconds() -> None:
    pytest.importorskip("numba")
    game = ConnectFour()  # the kernel loaded now, so that the 0.5 s below are spent in it
    make_searcher(game, Budget(iterations=10), SearchConfig(backend="numba")).search(
        game, game.initial_state()
    )
    # a small table: full within the first milliseconds, so that the kernel never returns to
    # grow its arrays and only its calls of about 10 ms give the search a chance to stop
    session = _watch(iterations=2_000_000_000, max_nodes=5000, backend="numba")
    time.sleep(0.5)  # in the kernel: the budget is hours of simulations
    _close_and_join(session)
    shown = session.search  # the last progress report, if one came before the close
    assert shown is None or (not shown.final and shown.iterations < 2_000_000_000)


@pytest.mark.parametrize(
    "budget",
    [
        {"iterations": 20_000_000, "backend": "python"},
        {"iterations": 2_000_000_000, "max_nodes": 5000, "backend": "numba"},
    ],
    ids=["python", "compiled"],
)
def test_a_search_stops_at_the_servers_move_seconds_whatever_its_budget(budget: dict) -> None:
    """The server's ``--max-time`` bounds every search, also one whose agent has no clock."""
    if budget["backend"] == "numba":
        pytest.importorskip("numba")
    seats = [Seat(0, "player_0", "a", False), Seat(1, "player_1", "you", True)]
    players = {0: MCTSAgent(seed=1, **budget)}
    session = Session("bounded", connect_four_v0.env(), seats, players, 0, move_seconds=0.5)
    try:
        deadline = time.monotonic() + 60  # a first compile included; the budget is hours
        while not session.moves:
            assert time.monotonic() < deadline, "the search outlasted the server's bound"
            time.sleep(0.05)
        assert session.moves[0].seconds < GRACE
        assert session.search is not None and session.search.final
    finally:
        session.close()
