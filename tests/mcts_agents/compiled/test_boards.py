"""``compiled.boards`` and ``compiled.board_search``: many boards as rules' words, stepped,
observed and searched in compiled calls, against the rules cores and each tree's own search."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest

pytest.importorskip("numba")

from mcts_agents.compiled.board_search import BoardSearch, searchable
from mcts_agents.compiled.boards import Boards
from mcts_agents.compiled.common import UNKNOWN
from mcts_agents.compiled.searcher import CompiledSearch
from mcts_agents.envs.games.connect_four import ConnectFour
from mcts_agents.envs.games.mnk import MNK
from mcts_agents.envs.games.othello import Othello
from mcts_agents.rl.boards import FastBoards
from mcts_agents.search.config import Budget, SearchConfig

GAMES = [MNK(3, 3, 3), ConnectFour(), Othello(8), Othello(6), MNK(8, 8, 5)]


def env_of(game: Any) -> Any:
    from mcts_agents.envs.core.aec import BoardGameEnv
    from mcts_agents.envs.core.wrappers import GameWrapper

    return GameWrapper(BoardGameEnv(game))


def random_positions(game: Any, count: int, seed: int) -> list[Any]:
    """States along random games, terminal ones included."""
    rng = random.Random(seed)
    states: list[Any] = []
    while len(states) < count:
        state = game.initial_state()
        states.append(state)
        while not game.is_terminal(state) and len(states) < count:
            state = game.next_state(state, rng.choice(game.legal_actions(state)))
            states.append(state)
    return states


@pytest.mark.parametrize("game", GAMES, ids=str)
def test_play_and_observe_follow_the_rules_core(game: Any) -> None:
    """Words stepped by ``BoardRules.play`` stay the core's states; ``observe`` gives the core's
    observation from either seat, its legal mask for the seat to move and nothing else."""
    boards = FastBoards.build(env_of(game), 1)
    assert boards is not None
    rules, codec = boards.rules, boards.rules.codec
    states = random_positions(game, 60, seed=1)
    n = len(states)
    words = np.array([codec.encode(s) for s in states], np.int64)
    values = np.array(
        [UNKNOWN if not game.is_terminal(s) else 0 for s in states], np.int64
    )  # (terminal: any value but UNKNOWN)
    for seat in (0, 1):
        seats = np.full(n, seat, np.int64)
        planes = np.zeros((n, rules.index.shape[0], 2), np.int8)
        masks = np.zeros((n, game.num_actions), np.bool_)
        movers = np.zeros(n, np.int64)
        rules.observe(words, values, seats, planes, masks, movers)
        for i, state in enumerate(states):
            want = game.observation(state, seat)
            assert np.array_equal(planes[i].reshape(want.shape), want)
            over = game.is_terminal(state)
            assert movers[i] == (-1 if over else game.to_play(state))
            legal = not over and game.to_play(state) == seat
            expected = game.legal_mask(state).astype(bool) if legal else np.zeros_like(masks[i])
            assert np.array_equal(masks[i], expected)
    running = [i for i, s in enumerate(states) if not game.is_terminal(s)]
    rng = random.Random(2)
    actions = np.array([rng.choice(game.legal_actions(states[i])) for i in running], np.int64)
    chosen = np.array(running, np.int64)
    enders = np.zeros(n, np.int64)
    history = np.zeros((n, 4), np.int64)
    lengths = np.zeros(n, np.int64)
    rules.play(words, chosen, actions, values, enders, history, lengths)
    for j, i in enumerate(running):
        after = game.next_state(states[i], int(actions[j]))
        assert codec.decode(words[i]) == after
        assert history[i, 0] == actions[j] and lengths[i] == 1
        if game.is_terminal(after):
            returns = game.returns(after)
            assert returns[enders[i]] == values[i] and returns[1 - enders[i]] == -values[i]
        else:
            assert values[i] == UNKNOWN


@pytest.mark.parametrize("game", GAMES, ids=str)
def test_learn_and_settle_on_the_boards_record_follow_the_rules_core(game: Any) -> None:
    """``BoardRules.learn`` plays the learners' legal moves into a ``Boards`` record (nothing
    at all if one is illegal) and ``settle`` gives each board's end, the learner's reward and
    observation as the rules core does; a board lost by an illegal action is over, unmasked."""
    fast = FastBoards.build(env_of(game), 1)
    assert fast is not None
    rules, codec = fast.rules, fast.rules.codec
    states = [s for s in random_positions(game, 80, seed=3) if not game.is_terminal(s)][:40]
    n = len(states)
    cells, actions_count = rules.index.shape[0], game.num_actions
    seats = np.array([game.to_play(s) for s in states], np.int64)  # every learner to move
    b = Boards(
        np.array([codec.encode(s) for s in states], np.int64), np.full(n, UNKNOWN, np.int64),
        np.zeros(n, np.int64), seats, np.zeros(n, np.bool_), np.zeros((n, 4), np.int64),
        np.zeros(n, np.int64), np.zeros((n, cells, 2), np.int8),
        np.zeros((n, actions_count), np.bool_), np.zeros(n, np.int64),
    )  # fmt: skip
    masks = np.array([game.legal_mask(s).astype(bool) for s in states])
    skip = np.zeros(n, np.bool_)
    skip[1] = True  # a restarting board: not played, not scored
    rng = random.Random(4)
    moves = np.array([rng.choice(game.legal_actions(s)) for s in states], np.int64)
    bad = moves.copy()
    bad[2] = int(np.flatnonzero(~masks[2])[0]) if not masks[2].all() else actions_count
    before = b.words.copy()
    assert rules.learn(b, masks, skip, bad + 1, 1) == -1 - 2
    assert np.array_equal(b.words, before) and not b.lengths.any()
    assert rules.learn(b, masks, skip, moves + 1, 1) == n - 1
    b.lost[3] = True  # as if its learner had lost by an illegal action
    rewards, over, done = np.zeros(n), np.zeros(n, np.bool_), np.zeros(n, np.bool_)
    ended = rules.settle(b, skip, rewards, over, done)
    afters = [s if skip[i] else game.next_state(s, int(moves[i])) for i, s in enumerate(states)]
    finished = [game.is_terminal(a) for a in afters]
    assert ended == sum(finished[i] or i == 3 for i in range(n))
    for i, after in enumerate(afters):
        assert codec.decode(b.words[i]) == after
        assert done[i] == (finished[i] or i == 3)
        assert b.lengths[i] == (0 if skip[i] else 1)
        scored = finished[i] and not skip[i]
        assert over[i] == scored
        assert rewards[i] == (game.returns(after)[seats[i]] if scored else 0.0)
        want = game.observation(after, int(seats[i]))
        assert np.array_equal(b.planes[i].reshape(want.shape), want)
        to_move = not finished[i] and game.to_play(after) == seats[i] and i != 3
        mask = game.legal_mask(after).astype(bool) if to_move else np.zeros(actions_count, bool)
        assert np.array_equal(b.masks[i], mask)
        assert b.movers[i] == (-1 if finished[i] else game.to_play(after))


def searcher_of(game: Any, seed: int, **options: Any) -> Any:
    config = SearchConfig(**options)
    budget = Budget(iterations=60)
    return CompiledSearch(game, budget, config, seed, capacity=16)


@pytest.mark.parametrize("game", [MNK(3, 3, 3), ConnectFour(), Othello(6)], ids=str)
@pytest.mark.parametrize("options", [{}, {"final_move": "value"}, {"reuse": False}], ids=str)
def test_board_search_moves_are_each_searchers_own_search(game: Any, options: Any) -> None:
    """Along games played by the moves themselves (re-rooting, growing from 16 nodes), every
    board's move equals ``searcher.search(game, state).best_action`` of a twin searcher."""
    moves_match_own_searches(game, options, 4)


@pytest.mark.parametrize("game", [MNK(3, 3, 3), ConnectFour()], ids=str)
def test_board_search_searches_many_trees_in_parallel_as_each_searcher_would(
    game: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """From ``batch.PARALLEL_MIN`` simulations on (8 here), the trees are searched (seeds, roots,
    simulations, moves) in the parallel twin (``search_*``): the same moves and trees as each
    searcher's own search."""
    import numba

    from mcts_agents.compiled import batch

    monkeypatch.setattr(batch, "PARALLEL_MIN", 8)
    before = numba.get_num_threads()
    numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
    try:
        moves_match_own_searches(game, {}, 12)
    finally:
        numba.set_num_threads(before)


def moves_match_own_searches(game: Any, options: Any, count: int) -> None:
    boards = FastBoards.build(env_of(game), count)
    assert boards is not None
    mine = [searcher_of(game, 10 + i, **options) for i in range(count)]
    twins = [searcher_of(game, 10 + i, **options) for i in range(count)]
    search = BoardSearch(boards.rules, count)
    for i, searcher in enumerate(mine):
        assert searchable(searcher, boards.rules)
        search.attach(i, searcher)
    codec = boards.rules.codec
    states = [game.initial_state()] * count
    rng = random.Random(3)
    for i in range(count):  # different openings
        states[i] = game.next_state(states[i], rng.choice(game.legal_actions(states[i])))
    for _ in range(12):
        live = [i for i in range(count) if not game.is_terminal(states[i])]
        if not live:
            break
        words = np.zeros((count, codec.words), np.int64)
        for i in live:
            words[i] = codec.encode(states[i])
        moves = search.moves(words, np.array(live, np.int64))
        for j, i in enumerate(live):
            want = twins[i].search(game, states[i]).best_action
            assert moves[j] == want
            assert len(mine[i]) == len(twins[i])  # the same tree, in as many bytes
            assert (mine[i].used_bytes, mine[i].nbytes) == (twins[i].used_bytes, twins[i].nbytes)
            states[i] = game.next_state(states[i], want)
            if not game.is_terminal(states[i]):  # the other side's move, at random
                states[i] = game.next_state(states[i], rng.choice(game.legal_actions(states[i])))


def test_searchable_refuses_what_the_words_cannot_search() -> None:
    game = MNK(3, 3, 3)
    rules = FastBoards.build(env_of(game), 1).rules
    assert searchable(searcher_of(game, 0), rules)
    assert not searchable(searcher_of(game, 0, final_move="robust_max"), rules)
    limited = CompiledSearch(game, Budget(iterations=9, max_nodes=100), SearchConfig(), 0)
    assert not searchable(limited, rules)
    timed = CompiledSearch(game, Budget(time_limit=0.01), SearchConfig(), 0)
    assert not searchable(timed, rules)
    assert not searchable(searcher_of(ConnectFour(), 0), rules)  # another game's
    assert FastBoards.build(env_of(MNK(15, 15, 5)), 1) is None  # no one-word board
