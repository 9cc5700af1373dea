"""Agents and envs named by short spec strings: ``mcts:iterations=1000``, ``connect_four:width=8``.

A spec is ``kind`` or ``kind:key=value,key=value``. Values are read as ints, floats,
``on/off/true/false/yes/no`` (bools), ``none`` (``None``), else kept as strings. Specs are
frozen, picklable dataclasses, so they travel to worker processes and build fresh agents and
envs there.

Agent kinds:

- ``mcts``: ``MCTSAgent``; ``time`` is an alias of ``time_limit``; ``kernel.NAME=VALUE``
  sets the compiled kernel's option ``NAME`` (``SearchConfig.kernel_options``: Go's
  ``GoOptions``, ``mcts:kernel.defend=1``); every other key goes to ``MCTSAgent(...)`` as a
  keyword, which validates it (so options added later work as is).
- ``random``: ``RandomAgent`` (option ``seed``).
- ``human``: ``HumanAgent``, moves typed on a text stream.
- ``az``: ``PUCTAgent``, a trained model searched with PUCT (``az:model=DIR,simulations=200``);
  ``model`` is a training run's folder, a network or checkpoint file of
  ``mcts_agents.alphazero.learn`` or a Stable-Baselines3 ``.zip`` (``model_agents.open_model``),
  taken as text (no ``,`` or ``=`` in it); ``device`` where the network runs; ``time`` and
  ``iterations`` are aliases of ``time_limit`` and ``simulations``.
- ``policy``: ``PriorAgent``, the model's raw policy without search
  (``policy:model=DIR[,temperature=0.5]``).
- ``ladder``: a level of a game's calibrated ladder, ``ladder:GAME:LEVEL``
  (``ladder:connect_four:L5``): read as the level's own spec (``agents.ladder.level_spec``).

Every agent kind also takes ``name=...``, the display name (default: the spec string).

Envs: one of our variants (``connect_four:width=8``), a PettingZoo registry id
(``classic/connect_four-v3``), a module with ``env()`` (``pettingzoo.classic.connect_four_v3``)
or ``module:factory`` (a zero-argument callable returning an AEC env), the last three with
options as keywords (``module:factory:key=value,...``); see ``parse_env_spec``. Any OpenSpiel
game: ``openspiel:GAME[:key=value,...]`` (``openspiel:leduc_poker:players=3``), admitted by
``openspiel_specs`` (no game or option that reads a file, a size under ``GameCaps``).
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, TextIO

from mcts_agents import envs
from mcts_agents.adapters import env_sources
from mcts_agents.agents.agent import HumanAgent, MCTSAgent, RandomAgent
from mcts_agents.agents.models import DEFAULT_SIMULATIONS, PriorAgent, PUCTAgent, open_model
from mcts_agents.agents.openspiel_specs import GameCaps, admit_openspiel, is_openspiel_factory
from mcts_agents.agents.spec_text import kernel_options, parse_value, split_spec
from mcts_agents.agents.spec_text import option_pairs as _pairs
from mcts_agents.checks import check_seed
from mcts_agents.errors import InvalidOptionError, SpecError, describe_unknown
from mcts_agents.search.config import SearchConfig

__all__ = [
    "AGENT_KINDS",
    "ENV_SPECS",
    "AgentSpec",
    "EnvSpec",
    "listing",
    "make_agent",
    "make_env",
    "parse_agent_spec",
    "parse_env_spec",
    "read_agent_spec",
    "split_spec",
]


# ------------------------------------------------------------------------------- agents
def _build_mcts(options: Mapping[str, Any], seed: int | None) -> MCTSAgent:
    kwargs = dict(options)
    if seed is not None and "seed" not in kwargs:
        kwargs["seed"] = seed
    return MCTSAgent(**kwargs)


def _build_random(options: Mapping[str, Any], seed: int | None) -> RandomAgent:
    kwargs = dict(options)
    if seed is not None and "seed" not in kwargs:
        kwargs["seed"] = seed
    return RandomAgent(**kwargs)


def _build_human(options: Mapping[str, Any], seed: int | None) -> HumanAgent:
    return HumanAgent(**options)


def _open(kwargs: dict[str, Any]) -> tuple[Any, Any]:
    """The model of ``model=`` (popped with ``device=`` and ``threads=``), opened."""
    path = kwargs.pop("model", None)
    if path is None:
        raise InvalidOptionError("model= is needed: the path of a trained model")
    return open_model(path, kwargs.pop("device", None), kwargs.pop("threads", 1))


def _build_az(options: Mapping[str, Any], seed: int | None) -> PUCTAgent:
    kwargs = dict(options)
    if seed is not None and "seed" not in kwargs:
        kwargs["seed"] = seed
    evaluator, model = _open(kwargs)
    return PUCTAgent(evaluator, model=model, **kwargs)


def _build_ladder(options: Mapping[str, Any], seed: int | None) -> Any:
    from mcts_agents.agents.ladder import level_spec

    return make_agent(level_spec(str(options.get("game")), str(options.get("level"))), seed)


def _build_policy(options: Mapping[str, Any], seed: int | None) -> PriorAgent:
    kwargs = dict(options)
    if seed is not None and "seed" not in kwargs:
        kwargs["seed"] = seed
    evaluator, model = _open(kwargs)
    return PriorAgent(evaluator, model=model, **kwargs)


#: agent kind -> builder ``(options, seed) -> agent``.
AGENT_KINDS: dict[str, Callable[[Mapping[str, Any], int | None], Any]] = {
    "mcts": _build_mcts,
    "random": _build_random,
    "human": _build_human,
    "az": _build_az,
    "policy": _build_policy,
    "ladder": _build_ladder,
}
_ALIASES = {
    "mcts": {"time": "time_limit"},
    "az": {"time": "time_limit", "iterations": "simulations"},
}
_LADDER_FORM = "GAME:LEVEL, a calibrated level (ladder:connect_four:L5; docs/ladder.md)"
#: options kept as the text given (paths), not read as numbers or bools.
_TEXT_OPTIONS = ("model", "device")
#: options of the model kinds, as ``agent_options`` lists them.
_MODEL_OPTIONS = ("model=PATH", "device=None", "threads=1")
_AZ_OPTIONS = (
    f"simulations={DEFAULT_SIMULATIONS}",
    "search=puct",
    "time_limit=None",
    "batch_size=8",
    "c=1.5",
    "fpu=None",
    "virtual_loss=1.0",
    "solver=True",
    "final_move=visits",
    "play=auto",
    "reuse=True",
    "max_nodes=None",
    "seed=None",
    "gumbel_max_actions=16",
    "gumbel_scale=0.0",
    "gumbel_c_visit=50.0",
    "gumbel_c_scale=0.1",
)


@dataclass(frozen=True)
class AgentSpec:
    """A parsed agent spec: builds fresh agents (``make_agent``), pickles, compares by value.

    Attributes:
        kind: ``"mcts"``, ``"random"`` or ``"human"``.
        options: keyword arguments of the agent (aliases resolved, values parsed).
        name: display name (the ``name=`` option, else the spec text).
        text: the spec string as given.
    """

    kind: str
    options: dict[str, Any] = field(default_factory=dict)
    name: str = ""
    text: str = ""

    def build(self, seed: int | None = None, **streams: Any) -> Any:
        """A fresh agent; ``seed`` seeds it unless the spec fixes its own ``seed``."""
        return make_agent(self, seed=seed, **streams)

    def __call__(self) -> Any:
        return self.build()


def parse_agent_spec(text: str | AgentSpec) -> AgentSpec:
    """Parse ``kind[:key=value,...]`` and check it by building the agent once.

    Raises:
        SpecError: unknown kind, malformed ``key=value``, unknown option or bad value.
    """
    if isinstance(text, AgentSpec):
        return text
    spec = read_agent_spec(text)
    make_agent(spec)  # validates every option now, not in the middle of a tournament
    return spec


def read_agent_spec(text: str) -> AgentSpec:
    """Parse ``kind[:key=value,...]`` without building the agent (nothing is opened or
    started: the web server checks its limits on the options first).

    Raises:
        SpecError: unknown kind, malformed ``key=value`` or an option given twice.
    """
    kind, raw = _split_agent_spec(text)
    if kind not in AGENT_KINDS:
        raise SpecError(
            f"agent spec {text!r}: unknown kind {kind!r}; expected one of {sorted(AGENT_KINDS)}"
        )
    name = raw.pop("name", text.strip())
    aliases = _ALIASES.get(kind, {})
    options: dict[str, Any] = {}
    for key, value in raw.items():
        key = aliases.get(key, key)
        if key in options:
            raise SpecError(f"agent spec {text!r}: option {key!r} is given twice (via an alias)")
        options[key] = value if key in _TEXT_OPTIONS else parse_value(value)
    if kind == "mcts":
        options = kernel_options(text, options)
    return AgentSpec(kind=kind, options=options, name=name, text=text.strip())


def _split_agent_spec(text: str) -> tuple[str, dict[str, str]]:
    """``split_spec``; ``ladder:GAME:LEVEL[,name=...]`` is the level's own spec, named ``text``."""
    if not isinstance(text, str) or text.strip().partition(":")[0].strip() != "ladder":
        return split_spec(text, "agent")
    from mcts_agents.agents.ladder import level_spec

    game, _, rest = text.strip().partition(":")[2].partition(":")
    level, _, rest = rest.partition(",")
    raw = {"name": text.strip(), **_pairs(text, rest, "agent")}
    if not game.strip() or not level.strip() or set(raw) != {"name"}:
        raise SpecError(f"agent spec {text!r}: expected ladder:GAME:LEVEL (ladder:connect_four:L5)")
    try:
        kind, options = split_spec(level_spec(game.strip(), level.strip()), "agent")
    except ValueError as error:  # an unknown game or level
        raise SpecError(f"agent spec {text!r}: {error}") from None
    return kind, {**options, **raw}


def make_agent(
    spec: str | AgentSpec,
    seed: int | None = None,
    *,
    input: TextIO | None = None,
    output: TextIO | None = None,
) -> Any:
    """A fresh agent from a spec; ``seed`` is used unless the spec fixes its own ``seed``.

    ``input``/``output`` are the streams of a ``human`` agent (ignored by other kinds).

    Raises:
        SpecError: naming the spec and what was wrong.
    """
    spec = parse_agent_spec(spec) if isinstance(spec, str) else spec
    build = AGENT_KINDS.get(spec.kind)
    if build is None:
        raise SpecError(
            f"agent spec {spec.text!r}: unknown kind {spec.kind!r}; "
            f"expected one of {sorted(AGENT_KINDS)}"
        )
    _check_option_names(spec)
    options = dict(spec.options)
    fixed_seed = options.get("seed")
    check_seed(fixed_seed, f"agent spec {spec.text!r}: seed", optional=True, error=SpecError)
    if spec.kind == "human":
        options.update(input=input, output=output, name=spec.name or "human")
    try:
        return build(options, seed)
    except TypeError as error:  # an unexpected keyword of the agent's constructor
        raise SpecError(
            f"agent spec {spec.text!r}: {error}; options of {spec.kind!r}: "
            f"{', '.join(agent_options(spec.kind)) or 'none'}"
        ) from None
    except ValueError as error:  # InvalidOptionError and friends
        raise SpecError(f"agent spec {spec.text!r}: {error}") from None


#: agent kinds whose every option ``agent_options`` lists (a kind added later is checked by
#: its own constructor).
_LISTED_KINDS = ("mcts", "random", "human", "az", "policy")


def _check_option_names(spec: AgentSpec) -> None:
    """Refuse an option the agent kind does not have, naming it and the close valid one.

    Checked before building, so that a misspelt budget (``iteration=5``) is named as such and
    not reported as a missing budget.
    """
    if spec.kind not in _LISTED_KINDS:
        return
    valid = [item.partition("=")[0] for item in agent_options(spec.kind)]
    aliases = _ALIASES.get(spec.kind, {})
    unknown = [key for key in spec.options if key not in valid]
    if not unknown:
        return
    every = [*agent_options(spec.kind), *(f"{a} (= {t})" for a, t in aliases.items()), "name"]
    raise SpecError(
        f"agent spec {spec.text!r}: unknown option{'s' if len(unknown) > 1 else ''} "
        f"{describe_unknown(unknown, valid)}; options of {spec.kind!r}: {', '.join(every)}"
    )


def agent_options(kind: str) -> list[str]:
    """``"key=default"`` for each option of an agent kind (read from the code, so it stays true)."""
    if kind == "mcts":  # MCTSAgent's own arguments (budget, seed, workers), then SearchConfig's
        items = [
            f"{p.name}={p.default}"
            for p in inspect.signature(MCTSAgent.__init__).parameters.values()
            if p.name != "self" and p.kind is not inspect.Parameter.VAR_KEYWORD
        ]
        items += [f"{f.name}={f.default}" for f in dataclasses.fields(SearchConfig)]
        return items
    if kind == "random":
        return ["seed=None"]
    if kind == "az":
        return [*_MODEL_OPTIONS, *_AZ_OPTIONS]
    if kind == "policy":
        return [*_MODEL_OPTIONS, "temperature=0.0", "seed=None"]
    return []


# --------------------------------------------------------------------------------- envs
#: env spec name (a registered variant) -> (module in ``envs``, the variant's keyword arguments).
ENV_SPECS: dict[str, tuple[str, dict[str, Any]]] = {
    variant: (module, dict(kwargs))
    for module, variants in envs.ENV_MODULES.items()
    for variant, kwargs in variants.items()
}


def env_parameters(module: str) -> dict[str, Any]:
    """Options of an env module's ``raw_env`` with their defaults (``render_mode`` left out)."""
    signature = inspect.signature(envs.load(module).raw_env.__init__)
    return {
        name: p.default
        for name, p in signature.parameters.items()
        if name not in ("self", "render_mode") and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
    }


@dataclass(frozen=True)
class EnvSpec:
    """A parsed env spec; calling it returns a fresh env (``env()``). Picklable.

    Attributes:
        name: one of our variants (``"connect_four"``, ``"gomoku"``, ...), else the env's name
            as given (a registry id, a module, ``module:factory``).
        module: the variant's module in ``envs`` (``"connect_four_v0"``); ``""`` for others.
        kwargs: the variant's (or registry entry's) keyword arguments with the spec's options
            merged over them.
        text: the spec string as given.
        factory: for an env that is not one of our variants, the import path
            (``"module:function"``) of the function that makes it; ``""`` for ours.
    """

    name: str
    module: str
    kwargs: dict[str, Any] = field(default_factory=dict)
    text: str = ""
    factory: str = ""

    def __call__(self, render_mode: str | None = None) -> Any:
        if not self.factory:
            return envs.load(self.module).env(render_mode=render_mode, **self.kwargs)
        kwargs = dict(self.kwargs)
        if render_mode is not None:  # a user's zero-argument factory is called with none
            kwargs["render_mode"] = render_mode
        return env_sources.load_factory(self.factory)(**kwargs)

    def __str__(self) -> str:
        return self.text or self.name


def parse_env_spec(text: str | EnvSpec, caps: GameCaps | None = None) -> EnvSpec:
    """Parse an env spec and check it by building the env once.

    The forms: one of our variants with options, ``name[:key=value,...]``
    (``connect_four:width=8,height=7``); a PettingZoo registry id
    (``classic/connect_four-v3``, ``mcts_agents/connect_four-v0``); a module with ``env()``
    (``pettingzoo.classic.connect_four_v3``); a zero-argument callable returning an AEC env,
    ``module:factory``. The last three take options too (``module:factory:key=value,...``),
    passed to the function as keywords.

    An OpenSpiel game (``openspiel:GAME``, ``mcts_agents/openspiel-v0``) is admitted by
    ``openspiel_specs.admit_openspiel`` first: no game or option that reads a file, and the
    game's size under ``caps`` (default ``GameCaps()``) before any state is made.

    Raises:
        SpecError: an OpenSpiel game or option refused, or over ``caps``; unknown env (the
            message lists the valid names and forms), unknown option
            (lists the env's options), a value the env refuses, a module that cannot be
            imported, or something that is not an AEC env.
    """
    if isinstance(text, EnvSpec):
        return text
    if not isinstance(text, str):
        raise SpecError(f"env spec must be a string, got {text!r}")
    if text.strip().partition(":")[0].strip() in ENV_SPECS:
        return _parse_our_env(text, caps)
    form = env_sources.factory_form(text)
    base: dict[str, Any] = {}
    if form is not None:
        name, rest = form
        path = name
        env_sources.checked_factory(path, text)
        raw = _pairs(text, rest, "env")
    else:
        name, raw = split_spec(text, "env")
        path, base = env_sources.resolve_env_name(name, text, sorted(ENV_SPECS))
    kwargs = {**base, **{k: parse_value(v) for k, v in raw.items()}}
    spec = EnvSpec(name=name, module="", kwargs=kwargs, text=text.strip(), factory=path)
    if is_openspiel_factory(path):
        admit_openspiel(kwargs, text, caps)
    try:
        env = spec()
    except Exception as error:  # someone else's code: any failure is a bad spec
        call = f"{path}({', '.join(f'{k}={v!r}' for k, v in kwargs.items())})"
        raise SpecError(
            f"env spec {text!r}: {call} failed ({type(error).__name__}: {error})"
        ) from error
    env_sources.check_aec_env(env, text)
    return spec


def expand_openspiel_spec(text: str) -> str:
    """``"openspiel:GAME[:k=v,...]"`` -> ``"openspiel:game=GAME[,k=v,...]"``; else ``text``."""
    head, _, rest = text.strip().partition(":")
    game, _, options = rest.partition(":")
    if head.strip() != "openspiel" or not game.strip() or "=" in game:
        return text
    return f"openspiel:game={game.strip()}" + (f",{options}" if options.strip() else "")


def _parse_our_env(text: str, caps: GameCaps | None) -> EnvSpec:
    name, raw = split_spec(expand_openspiel_spec(text), "env")
    module, base = ENV_SPECS[name]
    parameters = env_parameters(module)
    unknown = sorted(set(raw) - set(parameters))
    any_option = any(  # openspiel_v0: the game's own parameters, checked by the env
        p.kind is p.VAR_KEYWORD
        for p in inspect.signature(envs.load(module).raw_env.__init__).parameters.values()
    )
    if unknown and not any_option:
        raise SpecError(
            f"env spec {text!r}: unknown option(s) {unknown}; options of {name!r}: "
            f"{', '.join(f'{k}={v!r}' for k, v in parameters.items()) or 'none'}"
        )
    kwargs = {**base, **{k: parse_value(v) for k, v in raw.items()}}
    spec = EnvSpec(name=name, module=module, kwargs=kwargs, text=text.strip())
    if is_openspiel_factory(module):
        admit_openspiel(kwargs, text, caps)
    try:
        spec()
    except (ValueError, TypeError) as error:
        raise SpecError(f"env spec {text!r}: {error}") from None
    return spec


def make_env(text: str | EnvSpec, render_mode: str | None = None) -> Any:
    """A fresh wrapped env (``env()``, not yet reset) from a spec string or ``EnvSpec``."""
    return parse_env_spec(text)(render_mode=render_mode)


# ------------------------------------------------------------------------------ listing
def listing() -> str:
    """What ``mcts-agents list`` prints: envs with options and defaults, agent kinds and options."""
    lines = ["envs (spec: name[:key=value,...]):"]
    for name, (module, base) in ENV_SPECS.items():
        options = {**env_parameters(module), **base}
        described = ", ".join(f"{k}={v!r}" for k, v in options.items())
        lines.append(f"  {name:<22} {described or '(no options)'}")
    lines.append(
        "  any OpenSpiel game: openspiel:GAME[:key=value,...] (openspiel:leduc_poker)\n"
        "  also: PettingZoo registry ids (classic/connect_four-v3), modules with env()\n"
        "  (pettingzoo.classic.connect_four_v3) and module:factory, each with [:key=value,...]"
    )
    lines.append("")
    lines.append("agents (spec: kind[:key=value,...]; every kind also takes name=...):")
    for kind in AGENT_KINDS:
        described = ", ".join(agent_options(kind)) if kind != "ladder" else _LADDER_FORM
        lines.append(f"  {kind:<8} {described or '(no options)'}")
    lines.append("  (mcts: time= is an alias of time_limit=; give at least one budget)")
    lines.append(
        "  (az, policy: model= is a training run's folder (mcts-agents train) or a .pt file of\n"
        '  mcts_agents.alphazero.learn (needs torch: pip install ".[az]"),\n'
        "  or a MaskablePPO .zip\n"
        '  (pip install ".[rl]"); az: time=, iterations= alias time_limit=, simulations=)'
    )
    lines.append("")
    lines.append("values: ints, floats, on/off/true/false/yes/no, none, else text")
    return "\n".join(lines)
