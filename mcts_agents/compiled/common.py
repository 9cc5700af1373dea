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


def meta_table() -> np.ndarray:
    """A kernel's ``meta`` words, all zero (an empty table)."""
    return np.zeros(3, np.int64)


def rng_state() -> np.ndarray:
    """A kernel's generator word (``rng[0]``, xorshift64*'s state: ``random01``), seeded later."""
    return np.ones(1, np.uint64)


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
