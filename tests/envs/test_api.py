"""The API every env shares, run on every registered variant (STYLE: one API test for all)."""

from __future__ import annotations

import copy
import pickle
import random
import warnings
from dataclasses import replace
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pettingzoo.test import api_test, render_test, seed_test

from mcts_agents import envs
from mcts_agents.envs import (
    ActionTypeError,
    GameOverError,
    IllegalActionError,
    InvalidSnapshotError,
    InvalidStateError,
)
from tests.envs.conftest import VARIANTS, make_factory, random_line


def observe_all(env: Any) -> list[tuple[bytes, bytes]]:
    return [
        (obs["observation"].tobytes(), obs["action_mask"].tobytes())
        for obs in (env.observe(agent) for agent in env.possible_agents)
    ]


def bookkeeping(env: Any) -> tuple[Any, ...]:
    return (
        list(env.agents),
        env.agent_selection,
        dict(env.rewards),
        dict(env._cumulative_rewards),
        dict(env.terminations),
        dict(env.truncations),
    )


def test_pettingzoo_api_test_passes(env_fn: Any) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(env_fn(), num_cycles=200)


def test_pettingzoo_seed_test_passes(env_fn: Any) -> None:
    seed_test(env_fn, num_cycles=50)


def test_pettingzoo_render_test_passes_and_rgb_draws_a_board(
    env_fn: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    render_test(env_fn)
    if "rgb_array" not in env_fn.raw().metadata["render_modes"]:  # card games: text only
        with pytest.raises(envs.InvalidParameterError, match="rgb_array"):
            env_fn.raw(render_mode="rgb_array")
        return
    raw = env_fn.raw(render_mode="rgb_array")
    raw.reset()
    image = raw.render()
    assert image.dtype == np.uint8 and image.ndim == 3 and image.shape[2] == 3
    assert len(np.unique(image.reshape(-1, 3), axis=0)) >= 2  # a board is drawn, not a blank


def test_registered_with_pettingzoo() -> None:
    from pettingzoo.env_registry.registration import aec_registry

    for _, variant, _ in VARIANTS:
        assert f"mcts_agents/{variant}-v0" in aec_registry


def test_metadata_and_spaces(env_fn: Any) -> None:
    env = env_fn.raw()
    assert env.metadata["is_parallelizable"] is False
    assert env.metadata["name"].endswith("_v0")
    # board games draw pictures; card games render as text only
    assert set(env.metadata["render_modes"]) in ({"ansi", "rgb_array", "human"}, {"ansi", "human"})
    assert env.possible_agents == [f"player_{i}" for i in range(env.game.num_players)]
    agent = env.possible_agents[0]
    assert env.observation_space(agent) is env.observation_space(agent)  # cached
    env.reset()
    obs = env.observe(env.agent_selection)
    tensors = env.metadata["name"] == "openspiel_v0"  # OpenSpiel's float tensors
    assert obs["observation"].dtype == (np.float32 if tensors else np.int8)
    assert obs["action_mask"].dtype == np.int8
    assert list(np.flatnonzero(obs["action_mask"])) == env.legal_actions()


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), data=st.data())
@pytest.mark.parametrize(("module", "variant", "kwargs"), VARIANTS, ids=[v[1] for v in VARIANTS])
def test_save_restore_round_trip(
    module: str, variant: str, kwargs: dict[str, Any], seed: int, data: st.DataObject
) -> None:
    env = make_factory(module, kwargs).raw()
    env.reset(seed=seed)  # the same deals and dice both times (games with chance)
    moves = random_line(env, random.Random(seed))
    cut = data.draw(st.integers(0, len(moves)))
    env.reset(seed=seed)
    for action in moves[:cut]:
        env.step(action)
    snapshot = env.save_state()
    before = (observe_all(env), bookkeeping(env), env.state_key())
    hash(snapshot)  # immutable and hashable
    for action in moves[cut:]:
        env.step(action)
    while env.agents:  # finish the AEC end of game too: dead steps remove the agents
        env.step(None)
    env.restore_state(snapshot)
    assert (observe_all(env), bookkeeping(env), env.state_key()) == before
    # and the restored env plays on exactly like the original line
    for action in moves[cut:]:
        env.step(action)
    assert env.game.is_terminal(env.state)


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
@pytest.mark.parametrize(("module", "variant", "kwargs"), VARIANTS, ids=[v[1] for v in VARIANTS])
def test_reachable_for_every_later_state(
    module: str, variant: str, kwargs: dict[str, Any], seed: int
) -> None:
    env = make_factory(module, kwargs).raw()
    env.reset(seed=seed)
    game = env.game
    states = [env.state]
    rng = random.Random(seed)
    while not game.is_terminal(env.state):  # the env's states: chance outcomes drawn too
        env.step(rng.choice(env.legal_actions()))
        states.append(env.state)
    for i, earlier in enumerate(states):
        for later in states[i:]:
            assert game.is_reachable(earlier, game.key(later))


@pytest.mark.parametrize("module", ["kuhn_poker_v0", "pig_v0", "connect_four_v0"])
def test_reset_takes_numpy_integer_seeds_and_refuses_bools(module: str) -> None:
    """A numpy integer is an integer: np.int64(3) is the seed 3 (the same deal and dice);
    a bool is not, whatever Gymnasium's seeding would make of it (True as the seed 1)."""
    dealt = []
    for seed in (3, np.int64(3), np.uint8(3)):
        env = envs.load(module).env()
        env.reset(seed=seed)
        moves = random_line(env.unwrapped, random.Random(0), max_moves=30)
        dealt.append((env.unwrapped.state, moves))
    assert dealt[0] == dealt[1] == dealt[2]
    env = envs.load(module).env()
    for bad in (True, False, np.bool_(True), 3.0, "3"):
        with pytest.raises(TypeError, match=rf"seed must be None or an integer, got {bad!r}"):
            env.reset(seed=bad)


@pytest.mark.parametrize("copier", [copy.deepcopy, lambda e: pickle.loads(pickle.dumps(e))])
def test_copy_and_pickle_mid_game(env_fn: Any, copier: Any) -> None:
    env = env_fn()
    env.reset(seed=1)
    rng = random.Random(3)
    game = env.unwrapped.game
    for _ in range(3):  # up to 3 moves, stopping before one that would end the game
        mask = env.observe(env.agent_selection)["action_mask"]
        action = int(rng.choice(list(np.flatnonzero(mask))))
        if game.is_terminal(game.next_state(env.unwrapped.state, action)):
            break
        env.step(action)
    clone = copier(env)
    assert clone.unwrapped.state == env.unwrapped.state
    assert observe_all(clone) == observe_all(env) and bookkeeping(clone) == bookkeeping(env)
    mask = env.observe(env.agent_selection)["action_mask"]
    action = int(np.flatnonzero(mask)[0])
    clone.step(action)  # the copy is independent of the original
    assert clone.unwrapped.state != env.unwrapped.state
    env.step(action)
    assert clone.unwrapped.state == env.unwrapped.state


def test_bad_actions_raise_clear_errors(env_fn: Any) -> None:
    raw = env_fn.raw()
    raw.reset()
    n = raw.game.num_actions
    for bad in (1.0, "1", None, [0], True):
        with pytest.raises(ActionTypeError, match="action must be an int"):
            raw.step(bad)
    for bad in (-1, n, n + 5):
        with pytest.raises(IllegalActionError, match="out of range"):
            raw.step(bad)
    illegal = [a for a in range(n) if a not in raw.legal_actions()]
    if illegal:
        with pytest.raises(IllegalActionError, match="not legal"):
            raw.step(illegal[0])
    raw.step(np.int64(raw.legal_actions()[0]))  # numpy integers are fine
    random_line(raw, random.Random(0))
    with pytest.raises(GameOverError, match="game is over"):
        raw.step(0)
    with pytest.raises(InvalidSnapshotError):
        raw.restore_state(("not", "a snapshot"))
    with pytest.raises(envs.InvalidParameterError, match="render_mode"):
        env_fn.raw(render_mode="pygame")


def test_wrapped_env_terminates_on_illegal_move(env_fn: Any) -> None:
    env = env_fn()
    env.reset()
    n = env.unwrapped.game.num_actions
    mask = env.observe(env.agent_selection)["action_mask"]
    illegal = np.flatnonzero(mask == 0)
    with pytest.raises(IllegalActionError, match="out of range"):
        env.step(n)
    with pytest.raises(ActionTypeError):
        env.step("a")
    if len(illegal) == 0:
        return
    offender = env.agent_selection
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        env.step(int(illegal[0]))
    assert all(env.terminations.values())
    assert env._cumulative_rewards[offender] == -1


def test_restore_after_game_end(env_fn: Any) -> None:
    raw = env_fn.raw()
    raw.reset()
    random_line(raw, random.Random(5))
    end = raw.save_state()
    before = (observe_all(raw), bookkeeping(raw))
    assert all(raw.terminations.values()) and raw.legal_actions() == []
    raw.reset()
    raw.restore_state(end)
    assert (observe_all(raw), bookkeeping(raw)) == before
    assert [raw.rewards[a] for a in raw.possible_agents] == list(raw.game.returns(raw.state))


def test_wrapped_env_refuses_use_before_reset(env_fn: Any) -> None:
    env = env_fn()
    with pytest.raises(envs.NotResetError, match="reset"):
        env.step(0)
    with pytest.raises(envs.NotResetError, match="reset"):
        env.observe("player_0")
    with pytest.raises(AssertionError):  # PettingZoo's own wrapper raises AssertionError here
        env.step(0)


def test_wrapped_env_matches_raw_env_move_for_move(env_fn: Any) -> None:
    wrapped, raw = env_fn(), env_fn.raw()
    wrapped.reset(seed=7)  # the same deals and dice in both (games with chance)
    raw.reset(seed=7)
    rng = random.Random(0)
    while not raw.game.is_terminal(raw.state):
        action = rng.choice(raw.legal_actions())
        raw.step(action)
        wrapped.step(np.int64(action))
        assert wrapped.unwrapped.save_state() == raw.save_state()
        assert observe_all(wrapped) == observe_all(raw)


@pytest.mark.parametrize(
    ("module", "kwargs", "message"),
    [
        ("connect_four_v0", {"width": 10_000_000}, r"width must be in \[1, 64\], got 10000000"),
        ("mnk_v0", {"m": 100_000, "n": 100_000}, r"m \(rows\) must be in \[1, 64\], got 100000"),
        ("nim_v0", {"piles": (10**9,)}, r"piles\[0\] must be in \[1, 1000000\]"),
        ("pig_v0", {"winscore": 10**9}, r"winscore must be in \[1, 10000\]"),
    ],
)
def test_boards_and_counts_too_big_to_represent_are_refused_before_allocating(
    module: str, kwargs: dict[str, Any], message: str
) -> None:
    """The audit: connect_four:width=10000000 took the machine's memory; mnk:m=100000,n=100000
    hung. The cores say what they support instead."""
    with pytest.raises(envs.InvalidParameterError, match=message):
        envs.load(module).raw_env(**kwargs)


def test_a_step_after_every_agent_is_gone_says_the_game_is_over(env_fn: Any) -> None:
    """The audit: a third step(None) after both agents were gone raised KeyError 'player_0'."""
    raw = env_fn.raw()
    raw.reset(seed=0)
    random_line(raw, random.Random(1))
    while raw.agents:
        raw.step(None)
    with pytest.raises(GameOverError, match="no agents remain"):
        raw.step(None)


def test_a_forged_snapshot_is_refused_and_the_env_kept(env_fn: Any) -> None:
    """The audit: restore_state accepted a forged snapshot that failed later with IndexError."""
    raw = env_fn.raw()
    raw.reset(seed=0)
    good = raw.save_state()
    before = (observe_all(raw), bookkeeping(raw))
    forgeries = [
        replace(good, state=(1.5, "x")),
        replace(good, agents=("nobody",)),
        replace(good, agent_selection="player_99"),
        replace(good, rewards=(("player_0", "lots"),)),
    ]
    for forged in forgeries:
        with pytest.raises(InvalidStateError):
            raw.restore_state(forged)
        assert (observe_all(raw), bookkeeping(raw)) == before
    assert raw.is_reachable((1.5, 2.5, "a", None)) is False  # no key of this game: no TypeError
