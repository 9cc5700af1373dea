"""``mcts_agents.search.return_range``: a learned range widens and keeps the table's values meaning
the same returns; the ``return_range`` option is checked; returns that are not finite, or lie
outside a declared range, are errors naming the game."""

from __future__ import annotations

from typing import Any

import pytest

from mcts_agents.errors import InvalidOptionError, InvalidStateError
from mcts_agents.search import ISMCTS, MCTS, PIMC
from mcts_agents.search.config import Budget, SearchConfig
from mcts_agents.search.return_range import LEARNED_BOUND, ReturnScale
from mcts_agents.search.tree import Node


class Undeclared:
    """A game without a return range that asks for one to be learned (as ``EnvGame``)."""

    num_players = 1
    learn_return_range = True


def test_widening_a_learned_range_rescales_the_stored_values() -> None:
    scale = ReturnScale(Undeclared(), None)  # type: ignore[arg-type]
    table: list[Node] = []
    normalize = scale.normalizer(table)
    assert normalize is not None
    value = lambda r: normalize((r,))[0]  # noqa: E731
    assert value(1.0) == pytest.approx(LEARNED_BOUND) and value(-1.0) == -LEARNED_BOUND
    parent = Node(None, "parent", 0, [0, 1])
    leaf = Node(None, "leaf", -1, [], (value(1.0),), (value(1.0),))
    parent.children = [leaf, leaf]
    parent.edge_visits = [2, 1]
    parent.edge_value = [value(0.5) + value(-1.0), value(1.0)]
    parent.edge_value_sq = [value(0.5) ** 2 + value(-1.0) ** 2, value(1.0) ** 2]
    table.extend([parent, leaf])
    assert value(9.0) == pytest.approx(LEARNED_BOUND)  # widened to [-1, 9]: the top is 9 now
    assert scale.describe() == {"return_range": (-1.0, 9.0), "return_range_source": "learned"}
    assert parent.edge_value == pytest.approx([value(0.5) + value(-1.0), value(1.0)])
    assert parent.edge_value_sq == pytest.approx(
        [value(0.5) ** 2 + value(-1.0) ** 2, value(1.0) ** 2]
    )
    assert leaf.returns == leaf.proven == pytest.approx((value(1.0),))
    assert value(1.0) < 0.0 < value(5.0)  # 1 is below the middle of [-1, 9]


def test_a_declared_range_or_option_is_not_learned() -> None:
    class Declared(Undeclared):
        return_range = (0.0, 10.0)

    assert ReturnScale(Declared(), None).describe() == {}  # type: ignore[arg-type]
    option = ReturnScale(Undeclared(), (0.0, 4.0))  # type: ignore[arg-type]
    normalize = option.normalizer([])
    assert normalize is not None and normalize((4.0, 0.0)) == (1.0, -1.0)
    assert option.describe() == {"return_range": (0.0, 4.0), "return_range_source": "option"}


@pytest.mark.parametrize("bad", [(1, 1), (2, -2), (0, float("inf")), (0,), "0,1", (True, 2)])
def test_return_range_option_must_be_low_below_high(bad: object) -> None:
    with pytest.raises(InvalidOptionError, match=r"return_range must be None or \(low, high\)"):
        SearchConfig(return_range=bad)  # type: ignore[arg-type]
    assert SearchConfig(return_range=(-3, 5)).return_range == (-3.0, 5.0)


class OneMove:
    """Player 0 picks 0 or 1, and the game ends: move 1 pays ``pay`` to player 0 (and its
    negation to player 1), move 0 pays nothing. ``declared``: its ``return_range``, if any."""

    num_players = 2
    perfect_information = True  # ISMCTS searches it too (a state is its information set)

    def __init__(self, pay: float, declared: tuple[float, float] | None = None) -> None:
        self.pay = pay
        if declared is not None:
            self.return_range = declared

    def __repr__(self) -> str:
        return f"OneMove(pay={self.pay})"

    def to_play(self, state: int) -> int:
        return 0

    def legal_actions(self, state: int) -> list[int]:
        return [] if state >= 0 else [0, 1]

    def next_state(self, state: int, action: int) -> int:
        return action

    def is_terminal(self, state: int) -> bool:
        return state >= 0

    def returns(self, state: int) -> tuple[float, ...]:
        paid = self.pay if state == 1 else 0.0
        return (paid, -paid)

    def key(self, state: int) -> int:
        return state

    def information_set(self, state: int, player: int) -> int:
        return state

    def determinize(self, state: int, player: int, rng: object) -> int:
        return state

    def initial_state(self) -> int:
        return -1


def searchers() -> list[object]:
    budget, config = Budget(iterations=20), SearchConfig(information="mo_ismcts")
    return [MCTS(budget, SearchConfig(), 0), ISMCTS(budget, config, 0), PIMC(budget, config, 0)]


@pytest.mark.parametrize("searcher", searchers(), ids=["mcts", "ismcts", "pimc"])
@pytest.mark.parametrize("pay", [float("nan"), float("inf"), -float("inf")])
@pytest.mark.parametrize("declared", [None, (-1.0, 1.0), (-10.0, 10.0)])
def test_a_return_that_is_not_finite_is_an_error_naming_the_game(
    searcher: Any, pay: float, declared: tuple[float, float] | None
) -> None:
    """NaN paid to the winner was a proven "draw" worth nan; inf a win beyond any bound."""
    with pytest.raises(InvalidStateError, match=r"OneMove\(pay=.*\) paid .*finite number"):
        searcher.search(OneMove(pay, declared), -1)


def test_a_learned_range_refuses_a_return_that_is_not_finite() -> None:
    class Learned(OneMove):
        learn_return_range = True

    for pay in (float("nan"), float("inf")):
        with pytest.raises(InvalidStateError, match=r"OneMove\(pay=.*\) paid .*finite number"):
            MCTS(Budget(iterations=20), SearchConfig(), 0).search(Learned(pay), -1)
    assert MCTS(Budget(iterations=20), SearchConfig(), 0).search(Learned(5.0), -1).best_action == 1


@pytest.mark.parametrize("searcher", searchers(), ids=["mcts", "ismcts", "pimc"])
@pytest.mark.parametrize(
    ("declared", "pay", "bounds"),
    [
        ((-1.0, 1.0), 5.0, r"\[-1, 1\]"),
        (None, 5.0, r"\[-1, 1\]"),
        ((-2.0, 2.0), -3.0, r"\[-2, 2\]"),
    ],
)
def test_a_return_outside_the_declared_range_is_an_error(
    searcher: Any, declared: tuple[float, float] | None, pay: float, bounds: str
) -> None:
    """Declared (-1, 1) but paying +5 was a value of 5.0 with no word."""
    with pytest.raises(InvalidStateError, match=rf"OneMove\(pay=.*\) paid .*outside {bounds}"):
        searcher.search(OneMove(pay, declared), -1)


def test_returns_inside_the_declared_range_and_the_option_are_searched() -> None:
    result = MCTS(Budget(iterations=20), SearchConfig(), 0).search(OneMove(2.0, (-2, 2)), -1)
    assert result.best_action == 1 and result.proven == "win" and result.root_value == 1.0
    with pytest.raises(InvalidStateError, match=r"outside \[-1, 1\], the search's return_range"):
        MCTS(Budget(iterations=20), SearchConfig(return_range=(-1, 1)), 0).search(
            OneMove(2.0, (-2, 2)), -1
        )


def test_a_cut_off_playout_is_worth_cutoff_value_on_the_search_scale() -> None:
    """``cutoff_value`` is a value in [-1, 1], not a return: in a game paying in [0, 10] a
    playout cut off at once is worth 0.5 (it was read as a return of 0.5: a value of -0.9)."""

    class Chain(OneMove):
        def legal_actions(self, state: int) -> list[int]:
            return [] if state >= 5 else [0, 1]

        def next_state(self, state: int, action: int) -> int:
            return max(state, 0) + 1

        def is_terminal(self, state: int) -> bool:
            return state >= 5

        def returns(self, state: int) -> tuple[float, ...]:
            return (10.0, 0.0)

    config = SearchConfig(rollout_depth=0, cutoff_value=0.5)
    result = MCTS(Budget(iterations=1), config, 0).search(Chain(0.0, (0.0, 10.0)), -1)
    assert result.root_value == 0.5
