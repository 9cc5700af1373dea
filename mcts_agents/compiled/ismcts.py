"""``CompiledISMCTS``: Information Set MCTS of ``search.ismcts`` compiled for Kuhn and Leduc poker
(two players; Leduc with OpenSpiel's rules or rlcard's, the core of PettingZoo's
``leduc_holdem_v4``).

The same algorithm and options as the Python ``ISMCTS`` (multiple or single observer, Smooth UCT,
``search_from="here"`` or ``"start"`` with the same fallback, tree reuse, budgets, final-move
rules, the same ``SearchResult``: ``ismcts_base.InformationSetSearch``, shared with hold'em's
``HoldemISMCTS``), with the rules read from the cores' tables (``card_tables``) and the
simulations in one compiled loop (``ismcts_kernel``): tens of times
the Python search's simulations per second. Its random numbers are its own (same seed, same
result within this backend, not across backends). ``planner.choice.local_searcher`` picks it
for these games where ``SearchConfig.backend`` allows (``"auto"``, ``"numba"``) and numba is
installed; every other hidden-information game runs the Python ``ISMCTS``.

One addition of its own: ``search_from="auto"`` where it plays from the start on a game of at
most ``AUTO_MATCHING_KEYS`` keys (Kuhn and Leduc poker) plays regret-matching self-play instead
of Smooth UCT (regret matching plus with sampled values corrected by baselines per history,
regrets weighted by the opponent's sigma / q, linear averaging; see ``ismcts_kernel``), and the
policy it returns (``SearchResult.improved_policy``, which ``SearchResult.policy`` gives, and
``stored_policy``) is its average strategy.

The search reads the true state only through the player to move's own card, the public card and
the public betting node: the opponent's card never reaches the kernel.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

import numpy as np

from mcts_agents.compiled.card_tables import CardTables, card_tables, root_of, supports
from mcts_agents.compiled.ismcts_base import CHUNK, InformationSetSearch, unsupported_by
from mcts_agents.envs.games.kuhn_poker import KuhnPoker
from mcts_agents.search.config import SearchConfig

__all__ = ["CHUNK", "CompiledISMCTS", "unsupported", "warm_up"]

#: ``search_from="auto"``: Smooth UCT self-play from the start with these settings (each only
#: where the config leaves ``smooth`` at None or ``c`` at its default): the floor of the UCB
#: probability (gamma), the exploration constant and the schedule's decay (d in
#: ``eta = max(gamma, 0.9 / (1 + d sqrt(N)))``). Measured on Leduc in ``docs/benchmarks.md``.
AUTO_SMOOTH = 0.1
AUTO_C = 0.8
AUTO_D = 0.003
#: ``search_from="auto"`` on Leduc: self-play from the start needs this budget to beat a search
#: from here (measured: 1.16 against 0.56 at 10k simulations, 0.47 against 0.45 at 100k, 0.19 at
#: 1M); a time limit of ``AUTO_LEAST_SECONDS`` is about that many simulations.
AUTO_LEAST = 100_000
AUTO_LEAST_SECONDS = 0.025
#: ``search_from="auto"`` on a game of at most this many information-set keys (Kuhn poker: 704;
#: Leduc: 18,032, rlcard's 5,824) plays regret-matching self-play from the start instead of
#: Smooth UCT (its history baselines take the cards + 1 times the key space): each
#: simulation one sampled game that updates regrets at the information sets it visits with
#: sampled values corrected by baselines, the average strategy read as the policy
#: (``docs/benchmarks.md`` run 25: Kuhn 0.028 -> 0.009 at 10k simulations, 0.065 -> 0.035 at
#: 1k, 0.003 -> 0.0008 at 1M, equal at 300; Leduc 0.088 -> 0.036 with 1 s a decision).
AUTO_MATCHING_KEYS = 100_000
#: its exploration (the share of uniform play mixed into the regret-matching strategy) and its
#: sampled values (``ismcts_core.Options``): corrected by baselines per history, regret matching
#: plus, linear averaging, regrets weighted by the opponent's sigma / q
MATCH_EXPLORE = 0.2
MATCH_SETTINGS = {"estimate": 2, "plus": True, "linear": True, "history_baselines": True,
                  "opponent_weighted": True}  # fmt: skip
DEFAULT_C = SearchConfig().c


def unsupported(game: Any, config: SearchConfig) -> str | None:
    """Why the compiled ISMCTS cannot run this search (a sentence), or ``None`` if it can."""
    return unsupported_by(game, config, supports, CompiledISMCTS.NAME)


class CompiledISMCTS(InformationSetSearch):
    """Compiled Information Set MCTS over Kuhn (two players) or Leduc poker; a ``Searcher``
    built as ``InformationSetSearch`` (``game``, ``budget``, ``config``, ``seed``)."""

    NAME = "the compiled ISMCTS"
    unsupported = staticmethod(unsupported)

    def _setup(self, game: Any) -> None:
        from mcts_agents.compiled import ismcts_core, ismcts_kernel

        self.auto = self.config.search_from == "auto"
        #: ``search_from="auto"`` plays from the start at this budget or more (Kuhn: any)
        self._least = (0, 0.0) if isinstance(game, KuhnPoker) else (AUTO_LEAST, AUTO_LEAST_SECONDS)
        self._tables: CardTables = card_tables(game)
        t = self._tables
        actions = t.child.shape[1]
        self._tree = ismcts_core.new_tree(np.zeros(t.keys, np.int8), actions, self._meta)
        #: regret matching's tables, allocated only where ``search_from="auto"`` can use it
        self._small = t.keys <= AUTO_MATCHING_KEYS
        self._regrets = ismcts_kernel.new_regrets(t.keys if self._small else 1, actions, t.cards)
        self._eta, self._decay = ismcts_core.SMOOTH_ETA, ismcts_core.SMOOTH_D
        self._settings: dict[str, Any] = {}
        self._matching = False
        self._resolve()

    def _load(self) -> Any:
        from mcts_agents.compiled import ismcts_kernel

        ismcts_kernel.warm_up()
        return ismcts_kernel

    def _resolve(self) -> None:
        """Where this search starts and its Smooth UCT settings. ``search_from="auto"``: from
        the start with the tuned schedule when the budget allows enough self-play (a budget of
        ``AUTO_LEAST`` simulations or ``AUTO_LEAST_SECONDS``; any in Kuhn poker), else from
        here with the config's settings; on a small game (``AUTO_MATCHING_KEYS``) regret
        matching instead of Smooth UCT. The table is cleared when that changes."""
        config, budget = self.config, self.budget
        start = config.search_from == "start"
        if self.auto:
            least, seconds = self._least
            if budget.iterations is not None:
                start = budget.iterations >= least
            else:
                start = budget.time_limit is None or budget.time_limit >= seconds
        matching = self.auto and start and self._small and not self.single_observer
        if (start != self.from_start or matching != self._matching) and self.table_size():
            self._clear()
        self.from_start, self._matching = start, matching
        smooth = -1.0 if config.smooth is None else float(config.smooth)
        c, decay = config.c, self._decay
        if self.auto and start:  # Smooth UCT's schedule tuned on Leduc (docs/benchmarks.md)
            smooth = AUTO_SMOOTH if config.smooth is None else smooth
            c = AUTO_C if config.c == DEFAULT_C else c
            decay = AUTO_D
        t = self._tables
        self._settings = {"c": c, "smooth": smooth, "low": t.low, "high": t.high,
                          "eta": self._eta, "decay": decay, "explore": MATCH_EXPLORE}  # fmt: skip

    # ------------------------------------------------------------------ the node table
    def _clear_table(self) -> None:
        for array in (*self._tree[:-1], *self._regrets):
            array.fill(0)

    def table_keys(self) -> list[Hashable]:
        """Their keys, as ints (see ``card_tables``)."""
        return [int(k) for k in np.flatnonzero(self._tree.stored)]

    def _slot(self, key: int) -> int:
        return key if self._tree.stored[key] else -1

    def _store(self, key: int) -> None:
        self._tree.stored[key] = 1

    def _locate(self, state: Any, player: int) -> tuple[int, tuple[Any, ...]]:
        node, own, public = root_of(self._tables, state, player)
        w = self._tables.cards + 1
        nodes = len(self._tables.kind)
        key = (((player * 2 + player) * nodes + node) * w + own + 1) * w + public + 1
        return key, (node, own, public)

    def _open(self, start: float, player: int) -> None:
        from mcts_agents.compiled.ismcts_core import options

        self._options = options(
            **self._settings, from_start=self.from_start, single=self.single_observer,
            player=player, max_nodes=self.budget.max_nodes or 0, matching=self._matching,
            **(MATCH_SETTINGS if self._matching else {}),
        )  # fmt: skip

    def _simulate(self, n: int) -> int:
        node, own, public = self._root
        return int(self._kernel.simulate(n, self._tables, self._tree, self._regrets,
                                         self._options, node, own, public, self._word))  # fmt: skip

    def _strategy(self, slot: int, legal: list[int]) -> list[float] | None:
        """After regret-matching self-play: the average strategy."""
        if not self._matching:
            return None
        return [float(self._regrets.average[slot, a]) for a in legal]


def warm_up() -> None:
    """Compile (or load from numba's cache) the kernel."""
    from mcts_agents.compiled import ismcts_kernel

    ismcts_kernel.warm_up()
