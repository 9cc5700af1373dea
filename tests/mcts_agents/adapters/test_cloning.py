"""``mcts_agents.adapters.cloning``: faithful clones of live AEC envs, and clear refusals.

Pins PettingZoo's EzPickle ``deepcopy`` bug; clones keep shared references shared, turn
rendering off while sharing the surface, rebind closures to the clone; uncloneable envs raise a
``CloneError`` naming their class and are left untouched.
"""

from __future__ import annotations

import copy
import threading
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest
from pettingzoo.utils import wrappers

from mcts_agents.adapters import game_from_env
from mcts_agents.adapters.cloning import clone_env
from mcts_agents.errors import CloneError
from tests.mcts_agents.adapters.support import Pile, fingerprint, new_classic, observations, same


# --------------------------------------------------------------------------- the EzPickle bug
def test_deepcopy_of_classic_env_mid_game_returns_fresh_board_upstream_bug() -> None:
    """Pins PettingZoo issues #1186/#1271/#1307: EzPickle rebuilds the env from its arguments.

    If this test fails, PettingZoo has fixed the bug: the generic cloner could then consider
    plain ``copy.deepcopy`` (still verified).
    """
    env = new_classic("tictactoe_v3")
    for action in (4, 0, 8):
        env.step(action)
    copied = copy.deepcopy(env)
    assert env.unwrapped.board.squares == [2, 0, 0, 0, 1, 0, 0, 0, 1]
    assert copied.unwrapped.board.squares == [0] * 9  # a fresh board: the upstream bug
    assert copied.agent_selection == "player_1" != env.agent_selection

    cloned = clone_env(env)
    assert cloned.unwrapped.board.squares == env.unwrapped.board.squares
    assert cloned.unwrapped.board is not env.unwrapped.board
    assert cloned.agent_selection == env.agent_selection == "player_2"
    assert same(observations(cloned), observations(env))
    cloned.step(1)  # the clone plays on without touching the original
    assert env.unwrapped.board.squares == [2, 0, 0, 0, 1, 0, 0, 0, 1]
    assert cloned.unwrapped.board.squares == [2, 2, 0, 0, 1, 0, 0, 0, 1]


def test_clone_keeps_shared_references_shared() -> None:
    """tictactoe's AgentSelector holds the env's own ``agents`` list: so must the clone's."""
    env = new_classic("tictactoe_v3")
    env.step(4)
    raw = env.unwrapped
    assert raw._agent_selector.agent_order is raw.agents
    cloned = clone_env(env).unwrapped
    assert cloned._agent_selector.agent_order is cloned.agents
    assert cloned.agents is not raw.agents


# --------------------------------------------------------------------------- rendering
def test_clone_turns_rendering_off_and_shares_the_surface() -> None:
    env = new_classic("tictactoe_v3", "rgb_array")
    env.step(4)
    raw = env.unwrapped
    cloned = clone_env(env).unwrapped
    assert raw.render_mode == "rgb_array" and cloned.render_mode is None
    assert cloned.screen is raw.screen  # a pygame Surface is shared, never copied


# --------------------------------------------------------------------------- closures
class ClosurePile(Pile):
    """Reads its pile through a closure over ``self``: a clone's closure must reach the clone."""

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        super().reset(seed, options)
        self.count = lambda: self.stones

    def observe(self, agent: str) -> Any:
        observation = super().observe(agent)
        observation["observation"] = np.array([self.count()], dtype=np.int64)
        return observation


def test_clone_rebinds_closures_over_the_env() -> None:
    env = ClosurePile(7)
    env.reset()
    cloned = clone_env(env)
    cloned.step(1)
    assert cloned.observe("b")["observation"][0] == 5
    assert env.observe("b")["observation"][0] == 7
    game, root = game_from_env(env)
    assert game.key(game.next_state(root, 0)) != game.key(game.next_state(root, 1))


# --------------------------------------------------------------------------- uncloneable envs
class LockedPile(Pile):
    def __init__(self) -> None:
        super().__init__()
        self.lock = threading.Lock()


def _counter() -> Iterator[int]:
    yield from range(100)


class GeneratorPile(Pile):
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        super().reset(seed, options)
        self.ticks = {"clock": [_counter()]}


class FreshStones:
    """A pile holder whose ``__deepcopy__`` forgets the count (like EzPickle's rebuild)."""

    def __init__(self, n: int) -> None:
        self.n = n

    def __deepcopy__(self, memo: dict[int, Any]) -> FreshStones:
        return FreshStones(0)


class ForgetfulPile(Pile):
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        super().reset(seed, options)
        self.holder = FreshStones(self.stones)

    def observe(self, agent: str) -> Any:
        observation = super().observe(agent)
        observation["observation"] = np.array([self.holder.n], dtype=np.int64)
        return observation


_REGISTRY: dict[int, int] = {}


class RegistryPile(Pile):
    """Keeps its bonus in a module-level registry keyed by ``id(self)``: a clone has none."""

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        super().reset(seed, options)
        _REGISTRY[id(self)] = 5

    def observe(self, agent: str) -> Any:
        observation = super().observe(agent)
        observation["observation"] = observation["observation"] + _REGISTRY.get(id(self), 0)
        return observation


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (LockedPile, r"LockedPile.*\.env\.lock is a lock"),
        (GeneratorPile, r"GeneratorPile.*\.env\.ticks\['clock'\]\[0\] is a generator"),
        (ForgetfulPile, r"ForgetfulPile.*observation of 'a' differs"),
        (RegistryPile, r"RegistryPile.*observation of 'a' differs"),
    ],
)
def test_uncloneable_env_raises_clone_error_naming_the_class(
    make: Callable[[], Pile], message: str
) -> None:
    env = wrappers.OrderEnforcingWrapper(make())
    env.reset()
    before = fingerprint(env)
    with pytest.raises(CloneError, match=message):
        game_from_env(env)
    assert fingerprint(env) == before
    with pytest.raises(CloneError):
        clone_env(env)
