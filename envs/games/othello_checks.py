"""What ``Othello.check_state`` asks of a position beyond its fields: cheap tests on bitboards,
each true of every position play reaches (checked against all 61,875 positions of 4x4 Othello).

Bit ``row * size + col`` is a square, as in ``othello.py``.

- ``connected``: every disc is joined to the four centre squares through discs, a king's step
  at a time. A disc is placed next to a disc it flips, and discs never leave, so the occupied
  squares grow from the centre one neighbour at a time. (Vacuous on 4x4, where every square
  touches the centre; on 8x8 it refuses a lone disc in a corner.)
- ``opening``: every position of the first ``OPENING`` placing moves (307 on 8x8, made when
  first needed), so a position with at most that many discs beyond the start's is checked
  exactly: the start plus a lone disc in a corner is refused on 4x4 too.
- ``last_moves``: the squares where the last placing move can have been played. The placer's
  disc ``m`` there (not a centre square) flipped a run in some direction, so the next two squares
  that way are the placer's now (the run and the disc that bracketed it); and in no direction
  does a run of the other player's discs next to ``m`` end at a placer's disc, since the move
  would have flipped it (lines from ``m`` in different directions are disjoint, so a direction
  the move did not flip is as it was before). A position after a placing move has such a square.

Not checked, for want of a cheap test: whether the position before the last move is itself
reachable (a search backwards), and counts: the discs fix the placing moves (discs - 4) but not
the passes, so the side to move says nothing. On 4x4 the tests refuse every forged board of up
to four discs beyond the start that play does not reach, and about half of those with more.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from mcts_agents.envs.games.othello_bits import masks, moves

__all__ = ["OPENING", "PositionChecks", "opening"]

State = tuple[int, int, int, int]

#: The placing moves ``opening`` follows from the start: 307 positions on 8x8.
OPENING = 4


def opening(start: State, children: Callable[[State], Iterable[State]]) -> frozenset[State]:
    """The positions play reaches from ``start`` in at most ``OPENING`` placing moves, passes
    included, given each position's ``children``: those with at most ``OPENING`` discs more
    than ``start`` (a placing move adds one disc, a pass none), so a position with that many
    discs is reachable iff it is in the set."""
    limit = (start[0] | start[1]).bit_count() + OPENING
    found, stack = {start}, [start]
    while stack:
        for child in children(stack.pop()):
            if child not in found and (child[0] | child[1]).bit_count() <= limit:
                found.add(child)
                stack.append(child)
    return frozenset(found)


class PositionChecks:
    """``connected`` and ``last_moves`` for one board size, with its masks precomputed."""

    def __init__(self, size: int, centre: int) -> None:
        self.size = size
        self.centre = centre
        self._masks = masks(size)
        full, not_first, not_last = self._masks[:3]
        self._full = full
        n = size
        # back[d](x): the squares whose neighbour in direction d is in x (d: E, W, S, N, SE, SW,
        # NE, NW); a shift that would wrap round a row's end is masked off
        self._back: tuple[Callable[[int], int], ...] = (
            lambda x: x >> 1 & not_last,
            lambda x: x << 1 & not_first,
            lambda x: x >> n,
            lambda x: x << n & full,
            lambda x: x >> (n + 1) & not_last,
            lambda x: x >> (n - 1) & not_first,
            lambda x: x << (n - 1) & not_last & full,
            lambda x: x << (n + 1) & not_first & full,
        )

    def connected(self, occupied: int) -> bool:
        """Whether every square of ``occupied`` is joined to the centre through squares of
        ``occupied`` (a flood fill from the centre, a few big-int operations a step)."""
        n, full = self.size, self._full
        not_first, not_last = self._masks[1], self._masks[2]
        region = self.centre & occupied
        while True:
            row = region | (region << 1 & not_first) | (region >> 1 & not_last)
            grown = (row | row << n | row >> n) & full & occupied
            if grown == region:
                return region == occupied
            region = grown

    def last_moves(self, placer: int, other: int) -> int:
        """The squares of ``placer``'s discs where ``placer``'s last placing move can have been
        played, the other player's discs being ``other`` (module docstring); 0: none."""
        flipped_from = 0
        for back in self._back:
            flipped_from |= back(placer & back(placer))
        full, not_first, not_last, *shifts = self._masks
        # moves() masks its result with ``full ^ (own | other)``, the empty squares: given
        # ``full ^ (placer | other)`` for ``full`` it keeps every square instead
        bracketed = moves(placer, other, full ^ (placer | other), not_first, not_last, *shifts)
        return placer & ~self.centre & flipped_from & ~bracketed
