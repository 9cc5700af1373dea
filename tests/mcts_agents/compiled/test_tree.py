"""The compiled search's tree record (tree.py): its columns per layout, the hash table."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("numba")

from numba import njit

from mcts_agents import Budget, SearchConfig
from mcts_agents.compiled import dispatch as games
from mcts_agents.compiled.common import META_NODES
from mcts_agents.compiled.searcher import CompiledSearch
from mcts_agents.compiled.tree import find
from mcts_agents.envs.games.connect_four import ConnectFour
from mcts_agents.envs.games.mnk import MNK

CONNECT_FOUR = games.CONNECT_FOUR


def searched(game: object, iterations: int, capacity: int = 1 << 12) -> CompiledSearch:
    searcher = CompiledSearch(game, Budget(iterations=iterations), SearchConfig(), 0, capacity)
    searcher.search(game, game.initial_state())  # type: ignore[attr-defined]
    return searcher


def test_connect_four_rows_are_as_small_as_its_own_kernels_were() -> None:
    """Players who alternate need no player column; seven moves fit int8 (the deleted kernel's
    rows: 32 bytes a node, 21 an edge)."""
    searcher = searched(ConnectFour(), 2_000)
    tree = searcher.tree
    assert len(tree.player) == 0 and len(tree.visits) > 0
    assert tree.action.dtype == tree.nact.dtype == tree.nexp.dtype == np.int8
    nodes, edges = len(searcher), int(tree.meta[1])
    assert searcher.used_bytes == 32 * nodes + 21 * edges + tree.slots.nbytes


def test_games_of_more_than_127_actions_keep_int16_moves() -> None:
    game = MNK(15, 15, 5)
    searcher = searched(game, 300)
    tree = searcher.tree
    assert tree.action.dtype == tree.nact.dtype == np.int16 and len(tree.player) > 0
    result = searcher.search(game, game.initial_state())
    actions = sorted(child.action for child in result.children)
    assert set(actions) <= set(game.legal_actions(game.initial_state()))
    assert max(actions) > 127


@njit
def _find_all(t: object) -> np.ndarray:
    n = t.meta[META_NODES]  # type: ignore[attr-defined]
    out = np.empty(n, np.int64)
    for i in range(n):
        out[i] = find(CONNECT_FOUR, t, t.states[i])  # type: ignore[attr-defined]
    return out


def test_the_hash_of_a_constant_word_count_finds_what_growth_rehashed() -> None:
    """``slot`` of a rule set with ``WORDS`` (loops of a constant length) and ``rehash`` of any
    row length (growth, from Python) agree on every node."""
    searcher = searched(ConnectFour(), 3_000, capacity=16)  # grown many times
    assert len(searcher.tree.visits) > 16
    assert _find_all(searcher.tree).tolist() == list(range(len(searcher)))


@pytest.mark.parametrize("batched", [False, True])
def test_a_tree_forgotten_between_games_searches_as_a_new_one(batched: bool) -> None:
    """``reset`` leaves the hash slots to the next search's ``core.begin``: that search equals a
    new searcher's of the same seed, alone or in a batch, and the table then holds its nodes
    and nothing of the last game."""
    from mcts_agents.compiled import batch

    game = ConnectFour()
    state = game.initial_state()
    for move in (3, 3, 2):
        state = game.next_state(state, move)
    old = searched(game, 3_000)  # a full table from the last game
    assert int((old.tree.slots >= 0).sum()) == len(old) > 1_000
    old.reset(seed=7)
    assert len(old) == 0
    new = CompiledSearch(game, Budget(iterations=500), SearchConfig(), 7, 1 << 12)
    old.budget = new.budget
    if batched:
        got, want = batch.search_compiled([old, new], [game] * 2, [state] * 2)
    else:
        got, want = old.search(game, state), new.search(game, state)
    assert (got.best_action, got.iterations, got.nodes, got.root_value) == (
        want.best_action,
        want.iterations,
        want.nodes,
        want.root_value,
    )
    assert got.reused_nodes == 0
    assert int((old.tree.slots >= 0).sum()) == len(old) == len(new)
    assert _find_all(old.tree).tolist() == list(range(len(old)))
