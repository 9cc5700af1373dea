"""``agents.spec_builder``: many agents of one spec, an ``az:``/``policy:`` model opened once."""

from __future__ import annotations

from typing import Any

import pytest

from mcts_agents.agents.spec_builder import spec_builder
from mcts_agents.agents.specs import make_agent
from mcts_agents.envs import tic_tac_toe_v0
from mcts_agents.errors import SpecError


def position() -> Any:
    env = tic_tac_toe_v0.env()
    env.reset(seed=0)
    env.step(4)
    return env


@pytest.mark.parametrize(
    "spec", ["az:model={},simulations=12,batch_size=2", "policy:model={},temperature=1"]
)
def test_agents_of_a_model_spec_share_the_model_and_play_as_make_agent(spec: str, net: str) -> None:
    text = spec.format(net)
    build = spec_builder(text)
    agents = [build(seed) for seed in (5, 6, 7)]
    models = {id(getattr(a, "evaluator", None) or a.config.evaluator) for a in agents}
    assert len(models) == 1  # opened once
    for agent, seed in zip(agents, (5, 6, 7), strict=True):
        assert repr(agent) == repr(make_agent(text, seed))
        assert agent.act(position()) == make_agent(text, seed).act(position())


def test_a_specs_own_seed_wins_and_other_kinds_are_make_agents(net: str) -> None:
    build = spec_builder(f"az:model={net},simulations=4,seed=9")
    assert build(1).seed == build(2).seed == 9
    assert repr(spec_builder("mcts:iterations=3")(4)) == repr(make_agent("mcts:iterations=3", 4))


def test_bad_specs_are_refused_naming_them(tmp_path: Any) -> None:
    with pytest.raises(SpecError, match="unknown kind 'alpha'"):
        spec_builder("alpha:model=x")
    build = spec_builder(f"az:model={tmp_path / 'none.pt'}")  # known only when opened
    with pytest.raises(SpecError, match=r"none\.pt"):
        build(0)
