"""``compiled.common``: the words a tree writes all through a search own their cache lines."""

from __future__ import annotations

import numpy as np
import pytest

numba = pytest.importorskip("numba")

from mcts_agents.compiled.common import (  # noqa: E402
    LINE_BYTES,
    META_DEPTH,
    UNKNOWN,
    gain,
    meta_table,
    random01,
    rng_state,
    status_result,
)
from mcts_agents.envs.games.mnk import MNK  # noqa: E402


def lines(a: np.ndarray) -> set[int]:
    """The 64-byte cache lines that ``a``'s data touches."""
    start = a.ctypes.data
    return set(range(start // 64, (start + a.nbytes - 1) // 64 + 1))


def test_tables_and_generators_share_no_cache_line() -> None:
    """Many trees' ``meta`` words and generator words, allocated in turn as a batch's trees are:
    each starts a ``LINE_BYTES`` block and no 64-byte line holds two of them (numpy alone
    aligns small arrays to 16 bytes and packs them side by side)."""
    arrays = [a for _ in range(64) for a in (meta_table(), rng_state())]
    assert LINE_BYTES % 64 == 0
    assert all(a.ctypes.data % LINE_BYTES == 0 for a in arrays)
    seen: set[int] = set()
    for a in arrays:
        assert not lines(a) & seen
        seen |= lines(a)


def test_the_words_are_what_the_kernels_expect() -> None:
    """Same values and the same numba type as before (no kernel recompiles for them)."""
    meta, rng = meta_table(), rng_state()
    assert meta.dtype == np.int64 and meta.shape == (3,) and not meta.any()
    assert rng.dtype == np.uint64 and rng.tolist() == [1]
    assert numba.typeof(meta) == numba.typeof(np.zeros(3, np.int64))
    assert numba.typeof(rng) == numba.typeof(np.ones(1, np.uint64))
    meta[META_DEPTH] = 5  # writable, each its own words
    assert meta_table()[META_DEPTH] == 0
    first = random01(rng)
    assert 0.0 <= first < 1.0 and rng[0] != 1  # the kernels' generator writes the view


@pytest.mark.parametrize("players", [2, 3, 4])
def test_status_result_is_what_the_core_pays(players: int) -> None:
    """m,n,k's status word (0 running, ``q + 1`` player ``q`` won, ``players + 1`` a draw) read
    by ``status_result`` for every player: the core's returns (two players: the value itself;
    more: an outcome code that ``gain`` turns into them); ``UNKNOWN`` while the game runs."""
    game = MNK(3, 3, 3, num_players=players) if players == 2 else MNK(4, 4, 3, num_players=players)
    rng = np.random.default_rng(players)
    seen = set()
    for _ in range(60):
        state = game.initial_state()
        assert status_result(state[-1], players, 0) == UNKNOWN
        while not game.is_terminal(state):
            state = game.next_state(state, int(rng.choice(game.legal_actions(state))))
        status, returns = state[-1], game.returns(state)
        seen.add(status)
        for player in range(players):
            got = status_result(status, players, player)
            paid = got if players == 2 else gain(got, player)
            assert paid == returns[player]
    assert players + 1 in seen or players > 2  # a draw read (tic-tac-toe draws often)
