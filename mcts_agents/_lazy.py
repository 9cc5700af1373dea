"""Packages whose public names are imported on first use (PEP 562).

A package lists its public names in ``__all__`` and says where each lives in an
``if TYPE_CHECKING:`` block of ``from <module> import <name>`` lines, read by type checkers as
they are and here, once, from the package's source (one list of names and their modules, not
two). ``lazy_exports(__name__)`` gives the package's ``__getattr__`` and ``__dir__``: a name is
imported from its module the first time it is used, so importing the package imports nothing
of its own and pulls no heavy dependency (numba, torch, Starlette) until a name needs it.

The Gymnasium ids ``mcts_agents/<variant>-vs-agent-v0`` are registered the same lazy way
(``register_gym_ids_on_import``, called by ``import mcts_agents``): their entry points are
strings, imported by ``gymnasium.make`` only, and the registration itself happens when
Gymnasium is imported (at once if it already is), so ``import mcts_agents`` imports neither
Gymnasium nor numpy, and ``import mcts_agents; import gymnasium; gymnasium.make(id)`` works.
The variants are ``mcts_agents.envs.ENV_MODULES``' names, read from its source (importing
``envs`` would import PettingZoo, which imports Gymnasium).
"""

from __future__ import annotations

import ast
import contextlib
import importlib
import importlib.util
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

__all__ = [
    "gym_id",
    "gym_variants",
    "lazy_exports",
    "lazy_homes",
    "register_gym_ids",
    "register_gym_ids_on_import",
]

#: What ``gymnasium.make`` and ``gymnasium.make_vec`` import for an id (nothing before).
GYM_ENTRY_POINT = "mcts_agents.rl.registration:make_vs_agent"
GYM_VECTOR_ENTRY_POINT = "mcts_agents.rl.vector:make_vector_vs_agent"


def lazy_homes(path: str | Path) -> dict[str, str]:
    """Public name -> the module it comes from, read from the ``TYPE_CHECKING`` block of the
    source file ``path`` (empty when it has none)."""
    tree = ast.parse(Path(path).read_text(encoding="utf-8"))
    homes: dict[str, str] = {}
    for node in tree.body:
        if not (
            isinstance(node, ast.If)
            and isinstance(node.test, ast.Name)
            and node.test.id == "TYPE_CHECKING"
        ):
            continue
        for statement in node.body:
            if isinstance(statement, ast.ImportFrom) and statement.module:
                for alias in statement.names:
                    homes[alias.asname or alias.name] = statement.module
    return homes


def lazy_exports(
    package: str,
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``(__getattr__, __dir__)`` for the package ``package`` (its ``__name__``), whose public
    names are those of its ``__all__`` and whose homes are its ``TYPE_CHECKING`` imports."""
    homes: dict[str, str] | None = None

    def __getattr__(name: str) -> Any:
        nonlocal homes
        module = sys.modules[package]
        if homes is None:
            homes = lazy_homes(str(module.__file__))
        home = homes.get(name)
        if home is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(home), name)
        setattr(module, name, value)
        return value

    def __dir__() -> list[str]:
        module = sys.modules[package]
        return sorted({*vars(module), *getattr(module, "__all__", ())})

    return __getattr__, __dir__


# ------------------------------------------------------------------------------- Gymnasium ids
def gym_id(variant: str) -> str:
    """The Gymnasium id of ``variant`` (an env spec name such as ``"connect_four"``)."""
    return f"mcts_agents/{variant}-vs-agent-v0"


def gym_variants() -> list[str]:
    """The env variants (spec names) of ``mcts_agents.envs.ENV_MODULES``, in its order: from
    the module when it is loaded, else from its source (``ast``; nothing is imported)."""
    envs = sys.modules.get("mcts_agents.envs")
    modules = getattr(envs, "ENV_MODULES", None)
    if modules is None:
        spec = importlib.util.find_spec("mcts_agents.envs")
        if spec is None or spec.origin is None:
            raise ImportError("mcts_agents.envs is missing")
        tree = ast.parse(Path(spec.origin).read_text(encoding="utf-8"))
        for node in tree.body:
            if (
                isinstance(node, ast.AnnAssign)
                and isinstance(node.target, ast.Name)
                and node.target.id == "ENV_MODULES"
                and node.value is not None
            ):
                modules = ast.literal_eval(node.value)
                break
        else:
            raise ImportError(f"{spec.origin} defines no ENV_MODULES literal")
    return [variant for variants in modules.values() for variant in variants]


def register_gym_ids() -> None:
    """Register every variant's id with Gymnasium (imported here); ids already registered are
    left alone, so calling it again warns nothing."""
    import gymnasium

    for variant in gym_variants():
        env_id = gym_id(variant)
        if env_id not in gymnasium.registry:
            gymnasium.register(
                id=env_id,
                entry_point=GYM_ENTRY_POINT,
                vector_entry_point=GYM_VECTOR_ENTRY_POINT,
                kwargs={"env": variant},
            )


def register_gym_ids_on_import() -> None:
    """``register_gym_ids()`` now if Gymnasium is imported, else as soon as its import ends
    (a finder at the front of ``sys.meta_path``, removed once it has run)."""
    if "gymnasium" in sys.modules:
        register_gym_ids()
    elif not any(isinstance(finder, _AfterImport) for finder in sys.meta_path):
        sys.meta_path.insert(0, _AfterImport("gymnasium", register_gym_ids))


class _AfterImport:
    """A meta path finder that finds nothing itself: for the module ``name`` it takes the spec
    the other finders give and runs ``then()`` after the module's code (then leaves)."""

    def __init__(self, name: str, then: Callable[[], None]) -> None:
        self.name, self.then = name, then

    def find_spec(self, fullname: str, path: Any, target: Any = None) -> Any:
        if fullname != self.name:
            return None
        for finder in list(sys.meta_path):
            find = getattr(finder, "find_spec", None)
            if finder is self or find is None:
                continue
            spec = find(fullname, path, target)
            if spec is not None:
                break
        else:
            return None
        if spec.loader is not None and hasattr(spec.loader, "exec_module"):
            spec.loader = _ThenLoader(spec.loader, self)
        return spec

    def done(self) -> None:
        with contextlib.suppress(ValueError):
            sys.meta_path.remove(self)
        try:
            self.then()
        except Exception:  # never break the import of the module watched
            import logging

            logging.getLogger(__name__).warning(
                "could not register the mcts_agents Gymnasium ids", exc_info=True
            )


class _ThenLoader:
    """The module's own loader, then ``finder.done()``; the module keeps its own loader."""

    def __init__(self, loader: Any, finder: _AfterImport) -> None:
        self.loader, self.finder = loader, finder

    def create_module(self, spec: Any) -> Any:
        return self.loader.create_module(spec)

    def exec_module(self, module: Any) -> None:
        module.__loader__ = self.loader
        if module.__spec__ is not None:
            module.__spec__.loader = self.loader
        self.loader.exec_module(module)
        self.finder.done()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.loader, name)
