"""searcher.run_budget: when a search stops (the budget rules every searcher shares)."""

from __future__ import annotations

import json
import random
from typing import Any

import numpy as np
import pytest

from mcts_agents import Budget, SearchConfig, make_searcher
from mcts_agents.compiled.registry import numba_available
from mcts_agents.envs.games.mnk import MNK
from mcts_agents.search.searcher import (
    LABEL_LOSS,
    LABEL_NONE,
    LABEL_OTHER,
    LABEL_WIN,
    pick_child,
    pick_index,
)

#: Tic-tac-toe's positions reachable from the empty board, finished ones included (a known
#: count: 5,478).
TIC_TAC_TOE_POSITIONS = 5_478

BACKENDS = ["python"] + (["numba"] if numba_available() else [])


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_node_budget_ends_when_the_game_cannot_fill_it(backend: str) -> None:
    """Only ``max_nodes``, a table bigger than the game and no solver to prove the root: the
    search stops (it used to run forever) once ``max_nodes`` simulations add no node, with
    nearly all of the game's positions stored (UCB1 visits the last few rarely)."""
    game = MNK(3, 3, 3)
    config = SearchConfig(solver=False, backend=backend)
    searcher = make_searcher(game, Budget(max_nodes=20_000), config, seed=0)
    result = searcher.search(game, game.initial_state())
    assert 0.95 * TIC_TAC_TOE_POSITIONS < searcher.table_size() <= TIC_TAC_TOE_POSITIONS
    assert result.iterations >= 20_000 + searcher.table_size()


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_node_budget_that_fills_ends_full(backend: str) -> None:
    game = MNK(4, 4, 3)
    searcher = make_searcher(game, Budget(max_nodes=3_000), SearchConfig(backend=backend), 0)
    searcher.search(game, game.initial_state())
    assert searcher.table_size() == 3_000


def test_results_name_their_facts_in_typed_fields_and_extra_is_only_a_deprecated_view() -> None:
    """0.2.0 replaced the open ``extra`` dict by fields; ``extra`` still reads them, warning."""
    from mcts_agents.search.result import SearchResult, SubSearch

    result = SearchResult(
        best_action=1,
        iterations=10,
        elapsed=0.1,
        nodes=5,
        reused_nodes=0,
        pruned_nodes=0,
        children=(),
        principal_variation=(1,),
        root_value=0.0,
        information="pimc",
        worlds=(SubSearch(5, 3, 1), SubSearch(5, 2, 0)),
        votes=((0, 1), (1, 1)),
    )
    data = result.to_dict()
    assert data["worlds"] == [
        {"iterations": 5, "nodes": 3, "best_action": 1},
        {"iterations": 5, "nodes": 2, "best_action": 0},
    ]
    assert data["votes"] == {"0": 1, "1": 1} and data["backend"] == "python"
    json.dumps(data)  # serialisable as it is
    with pytest.warns(DeprecationWarning, match="typed fields"):
        extra = result.extra
    assert extra == {"information": "pimc", "worlds": result.worlds, "votes": result.votes}


def reference_pick(visits: list[int], values: list[float], labels: list[Any], rule: str) -> int:
    """The final-move rule as its docstring states it, with ``max`` (first of ties)."""
    indices = range(len(visits))
    wins = [i for i in indices if labels[i] == "win"]
    if wins:
        return max(wins, key=visits.__getitem__)
    candidates = [i for i in indices if labels[i] != "loss"] or list(indices)
    if rule == "value":
        pick = max(candidates, key=lambda i: (values[i], visits[i]))
    else:
        pick = max(candidates, key=lambda i: (visits[i], values[i]))
    proven = [i for i in candidates if labels[i] is not None]
    if proven:
        safest = max(proven, key=values.__getitem__)
        if values[safest] >= values[pick]:
            pick = safest
    return pick


def test_the_final_move_rule_is_one_function_the_compiled_searches_compile() -> None:
    """``pick_index`` (labels as codes) is ``pick_child``'s rule, in Python and compiled by numba
    (as ``compiled.core`` compiles it), on random statistics with ties and every label."""
    rng = random.Random(0)
    compiled = None
    if numba_available():
        from numba import njit

        compiled = njit(pick_index)
    codes = {None: LABEL_NONE, "win": LABEL_WIN, "loss": LABEL_LOSS, "draw": LABEL_OTHER}
    for _ in range(2_000):
        n = rng.randint(1, 6)
        visits = [rng.randint(0, 3) for _ in range(n)]
        values = [rng.choice([-1.0, -0.5, 0.0, 0.5, 1.0]) for _ in range(n)]
        labels = [rng.choice([None, None, "win", "loss", "draw"]) for _ in range(n)]
        for rule in ("visits", "value"):
            want = reference_pick(visits, values, labels, rule)
            assert pick_child(visits, values, labels, rule) == want
            if compiled is not None:
                args = (np.array(visits), np.array(values), np.array([codes[x] for x in labels]))
                assert compiled(*args, n, rule == "value") == want
    with pytest.raises(ValueError, match="at least one child"):
        pick_child([], [], [], "visits")
