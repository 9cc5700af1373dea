"""The ``ladder:GAME:LEVEL`` agent spec: read as the level's own spec (so it plays exactly as
that spec, and a server's limits see its options), usable wherever specs are, and refused
clearly for an unknown game, level or form."""

from __future__ import annotations

from typing import Any

import pytest

from mcts_agents import play_match
from mcts_agents.agents.ladder import LEVEL_SPECS, level_spec
from mcts_agents.agents.specs import listing, make_agent, parse_agent_spec, read_agent_spec
from mcts_agents.errors import SpecError


def play(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """What was played in each game (not who the agents were called)."""
    keys = ("seed", "moves", "movers", "iterations", "returns")
    return [{k: r[k] for k in keys} for r in records]


def test_every_level_of_every_game_reads_as_its_own_spec() -> None:
    assert LEVEL_SPECS
    for game, specs in LEVEL_SPECS.items():
        for index, spec in enumerate(specs):
            text = f"ladder:{game}:L{index}"
            got, want = read_agent_spec(text), read_agent_spec(spec)
            assert (got.kind, got.options) == (want.kind, want.options), text
            assert got.name == got.text == text
            assert level_spec(game, f"L{index}") == spec


def test_a_ladder_spec_plays_exactly_as_its_level() -> None:
    level = level_spec("tic_tac_toe", "L1")
    by_name = play_match("tic_tac_toe", ["ladder:tic_tac_toe:L1", "random"], 4, seed=3)
    by_spec = play_match("tic_tac_toe", [level, "random"], 4, seed=3)
    assert play(by_name.records) == play(by_spec.records)
    assert by_name.agents[0] == "ladder:tic_tac_toe:L1"


def test_name_option_names_the_agent() -> None:
    spec = parse_agent_spec("ladder:tic_tac_toe:L0,name=bottom")
    assert spec.name == "bottom" and spec.text == "ladder:tic_tac_toe:L0,name=bottom"


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("ladder:pig:L1", "pig"),  # a game without a ladder
        ("ladder:no_such_game:L0", "no_such_game"),
        ("ladder:tic_tac_toe:L99", "L99"),
        ("ladder:tic_tac_toe:top", "top"),
        ("ladder:tic_tac_toe", "ladder:GAME:LEVEL"),
        ("ladder", "ladder:GAME:LEVEL"),
        ("ladder::L1", "ladder:GAME:LEVEL"),
        ("ladder:tic_tac_toe:L1,iterations=5", "ladder:GAME:LEVEL"),
        ("ladder:tic_tac_toe:L1,iterations", "key=value"),
    ],
)
def test_bad_ladder_specs_are_refused_naming_the_value(text: str, named: str) -> None:
    for read in (read_agent_spec, parse_agent_spec, make_agent):
        with pytest.raises(SpecError, match=named) as caught:
            read(text)
        assert text in str(caught.value)


def test_list_shows_the_ladder_kind() -> None:
    line = next(line for line in listing().splitlines() if line.strip().startswith("ladder"))
    assert "GAME:LEVEL" in line


def test_the_vector_env_takes_its_opponents_from_the_ladder() -> None:
    import numpy as np

    from mcts_agents.rl import VectorVsOpponent

    vector = VectorVsOpponent(2, "tic_tac_toe", opponent="ladder:tic_tac_toe:L1")
    try:
        vector.reset(seed=0)
        masks = vector.action_masks()
        _, rewards, *_ = vector.step(np.array([int(np.flatnonzero(m)[0]) for m in masks]))
        assert rewards.shape == (2,)
    finally:
        vector.close()


def test_a_servers_limits_apply_to_the_levels_options() -> None:
    from mcts_agents.web.policy import Limits, ServerPolicy

    game, index, iterations = next(
        (game, i, read_agent_spec(spec).options["iterations"])
        for game, specs in LEVEL_SPECS.items()
        for i, spec in enumerate(specs)
        if "iterations" in read_agent_spec(spec).options
    )
    text = f"ladder:{game}:L{index}"
    policy = ServerPolicy(limits=Limits(iterations=max(1, iterations - 1)))
    with pytest.raises(SpecError, match="over the server's limit"):
        policy.agent_spec(text)
    assert ServerPolicy(limits=Limits(iterations=iterations)).agent_spec(text).name == text
