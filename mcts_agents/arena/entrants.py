"""Who plays in the arena: agents from specs, factories or instances, and the env to play in.

An ``Entrant`` says how to get a fresh agent for each game: a spec builds one, a factory is
called, an instance is ``reset(seed=...)``. ``env_factory`` turns an env spec or callable into a
zero-argument function returning a fresh env.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from mcts_agents.agents.specs import (
    AgentSpec,
    EnvSpec,
    make_agent,
    parse_agent_spec,
    parse_env_spec,
)
from mcts_agents.errors import OptionTypeError

__all__ = ["Entrant", "build_agent", "env_factory", "env_label", "make_entrant", "make_entrants"]


@dataclass(frozen=True)
class Entrant:
    """One agent of a match: its display name and how to get an agent for a game."""

    name: str
    spec: str | None  # the spec text, for spec entrants
    how: str  # "spec", "factory" or "instance"
    item: Any


def make_entrant(item: Any, name: str | None = None) -> Entrant:
    if isinstance(item, (str, AgentSpec)):
        spec = parse_agent_spec(item)
        return Entrant(name or spec.name, spec.text, "spec", spec)
    if isinstance(item, type) or (callable(item) and not hasattr(item, "act")):
        label = getattr(item, "name", None) or getattr(item, "__qualname__", None) or repr(item)
        return Entrant(name or str(label), None, "factory", item)
    if hasattr(item, "act"):
        return Entrant(
            name or str(getattr(item, "name", None) or repr(item)), None, "instance", item
        )
    raise OptionTypeError(
        f"agent {item!r} is neither a spec string, an AgentSpec, a factory nor an agent "
        "(an object with act(env))"
    )


def make_entrants(agents: Sequence[Any] | Mapping[str, Any]) -> list[Entrant]:
    if isinstance(agents, Mapping):
        entrants = [make_entrant(item, str(name)) for name, item in agents.items()]
    elif isinstance(agents, (str, bytes)) or not isinstance(agents, Sequence):
        raise OptionTypeError(
            f"agents must be a sequence (or a dict name -> agent), got {agents!r}"
        )
    else:
        entrants = [make_entrant(item) for item in agents]
    seen: dict[str, int] = {}
    unique = []
    for entrant in entrants:  # the same spec twice: "spec", "spec #2"
        seen[entrant.name] = seen.get(entrant.name, 0) + 1
        if seen[entrant.name] > 1:
            entrant = Entrant(
                f"{entrant.name} #{seen[entrant.name]}", entrant.spec, entrant.how, entrant.item
            )
        unique.append(entrant)
    return unique


def build_agent(entrant: Entrant, seed: int) -> Any:
    if entrant.how == "spec":
        return make_agent(entrant.item, seed=seed)
    agent = entrant.item() if entrant.how == "factory" else entrant.item
    reset = getattr(agent, "reset", None)
    if callable(reset):
        reset(seed=seed)
    return agent


def env_factory(env_fn: Any) -> Callable[[], Any]:
    if isinstance(env_fn, (str, EnvSpec)):
        return parse_env_spec(env_fn)
    if callable(env_fn):
        return env_fn
    raise OptionTypeError(
        f"env_fn must be an env spec string, an EnvSpec or a callable returning a fresh env, "
        f"got {env_fn!r}"
    )


def env_label(env_fn: Callable[[], Any], env: Any) -> str:
    if isinstance(env_fn, EnvSpec):
        return str(env_fn)
    name = getattr(env, "metadata", {}).get("name")
    return str(name or getattr(env_fn, "__qualname__", None) or repr(env_fn))
