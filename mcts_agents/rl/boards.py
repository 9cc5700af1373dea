"""``FastBoards``: the native vector env's sub-envs played on arrays of rules' words.

For a two-player game with compiled rules whose boards ``compiled.boards`` reads (Connect
Four, Othello up to 8x8, m,n,k with one word a player: tic-tac-toe, Gomoku 8x8), against
opponents whose searches ``compiled.board_search`` can run (``MCTSAgent`` s with a compiled,
batchable searcher) or learned policies that play a batch in one call
(``rl.board_policies``: a snapshot's forward pass), ``rl.vector.VectorVsOpponent`` keeps
each game as a row of the rule set's int64 words and does a step's work for all those boards
in compiled calls: the learner's moves, the ends of games and their results, the opponents'
roots, searches and moves (or observations and forward passes), the observations and masks.
No AEC env, core state or ``game_from_env`` is built per board.

Sub-envs are put on this path at each of their resets (``start``), after ``SubEnv.reset`` drew
its seeds and reset its opponent exactly as the single-env wrapper does; it plays the same
moves as the AEC path would (same seeds, same trees, same final-move rule). Each board keeps
its move history: ``sync(i)`` replays the moves not yet played into sub-env ``i``'s AEC env
(through ``SubEnv._step_env``, so its returns add up as they would have), which the vector env
does before anything reads the AEC env (``render``, ``envs``, ``call``...). A board whose
opponent, env or game does not qualify plays the AEC path (``on[i]`` False).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mcts_agents.agents.agent import MCTSAgent
from mcts_agents.compiled.board_search import BoardSearch, searchable
from mcts_agents.compiled.boards import (
    BoardRules,
    Boards,
    board_results,
    start_boards,
    stones_kind,
)
from mcts_agents.compiled.common import UNKNOWN
from mcts_agents.compiled.rules import RULE_SETS
from mcts_agents.envs.core.aec import BoardGameEnv
from mcts_agents.envs.core.wrappers import GameWrapper
from mcts_agents.errors import NoLegalActionError
from mcts_agents.rl.board_policies import BoardPolicies

__all__ = ["FastBoards"]


def _board_rules(aec_env: Any) -> BoardRules | None:
    """The ``BoardRules`` of ``aec_env``'s game, or ``None`` if its boards cannot be words here."""
    if type(aec_env) is not GameWrapper or not isinstance(aec_env.unwrapped, BoardGameEnv):
        return None
    game = aec_env.unwrapped.game
    if game.num_players != 2 or game.has_chance:
        return None
    planes = getattr(game, "_planes", None)
    index = getattr(planes, "_index", None)
    shape = tuple(game.observation_shape)
    if planes is None or index is None or index.shape[-1] != 2 or shape != index.shape:
        return None
    for one in RULE_SETS:
        if isinstance(game, one.game_type) and one.module().supports(game) is None:
            kind = stones_kind(one.name)
            if kind < 0:
                return None
            codec = one.module().codec(game, one.game_id)
            if codec.players != 2 or (one.name == "mnk" and codec.words != 4):
                return None
            bit_index = planes.nbits - 1 - index[..., 0]
            return BoardRules(codec, kind, bit_index)
    return None


class FastBoards:
    """The words of ``num_envs`` boards of one game, and their opponents' trees (see the module).

    Build one with ``FastBoards.build(aec_env, num_envs)`` (``None`` where the game does not
    qualify)."""

    def __init__(self, rules: BoardRules, game: Any, num_envs: int) -> None:
        n, codec = num_envs, rules.codec
        self.rules = rules
        self.game = game
        self.search = BoardSearch(rules, n)
        self.policies = BoardPolicies(rules, game, n)
        self.on = np.zeros(n, np.bool_)
        self.words = np.zeros((n, codec.words), np.int64)
        self.values = np.full(n, UNKNOWN, np.int64)
        self.enders = np.zeros(n, np.int64)
        self.seats = np.zeros(n, np.int64)
        self.lost = np.zeros(n, np.bool_)  # ended by an illegal action of the learner
        self.history = np.zeros((n, codec.max_depth + 2), np.int64)
        self.lengths = np.zeros(n, np.int64)
        self.synced = np.zeros(n, np.int64)
        cells = rules.index.shape[0]
        self.planes = np.zeros((n, cells, 2), np.int8)
        self.masks = np.zeros((n, game.num_actions), np.bool_)
        self.shape = tuple(game.observation_shape)  # of one observation
        self.movers = np.zeros(n, np.int64)
        # the same arrays as one record, which ``learn`` and ``settle`` pass
        self.arrays = Boards(
            self.words, self.values, self.enders, self.seats, self.lost, self.history,
            self.lengths, self.planes, self.masks, self.movers,
        )  # fmt: skip
        self._waiting = np.zeros(n, np.int64)
        self._initial = np.array(codec.encode(game.initial_state()), np.int64)
        self._games: list[Any] = [None] * n  # each sub-env's game, once found equal to ``game``
        self._searchable: list[Any] = [None] * n  # each board's last searcher found searchable
        # each board's last opponents (the sub-env's dict), learner seat and opponent on the words
        self._opponents: list[Any] = [None] * n
        self._seat: list[Any] = [None] * n
        self._agent: list[Any] = [None] * n

    @classmethod
    def build(cls, aec_env: Any, num_envs: int) -> FastBoards | None:
        rules = _board_rules(aec_env)
        if rules is None:
            return None
        return cls(rules, aec_env.unwrapped.game, num_envs)

    # ------------------------------------------------------------------ episodes
    def start(self, indices: list[int], subs: list[Any]) -> list[int]:
        """Put the sub-envs ``indices`` (just reset, deferred: their AEC envs at the start,
        their opponents reset) on the words where their opponents qualify; those that did not
        (to play on their AEC envs)."""
        started: list[int] = []
        off: list[int] = []
        for i in indices:
            (started if self._attach(i, subs[i]) else off).append(i)
        if off:
            self.on[off] = False
        if started:
            start_boards(
                np.array(started, np.int64),
                np.array([subs[i].seats.index(subs[i].seat) for i in started], np.int64),
                self._initial, self.words, self.values, self.lost, self.lengths, self.synced,
                self.seats, self.on,
            )  # fmt: skip
        return off

    def _attach(self, i: int, sub: Any) -> bool:
        """Search sub-env ``i``'s opponent on the words if it qualifies; whether it does."""
        fresh = bool(self.on[i])  # its last episode ended here: no search on the AEC path since
        self.search.detach(i, keep=False)  # its opponent was just reset
        self.policies.detach(i)
        opponents = sub.opponents
        if fresh and opponents is self._opponents[i] and sub.seat == self._seat[i]:
            # the same opponents, seat and (fresh: never read through ``envs``) env as last
            # episode: the same searcher, if the agent still has it
            searcher = self._agent[i].searcher
            if searcher is self._searchable[i]:
                self.search.attach(i, searcher, fresh)
                return True
        self._opponents[i] = None
        game = sub.aec_env.unwrapped.game
        if game is not self._games[i]:
            if game != self.game:
                return False
            self._games[i] = game
        distinct = {id(a): a for seat, a in opponents.items() if seat != sub.seat}
        if len(distinct) != 1:
            return False
        agent = next(iter(distinct.values()))
        if self.policies.attach(i, agent):  # a learned policy: ``rl.board_policies``
            return True
        searcher = getattr(agent, "searcher", None)
        if searcher is None or searcher is not self._searchable[i]:  # else: built, checked
            searcher = _searcher(agent, game)
            if searcher is None:
                return False
        if searcher is not self._searchable[i]:  # (a searcher's settings do not change)
            if not searchable(searcher, self.rules):
                return False
            self._searchable[i] = searcher
        self.search.attach(i, searcher, fresh)
        self._opponents[i], self._seat[i], self._agent[i] = opponents, sub.seat, agent
        return True

    def leave(self, i: int, sub: Any) -> None:
        """Take sub-env ``i`` off the words for the rest of its episode (its AEC env synced)."""
        if self.on[i]:
            self.sync(i, sub)
            self.search.detach(i)
            self.policies.detach(i)
            self.on[i] = False

    def sync(self, i: int, sub: Any) -> None:
        """Play the moves of board ``i`` that its AEC env has not seen yet."""
        sub.ready()
        for action in self.history[i, self.synced[i] : self.lengths[i]].tolist():
            sub._step_env(action)
        self.synced[i] = self.lengths[i]

    # ------------------------------------------------------------------ steps
    def play(self, boards: np.ndarray, actions: np.ndarray) -> None:
        """The learner's (legal) ``actions[j]`` on ``boards[j]``."""
        if len(boards):
            self.rules.play(
                self.words, boards, actions, self.values, self.enders, self.history, self.lengths
            )

    def learn(self, masks: np.ndarray, skip: np.ndarray, actions: np.ndarray, start: int) -> int:
        """Every board on the words (all of them: the caller checked) not in ``skip``: the
        learner's action ``actions[i] - start`` if all are legal in ``masks``, and how many
        were played; else none played and a negative number."""
        return self.rules.learn(self.arrays, masks, skip, actions, start)

    def settle(
        self, skip: np.ndarray, rewards: np.ndarray, over: np.ndarray, done: np.ndarray
    ) -> int:
        """After ``learn`` and ``advance`` of every board: ``done`` (each game over), the
        rewards and ends of games of those not in ``skip`` (into ``rewards``, ``over``), and
        ``observe``'s planes, masks and movers; returns how many games are over."""
        return self.rules.settle(self.arrays, skip, rewards, over, done)

    def advance(self, boards: np.ndarray) -> None:
        """Play the opponents of ``boards`` (all searched in one batch each round, the learned
        ones' in one forward pass per policy) until each learner is to move or its game is
        over."""
        pending = boards
        while len(pending):
            count = self.rules.waiting(self.words, self.values, self.seats, pending, self._waiting)
            if not count:
                return
            pending = self._waiting[:count].copy()
            learned = self.policies.on[pending]
            if np.count_nonzero(learned):
                replies = np.empty(count, np.int64)
                replies[learned] = self.policies.moves(
                    self.words, self.values, self.seats, pending[learned]
                )
                if np.count_nonzero(learned) < count:
                    replies[~learned] = self.search.moves(self.words, pending[~learned])
            else:
                replies = self.search.moves(self.words, pending)
            self.rules.play(
                self.words, pending, replies, self.values, self.enders, self.history, self.lengths
            )

    def observe(self) -> None:
        """Every board's planes, mask (the learner's; none when over) and player to move."""
        self.rules.observe(
            self.words, self.values, self.seats, self.planes, self.masks, self.movers
        )
        if np.count_nonzero(self.lost):
            self.masks[self.lost] = False

    def results(self, boards: np.ndarray, rewards: np.ndarray, over: np.ndarray) -> np.ndarray:
        """For each of ``boards``: whether its game is over (into ``over``) and the learner's
        reward of its last step (its return if the game ended then, else 0; into ``rewards``);
        returns the boards whose games are over."""
        return board_results(boards, self.values, self.enders, self.seats, rewards, over)

    def over_all(self) -> np.ndarray:
        """Whether each board's game is over (its last result, or an illegal action)."""
        return (self.values != UNKNOWN) | self.lost

    def collect(self, subs: list[Any], out: np.ndarray, observed: bool = False) -> np.ndarray:
        """The vector env's ``_collect`` with some sub-envs on the words: every observation
        into ``out`` (``[N, *shape]``), the boards' from ``observe`` (``observed``: all
        boards are on the words, observed by ``settle`` since), the others' from their AEC
        envs; returns the masks.

        Raises:
            NoLegalActionError: a learner to move with an empty mask, naming the sub-env.
        """
        if not observed:
            self.observe()
        on = self.on
        masks = self.masks.copy()
        if np.count_nonzero(on) == len(on):
            out[...] = self.planes.reshape(out.shape)
        else:
            out[on] = self.planes[on].reshape((-1, *self.shape))
            masks[~on] = False
            for i in np.flatnonzero(~on).tolist():
                seen = subs[i]._observe()
                out[i] = seen["observation"]
                if not subs[i]._done:
                    masks[i] = np.asarray(seen["action_mask"]).astype(bool)
            done = np.where(on, self.over_all(), np.array([sub._done for sub in subs]))
            self._check_moves(subs, masks, done)  # (the words' rules always leave a move)
        return masks

    @staticmethod
    def _check_moves(subs: list[Any], masks: np.ndarray, done: np.ndarray) -> None:
        for i in np.flatnonzero(~masks.any(axis=1) & ~done).tolist():
            raise NoLegalActionError(
                f"{subs[i].seat} is to move in sub-env {i} ({subs[i].aec_env}) but its action "
                "mask has no legal action"
            )

    def over(self, i: int) -> bool:
        return bool(self.values[i] != UNKNOWN or self.lost[i])

    def learner_value(self, i: int) -> float:
        """The learner's return of board ``i``'s finished game (0 while it runs)."""
        value = int(self.values[i])
        if value == UNKNOWN:
            return 0.0
        return float(value if self.enders[i] == self.seats[i] else -value)

    def returns(self, i: int, seats: list[str]) -> dict[str, float]:
        """Every seat's return so far (as ``SingleAgentVsOpponent._returns``)."""
        value = int(self.values[i])
        if value == UNKNOWN:
            return dict.fromkeys(seats, 0.0)
        ender = int(self.enders[i])
        return {seat: float(value if k == ender else -value) for k, seat in enumerate(seats)}


def _searcher(agent: Any, game: Any) -> Any:
    """The searcher an ``MCTSAgent`` (one process, no oracle) searches ``game`` with, else
    ``None``."""
    if type(agent) is not MCTSAgent or agent.workers != 1:
        return None
    if agent.config.information == "oracle":
        return None
    return agent._searcher_for(game)
