"""``SearchResult``: what one search found, to inspect, print or serialise."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

#: A proven result for the player concerned: the best the game can pay, the worst, a tie, or an
#: exact value in between (see ``searcher.proven_label``).
Proven = Literal["win", "loss", "draw", "exact"]


@dataclass(frozen=True, slots=True)
class ChildStats:
    """Statistics of one root action.

    Attributes:
        action: the action (an int of the env's action space).
        visits: simulations through this action.
        value: mean return for the player to move, in [-1, 1] (exact when proven).
        prior: the prior used by PUCT (uniform unless an evaluator gave one), else ``None``.
        proven: ``"win"``, ``"loss"``, ``"draw"`` or ``"exact"`` for the player to move once
            proven (``value`` is then exact), else ``None``.
    """

    action: int
    visits: int
    value: float
    prior: float | None
    proven: Proven | None


@dataclass(frozen=True, slots=True)
class SearchResult:
    """The outcome of one search from the env's current position.

    Attributes:
        best_action: the action the agent plays.
        iterations: simulations run.
        elapsed: wall-clock seconds.
        nodes: entries in the node table after the search.
        reused_nodes: entries carried over from the previous move (after pruning).
        pruned_nodes: entries dropped because they could no longer occur.
        children: per root action, sorted by visits (most first).
        principal_variation: the expected line of play from the root (best action first).
        root_value: the mover's expected return, in [-1, 1].
        proven: the root's proven result for the mover, if the solver proved it.
        to_play: index of the player to move at the root.
        extra: what else the searcher reports (``backend``, ...). Where the returns' range was
            not the game's own, ``return_range`` (``(low, high)``, mapped onto the values'
            [-1, 1]) and ``return_range_source``: ``"option"`` (``SearchConfig.return_range``)
            or ``"learned"`` (from the returns seen, mapped onto [-0.9, 0.9]: no return is ever
            a win or a loss).
    """

    best_action: int
    iterations: int
    elapsed: float
    nodes: int
    reused_nodes: int
    pruned_nodes: int
    children: tuple[ChildStats, ...]
    principal_variation: tuple[int, ...]
    root_value: float
    proven: Proven | None = None
    to_play: int = 0
    extra: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable dict (plain ints, floats, strings, lists)."""
        data = asdict(self)
        data["children"] = [asdict(c) for c in self.children]
        data["principal_variation"] = list(self.principal_variation)
        data["policy"] = {str(a): p for a, p in self.policy.items()}  # JSON keys are strings
        return data

    def child(self, action: int) -> ChildStats:
        """Statistics of ``action`` at the root (``KeyError`` if it was never expanded)."""
        for stats in self.children:
            if stats.action == action:
                return stats
        raise KeyError(f"action {action} has no statistics; expanded: {self.actions}")

    @property
    def actions(self) -> list[int]:
        return [c.action for c in self.children]

    @property
    def policy(self) -> dict[int, float]:
        """Normalised root visits per action (all zero-visit actions get 0; a uniform policy
        when nothing was visited): the search's mixed strategy at the root."""
        total = sum(c.visits for c in self.children)
        if not total:
            return {c.action: 1.0 / len(self.children) for c in self.children}
        return {c.action: c.visits / total for c in self.children}

    def __str__(self) -> str:
        rate = self.iterations / self.elapsed if self.elapsed > 0 else float("inf")
        lines = [
            f"best action {self.best_action}  value {self.root_value:+.3f}"
            + (f"  proven {self.proven}" if self.proven else ""),
            f"{self.iterations} iterations in {self.elapsed:.3f}s ({rate:,.0f}/s), "
            f"{self.nodes} nodes ({self.reused_nodes} reused, {self.pruned_nodes} pruned)",
            f"{'action':>8} {'visits':>8} {'value':>7} {'prior':>6} proven",
        ]
        for c in self.children:
            prior = f"{c.prior:.3f}" if c.prior is not None else "-"
            lines.append(
                f"{c.action:>8} {c.visits:>8} {c.value:>+7.3f} {prior:>6} {c.proven or ''}"
            )
        lines.append("pv: " + " ".join(str(a) for a in self.principal_variation))
        return "\n".join(lines)
