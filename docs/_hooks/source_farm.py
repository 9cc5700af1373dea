"""MkDocs hook: give mkdocstrings the installed layout of the package.

The repository keeps the environments in the top-level folder ``envs/``, installed as
``mcts_agents.envs`` (pyproject's ``package-dir``). griffe reads the source without importing
it and cannot follow that mapping, so, as ``.ci/typecheck`` does for mypy, this hook builds a
farm under ``build/docs-src/``: the folders of ``mcts_agents/`` and of ``envs/`` (as
``mcts_agents/envs/``) made anew, each Python file a copy of its source (griffe resolves a
linked file to its real folder, where ``envs/`` is not), the path ``mkdocs.yml`` gives the
Python handler.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
FARM = ROOT / "build" / "docs-src"


def build_farm() -> Path:
    """(Re)build the farm and return the folder to put on griffe's search path."""
    package = FARM / "mcts_agents"
    if package.exists():
        shutil.rmtree(package)
    package.mkdir(parents=True)
    for source, target in ((ROOT / "mcts_agents", package), (ROOT / "envs", package / "envs")):
        for file in sorted(source.rglob("*.py")):
            link = target / file.relative_to(source)
            link.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(file, link)  # copies: griffe resolves links to their real folder
    return FARM


def on_config(config: Any) -> Any:
    build_farm()
    return config
