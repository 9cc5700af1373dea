"""Phantom m,n,k: the m,n,k-game where each player sees only its own stones.

The rules of OpenSpiel's ``phantom_ttt`` (``gameversion=classical``, ``obstype=reveal-nothing``)
on any board: ``m`` rows, ``n`` columns, ``k`` or more in a row wins, player 0 (X) first. A
player may try any cell it does not know to be occupied. On an empty cell the stone is placed
and the turn passes; on a cell holding an enemy stone nothing is placed, the mover learns that
stone, and tries again (the turn does not pass). Players learn nothing of the opponent's tries.
Phantom tic-tac-toe (3,3,3) and phantom (4,4,4) are the boards of the ISMCTS papers.

Action ``row * n + col`` tries that cell (OpenSpiel's cell numbering for 3 x 3).

State: ``(board, known_0, known_1, history_0, history_1)``:

- ``board``: the true position as an ``MNK`` state ``(stones_0, stones_1, count, status)``; the
  m,n,k core places the stones, so lines, draws, returns and the player to move are its rules.
- ``known_p``: bitboard of the enemy stones player ``p`` has discovered.
- ``history_p``: player ``p``'s tries in order, packed into an int, ``code_bits`` bits a try,
  the latest lowest: code ``2 * cell + 1`` placed a stone, ``2 * cell + 2`` found an enemy
  stone (``attempts`` decodes it).

The histories make every state distinct (each try reveals a new cell to the mover), so the game
is acyclic and the state is its own key. ``information_set(state, p)`` is ``(p, history_p)``:
exactly what OpenSpiel's ``information_state_string(p)`` holds (p's view of the board, which the
tries and their outcomes determine, then p's tries in order).
"""

from __future__ import annotations

import random
from collections.abc import Hashable

import numpy as np

from mcts_agents.envs.core.bits import BitPlanes
from mcts_agents.envs.core.checks import bits_field, invalid, short, state_fields
from mcts_agents.envs.core.game import BoardGame
from mcts_agents.envs.games.mnk import MNK, RUNNING, SYMBOLS

Board = tuple[int, ...]  # an MNK state: (stones_0, stones_1, count, status)
State = tuple[Board, int, int, int, int]

#: Uniform draws of the hidden stones in ``determinize`` before a systematic search.
_DRAWS = 64


class PhantomMNK(BoardGame[State]):
    """Phantom m,n,k-game for two players: tries on unseen enemy stones reveal them.

    Args:
        m: number of rows.
        n: number of columns.
        k: length of a winning line, in ``[1, max(m, n)]``; longer lines win too.
    """

    perfect_information = False

    def __init__(self, m: int = 3, n: int = 3, k: int = 3) -> None:
        rules = MNK(m, n, k, name="phantom_mnk")  # checks m, n and k
        self._rules = rules
        self.m, self.n, self.k = m, n, k
        self.name = "phantom_mnk"
        self.num_players = 2
        cells = m * n
        self.num_actions = cells
        #: own stones, then the enemy stones the observer has discovered.
        self.observation_shape = (m, n, 2)
        self._cells = cells
        self._bits = tuple(1 << cell for cell in range(cells))
        #: bits of one try in a packed history.
        self.code_bits = (2 * cells).bit_length()
        self._code_mask = (1 << self.code_bits) - 1
        self._placed = tuple(2 * cell + 1 for cell in range(cells))
        self._found = tuple(2 * cell + 2 for cell in range(cells))
        self._planes = BitPlanes(np.arange(cells).reshape(m, n), 2)
        self._place = rules.next_state
        # the m,n,k core's line test through one stone (its precomputed windows)
        self.wins_with = rules.wins_with
        self._draw = rules.num_players + 1  # MNK's status of a draw

    def params(self) -> dict[str, Hashable]:
        return {"m": self.m, "n": self.n, "k": self.k}

    # ------------------------------------------------------------------ rules
    def initial_state(self) -> State:
        return (self._rules.initial_state(), 0, 0, 0, 0)

    def to_play(self, state: State) -> int:
        return state[0][2] & 1

    def legal_actions(self, state: State) -> list[int]:
        board = state[0]
        if board[3]:
            return []
        player = board[2] & 1
        seen = board[player] | (state[2] if player else state[1])
        return [cell for cell, bit in enumerate(self._bits) if not seen & bit]

    def is_legal(self, state: State, action: int) -> bool:
        board = state[0]
        player = board[2] & 1
        known = state[2] if player else state[1]
        return not board[3] and not (board[player] | known) & self._bits[action]

    def next_state(self, state: State, action: int) -> State:
        board, known_0, known_1, history_0, history_1 = state
        bit = self._bits[action]
        shift = self.code_bits
        if board[2] & 1:  # player 1 tries
            if board[0] & bit:
                return (
                    board,
                    known_0,
                    known_1 | bit,
                    history_0,
                    history_1 << shift | self._found[action],
                )
            placed = self._place(board, action)
            return (placed, known_0, known_1, history_0, history_1 << shift | self._placed[action])
        if board[1] & bit:
            return (
                board,
                known_0 | bit,
                known_1,
                history_0 << shift | self._found[action],
                history_1,
            )
        placed = self._place(board, action)
        return (placed, known_0, known_1, history_0 << shift | self._placed[action], history_1)

    def is_terminal(self, state: State) -> bool:
        return state[0][3] != RUNNING

    def returns(self, state: State) -> tuple[float, ...]:
        return self._rules.returns(state[0])

    def _length(self, history: int) -> int:
        """Number of tries packed in ``history`` (every code is non-zero)."""
        return -(-history.bit_length() // self.code_bits)

    def check_state(self, state: object) -> None:
        """The board a state of the m,n,k rules; each history a list of tries on distinct cells
        whose placements are exactly the player's stones and whose finds exactly its discovered
        enemy stones, each find after the enemy's turn that placed it; the player not to move
        ended its last turn with a placement. See ``BoardGame.check_state``."""
        name = self.name
        fields = ("board", "known_0", "known_1", "history_0", "history_1")
        board, known_0, known_1, history_0, history_1 = state_fields(name, state, fields)
        self._rules.check_state(board)
        placements: list[list[int]] = []
        tries: list[list[tuple[int, bool]]] = []
        for p, known, history in ((0, known_0, history_0), (1, known_1, history_1)):
            bits_field(name, f"known_{p}", known, (1 << self._cells) - 1)
            if known & ~board[1 - p]:
                invalid(name, f"known_{p} holds cells without an enemy stone: {known:#x}")
            if type(history) is not int or history < 0:
                invalid(name, f"history_{p} must be a non-negative int, got {short(history)}")
            if history.bit_length() > self._cells * self.code_bits:
                invalid(name, f"history_{p} holds more tries than the board has cells")
            steps, placed, found, seen = [], [], 0, 0
            while history:
                code = history & self._code_mask
                if not 1 <= code <= 2 * self._cells:
                    invalid(
                        name, f"history_{p} holds a try code {code}, not in [1, {2 * self._cells}]"
                    )
                cell, hit = (code - 1) >> 1, bool((code - 1) & 1)
                if seen >> cell & 1:
                    invalid(name, f"history_{p} tries cell {cell} twice")
                seen |= 1 << cell
                steps.append((cell, hit))
                history >>= self.code_bits
            steps.reverse()
            for cell, hit in steps:
                if hit:
                    found |= 1 << cell
                else:
                    placed.append(cell)
            if sum(1 << cell for cell in placed) != board[p] or found != known:
                invalid(name, f"history_{p} does not give player {p}'s stones and discoveries")
            placements.append(placed)
            tries.append(steps)
        for p in (0, 1):
            order = {cell: turn for turn, cell in enumerate(placements[1 - p])}
            turn = 0
            for cell, hit in tries[p]:
                if not hit:
                    turn += 1
                elif order[cell] > turn - 1 + p:  # the enemy's placing turn comes first
                    invalid(name, f"player {p} found cell {cell} before it was played")
        waiting = 1 - (board[2] & 1)  # the player not to move ended its turn with a stone
        if tries[waiting] and tries[waiting][-1][1]:
            invalid(name, f"player {waiting} is not to move, but its last try found a stone")

    def is_reachable(self, state: State, key: Hashable) -> bool:
        """Stones and discoveries are never lost and each history only grows at its end.

        A terminal state reaches only itself.
        """
        if not isinstance(key, tuple) or len(key) != 5 or not isinstance(key[0], tuple):
            return False
        if state[0][3]:
            return key == state
        board, later = state[0], key[0]
        if len(later) != 4 or later[2] < board[2]:
            return False
        for p, known, now in ((0, state[1], state[3]), (1, state[2], state[4])):
            if later[p] & board[p] != board[p] or key[1 + p] & known != known:
                return False
            then = key[3 + p]
            extra = self._length(then) - self._length(now)
            if extra < 0 or then >> (extra * self.code_bits) != now:
                return False
        return True

    # ------------------------------------------------------------------ information
    def attempts(self, state: State, player: int) -> list[tuple[int, bool]]:
        """``player``'s tries in order: ``(cell, found)``, ``found`` when it hit an enemy stone."""
        history, shift, mask = state[4] if player else state[3], self.code_bits, self._code_mask
        tries = []
        while history:
            code = (history & mask) - 1
            tries.append((code >> 1, bool(code & 1)))
            history >>= shift
        tries.reverse()
        return tries

    def information_set(self, state: State, player: int) -> Hashable:
        """``(player, history_player)``: the player's tries and their outcomes, in order."""
        return (player, state[4] if player else state[3])

    def determinize(self, state: State, player: int, rng: random.Random) -> State:
        """A state of ``player``'s information set, drawn with ``rng`` from its tries alone.

        The sampled opponent history:

        - the opponent never failed a try. Its tries are unseen by ``player``, and trying only
          empty cells is always open to it, so no failure is ever forced;
        - it placed the stones ``player`` found first, in the order they were found, so each is
          down before it was found (the real game shows that is possible), then the rest, in a
          random order, on cells ``player`` has not seen, uniformly among the placements
          that give it no line (a line would have ended the game).

        The number of enemy stones: with ``player`` to move (the usual call; always possible
        when ``player`` really is to move); after ``player``'s own winning or board-filling
        stone, that finished game; and if no placement lets ``player`` move again (the
        opponent's next stone must end the game), the position just after ``player``'s last
        stone. Every sample is reachable: replaying both histories from the start gives it,
        each try legal and the game over no earlier than the last.
        """
        bits = self._bits
        own = known = 0
        found: list[int] = []  # enemy stones player ran into, in that order
        last = -1  # the cell of player's last stone
        for cell, hit in self.attempts(state, player):
            if hit:
                known |= bits[cell]
                found.append(cell)
            else:
                own |= bits[cell]
                last = cell
        placed = own.bit_count()
        to_move = placed + player  # enemy stones when player is to move (player 0 starts)
        unseen = [cell for cell, bit in enumerate(bits) if not (own | known) & bit]
        won = last >= 0 and self.wins_with(own, last)
        status, stones = RUNNING, None
        if won or (last >= 0 and placed + to_move - 1 == self._cells):
            status = player + 1 if won else self._draw
            stones = self._hide(known, unseen, to_move - 1 - len(found), rng)
        elif placed + to_move < self._cells:
            stones = self._hide(known, unseen, to_move - len(found), rng)
        if stones is None:  # the opponent is to move (the real game's position is such a one)
            stones = self._hide(known, unseen, to_move - 1 - len(found), rng) or []
        enemy = known
        for cell in stones:
            enemy |= bits[cell]
        shift = self.code_bits
        opponent = 0
        for cell in found + stones:
            opponent = opponent << shift | self._placed[cell]
        count = placed + len(found) + len(stones)
        history = state[4] if player else state[3]
        if player == 0:
            return ((own, enemy, count, status), known, 0, history, opponent)
        return ((enemy, own, count, status), 0, known, opponent, history)

    def _hide(
        self, enemy: int, unseen: list[int], count: int, rng: random.Random
    ) -> list[int] | None:
        """``count`` cells of ``unseen`` that give ``enemy`` no line (None if there are none).

        Uniform draws first (rejection sampling: uniform among the good sets); if all of those
        make a line, a depth-first search over the cells in a random order finds one.
        """
        if count <= 0:
            return [] if count == 0 else None
        if count > len(unseen):
            return None
        bits, wins_with = self._bits, self.wins_with
        for _ in range(_DRAWS):
            cells = rng.sample(unseen, count)
            board = enemy
            for cell in cells:
                board |= bits[cell]
            if not any(wins_with(board, cell) for cell in cells):
                return cells
        order = rng.sample(unseen, len(unseen))

        def search(board: int, start: int, need: int) -> list[int] | None:
            if need == 0:
                return []
            for i in range(start, len(order) - need + 1):
                cell = order[i]
                with_cell = board | bits[cell]
                if not wins_with(with_cell, cell):
                    rest = search(with_cell, i + 1, need - 1)
                    if rest is not None:
                        return [cell, *rest]
            return None

        return search(enemy, 0, count)

    # ------------------------------------------------------------------ views
    def observation(self, state: State, player: int) -> np.ndarray:
        """Planes ``(m, n, 2)``: ``player``'s stones, the enemy stones it has discovered."""
        return self._planes(state[0][player], state[2] if player else state[1])

    def grid(self, state: State) -> np.ndarray:
        """The true board (a spectator's view, for drawing): 0 empty, ``p + 1`` a stone of p."""
        return self._rules.grid(state[0])

    def render_text(self, state: State) -> str:
        """The true board (a spectator's view) and, beside it, what each player has seen."""
        lines = self._rules.render_text(state[0]).split("\n")
        board, known, column = state[0], state[1:3], max(self.n, 6) + 2
        lines[0] += "   " + "X sees".ljust(column) + "O sees"
        for r in range(self.m):
            views = []
            for p in (0, 1):
                view = ""
                for bit in self._bits[r * self.n : (r + 1) * self.n]:
                    if board[p] & bit:
                        view += SYMBOLS[p + 1]
                    else:
                        view += SYMBOLS[2 - p] if known[p] & bit else "."
                views.append(view)
            lines[1 + r] += "   " + views[0].ljust(column) + views[1]
        return "\n".join(lines)

    def action_to_string(self, state: State, action: int) -> str:
        return self._rules.action_to_string(state[0], action)
