"""MkDocs hook: give mkdocstrings the installed layout of the package.

The repository keeps the environments in the top-level folder ``envs/``, installed as
``mcts_agents.envs`` (pyproject's ``package-dir``). griffe reads the source without importing
it and cannot follow that mapping, so, as ``.ci/typecheck`` does for mypy, this hook builds a
farm under ``build/docs-src/``: the folders of ``mcts_agents/`` and of ``envs/`` (as
``mcts_agents/envs/``) made anew, each Python file a copy of its source (griffe resolves a
linked file to its real folder, where ``envs/`` is not), the path ``mkdocs.yml`` gives the
Python handler.

The farm must exist before mkdocstrings reads its configuration: its ``on_config`` makes the
Python handler at once, and the handler drops a search path that does not exist (glob), so on
a fresh clone the first build found no ``mcts_agents.envs``. This hook's ``on_config`` runs
first (a priority above mkdocstrings' default 0), on every build and on each rebuild of
``mkdocs serve`` (so an edited docstring shows).
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from mkdocs.plugins import event_priority

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


@event_priority(100)  # before mkdocstrings' on_config, which reads the search paths
def on_config(config: Any) -> Any:
    build_farm()
    return config
