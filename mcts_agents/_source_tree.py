"""Source checkouts: the top-level ``envs/`` folder is the ``mcts_agents.envs`` package."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path


def mount_source_envs() -> None:
    """Make the repository's top-level ``envs/`` folder importable as ``mcts_agents.envs``.

    An installed package holds ``mcts_agents/envs/`` (pyproject's ``package-dir`` maps it there),
    so this does nothing. A source checkout keeps the folder at the top level, next to
    ``mcts_agents/``; there it is loaded under the library's name, never as a top-level ``envs``
    (which would clash with a user's own ``envs`` package).
    """
    here = Path(__file__).resolve().parent
    if "mcts_agents.envs" in sys.modules or (here / "envs").is_dir():
        return
    init = here.parent / "envs" / "__init__.py"
    if not init.is_file():
        raise ImportError(f"mcts_agents.envs is missing: neither {here / 'envs'} nor {init} exists")
    spec = importlib.util.spec_from_file_location(
        "mcts_agents.envs", init, submodule_search_locations=[str(init.parent)]
    )
    if spec is None or spec.loader is None:  # pragma: no cover - a .py file always has a loader
        raise ImportError(f"cannot load {init} as mcts_agents.envs")
    module = importlib.util.module_from_spec(spec)
    sys.modules["mcts_agents.envs"] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules["mcts_agents.envs"]
        raise
    # Bind the parent attribute, as the import system does for a submodule it loads.
    setattr(sys.modules["mcts_agents"], "envs", module)  # noqa: B010 (a ModuleType attribute)


mount_source_envs()
