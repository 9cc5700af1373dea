"""The compiled tree core (core.py, tree.py, dispatch.py, searcher.py) against the rules cores.

Every rule set against its core on random positions (legal moves, next positions, terminal
values, the player to move, reachability), playout outcome frequencies against the core's
rollouts, proofs against known values (Bouton's theorem for Nim, brute force for small m,n,k,
4x4 Othello), same seed same result, and tree reuse. Othello on 10x10 and 16x16 runs on the rule
set of several words a bitboard (``othello_wide``).
"""

from __future__ import annotations

import functools
import itertools
import random
from typing import Any

import numpy as np
import pytest

pytest.importorskip("numba")

from mcts_agents import Budget, SearchConfig, make_searcher
from mcts_agents.compiled import core
from mcts_agents.compiled import dispatch as games
from mcts_agents.compiled.common import UNKNOWN, outcome_returns
from mcts_agents.compiled.rules import ultimate
from mcts_agents.compiled.searcher import CompiledSearch, codec
from mcts_agents.envs.games import ultimate_tic_tac_toe as ultimate_core
from mcts_agents.envs.games.connect_four import ConnectFour
from mcts_agents.envs.games.mnk import MNK
from mcts_agents.envs.games.nim import Nim
from mcts_agents.envs.games.othello import Othello
from mcts_agents.envs.games.ultimate_tic_tac_toe import UltimateTicTacToe
from tests.envs.uttt_positions import CAN_WIN, CAN_WIN_ANYWHERE, NONE_SAFE, ONE_SAFE
from tests.mcts_agents.compiled.playouts import assert_same_outcomes

GAMES = {
    "othello4": Othello(4),
    "othello6": Othello(6),
    "othello8": Othello(8),
    "othello10": Othello(10),  # two, three and four words a bitboard (othello_wide)
    "othello12": Othello(12),
    "othello16": Othello(16),
    "ttt": MNK(3, 3, 3),
    "mnk554": MNK(5, 5, 4),
    "gomoku": MNK(15, 15, 5),
    "two_stones": MNK(7, 7, 4, stones_per_turn=2),
    "wide": MNK(9, 10, 4),  # 90 cells: two words a player
    "mnk3p": MNK(4, 4, 3, num_players=3),  # more players: outcome codes, max^n
    "mnk4p_two_stones": MNK(5, 6, 3, num_players=4, stones_per_turn=2),
    "mnk3p_wide": MNK(9, 8, 4, num_players=3),  # 72 cells: two words a player
    "uttt": UltimateTicTacToe(),
    "c4": ConnectFour(),
    "c4_k3": ConnectFour(5, 4, 3),
    "c4_k5": ConnectFour(7, 6, 5),
    "c4_tall": ConnectFour(4, 11, 4),  # 4 x 12 bits: the most the word holds is 62
    "nim": Nim((3, 4, 5), max_take=None),
    "nim_misere": Nim((2, 3, 7), max_take=3, misere=True),
}


def random_line(game: Any, rng: random.Random) -> list[Any]:
    """The states of one uniformly random game, the terminal one included."""
    state = game.initial_state()
    line = [state]
    while not game.is_terminal(state):
        state = game.next_state(state, rng.choice(game.legal_actions(state)))
        line.append(state)
    return line


def words(rules: Any, state: Any) -> np.ndarray:
    return np.array(rules.encode(state), np.int64)


def returns_of(rules: Any, value: float, mover: int) -> tuple[float, ...]:
    """Every player's return of a kernel value for ``mover`` (or of an outcome code)."""
    if rules.players > 2:
        return outcome_returns(int(value), rules.players)
    return tuple(float(value if p == mover else -value) for p in range(2))


@pytest.mark.parametrize("name", sorted(GAMES))
def test_rules_agree_with_the_core(name: str) -> None:
    """Along 20 random games: encode/decode, legal moves, every next position and its terminal
    value, the player to move."""
    game = GAMES[name]
    rules = codec(game)
    rng = random.Random(name)
    out = np.empty(rules.max_actions, np.int64)
    after = np.empty(rules.words, np.int64)
    for _ in range(20):
        for state in random_line(game, rng)[:-1]:
            s = words(rules, state)
            assert rules.decode(s) == state
            assert games.to_play(rules.game_id, rules.params, s) == game.to_play(state)
            n = games.legal(rules.game_id, rules.params, s, out)
            assert sorted(out[:n].tolist()) == sorted(game.legal_actions(state))
            for action in rng.sample(game.legal_actions(state), min(n, 12)):
                term = games.play(rules.game_id, rules.params, s, action, after)
                child = game.next_state(state, action)
                assert rules.decode(after) == child, (state, action)
                if game.is_terminal(child):
                    assert returns_of(rules, term, game.to_play(child)) == game.returns(child)
                else:
                    assert term == UNKNOWN


@pytest.mark.parametrize("name", sorted(GAMES))
def test_reachability_is_the_cores(name: str) -> None:
    """``reachable(root, s)`` equals the core's ``is_reachable(root, s)`` on positions of
    the same game (descendants) and of other games."""
    game = GAMES[name]
    rules = codec(game)
    rng = random.Random(name)
    lines = [random_line(game, rng) for _ in range(8)]
    states = [s for line in lines for s in line]
    checked = 0
    for line in lines:
        for i in range(0, len(line), 3):
            root = line[i]
            for key in line[i:] + rng.sample(states, 12):
                expected = game.is_reachable(root, game.key(key))
                got = games.reachable(
                    rules.game_id, rules.params, words(rules, root), words(rules, key)
                )
                assert got == expected, (root, key)
                checked += expected
    assert checked > 50  # descendants were among the pairs


def kernel_playout(game: Any, decisive: bool = False) -> Any:
    """``playout(state, rng) -> returns`` through the kernel's rules (seeded from ``rng``)."""
    rules = codec(game)
    buf = np.empty(games.BUFFER, np.int64)
    state_rng = np.ones(1, np.uint64)

    def play(state: Any, rng: random.Random) -> tuple[float, ...]:
        if game.is_terminal(state):
            return game.returns(state)
        state_rng[0] = rng.getrandbits(63) | 1
        s = words(rules, state)
        value = games.playout(rules.game_id, rules.params, s, buf, decisive, state_rng)
        return returns_of(rules, value, game.to_play(state))

    return play


#: Playouts per position where 4,000 would take long (the core's rollouts on 16x16 Othello).
RUNS = {"othello10": 3_000, "othello16": 1_000}


@pytest.mark.parametrize(
    "name",
    [
        "othello6",
        "othello10",
        "othello16",
        "ttt",
        "mnk554",
        "two_stones",
        "uttt",
        "nim",
        "c4",
        "c4_k3",
        "mnk3p",
        "mnk4p_two_stones",
    ],
)
def test_playout_outcomes_match_the_cores_rollout(name: str) -> None:
    game = GAMES[name]
    rng = random.Random(name)
    line = random_line(game, rng)
    for i, state in enumerate([line[0], line[len(line) // 3]]):
        assert_same_outcomes(game, kernel_playout(game), state, RUNS.get(name, 4_000), seed=i)


@pytest.mark.parametrize("size, words", [(4, 4), (8, 4), (10, 7), (12, 10), (14, 13), (16, 13)])
def test_othello_boards_of_one_word_and_of_several(size: int, words: int) -> None:
    """Up to 8x8 the one-word rule set, beyond it ``othello_wide`` (``3 Q + 1`` words)."""
    game = Othello(size)
    rules = codec(game)
    assert rules.game_id == (games.OTHELLO if size <= 8 else games.OTHELLO_WIDE)
    assert rules.words == words and rules.max_actions == size * size + 1
    assert isinstance(make_searcher(game, Budget(iterations=10), SearchConfig()), CompiledSearch)


@pytest.mark.parametrize("name", ["othello10", "othello16"])
def test_wide_othello_passes_and_final_positions(name: str) -> None:
    """Positions whose mover must pass and finished games (rare along a few random games) on
    boards of several words: the pass, its position, reachability both ways, the final move."""
    game = GAMES[name]
    rules = codec(game)
    rng = random.Random(name)
    out = np.empty(rules.max_actions, np.int64)
    after = np.empty(rules.words, np.int64)

    def reachable(root: Any, key: Any) -> bool:
        return bool(
            games.reachable(rules.game_id, rules.params, words(rules, root), words(rules, key))
        )

    passes = 0
    while passes < 4:
        line = random_line(game, rng)
        last, final = line[-2], line[-1]
        action = next(a for a in game.legal_actions(last) if game.next_state(last, a) == final)
        term = games.play(rules.game_id, rules.params, words(rules, last), action, after)
        assert rules.decode(after) == final and term == game.returns(final)[0]
        assert reachable(last, final) and reachable(final, final) and not reachable(final, last)
        for before, state in itertools.pairwise(line):
            if before[3] != 0:
                continue
            passes += 1
            s = words(rules, before)
            assert games.legal(rules.game_id, rules.params, s, out) == 1
            assert out[0] == game.pass_action
            assert games.play(rules.game_id, rules.params, s, game.pass_action, after) == UNKNOWN
            assert rules.decode(after) == state == game.next_state(before, game.pass_action)
            assert game.is_reachable(before, state) and reachable(before, state)
            assert not game.is_reachable(state, before) and not reachable(state, before)


def test_decisive_playouts_take_a_win_and_block_a_single_threat() -> None:
    game = MNK(3, 3, 3)
    # X: 0, 1; O: 3, 4; X to move: X completes the top row at once, every time.
    state = game.apply(game.initial_state(), [0, 3, 1, 4])
    play = kernel_playout(game, decisive=True)
    assert {play(state, random.Random(i)) for i in range(50)} == {(1.0, -1.0)}
    # O threatens 5 (3, 4, 5) and X has no win: decisive X blocks, random X often does not
    state = game.apply(game.initial_state(), [0, 3, 8, 4])
    losses = {
        kind: sum(play(state, random.Random(i)) == (-1.0, 1.0) for i in range(400))
        for kind, play in (("decisive", play), ("random", kernel_playout(game)))
    }
    assert losses["random"] > 120 and losses["decisive"] < losses["random"] / 2, losses


@pytest.mark.parametrize("name", ["c4", "c4_tall"])
def test_connect_four_decisive_playout_is_the_cores(name: str) -> None:
    game = GAMES[name]
    rng = random.Random(name)
    line = random_line(game, rng)
    reference = game.decisive_rollout
    for i, state in enumerate([line[0], line[len(line) // 2]]):
        play = kernel_playout(game, decisive=True)
        assert_same_outcomes(game, play, state, 4_000, seed=i, reference=reference)


def test_ultimate_positions_are_four_words_that_round_trip() -> None:
    """Four words a position; encode/decode round-trips on positions of random games until
    both players have stones on boards 7-8, every ``forced`` (-1, 0..8) and every terminal
    status (win of either player, draw) were seen, and on a position with every field at its
    largest value."""
    game = GAMES["uttt"]
    rules = codec(game)
    assert ultimate.WORDS == 4 and rules.words == 4
    rng = random.Random("uttt words")
    high = 0x1FF << 63 | 0x1FF << 72  # boards 7 and 8
    seen: set[Any] = set()
    wanted = {("high", 0), ("high", 1), *(("forced", f) for f in range(-1, 9))}
    wanted |= {("status", 1), ("status", 2), ("status", 3)}
    extreme = ((1 << 81) - 1, (1 << 81) - 1, 0x1FF, 0x1FF, 0x1FF, 8, 81, 3)
    for _ in range(200):
        for state in random_line(game, rng):
            s = words(rules, state)
            assert s.shape == (4,) and rules.decode(s) == state
            seen |= {("high", p) for p in (0, 1) if state[p] & high}
            seen |= {("forced", state[5]), ("status", state[7])}
        if seen >= wanted:
            break
    assert seen >= wanted, wanted - seen
    assert rules.decode(words(rules, extreme)) == extreme


def test_ultimate_decisive_playouts_win_at_once_and_avoid_handing_over_a_win() -> None:
    """The hand-built positions of ``tests.envs.uttt_positions``: a win of the game at once
    (sent to its board, or free to choose) is taken every time; with one safe move (which wins
    by force) every playout is won; with none, every playout is lost."""
    game = GAMES["uttt"]
    decisive, uniform = kernel_playout(game, decisive=True), kernel_playout(game)

    def outcomes(play: Any, state: Any) -> set[tuple[float, ...]]:
        return {play(state, random.Random(seed)) for seed in range(60)}

    for state in (CAN_WIN, CAN_WIN_ANYWHERE):
        assert outcomes(decisive, state) == {(1.0, -1.0)}
        assert outcomes(uniform, state) != {(1.0, -1.0)}
    assert outcomes(decisive, ONE_SAFE) == {(1.0, -1.0)}
    assert (-1.0, 1.0) in outcomes(uniform, ONE_SAFE)
    assert outcomes(decisive, NONE_SAFE) == {(-1.0, 1.0)}
    assert outcomes(uniform, NONE_SAFE) != {(-1.0, 1.0)}


def test_ultimate_threat_masks_are_the_cores() -> None:
    """On every position of 40 random games: the boards where the opponent can win the game
    at once, and each open board's safe cells, from the kernel's tables equal the core's
    (whose decisive moves are checked against brute force in the core's tests)."""
    game = GAMES["uttt"]
    p = codec(game).params
    rng = random.Random("uttt threats")
    checked = 0
    for _ in range(40):
        for state in random_line(game, rng)[:-1]:
            b0, b1, w0, w1, closed, _, ply, _ = state
            stones = [[(b >> (9 * i)) & 0x1FF for i in range(9)] for b in (b0, b1)]
            mover = ply & 1
            mine, theirs = stones[mover], stones[mover ^ 1]
            won_theirs = (w0, w1)[mover ^ 1]
            danger = ultimate_core._danger(theirs, mine, won_theirs, closed)
            arrays = np.array(theirs, np.int64), np.array(mine, np.int64)
            assert ultimate._danger(p, *arrays, won_theirs, closed) == danger
            for board in range(9) if danger else ():
                if not closed >> board & 1:
                    args = (board, mine[board], theirs[board], closed, danger)
                    assert ultimate._safe_cells(p, *args) == ultimate_core._safe_cells(*args)
                    checked += 1
    assert checked > 200


def test_ultimate_decisive_playout_outcomes_match_the_cores_decisive_rollout() -> None:
    game = GAMES["uttt"]
    rng = random.Random("uttt decisive")
    line = random_line(game, rng)
    positions = [line[0], line[len(line) // 4], line[len(line) // 2], line[2 * len(line) // 3]]
    for i, state in enumerate(positions):
        assert not game.is_terminal(state)
        assert_same_outcomes(
            game, kernel_playout(game, True), state, 4_000, seed=i, reference=game.decisive_rollout
        )


@functools.cache
def mnk_value(game: Any, state: Any) -> int:
    """Brute-force negamax value for the player to move (small boards only)."""
    if game.is_terminal(state):
        return int(game.returns(state)[game.to_play(state)])
    mover = game.to_play(state)
    best = -2
    for action in game.legal_actions(state):
        child = game.next_state(state, action)
        value = mnk_value(game, child)
        best = max(best, value if game.to_play(child) == mover else -value)
    return best


def prove(game: Any, state: Any, iterations: int = 2_000_000) -> Any:
    """The compiled search (``CompiledSearch``) of ``state``."""
    searcher = CompiledSearch(game, Budget(iterations=iterations), SearchConfig(), seed=1)
    return searcher.search(game, state)


def test_proofs_of_tic_tac_toe_positions_match_brute_force() -> None:
    game = MNK(3, 3, 3)
    rng = random.Random(5)
    labels = {1: "win", 0: "draw", -1: "loss"}
    for _ in range(30):
        line = random_line(game, rng)
        state = line[rng.randrange(len(line) - 1)]
        result = prove(game, state)
        assert result.proven == labels[mnk_value(game, state)], state
        if result.proven == "win":  # the move played keeps the win
            child = game.next_state(state, result.best_action)
            assert game.is_terminal(child) or mnk_value(game, child) == -1
    assert prove(game, game.initial_state()).proven == "draw"


def test_two_stone_turns_are_proven_right() -> None:
    """Two stones per turn (the mover keeps the move between them): brute force on 4x4, k=3."""
    game = MNK(4, 4, 3, stones_per_turn=2)
    rng = random.Random(2)
    labels = {1: "win", 0: "draw", -1: "loss"}
    for _ in range(10):
        line = random_line(game, rng)
        state = line[rng.randrange(max(1, len(line) - 6), len(line) - 1)]
        assert prove(game, state).proven == labels[mnk_value(game, state)], state


@functools.cache
def maxn_outcomes(game: MNK, state: Any) -> frozenset[tuple[float, ...]]:
    """Every result (returns) of ``state`` under max^n, over all ways of breaking ties: a child's
    result can be chosen when it pays the mover at least what every other child pays at the
    least (each other child taking its worst result for the mover). Small boards only."""
    if game.is_terminal(state):
        return frozenset([game.returns(state)])
    mover = game.to_play(state)
    children = [maxn_outcomes(game, game.next_state(state, a)) for a in game.legal_actions(state)]
    floors = [min(r[mover] for r in results) for results in children]
    chosen = set()
    for i, results in enumerate(children):
        bar = max((f for j, f in enumerate(floors) if j != i), default=-2.0)
        chosen.update(r for r in results if r[mover] >= bar)
    return frozenset(chosen)


@pytest.mark.parametrize(
    "m, n, players, stones", [(3, 3, 3, 0), (4, 4, 3, 6), (4, 4, 3, 8), (4, 4, 4, 7)]
)
def test_proofs_with_more_players_are_max_n_results(
    m: int, n: int, players: int, stones: int
) -> None:
    """The solver's result with 3 or 4 players (outcome codes) is a max^n result of the
    position (brute force), from random positions with at least ``stones`` stones (and the
    start on 3x3); a proven win plays a move that keeps it."""
    game = MNK(m, n, 3, num_players=players)
    rng = random.Random(m * n + players)
    labels = {1.0: "win", 0.0: "draw", -1.0: "loss"}
    states = [] if stones else [game.initial_state()]
    while len(states) < 12:
        line = random_line(game, rng)
        if len(line) - 1 > stones:
            states.append(line[rng.randrange(stones, len(line) - 1)])
    for state in states:
        result = prove(game, state)
        mover = game.to_play(state)
        possible = maxn_outcomes(game, state)
        assert result.proven in {labels[r[mover]] for r in possible}, state
        assert result.root_value in {r[mover] for r in possible}
        if result.proven == "win":
            child = game.next_state(state, result.best_action)
            assert any(r[mover] == 1.0 for r in maxn_outcomes(game, child))


@pytest.mark.parametrize("width, height, k", [(4, 4, 3), (5, 4, 3), (4, 5, 4)])
def test_connect_four_proofs_match_brute_force(width: int, height: int, k: int) -> None:
    game = ConnectFour(width, height, k)
    rng = random.Random(width * height * k)
    labels = {1: "win", 0: "draw", -1: "loss"}
    states = [game.initial_state()]
    for _ in range(10):
        line = random_line(game, rng)
        states.append(line[rng.randrange(len(line) - 1)])
    for state in states:
        assert prove(game, state).proven == labels[mnk_value(game, state)], state


@pytest.mark.parametrize(
    "piles, max_take", [((3, 4, 5), None), ((1, 2, 3), None), ((5, 5), None), ((15,), 3)]
)
def test_nim_proofs_follow_boutons_theorem(piles: tuple[int, ...], max_take: Any) -> None:
    """Normal play: the mover wins iff the xor of the piles (Grundy values ``p % (max_take + 1)``
    with a cap) is not zero, and a winning move leaves it zero."""
    game = Nim(piles, max_take=max_take)

    def grundy(sizes: tuple[int, ...]) -> int:
        x = 0
        for size in sizes:
            x ^= size if max_take is None else size % (max_take + 1)
        return x

    result = prove(game, game.initial_state())
    assert result.proven == ("win" if grundy(piles) else "loss")
    if grundy(piles):
        after = game.next_state(game.initial_state(), result.best_action)
        assert grundy(after[0]) == 0


def test_othello_4x4_is_a_win_for_white() -> None:
    """4x4 Othello is solved: the second player (white) wins with perfect play."""
    game = Othello(4)
    result = prove(game, game.initial_state())
    assert result.proven == "loss" and result.to_play == 0


@pytest.mark.parametrize("name", ["uttt", "othello10", "othello16"])
def test_same_seed_same_result_and_reuse_keeps_only_what_can_follow(name: str) -> None:
    game = GAMES[name]
    budget = Budget(iterations=3_000)
    a, b = (make_searcher(game, budget, SearchConfig(), seed=9) for _ in range(2))
    state = game.initial_state()
    first, twin = a.search(game, state), b.search(game, state)
    assert first.children == twin.children and first.principal_variation == twin.principal_variation
    before = set(a.table_keys())
    for action in first.principal_variation[:2]:
        state = game.next_state(state, action)
    second = a.search(game, state)
    expected = {k for k in before if game.is_reachable(state, k)}
    assert second.reused_nodes == len(expected) > 0
    assert second.pruned_nodes == len(before) - len(expected) > 0
    after = set(a.table_keys())
    assert expected <= after and all(game.is_reachable(state, k) for k in after)


def test_a_full_table_stops_growth_not_the_search() -> None:
    game = GAMES["othello8"]
    capped = make_searcher(game, Budget(iterations=5_000, max_nodes=500), SearchConfig(), seed=0)
    result = capped.search(game, game.initial_state())
    assert result.iterations == 5_000 and capped.table_size() == 500
    only_nodes = make_searcher(game, Budget(max_nodes=800), SearchConfig(), seed=0)
    assert only_nodes.search(game, game.initial_state()).nodes == 800


def test_kernel_status_codes_and_growth() -> None:
    """Tiny arrays grow while a search runs (nodes, edges, hash table)."""
    game = GAMES["gomoku"]
    searcher = CompiledSearch(game, Budget(iterations=2_000), SearchConfig(), seed=0, capacity=4)
    result = searcher.search(game, game.initial_state())
    assert result.iterations == 2_000 and searcher.table_size() == result.nodes > 1_000
    assert len(searcher.tree.visits) >= result.nodes and core.DONE == 0
