"""Othello (Reversi) rules on bitboards, for any even board size from 4 to 16.

Bit ``row * size + col`` is the square in row ``row`` (row 0 at the top, printed as ``1``) and
column ``col`` (printed as ``a``, ``b``, ...), so a placing move's action is its bit index and
the pass action is ``size * size`` (65 actions on 8x8, as in OpenSpiel). Moves are generated for
all squares at once by shifting the mover's discs through runs of the opponent's, one direction
at a time; the column masks stop shifts from wrapping around the board's edge.

State: ``(own, other, to_play, moves)``: the discs of the player to move and of the other
player, the player to move (0 black, 1 white), and the mover's legal placing moves as a
bitboard, 0 when the mover must pass, or ``TERMINAL``. A terminal state is stored as
``(black, white, 0, TERMINAL)`` whoever moved last, so one final board has one key. ``moves``
is a function of the rest, so the state is its own transposition key.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Hashable

import numpy as np

from mcts_agents.envs.core.bits import BitPlanes
from mcts_agents.envs.core.checks import bits_field, int_field, invalid, state_fields
from mcts_agents.envs.core.errors import InvalidParameterError
from mcts_agents.envs.core.game import BoardGame
from mcts_agents.envs.games.othello_bits import flips, masks, moves
from mcts_agents.envs.games.othello_checks import OPENING, PositionChecks, opening

State = tuple[int, int, int, int]
#: ``moves`` field of a finished game.
TERMINAL = -1
_RETURNS = {1: (1.0, -1.0), -1: (-1.0, 1.0), 0: (0.0, 0.0)}

MoveGen = Callable[[int, int], int]
FlipGen = Callable[[int, int, int], int]
Playout = Callable[[int, int, Callable[[], float], int], tuple[int, int, int]]


def _kernels(size: int) -> tuple[MoveGen, FlipGen]:
    """``moves(own, other)`` and ``flips(own, other, move)`` for one board size."""
    full, nf, nl, e, se, s, sw = masks(size)

    def size_moves(own: int, other: int) -> int:
        return moves(own, other, full, nf, nl, e, se, s, sw)

    def size_flips(own: int, other: int, move: int) -> int:
        return flips(own, other, move, nf, nl, e, se, s, sw)

    return size_moves, size_flips


def _playout(size: int) -> tuple[Playout, Callable[[int], int]]:
    """A uniformly random playout to the end, and the map from its layout back to the board's.

    The playout works on boards with one empty guard column after each row (bit
    ``row * (size + 1) + col``): shifts that leave the board land on a guard bit, which no disc
    ever occupies, so runs of discs stop at the edge with no masks. Each ply draws candidates,
    the empty squares next to an opponent's disc (a superset of the legal moves), uniformly
    without replacement until one flips something: the first legal candidate drawn is uniform
    over the legal moves, and no ply generates all the legal moves. A draw is the ``k``-th of
    the ``n`` remaining candidates in ascending order, ``k = int(rand() * n)``. A player whose
    candidates run out passes; the game ends when both players' run out in a row.

    ``playout(own, other, rand, limit)`` takes the discs (board layout) of the player to move
    and of the other and plays to the end, or until ``limit`` plies (passes included) have been
    played (``limit=-1``: no limit). It returns the discs (guard layout) of the player to move
    and of the other, and the number of plies played, whose parity says who is to move.
    """
    wide = size + 1
    row = (1 << size) - 1
    board = sum(row << (r * wide) for r in range(size))
    s, se, sw = wide, wide + 1, wide - 1

    def to_wide(x: int) -> int:
        y = 0
        for r in range(size):
            y |= ((x >> (r * size)) & row) << (r * wide)
        return y

    def from_wide(x: int) -> int:
        y = 0
        for r in range(size):
            y |= ((x >> (r * wide)) & row) << (r * size)
        return y

    def playout(
        own: int, other: int, rand: Callable[[], float], limit: int
    ) -> tuple[int, int, int]:
        own = to_wide(own)
        other = to_wide(other)
        empty = board ^ (own | other)
        passed = False
        plies = 0
        while True:
            near = other | other << 1 | other >> 1
            candidates = (near | near << s | near >> s) & empty
            while candidates:
                # a uniformly random candidate, counted from the nearer end
                n = candidates.bit_count()
                k = int(rand() * n)
                c = candidates
                if k + k < n:
                    while k:
                        c &= c - 1
                        k -= 1
                    move = c & -c
                else:
                    k = n - 1 - k
                    while k:
                        c ^= 1 << (c.bit_length() - 1)
                        k -= 1
                    move = 1 << (c.bit_length() - 1)
                flipped = 0
                x = move << 1 & other
                if x:
                    run = x
                    x <<= 1
                    while x & other:
                        run |= x
                        x <<= 1
                    if x & own:
                        flipped |= run
                x = move >> 1 & other
                if x:
                    run = x
                    x >>= 1
                    while x & other:
                        run |= x
                        x >>= 1
                    if x & own:
                        flipped |= run
                x = move << s & other
                if x:
                    run = x
                    x <<= s
                    while x & other:
                        run |= x
                        x <<= s
                    if x & own:
                        flipped |= run
                x = move >> s & other
                if x:
                    run = x
                    x >>= s
                    while x & other:
                        run |= x
                        x >>= s
                    if x & own:
                        flipped |= run
                x = move << se & other
                if x:
                    run = x
                    x <<= se
                    while x & other:
                        run |= x
                        x <<= se
                    if x & own:
                        flipped |= run
                x = move >> se & other
                if x:
                    run = x
                    x >>= se
                    while x & other:
                        run |= x
                        x >>= se
                    if x & own:
                        flipped |= run
                x = move << sw & other
                if x:
                    run = x
                    x <<= sw
                    while x & other:
                        run |= x
                        x <<= sw
                    if x & own:
                        flipped |= run
                x = move >> sw & other
                if x:
                    run = x
                    x >>= sw
                    while x & other:
                        run |= x
                        x >>= sw
                    if x & own:
                        flipped |= run
                if flipped:
                    passed = False
                    empty ^= move
                    own, other = other ^ flipped, own | move | flipped
                    break
                candidates ^= move
            else:  # no legal move: pass, and the game is over if the other could not move either
                if passed:
                    return own, other, plies
                passed = True
                own, other = other, own
            plies += 1
            if plies == limit:
                return own, other, plies

    return playout, from_wide


class Othello(BoardGame[State]):
    """Black (player 0) and white take turns placing discs that outflank and flip the other's.

    A move must flip at least one disc; a player with no such move passes (and may pass only
    then). The game ends when neither player can move; more discs wins.
    """

    def __init__(self, size: int = 8) -> None:
        if (
            isinstance(size, bool)
            or not isinstance(size, int)
            or not (4 <= size <= 16 and size % 2 == 0)
        ):
            raise InvalidParameterError(f"size must be an even int in [4, 16], got {size!r}")
        self.size = size
        self.name = "othello"
        self.num_players = 2
        self.cells = size * size
        self.pass_action = size * size
        self.num_actions = size * size + 1
        self.observation_shape = (size, size, 2)
        self._moves, self._flips = _kernels(size)
        self._playout, self._from_wide = _playout(size)
        self._planes = BitPlanes(np.arange(self.cells).reshape(size, size), 2)
        n = size  # the corners, and each X-square (a corner's diagonal neighbour) with its corner
        self.corners = (1 << 0) | (1 << (n - 1)) | (1 << (n * (n - 1))) | (1 << (n * n - 1))
        self.x_squares = (
            (1 << (n + 1), 1),
            (1 << (2 * n - 2), 1 << (n - 1)),
            (1 << (n * (n - 2) + 1), 1 << (n * (n - 1))),
            (1 << (n * (n - 1) - 2), 1 << (n * n - 1)),
        )
        h = size // 2  # white on the centre's main diagonal (d4, e5 on 8x8), black on the other
        white = (1 << ((h - 1) * size + h - 1)) | (1 << (h * size + h))
        black = (1 << ((h - 1) * size + h)) | (1 << (h * size + h - 1))
        self._initial: State = (black, white, 0, self._moves(black, white))
        self._checks = PositionChecks(size, black | white)
        self._opening: frozenset[State] | None = None  # check_state's, made when first needed

    def params(self) -> dict[str, Hashable]:
        return {"size": self.size}

    def __reduce__(self) -> tuple[type[Othello], tuple[int]]:
        # The move kernels are closures (not picklable); the size alone rebuilds them.
        return (type(self), (self.size,))

    # ------------------------------------------------------------------ rules
    def initial_state(self) -> State:
        return self._initial

    def to_play(self, state: State) -> int:
        return state[2]

    def legal_actions(self, state: State) -> list[int]:
        moves = state[3]
        if moves <= 0:
            return [] if moves else [self.pass_action]
        out = []
        while moves:
            bit = moves & -moves
            out.append(bit.bit_length() - 1)
            moves ^= bit
        return out

    def is_legal(self, state: State, action: int) -> bool:
        moves = state[3]
        if moves > 0:
            return action < self.cells and bool(moves >> action & 1)
        return moves == 0 and action == self.pass_action

    def next_state(self, state: State, action: int) -> State:
        own, other, player, _ = state
        if action == self.pass_action:
            return (other, own, 1 - player, self._moves(other, own))
        move = 1 << action
        flipped = self._flips(own, other, move)
        own |= move | flipped
        other ^= flipped
        return self._after_move(own, other, player)

    def _after_move(self, own: int, other: int, player: int) -> State:
        """The state after ``player`` (owner of ``own``) has placed: the other to move, or end."""
        reply = self._moves(other, own)
        if reply:
            return (other, own, 1 - player, reply)
        if self._moves(own, other):
            return (other, own, 1 - player, 0)  # the other player must pass
        return (own, other, 0, TERMINAL) if player == 0 else (other, own, 0, TERMINAL)

    def _children(self, state: State) -> list[State]:
        return [self.next_state(state, action) for action in self.legal_actions(state)]

    def is_terminal(self, state: State) -> bool:
        return state[3] < 0

    def returns(self, state: State) -> tuple[float, ...]:
        if state[3] >= 0:
            return (0.0, 0.0)
        return self._score(state[0], state[1])

    @staticmethod
    def _score(black: int, white: int) -> tuple[float, float]:
        diff = black.bit_count() - white.bit_count()
        return _RETURNS[(diff > 0) - (diff < 0)]

    def check_state(self, state: object) -> None:
        """The discs on the board and on distinct squares, the four centre squares taken; the
        moves field is the mover's legal moves, 0 only when the mover must pass and the other
        can move, ``TERMINAL`` (stored as black, white, 0) only when neither can; every disc
        joined to the centre through discs; a position of the first ``OPENING`` placing moves,
        or one with a square where the last placing move can have been played, by the player
        not to move or (the other passed) by the player to move (``othello_checks``). See
        ``BoardGame.check_state``."""
        name = self.name
        own, other, player, moves = state_fields(name, state, ("own", "other", "to_play", "moves"))
        full = (1 << self.cells) - 1
        bits_field(name, "own", own, full)
        bits_field(name, "other", other, full)
        int_field(name, "to_play", player, 0, 1)
        int_field(name, "moves", moves, TERMINAL, full)
        if own & other:
            invalid(name, f"two discs on one square: {own & other:#x}")
        centre = self._initial[0] | self._initial[1]
        if (own | other) & centre != centre:
            invalid(name, "a centre square is empty: the four centre discs never leave")
        mine, theirs = self._moves(own, other), self._moves(other, own)
        if moves == TERMINAL:
            if player != 0:
                invalid(name, f"a finished game is stored with to_play 0, got {player}")
            if mine or theirs:
                invalid(name, "moves says the game is over, but a player can still move")
        elif moves != mine:
            invalid(name, f"moves {moves:#x} are not the mover's legal moves {mine:#x}")
        elif not moves and not theirs:
            invalid(name, "neither player can move, but the game is not marked over")
        checks, occupied = self._checks, own | other
        if not checks.connected(occupied):
            invalid(name, "own, other: a disc is cut off from the centre (each is placed by one)")
        placed = occupied.bit_count() - 4
        if placed <= OPENING:
            if self._opening is None:
                self._opening = opening(self._initial, self._children)
            if state not in self._opening:
                invalid(name, f"own, other: no {placed} placing moves from the start reach this")
        elif not checks.last_moves(other, own) and (theirs or not checks.last_moves(own, other)):
            invalid(
                name,
                "own, other: no disc can have been the last one placed (one that flipped a line "
                "through the next two discs its way, leaving no line it brackets unflipped)",
            )

    def is_reachable(self, state: State, key: Hashable) -> bool:
        """Occupied squares stay occupied (colours may flip); finished games reach only themselves.

        Every placing move adds exactly one disc, so a position with as many discs as ``state``
        can only be ``state`` itself or, when the mover must pass, the position after the pass.
        """
        if not isinstance(key, tuple) or len(key) != 4:
            return False
        if state[3] < 0:
            return key == state
        k0, k1 = key[0], key[1]
        if not (isinstance(k0, int) and isinstance(k1, int)):
            return False
        occupied = state[0] | state[1]
        key_occupied = k0 | k1
        if key_occupied & occupied != occupied:
            return False
        if key_occupied != occupied:
            return True
        return key == state or (state[3] == 0 and key == self.next_state(state, self.pass_action))

    def rollout(self, state: State, rng: random.Random) -> tuple[float, ...]:
        """Uniformly random play to the end, on bare bitboards (no states, no action lists).

        Each ply's move is uniform over the legal moves (drawn by rejection among the empty
        squares next to an opponent's disc, see ``_playout``); passes and the end are as in
        ``next_state``.
        """
        own, other, player, moves = state
        if moves < 0:
            return self._score(own, other)
        own, other, plies = self._playout(own, other, rng.random, -1)
        return self._score(own, other) if player == plies & 1 else self._score(other, own)

    def decisive_choices(self, own: int, other: int, moves: int) -> int:
        """The moves the heavier playout draws from: the corners among ``moves`` if any, else
        the moves that are not the X-square of an empty corner if any, else all of ``moves``."""
        corners = moves & self.corners
        if corners:
            return corners
        empty = ~(own | other)
        bad = 0
        for x_square, corner in self.x_squares:
            if empty & corner:
                bad |= x_square
        return (moves & ~bad) or moves

    def decisive_rollout(self, state: State, rng: random.Random) -> tuple[float, ...]:
        """The heavier playout of ``playout="decisive"`` on boards up to 8x8 (where it was
        A/B-tested: 91% against uniform playouts at equal time in the compiled kernel): each
        ply a uniformly random move among ``decisive_choices`` (corners first, X-squares of
        empty corners last); passes and the end as in ``next_state``. Larger boards: ``rollout``.
        """
        own, other, player, moves = state
        if moves < 0:
            return self._score(own, other)
        if self.size > 8:
            return self.rollout(state, rng)
        passed = False
        while True:
            if not moves:
                if passed:
                    break
                passed = True
                own, other, player = other, own, player ^ 1
                moves = self._moves(own, other)
                continue
            passed = False
            choice = self.decisive_choices(own, other, moves)
            k = int(rng.random() * choice.bit_count())
            while k:
                choice &= choice - 1
                k -= 1
            move = choice & -choice
            flipped = self._flips(own, other, move)
            own, other, player = other ^ flipped, own | move | flipped, player ^ 1
            moves = self._moves(own, other)
        return self._score(own, other) if player == 0 else self._score(other, own)

    def _playout_discs(
        self, state: State, rng: random.Random, plies: int = -1
    ) -> tuple[int, int, int]:
        """Black's and white's discs where ``rollout(state, rng)`` ends, or after ``plies``
        plies (passes included), and the number of plies played: the rollout's moves, for tests.
        """
        own, other, player, moves = state
        played = 0
        if moves >= 0:
            own, other, played = self._playout(own, other, rng.random, plies)
            own, other = self._from_wide(own), self._from_wide(other)
            player ^= played & 1
        return ((own, other) if player == 0 else (other, own)) + (played,)

    # ------------------------------------------------------------------ views
    def black_white(self, state: State) -> tuple[int, int]:
        """The black and the white discs of ``state`` as bitboards."""
        return (state[0], state[1]) if state[2] == 0 else (state[1], state[0])

    def observation(self, state: State, player: int) -> np.ndarray:
        own, other = (state[0], state[1]) if state[2] == player else (state[1], state[0])
        return self._planes(own, other)

    def grid(self, state: State) -> np.ndarray:
        planes = self._planes(*self.black_white(state))
        return planes[..., 0] + 2 * planes[..., 1]

    def render_text(self, state: State) -> str:
        letters = "abcdefghijklmnop"[: self.size]
        header = "   " + " ".join(letters)
        rows = [
            f"{r + 1:>2} " + " ".join(".XO"[v] for v in row)
            for r, row in enumerate(self.grid(state))
        ]
        black, white = self.black_white(state)
        nb, nw = black.bit_count(), white.bit_count()
        if state[3] < 0:
            result = "draw" if nb == nw else ("X (black) wins" if nb > nw else "O (white) wins")
            status = f"game over: {result} {nb}-{nw}"
        else:
            mover = "X (black)" if state[2] == 0 else "O (white)"
            status = f"{mover} to play{' (must pass)' if state[3] == 0 else ''}; X {nb}, O {nw}"
        return "\n".join([header, *rows, status])

    def action_to_string(self, state: State, action: int) -> str:
        if action == self.pass_action:
            return "pass"
        row, col = divmod(action, self.size)
        return f"{'abcdefghijklmnop'[col]}{row + 1}"
