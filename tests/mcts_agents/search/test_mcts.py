"""The search against outside truths: perfect play, known game values, solved positions."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from mcts_agents import Budget, MCTSAgent, SearchConfig, make_searcher
from mcts_agents.envs import connect_four_v0, nim_v0, tic_tac_toe_v0
from mcts_agents.envs.games.connect_four import ConnectFour
from mcts_agents.search import MCTS
from tests.reference import exact_returns, optimal_actions

TTT = tic_tac_toe_v0.raw_env().game
BACKENDS = ("python", "numba")  # the compiled kernel searches Connect Four (extra ``fast``)
SOLVE_TTT = exact_returns(TTT)


def search(game: Any, state: Any, iterations: int, seed: int = 0, **options: Any) -> Any:
    """One search by the searcher ``make_searcher`` picks (``backend=`` in ``options``)."""
    searcher = make_searcher(game, Budget(iterations=iterations), SearchConfig(**options), seed)
    return searcher.search(game, state)


# --------------------------------------------------------------------------- tic-tac-toe
@pytest.mark.parametrize("solver", [True, False])
@pytest.mark.parametrize("mcts_seat", [0, 1])
@pytest.mark.parametrize("seed", range(3))
def test_never_loses_to_perfect_play(mcts_seat: int, seed: int, solver: bool) -> None:
    """20k iterations per move against a minimax player that picks among optimal moves."""
    env = tic_tac_toe_v0.raw_env()
    env.reset()
    agent = MCTSAgent(iterations=20_000, seed=seed, solver=solver)
    rng = random.Random(seed)
    while not TTT.is_terminal(env.state):
        if TTT.to_play(env.state) == mcts_seat:
            env.step(agent.act(env))
        else:
            env.step(rng.choice(optimal_actions(TTT, env.state, SOLVE_TTT)))
    assert TTT.returns(env.state)[mcts_seat] >= 0


@pytest.mark.parametrize("solver", [True, False])
def test_self_play_draws(solver: bool) -> None:
    env = tic_tac_toe_v0.raw_env()
    env.reset()
    agents = [
        MCTSAgent(iterations=20_000, seed=1, solver=solver),
        MCTSAgent(iterations=20_000, seed=2, solver=solver),
    ]
    while not TTT.is_terminal(env.state):
        env.step(agents[TTT.to_play(env.state)].act(env))
    assert TTT.returns(env.state) == (0.0, 0.0)


def test_solver_proves_empty_board_a_draw() -> None:
    result = search(TTT, TTT.initial_state(), 200_000)
    assert result.proven == "draw"
    assert result.iterations < 200_000  # a proven root stops the search
    assert result.root_value == 0.0


def test_solver_agrees_with_minimax_on_random_positions() -> None:
    rng = random.Random(7)
    checked = 0
    while checked < 300:
        state = TTT.initial_state()
        for _ in range(rng.randrange(0, 8)):
            if TTT.is_terminal(state):
                break
            state = TTT.next_state(state, rng.choice(TTT.legal_actions(state)))
        if TTT.is_terminal(state):
            continue
        result = search(TTT, state, 50_000, seed=checked)
        me = TTT.to_play(state)
        truth = SOLVE_TTT(state)[me]
        assert result.proven == {1.0: "win", 0.0: "draw", -1.0: "loss"}[truth], state
        assert SOLVE_TTT(TTT.next_state(state, result.best_action))[me] == truth
        checked += 1


def test_transpositions_bound_the_table() -> None:
    """5,478 positions exist; without transpositions 100k iterations would add ~100k nodes."""
    result = search(TTT, TTT.initial_state(), 100_000, solver=False)
    assert result.iterations == 100_000
    assert result.nodes <= 5478


# --------------------------------------------------------------------------- nim
@pytest.mark.parametrize("pile", [n for n in range(5, 21) if n % 4])
def test_nim_takes_pile_mod_4(pile: int) -> None:
    """One pile, take 1-3, last chip wins: the winning move leaves a multiple of 4."""
    env = nim_v0.raw_env(piles=(pile,), max_take=3)
    env.reset()
    agent = MCTSAgent(iterations=3000, seed=pile)
    action = agent.act(env)
    assert env.game.action_to_string(env.state, action) == f"take {pile % 4} from pile 0"
    assert action == pile % 4 - 1  # one pile: action = take - 1


# --------------------------------------------------------------------------- connect four
# Columns played from the empty board; the mover then has a forced win in n moves.
FORCED_WINS = [
    ([3, 0, 3, 0, 3, 0], 1, {3}),  # vertical three: complete it
    ([0, 0, 1, 1, 2, 2], 1, {3}),  # bottom row 0-1-2: play 3
    ([1, 6, 2, 6, 0, 5], 1, {3}),  # horizontal three with one open end... the mover is X
    ([2, 2, 3, 3, 6, 6], 2, {1, 4}),  # open two on the bottom row: 1 or 4 makes an open three
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("moves", "depth", "winning"), FORCED_WINS)
def test_connect_four_forced_wins_are_proven_and_played(
    moves: list[int], depth: int, winning: set[int], backend: str
) -> None:
    env = connect_four_v0.raw_env()
    env.reset()
    for column in moves:
        env.step(column)
    result = MCTSAgent(iterations=50_000, seed=0, backend=backend).search(env)
    assert result.backend == backend
    assert result.proven == "win"
    assert result.best_action in winning


@pytest.mark.parametrize("backend", BACKENDS)
def test_connect_four_forced_win_in_three_from_reference_search(backend: str) -> None:
    """Positions where a depth-limited exact search finds a win in <= 3 of the mover's moves."""
    game = ConnectFour()
    rng = random.Random(11)
    found = 0
    while found < 5:
        state = game.initial_state()
        for _ in range(rng.randrange(8, 20)):
            state = game.next_state(state, rng.choice(game.legal_actions(state)))
            if game.is_terminal(state):
                break
        if game.is_terminal(state):
            continue
        me = game.to_play(state)
        wins = [
            a
            for a in game.legal_actions(state)
            if _forced_win(game, game.next_state(state, a), me, 5)
        ]
        if not wins:
            continue
        result = search(game, state, 60_000, seed=found, backend=backend)
        assert result.proven == "win", (state, wins)
        assert result.best_action in wins
        found += 1


def _forced_win(game: ConnectFour, state: Any, me: int, plies: int) -> bool:
    """Exact: can ``me`` force a win within ``plies`` more plies (AND-OR search)?"""
    if game.is_terminal(state):
        return game.returns(state)[me] == 1.0
    if plies == 0:
        return False
    children = (game.next_state(state, a) for a in game.legal_actions(state))
    if game.to_play(state) == me:
        return any(_forced_win(game, c, me, plies - 1) for c in children)
    return all(_forced_win(game, c, me, plies - 1) for c in children)


# --------------------------------------------------------------------------- result, options
def test_result_is_inspectable() -> None:
    env = connect_four_v0.raw_env()
    env.reset()
    result = MCTSAgent(iterations=500, seed=0).search(env)
    data = json.loads(json.dumps(result.to_dict()))
    assert data["best_action"] == result.best_action and data["iterations"] == 500
    assert sum(c.visits for c in result.children) == 500
    assert {c.action for c in result.children} == set(range(7))
    assert all(-1.0 <= c.value <= 1.0 for c in result.children)
    assert result.principal_variation[0] == result.best_action
    assert result.elapsed > 0 and result.nodes > 1
    text = str(result)
    assert "best action" in text and "visits" in text


@pytest.mark.parametrize("selection", ["ucb1", "ucb1_tuned", "puct"])
@pytest.mark.parametrize("final_move", ["visits", "value", "robust_max"])
def test_every_rule_finds_the_forced_win(selection: str, final_move: str) -> None:
    env = connect_four_v0.raw_env()
    env.reset()
    for column in [3, 0, 3, 0, 3, 0]:
        env.step(column)
    for solver in (True, False):
        agent = MCTSAgent(
            iterations=3000, seed=0, selection=selection, final_move=final_move, solver=solver
        )
        assert agent.act(env) == 3


@pytest.mark.parametrize("backend", BACKENDS)
def test_same_seed_same_moves(backend: str) -> None:
    def play(seed: int) -> list[int]:
        env = connect_four_v0.raw_env()
        env.reset()
        agents = [
            MCTSAgent(iterations=300, seed=seed, backend=backend),
            MCTSAgent(iterations=200, seed=seed + 1, backend=backend),
        ]
        moves = []
        while not env.game.is_terminal(env.state):
            moves.append(agents[env.game.to_play(env.state)].act(env))
            env.step(moves[-1])
        return moves

    assert play(5) == play(5)
    assert play(5) != play(6)


# --------------------------------------------------------------------------- cycles
class TokenRace:
    """A two-player game whose positions repeat: a token on 0..4 moves -1 or +1.

    Player 0 wins on reaching 4, player 1 on reaching 0; after 30 plies it is a draw. The key
    leaves the ply count out on purpose, so the search sees cycles (position 2 -> 3 -> 2).
    """

    num_players = 2
    acyclic = False

    def initial_state(self) -> tuple[int, int]:
        return (2, 0)

    def to_play(self, state: tuple[int, int]) -> int:
        return state[1] % 2

    def legal_actions(self, state: tuple[int, int]) -> list[int]:
        return [] if self.is_terminal(state) else [0, 1]

    def next_state(self, state: tuple[int, int], action: int) -> tuple[int, int]:
        return (state[0] + (1 if action else -1), state[1] + 1)

    def is_terminal(self, state: tuple[int, int]) -> bool:
        return state[0] in (0, 4) or state[1] >= 30

    def returns(self, state: tuple[int, int]) -> tuple[float, float]:
        return {4: (1.0, -1.0), 0: (-1.0, 1.0)}.get(state[0], (0.0, 0.0))

    def key(self, state: tuple[int, int]) -> tuple[int, int]:
        return (state[0], state[1] % 2)


def test_cycles_are_guarded_and_the_search_ends() -> None:
    game = TokenRace()
    result = search(game, game.initial_state(), 3000)
    assert result.iterations == 3000
    assert result.nodes <= 10  # 5 squares x 2 players to move
    assert result.best_action == 1  # player 0 heads for 4
    # one step from the goal, the solver proves the win and plays it
    near = search(game, (3, 0), 500)
    assert near.best_action == 1 and near.proven == "win"


def test_expand_all_creates_every_child_at_first_expansion() -> None:
    game = ConnectFour()
    one = MCTS(Budget(iterations=1), SearchConfig(expand_all=True), seed=0)
    one.search(game, game.initial_state())
    assert len(one.table) == 1 + 7  # the root and all its children
    result = search(game, game.initial_state(), 3000, expand_all=True)
    plain = search(game, game.initial_state(), 3000)
    assert result.nodes > plain.nodes  # siblings stored before they are visited
    assert sum(c.visits for c in result.children) == 3000


@pytest.mark.parametrize("backend", BACKENDS)
def test_decisive_playouts_are_the_default_and_random_ones_stay_available(backend: str) -> None:
    game = ConnectFour()
    # X (to move) can win at column 0 or 4; every decisive playout after any first move by X
    # that does not win still sees the double threat, so both searches find the win quickly.
    state = game.initial_state()
    for column in [1, 1, 2, 2, 3, 3]:
        state = game.next_state(state, column)
    budget = Budget(iterations=200)
    decisive = make_searcher(game, budget, SearchConfig(solver=False, backend=backend), seed=0)
    uniform = make_searcher(
        game, budget, SearchConfig(solver=False, playout="random", backend=backend), seed=0
    )
    assert decisive.config.playout == "decisive"
    assert decisive.search(game, state).best_action in (0, 4)
    assert uniform.search(game, state).best_action in (0, 4)
    # the decisive search's evaluations agree that every non-winning move is worse
    stats = {c.action: c.value for c in decisive.search(game, state).children}
    assert max(stats, key=lambda a: stats[a]) in (0, 4)
