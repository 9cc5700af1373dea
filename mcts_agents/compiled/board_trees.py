"""The opponents' trees of N boards (``compiled.board_search``): each step's searches, one
compiled call over all the trees.

- ``search_trees``: for each tree, in parallel over the trees (a serial twin for small
  batches), the whole of ``CompiledSearch.search`` up to its move, through the core's own
  phases: ``core.begin`` (its seed set, its root found, re-rooted or added, the root key kept in
  the tree), ``core.search_tree`` (its iterations) and ``core.pick`` (the final-move rule); a
  tree whose arrays must grow is left to the caller, which grows it, runs the rest of its
  simulations (``compiled.batch.run_trees``) and picks its move (``pick_trees``);
- ``pick_trees``: each tree's move by the final-move rule;
- ``open_trees``: whether each tree's root is unproven.

The trees are ``compiled.batch``'s pool items ``(tree, options)``: each tree searches with its
own searcher's options.
"""

from __future__ import annotations

from typing import Any

from numba import literally, prange

from mcts_agents.compiled import core, entries
from mcts_agents.compiled.cache import njit
from mcts_agents.compiled.common import UNKNOWN

__all__ = ["open_trees", "pick_trees", "search_trees", "search_trees_serial"]


def _search_over_trees(name: str, parallel: bool) -> Any:
    """``CompiledSearch.search`` and ``best_action`` of tree ``slots_of[i]`` at board
    ``i = boards[j]`` (words ``words[i]``) for every ``j`` (game ``g``, two players): its seed
    ``seeds[j]`` (drawn from its searcher's own generator), its root into ``roots[j]``,
    ``want[j]`` simulations (its iterations, 0 when its root is proven) of which ``done[j]`` ran
    with the core's ``status[j]``, and its move into ``moves[j]`` (-1: no edge, or a tree to
    grow: ``status[j] >= GROW_NODES``). ``scratch``: four ``[len(boards) or more, size]`` rows
    of work space for the picks (edges, visits, values, labels). In parallel over the trees, or
    on one thread (small batches); one body, two compiled functions cached under their own
    ``name`` s. Returns how many trees must grow."""

    def search(g, items, slots_of, words, boards, seeds, roots, want, done, status, moves, scratch):
        literally(g)
        grown = 0
        edges, visits, values, labels = scratch
        for j in prange(len(boards)):
            i = boards[j]
            t, o = items[slots_of[i]]
            root = core.begin(g, t, o, words[i], seeds[j])[0]
            roots[j] = root
            want[j] = o.iterations if t.proven[root] == UNKNOWN else 0
            done[j] = 0
            status[j] = core.DONE
            if want[j] > 0:
                done[j], status[j] = core.search_tree(g, t, o, root, want[j])
            if status[j] >= core.GROW_NODES:
                moves[j] = -1
                grown += 1
            else:
                buf = (visits[j], values[j], labels[j])
                moves[j] = core.pick(g, t, root, o.by_value, edges[j], buf)
        return grown

    search.__name__ = search.__qualname__ = name
    return njit(cache=True, parallel=parallel)(search)


search_trees = _search_over_trees("search_trees", parallel=True)
search_trees_serial = _search_over_trees("search_trees_serial", parallel=False)


@njit(cache=True)
def pick_trees(g, items, trees, roots, scratch, moves):
    """``CompiledSearch.best_action`` (two players) at ``roots[j]`` of tree ``trees[j]`` (game
    ``g``) for every ``j``, into ``moves[j]`` (-1: no edge yet); ``scratch``: as
    ``search_trees``' (a row is enough)."""
    literally(g)
    edges, visits, values, labels = scratch
    for j in range(len(trees)):
        t, o = items[trees[j]]
        buf = (visits[0], values[0], labels[0])
        moves[j] = core.pick(g, t, roots[j], o.by_value, edges[0], buf)


@njit(cache=True)
def open_trees(items, trees, roots, out):
    """``out[j]``: whether the root of tree ``trees[j]`` is unproven."""
    for j in range(len(trees)):
        out[j] = items[trees[j]][0].proven[roots[j]] == UNKNOWN


# Compiled into this module's own cache: emptied with the core's when the sources change.
entries.check_sources("board_trees")
