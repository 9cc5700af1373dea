"""Go's compiled tree search (compiled/go_search.py, go_board.py, go_searcher.py) against the
Python rules core (envs/games/go.py): every tree move is a legal move of the core (superko
included, the same set), the heavy playouts play legal moves and score the core's area, small
positions with one right answer are found, same seed same search, tree reuse, the factory."""

from __future__ import annotations

import random
import re

import numpy as np
import pytest

from mcts_agents import Budget, SearchConfig, make_searcher
from mcts_agents.envs.games.connect_four import ConnectFour
from mcts_agents.envs.games.go import Go
from mcts_agents.errors import InvalidOptionError

pytest.importorskip("numba")

from mcts_agents.compiled import go_search, go_tactics
from mcts_agents.compiled.go_board import action_of, board_from_core, offsets, zobrist
from mcts_agents.compiled.go_ladder import ladder_space
from mcts_agents.compiled.go_patterns import NEIGHBOURS, pattern_table
from mcts_agents.compiled.go_searcher import GoOptions, GoSearch, kernel_options, tables
from mcts_agents.search.mcts import MCTS


def random_position(game: Go, plies: int, seed: int) -> tuple:
    rng = random.Random(seed)
    state = game.initial_state()
    for _ in range(plies):
        if game.is_terminal(state):
            break
        moves = game.legal_actions(state)[:-1] or [game.pass_action]
        state = game.next_state(state, rng.choice(moves))
    return state


def check_tree(searcher: GoSearch, game: Go, node: int, state: tuple, budget: list[int]) -> int:
    """Every expanded node's children are exactly the core's legal actions; returns the nodes
    checked (at most ``budget[0]`` below the root)."""
    children = list(searcher._children(node))
    if not children:
        return 0
    assert sorted(searcher._action(e) for e in children) == game.legal_actions(state), (
        game.render_text(state)
    )
    checked = 1
    for e in children:
        if budget[0] <= 0:
            break
        if searcher._children(e):
            budget[0] -= 1
            checked += check_tree(
                searcher, game, e, game.next_state(state, searcher._action(e)), budget
            )
    return checked


@pytest.mark.parametrize(("size", "superko"), [(5, True), (5, False), (7, True), (9, False)])
def test_tree_moves_are_the_cores_legal_moves(size: int, superko: bool) -> None:
    game = Go(size, komi=2.5, superko=superko)
    checked = 0
    for seed in range(4):
        searcher = GoSearch(game, Budget(iterations=300), SearchConfig(), seed)
        rng = random.Random(seed)
        state = game.initial_state()
        plies = 0
        while not game.is_terminal(state) and plies < 3 * game.points:
            if plies % 4 == 0:
                result = searcher.search(game, state)
                assert game.is_legal(state, result.best_action)
                checked += check_tree(searcher, game, 0, state, [100])
            state = game.next_state(state, rng.choice(game.legal_actions(state)))
            plies += 1
    assert checked > 100


def test_superko_in_the_tree_follows_the_cores_seen() -> None:
    """A move whose board is among the root's earlier boards is no child (the core's rule)."""
    game = Go(5)
    state = random_position(game, 6, 3)
    moves = game.legal_actions(state)[:-1]
    banned = moves[len(moves) // 2]
    after = game.next_state(state, banned)
    state = (*state[:6], state[6] | {after[5]}, state[7])  # as if that board came before
    assert banned not in game.legal_actions(state)
    searcher = GoSearch(game, Budget(iterations=50), SearchConfig(), 0)
    searcher.search(game, state)
    actions = [searcher._action(e) for e in searcher._children(0)]
    assert banned not in actions and sorted(actions) == game.legal_actions(state)


@pytest.mark.parametrize(("heavy", "defend"), [(True, False), (True, True), (False, False)])
def test_playouts_are_legal_and_score_the_cores_area(heavy: bool, defend: bool) -> None:
    game = Go(7, komi=3.5, superko=False)
    opts = kernel_options(game, GoOptions(heavy=heavy, patterns=heavy, defend=defend))
    for seed in range(30):
        start = random_position(game, seed % 20, seed)
        if game.is_terminal(start):
            continue
        board = board_from_core(game, start)
        seq_p = np.zeros(4 * game.points, np.int64)
        seq_c = np.zeros(4 * game.points, np.int64)
        rng = np.array([seed * 7919 + 1], np.uint64)
        n = go_search.playout_record(board, tables(game), opts, rng, seq_p, seq_c)
        col, _, st = board
        state = start
        for p, c in zip(seq_p[:n], seq_c[:n], strict=True):
            if state[2] != c - 1:  # a pass came between
                state = game.next_state(state, game.pass_action)
            action = action_of(int(p), 7)
            assert game.is_legal(state, action), game.render_text(state)
            state = game.next_state(state, action)
        assert np.uint64(st[go_search.HASH]) == np.uint64(state[5])
        assert go_search.area(col, offsets(7), np.empty(81, np.int64), np.empty(81, np.bool_)) == (
            game.area(state[0], state[1])[0] - game.area(state[0], state[1])[1]
        )


def position(game: Go, black: list[int], white: list[int], to_play: int = 0) -> tuple:
    return game.state_from_stones(game.stones(black), game.stones(white), to_play)


SETTINGS = [GoOptions(), GoOptions(rave=False, priors=False, heavy=False, c=0.7)]


@pytest.mark.parametrize("options", SETTINGS)
@pytest.mark.parametrize("to_play", [0, 1])
def test_finds_the_vital_point_of_a_straight_three(options: GoOptions, to_play: int) -> None:
    """5x5, komi -7.5: black's wall on the second line has a straight three of eye space
    (B1 C1 D1) under white's wall. Its middle (C1, action 22) makes two eyes for black (who
    then wins by 2.5) or kills for white (who then takes the board): the only winning move
    for either side to play, with the full search and with plain UCT."""
    game = Go(5, komi=-7.5)
    #   A B C D E
    # 5 . . . . .
    # 4 . . . . .
    # 3 O O O O O
    # 2 X X X X X
    # 1 X . . . X
    state = position(game, [15, 16, 17, 18, 19, 20, 24], [10, 11, 12, 13, 14], to_play)
    searcher = GoSearch(game, Budget(iterations=3000), SearchConfig(), 2, options)
    result = searcher.search(game, state)
    assert result.best_action == 22
    assert result.children[0].value > 0


def test_a_pass_that_ends_a_won_game_is_worth_a_win() -> None:
    """Black passed on the empty 5x5 board: white's pass ends the game, won by komi."""
    game = Go(5, komi=7.5)
    state = game.next_state(game.initial_state(), game.pass_action)
    result = GoSearch(game, Budget(iterations=2000), SearchConfig(), 0).search(game, state)
    passing = next(c for c in result.children if c.action == game.pass_action)
    assert passing.visits > 0 and passing.value == 1.0


def test_same_seed_same_search_and_reuse() -> None:
    game = Go(9)
    state = random_position(game, 10, 4)
    budget = Budget(iterations=800)
    a = GoSearch(game, budget, SearchConfig(), 7).search(game, state)
    b = GoSearch(game, budget, SearchConfig(), 7).search(game, state)
    assert a.children == b.children and a.best_action == b.best_action
    c = GoSearch(game, budget, SearchConfig(), 8).search(game, state)
    assert c.children != a.children
    searcher = GoSearch(game, budget, SearchConfig(), 7)
    first = searcher.search(game, state)
    reply = next(c.action for c in first.children if c.action != first.best_action)
    later = game.next_state(game.next_state(state, first.best_action), reply)
    again = searcher.search(game, later)
    assert again.reused_nodes > 0
    assert sorted(searcher._action(e) for e in searcher._children(0)) == game.legal_actions(later)
    fresh = GoSearch(game, budget, SearchConfig(reuse=False), 7)
    fresh.search(game, state)
    assert fresh.search(game, later).reused_nodes == 0


def test_the_factory_gives_it_to_go_v0_and_the_fast_path() -> None:
    budget = Budget(iterations=100)
    for game in (Go(9), Go(9, superko=False)):
        searcher = make_searcher(game, budget, SearchConfig(), seed=0)
        assert isinstance(searcher, GoSearch)
        assert searcher.search(game, game.initial_state()).backend == "numba"
        assert isinstance(make_searcher(game, budget, SearchConfig(playout="random")), MCTS)
        assert isinstance(make_searcher(game, budget, SearchConfig(backend="python")), MCTS)


def test_the_pattern_table_holds_mogos_shapes_in_every_orientation() -> None:
    """The enclosing hane (X O X above the point, empty below) matches, turned and with the
    colours swapped; an empty neighbourhood and a lone stone do not."""
    table = pattern_table()

    def code(grid: list[str]) -> int:
        value = {".": 0, "X": 1, "O": 2, " ": 3}
        cells = [grid[1 + dr][1 + dc] for dr, dc in NEIGHBOURS]
        return sum(value[c] * 4**i for i, c in enumerate(cells))

    assert table[code(["XOX", "...", "..."])]
    assert table[code(["..X", "..O", "..X"])]  # turned a quarter
    assert table[code(["OXO", "...", "..."])]  # colours swapped
    assert table[code(["X.?".replace("?", "."), "O..", "   "])]  # the edge's chase
    assert not table[code(["...", "...", "..."])]
    assert not table[code(["...", "...", ".X."])]


def test_a_node_budget_bounds_the_table_and_ends_the_search() -> None:
    game = Go(7)
    searcher = GoSearch(game, Budget(max_nodes=2000), SearchConfig(), 0)
    result = searcher.search(game, game.initial_state())
    assert 0 < result.nodes <= 2000 and result.iterations > 0
    assert game.is_legal(game.initial_state(), result.best_action)


def on_first_line(action: int, size: int) -> bool:
    row, column = divmod(action, size)
    return action < size * size and (row in (0, size - 1) or column in (0, size - 1))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_search_stopped_before_it_began_still_searches_its_floor(seed: int) -> None:
    """A clock that ran out before the first simulation (a kernel loaded inside the move's
    time) must not give the first legal point (the 1-1 point, a9 in GTP): the search runs its
    floor of simulations and plays a searched move off the first line."""
    game = Go(9)
    searcher = GoSearch(game, Budget(time_limit=3600.0), SearchConfig(), seed)
    searcher.should_stop = lambda: True
    result = searcher.search(game, game.initial_state())
    assert result.iterations >= GoOptions().min_simulations == 1000
    assert sum(c.visits for c in result.children) >= 1000
    assert not on_first_line(result.best_action, 9), result.best_action
    small = GoSearch(game, Budget(iterations=30), SearchConfig(), seed)
    small.should_stop = lambda: True
    assert small.search(game, game.initial_state()).iterations == 30  # never past the budget
    with pytest.raises(ValueError, match="min_simulations"):
        GoOptions(min_simulations=0)


def test_defence_saves_a_string_in_atari_by_capturing_next_to_it() -> None:
    """5x5: white's C2 leaves black's B1 C1 in atari (its liberty A1, where extending is still
    atari); white's D1 next to it is in atari too (its liberty E1, not the last move's string).
    The playout's defence captures at E1; without it there is no tactical answer."""
    from mcts_agents.compiled.go_board import LAST, cell_of
    from mcts_agents.envs.games.go import parse_vertex

    game = Go(5)

    def at(*points: str) -> list[int]:
        return [int(parse_vertex(p, 5)) for p in points]

    state = position(game, at("B1", "C1", "D2"), at("B2", "C2", "D1"))
    col, bw, st = board_from_core(game, state)
    st[LAST] = cell_of(at("C2")[0], 5)
    libs, zob, w = np.empty(2, np.int64), zobrist(game), ladder_space(col.shape[0], 1)
    for defend, answer in ((True, cell_of(at("E1")[0], 5)), (False, -1)):
        assert go_tactics._tactic(1, col, bw, st, offsets(5), zob, defend, False, libs, w) == answer


def test_defence_lengthens_a_string_left_with_two_liberties() -> None:
    """5x5: white's B3 leaves black's B2 C2 (white A2 B1 D2 around it) with two liberties:
    C1 (a stone there adds D1: two liberties) and C3 (adds C4 and D3: three). The defence
    plays C3; without it there is no tactical answer."""
    from mcts_agents.compiled.go_board import LAST, cell_of
    from mcts_agents.envs.games.go import parse_vertex

    game = Go(5)

    def at(*points: str) -> list[int]:
        return [int(parse_vertex(p, 5)) for p in points]

    state = position(game, at("B2", "C2"), at("A2", "B3", "D2", "B1"))
    col, bw, st = board_from_core(game, state)
    st[LAST] = cell_of(at("B3")[0], 5)
    libs, zob, w = np.empty(2, np.int64), zobrist(game), ladder_space(col.shape[0], 1)
    for defend, answer in ((True, cell_of(at("C3")[0], 5)), (False, -1)):
        assert go_tactics._tactic(1, col, bw, st, offsets(5), zob, defend, False, libs, w) == answer


def test_kernel_options_set_go_options_and_wrong_ones_are_refused_by_name() -> None:
    game = Go(9)
    state = random_position(game, 10, 4)
    budget = Budget(iterations=600)
    given = SearchConfig(kernel_options={"defend": 1, "c": 0.2})
    searcher = make_searcher(game, budget, given, seed=3)
    assert isinstance(searcher, GoSearch)
    explicit = GoSearch(game, budget, SearchConfig(), 3, GoOptions(defend=True, c=0.2))
    children = searcher.search(game, state).children
    assert children == explicit.search(game, state).children
    assert children != GoSearch(game, budget, SearchConfig(), 3).search(game, state).children
    for options, named in (
        ({"defnd": 1}, "'defnd' (did you mean 'defend'?)"),
        ({"defend": 2}, "defend= must be a bool"),
        ({"expand": 1.5}, "expand= must be an integer"),
        ({"c": "wide"}, "c= must be a finite number"),
    ):
        with pytest.raises(InvalidOptionError, match=re.escape(named)):
            make_searcher(game, budget, SearchConfig(kernel_options=options))
    # nowhere else to go: the Python search, and a kernel that takes no options, refuse them
    python = SearchConfig(backend="python", kernel_options={"defend": 1})
    with pytest.raises(InvalidOptionError, match="backend='python'"):
        make_searcher(game, budget, python)
    with pytest.raises(InvalidOptionError, match="ConnectFour takes no kernel_options"):
        make_searcher(ConnectFour(), budget, SearchConfig(kernel_options={"defend": 1}))


def test_the_default_search_defends() -> None:
    """``defend`` is on by default (run 34: 86 of 120 games against it off at 3,000
    simulations, Wilson [0.63, 0.79]): the default search is the one with defence."""
    game = Go(9)
    state = random_position(game, 12, 5)
    budget = Budget(iterations=600)
    default = GoSearch(game, budget, SearchConfig(), 2).search(game, state).children
    on = GoSearch(game, budget, SearchConfig(), 2, GoOptions(defend=True)).search(game, state)
    off = GoSearch(game, budget, SearchConfig(), 2, GoOptions(defend=False)).search(game, state)
    assert default == on.children != off.children


def test_the_default_search_reads_ladders_with_less_exploration() -> None:
    """``ladders`` on and ``c=0.03`` by default (run 47: 77 of 120 games with ladders against
    without at 3,000 simulations; runs 44 and 46: ``c=0.03`` 75 of 120 against 0.1 at 3,000
    and at 15,000): the default search is that one, and each setting changes the search."""
    game = Go(9)
    state = random_position(game, 12, 5)
    budget = Budget(iterations=600)

    def children(options: GoOptions | None) -> tuple:
        return GoSearch(game, budget, SearchConfig(), 2, options).search(game, state).children

    default = children(None)
    assert default == children(GoOptions(ladders=True, c=0.03))
    assert default != children(GoOptions(ladders=False, c=0.03))
    assert default != children(GoOptions(ladders=True, c=0.1))


GO_MODULES = (
    "go_board", "go_ladder", "go_patterns", "go_playout", "go_search", "go_searcher",
    "go_tactics",
)  # fmt: skip


def test_no_go_function_takes_more_than_twelve_parameters() -> None:
    """Issue 39's layout bound for ``compiled/``: Go's kernels take records (the board, the
    tree, the tables, the options by name), not long positional lists."""
    import ast
    import pathlib

    import mcts_agents.compiled as package

    folder = pathlib.Path(package.__file__).parent
    over = []
    for name in GO_MODULES:
        path = folder / f"{name}.py"
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                a = node.args
                count = len(a.posonlyargs) + len(a.args) + len(a.kwonlyargs)
                count += (a.vararg is not None) + (a.kwarg is not None)
                if count > 12:
                    over.append(f"{name}.{getattr(node, 'name', 'lambda')}: {count}")
    assert over == []
