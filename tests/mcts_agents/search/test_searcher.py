"""searcher.run_budget: when a search stops (the budget rules every searcher shares)."""

from __future__ import annotations

import json

import pytest

from mcts_agents import Budget, SearchConfig, make_searcher
from mcts_agents.compiled.registry import numba_available
from mcts_agents.envs.games.mnk import MNK

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
