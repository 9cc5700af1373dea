"""Go's fast playout on bare bitboards (``Go.rollout``): uniformly random legal moves, the
pass among them, until two passes in a row.

Each ply draws the empty points and the pass without replacement until a legal one comes up (a
partial Fisher-Yates shuffle of a list of the empty points kept up to date: a placed stone
leaves it, captured stones come back), so the move is uniform over the legal moves as
``legal_actions`` gives them, for a legality test or two: a point is legal unless it is the ko
point, it is suicide (no capture, no liberty for its group), or, under superko, its board is an
earlier one. Captures look at the opponent's neighbouring groups only, and only those whose
stone next to the point has no other liberty of its own (a flood fill by shifts otherwise).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def playout(
    game: Any,
    state: tuple[Any, ...],
    rand: Callable[[], float],
    record: list[int] | None = None,
    eyes: bool = False,
) -> tuple[int, int]:
    """Black's and white's stones where a random playout from ``state`` (not over) ends in
    ``game`` (a ``Go`` core: its layout, Zobrist table and neighbour masks); each action played
    is appended to ``record`` when it is given.

    ``eyes``: the mover never fills its own eye (an empty point whose neighbours on the board
    are all its stones, with at most one opponent stone on its diagonals, none on the edge) and
    passes only when no other legal move is left; such a playout stops after ``3 * points``
    plies if the passes have not ended it (a cycle of captures), and the board is scored as
    it stands."""
    black, white, player, ko, passes, board_hash, seen, _ = state
    w, board, bit_action = game.width, game.board, game.bit_action
    zstone, superko, nbt = game.zstone, game.superko, game.point_neighbours
    diagonals, edge = game.point_diagonals, game.edge_points
    plies_left = 3 * game.points if eyes else -1
    repeats = set(seen) if superko else None
    own, opp = (black, white) if player == 0 else (white, black)
    empty = board & ~(black | white)
    empties = [b for b in range(len(bit_action)) if empty >> b & 1]
    ko_bit = 1 << game.action_bit[ko] if ko >= 0 else 0
    while True:
        n = len(empties)
        i = 0
        chosen = 0  # the pass, unless a point is chosen
        drawn = n if eyes else n + 1  # the candidates: the empty points (and the pass)
        while i < drawn:
            j = i + int(rand() * (drawn - i))
            if j == n:
                break
            b = empties[j]
            empties[j] = empties[i]
            empties[i] = b
            bit = 1 << b
            i += 1
            if bit == ko_bit:
                continue
            near = nbt[b]
            if eyes and not near & ~own:  # every neighbour ours: an eye unless the diagonals
                faults = (diagonals[b] & opp).bit_count() + (bit & edge != 0)  # say otherwise
                if faults <= 1:
                    continue
            mine = own | bit
            free = empty ^ bit
            captured = 0
            seeds = near & opp
            while seeds:  # the opponent's neighbouring groups left without a liberty
                g = f = seeds & -seeds
                if nbt[g.bit_length() - 1] & free:  # a liberty next to this very stone
                    seeds ^= g
                    continue
                while f:
                    f = ((f << 1) | (f >> 1) | (f << w) | (f >> w)) & opp & ~g
                    g |= f
                seeds &= ~g
                if not ((g << 1) | (g >> 1) | (g << w) | (g >> w)) & free:
                    captured |= g
            if not captured and not near & free:  # no capture, no empty neighbour
                g = f = bit
                while f:
                    f = ((f << 1) | (f >> 1) | (f << w) | (f >> w)) & mine & ~g
                    g |= f
                if not ((g << 1) | (g >> 1) | (g << w) | (g >> w)) & free:
                    continue  # suicide
            if repeats is not None:
                h = board_hash ^ zstone[player][bit_action[b]]
                if captured:
                    h ^= game.hash_of(1 - player, captured)
                if h in repeats:
                    continue
                repeats.add(h)
                board_hash = h
            chosen = bit
            break
        if record is not None:
            record.append(bit_action[b] if chosen else game.pass_action)
        if not chosen:
            passes += 1
            if passes >= 2:
                break
            ko_bit = 0
        else:
            passes = 0
            koish = not near & ~opp
            own = mine
            empty = free
            last = empties.pop()  # take the chosen point, at i - 1, out of the list
            if last != b:
                empties[i - 1] = last
            ko_bit = 0
            if captured:
                opp ^= captured
                empty |= captured
                if koish and captured & (captured - 1) == 0:
                    ko_bit = captured
                while captured:
                    low = captured & -captured
                    captured ^= low
                    empties.append(low.bit_length() - 1)
        own, opp = opp, own
        player ^= 1
        plies_left -= 1
        if not plies_left:
            break
    return (own, opp) if player == 0 else (opp, own)
