"""What the web server accepts from a request (or from a results file it replays): the policy
that ``serve`` builds from its options and ``create_app(policy=...)`` keeps.

A request is untrusted: any web page the person visits can send one to ``127.0.0.1``. So a spec
that comes over HTTP is read here *before anything is imported, opened or started*, and only
this passes:

- envs: one of our variants (``connect_four:width=8``), a PettingZoo registry id
  (``classic/tictactoe-v3``: the registry is data, its entry points were registered by code),
  or a ``module:factory`` / module name that the person listed with ``serve --allow-env``.
  Anything else naming a module (``subprocess:getoutput``, ``os:getcwd``) is refused unread;
- agents: the kinds of the registry (``mcts``, ``random``, ``human``, ``az``, ``policy``); the
  model of ``az``/``policy`` (``model=NAME``) only by a name inside the folder given to
  ``serve --models DIR`` (no absolute path, no ``..``, no link leading out of it);
- results files to replay: only inside the folder given to ``serve --results DIR`` (by default
  the folder the server runs in), by a name or path that stays inside it;
- OpenSpiel games: only those that read no file (``agents.openspiel_specs``, the rule of every
  spec, the command line's too), of a size under ``Limits.game``, checked before any state;
- numbers under ``Limits``: worker processes, simulations, seconds and nodes per move, torch
  threads, and the numbers given as env options (board sides, players), each refused with a
  ``SpecError`` that names the value and the ``serve`` option raising the limit. Every search
  is bounded: it gets ``time_limit=Limits.seconds`` unless it asks for less, and a search with
  no node bound of its own gets ``max_nodes=default_nodes(limits)``; the server's games
  together hold at most ``Limits.total_nodes`` nodes (``store.Sessions.add``).

The command line (``play``, ``arena``) keeps the full spec language: this module is only the
web server's gate.
"""

from __future__ import annotations

import difflib
import math
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from mcts_agents.adapters import env_sources
from mcts_agents.agents.openspiel_specs import GameCaps
from mcts_agents.agents.specs import (
    ENV_SPECS,
    AgentSpec,
    EnvSpec,
    env_parameters,
    expand_openspiel_spec,
    make_agent,
    parse_env_spec,
    parse_value,
    read_agent_spec,
    split_spec,
)
from mcts_agents.checks import check_int, check_number, is_number
from mcts_agents.errors import SpecError

__all__ = [
    "LOOPBACK_HOSTS",
    "Limits",
    "ServerPolicy",
    "default_nodes",
    "host_name",
    "hosts_for",
    "search_nodes",
]

#: Longest spec text read from a request.
MAX_SPEC_CHARS = 400
#: The names of this machine's loopback address, allowed in ``Host`` when serving on it.
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")
#: Agent options that count simulations (or trees, or leaves) per move.
_COUNTS = ("iterations", "simulations", "determinizations", "batch_size")
#: Compiled kernels' options (``kernel.NAME=``) that count simulations a move: Go's floor, which
#: no clock stops.
_KERNEL_COUNTS = ("min_simulations",)
#: Agent kinds that take ``model=``, and those whose search takes ``max_nodes``.
_MODEL_KINDS = ("az", "policy")
_SEARCH_KINDS = ("mcts", "az")
#: The files ``open_model`` reads in a training run's folder (``alphazero.learn.checkpoint``'s
#: ``BEST_NET`` and ``RUN_FILE``).
_FOLDER_FILES = ("best.pt", "run.json")
#: Searches with no node bound of their own that fit at once in ``Limits.total_nodes``.
DEFAULT_SHARE = 16
#: The server's OpenSpiel size caps: fewer actions than the command line's (a page shows a
#: button for each legal move).
SERVER_GAME_CAPS = GameCaps(actions=30_000)


@dataclass(frozen=True)
class Limits:
    """The most a request may ask for (``serve``'s ``--max-*`` options raise them).

    Attributes:
        workers: root-parallel searches of one agent (``workers=``; each one past the first
            is a process), ``--max-workers``.
        iterations: simulations per move (``iterations``, ``simulations``, and also
            ``determinizations`` and ``batch_size``), ``--max-iterations``.
        seconds: seconds per move (``time=``), ``--max-time``.
        nodes: nodes of a search's table (``max_nodes=``; also the bound of a search that
            gives none), ``--max-nodes``.
        board: a number given as an env option (a board side, players), ``--max-board``; an
            option of ours whose default is larger keeps its default as its limit.
        total_nodes: nodes of all the open games' searches together, ``--max-total-nodes``
            (a Python search's node is about 440 bytes: the default 4,000,000 is about 1.8
            GB); a game that would pass it is refused (503) until others close.
        threads: torch's CPU threads of a model agent (``threads=``), ``--max-threads``.
        game: the size caps of an OpenSpiel game (``agents.openspiel_specs.GameCaps``).
    """

    workers: int = 1
    iterations: int = 100_000
    seconds: float = 60.0
    nodes: int = 1_000_000
    board: int = 19
    total_nodes: int = 4_000_000
    threads: int = 1
    game: GameCaps = SERVER_GAME_CAPS

    def __post_init__(self) -> None:
        if not isinstance(self.game, GameCaps):
            raise SpecError(f"Limits.game must be a GameCaps, got {self.game!r}")
        for name in ("workers", "iterations", "nodes", "board", "total_nodes", "threads"):
            check_int(getattr(self, name), f"Limits.{name}", low=1)
        check_number(self.seconds, "Limits.seconds", low=0, low_open=True, finite=False)


def default_nodes(limits: Limits) -> int:
    """The node bound of a search that gives none: ``limits.nodes``, at most a
    ``DEFAULT_SHARE``-th of ``limits.total_nodes`` (so that that many fit at once)."""
    return max(1, min(limits.nodes, limits.total_nodes // DEFAULT_SHARE))


def search_nodes(spec: AgentSpec) -> int:
    """The nodes an agent of a spec checked by ``ServerPolicy.agent_spec`` may hold: its
    ``max_nodes`` for each of its ``workers`` searches (0: an agent that does not search)."""
    if spec.kind not in _SEARCH_KINDS:
        return 0
    nodes = spec.options.get("max_nodes")
    workers = spec.options.get("workers")
    count = workers if isinstance(workers, int) and workers > 1 else 1
    return int(nodes) * count if isinstance(nodes, int) else 0


def host_name(host: str) -> str:
    """The name part of a ``Host`` header, lower case: ``"[::1]:8000"`` -> ``"::1"``."""
    host = host.strip().lower()
    if host.startswith("["):
        return host[1:].partition("]")[0]
    if host.count(":") == 1:
        return host.partition(":")[0]
    return host


@dataclass(frozen=True)
class ServerPolicy:
    """What the web server accepts; see the module's text.

    Attributes:
        allow_env: ``module:factory`` paths (or module names with ``env()``) that requests
            may name as envs (``serve --allow-env``); nothing else that names a module.
        models: the folder of the models that ``az``/``policy`` agents may load by name
            (``serve --models``); ``None``: no model is loaded for a request.
        results: the folder whose results files ``/replay`` may read (``serve --results``);
            ``None``: the server's current folder.
        limits: the most a request may ask for.
        hosts: the names a request's ``Host`` header may carry (``serve`` fills in the
            address it listens on; ``"*"`` allows any).
    """

    allow_env: tuple[str, ...] = ()
    models: Path | None = None
    results: Path | None = None
    limits: Limits = field(default_factory=Limits)
    hosts: tuple[str, ...] = LOOPBACK_HOSTS

    def host_allowed(self, host: str) -> bool:
        """Whether a ``Host`` header names this server (a DNS rebinding names another)."""
        return "*" in self.hosts or host_name(host) in {h.lower() for h in self.hosts}

    # ------------------------------------------------------------------------ envs
    def env_spec(self, text: Any) -> EnvSpec:
        """The env of an untrusted spec, checked before anything is imported.

        Raises:
            SpecError: anything but one of our variants, a registry id or an allowed
                factory; a number over ``limits.board``; a bad option.
        """
        text = _text(text, "env")
        head = text.partition(":")[0].strip()
        if head in ENV_SPECS:
            _, raw = split_spec(expand_openspiel_spec(text), "env")
            module, base = ENV_SPECS[head]
            defaults = {**env_parameters(module), **base}
            self._check_env_numbers(text, raw, defaults)
            return parse_env_spec(text, self.limits.game)
        form = env_sources.factory_form(text)
        if form is not None:
            return self._allowed_factory(text, form[0])
        name, raw = split_spec(text, "env")
        entry = env_sources.registry_entry(name)
        if entry is not None:
            if "render_mode" in raw:
                raise SpecError(f"env spec {text!r}: render_mode is chosen by the server")
            defaults = {**entry.kwargs, "max_cycles": entry.max_cycles}
            self._check_env_numbers(text, raw, defaults)
            return parse_env_spec(text, self.limits.game)
        if name in self.allow_env:
            return parse_env_spec(text, self.limits.game)
        close = difflib.get_close_matches(name, list(ENV_SPECS), n=1)
        raise SpecError(
            f"unknown env {name!r} in {text!r}: the server plays the envs of its list "
            f"({', '.join(ENV_SPECS)}) and PettingZoo registry ids (classic/tictactoe-v3)"
            + (f"; did you mean {close[0]!r}?" if close else "")
            + self._allow_hint(name)
        )

    def _allowed_factory(self, text: str, path: str) -> EnvSpec:
        if path not in self.allow_env:
            raise SpecError(
                f"env spec {text!r}: {path!r} names code to import, which the server does not "
                "do for a request" + self._allow_hint(path)
            )
        return parse_env_spec(text, self.limits.game)

    def _allow_hint(self, name: str) -> str:
        if not env_sources.is_dotted(name.partition(":")[0]):
            return ""
        allowed = f" (allowed: {', '.join(self.allow_env)})" if self.allow_env else ""
        return f"; to play your own env, start the server with --allow-env {name}{allowed}"

    def _check_env_numbers(
        self, text: str, raw: Mapping[str, str], defaults: Mapping[str, Any]
    ) -> None:
        for key, given in raw.items():
            value = parse_value(given)
            if not is_number(value, finite=False):
                continue
            default = defaults.get(key)
            high: float = self.limits.board
            if is_number(default, finite=False):
                high = max(high, default)
            if not value <= high:
                raise SpecError(
                    f"env spec {text!r}: {key}={given} is over the server's limit {high:g} "
                    "(serve --max-board raises it)"
                )

    # ---------------------------------------------------------------------- agents
    def agent_spec(self, text: Any) -> AgentSpec:
        """The agent spec of an untrusted text, checked against the limits and built once.

        Raises:
            SpecError: an unknown kind or option, a number over a limit, a model that is not
                a name inside ``models``, or a value the agent refuses.
        """
        spec = read_agent_spec(_text(text, "agent"))
        options = dict(spec.options)
        self._check_agent_numbers(spec, options)
        if spec.kind in _SEARCH_KINDS:
            if options.get("max_nodes") is None:
                options["max_nodes"] = default_nodes(self.limits)
            if options.get("time_limit") is None and math.isfinite(self.limits.seconds):
                options["time_limit"] = self.limits.seconds
        if spec.kind in _MODEL_KINDS and "model" in options:
            options["model"] = str(self.model_path(spec.text, options["model"]))
        checked = replace(spec, options=options)
        try:
            agent = make_agent(checked)  # validates every option (nothing starts yet)
        except SpecError:
            raise
        except Exception as error:  # a file of the models folder that is not a model
            raise SpecError(
                f"agent spec {spec.text!r} failed: {type(error).__name__}: {error}"
            ) from None
        close = getattr(agent, "close", None)
        if callable(close):
            close()
        return checked

    def _check_agent_numbers(self, spec: AgentSpec, options: Mapping[str, Any]) -> None:
        limits = self.limits
        checks: list[tuple[str, float, str]] = [
            (key, limits.iterations, "--max-iterations") for key in _COUNTS
        ]
        checks += [
            ("workers", limits.workers, "--max-workers"),
            ("time_limit", limits.seconds, "--max-time"),
            ("max_nodes", limits.nodes, "--max-nodes"),
            ("threads", limits.threads, "--max-threads"),
        ]
        kernel = options.get("kernel_options")
        kernel = kernel if isinstance(kernel, Mapping) else {}
        checks += [(f"kernel.{k}", limits.iterations, "--max-iterations") for k in _KERNEL_COUNTS]
        for key, high, option in checks:
            value = kernel.get(key[7:]) if key.startswith("kernel.") else options.get(key)
            if not is_number(value, finite=False):
                continue  # absent, or a value the agent itself refuses with a message
            if not value <= high:
                raise SpecError(
                    f"agent spec {spec.text!r}: {key}={value!r} is over the server's limit "
                    f"{high:g} (serve {option} raises it)"
                )

    def model_path(self, text: str, name: Any) -> Path:
        """The model ``name`` inside the models folder.

        Raises:
            SpecError: no models folder, an absolute name, ``..``, or a path that leads out
                of the folder (a link, or a link inside a training run's folder: every file
                the model's loader reads must resolve inside the folder) or to nothing.
        """
        if self.models is None:
            raise SpecError(
                f"agent spec {text!r}: the server loads no model for a request; start it with "
                "--models DIR and name a model inside DIR (model=NAME)"
            )
        name = str(name)
        parts = Path(name).parts
        if not name or os.path.isabs(name) or name.startswith("~") or ".." in parts:
            raise SpecError(
                f"agent spec {text!r}: model={name!r} should be a name inside the models folder "
                "(no absolute path, no '..')"
            )
        folder = self.models.resolve()
        path = (folder / name).resolve()
        if not path.is_relative_to(folder):
            raise SpecError(f"agent spec {text!r}: model={name!r} leads out of the models folder")
        if not path.exists():
            raise SpecError(f"agent spec {text!r}: no model {name!r} in the models folder")
        for inner in _FOLDER_FILES if path.is_dir() else ():
            read = (path / inner).resolve()
            if not read.is_relative_to(folder):
                raise SpecError(
                    f"agent spec {text!r}: model={name!r}: its {inner} leads out of the models "
                    "folder"
                )
        return path

    def results_path(self, file: str) -> str:
        """The results file ``file`` (relative to the results folder, or a path inside it).

        Raises:
            SpecError: a path that leads out of the results folder (``..``, a link, another
                folder).
        """
        folder = (self.results if self.results is not None else Path.cwd()).resolve()
        path = (folder / file).resolve()
        if not path.is_relative_to(folder):
            raise SpecError(
                f"results file {file!r} is outside the folder the server replays from "
                f"({str(folder)!r}; serve --results DIR names another)"
            )
        return str(path)


def _text(text: Any, what: str) -> str:
    if not isinstance(text, str):
        raise SpecError(f"{what} spec must be a string, got {text!r}")
    if len(text) > MAX_SPEC_CHARS:
        raise SpecError(f"{what} spec {text[:40]!r}... is over {MAX_SPEC_CHARS} characters")
    return text.strip()


def hosts_for(host: str, extra: Iterable[str] = ()) -> tuple[str, ...]:
    """The ``Host`` names of a server listening on ``host``: the loopback names for a loopback
    or wildcard address, ``host`` itself, and ``extra`` (``serve --allow-host``)."""
    names = [host.strip().strip("[]").lower()]
    if names[0] in ("", "0.0.0.0", "::", *LOOPBACK_HOSTS):
        names += LOOPBACK_HOSTS
    names += [h.strip().lower() for h in extra]
    return tuple(dict.fromkeys(n for n in names if n))
