"""Packages whose public names are imported on first use (PEP 562).

A package lists its public names in ``__all__`` and says where each lives in an
``if TYPE_CHECKING:`` block of ``from <module> import <name>`` lines, read by type checkers as
they are and here, once, from the package's source (one list of names and their modules, not
two). ``lazy_exports(__name__)`` gives the package's ``__getattr__`` and ``__dir__``: a name is
imported from its module the first time it is used, so importing the package imports nothing
of its own and pulls no heavy dependency (numba, torch, Starlette) until a name needs it.
"""

from __future__ import annotations

import ast
import importlib
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

__all__ = ["lazy_exports", "lazy_homes"]


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
