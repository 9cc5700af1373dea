"""Check the built wheel and sdist against the source tree (run by .ci/run after python -m build).

The wheel must hold every module of ``mcts_agents/``, the environments of the top-level
``envs/`` folder as ``mcts_agents/envs/`` (pyproject's ``package-dir``), the web app's static
files and ``py.typed``; the sdist must hold ``envs/`` and ``mcts_agents/`` as they are in the
tree, with the files the build needs. The lists come from the tree, so a module added, moved or
removed is checked without editing this script.

Usage: python .ci/check_dist.py DIST_DIR
"""

from __future__ import annotations

import sys
import tarfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def tree_files(folder: str, pattern: str = "*.py") -> set[str]:
    """Files of ``folder`` (relative to the repository) matching ``pattern``, as posix paths."""
    return {
        path.relative_to(ROOT).as_posix()
        for path in (ROOT / folder).rglob(pattern)
        if "__pycache__" not in path.parts
    }


def main(dist: Path) -> int:
    wheels = sorted(dist.glob("*.whl"))
    sdists = sorted(dist.glob("*.tar.gz"))
    if len(wheels) != 1 or len(sdists) != 1:
        print(f"expected one wheel and one sdist in {dist}, found {wheels + sdists}")
        return 1
    wheel = set(zipfile.ZipFile(wheels[0]).namelist())
    with tarfile.open(sdists[0]) as archive:
        # Every sdist member lies under one top folder, "mcts_agents-<version>/".
        sdist = {name.split("/", 1)[1] for name in archive.getnames() if "/" in name}

    static = tree_files("mcts_agents/web/static", "*")
    want_wheel = {
        *tree_files("mcts_agents"),
        *("mcts_agents/" + name for name in tree_files("envs")),
        *static,
        "mcts_agents/py.typed",
    }
    want_sdist = {
        *tree_files("mcts_agents"),
        *tree_files("envs"),
        *static,
        "mcts_agents/py.typed",
        "pyproject.toml",
        "README.md",
        "LICENSE",
    }
    failures = [
        f"{label} lacks {name}"
        for label, have, want in (("wheel", wheel, want_wheel), ("sdist", sdist, want_sdist))
        for name in sorted(want - have)
    ]
    # No top-level envs package in the wheel: it is installed as mcts_agents.envs only.
    failures += [
        f"wheel holds a top-level {name}" for name in sorted(wheel) if name.startswith("envs/")
    ]
    for failure in failures:
        print(failure)
    if failures:
        return 1
    print(
        f"ok: {wheels[0].name} ({len(want_wheel)} files checked), "
        f"{sdists[0].name} ({len(want_sdist)} files checked)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1])))
