"""``adapters.hint_if_slow``: a search below 100 simulations/s says so once, through logging."""

from __future__ import annotations

import logging
import time
from typing import Any

import numpy as np
import pytest

from mcts_agents import MCTSAgent, adapters
from mcts_agents.adapters import SLOW_SEARCH_RATE, evaluator_share, hint_if_slow
from mcts_agents.envs import connect_four_v0, tic_tac_toe_v0
from mcts_agents.search.evaluators import evaluator_name
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


def sleepy_evaluator(game: Any, state: Any) -> tuple[tuple[float, ...], None]:
    """A position evaluator that takes 20 ms a call, like a network on a busy CPU."""
    time.sleep(0.02)
    return (0.0,) * game.num_players, None


class SleepyBatch:
    """A batch evaluator that takes 50 ms a call, whatever the batch."""

    def evaluate_batch(self, observations: Any, legal_masks: Any) -> tuple[Any, Any]:
        time.sleep(0.05)
        priors = legal_masks / legal_masks.sum(axis=1, keepdims=True)
        return priors, np.zeros(len(observations))


@pytest.mark.parametrize(
    ("evaluator", "options"),
    [(sleepy_evaluator, {}), (SleepyBatch(), {"selection": "puct", "batch_size": 4})],
)
def test_a_slow_evaluator_is_named_in_the_hint_rather_than_the_rules(
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
    evaluator: Any,
    options: dict[str, Any],
) -> None:
    monkeypatch.setattr(adapters, "_HINTED", set())
    env = tic_tac_toe_v0.env()
    env.reset(seed=0)
    agent = MCTSAgent(iterations=12, seed=0, evaluator=evaluator, backend="python", **options)
    with caplog.at_level(logging.WARNING, logger="mcts_agents.adapters"):
        agent.search(env)
    [hint] = [r.getMessage() for r in caplog.records if r.name == "mcts_agents.adapters"]
    name = evaluator_name(evaluator)
    assert f"the evaluator {name} takes about" in hint and "% of the search time" in hint
    assert "rules of" not in hint
    share = float(hint.split("takes about ")[1].split("%")[0])
    assert 50 <= share <= 100


def test_the_rules_hint_suggests_a_time_limit_only_where_none_is_set(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = tic_tac_toe_v0.env()
    env.reset(seed=0)
    game = env.unwrapped.game
    hints = []
    for time_limit in (None, 0.5):
        monkeypatch.setattr(adapters, "_HINTED", set())
        with caplog.at_level(logging.WARNING, logger="mcts_agents.adapters"):
            caplog.clear()
            assert hint_if_slow(env, game, 3, 1.0, time_limit=time_limit)
        [hint] = [r.getMessage() for r in caplog.records if r.name == "mcts_agents.adapters"]
        hints.append(hint)
    assert "rules of MNK" in hints[0] and "a time_limit" in hints[0]
    assert "rules of MNK" in hints[1] and "time_limit" not in hints[1]


def test_the_evaluator_share_is_the_timed_calls_over_the_search_time() -> None:
    env = tic_tac_toe_v0.env()
    env.reset(seed=0)
    game, state = env.unwrapped.game, env.unwrapped.state
    # 10 calls of at least 20 ms each in a 10 s search: at least 2%, far below 100%
    share = evaluator_share(sleepy_evaluator, game, state, 10, 10.0)
    assert 0.02 <= share < 1.0
    assert evaluator_share(sleepy_evaluator, game, state, 1000, 0.5) == 1.0  # capped
    # a batch of 4 a call: 8 simulations are 2 calls of at least 50 ms
    assert 0.01 <= evaluator_share(SleepyBatch(), game, state, 8, 10.0, batch_size=4) < 1.0
