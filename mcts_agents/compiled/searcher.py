"""The Python side of the shared compiled search (``kernel``): one game's rules and table.

``CompiledSearch`` plays every game with compiled rules (``rules.RULE_SETS``): Othello (up to
8x8 with one word a bitboard, 10x10 to 16x16 with several), m,n,k for 2 to 4 players on up to
256 cells (tic-tac-toe, Gomoku, two stones per turn), ultimate tic-tac-toe, Nim and Connect Four
with ``k != 4``. ``codec(game)`` (``rules.codec``) turns the game's states into rows of int64
words and back; budgets, growth, reuse and the result are ``tree_search.KernelSearcher``'s.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np

from mcts_agents.compiled import entries, kernel
from mcts_agents.compiled.rules import RULE_SETS, Codec, codec
from mcts_agents.compiled.tree_search import KernelSearcher, Tables, warm_up_searcher
from mcts_agents.search.config import Budget, SearchConfig

__all__ = ["Codec", "CompiledSearch", "codec", "warm_up"]


class CompiledSearch(KernelSearcher):
    """The ``Searcher`` of one game in the shared compiled kernel (see ``kernel`` for the table).

    Arrays start small and double when full (``capacity``: initial nodes). Building one loads
    the kernel for its game (``warm_up(game)``). The search's random numbers come from
    ``random.Random(seed)``: 64 bits seed the kernel at each search.
    """

    kernel = kernel

    def __init__(
        self,
        game: Any,
        budget: Budget,
        config: SearchConfig,
        seed: int | None = None,
        capacity: int = 1 << 12,
    ) -> None:
        self.codec = codec(game)
        self.players = self.codec.players
        tables = kernel.allocate(self.codec.words, capacity, capacity * 2)
        super().__init__(game, budget, config, seed, tables)
        warm_up(game)

    def _allocate(self, nodes: int, edges: int) -> Tables:
        return kernel.allocate(self.codec.words, nodes, edges)

    def _rehash(self, n: int) -> None:
        kernel.rehash(self.slots, self.nd[kernel.NODE_STATES], n)

    def _grown_edges(self, used: int) -> int:
        return max(super()._grown_edges(used), used + 2 * (self.codec.max_depth + 1))

    def _position(self, state: Any) -> tuple[Hashable, Any]:
        words = np.array(self.codec.encode(state), np.int64)
        return tuple(words.tolist()), words

    def _find(self, position: Any) -> int:
        return int(kernel.find(self.slots, self.nd[kernel.NODE_STATES], position))

    def _add_root(self, position: Any, state: Any) -> int:
        player = self.game.to_play(state)
        node = kernel.add_node(
            self.nd, self.slots, self.meta, position, kernel.UNKNOWN, player, True
        )
        return int(node)

    def _reroot(self, position: Any) -> None:
        rules = self.codec
        entries.reroot(
            rules.game_id, rules.params, self.nd, self.ed, self.slots, self.meta, position
        )

    def _run(self, root: int, n: int, max_nodes: int, stop_when_full: bool) -> tuple[int, int]:
        rules, config = self.codec, self.config
        return entries.run(
            rules.game_id, rules.params, self.nd, self.ed, self.slots, self.meta,
            self.rng_state, root, n, config.c, config.solver, self._decisive(), max_nodes,
            stop_when_full, rules.max_actions, rules.max_depth, rules.players > 2,
        )  # fmt: skip

    def _decisive(self) -> bool:
        return self.config.playout == "decisive" and self.codec.decisive

    def _edges(self, node: int) -> list[int]:
        """``node``'s edges (its expanded moves), oldest first (the list runs newest first)."""
        edges = []
        e = int(self.nd[kernel.NODE_FIRST][node])
        following = self.ed[kernel.EDGE_NEXT]
        while e >= 0:
            edges.append(e)
            e = int(following[e])
        edges.reverse()
        return edges

    def _same_mover(self, node: int, child: int) -> bool:
        player = self.nd[kernel.NODE_PLAYER]
        return int(player[child]) == int(player[node])

    def _untried(self, root: int, state: Any, expanded: Sequence[int]) -> list[int]:
        if int(self.nd[kernel.NODE_NACT][root]) < 0:  # the root's moves were not counted yet
            return []
        tried = {int(self.ed[kernel.EDGE_ACTION][e]) for e in expanded}
        return [a for a in self.game.legal_actions(state) if a not in tried]

    def _state(self, node: int) -> Any:
        return self.codec.decode(self.nd[kernel.NODE_STATES][node])


_warm: set[int] = set()  # the game ids whose kernel this process has loaded


def warm_up(game: Any = None) -> None:
    """Compile (or load from numba's cache) the kernel for ``game``'s rules (every rule set's
    without one) once per process: a fraction of a second from numba's cache, seconds to tens
    of seconds to compile (a warning says so first, ``entries.announce``); outside any
    search's time budget."""
    chosen = [game] if game is not None else [one.example() for one in RULE_SETS]
    for one in chosen:
        rules = codec(one)
        if rules.game_id in _warm:
            continue
        _warm.add(rules.game_id)
        entries.announce(rules.game_id)
        searcher = CompiledSearch(one, Budget(iterations=64), SearchConfig(), 0, capacity=16)
        warm_up_searcher(searcher)
