"""Source checkouts: the top-level ``envs/`` folder is the ``mcts_agents.envs`` package."""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType


class SourceEnvsFinder(importlib.abc.MetaPathFinder):
    """Finds ``mcts_agents.envs`` in the repository's top-level ``envs/`` folder.

    An installed package holds ``mcts_agents/envs/`` (pyproject's ``package-dir`` maps it
    there), so this finder is never installed. A source checkout keeps the folder at the top
    level, next to ``mcts_agents/``; there it is found under the library's name, never as a
    top-level ``envs`` (which would clash with a user's own ``envs`` package), and only when
    it is first imported (``import mcts_agents`` itself stays cheap). Its submodules are found
    through the package's ``__path__`` as usual.
    """

    def __init__(self, init: Path) -> None:
        self.init = init

    def find_spec(
        self,
        fullname: str,
        path: Sequence[str] | None,
        target: ModuleType | None = None,
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname != "mcts_agents.envs":
            return None
        return importlib.util.spec_from_file_location(
            fullname, self.init, submodule_search_locations=[str(self.init.parent)]
        )


def mount_source_envs() -> None:
    """In a source checkout, make ``envs/`` importable as ``mcts_agents.envs`` (see
    ``SourceEnvsFinder``); in an installed package, do nothing."""
    here = Path(__file__).resolve().parent
    if (here / "envs").is_dir() or any(isinstance(f, SourceEnvsFinder) for f in sys.meta_path):
        return
    init = here.parent / "envs" / "__init__.py"
    if not init.is_file():
        raise ImportError(f"mcts_agents.envs is missing: neither {here / 'envs'} nor {init} exists")
    sys.meta_path.insert(0, SourceEnvsFinder(init))


mount_source_envs()
