"""The Python side of the compiled Connect Four search (``connect_four_kernel``, ``k == 4``).

Budgets, growth, reuse and the result are ``tree_search.KernelSearcher``'s; here are the
table's arrays, its ``(cur, mask)`` positions, and its edges (a block of a node's legal moves,
the expanded ones first).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

from mcts_agents.compiled import connect_four_kernel as kernel
from mcts_agents.compiled import entries
from mcts_agents.compiled.searcher import CompiledSearch
from mcts_agents.compiled.tree_search import KernelSearcher, Tables, warm_up_searcher
from mcts_agents.envs.games.connect_four import ConnectFour
from mcts_agents.search.config import Budget, SearchConfig
from mcts_agents.search.searcher import Searcher

__all__ = ["CompiledConnectFour", "connect_four_searcher", "warm_up"]


class CompiledConnectFour(KernelSearcher):
    """The ``Searcher`` of one ``ConnectFour`` game (``k == 4``) in the numba kernel.

    See ``connect_four_kernel`` for the node table. Arrays start small and double when full
    (``capacity``: initial nodes). Building one loads the kernel (``warm_up``). The search's
    random numbers come from ``random.Random(seed)``: 64 bits seed the kernel at each search.
    """

    kernel = kernel

    def __init__(
        self,
        game: ConnectFour,
        budget: Budget,
        config: SearchConfig,
        seed: int | None = None,
        capacity: int = 1 << 12,
    ) -> None:
        layout = game.layout
        self.geometry = (layout.width, layout.height, layout.stride, layout.full, layout.bottom_row)
        tables = kernel.allocate(capacity, capacity * layout.width)
        super().__init__(game, budget, config, seed, tables)
        warm_up()

    def keys(self) -> list[tuple[int, int, int, int]]:
        """The stored positions, as states of the rules core (for tests and inspection)."""
        return [self._state(i) for i in range(len(self))]

    def _allocate(self, nodes: int, edges: int) -> Tables:
        return kernel.allocate(nodes, edges)

    def _rehash(self, n: int) -> None:
        kernel.rehash(self.slots, self.nd[kernel.NODE_CUR], self.nd[kernel.NODE_MASK], n)

    def _position(self, state: Any) -> tuple[Hashable, Any]:
        position = self.game.position(state)
        return position, position

    def _find(self, position: Any) -> int:
        cur, mask = position
        return int(
            kernel.find(self.slots, self.nd[kernel.NODE_CUR], self.nd[kernel.NODE_MASK], cur, mask)
        )

    def _add_root(self, position: Any, state: Any) -> int:
        cur, mask = position
        return int(kernel.add_node(self.nd, self.slots, self.meta, cur, mask, kernel.UNKNOWN, True))

    def _reroot(self, position: Any) -> None:
        cur, mask = position
        kernel.reroot(self.nd, self.ed, self.slots, self.meta, cur, mask)

    def _run(self, root: int, n: int, max_nodes: int, stop_when_full: bool) -> tuple[int, int]:
        config = self.config
        done, status = kernel.run(
            self.nd, self.ed, self.slots, self.meta, self.rng_state, self.geometry, root, n,
            config.c, config.solver, self._decisive(), max_nodes, stop_when_full,
        )  # fmt: skip
        return int(done), int(status)

    def _decisive(self) -> bool:
        return self.config.playout == "decisive"

    def _edges(self, node: int) -> range:
        first = int(self.nd[kernel.NODE_FIRST][node])
        return (
            range(first, first + int(self.nd[kernel.NODE_NEXP][node])) if first >= 0 else range(0)
        )

    def _same_mover(self, node: int, child: int) -> bool:
        return False  # the players alternate

    def _untried(self, root: int, state: Any, expanded: Sequence[int]) -> list[int]:
        first = int(self.nd[kernel.NODE_FIRST][root])
        if first < 0:  # the root's edges do not exist yet
            return []
        actions = self.ed[kernel.EDGE_ACTION]  # the untried moves follow the expanded ones
        return [
            int(actions[e])
            for e in range(first + len(expanded), first + int(self.nd[kernel.NODE_NACT][root]))
        ]

    def _state(self, node: int) -> tuple[int, int, int, int]:
        cur, mask = int(self.nd[kernel.NODE_CUR][node]), int(self.nd[kernel.NODE_MASK][node])
        return self.game.state_from_position(cur, mask)


def connect_four_searcher(
    game: ConnectFour, budget: Budget, config: SearchConfig, seed: int | None = None
) -> Searcher:
    """Connect Four's compiled search: its own kernel for ``k == 4`` (faster), else the shared
    kernel (``searcher.CompiledSearch`` with ``rules.connect_four``)."""
    if game.k == 4:
        return CompiledConnectFour(game, budget, config, seed)
    return CompiledSearch(game, budget, config, seed)


_warm = False


def warm_up() -> None:
    """Compile (or load from numba's cache) every kernel function once per process.

    Runs at the first search of a game the kernel plays (about 0.3-0.6 s with numba's cache,
    some seconds to compile), outside the search's time budget; call it ahead to keep it out
    of a timed game altogether."""
    global _warm
    if _warm:
        return
    _warm = True
    entries.announce_compile("Connect Four", (kernel.run, kernel.reroot))
    game = ConnectFour()
    warm_up_searcher(
        CompiledConnectFour(game, Budget(iterations=64), SearchConfig(), 0, capacity=16)
    )
