"""Go's playouts compiled (numba, the ``fast`` extra), for the Python search of ``Go``.

The search stays the Python ``MCTS`` on the rules core (``envs/games/go.py``: go_v0, and
PettingZoo's ``go_v5`` through the fast path), with the core's rules in the tree (superko
included); only the playouts run here, from the core's state: its stones, the side to move,
the simple-ko point and the passes in a row.

Strings are kept incrementally, not flood-filled: each stone knows its string's head and the
next stone of its string (a circular list); a string's head keeps its pseudo-liberties (one
per stone and empty neighbour, repeats counted), their sum and their sum of squares, so a
string is captured when the count is 0 and is in atari (one liberty, counted ``n`` times)
exactly when ``n * sum_of_squares == sum**2``. A move merges the strings it joins (the
smaller relabelled) and lifts the strings it captures. The board is padded by one ring of
off-board points, so neighbours are four fixed offsets.

The play is the core's (``go_playout.playout``), move for move in kind:

- ``"random"`` (``Go.rollout``): a uniformly random legal move each ply, the pass among them:
  a partial Fisher-Yates shuffle of the empty points and the pass, the first legal one taken;
  two passes in a row end the game.
- ``"decisive"`` (``Go.decisive_rollout``): the same without the mover's own eyes (an empty
  point whose neighbours on the board are all its stones, with at most one opponent stone on
  its diagonals and none when it is on the edge) and without the pass while another legal
  move is left; it stops after ``3 * points`` plies (a cycle of captures), scored as it stands.

Ko in playouts is **simple ko only** (a single-stone capture may not be retaken at once), the
usual choice for playouts: positional superko (go_v0's default) is kept by the tree, not by the
playouts, so a playout may repeat an earlier board where the core's Python playout would not.
The uniform playout has a safety cap of ``50 * points`` plies (never reached in the tests).

The end is scored by Tromp-Taylor area (stones plus the empty regions that reach one colour
only): black wins when its area minus white's minus komi is positive, as the core pays.

Random numbers: xorshift64* (as ``common.random01``, drawn as integers by multiply and shift)
seeded by one ``rng.getrandbits(63)`` of the
search's generator per playout (scrambled by SplitMix64 first, so that near seeds give
unrelated streams): the same search seed gives the same search, but not the same
moves as the core's Python playout (the tests compare legality, scores and distributions).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from mcts_agents.compiled.cache import njit
from mcts_agents.envs.games.go import Go

__all__ = ["black_wins", "go_playout", "playout_moves", "warm_up"]

_BLACK_WINS, _WHITE_WINS = (1.0, -1.0), (-1.0, 1.0)
_OFF = 3
#: The rows of a board's strings and empty points (``rows``, int64 ``[8, cells]``): each
#: stone's string head and the next stone of its string, at a head its stones and its
#: pseudo-liberties' count, sum and sum of squares; the empty points in a list and each one's
#: place in it (``go_board``'s ``bw`` is these rows).
HEAD, NXT, STONES, PLIB, LSUM, LSUM2, EMPTIES, EPOS = range(8)


@njit(cache=True)
def area(col: Any, offs: Any, stack: Any, seen: Any) -> int:
    """Black's Tromp-Taylor area minus white's: stones, and empty regions reaching one colour
    only. ``stack`` and ``seen`` are scratch of one word a cell."""
    total = 0
    seen[:] = False
    for p in range(col.shape[0]):
        cp = col[p]
        if cp == 1:
            total += 1
        elif cp == 2:
            total -= 1
        elif cp == 0 and not seen[p]:
            seen[p] = True
            stack[0] = p
            top = 1
            count = 0
            reach = 0
            while top:
                top -= 1
                s = stack[top]
                count += 1
                for k in range(4):
                    q = s + offs[k]
                    cq = col[q]
                    if cq == 0:
                        if not seen[q]:
                            seen[q] = True
                            stack[top] = q
                            top += 1
                    elif cq != _OFF:
                        reach |= cq
            if reach == 1:
                total += count
            elif reach == 2:
                total -= count
    return total


@njit(cache=True, inline="always")
def _add_lib(h: int, q: int, plib: Any, lsum: Any, lsum2: Any) -> None:
    plib[h] += 1
    lsum[h] += q
    lsum2[h] += q * q


@njit(cache=True, inline="always")
def _del_lib(h: int, q: int, plib: Any, lsum: Any, lsum2: Any) -> None:
    plib[h] -= 1
    lsum[h] -= q
    lsum2[h] -= q * q


@njit(cache=True, inline="always")
def atari(h: int, rows: Any) -> bool:
    """Whether string ``h`` (a head) has exactly one liberty (or none)."""
    return rows[PLIB, h] * rows[LSUM2, h] == rows[LSUM, h] * rows[LSUM, h]


@njit(cache=True, inline="always")
def eye_faults(p: int, opp: int, colour: Any, edge: Any, width: int) -> int:
    """What speaks against ``p`` (its neighbours on the board all one colour's) being that
    colour's eye: being on the edge, and each opponent stone on its diagonals (an eye: at most
    one)."""
    return (
        (1 if edge[p] else 0)
        + (colour[p + width + 1] == opp)
        + (colour[p + width - 1] == opp)
        + (colour[p - width + 1] == opp)
        + (colour[p - width - 1] == opp)
    )


@njit(cache=True, inline="always")
def _below(rng: Any, n: int) -> int:
    """A uniform integer in ``[0, n)`` (``n < 2**31``): xorshift64*, the high 32 bits of its
    output scaled by ``n`` (multiply and shift, no division)."""
    x = rng[0]
    x ^= x >> np.uint64(12)
    x ^= x << np.uint64(25)
    x ^= x >> np.uint64(27)
    rng[0] = x
    high = (x * np.uint64(0x2545F4914F6CDD1D)) >> np.uint64(32)
    return int((high * np.uint64(n)) >> np.uint64(32))


@njit(cache=True)
def _place(
    p: int, offs: Any, colour: Any, head: Any, nxt: Any, stones: Any, plib: Any, lsum: Any,
    lsum2: Any, empties: Any, epos: Any, n_empty: int,
) -> int:  # fmt: skip
    """Put the stone at ``p`` (an empty point: the caller has just set its colour) on the
    board: its liberties, its neighbours' liberties less ``p``, the strings it joins merged.
    Returns the number of empty points. The rows come one by one (``HEAD .. EPOS``), not as
    one two-dimensional array: its indexing made ``_run``'s playouts 6% slower."""
    c = colour[p]
    head[p] = p
    nxt[p] = p
    stones[p] = 1
    plib[p] = 0
    lsum[p] = 0
    lsum2[p] = 0
    last = empties[n_empty - 1]  # take p out of the empty points
    i = epos[p]
    empties[i] = last
    epos[last] = i
    n_empty -= 1
    for k in range(4):  # liberties; strings joined as they come (sums add up either way)
        q = p + offs[k]
        col = colour[q]
        if col == 0:
            _add_lib(head[p], q, plib, lsum, lsum2)
        elif col != _OFF:
            _del_lib(head[q], p, plib, lsum, lsum2)
            if col == c:
                a = head[p]
                b = head[q]
                if a != b:
                    if stones[a] < stones[b]:
                        a, b = b, a
                    s = b  # relabel the smaller string b as a
                    while True:
                        head[s] = a
                        s = nxt[s]
                        if s == b:
                            break
                    nxt[a], nxt[b] = nxt[b], nxt[a]  # splice the two circles
                    stones[a] += stones[b]
                    plib[a] += plib[b]
                    lsum[a] += lsum[b]
                    lsum2[a] += lsum2[b]
    return n_empty


@njit(cache=True)
def _lift(
    h: int, offs: Any, colour: Any, head: Any, nxt: Any, plib: Any, lsum: Any, lsum2: Any,
    empties: Any, epos: Any, n_empty: int,
) -> int:  # fmt: skip
    """Take string ``h`` off the board (its points become liberties of the strings next to
    them). Returns the number of empty points."""
    s = h
    while True:
        colour[s] = 0
        empties[n_empty] = s
        epos[s] = n_empty
        n_empty += 1
        s = nxt[s]
        if s == h:
            break
    while True:
        for k in range(4):
            q = s + offs[k]
            col = colour[q]
            if col == 1 or col == 2:
                _add_lib(head[q], s, plib, lsum, lsum2)
        s = nxt[s]
        if s == h:
            break
    return n_empty


@njit(cache=True)
def read_board(size: int, black: Any, white: Any, offs: Any, colour: Any, rows: Any) -> int:
    """The board of the core's bitboards (``black``/``white``: their bytes, bit
    ``row * (size + 1) + col``) into ``colour`` (the padded cells: 0 empty, 1 black, 2 white,
    3 off the board) and ``rows`` (``HEAD .. EPOS``); returns the number of empty points."""
    width = size + 2
    head, nxt, stones, plib = rows[HEAD], rows[NXT], rows[STONES], rows[PLIB]
    lsum, lsum2, empties, epos = rows[LSUM], rows[LSUM2], rows[EMPTIES], rows[EPOS]
    colour[:] = _OFF
    n_empty = 0
    for r in range(size):
        for x in range(size):
            p = (r + 1) * width + x + 1
            colour[p] = 0
            empties[n_empty] = p
            epos[p] = n_empty
            n_empty += 1
    for r in range(size):
        for x in range(size):
            b = r * (size + 1) + x
            p = (r + 1) * width + x + 1
            if (black[b >> 3] >> (b & 7)) & 1:
                colour[p] = 1
            elif (white[b >> 3] >> (b & 7)) & 1:
                colour[p] = 2
            else:
                continue
            n_empty = _place(
                p, offs, colour, head, nxt, stones, plib, lsum, lsum2, empties, epos, n_empty
            )
    return n_empty


@njit(cache=True)
def _run(
    size: int,
    komi: float,
    black: Any,
    white: Any,
    to_play: int,
    ko_action: int,
    passes: int,
    seed: int,
    decisive: bool,
    record: Any,
    work: Any,
) -> int:
    """A playout from the core's position (``black``/``white``: the bytes of its bitboards,
    bit ``row * (size + 1) + col``): +1 if black wins the end, -1 if white does. With a
    non-empty ``record``, the actions played go into it, black's area minus white's into its
    last word, and the number of plies is returned instead, times the sign of the result (a
    playout has at least one ply). ``work``: scratch, int64, ``(9, (size + 2)**2)``."""
    width = size + 2
    cells = width * width
    points = size * size
    offs = np.array([1, -1, width, -width], np.int64)
    colour = np.empty(cells, np.int8)
    rows = work  # scratch rows HEAD .. EPOS, then a stack, each written before it is read
    head, nxt, stones, plib = work[HEAD], work[NXT], work[STONES], work[PLIB]
    lsum, lsum2, empties, epos = work[LSUM], work[LSUM2], work[EMPTIES], work[EPOS]
    stack = work[8]
    n_empty = read_board(size, black, white, offs, colour, rows)
    edge = np.zeros(cells, np.bool_)
    for r in range(size):
        for x in range(size):
            edge[(r + 1) * width + x + 1] = r == 0 or x == 0 or r == size - 1 or x == size - 1
    ko = -1
    if ko_action >= 0:
        ko = (ko_action // size + 1) * width + ko_action % size + 1
    rng = np.empty(1, np.uint64)
    z = np.uint64(seed) + np.uint64(0x9E3779B97F4A7C15)  # SplitMix64: near seeds, far streams
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    rng[0] = (z ^ (z >> np.uint64(31))) | np.uint64(1)
    c = 1 if to_play == 0 else 2
    plies = 0
    cap = 3 * points if decisive else 50 * points
    recording = record.shape[0] > 0
    while plies < cap:
        opp = 3 - c
        n = n_empty
        drawn = n if decisive else n + 1
        chosen = -1
        i = 0
        while i < drawn:
            j = i + _below(rng, drawn - i)
            if j == n:  # the pass (uniform playouts only)
                break
            p = empties[j]
            q = empties[i]
            empties[j] = q
            epos[q] = j
            empties[i] = p
            epos[p] = i
            i += 1
            if p == ko:
                continue
            seen_colours = (  # bit k: a neighbour of colour k (0 empty, 3 off the board)
                (1 << colour[p + 1])
                | (1 << colour[p - 1])
                | (1 << colour[p + width])
                | (1 << colour[p - width])
            )
            free = seen_colours & 1 != 0
            has_own = (seen_colours >> c) & 1 != 0
            has_opp = (seen_colours >> opp) & 1 != 0
            koish = not free and not has_own  # every neighbour an opponent stone
            walled = not free and not has_opp  # every neighbour its own or off the board
            if decisive and walled and eye_faults(p, opp, colour, edge, width) <= 1:  # an eye
                continue
            if not free:  # legal only if it captures or joins a string with another liberty
                ok = False
                for k in range(4):
                    q = p + offs[k]
                    col = colour[q]
                    if col == c or col == opp:  # noqa: SIM109 (numba: no tuple test)
                        in_atari = atari(rows[HEAD, q], rows)
                        if (col == c) != in_atari:
                            ok = True
                            break
                if not ok:
                    continue
            chosen = p
            break
        if recording:
            record[plies] = (
                points if chosen < 0 else (chosen // width - 1) * size + chosen % width - 1
            )
        plies += 1
        if chosen < 0:
            passes += 1
            if passes >= 2:
                break
            ko = -1
        else:
            passes = 0
            p = chosen
            colour[p] = c
            n_empty = _place(
                p, offs, colour, head, nxt, stones, plib, lsum, lsum2, empties, epos, n_empty
            )
            captured = 0
            last = -1
            if has_opp:  # (of the chosen point: the scan stopped there)
                for k in range(4):
                    q = p + offs[k]
                    if colour[q] == opp and plib[head[q]] == 0:
                        before = n_empty
                        n_empty = _lift(
                            head[q], offs, colour, head, nxt, plib, lsum, lsum2, empties, epos,
                            n_empty,
                        )  # fmt: skip
                        captured += n_empty - before
                        last = q
            ko = last if koish and captured == 1 else -1
        c = opp
    # Tromp-Taylor area: black's minus white's
    score = area(colour, offs, stack, np.zeros(cells, np.bool_))
    sign = 1 if score - komi > 0 else -1
    if not recording:
        return sign
    record[record.shape[0] - 1] = score
    return sign * plies


def _bytes_of(game: Go) -> int:
    return (game.size * (game.size + 1) + 7) // 8


_NO_RECORD = np.zeros(0, np.int64)


def _work(game: Go) -> np.ndarray:
    return np.empty((9, (game.size + 2) ** 2), np.int64)


def go_playout(game: Go, kind: str = "random") -> Callable[[Any, Any], tuple[float, ...]]:
    """``playout(state, rng)`` for ``game``'s Python search: the returns of a playout from
    ``state``, uniform (``kind="random"``) or decisive (``kind="decisive"``), seeded by one
    ``rng.getrandbits(63)``. Loads the compiled code now, outside any clock."""
    size, komi, nbytes = game.size, game.komi, _bytes_of(game)
    decisive = kind == "decisive"
    empty = np.zeros(nbytes, np.uint8)
    work = _work(game)
    _run(size, komi, empty, empty, 0, -1, 0, 1, decisive, _NO_RECORD, work)  # compile or load now
    frombuffer, uint8 = np.frombuffer, np.uint8

    def run_playout(state: Any, rng: Any) -> tuple[float, ...]:
        if state[4] >= 2:
            return game.returns(state)
        black = frombuffer(state[0].to_bytes(nbytes, "little"), uint8)
        white = frombuffer(state[1].to_bytes(nbytes, "little"), uint8)
        seed = rng.getrandbits(63)
        won = _run(
            size, komi, black, white, state[2], state[3], state[4], seed, decisive, _NO_RECORD, work
        )
        return _BLACK_WINS if won > 0 else _WHITE_WINS

    return run_playout


@njit(cache=True)
def _many(
    size: int, komi: float, black: Any, white: Any, to_play: int, ko: int, passes: int,
    seed: int, decisive: bool, work: Any, count: int, record: Any,
) -> int:  # fmt: skip
    wins = 0
    for i in range(count):
        sign = _run(size, komi, black, white, to_play, ko, passes, seed + i, decisive, record, work)
        if sign > 0:
            wins += 1
    return wins


def black_wins(game: Go, state: Any, count: int, seed: int, kind: str = "random") -> int:
    """How many of ``count`` playouts from ``state`` (not over) black wins, in one compiled
    call (playout ``i`` seeded by ``seed + i``): the playouts' own speed, without a Python
    call each."""
    nbytes = _bytes_of(game)
    black = np.frombuffer(state[0].to_bytes(nbytes, "little"), np.uint8)
    white = np.frombuffer(state[1].to_bytes(nbytes, "little"), np.uint8)
    wins = _many(
        game.size, game.komi, black, white, state[2], state[3], state[4], seed,
        kind == "decisive", _work(game), count, _NO_RECORD,
    )  # fmt: skip
    return int(wins)


def playout_moves(
    game: Go, state: Any, seed: int, kind: str = "random"
) -> tuple[list[int], float, tuple[float, ...]]:
    """A debugging entry point: the actions of the compiled playout from ``state`` with
    ``seed`` (the pass is ``game.pass_action``), the score of its last board as the playout
    counted it (black's area minus white's minus komi) and its returns (``state`` not over)."""
    nbytes = _bytes_of(game)
    black = np.frombuffer(state[0].to_bytes(nbytes, "little"), np.uint8)
    white = np.frombuffer(state[1].to_bytes(nbytes, "little"), np.uint8)
    record = np.zeros(50 * game.points + 2, np.int64)
    n = _run(
        game.size, game.komi, black, white, state[2], state[3], state[4], seed,
        kind == "decisive", record, _work(game),
    )  # fmt: skip
    moves = [int(a) for a in record[: abs(n)]]
    return moves, float(record[-1]) - game.komi, (_BLACK_WINS if n > 0 else _WHITE_WINS)


def warm_up() -> None:
    """Compile (or load from numba's cache) the playout once per process."""
    go_playout(Go(9), "decisive")
