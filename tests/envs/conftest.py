"""Shared fixtures: every registered env variant, by id."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest

from mcts_agents import envs
from mcts_agents.envs import InvalidStateError

VARIANTS: list[tuple[str, str, dict[str, Any]]] = [
    (module, variant, kwargs)
    for module, variants in envs.ENV_MODULES.items()
    for variant, kwargs in variants.items()
]


def make_factory(module: str, kwargs: dict[str, Any]) -> Callable[..., Any]:
    env_module = envs.load(module)

    def factory(**extra: Any) -> Any:
        return env_module.env(**kwargs, **extra)

    def raw_factory(**extra: Any) -> Any:
        return env_module.raw_env(**kwargs, **extra)

    factory.raw = raw_factory  # type: ignore[attr-defined]
    return factory


@pytest.fixture(params=VARIANTS, ids=[v[1] for v in VARIANTS])
def env_fn(request: pytest.FixtureRequest) -> Callable[..., Any]:
    module, _, kwargs = request.param
    return make_factory(module, kwargs)


def random_line(raw: Any, rng: random.Random, max_moves: int = 10_000) -> list[int]:
    """Play random legal moves on a reset raw env to the end; return the moves."""
    moves = []
    while not raw.game.is_terminal(raw.state) and len(moves) < max_moves:
        action = rng.choice(raw.legal_actions())
        raw.step(action)
        moves.append(action)
    return moves


def play_against_openspiel(env: Any, reference: Any, rng: random.Random, games: int) -> list[Any]:
    """Random games on our raw ``env`` and OpenSpiel's ``reference`` game side by side.

    For games whose action encodings agree: at every step the terminal flag, the legal actions
    and the player to move must be equal, and at the end the returns. Returns each game's
    final returns.
    """
    outcomes = []
    for _ in range(games):
        env.reset()
        spiel = reference.new_initial_state()
        while True:
            over = env.game.is_terminal(env.state)
            assert over == spiel.is_terminal()
            if over:
                break
            assert env.legal_actions() == sorted(spiel.legal_actions())
            assert env.agent_selection == f"player_{spiel.current_player()}"
            action = rng.choice(env.legal_actions())
            env.step(action)
            spiel.apply_action(action)
        returns = [env.rewards[agent] for agent in env.possible_agents]
        assert returns == list(spiel.returns())
        outcomes.append(returns)
    return outcomes


def assert_state_refused(raw: Any, state: Any, match: str) -> None:
    """``restore_state`` refuses a snapshot of ``raw`` holding ``state`` with an
    ``InvalidStateError`` whose message matches ``match``, leaves the env as it was, and
    ``is_reachable(state)`` is False (junk is never reachable)."""
    snapshot = raw.save_state()
    with pytest.raises(InvalidStateError, match=match):
        raw.restore_state(replace(snapshot, state=state))
    assert raw.save_state() == snapshot
    assert raw.is_reachable(state) is False
