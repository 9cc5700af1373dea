"""Batched (numpy-vectorised) Connect Four random playouts vs the scalar pure-Python ones.

Run from the repository root::

    python -m benchmarks.batched_playouts [--quick] [--repeats N] [--json PATH]

The question: batched MCTS (K leaves selected together with virtual loss, then evaluated
together) could run the K playouts as one numpy computation. Does that beat
``ConnectFour().rollout`` per playout, and at which K?

``batched_random_playouts`` plays K games at once on the bit layout of
``envs/games/connect_four.py`` (bit ``c * (height + 1) + r``), all boards stepping together:

- the legal columns of every board are a ``width``-bit mask, gathered from the top cells with
  one multiplication (``_gather``); a table over (mask, uniform integer in ``[0, L)``), with
  ``L`` the least common multiple of ``1..width``, gives a uniformly random legal column's
  bottom bit, so a move is two gathers and ``(mask + bottom) & ~mask``;
- only the mover's board is checked for four in a row, with shifts in the 4 directions;
- finished boards are dropped from the working arrays (compaction), so the per-step cost
  follows the number of live games.

``batched_decisive_playouts`` mirrors ``ConnectFour.decisive_rollout``: win at once if
possible, block the opponent's only immediate win (two of them lose), else a uniformly random
column avoiding cells just below an opponent's winning cell when another column is left.

``main()`` measures, side by side and interleaved in one run (medians of ``--repeats``),
scalar playouts/s and batched playouts/s for K in 1, 16, 64, 256, 1024 from the initial
position and from a mid-game position.
"""

from __future__ import annotations

import argparse
import math
import random
import sys
from functools import cache
from pathlib import Path
from time import perf_counter
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # `python benchmarks/...` too

import numpy as np

from benchmarks._common import (
    fmt,
    load_average,
    machine_info,
    median,
    print_machine,
    print_table,
    spread,
    write_json,
)
from mcts_agents.envs.games.connect_four import ConnectFour, threats4

U64 = np.uint64
#: the mid-game position of the benchmark and the tests: 10 plies in, no immediate threats
MIDGAME_MOVES = (3, 3, 2, 4, 4, 2, 3, 5, 2, 4)
KS = (1, 16, 64, 256, 1024)


class _Tables:
    """Constants of one board size (``k == 4``), as numpy ``uint64`` scalars and arrays."""

    def __init__(self, width: int, height: int) -> None:
        stride = height + 1
        if width * stride > 64:
            raise ValueError(f"a {width}x{height} board does not fit in 64 bits")
        if width > 12:
            raise ValueError("width > 12: the move table would be too large")
        self.width, self.height, self.stride = width, height, stride
        self.cells = width * height
        col = (1 << height) - 1
        self.full = U64(sum(col << (c * stride) for c in range(width)))
        self.bottom_row = U64(sum(1 << (c * stride) for c in range(width)))
        self.top_row = U64(sum(1 << (c * stride + height - 1) for c in range(width)))
        self.spare_row = U64(sum(1 << (c * stride + height) for c in range(width)))
        self.col_mask = np.array([col << (c * stride) for c in range(width)], dtype=U64)
        # _gather: bits at c * stride -> bit c, by one multiplication (checked exhaustively)
        self.magic = U64(sum(1 << ((stride - 1) * j) for j in range(width)))
        self.magic_shift = U64((stride - 1) * (width - 1))
        self.low = U64((1 << width) - 1)
        for pattern in range(1 << width):
            spread_bits = sum(1 << (c * stride) for c in range(width) if pattern >> c & 1)
            if self._gather_int(spread_bits) != pattern:
                raise ValueError(f"no gathering multiplication for a {width}x{height} board")
        # move table: row = legal-column mask, entry r in [0, L) -> the bottom bit of a column
        self.lcm = math.lcm(*range(1, width + 1))
        lcm = self.lcm
        bottom = np.zeros((1 << width, lcm), dtype=U64)
        column = np.zeros((1 << width, lcm), dtype=np.intp)
        for pattern in range(1, 1 << width):
            cols = [c for c in range(width) if pattern >> c & 1]
            pick = np.array(cols)[np.arange(lcm) * len(cols) // lcm]  # each column L/n times
            column[pattern] = pick
            bottom[pattern] = (np.ones(lcm, dtype=U64) << (pick * stride).astype(U64)).astype(U64)
        self.bottom_table = bottom.ravel()
        self.column_table = column.ravel()
        self.lcm_u = U64(lcm)
        self.dirs = tuple(U64(d) for d in (1, stride, stride - 1, stride + 1))
        self.dirs2 = tuple(U64(2 * d) for d in (1, stride, stride - 1, stride + 1))
        self.dir_col = np.array(self.dirs, dtype=U64)[:, None]
        self.dir2_col = np.array(self.dirs2, dtype=U64)[:, None]

    def _gather_int(self, x: int) -> int:
        mask64 = (1 << 64) - 1
        return (((x * int(self.magic)) & mask64) >> int(self.magic_shift)) & int(self.low)

    def gather(self, spread_bits: np.ndarray) -> np.ndarray:
        """Bits at ``c * stride`` (one per column) -> a ``width``-bit column mask."""
        return ((spread_bits * self.magic) >> self.magic_shift) & self.low

    def legal_columns(self, mask: np.ndarray) -> np.ndarray:
        """Width-bit masks of the non-full columns of each occupancy bitboard."""
        return self.gather((~mask & self.top_row) >> U64(self.height - 1))

    def wins(self, b: np.ndarray) -> np.ndarray:
        """Whether each bitboard has four in a row (vectorised ``ConnectFour._wins``, k=4)."""
        if b.size < 512:  # few numpy calls on a (4, n) array: less per-call overhead
            m = b & (b >> self.dir_col)
            r = m & (m >> self.dir2_col)
            return (r[0] | r[1] | r[2] | r[3]) != 0
        d, d2 = self.dirs, self.dirs2
        m = b & (b >> d[0])
        r = m & (m >> d2[0])
        for i in (1, 2, 3):
            m = b & (b >> d[i])
            r |= m & (m >> d2[i])
        return r != 0

    def threats(self, b: np.ndarray, empty: np.ndarray) -> np.ndarray:
        """The rules core's ``threats4`` on arrays of boards (numpy's shifts work alike)."""
        return threats4(b, empty, self.stride)


@cache
def _tables(width: int, height: int) -> _Tables:
    return _Tables(width, height)


def _prepare(
    b0: np.ndarray, b1: np.ndarray, ply: np.ndarray, t: _Tables
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Inputs as arrays; results and the mask of boards that are over before any move."""
    b0 = np.asarray(b0, dtype=U64).ravel()
    b1 = np.asarray(b1, dtype=U64).ravel()
    ply = np.asarray(ply, dtype=np.int64).ravel()
    if not (b0.shape == b1.shape == ply.shape):
        raise ValueError("b0, b1 and ply must have the same length")
    results = np.zeros(b0.shape, dtype=np.int8)
    win0, win1 = t.wins(b0), t.wins(b1)
    results[win0] = 1
    results[win1 & ~win0] = -1
    over = win0 | win1 | ((b0 | b1) == t.full)
    return b0, b1, ply, results, over, np.flatnonzero(~over)


def batched_random_playouts(
    b0: np.ndarray,
    b1: np.ndarray,
    ply: np.ndarray,
    rng: np.random.Generator,
    width: int = 7,
    height: int = 6,
    return_boards: bool = False,
) -> Any:
    """Uniformly random playouts of Connect Four (k = 4) from every board at once.

    ``b0``, ``b1``: the two players' stone bitboards (``uint64``, bit ``c * (height + 1) + r``),
    ``ply``: the number of moves made (player ``ply % 2`` is to move). Returns the results
    from player 0's view (``int8``: +1 won, 0 draw, -1 lost); with ``return_boards`` also the
    final ``(b0, b1)`` of every game. Boards already over are scored as they are.
    """
    t = _tables(width, height)
    b0, b1, ply, results, _, live = _prepare(b0, b1, ply, t)
    final0, final1 = b0.copy(), b1.copy()
    if not live.size:
        return (results, final0, final1) if return_boards else results
    p0 = (ply[live] & 1).astype(bool)  # True where player 1 is to move at step 0
    cur = np.where(p0, b1[live], b0[live])  # the mover's stones
    opp = np.where(p0, b0[live], b1[live])
    mask = cur | opp
    legal = t.legal_columns(mask) * t.lcm_u
    idx = live
    table, lcm = t.bottom_table, t.lcm
    max_ply = int(ply[live].max())
    # all the random numbers at once (one call); a step uses a prefix of its row
    draws = rng.integers(0, lcm, size=(t.cells - int(ply[live].min()), idx.size), dtype=np.uint16)
    step = 0
    while True:
        bottom = table[legal + draws[step, : idx.size]]
        move = (mask + bottom) & ~mask
        mask |= move
        cur |= move
        if max_ply + step >= 6:  # the mover has at least 4 stones
            won = t.wins(cur)
            legal = t.legal_columns(mask)
            done = won | (legal == 0)
        else:
            won = None
            legal = t.legal_columns(mask)
            done = legal == 0  # only on boards of fewer than 7 cells
        if done.any():
            d_idx = idx[done]
            mover1 = p0[done] ^ bool(step & 1)  # True where player 1 just moved
            if won is not None:
                w = won[done]
                results[d_idx] = np.where(w, np.where(mover1, -1, 1), 0)
            if return_boards:
                c, o = cur[done], opp[done]
                final0[d_idx] = np.where(mover1, o, c)
                final1[d_idx] = np.where(mover1, c, o)
            keep = ~done
            idx = idx[keep]
            if not idx.size:
                break
            cur, opp, mask, legal, p0 = cur[keep], opp[keep], mask[keep], legal[keep], p0[keep]
        legal = legal * t.lcm_u
        cur, opp = opp, cur
        step += 1
    return (results, final0, final1) if return_boards else results


def batched_decisive_playouts(
    b0: np.ndarray,
    b1: np.ndarray,
    ply: np.ndarray,
    rng: np.random.Generator,
    width: int = 7,
    height: int = 6,
    return_boards: bool = False,
) -> Any:
    """Vectorised ``ConnectFour.decisive_rollout`` (k = 4): same inputs and outputs as above.

    At each ply every live board's mover wins at once if it can; otherwise blocks the
    opponent's only immediate win (two of them: lost, the game is scored so without playing
    on); otherwise plays a uniformly random column, avoiding cells just below an opponent's
    winning cell when another column is left. ``return_boards`` gives the boards where each
    game was decided (as in the scalar version, a decided game is not played to its end).
    """
    t = _tables(width, height)
    b0, b1, ply, results, _, live = _prepare(b0, b1, ply, t)
    final0, final1 = b0.copy(), b1.copy()
    if not live.size:
        return (results, final0, final1) if return_boards else results
    p0 = (ply[live] & 1).astype(bool)
    cur = np.where(p0, b1[live], b0[live])
    opp = np.where(p0, b0[live], b1[live])
    mask = cur | opp
    full, bottom_row, spare = t.full, t.bottom_row, t.spare_row
    empty = full ^ mask
    tc, to = t.threats(cur, empty), t.threats(opp, empty)  # mover's and other's winning cells
    idx = live
    table, col_mask, lcm, lcm_u = t.column_table, t.col_mask, t.lcm, t.lcm_u
    one, height_u = U64(1), U64(t.height)
    draws = rng.integers(0, lcm, size=(t.cells - int(ply[live].min()), idx.size), dtype=np.uint16)
    step = 0
    while True:
        possible = (mask + bottom_row) & full
        win = (tc & possible) != 0
        forced = to & possible
        lose = (forced & (forced - one)) != 0
        done = win | lose | (possible == 0)
        if done.any():
            d_idx = idx[done]
            mover1 = p0[done] ^ bool(step & 1)
            sign = np.where(mover1, -1, 1)
            results[d_idx] = np.where(win[done], sign, np.where(lose[done], -sign, 0))
            if return_boards:
                c, o = cur[done], opp[done]
                final0[d_idx] = np.where(mover1, o, c)
                final1[d_idx] = np.where(mover1, c, o)
            keep = ~done
            idx = idx[keep]
            if not idx.size:
                break
            cur, opp, mask, tc, to, p0 = (
                cur[keep],
                opp[keep],
                mask[keep],
                tc[keep],
                to[keep],
                p0[keep],
            )
            possible, forced = possible[keep], forced[keep]
        safe = possible & ~(to >> one)
        choice = np.where(safe != 0, safe, possible)
        # one cell per column: + full carries each column's cell into its spare bit
        columns = t.gather(((choice + full) & spare) >> height_u)
        pick = table[columns * lcm_u + draws[step, : idx.size]]
        move = choice & col_mask[pick]
        move = np.where(forced != 0, forced, move)
        mask |= move
        cur |= move
        tc = t.threats(cur, full & ~mask)
        to &= ~move
        cur, opp, tc, to = opp, cur, to, tc
        step += 1
    return (results, final0, final1) if return_boards else results


# ---------------------------------------------------------------------------------- benchmark
def midgame_state() -> tuple[int, int, int, int]:
    game = ConnectFour()
    state = game.initial_state()
    for action in MIDGAME_MOVES:
        state = game.next_state(state, action)
    assert not game.is_terminal(state)
    return state


def _time_scalar(method: str, state: tuple[int, int, int, int], n: int, seed: int) -> float:
    game = ConnectFour()
    rollout = getattr(game, method)
    rng = random.Random(seed)
    start = perf_counter()
    for _ in range(n):
        rollout(state, rng)
    return perf_counter() - start


def _time_batched(
    fn: Any, state: tuple[int, int, int, int], k: int, calls: int, seed: int
) -> float:
    b0 = np.full(k, state[0], dtype=U64)
    b1 = np.full(k, state[1], dtype=U64)
    ply = np.full(k, state[2], dtype=np.int64)
    rng = np.random.default_rng(seed)
    start = perf_counter()
    for _ in range(calls):
        fn(b0, b1, ply, rng)
    return perf_counter() - start


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="short runs (~0.05 s per cell)")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--json", default=None, help="save the results here")
    parser.add_argument(
        "--variants",
        default="uniform,decisive",
        help="comma-separated: uniform (rollout) and/or decisive (decisive_rollout)",
    )
    args = parser.parse_args(argv)
    target = 0.05 if args.quick else 0.25  # seconds per measurement
    info = machine_info()
    print_machine(info)
    positions = {"initial": ConnectFour().initial_state(), "midgame (10 plies)": midgame_state()}
    variants = {
        "uniform": ("rollout", batched_random_playouts),
        "decisive": ("decisive_rollout", batched_decisive_playouts),
    }
    chosen = [v.strip() for v in args.variants.split(",") if v.strip()]

    # calibrate: playouts (scalar) or calls (batched) per measurement of ~target seconds
    cells: list[tuple[str, str, int, int]] = []  # (variant, position, K or 0 = scalar, count)
    for variant in chosen:
        method, fn = variants[variant]
        for pname, state in positions.items():
            dt = _time_scalar(method, state, 200, 0) / 200
            cells.append((variant, pname, 0, max(20, int(target / dt))))
            for k in KS:
                _time_batched(fn, state, k, 1, 0)  # warm the tables
                dt = min(_time_batched(fn, state, k, 3, 0) / 3 for _ in range(2))
                cells.append((variant, pname, k, max(2, int(target / dt))))

    # measure, interleaving all cells in each repeat
    rates: dict[tuple[str, str, int], list[float]] = {c[:3]: [] for c in cells}
    for rep in range(args.repeats):
        for variant, pname, k, count in cells:
            method, fn = variants[variant]
            state = positions[pname]
            if k == 0:
                seconds = _time_scalar(method, state, count, rep + 1)
                rates[(variant, pname, k)].append(count / seconds)
            else:
                seconds = _time_batched(fn, state, k, count, rep + 1)
                rates[(variant, pname, k)].append(count * k / seconds)

    rows = []
    out: list[dict[str, Any]] = []
    for variant in chosen:
        for pname in positions:
            scalar = median(rates[(variant, pname, 0)])
            for k in (0, *KS):
                rate = median(rates[(variant, pname, k)])
                label = "scalar" if k == 0 else f"batched K={k}"
                rows.append(
                    [
                        variant,
                        pname,
                        label,
                        fmt(rate),
                        f"{1e6 / rate:.1f}",
                        f"{rate / scalar:.2f}x",
                        f"{spread(rates[(variant, pname, k)]):.0%}",
                    ]
                )
                out.append(
                    {
                        "variant": variant,
                        "position": pname,
                        "k": k,
                        "playouts_per_s": rate,
                        "us_per_playout": 1e6 / rate,
                        "ratio_vs_scalar": rate / scalar,
                        "repeats": rates[(variant, pname, k)],
                    }
                )
    print_table(
        ["playout", "position", "how", "playouts/s", "us/playout", "vs scalar", "spread"],
        rows,
        left=3,
    )
    print(f"# medians of {args.repeats} interleaved repeats; load at end: {load_average()}")
    data = {"machine": info, "results": out}
    if args.json:
        write_json(args.json, data)
    return data


if __name__ == "__main__":
    main()
