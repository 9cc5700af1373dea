"""Games of the web server without a server: people's moves, the agents' worker, the search shown
in slices, results in words, closing, and the store of open games."""

from __future__ import annotations

import time
from typing import Any

import pytest

from mcts_agents import MCTSAgent
from mcts_agents.agents.specs import parse_env_spec
from mcts_agents.envs import connect_four_v0
from mcts_agents.envs.games.connect_four import ConnectFour
from mcts_agents.envs.games.mnk import MNK
from mcts_agents.errors import SpecError, TooManyGamesError
from mcts_agents.search import searcher as searcher_module
from mcts_agents.search.result import SearchResult
from mcts_agents.web.live import live_search, search_view
from mcts_agents.web.session import Seat, Session
from mcts_agents.web.store import Sessions, new_play, new_watch
from mcts_agents.web.views import game_json

FAST = "mcts:iterations=60,backend=python"


def wait(condition: Any, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


def settled(session: Session) -> None:
    """Wait until the agents' worker is idle (a person to move, or the end)."""
    wait(lambda: not session.running)


def play_out(session: Session, pick: Any = lambda legal: legal[0]) -> list[int]:
    """Play the person's moves with ``pick`` until the game is over; every move's action."""
    while True:
        settled(session)
        if session.position.over:
            return [m.action for m in session.moves]
        assert session.play(pick(session.clickable())) is None


def test_a_full_tic_tac_toe_game_against_the_agent_ends_in_the_cores_result() -> None:
    session = new_play("tic_tac_toe", FAST, 0, seed=0)
    try:
        actions = play_out(session)
        game = MNK(3, 3, 3)
        final = game.apply(game.initial_state(), actions)  # the rules core replays the game
        assert game.is_terminal(final)
        returns = game.returns(final)
        state = game_json(session)
        assert state["returns"] == list(returns)
        expected = "win" if returns[0] > returns[1] else "loss" if returns[0] < 0 else "draw"
        assert state["result"] == expected and expected in state["status"]
        assert [m["seat"] for m in state["moves"]] == [i % 2 for i in range(len(actions))]
    finally:
        session.close()


def test_the_person_may_sit_second_and_the_agent_opens() -> None:
    session = new_play("connect_four", FAST, 1, seed=3)
    try:
        settled(session)
        assert [m.seat for m in session.moves] == [0] and session.clickable()
        assert game_json(session)["status"].startswith("Your turn (player_1, yellow)")
    finally:
        session.close()


def test_illegal_moves_change_nothing() -> None:
    session = new_play("tic_tac_toe", FAST, 0, seed=1)
    try:
        assert session.play(4) is None
        settled(session)
        before = (session.version, session.position, len(session.moves))
        occupied = [a for a in range(9) if a not in session.position.legal]
        for bad in (*occupied, 9, -1, True, "4", 2.5, None):
            assert session.play(bad) is not None, bad
        assert (session.version, session.position, len(session.moves)) == before
    finally:
        session.close()


def test_no_move_while_the_agent_is_to_move() -> None:
    session = new_play("connect_four", "mcts:iterations=100000,backend=python", 1, seed=0)
    try:
        wait(lambda: session.search is not None)  # thinking: the first slice is out
        refused = session.play(3)
        assert refused is not None and "player_0's turn" in refused
    finally:
        session.close()
    wait(lambda: not session.running, timeout=10)  # closing stops the search at a slice


@pytest.mark.parametrize("backend", ["python", "numba"])
def test_a_live_search_reports_its_progress_and_plays_as_one_search(
    backend: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The progress reports only read the search: the moves and statistics are those of a
    search nobody watched; the env is untouched. (A report after every simulation, or every
    kernel call, so that the count does not depend on the machine's speed.)"""
    monkeypatch.setattr(searcher_module, "PROGRESS_SECONDS", 0.0)
    env = connect_four_v0.env()
    env.reset(seed=0)
    env.step(3)
    before = env.unwrapped.save_state()
    whole = MCTSAgent(iterations=1000, seed=5, backend=backend).search(env)
    agent = MCTSAgent(iterations=1000, seed=5, backend=backend)
    reports: list[tuple[int, bool]] = []

    def report(result: SearchResult, final: bool) -> None:
        reports.append((result.iterations, final))
        assert sum(c.visits for c in result.children) >= result.iterations - 1

    live = live_search(agent, env, report, lambda: False)
    assert live is not None
    assert [(c.action, c.visits, c.value) for c in live.children] == [
        (c.action, c.visits, c.value) for c in whole.children
    ]
    counts = [i for i, _ in reports]
    assert len(reports) >= 3 and counts == sorted(counts) and counts[-1] == 1000
    assert [f for _, f in reports] == [False] * (len(reports) - 1) + [True]
    if backend == "python":  # a report before each simulation and at the end, then the result
        assert counts == [*range(1001), 1000]
    assert env.unwrapped.save_state() == before
    assert agent.searcher is not None and agent.searcher.on_progress is None  # cleared after


def test_the_search_view_shares_sum_to_one_over_the_legal_moves() -> None:
    env = connect_four_v0.env()
    env.reset(seed=0)
    result = MCTSAgent(iterations=200, seed=0).search(env)
    view = search_view(result, list(range(7)), True, (0, "player_0", "x"), 0)
    assert set(view.heat) == set(range(7))
    assert sum(h.share for h in view.heat.values()) == pytest.approx(1.0)
    assert sum(h.visits for h in view.heat.values()) == sum(c.visits for c in result.children)
    assert view.best_action == result.best_action


def test_watch_mode_plays_a_legal_game_and_charts_every_search() -> None:
    session = new_watch("connect_four", [FAST, "mcts:iterations=30,backend=python"], 2, 0.0)
    try:
        wait(lambda: session.position.over)
        game = ConnectFour()
        final = game.apply(game.initial_state(), [m.action for m in session.moves])
        assert game.is_terminal(final)
        assert session.position.returns == game.returns(final)
        state = game_json(session)
        assert len(state["values"]) == len(state["moves"])  # a search per move
        assert "Game over" in state["status"] and state["result"] in ("win", "loss", "draw")
    finally:
        session.close()


def test_watch_mode_pauses_and_resumes() -> None:
    session = new_watch("tic_tac_toe", [FAST, FAST], 0, 0.2)
    try:
        session.set_watch(paused=True)
        settled(session)
        moves = len(session.moves)
        time.sleep(0.4)
        assert len(session.moves) == moves and "Paused" in game_json(session)["status"]
        session.set_watch(delay=0.0, paused=False)
        wait(lambda: session.position.over)
    finally:
        session.close()


def test_random_opponents_and_multi_seat_games() -> None:
    session = new_play("multi_mnk", "random", 2, seed=4)
    try:
        actions = play_out(session)
        assert len(actions) == len(session.moves) and session.position.over
        word = session.outcome(2)
        assert word in game_json(session)["status"]
    finally:
        session.close()


def test_same_seed_same_game_and_games_do_not_share_anything() -> None:
    a = new_play("connect_four", FAST, 0, seed=7)
    b = new_play("connect_four", FAST, 0, seed=7)
    c = new_play("connect_four", FAST, 0, seed=8)
    try:
        games = [play_out(s, lambda legal: legal[len(legal) // 2]) for s in (a, b, c)]
        assert games[0] == games[1]  # seeded: the same moves
        assert a.env is not b.env and a.players[1] is not b.players[1]
    finally:
        for s in (a, b, c):
            s.close()


def test_bad_specs_and_seats_are_named() -> None:
    with pytest.raises(SpecError, match="nope"):
        new_play("nope", FAST, 0, 0)
    with pytest.raises(SpecError, match="iteration"):
        new_play("tic_tac_toe", "mcts:iteration=5", 0, 0)
    with pytest.raises(SpecError, match="seat 2"):
        new_play("tic_tac_toe", FAST, 2, 0)
    with pytest.raises(SpecError, match="p2"):
        new_watch("tic_tac_toe", [FAST, FAST, FAST], 0, 0.0)


def test_the_store_frees_closed_and_idle_games_and_has_a_limit() -> None:
    sessions = Sessions(max_sessions=2, idle_seconds=60)
    a = sessions.add(new_play("tic_tac_toe", "random", 0, 0))
    b = sessions.add(new_play("tic_tac_toe", "random", 0, 0))
    with pytest.raises(TooManyGamesError, match="2 games"):
        sessions.add(new_play("tic_tac_toe", "random", 0, 0))
    assert len(sessions) == 2 and sessions.get(a.id) is a
    assert sessions.close(a.id) and a.closed and len(sessions) == 1
    assert not sessions.close(a.id) and sessions.get(a.id) is None
    assert sessions.sweep(time.monotonic() + 30) == []
    assert sessions.sweep(time.monotonic() + 61) == [b.id] and b.closed and len(sessions) == 0


class Cheater:
    """An agent that plays an occupied square (the centre, again and again)."""

    def act(self, env: Any) -> int:
        return 4


def test_an_agent_that_fails_stops_the_game_with_its_reason_on_the_page() -> None:
    env = parse_env_spec("tic_tac_toe")()
    seats = [Seat(0, "player_0", "you", True), Seat(1, "player_1", "cheater", False)]
    session = Session("x", env, seats, {1: Cheater()}, seed=0)
    try:
        assert session.play(4) is None
        settled(session)
        state = game_json(session)
        assert state["error"] and "cheater played the illegal action 4" in state["status"]
        assert state["clickable"] == [] and len(state["moves"]) == 1  # nothing else happened
        assert session.play(0) is not None
    finally:
        session.close()


def test_the_page_says_the_agent_compiles_its_kernel_before_its_first_search(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The watch page said "No search yet" for the 12+ s of a first compile: while an agent's
    ``prepare`` compiles a kernel that numba's cache does not hold, the search box says so,
    and the first search's report replaces it. (A stand-in compile: the cache check says no,
    and ``prepare`` waits for the test.)"""
    import threading

    from mcts_agents.compiled import warm

    monkeypatch.setattr(warm.Kernel, "cached", lambda self: False)
    release = threading.Event()
    prepare = MCTSAgent.prepare

    def slow_prepare(self: MCTSAgent, env: Any) -> None:
        release.wait(30)
        prepare(self, env)

    monkeypatch.setattr(MCTSAgent, "prepare", slow_prepare)
    session = new_watch("nim", ["mcts:iterations=30", "mcts:iterations=30"], 0, 0.0)
    try:
        wait(lambda: game_json(session)["search"] is not None)
        search = game_json(session)["search"]
        assert search["compiling"] == "compiling the kernel for Nim, once (up to a minute)"
        assert (search["seat"], search["iterations"], search["moves"]) == (0, 0, [])
        release.set()
        wait(lambda: len(session.moves) >= 2)
        search = game_json(session)["search"]
        assert search["compiling"] is None and search["best_action"] >= 0  # a real search
    finally:
        release.set()
        session.close()


def test_the_agents_move_is_what_its_act_would_play() -> None:
    """Where cards are hidden the agent draws its move from the search's policy, as ``act``
    does (``MCTSAgent.choose``), not the most visited action."""
    from mcts_agents.envs import kuhn_poker_v0
    from mcts_agents.web.live import played_move

    env = kuhn_poker_v0.env()
    deal = 0
    env.reset(seed=deal)
    while env.unwrapped.state[2] != 1:  # player 1 holds the queen
        deal += 1
        env.reset(seed=deal)
    env.step(1)  # player 0 bets: player 1 mixes calls and folds
    moves = set()
    for seed in range(40):
        agent = MCTSAgent(iterations=300, seed=seed)
        result = agent.search(env)
        twin = MCTSAgent(iterations=300, seed=seed)
        assert played_move(agent, result) == twin.act(env)
        moves.add(played_move(agent, result))
    assert moves == {0, 1}
    assert played_move(object(), result) == result.best_action  # an agent without a choice
