"""Whether ultimate tic-tac-toe's stones can have been played in some order (``check_state``'s).

A game is a walk: the move on cell ``c`` of board ``b`` sends the next move to board ``c``
unless board ``c`` is closed by then, when the next move is free (any open board). Draw the
stones as edges of a graph on 18 nodes, ``(board, side to move)``: X's stone on cell ``c`` of
board ``b`` goes from ``(b, X)`` to ``(c, O)``, O's from ``(b, O)`` to ``(c, X)``. The moves in
order are then trails through every edge once, X first, each trail but the last ending at a
node whose board was closed then (a free move follows), and the last ending at ``t``, the node
of the last move's cell and the side to move (``(forced, side)`` while the game runs and
``forced`` is an open board).

For each node ``v`` let ``D(v) = out(v) - in(v) + [v == t]``, which is the number of trails
that start at ``v`` less those (other than the last) that end there. So, as play requires:

- a node of an open board (open to the end, so open all along) ends no trail but the last:
  ``D(v) >= 0`` there;
- a trail starts with the game's first move (at an X node), or after a free move, which
  follows a move onto the cell of a closed board: the trails that start at X nodes number at
  least the positive ``D`` of X nodes and at most ``1 +`` O's stones on closed boards' cells
  (less the last move's if it was O's and sent nowhere), those at O nodes at most X's;
- each trail stays in one connected part of the graph, and each part holds at least as many
  trails as the positive ``D`` of its nodes (one if none): at most ``1 +`` the free moves.

With no board closed, these say the stones form one trail from an X node to ``t``, which is
exactly what play reaches (no board closes, so no rule but the forced board applies): the
test is exact until a small board is won or filled (the first five moves, at least), and a
necessary condition after. Cost: O(stones) plus a union-find on 18 nodes.
"""

from __future__ import annotations

__all__ = ["order_problem"]

_ALL9 = 0x1FF


def order_problem(b0: int, b1: int, closed: int, forced: int, ply: int, running: bool) -> str:
    """Why no order of play can have put X's stones ``b0`` and O's ``b1`` (81-bit boards)
    where they are, with ``closed`` the closed boards, ``forced`` the board the mover is sent
    to (-1: free), ``ply`` moves made and the game ``running``; ``""`` if none is found. The
    other fields are assumed checked: stone counts, won and closed boards, the status, and a
    ``forced`` board that is open and the cell of a stone of the last mover."""
    if not ply:
        return ""
    last = (ply - 1) & 1  # the side that moved last; the side to move is ``1 - last``
    out, inn = [0] * 18, [0] * 18
    closed_cells = [0, 0]  # each side's stones on the cells of closed boards
    parent = list(range(18))

    def root(v: int) -> int:
        while parent[v] != v:
            parent[v] = parent[parent[v]]
            v = parent[v]
        return v

    for side, stones in ((0, b0), (1, b1)):
        while stones:
            low = stones & -stones
            board, cell = divmod(low.bit_length() - 1, 9)
            stones ^= low
            tail, head = board + 9 * side, cell + 9 * (1 - side)
            out[tail] += 1
            inn[head] += 1
            parent[root(tail)] = root(head)
            closed_cells[side] += closed >> cell & 1
    end = forced + 9 * (1 - last) if running and forced >= 0 else -1  # t, where known
    if running and forced < 0:
        closed_cells[last] -= 1  # the last move was sent to a closed board: no free move yet
        if closed_cells[last] < 0:
            return "forced -1 (a free move), but no cell of the last mover's is a closed board"
    free = closed_cells[0] + closed_cells[1]  # free moves after the first, at most
    surplus = [0, 0]  # positive D over the X nodes and the O nodes
    parts: dict[int, int] = {}  # connected part -> positive D of its nodes
    unknown_end = not running  # a finished game's last move may end on an open board
    for v in range(18):
        if not (out[v] or inn[v] or v == end):
            continue
        d = out[v] - inn[v] + (v == end)
        if d < 0 and not closed >> (v % 9) & 1:
            if unknown_end and d == -1 and v // 9 == 1 - last:
                unknown_end, d = False, 0  # the last move's cell: this is t
            else:
                return (
                    f"stones_0, stones_1, forced {forced}: no order of play fits them: more "
                    f"moves sent {'XO'[v // 9]} to open board {v % 9} than it played there"
                )
        r = root(v)
        parts[r] = parts.get(r, 0) + max(d, 0)
        surplus[v // 9] += max(d, 0)
    if surplus[0] > 1 + closed_cells[1] or surplus[1] > closed_cells[0]:
        return (
            f"stones_0, stones_1, forced {forced}: no order of play fits them: X must have "
            f"moved freely {surplus[0]} times and O {surplus[1]}, but at most "
            f"{1 + closed_cells[1]} and {closed_cells[0]} moves can have been free"
        )
    if sum(max(s, 1) for s in parts.values()) > 1 + free:
        return (
            f"stones_0, stones_1, forced {forced}: no order of play fits them: they need "
            f"more walks from board to board than the {1 + free} that free moves allow"
        )
    return ""
