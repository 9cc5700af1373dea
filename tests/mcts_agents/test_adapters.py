"""``mcts_agents.adapters``: the search's view of live envs, checked against the envs themselves.

Differential tests play random games in PettingZoo's classic envs and Shimmy's OpenSpiel wrapper
side by side with the adapter's ``Game`` and compare legal moves, observations and outcomes at
every step; fingerprints prove the live env is left bit for bit as it was.
"""

from __future__ import annotations

import copy
import importlib
import os
import random
import threading
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest
from gymnasium import spaces
from hypothesis import given, settings
from hypothesis import strategies as st
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from mcts_agents.adapters import EnvGame, OpenSpielGame, game_from_env
from mcts_agents.cloning import clone_env
from mcts_agents.envs import connect_four_v0
from mcts_agents.errors import (
    CloneError,
    GameOverError,
    IllegalActionError,
    NoLegalActionError,
    NotResetError,
)
from mcts_agents.game import default_rollout

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")  # pygame surfaces without a screen
CLASSIC = ["connect_four_v3", "tictactoe_v3"]


def classic_env_fn(name: str) -> Callable[..., Any]:
    """``pettingzoo.classic.<name>.env``; needs pygame-ce (the `test` extra installs it)."""
    return importlib.import_module(f"pettingzoo.classic.{name}").env


# --------------------------------------------------------------------------- helpers
def fingerprint(obj: Any, seen: set[int] | None = None) -> Any:
    """Everything reachable from ``obj``, with object identities, built without copying.

    Arrays by dtype, shape and bytes; random generators by state; pygame surfaces by pixels;
    objects by their ``__dict__``; every mutable object with its ``id`` so that rebinding an
    attribute to an equal new object shows too.
    """
    seen = set() if seen is None else seen
    if isinstance(obj, (type(None), bool, int, float, str, bytes, np.generic)):
        return obj
    ident = id(obj)
    if ident in seen:
        return ("seen", ident)
    seen.add(ident)
    name = type(obj).__name__
    if isinstance(obj, np.ndarray):
        return (name, ident, obj.dtype.str, obj.shape, obj.tobytes())
    if isinstance(obj, np.random.Generator):
        return (name, ident, repr(obj.bit_generator.state))
    if type(obj).__module__.startswith("pygame"):
        import pygame

        if isinstance(obj, pygame.Surface):
            return (name, ident, obj.get_size(), pygame.image.tobytes(obj, "RGB"))
        return (name, ident)
    if isinstance(obj, dict):
        return (name, ident, tuple((k, fingerprint(v, seen)) for k, v in obj.items()))
    if isinstance(obj, (list, tuple, set, frozenset)):
        return (name, ident, tuple(fingerprint(v, seen) for v in obj))
    if "pyspiel" in type(obj).__module__:  # OpenSpiel states and games: by text and history
        return (name, ident, str(obj), repr(getattr(obj, "history", lambda: None)()))
    if hasattr(obj, "__dict__") and not callable(obj):
        return (name, ident, fingerprint(vars(obj), seen))
    return (name, ident, repr(obj))


def observations(env: Any) -> list[Any]:
    return [env.observe(agent) for agent in env.agents]


def same(a: Any, b: Any) -> bool:
    if isinstance(a, dict):
        return isinstance(b, dict) and list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(same(u, v) for u, v in zip(a, b, strict=True))
    if isinstance(a, np.ndarray):
        return isinstance(b, np.ndarray) and a.dtype == b.dtype and np.array_equal(a, b)
    return bool(a == b)


def mask_actions(env: Any) -> list[int]:
    agent = env.agent_selection
    observation = env.observe(agent)
    if isinstance(observation, dict) and "action_mask" in observation:
        return np.flatnonzero(observation["action_mask"]).tolist()
    return np.flatnonzero(env.infos[agent]["action_mask"]).tolist()


def is_over(env: Any) -> bool:
    agent = env.agent_selection
    return not env.agents or env.terminations[agent] or env.truncations[agent]


def play_random(env: Any, rng: random.Random, moves: int) -> None:
    for _ in range(moves):
        if is_over(env):
            return
        actions = mask_actions(env)
        env.step(actions[int(rng.random() * len(actions))])


def new_classic(name: str, render_mode: str | None = None, seed: int = 0) -> Any:
    env = classic_env_fn(name)(render_mode=render_mode)
    env.reset(seed=seed)
    return env


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


# --------------------------------------------------------------------------- classic envs
@pytest.mark.parametrize("render_mode", [None, "rgb_array"])
@pytest.mark.parametrize("name", CLASSIC)
def test_generic_game_agrees_with_classic_env_in_random_games(
    name: str, render_mode: str | None
) -> None:
    for seed in range(6):
        env = new_classic(name, render_mode, seed)
        rng = random.Random(seed)
        game, state = game_from_env(env)
        assert isinstance(game, EnvGame)
        assert game.num_players == 2
        while not is_over(env):
            assert not game.is_terminal(state)
            assert game.to_play(state) == env.possible_agents.index(env.agent_selection)
            assert game.legal_actions(state) == mask_actions(env)
            fresh_game, fresh = game_from_env(env)  # a new root agrees with the walked state
            assert fresh_game.key(fresh) == game.key(state)
            assert fresh_game.legal_actions(fresh) == game.legal_actions(state)
            actions = game.legal_actions(state)
            action = actions[int(rng.random() * len(actions))]
            state = game.next_state(state, action)
            env.step(action)
            assert same(observations(state.env), observations(env))
            assert state.env.agent_selection == env.agent_selection
        assert game.is_terminal(state)
        assert game.legal_actions(state) == []
        expected = tuple(float(env._cumulative_rewards[a]) for a in env.possible_agents)
        assert game.returns(state) == expected
        assert sorted(expected) in ([-1.0, 1.0], [0.0, 0.0])
        with pytest.raises(GameOverError):
            game_from_env(env)


@pytest.mark.parametrize("observe_first", [False, True])
@pytest.mark.parametrize("render_mode", [None, "rgb_array"])
@pytest.mark.parametrize("name", CLASSIC)
def test_live_classic_env_unchanged_by_game_and_playouts(
    name: str, render_mode: str | None, observe_first: bool
) -> None:
    env = new_classic(name, render_mode, seed=3)
    play_random(env, random.Random(3), 3)
    if observe_first:
        env.last()  # sets TerminateIllegalWrapper._prev_obs, as the usual agent loop does
    if render_mode is not None:
        env.render()
    obs_before = observations(env)  # observing first: it rebinds TerminateIllegal's _prev_obs
    before = fingerprint(env)
    game, root = game_from_env(env)
    assert isinstance(game, EnvGame)
    rng = random.Random(0)
    for _ in range(150):
        default_rollout(game, root, rng)
        game.rollout(root, rng)
    for action in game.legal_actions(root):
        game.key(game.next_state(root, action))
    assert fingerprint(env) == before
    assert same(observations(env), obs_before)
    if render_mode is not None:
        assert env.render().shape[-1] == 3  # the live env still draws


def test_clone_turns_rendering_off_and_shares_the_surface() -> None:
    env = new_classic("tictactoe_v3", "rgb_array")
    env.step(4)
    raw = env.unwrapped
    cloned = clone_env(env).unwrapped
    assert raw.render_mode == "rgb_array" and cloned.render_mode is None
    assert cloned.screen is raw.screen  # a pygame Surface is shared, never copied


def test_spaces_copied_from_live_env_once_then_shared_by_clones() -> None:
    env = new_classic("connect_four_v3")
    game, root = game_from_env(env)
    child = game.next_state(root, 3)
    live = env.unwrapped.action_spaces["player_0"]
    assert root.env.unwrapped.action_spaces["player_0"] is not live
    assert (
        child.env.unwrapped.action_spaces["player_0"]
        is root.env.unwrapped.action_spaces["player_0"]
    )


@pytest.mark.parametrize("name", CLASSIC)
def test_fast_rollout_plays_the_same_moves_as_default_rollout(name: str) -> None:
    env = new_classic(name)
    game, root = game_from_env(env)
    assert isinstance(game, EnvGame)
    fast = [game.rollout(root, random.Random(seed)) for seed in range(30)]
    slow = [default_rollout(game, root, random.Random(seed)) for seed in range(30)]
    assert fast == slow
    assert {r[0] for r in fast} <= {-1.0, 0.0, 1.0}
    assert all(r[0] == -r[1] for r in fast)


def test_next_state_refuses_illegal_action_and_leaves_state_untouched() -> None:
    env = new_classic("tictactoe_v3")
    env.step(4)
    game, root = game_from_env(env)
    before = fingerprint(root.env)
    with pytest.raises(IllegalActionError, match="4"):
        game.next_state(root, 4)
    game.next_state(root, 0)
    assert fingerprint(root.env) == before


# --------------------------------------------------------------------------- transpositions
def test_connect_four_keys_equal_for_transposed_move_orders() -> None:
    env = new_classic("connect_four_v3")
    game, root = game_from_env(env)

    def walk(moves: list[int]) -> Any:
        state = root
        for move in moves:
            state = game.next_state(state, move)
        return game.key(state)

    assert walk([0, 1, 2, 3]) == walk([2, 3, 0, 1]) == walk([2, 1, 0, 3])
    assert walk([0, 1, 2, 3]) != walk([1, 0, 2, 3])  # other stones in columns 0 and 1
    assert walk([3, 3]) != walk([3])
    other = new_classic("connect_four_v3")  # the live env reached the other way: same key
    for move in (2, 3, 0, 1):
        other.step(move)
    other_game, other_root = game_from_env(other)
    assert other_game.key(other_root) == walk([0, 1, 2, 3])


@settings(max_examples=25, deadline=None)
@given(
    columns=st.permutations(range(7)).map(lambda p: p[:6]),
    order_0=st.permutations(range(3)),
    order_1=st.permutations(range(3)),
)
def test_connect_four_keys_property_transposed_orders(
    columns: list[int], order_0: list[int], order_1: list[int]
) -> None:
    """Each player drops 3 stones in distinct columns: any order of each gives one position."""
    env = new_classic("connect_four_v3")
    game, root = game_from_env(env)
    mine, theirs = list(columns[:3]), list(columns[3:])
    keys = set()
    for ours, others in (
        (mine, theirs),
        ([mine[i] for i in order_0], [theirs[i] for i in order_1]),
    ):
        state = root
        for a, b in zip(ours, others, strict=True):
            state = game.next_state(game.next_state(state, a), b)
        keys.add(game.key(state))
    assert len(keys) == 1


# --------------------------------------------------------------------------- Shimmy + OpenSpiel
@pytest.mark.parametrize("game_name", ["connect_four", "tic_tac_toe"])
def test_openspiel_game_agrees_with_shimmy_env(game_name: str) -> None:
    import shimmy

    for seed in range(5):
        env = shimmy.OpenSpielCompatibilityV0(game_name=game_name)
        env.reset(seed=seed)
        rng = random.Random(seed)
        game, state = game_from_env(env)
        assert isinstance(game, OpenSpielGame)
        assert state is not env.unwrapped.game_state  # a clone: the live state is never exposed
        while not is_over(env):
            before = fingerprint(env)
            fresh_game, fresh = game_from_env(env)
            assert fingerprint(env) == before
            assert fresh_game.key(fresh) == game.key(state)
            assert game.to_play(state) == env.possible_agents.index(env.agent_selection)
            assert game.legal_actions(state) == mask_actions(env)
            actions = game.legal_actions(state)
            action = actions[int(rng.random() * len(actions))]
            child = game.next_state(state, action)
            assert str(state) != str(child)  # the parent was not touched
            state = child
            env.step(action)
        assert game.is_terminal(state)
        expected = tuple(float(env._cumulative_rewards[a]) for a in env.possible_agents)
        assert game.returns(state) == expected
        with pytest.raises(GameOverError):
            game_from_env(env)


def test_openspiel_live_env_unchanged_by_playouts_and_keys_transpose() -> None:
    import shimmy

    env = shimmy.OpenSpielCompatibilityV0(game_name="connect_four")
    env.reset(seed=0)
    env.step(3)
    before = fingerprint(env)
    history = env.unwrapped.game_state.history()
    game, root = game_from_env(env)
    assert isinstance(game, OpenSpielGame)
    rng = random.Random(0)
    fast = [game.rollout(root, random.Random(s)) for s in range(20)]
    assert fast == [default_rollout(game, root, random.Random(s)) for s in range(20)]
    for _ in range(200):
        default_rollout(game, root, rng)
    assert fingerprint(env) == before
    assert env.unwrapped.game_state.history() == history

    def walk(moves: list[int]) -> Any:
        state = root
        for move in moves:
            state = game.next_state(state, move)
        return game.key(state)

    assert walk([0, 1, 2, 4]) == walk([2, 4, 0, 1]) == walk([2, 1, 0, 4])
    assert walk([0, 1, 2, 4]) != walk([1, 0, 2, 4])  # the players swap columns 0 and 1
    with pytest.raises(IllegalActionError):
        game.next_state(root, 99)


def test_openspiel_game_with_chance_nodes_is_refused() -> None:
    import shimmy

    env = shimmy.OpenSpielCompatibilityV0(game_name="kuhn_poker")
    env.reset(seed=0)
    with pytest.raises(CloneError, match=r"OpenSpielCompatibilityV0.*kuhn_poker.*chance"):
        game_from_env(env)


def test_search_is_identical_through_pettingzoo_and_openspiel_connect_four() -> None:
    """Two adapters over two implementations of one game: same seed, the very same search."""
    import shimmy

    from mcts_agents import MCTSAgent

    ours = new_classic("connect_four_v3")
    theirs = shimmy.OpenSpielCompatibilityV0(game_name="connect_four")
    theirs.reset(seed=0)
    for action in (3, 2):
        ours.step(action)
        theirs.step(action)
    results = [MCTSAgent(iterations=400, seed=7).search(env) for env in (ours, theirs)]
    visits = [sorted((c.action, c.visits) for c in r.children) for r in results]
    assert visits[0] == visits[1]
    assert sum(v for _, v in visits[0]) >= 399


# --------------------------------------------------------------------------- our envs
def test_our_env_gives_its_rules_core_and_state() -> None:
    env = connect_four_v0.env()
    env.reset(seed=0)
    env.step(3)
    game, state = game_from_env(env)
    assert game is env.unwrapped.game
    assert state is env.unwrapped.state
    for action in (3, 4, 3, 4, 3, 4, 3):  # a vertical four for player_1 (who moved 3 first)
        env.step(action)
    with pytest.raises(GameOverError):
        game_from_env(env)
    while env.agents:
        env.step(None)
    with pytest.raises(GameOverError, match="no agents"):
        game_from_env(env)


# --------------------------------------------------------------------------- a toy AEC env
class Pile(AECEnv[str, dict[str, np.ndarray], int]):
    """Two players take 1 or 2 stones in turn from a pile; who takes the last one wins."""

    metadata = {"name": "pile_v0", "render_modes": [], "is_parallelizable": False}

    def __init__(self, stones: int = 7, mask_in: str = "observation") -> None:
        super().__init__()
        self.stones0 = stones
        self.mask_in = mask_in
        self.possible_agents = ["a", "b"]
        self.action_spaces = {a: spaces.Discrete(2) for a in self.possible_agents}
        self.observation_spaces = {
            a: spaces.Box(0, 100, shape=(1,), dtype=np.int64) for a in self.possible_agents
        }

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        self.stones = self.stones0
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self.agent_selection = "a"
        self._set_masks()

    def _mask(self, agent: str) -> np.ndarray:
        legal = agent == self.agent_selection and not self.terminations[agent]
        return np.array([legal and self.stones >= 1, legal and self.stones >= 2], dtype=np.int8)

    def _set_masks(self) -> None:
        if self.mask_in == "info":
            for agent in self.agents:
                self.infos[agent] = {"action_mask": self._mask(agent)}

    def observe(self, agent: str) -> Any:
        pile = np.array([self.stones], dtype=np.int64)
        if self.mask_in == "observation":
            return {"observation": pile, "action_mask": self._mask(agent)}
        return pile

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0.0
        self.stones -= int(action) + 1  # type: ignore[arg-type]
        other = "b" if agent == "a" else "a"
        self.rewards = dict.fromkeys(self.agents, 0.0)
        if self.stones <= 0:
            self.rewards = {agent: 1.0, other: -1.0}
            self.terminations = dict.fromkeys(self.agents, True)
        self.agent_selection = other
        self._set_masks()
        self._accumulate_rewards()


def pile_value(stones: int) -> float:
    """Exact value for the player to move: a multiple of 3 loses."""
    return -1.0 if stones % 3 == 0 else 1.0


@pytest.mark.parametrize("mask_in", ["observation", "info", "none"])
def test_toy_env_game_plays_exact_outcomes(mask_in: str) -> None:
    env = wrappers.OrderEnforcingWrapper(Pile(7, mask_in))
    env.reset()
    env.step(0)  # 6 stones left, b to move (a lost position for b)
    game, root = game_from_env(env)
    assert game.legal_actions(root) == [0, 1]
    assert game.to_play(root) == 1

    def solve(state: Any) -> float:
        """Exhaustive minimax through the adapter's Game, from player 1's view."""
        if game.is_terminal(state):
            return game.returns(state)[1]
        values = [solve(game.next_state(state, a)) for a in game.legal_actions(state)]
        return max(values) if game.to_play(state) == 1 else min(values)

    assert solve(root) == pile_value(6) == -1.0
    assert solve(game.next_state(root, 0)) == -pile_value(5) == -1.0  # b moved to 5: a wins


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


class KeyedPile(Pile):
    """Offers ``state_key()`` and ``is_reachable(key)`` like our envs do."""

    def state_key(self) -> Any:
        return (self.stones, self.agent_selection)

    def is_reachable(self, key: Any) -> bool:
        return bool(key[0] <= self.stones)


def test_env_state_key_and_is_reachable_are_used() -> None:
    env = KeyedPile(7)
    env.reset()
    game, root = game_from_env(env)
    child = game.next_state(root, 1)
    assert game.key(root) == (7, "a")
    assert game.key(child) == (5, "b")
    assert game.is_reachable(child, (4, "a"))  # type: ignore[attr-defined]
    assert not game.is_reachable(child, (6, "a"))  # type: ignore[attr-defined]
    plain_env = Pile(7)
    plain_env.reset()
    plain, plain_root = game_from_env(plain_env)
    assert not hasattr(plain, "is_reachable")
    assert plain.key(plain_root) != game.key(root)  # observation bytes, not state_key()


class Resign(AECEnv[str, dict[str, np.ndarray], int]):
    """Three players pass (0) or resign (1, reward -1) in turn; the last one standing wins (+1).

    A resigned agent is put to move first (``_deads_step_first``) and must step ``None`` while
    the others play on, as PettingZoo's API has it; after ``max_moves`` all are truncated.
    """

    metadata = {"name": "resign_v0", "render_modes": [], "is_parallelizable": False}

    def __init__(self, max_moves: int = 7) -> None:
        super().__init__()
        self.max_moves = max_moves
        self.possible_agents = ["p0", "p1", "p2"]
        self.action_spaces = {a: spaces.Discrete(2) for a in self.possible_agents}
        self.observation_spaces = {
            a: spaces.Box(0, 100, shape=(4,), dtype=np.int64) for a in self.possible_agents
        }

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        self.moves = 0
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self.agent_selection = "p0"
        self._skip_agent_selection = None

    def observe(self, agent: str) -> Any:
        alive = [a in self.agents and not self.terminations[a] for a in self.possible_agents]
        mover = agent == self.agent_selection and not self.terminations.get(agent, True)
        return {
            "observation": np.array([self.moves, *alive], dtype=np.int64),
            "action_mask": np.array([mover, mover], dtype=np.int8),
        }

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        self.moves += 1
        if action == 1:
            self.terminations[agent] = True
            self.rewards[agent] = -1.0
        alive = [a for a in self.agents if not self.terminations[a]]
        if len(alive) == 1:
            self.rewards[alive[0]] = 1.0
            self.terminations[alive[0]] = True
        elif self.moves >= self.max_moves:
            self.truncations = dict.fromkeys(self.agents, True)
        order = self.agents
        for step in range(1, len(order) + 1):  # the next agent still playing
            candidate = order[(order.index(agent) + step) % len(order)]
            if candidate in alive or step == len(order):
                self.agent_selection = candidate
                break
        self._accumulate_rewards()
        self._deads_step_first()


def test_game_steps_dead_agents_with_none_like_the_aec_loop() -> None:
    removed_midgame = 0
    for seed in range(40):
        env = Resign()
        env.reset()
        rng = random.Random(seed)
        game, state = game_from_env(env)
        totals = dict.fromkeys(env.possible_agents, 0.0)
        while not game.is_terminal(state):
            assert game.to_play(state) == env.possible_agents.index(env.agent_selection)
            assert game.legal_actions(state) == mask_actions(env) == [0, 1]
            assert game_from_env(env)[0].key(game_from_env(env)[1]) == game.key(state)
            action = rng.choice([0, 0, 1])
            state = game.next_state(state, action)
            env.step(action)
            for agent, reward in env.rewards.items():
                totals[agent] += reward
            while (
                env.agents
                and is_over(env)
                and not all(env.terminations[a] or env.truncations[a] for a in env.agents)
            ):
                env.step(None)  # what the usual loop does for a finished agent
            assert state.env.agents == env.agents
            assert same(observations(state.env), observations(env))
            removed_midgame += len(env.agents) == 2 and not game.is_terminal(state)
        assert game.returns(state) == tuple(totals[a] for a in env.possible_agents)
        with pytest.raises(GameOverError):
            game_from_env(env)
    assert removed_midgame > 10  # the dead-agent path was exercised


def test_toy_env_with_no_legal_action_while_live_raises() -> None:
    env = Pile(0)
    env.reset()
    with pytest.raises(NoLegalActionError):
        game_from_env(env)


def test_not_reset_env_and_non_aec_objects_are_refused() -> None:
    with pytest.raises(NotResetError, match="reset"):
        game_from_env(classic_env_fn("tictactoe_v3")())
    with pytest.raises(CloneError, match="AECEnv"):
        game_from_env(object())


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
