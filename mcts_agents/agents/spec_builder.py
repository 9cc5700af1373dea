"""Many agents of one spec, a model spec's model opened once for all of them: ``spec_builder``.

An ``az:`` or ``policy:`` spec built with ``make_agent`` opens its model file every time, so
``N`` agents hold ``N`` copies of one network and ``agents.batch.act_batch`` cannot evaluate
them together. The agents ``spec_builder`` makes share the one model the first build opened:
``act_batch`` then searches their ``az:`` trees in lockstep (one forward pass a round for all,
``search.tree_batch``) and gives their ``policy:`` moves one forward pass. An
``rl.OpponentPool`` builds the agents of its spec entries so.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mcts_agents.agents.models import PriorAgent, PUCTAgent
from mcts_agents.agents.specs import AgentSpec, make_agent, read_agent_spec

__all__ = ["MODEL_KINDS", "spec_builder"]

#: The spec kinds that open a model (``model=``): their agents share it.
MODEL_KINDS = ("az", "policy")


def spec_builder(spec: str | AgentSpec) -> Callable[[int | None], Any]:
    """``build(seed)``: a new agent of ``spec`` seeded ``seed`` (unless the spec fixes its own
    seed), as ``make_agent(spec, seed)`` makes it, except that a model spec's model is opened
    by the first build and shared by every later one (see the module).

    Raises:
        SpecError: a bad spec (now, or at the first build for what only opening tells).
    """
    parsed = read_agent_spec(spec) if isinstance(spec, str) else spec
    if parsed.kind not in MODEL_KINDS:
        return lambda seed: make_agent(parsed, seed)
    first: list[Any] = []  # the first agent built: its model is every agent's
    options = {k: v for k, v in parsed.options.items() if k not in ("model", "device", "threads")}

    def build(seed: int | None) -> Any:
        if not first:
            first.append(make_agent(parsed, seed))  # opens the model, checks every option
            return first[0]
        made = first[0]
        kwargs = {"seed": seed, **options}  # (a spec's own seed wins, as make_agent's)
        if parsed.kind == "az":
            return PUCTAgent(made.config.evaluator, model=made.model, **kwargs)
        return PriorAgent(made.evaluator, model=made.model, **kwargs)

    return build
