"""``mcts_agents.adapters.compare.GlobalRandom``: draws from the global generators seen, states put
back, with the fast raw-memory check and without it."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from mcts_agents.adapters import compare
from mcts_agents.adapters.compare import GlobalRandom

DRAWS: list[Callable[[], Any]] = [
    random.random,
    lambda: random.gauss(0.0, 1.0),
    lambda: [random.random() for _ in range(312)],  # 624 words: the position comes round
    lambda: np.random.randint(3),
    np.random.standard_normal,
    lambda: np.random.random(624),
    lambda: random.seed(5),
]


def states() -> tuple[Any, Any]:
    return random.getstate(), np.random.get_state()


def same(a: tuple[Any, Any], b: tuple[Any, Any]) -> bool:
    return a[0] == b[0] and all(
        np.array_equal(x, y) if isinstance(x, np.ndarray) else x == y
        for x, y in zip(a[1], b[1], strict=True)
    )


@pytest.mark.parametrize("fast", [True, False])
@pytest.mark.parametrize("draw", range(len(DRAWS)))
def test_global_random_sees_every_draw_and_puts_the_state_back(
    draw: int, fast: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert compare._VIEWS is not None  # CPython and numpy as tested: the fast check is on
    if not fast:
        monkeypatch.setattr(compare, "_VIEWS", None)
    random.seed(1)
    np.random.seed(1)
    watch = GlobalRandom()
    before = states()
    assert not watch.moved()
    DRAWS[draw]()
    assert watch.moved()
    watch.restore()
    assert same(states(), before) and not watch.moved()
    random.random()  # moved by someone else: refresh saves the new state
    watch.refresh()
    moved_on = states()
    assert not watch.moved()
    DRAWS[draw]()
    watch.restore()
    assert same(states(), moved_on)


def test_a_cached_numpy_gaussian_taken_is_seen() -> None:
    """numpy keeps a second Gaussian outside the raw generator memory: with one cached, the
    check reads the whole state."""
    np.random.seed(2)
    np.random.standard_normal()  # draws two, caches one
    watch = GlobalRandom()
    np.random.standard_normal()  # takes the cached one: the generator itself does not move
    assert watch.moved()
    watch.restore()
    assert np.random.get_state()[3] == 1
