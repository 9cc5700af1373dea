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
- ``start_boards``, ``board_results``, ``BoardRules.waiting``: the starts of games, the
  learners' results, the boards whose opponent is to move;
- ``BoardRules.learn`` and ``BoardRules.settle``: a step of every board in two calls (the
  learners' moves checked and played; then the results, games over and observations), over
  the boards' arrays as one record (``Boards``).

The trees' side (roots, picks) is ``compiled.board_trees``; the search itself is
``compiled.batch``'s kernels over the same trees (``compiled.board_search.BoardSearch``).
"""

from __future__ import annotations

from collections import namedtuple
from typing import Any

import numpy as np
from numba import literally, typeof, types

from mcts_agents.compiled import dispatch, entries
from mcts_agents.compiled.batch import _for_game
from mcts_agents.compiled.cache import njit
from mcts_agents.compiled.common import UNKNOWN, popcount

__all__ = [
    "BOARD_GAMES",
    "BoardRules",
    "Boards",
    "board_results",
    "start_boards",
    "stones_kind",
]

#: The rule sets whose boards ``observe`` reads (their words -> each player's stones), by name.
BOARD_GAMES = ("connect_four", "othello", "mnk")
_KIND = {name: k for k, name in enumerate(BOARD_GAMES)}


#: N boards' arrays as one record (numba passes it as one argument; a compiled function reads
#: its fields once a call): ``words`` ``[N, W]`` (each board's rules' words), ``values`` (the
#: result for ``enders[i]`` once a game is over, else ``UNKNOWN``), ``enders``, ``seats`` (the
#: learner's), ``lost`` (ended by the learner's illegal action), ``history`` ``[N, moves]`` and
#: ``lengths`` (each board's moves), and ``observe``'s ``planes`` ``[N, cells, 2]`` (int8),
#: ``masks`` ``[N, actions]`` (bool) and ``movers``; int64 where not said.
Boards = namedtuple(
    "Boards",
    ["words", "values", "enders", "seats", "lost", "history", "lengths", "planes", "masks",
     "movers"],
)  # fmt: skip


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
def _play_one(g, p, words, i, action, values, enders, history, lengths, scratch):
    """``action`` on board ``i``, appended to its history; its result if the game ends."""
    values[i] = dispatch.play(g, p, words[i], action, scratch)
    words[i, :] = scratch
    if values[i] != UNKNOWN:
        enders[i] = dispatch.to_play(g, p, scratch)
    history[i, lengths[i]] = action
    lengths[i] += 1


@njit(cache=True)
def _learner_reward(value, ender, seat):
    """The learner's (seat ``seat``) return of a game whose result is ``value`` for ``ender``."""
    return float(value if ender == seat else -value)


@njit(cache=True)
def _play_boards(g, p, words, boards, actions, values, enders, history, lengths, scratch):
    literally(g)
    for j in range(len(boards)):
        _play_one(g, p, words, boards[j], actions[j], values, enders, history, lengths, scratch)


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
def _learner_boards(g, p, b, masks, skip, actions, start, scratch):
    """A step's learner moves in one call: if the action ``actions[i] - start`` of every board
    ``i`` not in ``skip`` (those restarting) is legal (``masks``), play them all into the
    boards ``b`` (a ``Boards``) and return how many; else change nothing and return ``-1 - i``
    for the first board ``i`` whose is not."""
    literally(g)
    words, values, enders, history, lengths = b.words, b.values, b.enders, b.history, b.lengths
    size = masks.shape[1]
    for i in range(len(words)):
        if not skip[i]:
            a = actions[i] - start
            if a < 0 or a >= size or not masks[i, a]:
                return -1 - i
    n = 0
    for i in range(len(words)):
        if not skip[i]:
            _play_one(g, p, words, i, actions[i] - start, values, enders, history, lengths, scratch)
            n += 1
    return n


@njit(cache=True)
def _settle_boards(g, p, kind, b, skip, index, out, rewards, over, done):
    """After a step of every board of ``b`` (a ``Boards``; ``skip``: those that restarted):
    each board's game over (into ``done``), the learner's reward and end of game on the others
    (``rewards``, ``over``), and every board's observation (``_observe_boards``, no mask where
    the learner lost by an illegal action); returns how many games are over."""
    literally(g)
    words, values, enders, seats, lost = b.words, b.values, b.enders, b.seats, b.lost
    planes, masks, movers = b.planes, b.masks, b.movers
    count = 0
    for i in range(len(words)):
        ended = values[i] != UNKNOWN or lost[i]
        done[i] = ended
        if ended:
            count += 1
        if skip[i] or values[i] == UNKNOWN:
            continue
        rewards[i] = _learner_reward(values[i], enders[i], seats[i])
        over[i] = True
    _observe_boards(g, p, kind, words, values, seats, index, planes, masks, movers, out)
    for i in range(len(words)):
        if lost[i]:
            masks[i, :] = False
    return count


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
        rewards[i] = _learner_reward(value, enders[i], seats[i])
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
entries.check_sources("boards")


class BoardRules:
    """One game's rules over ``[N, W]`` words (see the module): ``play``, ``observe`` and
    ``waiting``, each one compiled call for all the boards.

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

    def learn(self, b: Any, masks: Any, skip: Any, actions: Any, start: int) -> int:
        """The learner's action ``actions[i] - start`` on every board ``i`` of ``b`` (a
        ``Boards``) not in ``skip``, if each is legal in ``masks``: played (as ``play``), and
        how many; else nothing played and ``-1 - i``, ``i`` the first board whose action is
        not (``_learner_boards``)."""
        found = self._call(_learner_boards, self.p, b, masks, skip, actions, start, self.scratch)
        return int(found)

    def settle(self, b: Any, skip: Any, rewards: Any, over: Any, done: Any) -> int:
        """Every board's game over (``done``), the rewards and ends of the boards of ``b`` (a
        ``Boards``) not in ``skip`` (``rewards``, ``over``), and ``observe``; how many games
        are over (``_settle_boards``)."""
        count = self._call(
            _settle_boards, self.p, self.kind, b, skip, self.index, self.out, rewards, over, done
        )
        return int(count)

    def waiting(self, words: Any, values: Any, seats: Any, boards: Any, out: Any) -> int:
        """How many of ``boards`` wait for their opponent's move (game on, the opponent of seat
        ``seats[i]`` to move): those into ``out[:count]``."""
        return int(self._call(_waiting_boards, self.p, words, values, seats, boards, out))
