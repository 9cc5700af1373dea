"""SearchConfig's own checks (search/config.py) for what no searcher's tests cover."""

from __future__ import annotations

import pickle

import pytest

from mcts_agents import SearchConfig
from mcts_agents.errors import InvalidOptionError


def test_kernel_options_are_kept_as_sorted_pairs_equal_however_given() -> None:
    given = SearchConfig(kernel_options={"defend": True, "c": 0.2})
    assert given.kernel_options == (("c", 0.2), ("defend", True))
    assert given == SearchConfig(kernel_options=[("defend", True), ("c", 0.2)])
    assert hash(given) == hash(SearchConfig(kernel_options=(("c", 0.2), ("defend", True))))
    assert pickle.loads(pickle.dumps(given)) == given
    assert SearchConfig().kernel_options == ()


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ("defend=1", "kernel_options must be a mapping.*kernel.NAME=VALUE"),
        ([("defend",)], "kernel_options must be a mapping"),
        ({"two words": 1}, "name must be an identifier, got 'two words'"),
        ({3: 1}, "name must be an identifier, got 3"),
        ({"defend": [1]}, r"defend= must be a bool, number, text or None, got \[1\]"),
        ([("c", 1), ("c", 2)], "'c' is given twice"),
    ],
)
def test_bad_kernel_options_are_refused_naming_them(options: object, message: str) -> None:
    with pytest.raises(InvalidOptionError, match=message):
        SearchConfig(kernel_options=options)  # type: ignore[arg-type]
