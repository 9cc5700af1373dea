"""Othello's move and flip generators on bitboards: plain code over any word type.

Bit ``row * size + col`` is a square. ``moves`` finds every legal placing move at once by
shifting the mover's discs through runs of the opponent's, one direction at a time; the column
masks stop shifts from wrapping around the board's edge. The rules core
(``mcts_agents.envs.games.othello``) calls them with Python ints; ``mcts_agents.compiled``
compiles the same functions with ``numpy.uint64`` words (boards of up to 64 squares): one
source for both. ``masks(size, word)`` gives their constants.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def masks(size: int, word: Callable[[int], Any] = int) -> tuple[Any, ...]:
    """The constants of ``moves`` and ``flips`` for one board size, each a ``word``: ints for
    the rules core, ``numpy.uint64`` where ``mcts_agents.compiled`` compiles the two functions
    (one source for both). ``(full, not_first, not_last, e, se, s, sw)``: the board, the
    squares an eastward (westward) shift may land on, and the four shift amounts."""
    col0 = sum(1 << (r * size) for r in range(size))
    full = (1 << (size * size)) - 1
    shifts = (1, size + 1, size, size - 1)
    return tuple(word(x) for x in (full, full ^ col0, full ^ (col0 << (size - 1)), *shifts))


def moves(
    own: Any, other: Any, full: Any, not_first: Any, not_last: Any, e: Any, se: Any, s: Any, sw: Any
) -> Any:
    """Squares where the owner of ``own`` may place a disc (flipping at least one); the other
    arguments are ``masks(size)``. Plain code over any word type (ints, or compiled uint64)."""
    w, nw, n, ne = e, se, s, sw  # the four directions that shift right
    zero = own ^ own
    oe = other & not_first
    ow = other & not_last
    east = west = vert = zero
    t = (own << e) & oe
    while t:
        t <<= e
        east |= t
        t &= oe
    t = (own << se) & oe
    while t:
        t <<= se
        east |= t
        t &= oe
    t = (own >> ne) & oe
    while t:
        t >>= ne
        east |= t
        t &= oe
    t = (own >> w) & ow
    while t:
        t >>= w
        west |= t
        t &= ow
    t = (own >> nw) & ow
    while t:
        t >>= nw
        west |= t
        t &= ow
    t = (own << sw) & ow
    while t:
        t <<= sw
        west |= t
        t &= ow
    t = (own << s) & other
    while t:
        t <<= s
        vert |= t
        t &= other
    t = (own >> n) & other
    while t:
        t >>= n
        vert |= t
        t &= other
    return ((east & not_first) | (west & not_last) | vert) & (full ^ (own | other))


def flips(
    own: Any, other: Any, move: Any, not_first: Any, not_last: Any, e: Any, se: Any, s: Any, sw: Any
) -> Any:
    """Discs of ``other`` flipped when the owner of ``own`` places on bit ``move``."""
    w, nw, n, ne = e, se, s, sw
    zero = own ^ own
    oe = other & not_first
    ow = other & not_last
    pe = own & not_first
    pw = own & not_last
    result = zero
    x = move << e
    if x & oe:
        f = zero
        while x & oe:
            f |= x
            x <<= e
        if x & pe:
            result |= f
    x = move << se
    if x & oe:
        f = zero
        while x & oe:
            f |= x
            x <<= se
        if x & pe:
            result |= f
    x = move >> ne
    if x & oe:
        f = zero
        while x & oe:
            f |= x
            x >>= ne
        if x & pe:
            result |= f
    x = move >> w
    if x & ow:
        f = zero
        while x & ow:
            f |= x
            x >>= w
        if x & pw:
            result |= f
    x = move >> nw
    if x & ow:
        f = zero
        while x & ow:
            f |= x
            x >>= nw
        if x & pw:
            result |= f
    x = move << sw
    if x & ow:
        f = zero
        while x & ow:
            f |= x
            x <<= sw
        if x & pw:
            result |= f
    x = move << s
    if x & other:
        f = zero
        while x & other:
            f |= x
            x <<= s
        if x & own:
            result |= f
    x = move >> n
    if x & other:
        f = zero
        while x & other:
            f |= x
            x >>= n
        if x & own:
            result |= f
    return result
