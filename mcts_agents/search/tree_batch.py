"""Many Python searches that share a batch evaluator, in lockstep: one ``evaluate_batch`` call
a round for the leaves of all their trees.

Each tree is an ``MCTS`` with a batch evaluator, searched through ``MCTS.search_steps``: every
round, each tree whose budget is not spent selects its next batch of leaves (its own
``batch_size``, ``K``, told apart by virtual loss inside its own tree: ``leaf_batch``), the
leaves of every tree that shares one evaluator go to that evaluator in one call (one forward
pass), and each tree stores its rows' priors and backs up its paths; then the next round. A
tree whose budget is spent leaves the rounds; the others go on. A new root's evaluation is a
round of its own (one row a tree). Terminal leaves, proven ones and repeated positions are
backed up at once, transpositions evaluated once, as in a search on its own.

A tree's selections, its generator's draws and the rows it shows the evaluator are those of
its ``search`` on its own (virtual losses never cross trees), so each tree's ``SearchResult``
is the one its ``search`` gives, whatever ``K``, wherever the evaluator values a row the same
whatever else is in its batch (a network in eval mode on the CPU: ``TorchEvaluator``; a GPU's
kernels may round differently with the batch's size). A time limit would share its seconds
among the trees: such searches, and any that is not a batch evaluator's ``MCTS``, do not join
(``joins_lockstep``).
"""

from __future__ import annotations

from collections.abc import Generator, Sequence
from typing import Any, cast

import numpy as np

from mcts_agents.errors import InvalidOptionError
from mcts_agents.search.evaluators import check_batch, is_batch_evaluator
from mcts_agents.search.game import Game, State
from mcts_agents.search.leaf_batch import LeafBatch
from mcts_agents.search.mcts import MCTS
from mcts_agents.search.result import SearchResult
from mcts_agents.search.searcher import Searcher

__all__ = ["joins_lockstep", "search_lockstep"]


def joins_lockstep(searcher: Any) -> bool:
    """Whether ``searcher`` is searched in lockstep by ``search_lockstep``: the Python search
    (``MCTS``) over a batch evaluator, with no time limit."""
    return (
        isinstance(searcher, MCTS)
        and is_batch_evaluator(searcher.config.evaluator)
        and searcher.budget.time_limit is None
    )


def search_lockstep(
    searchers: Sequence[Searcher], games: Sequence[Game], states: Sequence[State]
) -> list[SearchResult]:
    """``searchers[i].search(games[i], states[i])`` for every ``i``, the trees in lockstep (see
    the module): one ``evaluate_batch`` call a round per evaluator they share.

    If a search or an evaluation fails, every search still running is closed (its virtual
    losses taken away, its table dropped, as ``search`` drops it) before the error goes on.

    Raises:
        InvalidOptionError: lists of different lengths, a searcher given twice (a tree searches
            one position at a time) or one that does not join (``joins_lockstep``).
    """
    trees = _checked(searchers, games, states)
    steps = [t.search_steps(g, state) for t, g, state in zip(trees, games, states, strict=True)]
    results: list[SearchResult | None] = [None] * len(steps)
    waiting: dict[int, LeafBatch] = {}
    try:
        for i in range(len(steps)):
            _advance(steps, i, waiting, results)
        while waiting:
            for group in _groups(waiting):
                evaluate_together(group)
            for i in list(waiting):
                _advance(steps, i, waiting, results)
    except BaseException:
        for i, found in enumerate(results):
            if found is None:
                steps[i].close()  # (a finished or failed generator: nothing)
        raise
    return results  # type: ignore[return-value]


def _checked(
    searchers: Sequence[Searcher], games: Sequence[Game], states: Sequence[State]
) -> list[MCTS]:
    if not len(searchers) == len(games) == len(states):
        raise InvalidOptionError(
            f"search_lockstep needs one searcher and one game per state; got {len(searchers)} "
            f"searchers, {len(games)} games and {len(states)} states"
        )
    seen: set[int] = set()
    for searcher in searchers:
        if not joins_lockstep(searcher):
            raise InvalidOptionError(
                f"search_lockstep searches MCTS over a batch evaluator with no time limit; got "
                f"{searcher!r}"
            )
        if id(searcher) in seen:
            raise InvalidOptionError(
                f"search_lockstep got the searcher {searcher!r} twice; a tree searches one "
                "position at a time"
            )
        seen.add(id(searcher))
    return cast("list[MCTS]", list(searchers))


def _advance(
    steps: list[Generator[LeafBatch, None, SearchResult]],
    i: int,
    waiting: dict[int, LeafBatch],
    results: list[SearchResult | None],
) -> None:
    """Tree ``i`` applies its evaluated batch (if any) and runs to its next batch or its end."""
    waiting.pop(i, None)
    try:
        waiting[i] = steps[i].send(None)
    except StopIteration as stop:
        results[i] = stop.value


def _groups(waiting: dict[int, LeafBatch]) -> list[list[LeafBatch]]:
    """The waiting batches by evaluator, in tree order (one call each)."""
    groups: dict[int, list[LeafBatch]] = {}
    for i in sorted(waiting):
        batch = waiting[i]
        groups.setdefault(id(batch.evaluator), []).append(batch)
    return list(groups.values())


def evaluate_together(batches: Sequence[LeafBatch]) -> int:
    """Evaluate the rows of ``batches`` (of one evaluator) in as few ``evaluate_batch`` calls
    as their shapes allow: one, unless games of different observations share the evaluator;
    each batch ``take`` s its rows. Returns the number of calls."""
    evaluator = batches[0].evaluator
    parts: dict[tuple[Any, ...], list[tuple[LeafBatch, np.ndarray, np.ndarray]]] = {}
    for batch in batches:
        observations, masks = batch.inputs()
        shape = (observations.shape[1:], observations.dtype.str, masks.shape[1])
        parts.setdefault(shape, []).append((batch, observations, masks))
    for part in parts.values():
        observations = np.concatenate([o for _, o, _ in part])
        masks = np.concatenate([m for _, _, m in part])
        output = evaluator.evaluate_batch(observations, masks)
        priors, values = check_batch(evaluator, output, masks)
        row = 0
        for batch, rows, _ in part:
            end = row + len(rows)
            batch.take(priors[row:end], values[row:end])
            row = end
    return len(parts)
