"""The ``Searcher`` protocol and the pieces every searcher shares: budgets, final move, proofs.

A searcher searches a position of a ``Game`` and returns a ``SearchResult``; it may keep its
node table from one search to the next (tree reuse) until ``reset``. Implementations:

- ``mcts_agents.search.mcts.MCTS``: the Python search (any game);
- ``mcts_agents.compiled``: compiled kernels, registered per game type;
- ``mcts_agents.planner.parallel.RootParallelSearch``: independent searches in several processes,
  merged at the root.

``mcts_agents.planner.factory.make_searcher`` chooses one for a game and a ``SearchConfig``. This
module imports nothing search-specific, so every searcher can import it without a cycle."""

from __future__ import annotations

from collections.abc import Callable, Generator, Hashable, Sequence
from time import perf_counter
from typing import Protocol, runtime_checkable

from mcts_agents.errors import InvalidOptionError
from mcts_agents.search.config import Budget, SearchConfig
from mcts_agents.search.game import Game, State
from mcts_agents.search.result import Proven, SearchResult

__all__ = [
    "LOSS",
    "PROGRESS_SECONDS",
    "ROBUST_MAX_EXTENSION",
    "WIN",
    "Progress",
    "Searcher",
    "StopCheck",
    "budget_steps",
    "check_room",
    "game_identity",
    "game_name",
    "most_visited_is_best",
    "pick_child",
    "pick_index",
    "proven_label",
    "reporter",
    "run_budget",
    "split_iterations",
]

WIN = 1.0  # the best return a player can get; a proven return of WIN ends the search of a node
LOSS = -1.0
ROBUST_MAX_EXTENSION = 0.5  # robust-max may search up to 50% longer to agree

#: A searcher's ``should_stop``: called between simulations (between kernel calls for the
#: compiled searchers); once it returns true the search ends with what it has, whatever its
#: budget. Set from another thread to stop a search early (a page closed).
StopCheck = Callable[[], bool]
#: A searcher's ``on_progress``: called with the search's result so far (its root statistics,
#: iterations and seconds up to now) about every ``PROGRESS_SECONDS`` while a search runs. It
#: only reads: a search reports the same moves and statistics with or without it. The final
#: result is the one ``search`` returns (no last call).
Progress = Callable[[SearchResult], None]
PROGRESS_SECONDS = 0.1


@runtime_checkable
class Searcher(Protocol):
    """Searches positions and may keep its tree between searches.

    Attributes:
        budget: the budget of each search; callers may replace it between searches.
        config: how the search plays (fixed for the searcher's life).

    Attributes set by callers between searches (``None`` by default; ``MCTSAgent.search`` sets
    and clears them around one search):
        should_stop: a ``StopCheck``; a search that finds it true ends early, its result
            covering the simulations it ran (``SearchResult.stopped`` is set by the agent).
        on_progress: a ``Progress`` callback, given the result so far about every
            ``PROGRESS_SECONDS`` (the web page's live heat map; a progress bar). Searches made
            of other searches (PIMC's worlds, root parallelism's workers) report only their
            first part's progress.
    """

    budget: Budget
    config: SearchConfig
    should_stop: StopCheck | None
    on_progress: Progress | None

    def prepare(self, game: Game) -> None:
        """Make the first search of ``game`` start at once: load or compile its kernel, start
        worker processes (``MCTSAgent.prepare``, which ``play_game`` calls before a game)."""
        ...

    def search(self, game: Game, state: State) -> SearchResult:
        """Search from ``state`` (not terminal) and return the result; ``state`` is untouched."""
        ...

    def reset(self, seed: int | None = None) -> None:
        """Forget the tree (between games); reseed the search's random numbers if given."""
        ...

    def table_size(self) -> int:
        """Entries in the node table of the last search (the local one for several processes)."""
        ...

    def table_keys(self) -> list[Hashable]:
        """The positions stored in that node table, as the game's keys."""
        ...

    def close(self) -> None:
        """Release processes or other resources (a later search may start them again)."""
        ...


def game_identity(game: Game) -> Hashable:
    """What makes two games the same for a searcher: the rules' ``spec`` if they have one (our
    rules cores), else the game's type (adapters build a new game object for every move)."""
    spec = getattr(game, "spec", None)
    return spec if spec is not None else type(game)


def game_name(game: Game) -> str:
    """``game`` for a message: its ``repr`` where that is short and says something (our cores,
    the adapters' games name their env), else its type's name."""
    text = repr(game)
    return text if len(text) <= 80 and not text.startswith("<") else type(game).__name__


def check_room(budget: Budget, actions: int) -> None:
    """``InvalidOptionError`` if ``budget.max_nodes`` cannot hold a root with ``actions`` children.

    A smaller table would evaluate every simulation without storing it, a search in name only.
    """
    need = 1 + actions
    if budget.max_nodes is not None and budget.max_nodes < need:
        raise InvalidOptionError(
            f"max_nodes={budget.max_nodes} cannot hold the root and its {actions} children; "
            f"give max_nodes >= {need} (or None)"
        )


def run_budget(
    budget: Budget,
    final_move: str,
    start: float,
    simulate: Callable[[int | None], int],
    solved: Callable[[], bool],
    robust_agrees: Callable[[], bool],
    table_size: Callable[[], int],
    should_stop: StopCheck | None = None,
    progress: Callable[[int], None] | None = None,
) -> int:
    """Call ``simulate`` until the budget is spent or the root is ``solved``; return the count.

    ``simulate(n)`` runs at least one and at most ``n`` simulations (``None``: no cap) and
    returns how many it ran. With no iteration or time limit a full table (``max_nodes``) ends
    the search, and so do ``max_nodes`` simulations in a row that add no node (a game whose
    positions all fit in the table, searched without the solver, would never fill it);
    otherwise a full table only stops the table's growth. Under ``robust_max`` a spent budget
    is extended once by 50% while the most visited child is not the best valued one.
    ``should_stop``, checked before every call of ``simulate``, ends the search early;
    ``progress(iterations)`` is called after a call of ``simulate`` once ``PROGRESS_SECONDS``
    have passed since the start or the last call. The loop itself is ``budget_steps``.
    """
    steps = budget_steps(
        budget, final_move, start, solved, robust_agrees, table_size, should_stop, progress
    )
    try:
        cap = next(steps)
        while True:
            cap = steps.send(simulate(cap))
    except StopIteration as stop:
        return int(stop.value)


def budget_steps(
    budget: Budget,
    final_move: str,
    start: float,
    solved: Callable[[], bool],
    robust_agrees: Callable[[], bool],
    table_size: Callable[[], int],
    should_stop: StopCheck | None = None,
    progress: Callable[[int], None] | None = None,
) -> Generator[int | None, int, int]:
    """``run_budget``'s loop as a generator, for a search that runs its simulations elsewhere
    (``search.tree_batch``: many trees in lockstep): it yields the cap of the next call of
    ``simulate`` (``None``: no cap), is sent how many simulations that call ran, and returns
    the count when the budget is spent (``StopIteration.value``)."""
    limit = budget.iterations
    deadline = start + budget.time_limit if budget.time_limit is not None else None
    full_table_stops = limit is None and deadline is None
    max_nodes = budget.max_nodes or 0  # set when full_table_stops (Budget needs one limit)
    iterations = 0
    extended = False
    idle = 0  # only max_nodes: simulations since the table last grew
    report_at = start + PROGRESS_SECONDS
    while not solved():
        if progress is not None and perf_counter() >= report_at:
            progress(iterations)
            report_at = perf_counter() + PROGRESS_SECONDS
        if should_stop is not None and should_stop():
            break
        spent = (
            (limit is not None and iterations >= limit)
            or (deadline is not None and perf_counter() >= deadline)
            or (full_table_stops and (idle >= max_nodes or table_size() >= max_nodes))
        )
        if spent:
            if final_move != "robust_max" or robust_agrees():
                break
            if extended or full_table_stops:
                break
            extended = True  # robust-max: search up to 50% longer for an agreeing child
            if limit is not None:
                limit += int(limit * ROBUST_MAX_EXTENSION) + 1
            if deadline is not None:
                deadline += (deadline - start) * ROBUST_MAX_EXTENSION
            continue
        if full_table_stops:
            before = table_size()
            done = yield max_nodes - idle
            iterations += done
            idle = idle + done if table_size() == before else 0
            continue
        iterations += yield None if limit is None else limit - iterations
    return iterations


def reporter(
    on_progress: Progress | None, result_of: Callable[[int], SearchResult]
) -> Callable[[int], None] | None:
    """``run_budget``'s ``progress`` for a searcher's ``on_progress`` (``None`` without one):
    ``result_of(n)`` is the searcher's result so far, after ``n`` simulations."""
    if on_progress is None:
        return None
    return lambda n: on_progress(result_of(n))


def split_iterations(total: int, workers: int) -> list[int]:
    """Share ``total`` simulations among ``workers`` as evenly as possible (first ones get more)."""
    share, extra = divmod(total, workers)
    return [share + (1 if i < extra else 0) for i in range(workers)]


def most_visited_is_best(visits: Sequence[int], values: Sequence[float]) -> bool:
    """``robust_max``'s test: the most visited child is also the best valued (first of ties)."""
    if not visits:
        return True
    indices = range(len(visits))
    return max(indices, key=visits.__getitem__) == max(indices, key=values.__getitem__)


def proven_label(returns: Sequence[float], player: int) -> Proven:
    """The label of exact (normalised) ``returns`` for ``player``: ``"win"`` at the best the
    game can pay, ``"loss"`` at the worst, ``"draw"`` when every player gets the same, else
    ``"exact"`` (a proven value in between: a folded hand, an expectation over chance)."""
    value = returns[player]
    if value >= WIN:
        return "win"
    if value <= LOSS:
        return "loss"
    return "draw" if max(returns) == min(returns) else "exact"


#: ``pick_index``'s label codes: no proof, a proven win, a proven loss, another proven result.
LABEL_NONE, LABEL_WIN, LABEL_LOSS, LABEL_OTHER = 0, 1, 2, 3
_LABEL_CODES = {None: LABEL_NONE, "win": LABEL_WIN, "loss": LABEL_LOSS}


def pick_index(
    visits: Sequence[int], values: Sequence[float], labels: Sequence[int], n: int, by_value: bool
) -> int:
    """The final-move rule over children ``0..n-1`` (``labels``: ``LABEL_*`` codes); returns
    the chosen index (``pick_child``'s rule, see there).

    Plain arithmetic over indexable sequences, no Python objects: ``pick_child`` calls it on
    lists, and the compiled searches compile it (``njit(pick_index)``) over arrays, so the rule
    is written once. ``n == 0``: -1.
    """
    best = -1
    for i in range(n):  # a proven win at once: the most visited of them
        if labels[i] == LABEL_WIN and (best < 0 or visits[i] > visits[best]):
            best = i
    if best >= 0:
        return best
    some = False  # anything but a proven loss left
    for i in range(n):
        if labels[i] != LABEL_LOSS:
            some = True
    pick = -1
    for i in range(n):
        if some and labels[i] == LABEL_LOSS:
            continue
        if pick < 0:
            pick = i
            continue
        first, second = (values[i], visits[i]) if by_value else (visits[i], values[i])
        top, runner = (values[pick], visits[pick]) if by_value else (visits[pick], values[pick])
        if first > top or (first == top and second > runner):
            pick = i
    safest = -1  # an exact result beats an estimate that is no better
    for i in range(n):
        if (some and labels[i] == LABEL_LOSS) or labels[i] == LABEL_NONE:
            continue
        if safest < 0 or values[i] > values[safest]:
            safest = i
    if safest >= 0 and values[safest] >= values[pick]:
        pick = safest
    return pick


def pick_child(
    visits: Sequence[int],
    values: Sequence[float],
    labels: Sequence[Proven | None],
    rule: str = "visits",
) -> int:
    """The final-move rule over per-child statistics; returns the chosen index.

    A proven win is played at once (the most visited of them); proven losses are avoided
    while anything else is left; among the rest, most visits (``rule="value"``: highest
    value); a proven result beats an estimate that is no better. Ties go to the lower index.
    (``pick_index`` over the labels' codes.)
    """
    if not visits:
        raise ValueError("pick_child needs at least one child")
    codes = [_LABEL_CODES.get(label, LABEL_OTHER) for label in labels]
    return int(pick_index(visits, values, codes, len(visits), rule == "value"))
