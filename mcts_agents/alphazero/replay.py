"""A replay buffer of self-play positions for training: a fixed-capacity ring of numpy arrays.

``ReplayBuffer.add(record)`` appends a ``selfplay.GameRecord``'s positions that carry a policy
target (its full searches: KataGo records only those), overwriting the oldest once full.
``sample(batch, rng)`` draws positions uniformly with replacement and returns ``(observations,
masks, policies, values)``; with ``symmetries``
(``mcts_agents.alphazero.symmetries.symmetries(game)``) each sampled position is shown through one
of the game's symmetries, drawn uniformly, so the network sees every orientation of a position
without the buffer storing each. ``state_dict()`` and ``load_state_dict(state)`` save and restore
the ring exactly (a resumed training run samples the same positions as one that never stopped)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from mcts_agents.alphazero.selfplay import GameRecord
from mcts_agents.alphazero.symmetries import Symmetry
from mcts_agents.checks import check_int, check_number, is_int
from mcts_agents.errors import EmptyBufferError, InvalidOptionError

__all__ = ["ReplayBuffer"]


class ReplayBuffer:
    """The last ``capacity`` positions of self-play, as arrays.

    Attributes:
        capacity: positions kept at most.
        symmetries: the maps applied at sampling (identity first), or ``()``: none.
        added: positions ever added (the oldest are overwritten beyond ``capacity``).
    """

    def __init__(self, capacity: int, symmetries: Sequence[Symmetry] = ()) -> None:
        check_int(capacity, "capacity", low=1)
        if not all(isinstance(s, Symmetry) for s in symmetries):
            raise InvalidOptionError(
                "symmetries must be Symmetry objects "
                "(mcts_agents.alphazero.symmetries.symmetries(game)), "
                f"got {list(symmetries)!r}"
            )
        self.capacity = capacity
        self.symmetries = tuple(symmetries)
        self.added = 0
        self._size = 0
        self._next = 0  # the row the next position goes to
        self._observations: np.ndarray | None = None
        self._masks = np.zeros((0, 0), dtype=bool)
        self._policies = np.zeros((0, 0), dtype=np.float32)
        self._values = np.zeros(0, dtype=np.float32)

    def __len__(self) -> int:
        return self._size

    def _allocate(self, record: GameRecord) -> np.ndarray:
        """The observation array, made at the first record (shapes and dtype from it); later
        records must match it."""
        shape = record.observations.shape[1:]
        actions = record.policies.shape[1]
        if self._observations is None:
            for symmetry in self.symmetries:  # checked first: a refused record leaves no trace
                if len(symmetry.actions) != actions:
                    raise InvalidOptionError(
                        f"symmetry {symmetry.name!r} maps {len(symmetry.actions)} actions; the "
                        f"records have {actions}"
                    )
            self._observations = np.zeros((self.capacity, *shape), dtype=record.observations.dtype)
            self._masks = np.zeros((self.capacity, actions), dtype=bool)
            self._policies = np.zeros((self.capacity, actions), dtype=np.float32)
            self._values = np.zeros(self.capacity, dtype=np.float32)
        elif self._observations.shape[1:] != shape or self._policies.shape[1] != actions:
            raise InvalidOptionError(
                f"a record of observations {shape} and {actions} actions does not fit this "
                f"buffer's {self._observations.shape[1:]} and {self._policies.shape[1]} actions "
                "(one buffer per game)"
            )
        return self._observations

    def add(self, record: GameRecord, value_mix: float = 0.0) -> int:
        """Append ``record``'s full-search positions; return how many were added.

        The value target is the game's result for the mover, or with ``value_mix = m`` in
        (0, 1] the blend ``(1 - m) * result + m * root_value`` with the search's own value of
        the position (a target with less noise from the moves drawn after it).
        """
        if not isinstance(record, GameRecord):
            raise InvalidOptionError(f"add takes a GameRecord, got {type(record).__name__}")
        check_number(value_mix, "value_mix", low=0, high=1)
        observations = self._allocate(record)
        rows = np.flatnonzero(record.full_search)
        for row in rows:  # a record is short next to the buffer: row by row is simple and cheap
            i = self._next
            observations[i] = record.observations[row]
            self._masks[i] = record.legal_masks[row]
            self._policies[i] = record.policies[row]
            value = record.values[row]
            if value_mix:
                value = (1.0 - value_mix) * value + value_mix * record.root_values[row]
            self._values[i] = value
            self._next = (i + 1) % self.capacity
        self._size = min(self._size + len(rows), self.capacity)
        self.added += len(rows)
        return len(rows)

    def sample(
        self, batch: int, rng: np.random.Generator
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """``batch`` positions drawn uniformly with replacement, each through a symmetry drawn
        uniformly (if any): ``(observations [batch, *shape], masks [batch, A] bool, policies
        [batch, A] float32, values [batch] float32)``, new arrays.

        Raises:
            EmptyBufferError: nothing was added yet.
            InvalidOptionError: ``batch`` is not an int >= 1, or ``rng`` not a numpy Generator.
        """
        check_int(batch, "batch", low=1)
        if not isinstance(rng, np.random.Generator):
            raise InvalidOptionError(
                f"rng must be a numpy Generator (numpy.random.default_rng(seed)), got {rng!r}"
            )
        if self._observations is None or self._size == 0:
            raise EmptyBufferError("the replay buffer is empty; add self-play records first")
        index = rng.integers(0, self._size, size=batch)
        observations = self._observations[index]
        masks, policies = self._masks[index], self._policies[index]
        if len(self.symmetries) > 1:
            which = rng.integers(0, len(self.symmetries), size=batch)
            for k, symmetry in enumerate(self.symmetries):
                rows = np.flatnonzero(which == k)
                if len(rows) and symmetry.cells is not None:
                    observations[rows] = symmetry.observations(observations[rows])
                if len(rows):
                    masks[rows] = symmetry.actions_of(masks[rows])
                    policies[rows] = symmetry.actions_of(policies[rows])
        return observations, masks, policies, self._values[index]

    def state_dict(self) -> dict[str, Any]:
        """The ring as it is (copies): ``observations``, ``masks``, ``policies``, ``values``
        (``capacity`` rows, in ring order; ``None`` before the first record) and the counters
        ``size``, ``next``, ``added``, ``capacity``; ``load_state_dict`` puts it back exactly."""
        arrays: dict[str, Any] = {"observations": None, "masks": None}
        arrays.update(policies=None, values=None)
        if self._observations is not None:
            arrays = {
                "observations": self._observations.copy(),
                "masks": self._masks.copy(),
                "policies": self._policies.copy(),
                "values": self._values.copy(),
            }
        counters = {"size": self._size, "next": self._next, "added": self.added}
        return {**arrays, **counters, "capacity": self.capacity}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Restore what ``state_dict`` returned (of a buffer of the same capacity).

        Raises:
            InvalidOptionError: another capacity, missing fields, or arrays of the wrong shapes.
        """
        names = ("observations", "masks", "policies", "values", "size", "next", "added")
        missing = [name for name in (*names, "capacity") if name not in state]
        if missing:
            raise InvalidOptionError(f"a replay buffer state needs {missing}; got {sorted(state)}")
        if state["capacity"] != self.capacity:
            raise InvalidOptionError(
                f"a replay buffer state of capacity {state['capacity']!r} does not fit this "
                f"buffer's {self.capacity}"
            )
        size, next_row, added = (state[name] for name in ("size", "next", "added"))
        if not (
            all(is_int(n) for n in (size, next_row, added))
            and 0 <= size <= self.capacity
            and 0 <= next_row < self.capacity
            and added >= size
        ):
            raise InvalidOptionError(
                f"a replay buffer state's counters size={size!r}, next={next_row!r}, "
                f"added={added!r} are not those of a buffer of capacity {self.capacity}"
            )
        if state["observations"] is None:
            if size or added:
                raise InvalidOptionError(f"a replay buffer state of {size} positions has no arrays")
            self._observations = None
            self._size = self._next = self.added = 0
            return
        observations, masks, policies, values = (
            np.array(state[name]) for name in ("observations", "masks", "policies", "values")
        )
        actions = masks.shape[1] if masks.ndim == 2 else -1
        if (
            len(observations) != self.capacity
            or masks.shape != (self.capacity, actions)
            or policies.shape != masks.shape
            or values.shape != (self.capacity,)
        ):
            raise InvalidOptionError(
                f"a replay buffer state's arrays (observations {observations.shape}, masks "
                f"{masks.shape}, policies {policies.shape}, values {values.shape}) are not "
                f"{self.capacity} rows of one game's positions"
            )
        for symmetry in self.symmetries:
            if len(symmetry.actions) != actions:
                raise InvalidOptionError(
                    f"symmetry {symmetry.name!r} maps {len(symmetry.actions)} actions; the "
                    f"state's positions have {actions}"
                )
        self._observations = observations
        self._masks = masks.astype(bool)
        self._policies = policies.astype(np.float32)
        self._values = values.astype(np.float32)
        self._size, self._next, self.added = size, next_row, added

    def arrays(self) -> dict[str, Any]:
        """The stored positions, oldest first, untransformed (copies): ``observations``,
        ``masks``, ``policies``, ``values``; ``{}`` before the first record (no shapes yet)."""
        if self._observations is None:
            return {}
        start = self._next if self._size == self.capacity else 0
        order = (start + np.arange(self._size)) % self.capacity
        return {
            "observations": self._observations[order],
            "masks": self._masks[order],
            "policies": self._policies[order],
            "values": self._values[order],
        }
