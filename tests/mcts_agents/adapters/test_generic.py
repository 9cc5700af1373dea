"""``mcts_agents.adapters.generic``: ``EnvGame`` over clones of PettingZoo classic and toy envs.

Differential tests play random games in PettingZoo's classic envs side by side with the
generic adapter's ``Game`` (called as ``env_game``: ``game_from_env`` gives these envs a fast
path) and compare legal moves, observations and outcomes at every step; fingerprints prove the
live env is left bit for bit as it was. Toy AEC envs check exact outcomes,
``state_key``/``is_reachable``, dead agents stepped with ``None`` and stuck envs, and the
refusals that keep the generic path from peeking (hidden cards, dice in ``step``).
"""

from __future__ import annotations

import logging
import random
import time
from typing import Any, ClassVar

import gymnasium
import numpy as np
import pytest
from gymnasium import spaces
from hypothesis import given, settings
from hypothesis import strategies as st
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from mcts_agents import MCTSAgent
from mcts_agents.adapters import EnvGame, game_from_env
from mcts_agents.adapters.generic import env_game
from mcts_agents.errors import (
    CloneError,
    GameOverError,
    IllegalActionError,
    InvalidStateError,
    NoLegalActionError,
)
from mcts_agents.search.game import default_rollout
from tests.mcts_agents.adapters.support import (
    Pile,
    fingerprint,
    is_over,
    mask_actions,
    new_classic,
    observations,
    same,
)

CLASSIC = ["connect_four_v3", "tictactoe_v3"]


# --------------------------------------------------------------------------- helpers
def play_random(env: Any, rng: random.Random, moves: int) -> None:
    for _ in range(moves):
        if is_over(env):
            return
        actions = mask_actions(env)
        env.step(actions[int(rng.random() * len(actions))])


# --------------------------------------------------------------------------- classic envs
@pytest.mark.parametrize("render_mode", [None, "rgb_array"])
@pytest.mark.parametrize("name", CLASSIC)
def test_generic_game_agrees_with_classic_env_in_random_games(
    name: str, render_mode: str | None
) -> None:
    for seed in range(6):
        env = new_classic(name, render_mode, seed)
        rng = random.Random(seed)
        game, state = env_game(env)
        assert isinstance(game, EnvGame)
        assert game.num_players == 2
        while not is_over(env):
            assert not game.is_terminal(state)
            assert game.to_play(state) == env.possible_agents.index(env.agent_selection)
            assert game.legal_actions(state) == mask_actions(env)
            fresh_game, fresh = env_game(env)  # a new root agrees with the walked state
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
    game, root = env_game(env)
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


def test_spaces_copied_from_live_env_once_then_shared_by_clones() -> None:
    env = new_classic("connect_four_v3")
    game, root = env_game(env)
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
    game, root = env_game(env)
    assert isinstance(game, EnvGame)
    fast = [game.rollout(root, random.Random(seed)) for seed in range(30)]
    slow = [default_rollout(game, root, random.Random(seed)) for seed in range(30)]
    assert fast == slow
    assert {r[0] for r in fast} <= {-1.0, 0.0, 1.0}
    assert all(r[0] == -r[1] for r in fast)


def test_next_state_refuses_illegal_action_and_leaves_state_untouched() -> None:
    env = new_classic("tictactoe_v3")
    env.step(4)
    game, root = env_game(env)
    before = fingerprint(root.env)
    with pytest.raises(IllegalActionError, match="4"):
        game.next_state(root, 4)
    game.next_state(root, 0)
    assert fingerprint(root.env) == before


# --------------------------------------------------------------------------- transpositions
def test_connect_four_keys_equal_for_transposed_move_orders() -> None:
    env = new_classic("connect_four_v3")
    game, root = env_game(env)

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
    other_game, other_root = env_game(other)
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
    game, root = env_game(env)
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


# --------------------------------------------------------------------------- toy AEC envs
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


class ToyAEC(AECEnv[str, dict[str, np.ndarray], int]):
    """A hand-written AEC env: spaces from the dicts ``__init__`` fills."""

    def observation_space(self, agent: str) -> Any:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> Any:
        return self.action_spaces[agent]


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
            # the same position: the same agent, agents and observations (the key's last parts
            # are the rewards since each search's root, which differ once rewards are paid)
            fresh_game, fresh = game_from_env(env)
            assert fresh_game.key(fresh)[:3] == game.key(state)[:3]
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


# --------------------------------------------------------------------------- never peek silently
class HiddenCard(ToyAEC):
    """One player guesses a card dealt face down at reset (the audit's hidden-card env)."""

    metadata: ClassVar[dict[str, Any]] = {"name": "hidden_card_v0", "is_parallelizable": False}

    def __init__(self) -> None:
        super().__init__()
        self.possible_agents = ["guesser", "dealer"]
        self.action_spaces = dict.fromkeys(self.possible_agents, spaces.Discrete(3))
        mask = spaces.Box(0, 1, (3,), np.int8)
        space = spaces.Dict({"observation": spaces.Box(0, 1, (1,), np.int8), "action_mask": mask})
        self.observation_spaces = dict.fromkeys(self.possible_agents, space)

    def reset(self, seed: int | None = None, options: Any = None) -> None:
        self.np_random, _ = gymnasium.utils.seeding.np_random(seed)
        self.card = int(self.np_random.integers(3))
        self.agents = self.possible_agents[:]
        self.agent_selection = "guesser"
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        mask = np.ones(3, np.int8) if agent == self.agent_selection else np.zeros(3, np.int8)
        return {"observation": np.zeros(1, np.int8), "action_mask": mask}

    def step(self, action: Any) -> None:
        if self.terminations[self.agent_selection]:
            self._was_dead_step(action)
            return
        self.rewards = {"guesser": 1.0 if action == self._draw(action) else -1.0, "dealer": 0.0}
        self.rewards["dealer"] = -self.rewards["guesser"]
        self.terminations = dict.fromkeys(self.agents, True)
        self._accumulate_rewards()

    def _draw(self, action: int) -> int:
        return self.card


class DieAfterTheCall(HiddenCard):
    """Call a number, then a die (0-2) is rolled inside ``step`` (the audit's dice env)."""

    def reset(self, seed: int | None = None, options: Any = None) -> None:
        super().reset(seed, options)
        self.card = 0  # nothing drawn at reset

    def _draw(self, action: int) -> int:
        return int(self.np_random.integers(3))


def test_an_env_that_deals_hidden_cards_at_reset_is_refused_by_default() -> None:
    env = HiddenCard()
    env.reset(seed=1)
    with pytest.raises(CloneError, match=r"randomness at reset \(env.unwrapped.card\).*'oracle'"):
        MCTSAgent(iterations=50, seed=0).act(env)
    before = fingerprint(env)
    right = sum(
        MCTSAgent(iterations=50, seed=s, information="oracle").act(env) == env.card
        for s in range(20)
    )
    assert right == 20  # the oracle reads the card: that is what asking for it means
    assert fingerprint(env) == before


def test_an_env_that_draws_randomness_in_step_is_refused_by_default() -> None:
    env = DieAfterTheCall()
    env.reset(seed=1)
    with pytest.raises(CloneError, match=r"draws randomness inside step.*'oracle'"):
        MCTSAgent(iterations=50, seed=0).act(env)


def test_simultaneous_move_envs_are_refused() -> None:
    from pettingzoo.classic import rps_v2

    env = rps_v2.env()
    env.reset(seed=0)
    with pytest.raises(CloneError, match="simultaneous moves"):
        MCTSAgent(iterations=50, seed=0).act(env)


# --------------------------------------------------------------------------- keys that never merge
class SecretTotal(ToyAEC):
    """Two players add 0-3 to a hidden total in turn, two moves each; the first player wins if the
    total ends at exactly 7. Every observation is the move number only (no randomness)."""

    metadata: ClassVar[dict[str, Any]] = {"name": "secret_total_v0", "is_parallelizable": False}

    def __init__(self, target: int = 7, moves: int = 4, one_shot: bool = False) -> None:
        super().__init__()
        self.target, self.moves, self.one_shot = target, moves, one_shot
        self.possible_agents = ["a", "b"]
        self.action_spaces = dict.fromkeys(self.possible_agents, spaces.Discrete(4))
        box = spaces.Box(0, 10, (1,), np.int64)
        mask = spaces.Box(0, 1, (4,), np.int8)
        space = spaces.Dict({"observation": box, "action_mask": mask})
        self.observation_spaces = dict.fromkeys(self.possible_agents, space)

    def reset(self, seed: int | None = None, options: Any = None) -> None:
        self.total = self.played = 0
        self.agents = self.possible_agents[:]
        self.agent_selection = "a"
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        live = agent == self.agent_selection and not self.terminations[agent]
        mask = np.ones(4, np.int8) if live else np.zeros(4, np.int8)
        return {"observation": np.array([self.played], np.int64), "action_mask": mask}

    def step(self, action: Any) -> None:
        if self.terminations[self.agent_selection]:
            self._was_dead_step(action)
            return
        self.total += int(action)
        self.played += 1
        if self.played == self.moves:
            won = self.total == self.target
            self.rewards = {"a": 1.0 if won else -1.0, "b": -1.0 if won else 1.0}
            self.terminations = dict.fromkeys(self.agents, True)
        elif not self.one_shot:
            self.agent_selection = "b" if self.agent_selection == "a" else "a"
        self._accumulate_rewards()


def test_a_win_hidden_from_the_final_observation_is_found_every_time() -> None:
    """The audit's one-move env: only action 2 wins and the end shows no move. With rewards
    in the key the children stay apart (4 times in 20 before)."""
    found = 0
    for seed in range(20):
        env = SecretTotal(target=2, moves=1, one_shot=True)
        env.reset()
        found += MCTSAgent(iterations=200, seed=seed).act(env) == 2
    assert found == 20


def test_states_the_observations_cannot_tell_apart_are_not_merged() -> None:
    """Player a needs the total to reach 7 over four moves; the observation is only the move
    count. Merged states would mix totals; kept apart, the solver proves a's value exactly:
    b can always spoil 7 (a plays x, b answers to keep the total off reach). b does not see the
    total: searched as if it did, on purpose (``information="oracle"``)."""
    env = SecretTotal()
    env.metadata = {**SecretTotal.metadata, "return_range": (-1, 1)}  # a proof may say "loss"
    env.reset()
    game, state = game_from_env(env, oracle=True)
    one = game.next_state(game.next_state(state, 0), 1)
    other = game.next_state(game.next_state(state, 1), 0)  # the same total: may merge
    third = game.next_state(game.next_state(state, 1), 1)  # another total: must not
    assert game.key(one) == game.key(other) != game.key(third)
    result = MCTSAgent(iterations=20_000, seed=0, information="oracle").search(env)
    assert result.proven == "loss"  # b can always keep the total from 7 (exact: by hand below)
    assert exact_value(0, 0) == -1.0


def exact_value(total: int, played: int) -> float:
    """Minimax value for a of SecretTotal(7, 4), by brute force (a moves at even plies)."""
    if played == 4:
        return 1.0 if total == 7 else -1.0
    values = [exact_value(total + x, played + 1) for x in range(4)]
    return max(values) if played % 2 == 0 else min(values)


class PaysTheWinner(Pile):
    """``Pile`` whose winner is paid ``pay`` (the loser nothing); ``declared``: its
    ``metadata["return_range"]``."""

    def __init__(self, pay: float, declared: tuple[float, float] | None = None) -> None:
        super().__init__(stones=3)
        self.pay = pay
        if declared is not None:
            self.metadata = {**Pile.metadata, "return_range": declared}

    def step(self, action: int | None) -> None:
        super().step(action)
        if any(self.terminations.values()):
            winner = max(self.rewards, key=self.rewards.__getitem__)
            self.rewards = {a: self.pay if a == winner else 0.0 for a in self.agents}
            self._cumulative_rewards = dict(self.rewards)


@pytest.mark.parametrize("declared", [None, (-1.0, 1.0)])
@pytest.mark.parametrize("pay", [float("nan"), float("inf")])
def test_an_env_paying_a_return_that_is_not_finite_is_an_error_naming_it(
    pay: float, declared: tuple[float, float] | None
) -> None:
    """It said: proven "draw", value nan."""
    env = PaysTheWinner(pay, declared)
    env.reset()
    with pytest.raises(InvalidStateError, match=r"PaysTheWinner \(pile_v0\).* finite number"):
        MCTSAgent(iterations=50, seed=0).search(env)


def test_an_env_paying_outside_its_declared_range_is_an_error_naming_it() -> None:
    """Declared (-1, 1), paying +5: it said value 5.0, with no word."""
    env = PaysTheWinner(5.0, (-1.0, 1.0))
    env.reset()
    with pytest.raises(
        InvalidStateError, match=r"PaysTheWinner \(pile_v0\).* outside \[-1, 1\].*return_range"
    ):
        MCTSAgent(iterations=50, seed=0).search(env)
    undeclared = PaysTheWinner(5.0)  # no range declared: it is learned
    undeclared.reset()
    result = MCTSAgent(iterations=200, seed=0).search(undeclared)
    assert result.return_range == (-1.0, 5.0) and result.best_action == 1  # take both: win


class Endless(Pile):
    """``Pile`` whose moves add stones: both are legal forever and the game never ends. Past
    ``GUARD`` stones a step raises, so that a search that does not bound its playouts fails
    here instead of hanging."""

    metadata = {**Pile.metadata, "name": "endless_v0"}
    GUARD = 1_000_000

    def step(self, action: int | None) -> None:
        if self.stones > self.GUARD:
            raise RuntimeError(f"{self.stones} stones: nothing bounded the playout")
        super().step(action)
        self.stones += 2 * (int(action) + 1)  # type: ignore[arg-type]


def test_an_env_that_never_ends_is_searched_within_its_time_limit(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """``MCTSAgent(time_limit=2).search(env)`` never returned: the playouts on clones went on
    forever. Now each stops at the cap (one warning) or once the time is up."""
    env = Endless()
    env.reset()
    with caplog.at_level(logging.WARNING, logger="mcts_agents.search.playouts"):
        result = MCTSAgent(iterations=3, seed=0).search(env)  # playouts of 10,000 moves
    assert result.best_action in (0, 1) and result.root_value == 0.0  # cut: a draw
    assert env.stones == 7  # the live env untouched
    warnings = [r.getMessage() for r in caplog.records if r.name.endswith("playouts")]
    assert len(warnings) == 1  # once, though every playout reached the cap
    assert "EnvGame(Endless (endless_v0))" in warnings[0] and "10000 moves" in warnings[0]
    start = time.perf_counter()
    MCTSAgent(time_limit=0.3, seed=0, playout_cap=10**9).search(env)  # the clock alone
    assert time.perf_counter() - start < 20.0  # a 0.3 s bound; slack for a loaded machine
