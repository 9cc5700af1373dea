"""``mcts_agents.rl.vector``: N games against batched opponents as one Gymnasium vector env.

The reference is Gymnasium's own ``SyncVectorEnv`` over the single-env wrapper
(``make_vec(..., vectorization_mode="sync")``): the native vector env must play exactly its
games, seed for seed, step for step, in both autoreset modes.
"""

from __future__ import annotations

import re
from importlib.util import find_spec
from typing import Any

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import data_equivalence
from gymnasium.vector import AutoresetMode

from mcts_agents.errors import (
    ActionTypeError,
    IllegalActionError,
    InvalidOptionError,
    NotResetError,
    SpecError,
)
from mcts_agents.rl import gym_id
from mcts_agents.rl.vector import VectorVsOpponent

TTT = gym_id("tic_tac_toe")
#: The ids whose sub-envs play on the rules' words against a compiled opponent (``rl.boards``).
WORDS = {TTT, gym_id("connect_four"), gym_id("othello")}


def legal_picks(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random legal action per row (0 for a row with none: an autoreset step)."""
    return np.array([rng.choice(np.flatnonzero(row)) if row.any() else 0 for row in masks])


def native(env_id: str, num_envs: int, **kwargs: Any) -> VectorVsOpponent:
    env = gymnasium.make_vec(env_id, num_envs=num_envs, **kwargs)
    assert isinstance(env, VectorVsOpponent)
    return env


def sync_masks(env: Any) -> np.ndarray:
    return np.stack(env.call("action_masks"))


def test_make_vec_builds_the_native_vector_env_by_default() -> None:
    env = gymnasium.make_vec(TTT, num_envs=3, opponent="mcts:iterations=5")
    assert isinstance(env, VectorVsOpponent)
    assert env.metadata["autoreset_mode"] is AutoresetMode.NEXT_STEP
    assert env.spec is not None and env.spec.id == TTT
    explicit = gymnasium.make_vec(
        TTT, num_envs=2, vectorization_mode="vector_entry_point", opponent="random"
    )
    assert isinstance(explicit, VectorVsOpponent) and explicit.num_envs == 2


@pytest.mark.parametrize(
    ("env_id", "opponent", "steps", "must_end"),
    [
        (TTT, "mcts:iterations=30", 30, True),  # the shared compiled kernel
        (gym_id("connect_four"), "mcts:iterations=30", 30, True),  # Connect Four's own kernel
        (gym_id("kuhn_poker"), "mcts:iterations=10", 15, True),  # the Python search (ISMCTS)
        (gym_id("nim"), "mcts:iterations=30", 20, True),
        (gym_id("multi_mnk"), "mcts:iterations=20", 15, False),  # two opponents in a row
        (gym_id("othello"), "mcts:iterations=20", 12, False),
        (gym_id("ultimate_tic_tac_toe"), "mcts:iterations=20", 12, False),
        (gym_id("gomoku"), "mcts:iterations=10", 6, False),
    ],
)
def test_sub_env_i_plays_the_games_of_the_single_env_wrapper_seeded_s_plus_i(
    env_id: str, opponent: str, steps: int, must_end: bool
) -> None:
    """Seed for seed and step for step, the native env equals SyncVectorEnv over the wrapper
    (sub-env i reset with seed 7 + i), across episode ends (next-step autoreset)."""
    kwargs = {"opponent": opponent, "learner": "random"}
    mine = native(env_id, 4, **kwargs)
    reference = gymnasium.make_vec(env_id, num_envs=4, vectorization_mode="sync", **kwargs)
    observations, info = mine.reset(seed=7)
    expected, expected_info = reference.reset(seed=7)
    if env_id in WORDS and find_spec("numba"):  # these play on the rules' words (rl.boards)
        assert mine._fast is not None and mine._fast.on.all()
    assert data_equivalence(observations, expected, exact=True)
    assert list(info["learner"]) == list(expected_info["learner"])
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(steps):
        masks = mine.action_masks()
        assert np.array_equal(masks, sync_masks(reference))
        actions = legal_picks(masks, rng)
        got = mine.step(actions)
        want = reference.step(actions)
        for a, b in zip(got[:4], want[:4], strict=True):
            assert data_equivalence(a, b, exact=True)
        ended += int(got[2].sum() + got[3].sum())
    assert ended > 0 or not must_end  # through episode ends and autoresets where games are short


def test_same_step_autoreset_matches_sync_vector_env() -> None:
    kwargs = {"opponent": "mcts:iterations=20"}
    mine = native(TTT, 3, autoreset_mode="SameStep", **kwargs)
    reference = gymnasium.make_vec(
        TTT,
        num_envs=3,
        vectorization_mode="sync",
        vector_kwargs={"autoreset_mode": AutoresetMode.SAME_STEP},
        **kwargs,
    )
    assert mine.metadata["autoreset_mode"] is AutoresetMode.SAME_STEP
    mine.reset(seed=11)
    reference.reset(seed=11)
    rng = np.random.default_rng(1)
    finals = 0
    for _ in range(25):
        masks = mine.action_masks()
        assert masks.any(axis=1).all()  # same-step: every sub-env is always playable
        actions = legal_picks(masks, rng)
        got, want = mine.step(actions), reference.step(actions)
        for a, b in zip(got[:4], want[:4], strict=True):
            assert data_equivalence(a, b, exact=True)
        if "final_obs" in want[4]:
            ended = want[4]["_final_obs"]
            assert np.array_equal(got[4]["_final_obs"], ended)
            for i in np.flatnonzero(ended):
                assert np.array_equal(got[4]["final_obs"][i], want[4]["final_obs"][i])
            finals += int(ended.sum())
        else:
            assert "final_obs" not in got[4]
    assert finals > 0


@pytest.mark.parametrize("env_id", [TTT, gym_id("nim")])  # on the words; on the AEC envs
def test_disabled_autoreset_matches_sync_vector_env_with_reset_masks(env_id: str) -> None:
    """Gymnasium's third mode (TorchRL's): a finished sub-env waits, stepping it is refused,
    and ``reset(options={"reset_mask": m})`` restarts only those, as SyncVectorEnv does."""
    kwargs = {"opponent": "mcts:iterations=20"}
    mine = native(env_id, 3, autoreset_mode="Disabled", **kwargs)
    reference = gymnasium.make_vec(
        env_id,
        num_envs=3,
        vectorization_mode="sync",
        vector_kwargs={"autoreset_mode": AutoresetMode.DISABLED},
        **kwargs,
    )
    assert mine.metadata["autoreset_mode"] is AutoresetMode.DISABLED
    for a, b in zip(mine.reset(seed=4)[:1], reference.reset(seed=4)[:1], strict=True):
        assert data_equivalence(a, b, exact=True)
    rng = np.random.default_rng(3)
    resets = 0
    for _ in range(25):
        actions = legal_picks(mine.action_masks(), rng)
        got, want = mine.step(actions), reference.step(actions)
        for a, b in zip(got[:4], want[:4], strict=True):
            assert data_equivalence(a, b, exact=True)
        done = got[2] | got[3]
        if done.any():
            finished = re.escape(f"sub-envs {np.flatnonzero(done).tolist()}")
            with pytest.raises(NotResetError, match=finished):
                mine.step(actions)
            seeds = [100 + i if d else None for i, d in enumerate(done)]
            got_reset = mine.reset(seed=seeds, options={"reset_mask": done})
            want_reset = reference.reset(seed=seeds, options={"reset_mask": done})
            assert data_equivalence(got_reset[0], want_reset[0], exact=True)
            assert mine.action_masks().any(axis=1).all()
            resets += int(done.sum())
    assert resets > 0


def test_next_step_autoreset_ignores_the_action_of_a_finished_sub_env() -> None:
    env = native(TTT, 2, opponent="mcts:iterations=20")
    env.reset(seed=3)
    rng = np.random.default_rng(2)
    while True:
        _, _, terminated, truncated, info = env.step(legal_picks(env.action_masks(), rng))
        done = terminated | truncated
        if done.any():
            break
    i = int(np.flatnonzero(done)[0])
    assert not env.action_masks()[i].any()  # a finished game has no legal action
    assert not info["action_mask"][i].any()
    actions = legal_picks(env.action_masks(), rng)
    actions[i] = 0  # ignored: the sub-env is reset by this step
    observations, rewards, terminated, truncated, info = env.step(actions)
    assert rewards[i] == 0 and not terminated[i] and not truncated[i]
    assert info["action_mask"][i].any() and np.array_equal(info["action_mask"], env.action_masks())
    assert int(np.asarray(observations[i]).sum()) <= 1  # a fresh board (an opponent stone at most)


def test_vector_env_data_checks() -> None:
    """Gymnasium's env-checker truths for a vector env: spaces hold the data, the same seed
    gives the same data, returned arrays are not reused, and step before reset is refused."""
    env = native(TTT, 3, opponent="mcts:iterations=10")
    with pytest.raises(NotResetError):
        env.step(np.zeros(3, dtype=np.int64))
    observations, info = env.reset(seed=5)
    assert env.observation_space.contains(observations)
    assert env.single_observation_space.contains(observations[0])
    assert info["action_mask"].shape == (3, 9) and info["action_mask"].dtype == np.bool_
    again, _ = env.reset(seed=5)
    assert data_equivalence(observations, again, exact=True)
    actions = legal_picks(env.action_masks(), np.random.default_rng(0))
    assert env.action_space.contains(actions)
    first = env.step(actions)
    assert env.observation_space.contains(first[0])
    assert first[1].dtype == np.float64 and first[2].dtype == np.bool_
    env.reset(seed=5)
    second = env.step(actions)
    for a, b in zip(first[:4], second[:4], strict=True):
        assert data_equivalence(a, b, exact=True)
    assert first[0] is not second[0]  # no shared buffer between steps
    env.close()
    assert env.closed


def test_constructor_seed_seeds_the_first_reset_as_reset_seed_does() -> None:
    a = native(TTT, 2, opponent="mcts:iterations=10", learner="random", seed=21)
    b = native(TTT, 2, opponent="mcts:iterations=10", learner="random")
    obs_a, info_a = a.reset()
    obs_b, info_b = b.reset(seed=21)
    assert data_equivalence(obs_a, obs_b, exact=True)
    assert list(info_a["learner"]) == list(info_b["learner"])


def test_wrong_action_shape_or_type_is_refused_and_nothing_is_stepped() -> None:
    env = native(TTT, 3, opponent="mcts:iterations=10")
    observations, _ = env.reset(seed=1)
    with pytest.raises(InvalidOptionError, match=r"shape \(3,\)"):
        env.step(np.zeros(2, dtype=np.int64))
    with pytest.raises(ActionTypeError, match="sub-env 0"):
        env.step(np.array([0.5, 1.0, 2.0]))
    with pytest.raises(IllegalActionError, match="sub-env 2 is outside"):
        env.step(np.array([0, 1, 9]))
    assert np.array_equal(env._collect(), observations)


def test_illegal_action_ends_only_its_sub_env_and_changes_nothing_else() -> None:
    """Under "lose": the offending sub-env ends with the penalty; the other sub-envs play
    exactly as in a run where it had played a legal move."""
    kwargs = {"opponent": "mcts:iterations=20", "illegal_reward": -2.0, "learner": "player_1"}
    clean, dirty = native(TTT, 3, **kwargs), native(TTT, 3, **kwargs)
    clean.reset(seed=4)
    dirty.reset(seed=4)
    legal = legal_picks(clean.action_masks(), np.random.default_rng(0))
    occupied = legal.copy()
    occupied[1] = int(np.flatnonzero(~dirty.action_masks()[1])[0])  # the opponent's stone
    want = clean.step(legal)
    got = dirty.step(occupied)
    assert got[1][1] == -2.0 and got[2][1] and not got[3][1]
    assert got[4]["illegal_action"][1] == occupied[1] and got[4]["_illegal_action"].sum() == 1
    for i in (0, 2):
        assert np.array_equal(got[0][i], want[0][i])
        assert (got[1][i], got[2][i], got[3][i]) == (want[1][i], want[2][i], want[3][i])


def test_illegal_action_under_raise_is_refused_before_any_sub_env_moves() -> None:
    env = native(TTT, 2, opponent="mcts:iterations=10", illegal_action="raise", learner="player_1")
    observations, _ = env.reset(seed=2)
    masks = env.action_masks()
    actions = legal_picks(masks, np.random.default_rng(0))
    actions[1] = int(np.flatnonzero(~masks[1])[0])
    with pytest.raises(IllegalActionError, match="sub-env 1; legal"):
        env.step(actions)
    assert np.array_equal(env._collect(), observations)  # sub-env 0 did not move
    assert np.array_equal(env.action_masks(), masks)


def test_opponent_list_gives_each_sub_env_its_own_spec_and_set_opponent_waits_for_reset() -> None:
    env = native(TTT, 2, opponent=["random", "mcts:iterations=7"])
    assert env.get_attr("opponent_spec") == ("random", "mcts:iterations=7")
    env.reset(seed=0)
    env.call("set_opponent", "mcts:iterations=9")
    assert env.get_attr("opponent_spec") == ("random", "mcts:iterations=7")  # mid-episode
    env.reset(seed=0)
    assert env.get_attr("opponent_spec") == ("mcts:iterations=9",) * 2
    assert [sub.opponent.budget.iterations for sub in env.envs] == [9, 9]
    env.reset(seed=0, options={"opponent": ["mcts:iterations=3", "random"]})
    assert env.get_attr("opponent_spec") == ("mcts:iterations=3", "random")


def test_bad_opponents_and_options_are_refused_naming_them() -> None:
    with pytest.raises(InvalidOptionError, match="2 specs for num_envs=3"):
        native(TTT, 3, opponent=["random", "random"])
    with pytest.raises(SpecError, match="wizard"):
        native(TTT, 2, opponent="wizard")
    with pytest.raises(InvalidOptionError, match="autoreset_mode"):
        native(TTT, 2, opponent="random", autoreset_mode="Sometimes")
    env = native(TTT, 2, opponent="random")
    with pytest.raises(InvalidOptionError, match="reset_mask' needs autoreset_mode Disabled"):
        env.reset(options={"reset_mask": np.array([True, False])})
    disabled = native(TTT, 2, opponent="random", autoreset_mode="Disabled")
    with pytest.raises(InvalidOptionError, match=r"reset_mask must be a bool array of shape"):
        disabled.reset(options={"reset_mask": [1, 0, 1]})
    with pytest.raises(SpecError, match="wizard"):
        env.set_opponent("wizard")
    with pytest.raises(InvalidOptionError, match="'colour'"):
        env.reset(seed=0, options={"colour": "red"})


def test_render_shows_sub_env_0() -> None:
    env = native(TTT, 2, opponent="random", render_mode="ansi")
    env.reset(seed=0)
    assert env.render() == env.envs[0].aec_env.render()
    assert isinstance(env.render(), str)


def test_make_builds_the_opponents_searcher_before_the_first_reset() -> None:
    """So that an async vector's parent compiles the kernels once and its workers load them."""
    env = gymnasium.make(TTT, opponent="mcts:iterations=5", seed=0)
    opponent = env.unwrapped.opponent
    assert opponent.searcher is not None and type(opponent.searcher).__name__ == "CompiledSearch"


class Stubborn:
    """An opponent that always plays ``action`` (cell 0: taken once the learner played it)."""

    def __init__(self, action: Any) -> None:
        self.action = action

    def act(self, env: Any) -> Any:
        return self.action

    def __repr__(self) -> str:
        return "Stubborn"


@pytest.mark.parametrize(
    ("reply", "error", "message"),
    [
        (0, IllegalActionError, "Stubborn played the illegal action 0 for player_1 in sub-env 1"),
        (True, ActionTypeError, r"Stubborn \(player_1\) gave the action True"),
    ],
)
def test_an_opponents_bad_reply_raises_naming_the_opponent_and_the_sub_env(
    reply: Any, error: type[Exception], message: str
) -> None:
    env = native(TTT, 2, opponent="random")
    env.reset(seed=0)
    env.envs[1].opponents = {"player_1": Stubborn(reply)}
    with pytest.raises(error, match=message):
        env.step(np.array([0, 0]))


def test_a_human_opponent_and_a_reward_that_is_not_finite_are_refused_at_once() -> None:
    """The audit: ``set_opponent("human")`` was taken, then the human prompted on stdout at
    the next reset and died with EOFError; ``illegal_reward=nan`` gave NaN rewards."""
    with pytest.raises(SpecError, match=r"'human'.*unattended"):
        native(TTT, 2, opponent="human")
    with pytest.raises(SpecError, match=r"'human'.*unattended"):
        native(TTT, 2, opponent=["random", "human"])
    with pytest.raises(InvalidOptionError, match=r"illegal_reward .*nan"):
        native(TTT, 2, opponent="random", illegal_reward=float("nan"))
    env = native(TTT, 2, opponent="random", seed=0)
    with pytest.raises(SpecError, match=r"'human'.*unattended"):
        env.set_opponent("human")
    with pytest.raises(SpecError, match=r"'human'.*unattended"):
        env.call("set_opponent", "human")
    with pytest.raises(SpecError, match=r"'human'.*unattended"):
        env.reset(seed=0, options={"opponent": "human"})
    with pytest.raises(InvalidOptionError, match=r"illegal_reward .*nan"):
        env.set_attr("illegal_reward", float("nan"))
    env.reset(seed=0)  # still the random opponent, and a finite reward
    assert env.get_attr("opponent_spec") == ("random", "random")
    assert env.get_attr("illegal_reward") == (-1.0, -1.0)


def test_a_vector_env_whose_constructor_raised_is_collected_without_an_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """gymnasium's ``__del__`` closes the half-built env: nothing may raise there."""
    import gc
    import sys

    raised: list[Any] = []
    monkeypatch.setattr(sys, "unraisablehook", raised.append)

    def build() -> str:
        try:
            VectorVsOpponent(2, autoreset_mode="sometimes")
        except InvalidOptionError as error:
            return str(error)  # (the traceback, which holds the half-built env, is dropped)
        return "built"

    assert "autoreset_mode" in build()
    gc.collect()
    assert raised == []
