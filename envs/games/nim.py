"""Nim: players take chips from one pile at a time (the rules of OpenSpiel's ``nim``, plus a cap).

Parameters: the starting ``piles``, ``max_take`` (the most chips one move may take; ``None``
means up to the whole pile) and ``misere`` (False: whoever takes the last chip wins; True: whoever
takes the last chip loses). The default, one pile of 15 with takes of 1..3, is the classic
subtraction game.

Action = ``pile * take_limit + (take - 1)``: take ``take`` chips (1 <= take <= take_limit) from
pile ``pile`` (0-based), where ``take_limit = min(max_take, max(piles))``, or ``max(piles)`` when
``max_take`` is None (a move can never take more than the largest pile), so the action space is
``Discrete(len(piles) * take_limit)``.

State: ``(piles, to_play)``: the current pile sizes in their original order, and the player to
move. The state is its own transposition key. ``to_play`` must be in it: with takes of 1..3 the
same piles can be reached after an odd or an even number of moves, and per-player returns depend
on who moves. The piles are not sorted in the key, although permuted piles are the same position
up to symmetry, because actions name piles by index: merging permuted positions would give one
table entry two different action numberings.
"""

from __future__ import annotations

import random
from collections.abc import Hashable, Sequence

import numpy as np

from mcts_agents.envs.core.checks import int_field, invalid, state_fields
from mcts_agents.envs.core.errors import InvalidParameterError
from mcts_agents.envs.core.game import BoardGame
from mcts_agents.envs.core.params import MAX_COUNT, check_int

#: The most piles a game may have (an observation plane each).
MAX_PILES = 64

Piles = tuple[int, ...]
State = tuple[Piles, int]


class Nim(BoardGame[State]):
    """Take 1..``max_take`` chips from one pile; taking the last chip wins (loses if misère)."""

    def __init__(
        self, piles: Sequence[int] = (15,), max_take: int | None = 3, misere: bool = False
    ) -> None:
        if isinstance(piles, (str, bytes)) or not isinstance(piles, Sequence):
            raise InvalidParameterError(
                f"piles must be a non-empty sequence of positive ints, got {piles!r}"
            )
        if not 1 <= len(piles) <= MAX_PILES:
            raise InvalidParameterError(
                f"piles must hold 1 to {MAX_PILES} piles of positive ints, got {len(piles)} piles"
            )
        for i, size in enumerate(piles):
            check_int(f"piles[{i}]", size, 1, MAX_COUNT, f" (piles={piles!r})")
        if max_take is not None:
            check_int("max_take", max_take, 1, MAX_COUNT, " or None (no limit)")
        if not isinstance(misere, (bool, np.bool_)):
            raise InvalidParameterError(f"misere must be a bool, got {misere!r}")
        self.piles: Piles = tuple(int(size) for size in piles)
        self.max_take = None if max_take is None else int(max_take)
        self.misere = bool(misere)
        largest = max(self.piles)
        self.take_limit = largest if self.max_take is None else min(self.max_take, largest)
        self.name = "nim"
        self.num_players = 2
        self.num_actions = len(self.piles) * self.take_limit
        self.observation_shape = (len(self.piles), largest, 1)

    def params(self) -> dict[str, Hashable]:
        return {"piles": self.piles, "max_take": self.max_take, "misere": self.misere}

    # ------------------------------------------------------------------ rules
    def initial_state(self) -> State:
        return (self.piles, 0)

    def to_play(self, state: State) -> int:
        return state[1]

    def legal_actions(self, state: State) -> list[int]:
        limit = self.take_limit
        return [i * limit + t for i, size in enumerate(state[0]) for t in range(min(size, limit))]

    def is_legal(self, state: State, action: int) -> bool:
        pile, take = divmod(action, self.take_limit)
        return take < state[0][pile]

    def next_state(self, state: State, action: int) -> State:
        piles, player = state
        pile, take = divmod(action, self.take_limit)
        new = list(piles)
        new[pile] -= take + 1
        return (tuple(new), 1 - player)

    def is_terminal(self, state: State) -> bool:
        return not any(state[0])

    def returns(self, state: State) -> tuple[float, ...]:
        if any(state[0]):
            return (0.0, 0.0)
        # the player to move did not take the last chip: that wins in misère play
        winner = state[1] if self.misere else 1 - state[1]
        return (1.0, -1.0) if winner == 0 else (-1.0, 1.0)

    def check_state(self, state: object) -> None:
        """Exact: each pile an int between 0 and its starting size, the player to move 0 or 1,
        and the two reachable from the start (``is_reachable``). See
        ``BoardGame.check_state``."""
        name = self.name
        piles, player = state_fields(name, state, ("piles", "to_play"))
        if type(piles) is not tuple or len(piles) != len(self.piles):
            invalid(name, f"piles must be a tuple of {len(self.piles)} ints, got {piles!r}")
        for i, (size, start) in enumerate(zip(piles, self.piles, strict=True)):
            int_field(name, f"piles[{i}]", size, 0, start)
        int_field(name, "to_play", player, 0, 1)
        if not self.is_reachable(self.initial_state(), state):
            invalid(
                name,
                f"piles {piles} cannot be reached with player {player} to move (moves take "
                f"1 to {self.take_limit} chips and alternate from player 0)",
            )

    def is_reachable(self, state: State, key: Hashable) -> bool:
        """Exact: piles only shrink, and the number of moves must match the change of turn.

        Taking ``d`` chips from one pile takes between ``ceil(d / take_limit)`` and ``d`` moves
        (any number in between), so the moves from ``state`` to ``key`` range over
        ``[sum ceil(d_i / take_limit), sum d_i]`` and their parity must flip the turn as in
        ``key``.
        """
        piles, player = state
        if not isinstance(key, tuple) or len(key) != 2 or key[1] not in (0, 1):
            return False
        key_piles = key[0]
        if not isinstance(key_piles, tuple) or len(key_piles) != len(piles):
            return False
        if any(k < 0 or k > p for k, p in zip(key_piles, piles, strict=True)):
            return False
        removed = sum(piles) - sum(key_piles)
        if removed == 0:
            return key == state
        limit = self.take_limit
        fewest = sum(-(-(p - k) // limit) for k, p in zip(key_piles, piles, strict=True))
        turn_changes = (key[1] - player) & 1
        return fewest < removed or (removed - turn_changes) % 2 == 0

    def rollout(self, state: State, rng: random.Random) -> tuple[float, ...]:
        piles, player = state
        sizes = list(piles)
        limit = self.take_limit
        rand = rng.random
        while any(sizes):
            moves = [(i, t) for i, size in enumerate(sizes) for t in range(min(size, limit))]
            i, t = moves[int(rand() * len(moves))]
            sizes[i] -= t + 1
            player = 1 - player
        return self.returns(((0,) * len(sizes), player))

    # ------------------------------------------------------------------ views
    def observation(self, state: State, player: int) -> np.ndarray:
        """Planes ``(num_piles, largest_start_pile, 1)``: row ``i`` has ``piles[i]`` ones.

        Nim is impartial, so both players see the same planes.
        """
        return self.grid(state)[..., None]

    def grid(self, state: State) -> np.ndarray:
        """Piles as rows of chips (1) from the left; chips belong to nobody."""
        width = self.observation_shape[1]
        sizes = np.array(state[0])
        return (np.arange(width)[None, :] < sizes[:, None]).astype(np.int8)

    def render_text(self, state: State) -> str:
        width = self.observation_shape[1]
        digits = len(str(len(self.piles) - 1))
        lines = [
            f"pile {i:>{digits}}: {'o' * size}{'.' * (width - size)} ({size})"
            for i, size in enumerate(state[0])
        ]
        if self.is_terminal(state):
            winner = state[1] if self.misere else 1 - state[1]
            lines.append(f"player {winner} wins")
        else:
            lines.append(f"player {state[1]} to play")
        return "\n".join(lines)

    def action_to_string(self, state: State, action: int) -> str:
        pile, take = divmod(action, self.take_limit)
        return f"take {take + 1} from pile {pile}"
