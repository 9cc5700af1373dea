"""The replay buffer (``mcts_agents.alphazero.replay``): a ring of positions, sampled with
symmetries.

Records are built by hand with numbered positions (position ``i`` has value ``i``), so what the
buffer keeps and returns can be told position by position.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from mcts_agents.alphazero import GameRecord, ReplayBuffer, play_selfplay_game
from mcts_agents.alphazero.symmetries import symmetries
from mcts_agents.envs.games.connect_four import ConnectFour
from mcts_agents.envs.games.mnk import MNK
from mcts_agents.errors import EmptyBufferError, InvalidOptionError

TTT = MNK(3, 3, 3)


class Uniform:
    """Uniform priors, value 0."""

    def evaluate_batch(self, observations: np.ndarray, legal_masks: np.ndarray) -> Any:
        return legal_masks.astype(np.float64), np.zeros(len(observations))


def numbered(first: int, count: int, full: list[bool] | None = None) -> GameRecord:
    """``count`` tic-tac-toe-shaped positions numbered from ``first``: position ``i`` has value
    ``i / 100``, observation planes filled with ``i % 128``, a one-hot policy and mask on cell
    ``i % 9``."""
    numbers = np.arange(first, first + count)
    observations = np.zeros((count, 3, 3, 2), dtype=np.int8)
    observations[...] = (numbers % 128)[:, None, None, None]
    policies = np.zeros((count, 9), dtype=np.float32)
    policies[np.arange(count), numbers % 9] = 1.0
    return GameRecord(
        observations=observations,
        legal_masks=policies > 0,
        policies=policies,
        values=(numbers / 100).astype(np.float32),
        movers=numbers % 2,
        actions=numbers % 9,
        full_search=np.ones(count, dtype=bool) if full is None else np.array(full),
        iterations=np.ones(count, dtype=np.int64),
        root_values=np.zeros(count, dtype=np.float32),
        returns=(0.0, 0.0),
        seed=0,
    )


def stored_numbers(buffer: ReplayBuffer) -> list[int]:
    return [round(v * 100) for v in buffer.arrays()["values"].tolist()]


def test_the_ring_keeps_the_newest_positions_in_order() -> None:
    buffer = ReplayBuffer(5)
    assert buffer.add(numbered(0, 3)) == 3
    assert len(buffer) == 3 and stored_numbers(buffer) == [0, 1, 2]
    buffer.add(numbered(3, 4))
    assert len(buffer) == 5 and buffer.added == 7
    assert stored_numbers(buffer) == [2, 3, 4, 5, 6]
    buffer.add(numbered(7, 12))  # more than the capacity at once
    assert len(buffer) == 5 and buffer.added == 19
    assert stored_numbers(buffer) == [14, 15, 16, 17, 18]
    arrays = buffer.arrays()
    assert arrays["observations"][:, 0, 0, 0].tolist() == [14, 15, 16, 17, 18]
    assert arrays["policies"].argmax(axis=1).tolist() == [n % 9 for n in range(14, 19)]


def test_fast_search_positions_are_not_kept() -> None:
    buffer = ReplayBuffer(10)
    assert buffer.add(numbered(0, 4, full=[True, False, False, True])) == 2
    assert stored_numbers(buffer) == [0, 3]


def test_samples_have_the_shapes_and_come_from_the_buffer() -> None:
    buffer = ReplayBuffer(8)
    buffer.add(numbered(0, 6))
    observations, masks, policies, values = buffer.sample(32, np.random.default_rng(0))
    assert observations.shape == (32, 3, 3, 2) and observations.dtype == np.int8
    assert masks.shape == (32, 9) and masks.dtype == bool
    assert policies.shape == (32, 9) and policies.dtype == np.float32
    assert values.shape == (32,) and values.dtype == np.float32
    numbers = np.rint(values * 100).astype(int)
    assert set(numbers.tolist()) <= set(range(6))
    assert (observations[:, 0, 0, 0] == numbers).all()
    assert (policies.argmax(axis=1) == numbers % 9).all()


def test_same_generator_same_sample_and_samples_are_copies() -> None:
    buffer = ReplayBuffer(8, symmetries(TTT))
    buffer.add(numbered(0, 6))
    first = buffer.sample(16, np.random.default_rng(3))
    again = buffer.sample(16, np.random.default_rng(3))
    assert all(np.array_equal(a, b) for a, b in zip(first, again, strict=True))
    for array in first:
        array[...] = 0
    assert stored_numbers(buffer) == list(range(6))


def test_sampled_positions_are_stored_ones_seen_through_a_symmetry() -> None:
    """Each sample is ``(sym(obs), sym(mask), sym(policy), value)`` of one stored position for one
    of the eight symmetries, and every symmetry shows up."""
    maps = symmetries(TTT)
    records = [play_selfplay_game(TTT, Uniform(), None, 20, (9, 1.0, 0.0), s) for s in range(2)]
    buffer = ReplayBuffer(100, maps)
    for record in records:
        buffer.add(record)
    stored = buffer.arrays()
    seen = set()
    observations, masks, policies, values = buffer.sample(200, np.random.default_rng(1))
    for b in range(200):
        matches = {
            s.name
            for i in range(len(buffer))
            for s in maps
            if stored["values"][i] == values[b]
            and np.array_equal(s.observations(stored["observations"][i]), observations[b])
            and np.array_equal(s.actions_of(stored["masks"][i]), masks[b])
            and np.array_equal(s.actions_of(stored["policies"][i]), policies[b])
        }
        assert matches, b
        seen |= matches
    assert seen == {s.name for s in maps}


def test_connect_four_samples_are_mirrored_about_half_the_time() -> None:
    game = ConnectFour(5, 4, 3)
    record = play_selfplay_game(game, Uniform(), None, 10, (4, 1.0, 0.0), 2)
    one = ReplayBuffer(1, symmetries(game))
    one.add(record)  # keeps the last position only
    last = one.arrays()["observations"][0]
    observations = one.sample(400, np.random.default_rng(2))[0]
    mirrored = sum(np.array_equal(o, last[:, ::-1]) for o in observations)
    plain = sum(np.array_equal(o, last) for o in observations)
    assert not np.array_equal(last, last[:, ::-1])  # else the two views could not be told apart
    assert mirrored + plain == 400
    assert 160 <= mirrored <= 240  # binomial(400, 1/2): standard deviation 10


def test_an_empty_buffer_cannot_be_sampled() -> None:
    buffer = ReplayBuffer(4)
    with pytest.raises(EmptyBufferError, match="empty"):
        buffer.sample(1, np.random.default_rng(0))
    buffer.add(numbered(0, 2, full=[False, False]))
    with pytest.raises(EmptyBufferError):
        buffer.sample(1, np.random.default_rng(0))
    assert buffer.arrays()["values"].shape == (0,)


@pytest.mark.parametrize("capacity", [0, -3, 2.0, True, "10"])
def test_bad_capacities_are_refused(capacity: Any) -> None:
    with pytest.raises(InvalidOptionError, match="capacity"):
        ReplayBuffer(capacity)


@pytest.mark.parametrize(
    ("batch", "rng", "words"),
    [(0, np.random.default_rng(0), "batch"), (2, np.random.RandomState(0), "Generator")],
)
def test_bad_sample_arguments_are_refused(batch: Any, rng: Any, words: str) -> None:
    buffer = ReplayBuffer(4)
    buffer.add(numbered(0, 2))
    with pytest.raises(InvalidOptionError, match=words):
        buffer.sample(batch, rng)


def test_records_of_another_game_and_bad_inputs_are_refused() -> None:
    buffer = ReplayBuffer(4)
    buffer.add(numbered(0, 2))
    other = play_selfplay_game(ConnectFour(5, 4, 3), Uniform(), None, 5, (0, 1.0, 0.0), 0)
    with pytest.raises(InvalidOptionError, match="one buffer per game"):
        buffer.add(other)
    with pytest.raises(InvalidOptionError, match="GameRecord"):
        buffer.add("record")  # type: ignore[arg-type]
    with pytest.raises(InvalidOptionError, match="Symmetry"):
        ReplayBuffer(4, ["mirror"])  # type: ignore[list-item]
    mismatched = ReplayBuffer(4, symmetries(ConnectFour(5, 4, 3)))
    for _ in range(2):  # refused again: the failed add left nothing behind
        with pytest.raises(InvalidOptionError, match="maps 5 actions"):
            mismatched.add(numbered(0, 2))
    assert mismatched.arrays() == {}


def test_a_restored_buffer_samples_and_grows_as_the_original() -> None:
    original = ReplayBuffer(5, symmetries(TTT))
    original.add(numbered(0, 7))  # wrapped: the ring's next row is not 0
    copy = ReplayBuffer(5, symmetries(TTT))
    copy.load_state_dict(original.state_dict())
    assert len(copy) == 5 and copy.added == 7
    for buffer in (original, copy):
        buffer.add(numbered(7, 2))
    assert stored_numbers(copy) == stored_numbers(original) == [4, 5, 6, 7, 8]
    one = original.sample(16, np.random.default_rng(4))
    two = copy.sample(16, np.random.default_rng(4))
    assert all(np.array_equal(a, b) for a, b in zip(one, two, strict=True))


def test_the_state_is_a_copy_and_an_empty_state_empties() -> None:
    buffer = ReplayBuffer(4)
    empty = buffer.state_dict()
    buffer.add(numbered(0, 3))
    state = buffer.state_dict()
    state["values"][:] = 9.0
    assert stored_numbers(buffer) == [0, 1, 2]
    buffer.load_state_dict(empty)
    assert len(buffer) == 0 and buffer.added == 0
    with pytest.raises(EmptyBufferError):
        buffer.sample(1, np.random.default_rng(0))


def test_states_that_do_not_fit_are_refused() -> None:
    buffer = ReplayBuffer(4)
    buffer.add(numbered(0, 3))
    state = buffer.state_dict()
    with pytest.raises(InvalidOptionError, match="capacity 4 does not fit this buffer's 5"):
        ReplayBuffer(5).load_state_dict(state)
    with pytest.raises(InvalidOptionError, match="needs"):
        ReplayBuffer(4).load_state_dict({"size": 1})
    with pytest.raises(InvalidOptionError, match="counters"):
        ReplayBuffer(4).load_state_dict({**state, "next": 4})
    with pytest.raises(InvalidOptionError, match="not 4 rows"):
        ReplayBuffer(4).load_state_dict({**state, "values": state["values"][:3]})
    with pytest.raises(InvalidOptionError, match="maps 7 actions"):
        ReplayBuffer(4, symmetries(ConnectFour())).load_state_dict(state)


def test_value_mix_blends_the_result_with_the_root_value() -> None:
    record = numbered(10, 4)
    roots = np.array([1.0, -1.0, 0.5, 0.0], dtype=np.float32)
    record = GameRecord(
        **{**{f: getattr(record, f) for f in record.__dataclass_fields__}, "root_values": roots}
    )
    plain, mixed, rooted = ReplayBuffer(8), ReplayBuffer(8), ReplayBuffer(8)
    plain.add(record)
    mixed.add(record, value_mix=0.25)
    rooted.add(record, value_mix=1.0)
    results = record.values.astype(np.float64)
    assert plain.arrays()["values"] == pytest.approx(results)
    assert mixed.arrays()["values"] == pytest.approx(0.75 * results + 0.25 * roots)
    assert rooted.arrays()["values"] == pytest.approx(roots)


@pytest.mark.parametrize("mix", [-0.1, 1.5, "0.5", True, float("nan")])
def test_bad_value_mixes_are_refused(mix: Any) -> None:
    with pytest.raises(InvalidOptionError, match="value_mix"):
        ReplayBuffer(8).add(numbered(0, 2), value_mix=mix)
