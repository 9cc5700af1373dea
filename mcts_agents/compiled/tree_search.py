"""The compiled search's answer, read from its tree, and the budget's chunks of core calls.

``TreeResults`` (``searcher.CompiledSearch``'s base) reads a ``tree.Tree`` in Python: a node's
expanded edges in the layout's order (blocks: ``first..first + nexp``, oldest first; lists:
the ``next`` chain, reversed), their statistics, the move of the final-move rule
(``search.searcher.pick_child``), the principal variation and the ``SearchResult`` (``_result``,
the one place that builds it, batched or not). ``next_chunk`` sizes the core calls of a search
under a time limit or a ``should_stop``.
"""

from __future__ import annotations

from typing import Any

from mcts_agents.compiled.common import META_DEPTH, META_NODES, UNKNOWN, outcome_returns
from mcts_agents.search.result import ChildStats, Proven, SearchResult
from mcts_agents.search.searcher import most_visited_is_best, pick_child, proven_label

__all__ = ["CHUNK_SECONDS", "NO_LIMIT", "STOP_CHUNK_SECONDS", "TreeResults", "next_chunk"]

NO_LIMIT = 1 << 62
CHUNK_SECONDS = 0.001  # under a time limit, kernel calls last about this long
STOP_CHUNK_SECONDS = 0.01  # with a should_stop (and no time limit), about this long


def next_chunk(chunk: int, done: bool, took: float, target: float) -> int:
    """The simulations of a searcher's next kernel call, so that calls last about ``target``
    seconds: twice as many after a call that ran its count (``done``) in under half of it, half
    as many after one that took over twice it."""
    if done and took < target / 2:
        return min(chunk * 2, 1 << 16)
    if took > target * 2:
        return max(chunk // 2, 8)
    return chunk


class TreeResults:
    """The answer of a search read from ``self.tree`` (a ``tree.Tree`` of ``self.game``, whose
    layout is ``self.blocks``, of ``self.players`` players, who alternate at every move where
    ``self.alternates`` (its tree has no ``player`` rows then), searched with ``self.config``)."""

    tree: Any
    blocks: bool
    players: int
    alternates: bool
    game: Any
    config: Any

    def _edges(self, node: int) -> list[int]:
        """``node``'s expanded edges, oldest first."""
        tree = self.tree
        first = int(tree.first[node])
        if self.blocks:
            return list(range(first, first + int(tree.nexp[node]))) if first >= 0 else []
        edges = []
        e = first
        following = tree.next
        while e >= 0:
            edges.append(e)
            e = int(following[e])
        edges.reverse()
        return edges

    def _untried(self, root: int, state: Any, expanded: list[int]) -> list[int]:
        """The root's counted moves without an edge (``[]`` before they are counted)."""
        if int(self.tree.nact[root]) < 0:  # the root's moves were not counted yet
            return []
        tried = {int(self.tree.action[e]) for e in expanded}
        return [a for a in self.game.legal_actions(state) if a not in tried]

    def _edge_stats(self, node: int) -> tuple[list[int], list[float], list[Proven | None]]:
        """Visits, values and proven labels (mover's view) of ``node``'s expanded edges."""
        visits: list[int] = []
        values: list[float] = []
        labels: list[Proven | None] = []
        tree = self.tree
        proven_col, player = tree.proven, tree.player
        players = self.players
        for e in self._edges(node):
            n = int(tree.edge_visits[e])
            child = int(tree.child[e])
            proven = int(proven_col[child])
            visits.append(n)
            if proven != UNKNOWN and players > 2:
                returns = outcome_returns(proven, players)
                mover = int(player[node])
                values.append(returns[mover])
                labels.append(proven_label(returns, mover))
            elif proven != UNKNOWN:
                same = not self.alternates and int(player[child]) == int(player[node])
                value = proven if same else -proven
                values.append(float(value))
                labels.append(proven_label((value, -value), 0))
            else:
                values.append(float(tree.value[e]) / n if n else 0.0)
                labels.append(None)
        return visits, values, labels

    def _robust_agrees(self, root: int) -> bool:
        visits, values, _ = self._edge_stats(root)
        return most_visited_is_best(visits, values)

    def _choose(self, node: int, rule: str) -> int:
        """The chosen edge of ``node``, by every searcher's rule (``searcher.pick_child``)."""
        visits, values, labels = self._edge_stats(node)
        return self._edges(node)[pick_child(visits, values, labels, rule)]

    def best_action(self, state: Any, root: int) -> int:
        """The move the final-move rule picks at ``root`` (any legal one before a simulation:
        a tiny time budget)."""
        if not self._edges(root):
            return int(self.game.legal_actions(state)[0])
        return int(self.tree.action[self._choose(root, self.config.final_move)])

    def _result(
        self, state: Any, root: int, iterations: int, elapsed: float, reused: int, pruned: int
    ) -> SearchResult:
        """The ``SearchResult`` of a search from ``root`` (batched or not)."""
        tree = self.tree
        expanded = self._edges(root)
        visits, values, labels = self._edge_stats(root)
        best_action = self.best_action(state, root)
        stats = [
            ChildStats(int(tree.action[e]), visits[i], values[i], None, labels[i])
            for i, e in enumerate(expanded)
        ]
        stats += [ChildStats(a, 0, 0.0, None, None) for a in self._untried(root, state, expanded)]
        stats.sort(key=lambda s: (-s.visits, s.action))
        proven = int(tree.proven[root])
        total = sum(visits)
        depth = int(tree.meta[META_DEPTH])
        player = self.game.to_play(state)
        returns: tuple[float, ...]
        if self.players > 2:
            returns = outcome_returns(proven, self.players) if proven != UNKNOWN else ()
        else:
            returns = (proven, -proven) if player == 0 else (-proven, proven)
        if proven != UNKNOWN:
            root_value = float(returns[player])
        else:
            root_value = sum(float(tree.value[e]) for e in expanded) / total if total else 0.0
        return SearchResult(
            best_action=best_action,
            iterations=iterations,
            elapsed=elapsed,
            nodes=int(tree.meta[META_NODES]),
            reused_nodes=reused,
            pruned_nodes=pruned,
            children=tuple(stats),
            principal_variation=tuple(self._principal_variation(root, best_action)),
            root_value=root_value,
            proven=proven_label(returns, player) if proven != UNKNOWN else None,
            to_play=player,
            backend="numba",
            mean_depth=depth / max(iterations, 1),
        )

    def _principal_variation(self, root: int, best_action: int, limit: int = 64) -> list[int]:
        action, child = self.tree.action, self.tree.child
        line = [best_action]
        edge = next((e for e in self._edges(root) if action[e] == best_action), None)
        node = int(child[edge]) if edge is not None else -1
        while node >= 0 and self._edges(node) and len(line) < limit:
            e = self._choose(node, "visits")
            line.append(int(action[e]))
            node = int(child[e])
        return line
