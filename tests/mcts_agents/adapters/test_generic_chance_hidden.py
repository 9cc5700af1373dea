"""The generic path's randomness from the global generators, hidden state and unknown returns.

Three envs of the audit: dice rolled in ``step`` with Python's (or numpy's) global generator,
matching pennies with the first player's coin hidden from the second, and ``OneMove`` paying
``[1, 5, 2, -3]`` with no declared return range.
"""

from __future__ import annotations

import random
from typing import Any, ClassVar

import numpy as np
import pytest
from gymnasium import spaces
from pettingzoo import AECEnv

from mcts_agents import MCTSAgent
from mcts_agents.adapters import EnvGame, game_from_env
from mcts_agents.errors import CloneError
from mcts_agents.search.config import Budget, SearchConfig
from mcts_agents.search.game import CHANCE
from mcts_agents.search.mcts import MCTS
from mcts_agents.search.tree import Node
from tests.mcts_agents.adapters.support import fingerprint, new_classic


class OneTurn(AECEnv[str, dict[str, np.ndarray], int]):
    """Base of the toy envs: agents, spaces and bookkeeping; ``step`` is the subclass's."""

    metadata: ClassVar[dict[str, Any]] = {"name": "one_turn_v0", "is_parallelizable": False}
    agent_names: ClassVar[list[str]] = ["p0"]
    actions = 3

    def __init__(self) -> None:
        super().__init__()
        self.possible_agents = list(self.agent_names)
        self.action_spaces = dict.fromkeys(self.possible_agents, spaces.Discrete(self.actions))
        mask = spaces.Box(0, 1, (self.actions,), np.int8)
        box = spaces.Box(0, 10, (1,), np.int64)
        space = spaces.Dict({"observation": box, "action_mask": mask})
        self.observation_spaces = dict.fromkeys(self.possible_agents, space)

    def observation_space(self, agent: str) -> Any:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> Any:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: Any = None) -> None:
        self.moves = 0
        self.agents = self.possible_agents[:]
        self.agent_selection = self.agents[0]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        live = agent == self.agent_selection and not self.terminations[agent]
        mask = np.full(self.actions, int(live), np.int8)
        return {"observation": np.array([self.moves], np.int64), "action_mask": mask}

    def finish(self, rewards: dict[str, float]) -> None:
        self.rewards = rewards
        self.terminations = dict.fromkeys(self.agents, True)
        self._accumulate_rewards()


class DiceCall(OneTurn):
    """Call a number 0-2, then a die is rolled in ``step`` with the global generator: +1 if it
    shows the call, else -1 (every call is worth -1/3). ``source``: ``random`` or ``numpy``."""

    metadata: ClassVar[dict[str, Any]] = {
        "name": "dice_call_v0",
        "is_parallelizable": False,
        "return_range": (-1, 1),
    }

    def __init__(self, source: str = "random") -> None:
        super().__init__()
        self.source = source

    def step(self, action: Any) -> None:
        if self.terminations[self.agent_selection]:
            self._was_dead_step(action)
            return
        die = int(random.random() * 3) if self.source == "random" else int(np.random.randint(3))
        self.moves += 1
        self.finish({"p0": 1.0 if die == action else -1.0})


class MatchingPennies(OneTurn):
    """p0 lays a coin (0 or 1) face down, then p1 calls it: p1 wins +1 on a match, else -1.
    Both observe only how many moves were made: p0's coin lives in the env alone."""

    metadata: ClassVar[dict[str, Any]] = {
        "name": "matching_pennies_v0",
        "is_parallelizable": False,
        "return_range": (-1, 1),
    }
    agent_names: ClassVar[list[str]] = ["p0", "p1"]
    actions = 2

    def step(self, action: Any) -> None:
        if self.terminations[self.agent_selection]:
            self._was_dead_step(action)
            return
        self.moves += 1
        if self.agent_selection == "p0":
            self.coin = int(action)
            self.agent_selection = "p1"
            self._clear_rewards()
            return
        won = 1.0 if int(action) == self.coin else -1.0
        self.finish({"p0": -won, "p1": won})


class OneMove(OneTurn):
    """One move, paying ``PAYS[action]``; no return range declared."""

    PAYS: ClassVar[list[float]] = [1.0, 5.0, 2.0, -3.0]
    actions = 4

    def step(self, action: Any) -> None:
        if self.terminations[self.agent_selection]:
            self._was_dead_step(action)
            return
        self.moves += 1
        self.finish({"p0": self.PAYS[int(action)]})


def global_states() -> tuple[Any, Any]:
    return random.getstate(), np.random.get_state()


def same_global_states(a: tuple[Any, Any], b: tuple[Any, Any]) -> bool:
    return a[0] == b[0] and all(
        np.array_equal(x, y) if isinstance(x, np.ndarray) else x == y
        for x, y in zip(a[1], b[1], strict=True)
    )


# --------------------------------------------------------------------------- global dice
@pytest.mark.parametrize("source", ["random", "numpy"])
def test_dice_from_the_global_generator_are_searched_as_chance_not_proven(source: str) -> None:
    env = DiceCall(source)
    env.reset()
    random.seed(7)
    np.random.seed(7)
    before, live = global_states(), fingerprint(env)
    agent = MCTSAgent(iterations=300, seed=0)
    result = agent.search(env)
    assert result.proven is None
    assert all(child.proven is None for child in result.children)
    # each call is worth -1/3: its mean mixes wins and losses, as fresh draws give
    assert all(-1.0 < child.value < 1.0 for child in result.children)
    table: list[Node] = list(agent.searcher.table)  # type: ignore[union-attr]
    chance = [node for node in table if node.to_play == CHANCE]
    assert len(chance) == 3  # one per call
    for node in chance:
        assert node.proven is None
        assert len({child.key for child in node.children}) == 2  # the die hit and missed
    # the search drew with its own generator: the program's streams and the env are untouched
    assert same_global_states(global_states(), before)
    assert fingerprint(env) == live
    again = MCTSAgent(iterations=300, seed=0).search(env)
    assert again.children == result.children  # same seed, same search


class DiceOrPass(DiceCall):
    """``DiceCall`` with a fourth action, 3: pass, for a sure 0 and no roll."""

    actions = 4

    def step(self, action: Any) -> None:
        if action == 3 and not self.terminations[self.agent_selection]:
            self.moves += 1
            self.finish({"p0": 0.0})
            return
        super().step(action)


@pytest.mark.parametrize("seed", range(5))
def test_a_sure_zero_beats_calls_worth_minus_a_third_under_fresh_draws(seed: int) -> None:
    """Searched as deterministic, the first roll after a call decided it: a lucky call was a
    "proven win" and played."""
    env = DiceOrPass()
    env.reset()
    result = MCTSAgent(iterations=600, seed=seed).search(env)
    assert result.best_action == 3
    assert result.proven is None
    assert result.child(3).proven == "draw"  # no roll: its value is exact
    for call in range(3):
        assert result.child(call).proven is None


def test_a_step_that_draws_globally_becomes_a_chance_node_with_seeded_outcomes() -> None:
    env = DiceCall()
    env.reset()
    game, root = game_from_env(env)
    assert isinstance(game, EnvGame) and game.has_chance
    chance = game.next_state(root, 1)
    assert game.is_chance(chance) and game.to_play(chance) == CHANCE  # type: ignore[attr-defined]
    assert game.draws_globally
    outcomes = game.chance_outcomes(chance)  # type: ignore[attr-defined]
    assert len(outcomes) > 100 and sum(p for _, p in outcomes) == pytest.approx(1.0)
    first = [game.returns(game.next_state(chance, j)) for j in range(40)]
    assert first == [game.returns(game.next_state(chance, j)) for j in range(40)]  # seeded
    assert {r[0] for r in first} == {-1.0, 1.0}


def test_global_draws_in_a_rollout_come_from_the_search_generator() -> None:
    env = DiceCall()
    env.reset()
    game, root = game_from_env(env)
    game.next_state(root, 0)  # seen drawing: playouts now seed the globals from their rng
    before = global_states()
    one = [game.rollout(root, random.Random(s)) for s in range(30)]  # type: ignore[attr-defined]
    assert one == [game.rollout(root, random.Random(s)) for s in range(30)]  # type: ignore[attr-defined]
    assert {r[0] for r in one} == {-1.0, 1.0}
    assert same_global_states(global_states(), before)


# --------------------------------------------------------------------------- hidden state
def pennies_at_p1(coin: int, **metadata: Any) -> MatchingPennies:
    env = MatchingPennies()
    env.metadata = {**MatchingPennies.metadata, **metadata}
    env.reset()
    env.step(coin)
    return env


@pytest.mark.parametrize("coin", [0, 1])
def test_matching_pennies_hidden_coin_is_refused_without_oracle(coin: int) -> None:
    env = pennies_at_p1(coin)
    before = fingerprint(env)
    with pytest.raises(CloneError, match=r"hides state.*'p1'.*env.coin.*information='oracle'"):
        MCTSAgent(iterations=50, seed=0).act(env)
    assert fingerprint(env) == before
    # with the oracle asked for by name it plays, and reads the coin: the cheat it asked for
    assert MCTSAgent(iterations=50, seed=0, information="oracle").act(env) == coin
    assert fingerprint(env) == before


def test_matching_pennies_is_refused_at_the_first_players_turn_too() -> None:
    env = MatchingPennies()
    env.reset()
    with pytest.raises(CloneError, match="oracle"):
        MCTSAgent(iterations=50, seed=0).act(env)


def test_the_envs_declared_perfect_information_decides() -> None:
    declared_hidden = pennies_at_p1(0, perfect_information=False)
    with pytest.raises(CloneError, match=r"declares perfect_information False.*'oracle'"):
        game_from_env(declared_hidden)
    game_from_env(declared_hidden, oracle=True)
    trusted = pennies_at_p1(0, perfect_information=True)  # the env's word: not probed
    assert MCTSAgent(iterations=50, seed=0).act(trusted) == 0
    bad = pennies_at_p1(0, perfect_information="yes")
    with pytest.raises(CloneError, match=r"perfect_information.*True or False.*'yes'"):
        game_from_env(bad)


def test_a_position_met_in_search_that_its_player_sees_alike_raises() -> None:
    """The probe's verdict is kept per live env; the search checks each position it meets."""
    env = MatchingPennies()
    env.metadata = {**MatchingPennies.metadata}
    env.reset()
    game, root = game_from_env(env, oracle=True)  # no probe, no check
    assert not game.watch_hidden  # type: ignore[attr-defined]
    game.watch_hidden = True  # type: ignore[attr-defined]
    game.key(game.next_state(root, 0))
    with pytest.raises(CloneError, match="hides state"):
        game.key(game.next_state(root, 1))


# --------------------------------------------------------------------------- returns
def test_returns_outside_minus_one_one_are_learned_and_never_a_win() -> None:
    env = OneMove()
    env.reset()
    result = MCTSAgent(iterations=200, seed=0).search(env)
    assert result.best_action == 1
    assert result.return_range == (-3.0, 5.0)
    assert result.return_range_source == "learned"
    assert result.proven != "win"
    assert all(child.proven != "win" for child in result.children)
    values = {child.action: child.value for child in result.children}
    assert values[1] > values[2] > values[0] > values[3]  # in the order of the pay
    assert max(values.values()) < 1.0


def test_a_return_range_given_as_an_option_or_declared_allows_a_win_at_its_top() -> None:
    env = OneMove()
    env.reset()
    given = MCTSAgent(iterations=200, seed=0, return_range=(-3, 5)).search(env)
    assert (given.best_action, given.proven) == (1, "win")
    assert given.return_range == (-3.0, 5.0)
    assert given.return_range_source == "option"
    declared = OneMove()
    declared.metadata = {**OneMove.metadata, "return_range": (-3, 5)}
    declared.reset()
    result = MCTSAgent(iterations=200, seed=0).search(declared)
    assert (result.best_action, result.proven) == (1, "win")
    assert result.return_range is None  # the env's own: nothing to say
    declared.metadata["return_range"] = (5, -3)
    with pytest.raises(CloneError, match=r"return_range.*low < high.*\(5, -3\)"):
        game_from_env(declared)


@pytest.mark.parametrize("name", ["connect_four_v3", "tictactoe_v3"])
def test_the_hidden_state_probe_passes_perfect_information_classic_envs(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without their known flag, PettingZoo's board games pass the probe and the search's check
    of every position it meets (transposed positions hold the same env)."""
    from mcts_agents.adapters import probes
    from mcts_agents.adapters.generic import env_game

    monkeypatch.setattr(probes, "KNOWN_BOARD_GAMES", frozenset())
    env = new_classic(name)
    for action in (0, 1, 2):
        env.step(action)
    game, root = env_game(env)
    assert game.watch_hidden and not hasattr(game, "return_range")
    result = MCTS(Budget(iterations=300), SearchConfig(), seed=0).search(game, root)
    assert result.iterations == 300 and result.nodes > 100
    assert result.return_range_source == "learned"
