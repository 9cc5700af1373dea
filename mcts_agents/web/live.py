"""An agent's search shown while it runs: its progress reports, published as they come.

``live_search`` runs an agent's search of one position with ``on_progress``: the searcher
hands over its result so far (the root's visit shares, values, principal variation) about every
``PROGRESS_SECONDS`` (0.1 s), and once more when the search is over. The reports only read the
search: a seeded game plays the same moves as without a page watching. A search stops early
when ``cancelled`` turns true (the searcher's ``should_stop``: a closed page). The live env is
only read, as by every search.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from mcts_agents.search.result import SearchResult
from mcts_agents.search.searcher import PROGRESS_SECONDS
from mcts_agents.web.svg import Heat

__all__ = [
    "PROGRESS_SECONDS",
    "SearchView",
    "compile_note",
    "compiling_view",
    "live_search",
    "played_move",
    "prepare_watched",
    "pv_labels",
    "search_view",
]

#: ``report(result so far, final)``: after every progress report of a search, and at its end.
Report = Callable[[SearchResult, bool], None]


def live_search(
    agent: Any,
    env: Any,
    report: Report,
    cancelled: Callable[[], bool],
    seconds: float = math.inf,
) -> SearchResult | None:
    """Search ``env``'s position with ``agent`` (anything with ``search(env, should_stop=,
    on_progress=)``: ``MCTSAgent`` and its kinds), calling ``report(result, False)`` with each
    progress report and ``report(result, True)`` with the final result; ``None`` if
    ``cancelled()`` turned true first (the page closed: the search stops within a few
    simulations, a kernel call of about ten milliseconds). The search also stops after
    ``seconds``, whatever its budget says (the web server's ``--max-time``), and its move so
    far is played."""
    deadline = time.monotonic() + seconds

    def stop() -> bool:
        return cancelled() or time.monotonic() > deadline

    def progress(result: SearchResult) -> None:
        if not cancelled():
            report(result, False)

    result: SearchResult = agent.search(env, should_stop=stop, on_progress=progress)
    if cancelled():
        return None
    report(result, True)
    return result


@dataclass(frozen=True)
class SearchView:
    """One search as the page shows it (interim while ``final`` is false).

    Attributes:
        seat: the searching seat's index; ``agent``: its agent id; ``name``: its spec.
        ply: moves played before the searched position.
        final: the search is over (its move follows).
        iterations, elapsed: simulations and seconds so far.
        root_value: the mover's expected return in [-1, 1]; ``proven``: its proven result.
        best_action: the move the agent would play now.
        pv: the principal variation (actions) and ``pv_labels`` their names.
        heat: per legal move, its visit share and value (0 for a move not yet visited).
        compiling: before the first search, what the agent compiles (``compiling_view``).
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
    compiling: str | None = None

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
            "compiling": self.compiling,
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
    legal: Sequence[int],
    final: bool,
    who: tuple[int, str, str],
    ply: int,
    pv_labels: Sequence[str] = (),
) -> SearchView:
    """A ``SearchView`` of ``result`` (its root statistics so far); ``who`` is
    ``(seat, agent id, spec)``. Every ``legal`` move
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
        iterations=result.iterations,
        elapsed=result.elapsed,
        root_value=float(result.root_value),
        proven=result.proven,
        best_action=int(result.best_action),
        pv=tuple(int(a) for a in result.principal_variation),
        pv_labels=tuple(pv_labels),
        heat=heat,
    )


def pv_labels(game: Any, state: Any, pv: Sequence[int]) -> list[str]:
    """Names of the principal variation's moves from ``state`` of the rules core ``game``
    (``None``: ids only): followed in the core while the game has neither chance nor hidden
    information, else the first named and the rest as ids."""
    labels: list[str] = []
    for action in pv:
        if game is None or state is None:
            labels.append(str(action))
            continue
        try:
            labels.append(str(game.action_to_string(state, action)))
            if game.perfect_information and not game.has_chance and game.is_legal(state, action):
                state = game.next_state(state, action)
                state = None if game.is_terminal(state) else state
            else:
                state = None
        except Exception:  # a name is a courtesy
            labels.append(str(action))
            state = None
    return labels


def compile_note(player: Any, env: Any) -> str | None:
    """What the page says while ``player.prepare(env)`` compiles a kernel that numba's cache
    does not hold (``compiling the kernel for Go's tree search, once ...``); ``None`` where
    nothing is to compile (a cached kernel, the Python search, an agent without a search)."""
    config = getattr(player, "config", None)
    if config is None or getattr(player, "prepare", None) is None:
        return None
    try:
        from mcts_agents.adapters import game_from_env
        from mcts_agents.compiled.warm import kernel_for

        kernel = kernel_for(game_from_env(env)[0], config)
        if kernel is None or kernel.cached():
            return None
    except Exception:  # a note is a courtesy: the search itself says what is wrong
        return None
    return f"compiling the kernel for {kernel.title}, once (up to a minute)"


def compiling_view(who: tuple[int, str, str], ply: int, note: str) -> SearchView:
    """The page's search box while the agent ``who`` (``(seat, agent id, spec)``) compiles its
    kernel before its first search (``note``: ``compile_note``'s)."""
    seat, agent, name = who
    return SearchView(seat, agent, name, ply, False, 0, 0.0, 0.0, None, -1, (), (), {}, note)


def prepare_watched(
    player: Any,
    env: Any,
    who: tuple[int, str, str],
    ply: int,
    show: Callable[[SearchView | None], None],
) -> None:
    """``player.prepare(env)`` (its kernel compiled or loaded, its workers started) with
    ``show(compiling_view(...))`` before and ``show(None)`` after where a kernel compiles: the
    page says so instead of "no search yet" for the compile's tens of seconds."""
    note = compile_note(player, env)
    if note is not None:
        show(compiling_view(who, ply, note))
    player.prepare(env)
    if note is not None:
        show(None)


def played_move(player: Any, result: SearchResult) -> int:
    """The move ``player`` plays after its search ``result``: its own choice where it has one
    (``MCTSAgent.choose``: a draw from the search's policy where cards are hidden), else the
    result's best action."""
    choose = getattr(player, "choose", None)
    return int(choose(result) if callable(choose) else result.best_action)
