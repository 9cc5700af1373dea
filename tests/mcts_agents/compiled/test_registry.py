"""The kernel registry: kernels found by game type (subclasses too), and new ones plugged in."""

from __future__ import annotations

from typing import Any

import pytest

from mcts_agents import Budget, SearchConfig, make_searcher
from mcts_agents.compiled import registry
from mcts_agents.compiled.searcher import CompiledSearch
from mcts_agents.envs.games.connect_four import ConnectFour
from mcts_agents.envs.games.nim import Nim
from mcts_agents.envs.games.pig import Pig
from mcts_agents.search import MCTS
from mcts_agents.search.config import Budget as BudgetType

BUDGET = Budget(iterations=20)


class WideConnectFour(ConnectFour):
    """A subclass: it has the same layout, so the compiled search plays it."""


class RecordingSearcher(MCTS):
    """Stands in for a compiled kernel of Nim (a plain ``MCTS`` that remembers its game)."""

    built: list[Any] = []

    def __init__(
        self, game: Any, budget: BudgetType, config: SearchConfig, seed: int | None = None
    ) -> None:
        super().__init__(budget, config, seed)
        RecordingSearcher.built.append(game)


def warm_up() -> None:
    """The registry calls its kernel modules' ``warm_up``; nothing to load here."""


def test_a_kernel_is_found_for_subclasses_of_its_game_type() -> None:
    assert registry.kernel_entry(WideConnectFour()) is registry.kernel_entry(ConnectFour())
    assert isinstance(make_searcher(WideConnectFour(8, 6), BUDGET), CompiledSearch)
    assert registry.kernel_entry(Pig()) is None  # compiled playouts only


def test_a_registered_kernel_is_chosen_and_its_checks_apply(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    entry = registry.KernelEntry(
        Nim,
        f"{__name__}:RecordingSearcher",
        lambda game: None if game.max_take == 3 else "only max_take == 3",
        {"solver": True},
    )
    monkeypatch.setitem(registry._KERNELS, Nim, entry)
    assert entry in registry.registered_kernels()
    game = Nim()
    searcher = make_searcher(game, BUDGET)
    assert isinstance(searcher, RecordingSearcher) and RecordingSearcher.built[-1] is game
    assert searcher.search(game, game.initial_state()).iterations == 20
    assert type(make_searcher(Nim(max_take=2), BUDGET)) is MCTS  # its check says no
    assert "only max_take == 3" in str(registry.unsupported(Nim(max_take=2), SearchConfig()))
    assert registry.unsupported(game, SearchConfig(solver=False)) == (
        "the compiled kernel needs solver=True, got False"
    )
    registry.warm_up()  # calls this module's warm_up too


def test_register_kernel_takes_only_entries() -> None:
    with pytest.raises(TypeError, match="KernelEntry"):
        registry.register_kernel((Nim, "x:y"))  # type: ignore[arg-type]
