"""Go rules on bitboards: sizes 5x5 to 19x19, komi, area scoring, passes, simple ko or superko.

The rules are PettingZoo ``go_v5``'s (MiniGo's ``go_base``) with one choice added:

- Action ``row * size + col`` (row 0 at the top) places a stone; action ``size * size`` passes
  (always legal). Black (player 0) moves first. Two passes in a row end the game.
- A move must be on an empty point, and suicide is illegal (as in ``go_v5`` and OpenSpiel):
  a stone is legal when it has an empty neighbour, captures a neighbouring group in atari, or
  joins a group of its own colour with another liberty.
- Simple ko: after a capture of exactly one stone by a stone played on a point surrounded by
  the other colour, retaking at once on the captured point is illegal (``go_base``'s rule: a
  pass clears it).
- ``superko=True`` (the default of ``go_v0``) adds **positional superko**: a move may not
  recreate any earlier whole-board position, whoever is to move (a pass keeps the board, and
  is always legal). Earlier positions are remembered by their 64-bit Zobrist hashes (a false
  repeat needs a hash collision: odds about ``moves**2 / 2**64``). ``superko=False`` is
  ``go_v5``'s own rule: simple ko only, so positions can repeat (``acyclic`` is False).
- Area scoring (Tromp-Taylor): each player's stones plus the empty regions that reach only
  that player's stones; black wins when its score minus white's minus ``komi`` is positive,
  else white wins: a tie goes to white, as ``go_v5`` pays it. No move limit (``go_v5`` has
  none).

Layout: bit ``row * (size + 1) + col``; the guard column ``col == size`` is never a point, so
shifts by 1 and by ``size + 1`` find neighbours with one mask and no wrapping. A group is a
flood fill by shifts (a handful of big-int operations per step), liberties are its neighbours
that are empty; no strings are kept between moves, so a state is a few ints.

State: ``(black, white, to_play, ko, passes, board_hash, seen, recent)``: the stones, the
player to move, the simple-ko point (an action, or -1), the passes in a row (2: the game is
over), the Zobrist hash of the stones, the hashes of every position so far (superko; an empty
frozenset under simple ko), and the seven boards before this one, newest first, as
``(black, white)`` pairs (for the observation's history planes only).

Key: ``(hash,)``, the Zobrist hash of the stones, the side to move, the ko point and the passes,
which decide the rest of a game under simple ko. Under superko the earlier positions decide
legality too, so the key is ``(hash, seen)``: a transposition key only where the same earlier
positions were visited (the history is the price of soundness).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Hashable

import numpy as np

from mcts_agents.envs.core.checks import bits_field, int_field, invalid, short, state_fields
from mcts_agents.envs.core.errors import InvalidParameterError
from mcts_agents.envs.core.game import BoardGame
from mcts_agents.envs.core.params import check_int
from mcts_agents.envs.games.go_history import history_problem, impossible_hash, key_extras
from mcts_agents.envs.games.go_layout import COLUMNS, layout, parse_vertex, vertex, zobrist_table
from mcts_agents.envs.games.go_playout import playout

State = tuple[int, int, int, int, int, int, frozenset[int], tuple[tuple[int, int], ...]]
#: Boards kept in a state for the observation's history planes (besides the current one).
HISTORY = 7
_BLACK_WINS, _WHITE_WINS = (1.0, -1.0), (-1.0, 1.0)
_MASK64 = (1 << 64) - 1
__all__ = ["COLUMNS", "HISTORY", "Go", "State", "parse_vertex", "vertex"]
_FIELDS = ("black", "white", "to_play", "ko", "passes", "board_hash", "seen", "recent")


class Go(BoardGame[State]):
    """Go on a ``size`` x ``size`` board (5 to 19) with ``komi`` and area scoring; positional
    superko or, with ``superko=False``, simple ko only as PettingZoo's ``go_v5`` plays."""

    def __init__(self, size: int = 19, komi: float = 7.5, superko: bool = True) -> None:
        self.size = check_int("size", size, 5, 19)
        if isinstance(komi, bool) or not isinstance(komi, (int, float, np.integer, np.floating)):
            raise InvalidParameterError(f"komi must be a number, got {komi!r}")
        if not (math.isfinite(komi) and abs(komi) <= 1000):
            raise InvalidParameterError(f"komi must be finite, in [-1000, 1000], got {komi!r}")
        if not isinstance(superko, (bool, np.bool_)):
            raise InvalidParameterError(f"superko must be a bool, got {superko!r}")
        self.komi = float(komi)
        self.superko = bool(superko)
        self.acyclic = self.superko  # superko: every non-pass move makes a new board
        self.name = "go"
        self.num_players = 2
        self.points = size * size
        self.pass_action = self.points
        self.num_actions = self.points + 1
        self.observation_shape = (size, size, 2 * (HISTORY + 1) + 1)
        self.width, self.board, self.action_bit, self.bit_action = layout(size)
        self.zstone, self._zside, self._zko, self._zpass = zobrist_table(size)
        self._bit_index = np.array(self.action_bit).reshape(size, size)
        self.point_neighbours = [self.neighbours(1 << b) for b in range(len(self.bit_action))]
        w, board = self.width, self.board
        self.point_diagonals = [
            ((1 << b << w + 1) | (1 << b << w - 1) | (1 << b >> w + 1) | (1 << b >> w - 1)) & board
            for b in range(len(self.bit_action))
        ]
        self.edge_points = sum(  # the first and last rows and columns
            1 << self.action_bit[a]
            for a in range(self.points)
            if a < size or a >= self.points - size or a % size in (0, size - 1)
        )
        self._initial: State = (
            0,
            0,
            0,
            -1,
            0,
            0,
            frozenset([0]) if self.superko else frozenset(),
            (),
        )

    def params(self) -> dict[str, Hashable]:
        return {"size": self.size, "komi": self.komi, "superko": self.superko}

    def state_from_stones(self, black: int, white: int, to_play: int = 0) -> State:
        """A position with these stones (bitboards of ``action_bit`` points), ``to_play`` to
        move, no ko, no passes and no history: a game set up on the board. Raises
        ``InvalidStateError`` for stones on one point or a group without a liberty."""
        board_hash = self.hash_of(0, black) ^ self.hash_of(1, white)
        seen = frozenset([board_hash]) if self.superko else frozenset()
        state = (black, white, to_play, -1, 0, board_hash, seen, ())
        self.check_state(state)
        return state

    def stones(self, actions: list[int]) -> int:
        """The bitboard of the points of ``actions``."""
        return sum(1 << self.action_bit[a] for a in set(actions))

    # ------------------------------------------------------------------ board helpers
    def neighbours(self, x: int) -> int:
        """The points next to the points of ``x`` (not ``x`` itself, unless adjacent)."""
        w = self.width
        return ((x << 1) | (x >> 1) | (x << w) | (x >> w)) & self.board

    def group(self, seed: int, stones: int) -> int:
        """The points of ``stones`` connected to ``seed`` (a bit of ``stones``)."""
        w, board = self.width, self.board
        group = frontier = seed
        while frontier:
            frontier = ((frontier << 1) | (frontier >> 1) | (frontier << w) | (frontier >> w)) & (
                stones & ~group
            )
            group |= frontier
        return group & board

    def hash_of(self, colour: int, stones: int) -> int:
        table, bit_action, h = self.zstone[colour], self.bit_action, 0
        while stones:
            low = stones & -stones
            h ^= table[bit_action[low.bit_length() - 1]]
            stones ^= low
        return h

    def _actions(self, bits: int) -> list[int]:
        bit_action, out = self.bit_action, []
        while bits:
            low = bits & -bits
            out.append(bit_action[low.bit_length() - 1])
            bits ^= low
        return out

    def legal_points(self, state: State) -> int:
        """The mover's legal placing moves as a bitboard (the pass is always legal too)."""
        black, white, player, ko, passes = state[:5]
        if passes >= 2:
            return 0
        own, opp = (black, white) if player == 0 else (white, black)
        empty = self.board & ~(black | white)
        legal = empty & self.neighbours(empty)  # an empty neighbour: never suicide
        surrounded = empty ^ legal
        if surrounded:
            legal |= surrounded & self.neighbours(self._helpful(own, opp, empty, surrounded))
        if ko >= 0:
            legal &= ~(1 << self.action_bit[ko])
        if self.superko and legal:
            legal = self._no_repeats(state, legal, own, opp, empty)
        return legal

    def _helpful(self, own: int, opp: int, empty: int, surrounded: int) -> int:
        """Stones next to ``surrounded`` points that make a stone there legal: own groups with
        two liberties or more, opponent groups in atari (a stone there captures them)."""
        near = self.neighbours(surrounded)
        found = 0
        for stones, wanted_atari in ((own, False), (opp, True)):
            seeds = near & stones
            while seeds:
                g = self.group(seeds & -seeds, stones)
                seeds &= ~g
                libs = self.neighbours(g) & empty
                if (libs & (libs - 1) == 0) == wanted_atari:
                    found |= g
        return found

    def _no_repeats(self, state: State, legal: int, own: int, opp: int, empty: int) -> int:
        """``legal`` less the moves whose board is one of ``state``'s earlier positions."""
        player, board_hash, seen = state[2], state[5], state[6]
        table, other = self.zstone[player], 1 - player
        captures: dict[int, int] = {}  # liberty bit of an opponent group in atari -> hash
        seeds = opp
        while seeds:
            g = self.group(seeds & -seeds, opp)
            seeds &= ~g
            libs = self.neighbours(g) & empty
            if libs & (libs - 1) == 0:
                captures[libs] = captures.get(libs, 0) ^ self.hash_of(other, g)
        out, bits, bit_action = legal, legal, self.bit_action
        while bits:
            low = bits & -bits
            bits ^= low
            h = board_hash ^ table[bit_action[low.bit_length() - 1]] ^ captures.get(low, 0)
            if h in seen:
                out ^= low
        return out

    # ------------------------------------------------------------------ rules
    def initial_state(self) -> State:
        return self._initial

    def to_play(self, state: State) -> int:
        return state[2]

    def legal_actions(self, state: State) -> list[int]:
        if state[4] >= 2:
            return []
        out = self._actions(self.legal_points(state))
        out.append(self.pass_action)
        return out

    def is_legal(self, state: State, action: int) -> bool:
        if state[4] >= 2:
            return False
        if action == self.pass_action:
            return True
        return bool(self.legal_points(state) >> self.action_bit[action] & 1)

    def next_state(self, state: State, action: int) -> State:
        black, white, player, _, passes, board_hash, seen, recent = state
        recent = ((black, white), *recent[: HISTORY - 1])
        if action == self.pass_action:
            return (black, white, 1 - player, -1, passes + 1, board_hash, seen, recent)
        bit = 1 << self.action_bit[action]
        own, opp = (black, white) if player == 0 else (white, black)
        koish = not (self.neighbours(bit) & ~opp)  # every neighbour an opponent stone
        own |= bit
        board_hash ^= self.zstone[player][action]
        empty = self.board & ~(own | opp)
        captured = 0
        seeds = self.neighbours(bit) & opp
        while seeds:
            g = self.group(seeds & -seeds, opp)
            seeds &= ~g
            if not self.neighbours(g) & empty:
                captured |= g
        ko = -1
        if captured:
            opp ^= captured
            board_hash ^= self.hash_of(1 - player, captured)
            if koish and captured & (captured - 1) == 0:
                ko = self.bit_action[captured.bit_length() - 1]
        if self.superko:
            seen = seen | {board_hash}
        black, white = (own, opp) if player == 0 else (opp, own)
        return (black, white, 1 - player, ko, 0, board_hash, seen, recent)

    def is_terminal(self, state: State) -> bool:
        return state[4] >= 2

    def area(self, black: int, white: int) -> tuple[int, int]:
        """Black's and white's area: stones plus the empty regions reaching only their stones."""
        empty = self.board & ~(black | white)
        b, w = black.bit_count(), white.bit_count()
        while empty:
            region = self.group(empty & -empty, empty)
            empty ^= region
            border = self.neighbours(region)
            if border & black:
                if not border & white:
                    b += region.bit_count()
            elif border & white:
                w += region.bit_count()
        return b, w

    def score(self, state: State) -> float:
        """Black's area minus white's minus komi (positive: black wins)."""
        b, w = self.area(state[0], state[1])
        return b - w - self.komi

    def returns(self, state: State) -> tuple[float, ...]:
        if state[4] < 2:
            return (0.0, 0.0)
        return _BLACK_WINS if self.score(state) > 0 else _WHITE_WINS

    def key(self, state: State) -> Hashable:
        h = state[5] ^ self._zpass[state[4]]
        if state[2]:
            h ^= self._zside
        if state[3] >= 0:
            h ^= self._zko[state[3]]
        return (h, state[6]) if self.superko else (h,)

    def check_key(self, key: object) -> None:
        """A key is ``(hash,)`` (simple ko) or ``(hash, seen)`` (superko): 64-bit ints; ``hash``
        a board's in ``seen`` with the side, ko and passes, ``seen`` boards' (``go_history``)."""
        length = 2 if self.superko else 1
        if type(key) is not tuple or len(key) != length:
            invalid(self.name, f"a key is a tuple of {length} fields, got {short(key)}")
        int_field(self.name, "key hash", key[0], 0, _MASK64)
        if self.superko:
            seen = key[1]
            if type(seen) is not frozenset or not seen:
                invalid(self.name, f"a key's seen is a non-empty frozenset, got {short(seen)}")
            for h in seen:
                int_field(self.name, "a key's seen hash", h, 0, _MASK64)
            extras = key_extras(self.size)
            if not any(key[0] ^ h in extras for h in seen):
                invalid(self.name, "the key's hash is that of no board in its seen")
            self._check_seen_boards(seen, "a key's seen")

    def is_reachable(self, state: State, key: Hashable) -> bool:
        """Captures let stones come and go, so a board alone proves little; True, except that
        a finished game reaches only itself and, under superko, later positions remember every
        position before them (``seen`` only grows)."""
        if state[4] >= 2:
            return key == self.key(state)
        if self.superko and isinstance(key, tuple) and len(key) == 2:
            later = key[1]
            return isinstance(later, frozenset) and state[6] <= later
        return True

    def check_state(self, state: object) -> None:
        """Stones on the board and on distinct points, every group with a liberty, the hash
        the stones', the ko point empty and next to the last capture's stones only, the passes
        0 to 2 (no ko after a pass), ``seen`` (superko; empty otherwise) a history of the game:
        the board's and ``recent``'s hashes, no more while ``recent`` is short, only boards'
        hashes where the hash can tell (``go_history``); the history boards valid.
        See ``BoardGame.check_state``."""
        name = self.name
        black, white, player, ko, passes, board_hash, seen, recent = state_fields(
            name, state, _FIELDS
        )
        bits_field(name, "black", black, self.board)
        bits_field(name, "white", white, self.board)
        int_field(name, "to_play", player, 0, 1)
        int_field(name, "ko", ko, -1, self.points - 1)
        int_field(name, "passes", passes, 0, 2)
        int_field(name, "board_hash", board_hash, 0, _MASK64)
        if black & white:
            invalid(name, f"two stones on one point: {black & white:#x}")
        empty = self.board & ~(black | white)
        for colour, stones in ((0, black), (1, white)):
            seeds = stones
            while seeds:
                g = self.group(seeds & -seeds, stones)
                seeds &= ~g
                if not self.neighbours(g) & empty:
                    invalid(name, f"a {'black' if colour == 0 else 'white'} group has no liberty")
        if board_hash != self.hash_of(0, black) ^ self.hash_of(1, white):
            invalid(name, f"board_hash {board_hash:#x} is not the stones' Zobrist hash")
        if ko >= 0:
            bit = 1 << self.action_bit[ko]
            capturer = white if player == 0 else black
            if passes or not bit & empty or self.neighbours(bit) & ~capturer:
                invalid(name, f"ko point {ko} is not an empty point surrounded by the last mover")
        if type(seen) is not frozenset:
            invalid(name, f"seen must be a frozenset of hashes, got {short(seen)}")
        if self.superko:
            if board_hash not in seen or not all(
                type(h) is int and 0 <= h <= _MASK64 for h in seen
            ):
                invalid(name, "seen must hold 64-bit hashes, the current board's among them")
        elif seen:
            invalid(name, f"seen is empty under simple ko, got {short(seen)}")
        if type(recent) is not tuple or len(recent) > HISTORY:
            invalid(
                name, f"recent must be a tuple of at most {HISTORY} boards, got {short(recent)}"
            )
        for i, pair in enumerate(recent):
            if type(pair) is not tuple or len(pair) != 2:
                invalid(name, f"recent[{i}] must be a (black, white) pair, got {short(pair)}")
            bits_field(name, f"recent[{i}] black", pair[0], self.board)
            bits_field(name, f"recent[{i}] white", pair[1], self.board)
            if pair[0] & pair[1]:
                invalid(name, f"recent[{i}] has two stones on one point")
        if self.superko:
            hash_of = self.hash_of
            problem = history_problem(
                seen,
                (black, white, board_hash),
                recent,
                HISTORY,
                lambda b, w: hash_of(0, b) ^ hash_of(1, w),
            )
            if problem:
                invalid(name, problem)
            self._check_seen_boards(seen, "seen")

    def _check_seen_boards(self, seen: frozenset[int], field: str) -> None:
        """Each hash of ``seen`` a board's, where the hash can tell (5x5 and 6x6)."""
        junk = impossible_hash(self.size, seen)
        if junk >= 0:
            invalid(self.name, f"{field} holds {junk:#x}, the Zobrist hash of no board")

    def rollout(self, state: State, rng: random.Random) -> tuple[float, ...]:
        """Uniformly random legal moves (the pass among them) to two passes in a row, on bare
        bitboards: no states, no move lists. Each ply draws the empty points and the pass
        without replacement until a legal one comes up (a partial Fisher-Yates shuffle of a
        list of the empty points kept up to date), so the move is uniform over the legal
        moves, as ``legal_actions`` would give them, for a legality test or two."""
        return self.playout(state, rng.random)

    def decisive_rollout(self, state: State, rng: random.Random) -> tuple[float, ...]:
        """The playout of ``playout="decisive"`` (the agent's default): random legal moves
        that never fill the mover's own eyes, a pass only when nothing else is left
        (``go_playout.playout`` with ``eyes``); the uniform playouts of ``rollout`` fill
        their own eyes and pass at random, and say little about who is winning."""
        return self.playout(state, rng.random, eyes=True)

    def playout(
        self,
        state: State,
        rand: Callable[[], float],
        record: list[int] | None = None,
        eyes: bool = False,
    ) -> tuple[float, ...]:
        """``rollout``'s playout (``decisive_rollout``'s with ``eyes``) with ``rand`` for
        ``rng.random``; the actions played are appended to ``record`` when it is given."""
        if state[4] >= 2:
            return self.returns(state)
        black, white = playout(self, state, rand, record, eyes)
        b_area, w_area = self.area(black, white)
        return _BLACK_WINS if b_area - w_area - self.komi > 0 else _WHITE_WINS

    # ------------------------------------------------------------------ views
    def observation(self, state: State, player: int) -> np.ndarray:
        """``(size, size, 17)`` int8 planes as ``go_v5``'s: pairs (the observer's stones, the
        opponent's) for the board now and the seven before it (zeros before the start), then
        a plane of ones when the observer plays white (``go_v5``'s code: zeros for black)."""
        size = self.size
        boards = [(state[0], state[1]), *state[7]]
        out = np.zeros((size, size, 2 * (HISTORY + 1) + 1), dtype=np.int8)
        bits = self._bit_index
        for t, (black, white) in enumerate(boards):
            own, opp = (black, white) if player == 0 else (white, black)
            for plane, stones in ((2 * t, own), (2 * t + 1, opp)):
                if stones:
                    out[..., plane] = _unpack(stones, bits)
        if player == 1:
            out[..., -1] = 1
        return out

    def grid(self, state: State) -> np.ndarray:
        grid = np.zeros((self.size, self.size), dtype=np.int64)
        grid += _unpack(state[0], self._bit_index)
        grid += 2 * _unpack(state[1], self._bit_index)
        return grid

    def render_text(self, state: State) -> str:
        size = self.size
        header = "   " + " ".join(COLUMNS[:size])
        grid = self.grid(state)
        ko = state[3]
        rows = []
        for r in range(size):
            cells = [".XO"[v] for v in grid[r]]
            if ko >= 0 and ko // size == r:
                cells[ko % size] = "*"
            rows.append(f"{size - r:>2} " + " ".join(cells) + f" {size - r}")
        if state[4] >= 2:
            score = self.score(state)
            status = (
                f"game over: {'B' if score > 0 else 'W'}+{abs(score):g} (area, komi {self.komi:g})"
            )
        else:
            mover = "X (black)" if state[2] == 0 else "O (white)"
            status = f"{mover} to play; komi {self.komi:g}" + (", one pass" if state[4] else "")
        return "\n".join([header, *rows, header, status])

    def action_to_string(self, state: State, action: int) -> str:
        return vertex(action, self.size)


def _unpack(stones: int, bits: np.ndarray) -> np.ndarray:
    """Bit ``bits[...]`` of ``stones`` as an int8 array of ``bits``' shape."""
    nbits = int(bits.max()) + 1
    raw = np.frombuffer(stones.to_bytes((nbits + 7) // 8, "little"), dtype=np.uint8)
    flat = np.unpackbits(raw, bitorder="little")
    return flat[bits].astype(np.int8)
