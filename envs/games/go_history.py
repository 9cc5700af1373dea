"""What ``Go.check_state`` and ``Go.check_key`` ask of a superko history (``seen``: the hashes of
every board so far).

- It holds the current board's hash and those of the boards in ``recent`` (each of them a board
  of the game), and, while ``recent`` is shorter than ``HISTORY``, nothing else: the game has
  then made ``len(recent)`` plies from its first board, ``recent[-1]`` (the empty board, or one
  set up by ``state_from_stones``), and each ply left one board, a move adding its hash.
- Each hash is the Zobrist hash of a board: each point at most one colour. A board's hash is
  the XOR of one 64-bit key per stone, so this is linear algebra over GF(2). On 5x5 the 50 keys
  are independent: a hash is the XOR of at most one set of keys, and of none for all but
  2**-14 of the 64-bit values. On 6x6 the 72 keys span all 2**64 values with eight dependent:
  each value is the XOR of 256 sets of keys, and for a random value about 1 in 120 of them
  colours each point at most once. On 7x7 and larger a value is the hash of many colourings
  (3**49 / 2**64, about 13,000, on 7x7), so the hash alone cannot refuse one: there only the
  first rule holds, and ``seen`` may hold junk beyond the last ``HISTORY`` boards.
- A key ``(hash, seen)``: ``hash`` is a board's hash in ``seen`` with the side to move, the ko
  point and the passes folded in.

Reducing a value to its keys is linear, so it is eight table lookups (a byte each). Not
checked: whether a decoded board is legal (every group with a liberty), a flood fill per hash
for little: on 5x5 the test above already refuses all but 2**-14 of the random values.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import cache

import numpy as np

from mcts_agents.envs.games.go_layout import zobrist_table

__all__ = ["MAX_POINTS", "history_problem", "impossible_hash", "key_extras"]

#: The most points of a board whose hashes can be decoded (6x6: 256 sets of keys per hash).
MAX_POINTS = 36


@cache
def _decoder(size: int) -> tuple[list[list[tuple[int, int]]], np.ndarray, np.ndarray]:
    """Per byte position and value, the residual and the keys (a key-index mask) of its
    reduction against an echelon basis of ``size``'s keys; and every set of keys whose XOR is
    0 (0 included), as its black and its white points (action masks)."""
    stone = zobrist_table(size)[0]
    basis: dict[int, tuple[int, int]] = {}  # pivot bit -> (vector, key-index mask)
    kernel = [0]
    for index, key in enumerate(stone[0] + stone[1]):
        vector, mask = key, 1 << index
        while vector and vector.bit_length() - 1 in basis:
            pivot_vector, pivot_mask = basis[vector.bit_length() - 1]
            vector ^= pivot_vector
            mask ^= pivot_mask
        if vector:
            basis[vector.bit_length() - 1] = (vector, mask)
        else:
            kernel += [k ^ mask for k in kernel]
    pivots = sorted(basis, reverse=True)

    def reduce(value: int) -> tuple[int, int]:
        mask = 0
        for pivot in pivots:
            if value >> pivot & 1:
                value ^= basis[pivot][0]
                mask ^= basis[pivot][1]
        return value, mask

    points = len(stone[0])
    low = (1 << points) - 1
    return (
        [[reduce(v << (8 * i)) for v in range(256)] for i in range(8)],
        np.array([k & low for k in kernel], dtype=np.uint64),
        np.array([k >> points for k in kernel], dtype=np.uint64),
    )


def impossible_hash(size: int, hashes: Iterable[int]) -> int:
    """The first of ``hashes`` that is the Zobrist hash of no board of ``size`` (no colouring
    of its points, each at most one colour), or -1; always -1 on boards of more than
    ``MAX_POINTS`` points, whose every hash is some colouring's. Each hash's keys (a key-index
    mask: bit ``p`` black on point ``p``, bit ``size * size + p`` white) are eight table
    lookups; the 256 other sets of keys of a 6x6 hash are tried at once in numpy."""
    points = size * size
    if points > MAX_POINTS:
        return -1
    tables, black_kernel, white_kernel = _decoder(size)
    low = (1 << points) - 1
    values, blacks, whites = [], [], []
    for value in hashes:
        residual = mask = 0
        for i, table in enumerate(tables):
            r, m = table[value >> (8 * i) & 0xFF]
            residual ^= r
            mask ^= m
        if residual:
            return value
        values.append(value)
        blacks.append(mask & low)
        whites.append(mask >> points)
    if not values:
        return -1
    black = np.array(blacks, dtype=np.uint64)[:, None] ^ black_kernel
    white = np.array(whites, dtype=np.uint64)[:, None] ^ white_kernel
    coloured = ((black & white) == 0).any(axis=1)
    return -1 if coloured.all() else values[int(np.argmin(coloured))]


def history_problem(
    seen: frozenset[int],
    board: tuple[int, int, int],
    recent: tuple[tuple[int, int], ...],
    history: int,
    hash_of: Callable[[int, int], int],
) -> str:
    """Why ``seen`` is no history of a game whose board is ``board`` (black, white, hash) and
    whose last boards (newest first, at most ``history`` kept) are ``recent``, given
    ``hash_of(black, white)``; ``""`` if none is found (the module docstring's first rule).
    Each board's hash is the one after it XOR the hash of the stones that differ (a move's)."""
    black, white, board_hash = board
    boards = {board_hash}
    for earlier_black, earlier_white in recent:
        board_hash ^= hash_of(black ^ earlier_black, white ^ earlier_white)
        black, white = earlier_black, earlier_white
        boards.add(board_hash)
    if not boards <= seen:
        return f"seen lacks the hash of {len(boards - seen)} board(s) of recent or of the board"
    if len(recent) < history and len(seen) > len(boards):
        return (
            f"seen holds {len(seen)} hashes after {len(recent)} plies, which left "
            f"{len(boards)} boards (a ply adds at most one, and recent holds them all)"
        )
    return ""


@cache
def key_extras(size: int) -> frozenset[int]:
    """What ``Go.key`` may XOR into a board's hash: the passes, the side and the ko point."""
    _, side, ko, passes = zobrist_table(size)
    return frozenset(p ^ s ^ k for p in passes for s in (0, side) for k in [0, *ko])
