"""An agent's search shown while it runs: the budget spent in slices on the kept tree.

``sliced_search`` runs an ``MCTSAgent``'s search of one position as several searches of the
same position with tree reuse: each continues the node table of the one before, so the root's
statistics grow as in one search and can be shown after every slice (visit shares, values, the
principal variation, the root value). An iteration budget is cut into at most ``SLICES`` equal
slices, decided by the count alone, so a seeded game plays the same moves however fast the
machine is (the Python search plays exactly the moves of one undivided search); a time budget
into slices of ``SLICE_SECONDS``. An agent without tree reuse (``reuse=False``), or whose
only limit is ``max_nodes``, searches once. The live env is only read, as by every search.
A search stops early when ``cancelled`` turns true (``MCTSAgent.search``'s ``should_stop``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from mcts_agents.agents.agent import MCTSAgent
from mcts_agents.search.config import Budget
from mcts_agents.search.result import SearchResult
from mcts_agents.web.svg import Heat

__all__ = ["SLICES", "SLICE_SECONDS", "SearchView", "search_view", "sliced_search"]

#: Most slices of an iteration budget, and the fewest simulations in one.
SLICES = 10
MIN_SLICE = 50
#: Seconds of one slice of a time budget.
SLICE_SECONDS = 0.1

#: ``report(result, iterations so far, seconds so far, final)`` after every slice.
Report = Callable[[SearchResult, int, float, bool], None]


def _slices(budget: Budget) -> list[Budget] | None:
    """The budgets of the slices of an iteration budget; ``None`` for a time budget."""
    total = budget.iterations
    if total is None:
        return None
    size = max(MIN_SLICE, math.ceil(total / SLICES))
    sizes = [size] * (total // size) + ([total % size] if total % size else [])
    return [Budget(iterations=n, max_nodes=budget.max_nodes) for n in sizes]


def sliced_search(
    agent: MCTSAgent, env: Any, report: Report, cancelled: Callable[[], bool]
) -> SearchResult | None:
    """Search ``env``'s position with ``agent``'s budget in slices, calling ``report`` after
    each; ``None`` if ``cancelled()`` turned true before the budget was spent (the page closed).
    ``cancelled`` is also each search's ``should_stop``: a closed page stops the search within
    a few simulations (a kernel call of about ten milliseconds), not at the end of its slice.

    The agent's searcher keeps its own budget: each slice runs under a budget of its own, put
    back afterwards. ``agent.last_result`` is the last slice's result, whose root statistics
    cover every slice.
    """
    budget = agent.budget
    agent.prepare(env)  # kernels load, workers start: not part of the first slice
    searcher = agent.searcher
    if (
        searcher is None
        or not agent.config.reuse
        or (budget.iterations is None and budget.time_limit is None)
    ):
        result = agent.search(env, should_stop=cancelled)
        if cancelled():
            return None
        report(result, result.iterations, result.elapsed, True)
        return result
    slices = _slices(budget)
    limit = float(budget.time_limit or 0.0)
    done, spent, index = 0, 0.0, 0
    try:
        while True:
            if slices is not None:
                searcher.budget = slices[index]
            else:
                seconds = max(1e-3, min(SLICE_SECONDS, limit - spent))
                searcher.budget = Budget(time_limit=seconds, max_nodes=budget.max_nodes)
            result = agent.search(env, should_stop=cancelled)
            if cancelled():  # the search stopped where it was, its budget unspent
                return None
            done += result.iterations
            spent += result.elapsed
            index += 1
            final = result.proven is not None or (
                index == len(slices) if slices is not None else spent >= limit - 1e-3
            )
            report(result, done, spent, final)
            if final:
                return result
    finally:
        searcher.budget = budget


@dataclass(frozen=True)
class SearchView:
    """One search as the page shows it (interim while ``final`` is false).

    Attributes:
        seat: the searching seat's index; ``agent``: its agent id; ``name``: its spec.
        ply: moves played before the searched position.
        final: the search is over (its move follows).
        iterations, elapsed: simulations and seconds so far (every slice).
        root_value: the mover's expected return in [-1, 1]; ``proven``: its proven result.
        best_action: the move the agent would play now.
        pv: the principal variation (actions) and ``pv_labels`` their names.
        heat: per legal move, its visit share and value (0 for a move not yet visited).
    """

    seat: int
    agent: str
    name: str
    ply: int
    final: bool
    iterations: int
    elapsed: float
    root_value: float
    proven: str | None
    best_action: int
    pv: tuple[int, ...]
    pv_labels: tuple[str, ...]
    heat: dict[int, Heat] = field(default_factory=dict)

    @property
    def rate(self) -> float:
        """Simulations per second."""
        return self.iterations / self.elapsed if self.elapsed > 0 else 0.0

    def to_json(self, label: Callable[[int], str], ply: int | None = None) -> dict[str, Any]:
        """JSON-ready: the numbers, and per move its label, share, value, visits and proof;
        ``current``: whether the search is of the position after ``ply`` moves (the one on
        show), not of an earlier one whose move has been played since."""
        moves = sorted(self.heat.items(), key=lambda item: -item[1].visits)
        return {
            "seat": self.seat,
            "agent": self.agent,
            "name": self.name,
            "ply": self.ply,
            "current": ply is None or self.ply == ply,
            "final": self.final,
            "iterations": self.iterations,
            "elapsed": round(self.elapsed, 4),
            "rate": round(self.rate, 1),
            "root_value": self.root_value,
            "proven": self.proven,
            "best_action": self.best_action,
            "best_label": label(self.best_action),
            "pv": list(self.pv),
            "pv_labels": list(self.pv_labels),
            "moves": [
                {
                    "action": action,
                    "label": label(action),
                    "share": stats.share,
                    "value": stats.value,
                    "visits": stats.visits,
                    "proven": stats.proven,
                }
                for action, stats in moves
            ],
        }


def search_view(
    result: SearchResult,
    iterations: int,
    elapsed: float,
    legal: Sequence[int],
    final: bool,
    who: tuple[int, str, str],
    ply: int,
    pv_labels: Sequence[str] = (),
) -> SearchView:
    """A ``SearchView`` of ``result`` (its root statistics), with ``iterations`` and
    ``elapsed`` over every slice; ``who`` is ``(seat, agent id, spec)``. Every ``legal`` move
    gets a place in the heat map, the shares of the visited ones summing to 1."""
    total = sum(child.visits for child in result.children)
    heat = {action: Heat(0.0, 0.0, 0) for action in legal}
    for child in result.children:
        share = child.visits / total if total else 0.0
        heat[child.action] = Heat(share, float(child.value), child.visits, child.proven)
    seat, agent, name = who
    return SearchView(
        seat=seat,
        agent=agent,
        name=name,
        ply=ply,
        final=final,
        iterations=iterations,
        elapsed=elapsed,
        root_value=float(result.root_value),
        proven=result.proven,
        best_action=int(result.best_action),
        pv=tuple(int(a) for a in result.principal_variation),
        pv_labels=tuple(pv_labels),
        heat=heat,
    )
