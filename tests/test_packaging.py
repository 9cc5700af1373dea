"""Packaging: every package is installed, under the library's own import name.

The repository keeps the environments in the top-level folder ``envs/``; pyproject's
``package-dir`` installs them as ``mcts_agents.envs``, and ``mcts_agents._source_tree`` mounts
the folder under that name in a source checkout. Nothing is importable as a top-level ``envs``,
so a user's project with its own ``envs`` package (a common layout) works next to the library.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import mcts_agents

ROOT = Path(__file__).resolve().parents[1]

USER_SCRIPT = textwrap.dedent(
    """
    import envs  # the user's own package
    from envs.core import WHAT

    import mcts_agents
    from mcts_agents import MCTSAgent
    from mcts_agents.envs import connect_four_v0

    assert WHAT == "the user's envs.core", WHAT
    assert envs.__file__.startswith(USER_DIR), envs.__file__
    env = connect_four_v0.env()
    env.reset(seed=0)
    action = MCTSAgent(iterations=50, seed=0).act(env)
    assert action in range(7), action
    print("ok", mcts_agents.envs.__name__, type(env.unwrapped).__module__)
    """
)


def run_user_project(tmp_path: Path, library_path: Path) -> str:
    """Run a script in a project with its own ``envs`` package; the library on ``library_path``."""
    project = tmp_path / "user_project"
    (project / "envs").mkdir(parents=True)
    (project / "envs" / "__init__.py").write_text("NAME = 'user envs'\n")
    (project / "envs" / "core.py").write_text('WHAT = "the user\'s envs.core"\n')
    script = f"USER_DIR = {str(project)!r}\n" + USER_SCRIPT
    (project / "train.py").write_text(script)
    env = {**os.environ, "PYTHONPATH": str(library_path)}
    done = subprocess.run(
        [sys.executable, "train.py"], cwd=project, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_user_project_with_its_own_envs_package_uses_the_source_tree(tmp_path: Path) -> None:
    out = run_user_project(tmp_path, ROOT)
    assert out.split() == ["ok", "mcts_agents.envs", "mcts_agents.envs.connect_four_v0"]


def test_user_project_with_its_own_envs_package_uses_the_installed_layout(tmp_path: Path) -> None:
    """The layout the build installs: ``mcts_agents/envs/`` inside the package."""
    site = tmp_path / "site"
    ignore = shutil.ignore_patterns("__pycache__")
    shutil.copytree(ROOT / "mcts_agents", site / "mcts_agents", ignore=ignore)
    shutil.copytree(ROOT / "envs", site / "mcts_agents" / "envs", ignore=ignore)
    out = run_user_project(tmp_path, site)
    assert out.split() == ["ok", "mcts_agents.envs", "mcts_agents.envs.connect_four_v0"]


def test_pyproject_installs_every_package_folder() -> None:
    """A package folder missing from pyproject's explicit list would be missing from the wheel."""
    tomllib = pytest.importorskip("tomllib")
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    mapping = config["package-dir"]
    assert mapping == {"mcts_agents.envs": "envs"}
    found = set()
    for top, name in ((ROOT / "mcts_agents", "mcts_agents"), (ROOT / "envs", "mcts_agents.envs")):
        for init in top.rglob("__init__.py"):
            relative = init.parent.relative_to(top).parts
            found.add(".".join((name, *relative)))
    assert set(config["packages"]) == found
    assert (ROOT / "mcts_agents" / "py.typed").is_file()


def test_version_is_one_number_in_pyproject_the_package_and_the_changelog() -> None:
    """``mcts-agents --version`` reads ``__version__``; the wheel's metadata reads pyproject."""
    tomllib = pytest.importorskip("tomllib")
    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    assert mcts_agents.__version__ == version
    changelog = (ROOT / "CHANGELOG.md").read_text()
    assert f"\n## [{version}]" in changelog, f"CHANGELOG.md has no section for {version}"


def test_project_urls_and_classifiers() -> None:
    """The metadata PyPI shows: where the code, docs, changelog and issues are; what it is."""
    tomllib = pytest.importorskip("tomllib")
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert set(project["urls"]) == {"Homepage", "Documentation", "Changelog", "Issues"}
    assert all(url.startswith("https://") for url in project["urls"].values())
    classifiers = project["classifiers"]
    assert "Typing :: Typed" in classifiers and (ROOT / "mcts_agents" / "py.typed").is_file()
    assert "Topic :: Scientific/Engineering :: Artificial Intelligence" in classifiers
    # The Python versions named are those requires-python allows.
    low = tuple(int(part) for part in project["requires-python"].removeprefix(">=").split("."))
    named = [
        tuple(int(part) for part in entry.rsplit(" :: ", 1)[1].split("."))
        for entry in classifiers
        if entry.startswith("Programming Language :: Python :: 3.")
    ]
    assert named and all(version >= low for version in named)
    assert low in named
