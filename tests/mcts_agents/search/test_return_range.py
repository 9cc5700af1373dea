"""``mcts_agents.search.return_range``: a learned range widens and keeps the table's values meaning
the same returns; the ``return_range`` option is checked."""

from __future__ import annotations

import pytest

from mcts_agents.errors import InvalidOptionError
from mcts_agents.search.config import SearchConfig
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
