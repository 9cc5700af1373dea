"""``compiled.rules.RULE_SETS``: the one list of rule sets that the codec, the kernel registry,
the dispatch by game id and the per-game entry points all follow."""

from __future__ import annotations

import pytest

from mcts_agents.compiled import registry
from mcts_agents.compiled.rules import RULE_SETS, codec, rule_set, supports
from mcts_agents.envs.games.connect_four import ConnectFour
from mcts_agents.envs.games.mnk import MNK
from mcts_agents.envs.games.nim import Nim
from mcts_agents.envs.games.othello import Othello
from mcts_agents.envs.games.pig import Pig
from mcts_agents.errors import InvalidOptionError

pytest.importorskip("numba")

#: What a rule set module provides: the kernel's protocol (``dispatch``) and the Python side's.
PROTOCOL = ("legal", "play", "to_play", "playout", "reachable", "supports", "codec")


def test_rule_sets_have_distinct_ids_and_modules_with_the_whole_protocol() -> None:
    ids = [one.game_id for one in RULE_SETS]
    assert len(set(ids)) == len(ids) and min(ids) > 0
    assert len({one.name for one in RULE_SETS}) == len(RULE_SETS)
    for one in RULE_SETS:
        module = one.module()
        assert all(callable(getattr(module, name, None)) for name in PROTOCOL), one.name
        example = one.example()
        assert isinstance(example, one.game_type) and module.supports(example) is None
        assert codec(example).game_id == one.game_id  # its example is played by its own rules


def test_the_registry_dispatch_and_entry_points_follow_the_list() -> None:
    from mcts_agents.compiled import dispatch, entries

    types = list(dict.fromkeys(one.game_type for one in RULE_SETS))
    kernels = [entry for entry in registry.registered_kernels() if entry.game_type in types]
    assert [entry.game_type for entry in kernels] == types  # one a type, in the list's order
    first = {one.game_type: one for one in reversed(RULE_SETS)}
    assert all(entry.searcher == first[entry.game_type].searcher for entry in kernels)
    assert {g: m.__name__ for g, m in dispatch.RULES.items()} == {
        one.game_id: one.module().__name__ for one in RULE_SETS
    }
    assert sorted(entries.ENTRIES) == sorted(one.game_id for one in RULE_SETS)
    names = {f.py_func.__name__ for pair in entries.ENTRIES.values() for f in pair}
    assert len(names) == 2 * len(RULE_SETS)  # a cache file of its own for each entry point


@pytest.mark.parametrize(
    ("game", "name"),
    [(Othello(8), "othello"), (Othello(10), "othello_wide"), (ConnectFour(k=3), "connect_four")],
)
def test_codec_takes_the_first_rule_set_of_the_type_that_plays_the_game(
    game: object, name: str
) -> None:
    assert codec(game).game_id == rule_set(name).game_id


def test_supports_gives_the_reason_of_the_types_rule_sets() -> None:
    assert supports(MNK(3, 3, 3)) is None
    assert supports(MNK(17, 16, 5)) == (
        "the compiled kernel plays m,n,k on up to 256 cells, got 17x16"
    )
    assert "up to 64 piles" in str(supports(Nim(piles=(5000,) * 20, max_take=None)))
    assert supports(Pig()) == "the compiled kernel has no rules for Pig"
    with pytest.raises(InvalidOptionError, match="no rules for Pig"):
        codec(Pig())
    with pytest.raises(InvalidOptionError, match="no compiled rule set is named 'chess'"):
        rule_set("chess")
