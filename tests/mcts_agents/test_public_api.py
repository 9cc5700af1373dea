"""The public surface: what ``mcts_agents`` exports is a decision, and every package's
``__all__`` is a list of names that exist, are public and do not hide a submodule."""

from __future__ import annotations

import importlib
import importlib.util
import os
import pkgutil
import subprocess
import sys
import types
from pathlib import Path

import pytest

import mcts_agents

ROOT = Path(__file__).resolve().parents[2]

#: The agreed top-level names: what a user of the README needs. Adding one is a decision;
#: everything else belongs to a sub-package's ``__all__``.
TOP_LEVEL = [
    "Agent",
    "BatchedMCTS",
    "Budget",
    "Game",
    "HumanAgent",
    "MCTSAgent",
    "PolicyAgent",
    "RandomAgent",
    "SearchConfig",
    "SearchResult",
    "SingleAgentVsOpponent",
    "clone_env",
    "derive_seed",
    "game_from_env",
    "ladder",
    "make_agent",
    "make_env",
    "make_searcher",
    "open_model",
    "play_game",
    "play_match",
    "rate",
    "tournament",
]

#: Every sub-package, each documenting itself and exporting its public names.
SUBPACKAGES = [
    "mcts_agents.adapters",
    "mcts_agents.agents",
    "mcts_agents.alphazero",
    "mcts_agents.alphazero.learn",
    "mcts_agents.arena",
    "mcts_agents.cli",
    "mcts_agents.compiled",
    "mcts_agents.planner",
    "mcts_agents.rl",
    "mcts_agents.search",
    "mcts_agents.web",
]

#: What a sub-package's names may need that the core install lacks.
NEEDS = {"mcts_agents.alphazero.learn": "torch", "mcts_agents.web": "starlette"}


def package(name: str) -> types.ModuleType:
    if name in NEEDS:
        pytest.importorskip(NEEDS[name])
    return importlib.import_module(name)


def test_the_top_level_exports_the_agreed_names() -> None:
    assert sorted(mcts_agents.__all__) == sorted(TOP_LEVEL)
    assert len(set(mcts_agents.__all__)) == len(mcts_agents.__all__)


def test_every_top_level_name_resolves_to_its_home() -> None:
    for name in TOP_LEVEL:
        value = getattr(mcts_agents, name)
        home = importlib.import_module(value.__module__)
        assert getattr(home, name) is value, name
    assert mcts_agents.MCTSAgent is importlib.import_module("mcts_agents.agents.agent").MCTSAgent
    assert set(TOP_LEVEL) <= set(dir(mcts_agents))


def test_a_name_no_longer_exported_is_an_attribute_error() -> None:
    for name in ("ReplayBuffer", "gate", "play_selfplay_game", "InvalidOptionError", "MCTS"):
        with pytest.raises(AttributeError, match=name):
            getattr(mcts_agents, name)


@pytest.mark.parametrize("name", SUBPACKAGES)
def test_subpackage_documents_and_exports_its_names(name: str) -> None:
    module = package(name)
    assert module.__doc__ is not None and len(module.__doc__.split()) >= 20, name
    exported = module.__all__
    assert exported, name
    assert len(set(exported)) == len(exported), name
    assert not [n for n in exported if n.startswith("_")], name
    missing = [n for n in exported if not hasattr(module, n)]
    assert not missing, (name, missing)
    # every name is the object of its own home (a class or function, not a stray module)
    modules = [n for n in exported if isinstance(getattr(module, n), types.ModuleType)]
    assert not modules, (name, modules)


@pytest.mark.parametrize("name", SUBPACKAGES)
def test_no_exported_name_is_also_a_submodule(name: str) -> None:
    """Importing ``package.x`` sets the attribute ``x`` to the module: a function ``x`` in
    ``__all__`` would be the module or the function depending on what ran before."""
    module = package(name)
    submodules = {info.name for info in pkgutil.iter_modules(module.__path__)}
    assert not set(module.__all__) & submodules


def test_gate_and_symmetries_are_their_modules_and_the_functions_live_in_them() -> None:
    import mcts_agents.alphazero as alphazero
    from mcts_agents.alphazero.gate import GateResult, gate
    from mcts_agents.alphazero.symmetries import symmetries

    assert isinstance(alphazero.gate, types.ModuleType) and alphazero.gate.gate is gate
    assert isinstance(alphazero.symmetries, types.ModuleType)
    assert alphazero.symmetries.symmetries is symmetries
    assert callable(gate) and callable(symmetries)
    assert alphazero.GateResult is GateResult


def test_mcts_agents_errors_keeps_every_exception() -> None:
    errors = importlib.import_module("mcts_agents.errors")
    classes = [
        value
        for value in vars(errors).values()
        if isinstance(value, type) and issubclass(value, Exception)
    ]
    assert len(classes) >= 20
    for value in classes:
        assert getattr(errors, value.__name__) is value


def test_the_light_packages_load_no_heavy_dependency() -> None:
    """Star-importing the search, planner, AlphaZero (without ``learn``), agents and arena
    loads neither torch nor Starlette; the search alone loads no numba."""
    script = (
        "import sys\n"
        "from mcts_agents.search import *\n"
        "assert 'numba' not in sys.modules, 'search loaded numba'\n"
        "from mcts_agents import *\n"
        "from mcts_agents.planner import *\n"
        "from mcts_agents.alphazero import *\n"
        "from mcts_agents.agents import *\n"
        "from mcts_agents.arena import *\n"
        "from mcts_agents.cli import *\n"
        "heavy = [m for m in ('torch', 'starlette', 'uvicorn') if m in sys.modules]\n"
        "assert not heavy, heavy\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr


def test_web_needs_the_web_extra_only_for_its_server() -> None:
    web = importlib.import_module("mcts_agents.web")
    assert web.__all__ == ["require_web"] and callable(web.require_web)
    if importlib.util.find_spec("starlette") is None:
        pytest.skip("the web extra is not installed")
    from mcts_agents.web.app import create_app
    from mcts_agents.web.server import serve

    assert callable(create_app) and callable(serve)
