"""``make_searcher`` and ``backends.local_searcher``: which searcher plays which game."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from mcts_agents import Budget, SearchConfig, make_searcher
from mcts_agents.compiled.searcher import CompiledSearch
from mcts_agents.envs.games.connect_four import ConnectFour
from mcts_agents.envs.games.mnk import MNK
from mcts_agents.envs.games.nim import Nim
from mcts_agents.envs.games.othello import Othello
from mcts_agents.envs.games.pig import Pig
from mcts_agents.envs.games.ultimate_tic_tac_toe import UltimateTicTacToe
from mcts_agents.errors import InvalidOptionError
from mcts_agents.planner import RootParallelSearch
from mcts_agents.search import MCTS, Searcher

BUDGET = Budget(iterations=50)


def test_auto_picks_the_kernel_where_one_is_registered_and_python_elsewhere() -> None:
    assert isinstance(make_searcher(ConnectFour(), BUDGET), CompiledSearch)
    assert isinstance(make_searcher(MNK(3, 3, 3), BUDGET), CompiledSearch)
    assert isinstance(make_searcher(MNK(4, 4, 3, num_players=3), BUDGET), CompiledSearch)
    assert type(make_searcher(MNK(17, 16, 5), BUDGET)) is MCTS  # 272 cells: over 256
    assert type(make_searcher(Pig(), BUDGET)) is MCTS
    assert isinstance(make_searcher(ConnectFour(k=3), BUDGET), CompiledSearch)  # shared kernel
    assert type(make_searcher(ConnectFour(9, 7), BUDGET)) is MCTS  # 9 x 8 bits: over 62
    python = SearchConfig(backend="python")
    assert type(make_searcher(ConnectFour(), BUDGET, python)) is MCTS
    puct = SearchConfig(selection="puct")  # the kernel implements UCB1 only
    assert type(make_searcher(ConnectFour(), BUDGET, puct)) is MCTS


def test_backend_numba_says_why_it_cannot_run() -> None:
    numba = SearchConfig(backend="numba")
    with pytest.raises(InvalidOptionError, match="no compiled kernel for Pig"):
        make_searcher(Pig(), BUDGET, numba)
    with pytest.raises(InvalidOptionError, match="m,n,k on up to 256 cells, got 17x16"):
        make_searcher(MNK(17, 16, 5), BUDGET, numba)
    with pytest.raises(InvalidOptionError, match="needs selection='ucb1', got 'puct'"):
        make_searcher(ConnectFour(), BUDGET, SearchConfig(backend="numba", selection="puct"))
    with pytest.raises(InvalidOptionError, match=r"make_searcher"):
        MCTS(BUDGET, numba)  # the Python search is not a chooser


class Level:
    """A batch evaluator: uniform priors, every position level."""

    def evaluate_batch(self, observations: np.ndarray, legal_masks: np.ndarray) -> Any:
        return np.ones(legal_masks.shape), np.zeros(len(observations))


def level(game: Any, state: Any) -> Any:
    return (0.0,) * game.num_players, None


@pytest.mark.parametrize("evaluator", [Level(), level], ids=["batch", "position"])
def test_an_evaluator_runs_in_the_python_search(evaluator: Any) -> None:
    """The kernels run playouts only: an evaluator sends ``"auto"`` to ``MCTS`` and is refused
    by ``"numba"`` whatever the game, before any kernel is asked."""
    for game in (ConnectFour(), MNK(3, 3, 3)):  # games the kernels play
        config = SearchConfig(evaluator=evaluator, selection="puct")
        assert type(make_searcher(game, BUDGET, config)) is MCTS
        parallel = make_searcher(game, BUDGET, config, workers=2)
        assert isinstance(parallel, RootParallelSearch) and type(parallel.local) is MCTS
        numba = SearchConfig(evaluator=evaluator, backend="numba")
        with pytest.raises(InvalidOptionError, match=r"backend='numba' takes no evaluator"):
            make_searcher(game, BUDGET, numba)
    game = ConnectFour()
    batched = make_searcher(game, BUDGET, SearchConfig(evaluator=Level(), batch_size=8))
    assert batched.search(game, game.initial_state()).iterations == BUDGET.iterations


def test_workers_give_root_parallelism_and_check_the_backend_at_once() -> None:
    searcher = make_searcher(ConnectFour(), BUDGET, workers=2)
    assert isinstance(searcher, RootParallelSearch) and not searcher.started
    assert isinstance(searcher.local, CompiledSearch)  # the search in this process
    with pytest.raises(InvalidOptionError, match="no compiled kernel for Pig"):
        make_searcher(Pig(), BUDGET, SearchConfig(backend="numba"), workers=2)
    with pytest.raises(InvalidOptionError, match="workers"):
        make_searcher(ConnectFour(), BUDGET, workers=0)


@pytest.mark.parametrize(
    "game",
    [ConnectFour(), MNK(3, 3, 3), UltimateTicTacToe(), Othello(6), Nim((3, 4, 5)), Pig()],
    ids=["c4-kernel", "mnk-kernel", "uttt-kernel", "othello-kernel", "nim-kernel", "python"],
)
def test_every_searcher_keeps_the_protocol(game: object) -> None:
    """Search, keep the table, reset it; same seed, same result."""
    searchers = [make_searcher(game, BUDGET, seed=7), make_searcher(game, BUDGET, seed=7)]  # type: ignore[arg-type]
    for searcher in searchers:
        assert isinstance(searcher, Searcher)
    state = game.initial_state()  # type: ignore[attr-defined]
    first, twin = (s.search(game, state) for s in searchers)  # type: ignore[arg-type]
    assert first.children == twin.children and first.iterations == 50
    searcher = searchers[0]
    assert searcher.table_size() == first.nodes == len(searcher.table_keys()) > 1
    assert game.key(state) in set(searcher.table_keys())  # type: ignore[attr-defined]
    searcher.reset(seed=7)
    assert searcher.table_size() == 0
    again = searcher.search(game, state)  # type: ignore[arg-type]
    assert again.reused_nodes == 0 and again.children == first.children
    searcher.close()
