"""Small ``@njit`` helpers every compiled kernel and rule set shares.

The kernels' random numbers come from xorshift64* over a one-element ``uint64`` array (the
generator's state, seeded by the Python side from the search's own generator); positions are
words of ``int64`` (an unsigned 64-bit board is stored bit for bit as a signed word).
"""

from __future__ import annotations

import numpy as np

from mcts_agents.compiled.cache import njit

#: A solver value or terminal value that is not known (values are -1, 0, 1).
UNKNOWN = 2
#: Games of more than two players report outcomes, not values: ``DRAW``, or ``WIN + p`` when
#: player ``p`` wins (+1 to the winner, -1 to every other player, as m,n,k's core pays).
DRAW, WIN = 3, 4

#: A kernel's ``meta`` words (``meta_table``), by name: the nodes and the edges in use, and the
#: summed depth of the simulations' paths since the Python side last cleared it.
META_NODES = 0
META_EDGES = 1
META_DEPTH = 2


#: Bytes of memory that one tree's often-written words have to themselves (``meta_table``,
#: ``rng_state``): two 64-byte cache lines, as Intel's adjacent-line prefetcher fetches lines
#: in pairs.
LINE_BYTES = 128


def _own_lines(words: int, dtype: type) -> np.ndarray:
    """``words`` zeros of ``dtype`` alone in their own ``LINE_BYTES``-aligned block of memory.

    A tree's ``meta`` words are written at every simulation and its generator's word at every
    random draw. As tiny arrays of their own, numpy's allocator put several trees' words in
    one cache line (found: 3 of 16 trees' ``meta`` sharing a line with another tree's
    generator), so threads searching different trees of a batch took that line from each
    other (false sharing). The view's base keeps the whole block alive."""
    size = np.dtype(dtype).itemsize
    block: np.ndarray = np.zeros((2 * LINE_BYTES + words * size) // size, dtype)
    skip = (-block.ctypes.data) % LINE_BYTES // size
    return block[skip : skip + words]


def meta_table() -> np.ndarray:
    """A kernel's ``meta`` words, all zero (an empty table), in cache lines of their own."""
    return _own_lines(3, np.int64)


def rng_state() -> np.ndarray:
    """A kernel's generator state (``random01``): one ``uint64`` word, 1 until seeded, in
    cache lines of its own."""
    state = _own_lines(1, np.uint64)
    state[0] = 1
    return state


@njit(cache=True)
def gain(outcome: float, player: int) -> float:
    """What the outcome code ``outcome`` (``DRAW`` or ``WIN + p``) pays ``player``."""
    if outcome == DRAW:
        return 0.0
    return 1.0 if outcome - WIN == player else -1.0


def outcome_returns(outcome: int, players: int) -> tuple[float, ...]:
    """Every player's return of an outcome code (Python side)."""
    return tuple(float(gain(outcome, p)) for p in range(players))


@njit(cache=True)
def random01(rng: np.ndarray) -> float:
    """xorshift64*: the next float in [0, 1) from the uint64 state ``rng[0]`` (never 0)."""
    x = rng[0]
    x ^= x >> np.uint64(12)
    x ^= x << np.uint64(25)
    x ^= x >> np.uint64(27)
    rng[0] = x
    return float((x * np.uint64(0x2545F4914F6CDD1D)) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@njit(cache=True)
def popcount(x: int) -> int:
    """Set bits of an int64 word, the sign bit included (SWAR on the unsigned bits)."""
    y = np.uint64(x)
    y = y - ((y >> np.uint64(1)) & np.uint64(0x5555555555555555))
    y = (y & np.uint64(0x3333333333333333)) + ((y >> np.uint64(2)) & np.uint64(0x3333333333333333))
    y = (y + (y >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return np.int64((y * np.uint64(0x0101010101010101)) >> np.uint64(56))


@njit(cache=True)
def pick_bit(bits: int, rng: np.ndarray) -> int:
    """A uniformly random set bit of the non-zero int64 ``bits``, as a one-bit mask."""
    return nth_bit(bits, int(random01(rng) * popcount(bits)))


@njit(cache=True)
def nth_bit(bits: int, k: int) -> int:
    """The set bit of the int64 ``bits`` with ``k`` set bits below it (``k < popcount(bits)``),
    as a one-bit mask."""
    while k:
        bits &= bits - 1
        k -= 1
    return bits & -bits


@njit(cache=True)
def bit_index(bit: int) -> int:
    """The index of the one set bit of ``bit`` (the sign bit is 63)."""
    return popcount(bit - 1) if bit != np.int64(-9223372036854775808) else 63


@njit(cache=True)
def same_words(a: np.ndarray, b: np.ndarray, n: int) -> bool:
    """Whether the first ``n`` words of ``a`` and ``b`` are equal."""
    for i in range(n):  # noqa: SIM110 (a loop numba compiles to a plain comparison)
        if a[i] != b[i]:
            return False
    return True


@njit(cache=True)
def covers(a: np.ndarray, b: np.ndarray, n: int) -> bool:
    """Whether each of the first ``n`` words of ``a`` has every bit of ``b``'s."""
    for i in range(n):  # noqa: SIM110
        if a[i] & b[i] != b[i]:
            return False
    return True


@njit(cache=True)
def status_result(status: int, players: int, player: int) -> int:
    """The end of a game in the rule sets' status code (0 running, ``q + 1`` player ``q``
    won, ``players + 1`` a draw; m,n,k's and ultimate tic-tac-toe's) for ``player``:
    ``UNKNOWN`` while running; with two players a value (+1, 0, -1), with more an outcome
    code (``DRAW``, ``WIN + q``)."""
    if status == 0:
        return UNKNOWN
    if players > 2:
        return DRAW if status == players + 1 else WIN + status - 1
    if status == players + 1:
        return 0
    return 1 if player == status - 1 else -1
