"""N boards of one game as rows of the rules' int64 words, stepped and searched in compiled code.

The native vector env (``mcts_agents.rl.vector``) keeps the boards of the two-player games with
compiled rules (Connect Four, Othello up to 8x8, m,n,k such as tic-tac-toe) as an ``[N, W]``
array of the words their rule set (``compiled.rules``) defines, so that a step never builds an
AEC env, a core state or a ``game_from_env`` per board. Everything here works on all the boards
of a step in one call, through the rule sets' own functions (``dispatch.play``, ``legal``,
``to_play``: no rule is written twice):

- ``BoardRules.play``: an action on each of some boards, with the terminal values and a move
  history per board (from which an AEC env can be rebuilt when one is asked for);
- ``BoardRules.observe``: every board's observation planes and legal-move mask from one seat's
  view (the env's ``observation``: the seat's stones then the other's, through the core's
  ``BitPlanes`` layout) and its player to move;
- ``prepare_*``: each tree's seed and root, found, re-rooted or added exactly as
  ``KernelSearcher.begin`` does (its root key kept in the caller's arrays), in parallel over the
  trees (a serial twin for small batches);
- ``pick_*``: each tree's move by the final-move rule (``searcher.pick_child``, two players).

The search itself is ``compiled.batch``'s kernels over the same trees (``BoardSearch``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import literally, njit, prange, typeof, types

from mcts_agents.compiled import connect_four_kernel as c4_kernel
from mcts_agents.compiled import dispatch, entries, kernel
from mcts_agents.compiled.batch import _for_game
from mcts_agents.compiled.common import META_DEPTH, META_NODES, UNKNOWN, popcount

__all__ = [
    "BOARD_GAMES",
    "BoardRules",
    "board_results",
    "pick_connect_four",
    "pick_shared",
    "prepare_connect_four",
    "prepare_connect_four_serial",
    "prepare_shared",
    "prepare_shared_serial",
    "start_boards",
    "stones_kind",
]

#: The rule sets whose boards ``observe`` reads (their words -> each player's stones), by name.
BOARD_GAMES = ("connect_four", "othello", "mnk")
_KIND = {name: k for k, name in enumerate(BOARD_GAMES)}


def stones_kind(rule_name: str) -> int:
    """The code ``observe`` uses for a rule set's words (-1: not one of ``BOARD_GAMES``)."""
    return _KIND.get(rule_name, -1)


@njit(cache=True)
def _stones(kind: int, s: np.ndarray, player: int) -> tuple[int, int]:
    """``player``'s stones and the other player's, from a row of words (two players)."""
    if kind == 0:  # connect_four: (stones of the player to move, all stones)
        own = s[0] if (popcount(s[1]) & 1) == player else s[0] ^ s[1]
        return own, s[1] ^ own
    if kind == 1:  # othello: (mover's, other's, mover, moves)
        if s[2] == player:
            return s[0], s[1]
        return s[1], s[0]
    return s[player], s[1 - player]  # mnk with one word a player: (b0, b1, count, status)


@njit(cache=True)
def _play_boards(g, p, words, boards, actions, values, enders, history, lengths, scratch):
    literally(g)
    for j in range(len(boards)):
        i = boards[j]
        values[i] = dispatch.play(g, p, words[i], actions[j], scratch)
        words[i, :] = scratch
        if values[i] != UNKNOWN:
            enders[i] = dispatch.to_play(g, p, scratch)
        history[i, lengths[i]] = actions[j]
        lengths[i] += 1


@njit(cache=True)
def _observe_boards(
    g, p, kind, words, values, seats, index, planes, masks, movers, out,
):  # fmt: skip
    literally(g)
    cells = index.shape[0]
    for i in range(len(words)):
        s = words[i]
        own, other = _stones(kind, s, seats[i])
        for c in range(cells):
            planes[i, c, 0] = (own >> index[c]) & 1
            planes[i, c, 1] = (other >> index[c]) & 1
        masks[i, :] = False
        if values[i] != UNKNOWN:
            movers[i] = -1
            continue
        movers[i] = dispatch.to_play(g, p, s)
        if movers[i] == seats[i]:
            n = dispatch.legal(g, p, s, out)
            for k in range(n):
                masks[i, out[k]] = True


@njit(cache=True)
def start_boards(boards, seats_of, initial, words, values, lost, lengths, synced, seats, on):
    """Boards ``boards[j]`` at the start of a game (``initial``'s words), the learner in seat
    ``seats_of[j]``."""
    for j in range(len(boards)):
        i = boards[j]
        words[i, :] = initial
        values[i] = UNKNOWN
        lost[i] = False
        lengths[i] = 0
        synced[i] = 0
        seats[i] = seats_of[j]
        on[i] = True


@njit(cache=True)
def board_results(boards, values, enders, seats, rewards, over):
    """``rewards[i]``, ``over[i]`` of each board ``i`` of ``boards`` (the learner in seat
    ``seats[i]``): its result for the learner if its game is over, else 0; the boards over."""
    ended = np.zeros(len(boards), np.int64)
    n = 0
    for j in range(len(boards)):
        i = boards[j]
        value = values[i]
        if value == UNKNOWN:
            rewards[i] = 0.0
            over[i] = False
            continue
        rewards[i] = float(value if enders[i] == seats[i] else -value)
        over[i] = True
        ended[n] = i
        n += 1
    return ended[:n]


@njit(cache=True)
def _waiting_boards(g, p, words, values, seats, boards, out):
    """How many of ``boards`` have a game on and the opponent to move: those, in order, into
    ``out``."""
    literally(g)
    n = 0
    for j in range(len(boards)):
        i = boards[j]
        if values[i] == UNKNOWN and dispatch.to_play(g, p, words[i]) != seats[i]:
            out[n] = i
            n += 1
    return n


@njit(cache=True)
def _clear(meta, sl):
    """Empty a tree (``KernelSearcher.reset``'s table part). Its hash slots are already empty
    when it holds no node (every path that empties a table empties both: the searcher's
    ``reset``, its ``begin``, this), as after the reset at each episode's start."""
    if meta[META_NODES] != 0:
        sl[:] = -1
    meta[:] = 0


def _prepare_over_trees(name: str, parallel: bool) -> Any:
    """``KernelSearcher.begin`` of tree ``trees[j]`` at board ``boards[j]`` for every ``j``
    (the shared kernel, game ``g``): its seed ``seeds[j]`` (drawn from its searcher's own
    generator), its root found, re-rooted or added (the root key kept in ``keys``/``keyed``)
    into ``roots[j]``, and the board's settings gathered for the kernel (``want[j]``: its
    iterations, 0 when its root is proven). In parallel over the trees, or on one thread (small
    batches); one body, two compiled functions cached under their own ``name`` s. Returns
    how many trees want simulations and how many they want in all."""

    def prepare(
        g, p, items, trees, words, boards, keys, keyed, seeds, reuse, limits, c_all, solver_all,
        decisive_all, roots, want, c, solver, decisive,
    ):  # fmt: skip
        literally(g)
        active = 0
        total = 0
        for j in prange(len(trees)):
            i = boards[j]
            nd, ed, sl, meta, rng = items[trees[j]]
            rng[0] = seeds[j]
            s = words[i]
            meta[META_DEPTH] = 0
            if not reuse[i]:
                _clear(meta, sl)
                keyed[i] = False
            states = nd[kernel.NODE_STATES]
            root = kernel.find(sl, states, s)
            if root < 0:
                _clear(meta, sl)
                keys[i, :] = s
                keyed[i] = True
                root = kernel.add_node(nd, sl, meta, s, UNKNOWN, dispatch.to_play(g, p, s), True)
            elif not (keyed[i] and np.all(keys[i] == s)):
                keys[i, :] = s
                keyed[i] = True
                kernel.reroot(g, p, nd, ed, sl, meta, s)
                root = kernel.find(sl, states, s)
            roots[j] = root
            want[j] = limits[i] if nd[kernel.NODE_PROVEN][root] == UNKNOWN else 0
            c[j], solver[j], decisive[j] = c_all[i], solver_all[i], decisive_all[i]
            if want[j] > 0:
                active += 1
                total += want[j]
        return active, total

    prepare.__name__ = prepare.__qualname__ = name
    return njit(cache=True, parallel=parallel)(prepare)


def _prepare_connect_four_over_trees(name: str, parallel: bool) -> Any:
    """``_prepare_over_trees`` for the Connect Four kernel's trees (``CompiledConnectFour``)."""

    def prepare(
        items, trees, words, boards, keys, keyed, seeds, reuse, limits, c_all, solver_all,
        decisive_all, roots, want, c, solver, decisive,
    ):  # fmt: skip
        active = 0
        total = 0
        for j in prange(len(trees)):
            i = boards[j]
            nd, ed, sl, meta, rng = items[trees[j]]
            rng[0] = seeds[j]
            cur, mask = words[i, 0], words[i, 1]
            meta[META_DEPTH] = 0
            if not reuse[i]:
                _clear(meta, sl)
                keyed[i] = False
            cur_col, mask_col = nd[c4_kernel.NODE_CUR], nd[c4_kernel.NODE_MASK]
            root = c4_kernel.find(sl, cur_col, mask_col, cur, mask)
            if root < 0:
                _clear(meta, sl)
                keys[i, 0] = cur
                keys[i, 1] = mask
                keyed[i] = True
                root = c4_kernel.add_node(nd, sl, meta, cur, mask, UNKNOWN, True)
            elif not (keyed[i] and keys[i, 0] == cur and keys[i, 1] == mask):
                keys[i, 0] = cur
                keys[i, 1] = mask
                keyed[i] = True
                c4_kernel.reroot(nd, ed, sl, meta, cur, mask)
                root = c4_kernel.find(sl, cur_col, mask_col, cur, mask)
            roots[j] = root
            want[j] = limits[i] if nd[c4_kernel.NODE_PROVEN][root] == UNKNOWN else 0
            c[j], solver[j], decisive[j] = c_all[i], solver_all[i], decisive_all[i]
            if want[j] > 0:
                active += 1
                total += want[j]
        return active, total

    prepare.__name__ = prepare.__qualname__ = name
    return njit(cache=True, parallel=parallel)(prepare)


prepare_shared = _prepare_over_trees("prepare_shared", parallel=True)
prepare_shared_serial = _prepare_over_trees("prepare_shared_serial", parallel=False)
prepare_connect_four = _prepare_connect_four_over_trees("prepare_connect_four", parallel=True)
prepare_connect_four_serial = _prepare_connect_four_over_trees(
    "prepare_connect_four_serial", parallel=False
)


@njit(cache=True)
def _pick(visits, values, labels, n, by_value):
    """``searcher.pick_child`` over ``n`` children (labels: 0 none, 1 win, 2 loss, 3 other)."""
    best = -1
    for i in range(n):  # a proven win at once: the most visited of them
        if labels[i] == 1 and (best < 0 or visits[i] > visits[best]):
            best = i
    if best >= 0:
        return best
    some = False
    for i in range(n):
        if labels[i] != 2:
            some = True
    pick = -1
    for i in range(n):
        if some and labels[i] == 2:
            continue
        if pick < 0:
            pick = i
            continue
        a, b = (values[i], visits[i]) if by_value else (visits[i], values[i])
        x, y = (values[pick], visits[pick]) if by_value else (visits[pick], values[pick])
        if a > x or (a == x and b > y):
            pick = i
    safest = -1
    for i in range(n):
        if (some and labels[i] == 2) or labels[i] == 0:
            continue
        if safest < 0 or values[i] > values[safest]:
            safest = i
    if safest >= 0 and values[safest] >= values[pick]:
        pick = safest
    return pick


@njit(cache=True)
def _label(value: float) -> int:
    if value >= 1.0:
        return 1
    if value <= -1.0:
        return 2
    return 3


@njit(cache=True)
def _choose(
    visits_col, value_col, action_col, child_col, proven_col, same, edges, n, by_value, buf
):
    """The action of the final-move rule over edges ``edges[:n]`` (oldest first); ``same[k]``:
    whether edge ``k``'s child has the root's mover (its proven value is then its own)."""
    visits, values, labels = buf
    for k in range(n):
        e = edges[k]
        count = visits_col[e]
        proven = proven_col[child_col[e]]
        visits[k] = count
        if proven != UNKNOWN:
            value = float(proven) if same[k] else -float(proven)
            values[k] = value
            labels[k] = _label(value)
        else:
            values[k] = value_col[e] / count if count else 0.0
            labels[k] = 0
    return action_col[edges[_pick(visits, values, labels, n, by_value)]]


@njit(cache=True)
def _buffers(size):
    return (np.zeros(size, np.int64), np.zeros(size), np.zeros(size, np.int64))


@njit(cache=True)
def pick_shared(items, trees, roots, boards, by_value, size, moves):
    """``KernelSearcher.best_action`` (two players) at ``roots[j]`` of the shared kernel's
    tree ``trees[j]`` (board ``boards[j]``, final move by value where ``by_value`` says so),
    for every ``j``, into ``moves[j]`` (-1: no edge yet); ``size``: the most legal moves of a
    position."""
    buf = _buffers(size)
    edges = np.zeros(size, np.int64)
    same = np.zeros(size, np.bool_)
    for j in range(len(trees)):
        nd, ed = items[trees[j]][:2]
        root = roots[j]
        player = nd[kernel.NODE_PLAYER]
        n = 0
        e = nd[kernel.NODE_FIRST][root]
        while e >= 0:  # newest first
            edges[n] = e
            n += 1
            e = ed[kernel.EDGE_NEXT][e]
        if n == 0:
            moves[j] = -1
            continue
        edges[:n] = edges[:n][::-1].copy()
        for k in range(n):
            same[k] = player[ed[kernel.EDGE_CHILD][edges[k]]] == player[root]
        moves[j] = _choose(
            ed[kernel.EDGE_VISITS], ed[kernel.EDGE_VALUE], ed[kernel.EDGE_ACTION],
            ed[kernel.EDGE_CHILD], nd[kernel.NODE_PROVEN], same, edges, n, by_value[boards[j]],
            buf,
        )  # fmt: skip


@njit(cache=True)
def pick_connect_four(items, trees, roots, boards, by_value, size, moves):
    """``pick_shared`` for the Connect Four kernel's trees (a node's edges are one block)."""
    buf = _buffers(size)
    edges = np.zeros(size, np.int64)
    same = np.zeros(size, np.bool_)  # the players alternate
    for j in range(len(trees)):
        nd, ed = items[trees[j]][:2]
        root = roots[j]
        first = nd[c4_kernel.NODE_FIRST][root]
        n = nd[c4_kernel.NODE_NEXP][root] if first >= 0 else 0
        if n == 0:
            moves[j] = -1
            continue
        for k in range(n):
            edges[k] = first + k
        moves[j] = _choose(
            ed[c4_kernel.EDGE_VISITS], ed[c4_kernel.EDGE_VALUE], ed[c4_kernel.EDGE_ACTION],
            ed[c4_kernel.EDGE_CHILD], nd[c4_kernel.NODE_PROVEN], same, edges, n,
            by_value[boards[j]], buf,
        )  # fmt: skip


@njit(cache=True)
def open_shared(items, trees, roots, out):
    """``out[j]``: whether the root of the shared kernel's tree ``trees[j]`` is unproven."""
    for j in range(len(trees)):
        out[j] = items[trees[j]][0][kernel.NODE_PROVEN][roots[j]] == UNKNOWN


@njit(cache=True)
def open_connect_four(items, trees, roots, out):
    """``open_shared`` for the Connect Four kernel's trees."""
    for j in range(len(trees)):
        out[j] = items[trees[j]][0][c4_kernel.NODE_PROVEN][roots[j]] == UNKNOWN


def _signature(args: tuple[Any, ...]) -> tuple[Any, ...]:
    """What decides numba's types of ``args`` here: each array's dtype, dimensions and
    layout, and the type of anything else (typed lists and tuples keep their types)."""
    return tuple(
        (a.dtype, a.ndim, a.flags.c_contiguous) if isinstance(a, np.ndarray) else type(a)
        for a in args
    )


def call(kept: dict[Any, Any], dispatcher: Any, g: int, *args: Any) -> Any:
    """``dispatcher(g, *args)`` for a function compiled per game (``literally(g)``), through
    the compiled entry point kept in ``kept`` for these argument types (``batch._for_game``
    finds it the first time)."""
    signature = _signature(args)
    entry = kept.get((dispatcher, signature))
    if entry is not None:
        return entry(g, *args)
    result = _for_game(dispatcher, g, *args)
    found = dispatcher.overloads.get((types.literal(g), *(typeof(a) for a in args)))
    if found is not None:
        kept[(dispatcher, signature)] = kept[dispatcher] = found.entry_point
    return result


def call_fixed(kept: dict[Any, Any], dispatcher: Any, g: int, *args: Any) -> Any:
    """``call`` for a caller whose arguments to ``dispatcher`` always have the same types (its
    own arrays): the entry point found by the first ``call`` without checking them again (the
    check is ~0.3 us an argument, several us for a kernel's twenty)."""
    entry = kept.get(dispatcher)
    if entry is not None:
        return entry(g, *args)
    return call(kept, dispatcher, g, *args)


# Compiled into this module's own cache: emptied with the kernels' when the sources change.
entries.GROUPS["boards"] = (
    _play_boards, _observe_boards, start_boards, board_results, _waiting_boards, prepare_shared,
    prepare_shared_serial, prepare_connect_four, prepare_connect_four_serial, pick_shared,
    pick_connect_four, open_shared, open_connect_four,
)  # fmt: skip
entries.check_sources("boards")


class BoardRules:
    """One game's rules over ``[N, W]`` words (see the module): ``play``, ``observe``, ``movers``
    and ``begin`` (the shared kernel's roots), each one compiled call for all the boards.

    Args:
        codec: the game's ``rules.Codec``.
        kind: ``stones_kind`` of its rule set (``observe`` needs one).
        bit_index: the observation planes' bit of each cell (``BitPlanes``' layout), any shape.
    """

    def __init__(self, codec: Any, kind: int, bit_index: np.ndarray) -> None:
        self.codec = codec
        self.g = int(codec.game_id)
        self.p = codec.params
        self.kind = kind
        self.index = np.ascontiguousarray(bit_index.reshape(-1), np.int64)
        self.scratch = np.zeros(codec.words, np.int64)
        self.out = np.zeros(max(codec.max_actions, 1) + 1, np.int64)
        self._calls: dict[Any, Any] = {}

    def _call(self, dispatcher: Any, *args: Any) -> Any:
        """``dispatcher(g, *args)``: its compiled code for this game, kept after the first call
        (numba would type every argument again at each call: ~30 us a call, a good part of a
        small batch's step). The arguments must keep the types of the first call (``call_fixed``):
        C-ordered arrays, int64 but for ``planes`` (int8) and ``masks`` (bool), as
        ``rl.boards.FastBoards`` holds them."""
        return call_fixed(self._calls, dispatcher, self.g, *args)

    def legal_first(self, s: np.ndarray) -> int:
        """The first legal action at ``s`` (not over)."""
        dispatch.legal(self.g, self.p, s, self.out)
        return int(self.out[0])

    def play(
        self, words: Any, boards: Any, actions: Any, values: Any, enders: Any, history: Any,
        lengths: Any,
    ) -> None:  # fmt: skip
        """Play ``actions[j]`` on board ``boards[j]`` (legal: the caller checked), appending it
        to the board's ``history``; at a game's end ``values[i]`` is the result for the player
        ``enders[i]`` (the rules' player to move there), else ``UNKNOWN``."""
        self._call(
            _play_boards, self.p, words, boards, actions, values, enders, history, lengths,
            self.scratch,
        )  # fmt: skip

    def observe(
        self, words: Any, values: Any, seats: Any, planes: Any, masks: Any, movers: Any
    ) -> None:
        """Every board's planes (``[N, cells, 2]``) and mask from seat ``seats[i]``'s view;
        ``movers[i]``: its player to move (-1 when over)."""
        self._call(
            _observe_boards, self.p, self.kind, words, values, seats, self.index, planes, masks,
            movers, self.out,
        )  # fmt: skip

    def waiting(self, words: Any, values: Any, seats: Any, boards: Any, out: Any) -> int:
        """How many of ``boards`` wait for their opponent's move (game on, the opponent of seat
        ``seats[i]`` to move): those into ``out[:count]``."""
        return int(self._call(_waiting_boards, self.p, words, values, seats, boards, out))

    def prepare(self, parallel: bool, *args: Any) -> tuple[int, int]:
        """``prepare_shared`` (in parallel) or ``prepare_shared_serial`` for this game."""
        return self._call(prepare_shared if parallel else prepare_shared_serial, self.p, *args)
