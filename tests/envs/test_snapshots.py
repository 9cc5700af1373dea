"""``restore_state`` checks a snapshot against the rules and ``is_reachable`` refuses junk keys,
on every registered variant (the per-game files forge each game's own impossible states)."""

from __future__ import annotations

import random
import warnings
from dataclasses import replace
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mcts_agents import MCTSAgent, envs
from mcts_agents.envs import InvalidStateError
from tests.envs.conftest import VARIANTS, assert_state_refused, make_factory, random_line


def snapshots_of_a_game(raw: Any, seed: int) -> list[Any]:
    """Every snapshot of one random game: each move, the end, and each dead step after it."""
    raw.reset(seed=seed)
    rng = random.Random(seed)
    shots = [raw.save_state()]
    while not raw.game.is_terminal(raw.state):
        raw.step(rng.choice(raw.legal_actions()))
        shots.append(raw.save_state())
    while raw.agents:
        raw.step(None)
        shots.append(raw.save_state())
    return shots


def mid_game(raw: Any, seed: int = 0, moves: int = 2) -> Any:
    """``raw`` reset and ``moves`` random moves in (fewer if the game ends first)."""
    raw.reset(seed=seed)
    rng = random.Random(seed)
    for _ in range(moves):
        if raw.game.is_terminal(raw.state):
            break
        raw.step(rng.choice(raw.legal_actions()))
    return raw


@pytest.mark.parametrize(("module", "variant", "kwargs"), VARIANTS, ids=[v[1] for v in VARIANTS])
def test_snapshots_of_every_stage_of_random_games_restore_into_a_fresh_env(
    module: str, variant: str, kwargs: dict[str, Any]
) -> None:
    """Sound: what play gives (moves, the end, the dead steps) passes the checks."""
    factory = make_factory(module, kwargs)
    for seed in range(3):
        for snapshot in snapshots_of_a_game(factory.raw(), seed):
            fresh = factory.raw()
            fresh.restore_state(snapshot)
            assert fresh.save_state() == snapshot


@pytest.mark.parametrize(("module", "variant", "kwargs"), VARIANTS, ids=[v[1] for v in VARIANTS])
def test_a_game_ended_by_an_illegal_move_restores(
    module: str, variant: str, kwargs: dict[str, Any]
) -> None:
    """env()'s illegal-move ending terminates and truncates every agent of a live state."""
    wrapped = make_factory(module, kwargs)()
    illegal: list[int] = []
    for seed in range(50):  # random games until one reaches a position with an illegal action
        wrapped.reset(seed=seed)
        rng = random.Random(seed)
        while not illegal and not any(wrapped.terminations.values()):
            mask = wrapped.observe(wrapped.agent_selection)["action_mask"]
            illegal = np.flatnonzero(mask == 0).tolist()
            if not illegal:
                wrapped.step(rng.choice(np.flatnonzero(mask).tolist()))
        if illegal:
            break
    if not illegal:
        pytest.skip("every action is always legal in this game")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        wrapped.step(int(illegal[0]))
    raw = wrapped.unwrapped
    shots = [raw.save_state()]
    while raw.agents:
        raw.step(None)
        shots.append(raw.save_state())
    for snapshot in shots:
        fresh = make_factory(module, kwargs).raw()
        fresh.restore_state(snapshot)
        assert fresh.save_state() == snapshot


@pytest.mark.parametrize(("module", "variant", "kwargs"), VARIANTS, ids=[v[1] for v in VARIANTS])
def test_forged_bookkeeping_is_refused_naming_the_field(
    module: str, variant: str, kwargs: dict[str, Any]
) -> None:
    raw = mid_game(make_factory(module, kwargs).raw(), moves=1)
    assert not raw.game.is_terminal(raw.state)
    good = raw.save_state()
    agents = good.agents
    mover = good.agent_selection
    other = next(a for a in agents if a != mover)
    forgeries = {
        "agent_selection": replace(good, agent_selection=other),
        "agents": replace(good, agents=agents[::-1]),
        "terminations": replace(good, terminations=tuple((a, True) for a in agents)),
        "truncations": replace(good, truncations=((mover, True), *good.truncations[1:])),
        "rewards": replace(good, rewards=tuple((a, 1.0) for a in agents)),
        "cumulative_rewards": replace(good, cumulative_rewards=((mover, float("nan")),)),
    }
    if raw.game.has_chance:
        forgeries["rng_state"] = replace(good, rng_state=("dict", (("bit_generator", "MT"),)))
    else:
        forgeries["rng_state"] = replace(good, rng_state=("dict", ()))
    for field, forged in forgeries.items():
        with pytest.raises(InvalidStateError, match=field):
            raw.restore_state(forged)
        assert raw.save_state() == good
    arrays = replace(good, agent_selection=np.array(agents))  # compares element-wise
    with pytest.raises(InvalidStateError, match="agent_selection"):
        raw.restore_state(arrays)


@pytest.mark.parametrize(("module", "variant", "kwargs"), VARIANTS, ids=[v[1] for v in VARIANTS])
def test_a_terminal_snapshot_must_terminate_its_agents_and_pay_the_returns(
    module: str, variant: str, kwargs: dict[str, Any]
) -> None:
    raw = make_factory(module, kwargs).raw()
    raw.reset(seed=1)
    random_line(raw, random.Random(1))
    end = raw.save_state()
    live = replace(end, terminations=tuple((a, False) for a in end.agents))
    with pytest.raises(InvalidStateError, match="terminal"):
        raw.restore_state(live)
    paid = replace(end, rewards=tuple((a, 99.0) for a in end.agents))
    with pytest.raises(InvalidStateError, match="returns"):
        raw.restore_state(paid)
    assert raw.save_state() == end


@pytest.mark.parametrize(("module", "variant", "kwargs"), VARIANTS, ids=[v[1] for v in VARIANTS])
def test_a_snapshot_state_with_a_field_missing_is_refused(
    module: str, variant: str, kwargs: dict[str, Any]
) -> None:
    raw = mid_game(make_factory(module, kwargs).raw())
    state = raw.state
    if not isinstance(state, tuple):  # openspiel_v0: a history and its pyspiel state
        assert_state_refused(raw, type(state)(state.history, None), "pyspiel state")
        return
    with pytest.raises(InvalidStateError, match="tuple of"):
        raw.restore_state(replace(raw.save_state(), state=state[:-1]))
    assert raw.is_reachable(state[:-1]) is False


def junk_field(value: Any) -> Any:
    """Values that are no field of any state: wrong types, or ints no board or deck holds."""
    return st.one_of(
        st.none(),
        st.floats(allow_nan=False),
        st.text(max_size=3),
        st.just(2**5000),  # beyond every board (at most 64 x 64 cells)
        st.just(-(2**5000)),
        st.just([value]),
    )


@settings(max_examples=30, deadline=None)
@given(data=st.data())
@pytest.mark.parametrize(("module", "variant", "kwargs"), VARIANTS, ids=[v[1] for v in VARIANTS])
def test_is_reachable_is_false_on_junk_keys(
    module: str, variant: str, kwargs: dict[str, Any], data: st.DataObject
) -> None:
    """Junk keys: anything but a tuple, a tuple of the wrong length, or a real key with one
    field replaced by a value of the wrong type or far out of range. Never a TypeError."""
    raw = mid_game(make_factory(module, kwargs).raw(), seed=data.draw(st.integers(0, 9)))
    key = raw.state_key()
    anything = st.recursive(
        st.none() | st.integers() | st.text(max_size=3) | st.floats(),
        lambda inner: st.lists(inner, max_size=5).map(tuple),
        max_leaves=10,
    )
    wrong_length = anything.filter(lambda v: not isinstance(v, tuple) or len(v) != len(key))
    field = data.draw(st.integers(0, len(key) - 1))
    bad_field = data.draw(junk_field(key[field]).filter(lambda v: v != key[field]))
    replaced = (*key[:field], bad_field, *key[field + 1 :])
    junk = data.draw(st.one_of(wrong_length, st.just(replaced)))
    assert raw.is_reachable(junk) is False
    with pytest.raises(InvalidStateError):
        raw.restore_state(replace(raw.save_state(), state=junk))


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
@pytest.mark.parametrize(("module", "variant", "kwargs"), VARIANTS, ids=[v[1] for v in VARIANTS])
def test_is_reachable_is_true_on_keys_of_later_states(
    module: str, variant: str, kwargs: dict[str, Any], seed: int
) -> None:
    raw = make_factory(module, kwargs).raw()
    shots = snapshots_of_a_game(raw, seed)
    keys = [raw.game.key(shot.state) for shot in shots]
    for i, shot in enumerate(shots):
        raw.restore_state(shot)
        assert all(raw.is_reachable(key) for key in keys[i:])


@pytest.mark.parametrize(
    ("module", "options"),
    [("connect_four_v0", {}), ("kuhn_poker_v0", {}), ("kuhn_poker_v0", {"information": "oracle"})],
)
def test_a_search_never_checks_states(
    module: str, options: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The checks belong to restore_state and is_reachable(key): searches over two moves (the
    second re-rooting and pruning the reused table) call neither check_state nor check_key."""
    raw = envs.load(module).raw_env()
    calls: list[Any] = []
    core = type(raw.game)
    monkeypatch.setattr(core, "check_state", lambda self, state: calls.append(state))
    monkeypatch.setattr(core, "check_key", lambda self, key: calls.append(key))
    raw.reset(seed=0)
    agent = MCTSAgent(iterations=300, seed=0, **options)
    results = []
    for _ in range(2):
        results.append(agent.search(raw))
        raw.step(results[-1].best_action)
    assert results[1].reused_nodes > 0  # the second search re-rooted the first one's table
    assert calls == []
    raw.restore_state(raw.save_state())  # the patched checks are the ones restore_state calls
    assert len(calls) == 1
