"""``adapters.hint_if_slow``: a search below 100 simulations/s says so once, through logging."""

from __future__ import annotations

import logging
import time
from typing import Any

import pytest

from mcts_agents import MCTSAgent
from mcts_agents.adapters import SLOW_SEARCH_RATE, hint_if_slow
from mcts_agents.envs import connect_four_v0
from tests.mcts_agents.adapters.support import Pile


class SlowPile(Pile):
    """``Pile`` whose every step takes 2 ms: a few hundred simulations take seconds."""

    metadata = {"name": "slow_pile_v0", "render_modes": [], "is_parallelizable": False}

    def step(self, action: Any) -> None:
        time.sleep(0.002)
        super().step(action)


def test_a_slow_search_logs_one_hint_naming_env_rate_and_help(
    caplog: pytest.LogCaptureFixture,
) -> None:
    env = SlowPile(30)
    env.reset()
    agent = MCTSAgent(iterations=30, seed=0)
    with caplog.at_level(logging.WARNING, logger="mcts_agents.adapters"):
        result = agent.search(env)
        agent.search(env)  # the same kind of game: no second hint
    assert result.iterations / result.elapsed < SLOW_SEARCH_RATE
    hints = [r for r in caplog.records if r.name == "mcts_agents.adapters"]
    assert len(hints) == 1, [r.getMessage() for r in hints]
    message = hints[0].getMessage()
    assert hints[0].levelno == logging.WARNING and "\n" not in message
    assert "slow_pile_v0" in message and "simulations/s" in message
    assert "rules core" in message and "state_key()" in message and "clone" in message
    rate = float(message.split(": ")[1].split(" simulations/s")[0])
    assert rate == pytest.approx(result.iterations / result.elapsed, rel=0.01)


def test_fast_or_short_searches_log_nothing(caplog: pytest.LogCaptureFixture) -> None:
    env = connect_four_v0.env()
    env.reset(seed=0)
    with caplog.at_level(logging.WARNING, logger="mcts_agents.adapters"):
        MCTSAgent(iterations=2_000, seed=0, backend="python").search(env)
        slow = SlowPile(30)
        slow.reset()
        assert not hint_if_slow(slow, object(), 1, 0.01)  # too short to judge
        assert not hint_if_slow(slow, object(), 500, 1.0)  # fast enough
    assert not [r for r in caplog.records if r.name == "mcts_agents.adapters"]
