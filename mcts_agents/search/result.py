"""``SearchResult``: what one search found, to inspect, print or serialise."""

from __future__ import annotations

import warnings
from dataclasses import asdict, dataclass, fields
from typing import Any, Literal

#: A proven result for the player concerned: the best the game can pay, the worst, a tie, or an
#: exact value in between (see ``searcher.proven_label``).
Proven = Literal["win", "loss", "draw", "exact"]
#: Where a search ran: the Python search, or a compiled (numba) kernel.
Backend = Literal["python", "numba"]
#: How a search of a hidden-information game treated what the player cannot see: Information
#: Set MCTS with one observer (the searcher) or one tree per player, or determinized PIMC.
Information = Literal["so_ismcts", "mo_ismcts", "pimc"]


@dataclass(frozen=True, slots=True)
class SubSearch:
    """One of the searches whose statistics a result merges: a worker process's search (root
    parallelism) or the search of one determinized world (PIMC).

    Attributes:
        iterations: simulations it ran.
        nodes: entries of its node table after the search.
        best_action: the action it would have played alone.
    """

    iterations: int
    nodes: int
    best_action: int


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
        backend: ``"numba"`` when a compiled kernel ran the search, else ``"python"``.
        playouts: ``"numba"`` when the Python search ran compiled playouts, else ``"python"``.
        mean_depth: a compiled search's mean simulation depth (``None`` for the Python search).
        stopped: the search was ended early by ``should_stop`` (``MCTSAgent.search``).
        information: for a hidden-information search, how it treated hidden state
            (``"so_ismcts"``, ``"mo_ismcts"``, ``"pimc"``); ``None`` for a search of the true
            state (perfect information, or ``information="oracle"``).
        search_from: ISMCTS only: ``"here"`` (a tree from the current information set) or
            ``"start"`` (self-play from the game's start); ``None`` otherwise.
        self_play_iterations: ISMCTS from the start that fell back to a search from here: the
            simulations the self-play tree ran before it (counted in ``iterations``).
        return_range: where the returns' range was not the game's own: ``(low, high)``, mapped
            onto the values' [-1, 1]; else ``None``.
        return_range_source: ``"option"`` (``SearchConfig.return_range``) or ``"learned"``
            (from the returns seen, mapped onto [-0.9, 0.9]: no return is ever a win or a loss);
            ``None`` when the game declares its range.
        workers: root parallelism: each worker's search (this process's first).
        worlds: PIMC: each determinized world's search.
        votes: PIMC: per action, the worlds whose best action it was.
        improved_policy: Gumbel search (``selection="gumbel"``): ``(action, probability)`` of
            its improved policy ``softmax(logits + sigma(completed q))`` per root action, which
            ``policy`` returns; ``()`` for the other searches.
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
    backend: Backend = "python"
    playouts: Backend = "python"
    mean_depth: float | None = None
    stopped: bool = False
    information: Information | None = None
    search_from: Literal["here", "start"] | None = None
    self_play_iterations: int = 0
    return_range: tuple[float, float] | None = None
    return_range_source: Literal["option", "learned"] | None = None
    workers: tuple[SubSearch, ...] = ()
    worlds: tuple[SubSearch, ...] = ()
    votes: tuple[tuple[int, int], ...] = ()
    improved_policy: tuple[tuple[int, float], ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable dict (plain ints, floats, strings, lists)."""
        data = asdict(self)
        data["children"] = [asdict(c) for c in self.children]
        data["principal_variation"] = list(self.principal_variation)
        data["workers"] = [asdict(w) for w in self.workers]
        data["worlds"] = [asdict(w) for w in self.worlds]
        data["votes"] = {str(a): n for a, n in self.votes}
        data["improved_policy"] = {str(a): p for a, p in self.improved_policy}
        data["return_range"] = None if self.return_range is None else list(self.return_range)
        data["policy"] = {str(a): p for a, p in self.policy.items()}  # JSON keys are strings
        return data

    def child(self, action: int) -> ChildStats:
        """Statistics of ``action`` at the root (``KeyError`` if it was never expanded)."""
        for stats in self.children:
            if stats.action == action:
                return stats
        raise KeyError(f"action {action} has no statistics; expanded: {self.actions}")

    @property
    def extra(self) -> dict[str, Any]:
        """Deprecated (0.2.0): the fields that replaced the open ``extra`` dict of 0.1.0, as
        that dict had them (only those that differ from their defaults). Read the fields."""
        warnings.warn(
            "SearchResult.extra is deprecated: read the typed fields (backend, mean_depth, "
            "stopped, information, return_range, workers, worlds, votes, ...)",
            DeprecationWarning,
            stacklevel=2,
        )
        data = {}
        for f in fields(self):
            if f.name in _EXTRA_FIELDS and getattr(self, f.name) != f.default:
                data[f.name] = getattr(self, f.name)
        return data

    @property
    def actions(self) -> list[int]:
        return [c.action for c in self.children]

    @property
    def policy(self) -> dict[int, float]:
        """Normalised root visits per action (all zero-visit actions get 0; a uniform policy
        when nothing was visited): the search's mixed strategy at the root. After a Gumbel
        search: its improved policy (``improved_policy``)."""
        if self.improved_policy:
            return dict(self.improved_policy)
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


#: The fields that 0.1.0 kept in the open ``extra`` dict.
_EXTRA_FIELDS = frozenset(
    {
        "backend",
        "playouts",
        "mean_depth",
        "stopped",
        "information",
        "search_from",
        "self_play_iterations",
        "return_range",
        "return_range_source",
        "workers",
        "worlds",
        "votes",
    }
)
