"""The site's pages are run and checked, so they cannot rot.

Every ```python block of ``docs/*.md`` runs in a fresh interpreter (as the README's do,
``tests/test_readme.py``, through the same helpers here). A block may not run only when the
line before it says why: ``<!-- not run: REASON -->`` (counted: at most ``MAX_NOT_RUN`` in all
the pages and the README). A block that needs an optional extra (torch, Stable-Baselines3,
Ray, RLlib, ...) skips, saying which, where that is not installed: found from its imports, or named
on the line before it as ``<!-- needs: torch, sb3_contrib -->`` when it needs one through a
spec string (``az:model=...``).
"""

from __future__ import annotations

import ast
import importlib.util
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = sorted((ROOT / "docs").glob("*.md"))
#: blocks that may be marked "not run" in README.md and docs/*.md together.
MAX_NOT_RUN = 5
_NOT_RUN = re.compile(r"<!--\s*not run:\s*(.*?)\s*-->")
_NEEDS = re.compile(r"<!--\s*needs:\s*(.*?)\s*-->")
#: an import of the first names -> the module the block needs (an optional extra).
_OPTIONAL_IMPORTS = {
    "mcts_agents.alphazero.learn": "torch",
    "torch": "torch",
    "sb3_contrib": "sb3_contrib",
    "stable_baselines3": "stable_baselines3",
    "ray": "ray",
    "ray.rllib": "ray.rllib",  # Ray without RLlib's own dependencies has the folder: imported
    "mcts_agents.rl.rllib": "ray.rllib",
    "torchrl": "torchrl",
    "tensordict": "torchrl",
    "matplotlib": "matplotlib",
    "starlette": "starlette",
}


@dataclass(frozen=True)
class Block:
    """One ```python block of a page: where it is, its code, and what its markers say."""

    page: str
    line: int
    code: str
    not_run: str | None
    needs: tuple[str, ...]

    @property
    def name(self) -> str:
        return f"{self.page}:{self.line}"


def python_blocks(path: Path) -> list[Block]:
    """The ```python blocks of ``path`` with the markers on the line before each."""
    lines = path.read_text().splitlines()
    page = str(path.relative_to(ROOT))
    blocks = []
    index = 0
    while index < len(lines):
        if lines[index].strip() != "```python":
            index += 1
            continue
        start = index
        end = next(i for i in range(start + 1, len(lines)) if lines[i].strip() == "```")
        before = next((lines[i] for i in range(start - 1, -1, -1) if lines[i].strip()), "")
        not_run = _NOT_RUN.search(before)
        needs = _NEEDS.search(before)
        code = "\n".join(lines[start + 1 : end]) + "\n"
        blocks.append(
            Block(
                page,
                start + 1,
                code,
                not_run.group(1) if not_run else None,
                tuple(sorted(set(_imports_needing(code)) | set(_names(needs)))),
            )
        )
        index = end + 1
    return blocks


def _names(match: re.Match[str] | None) -> list[str]:
    return [name.strip() for name in match.group(1).split(",")] if match else []


def _imports_needing(code: str) -> list[str]:
    needed = []
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            modules = [node.module]
        else:
            continue
        for module in modules:
            for prefix, needs in _OPTIONAL_IMPORTS.items():
                if module == prefix or module.startswith(prefix + "."):
                    needed.append(needs)
    return needed


@cache
def _import_registers_gymnasium_ids() -> bool:
    probe = "import gymnasium, mcts_agents; gymnasium.spec('mcts_agents/connect_four-vs-agent-v0')"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, env=env, capture_output=True)
    return done.returncode == 0


@cache
def _installed(name: str) -> bool:
    """Whether ``name`` imports: a top-level module is found; a sub-package (``ray.rllib``,
    whose folder Ray always ships) is imported, in a fresh interpreter."""
    if "." not in name:
        return importlib.util.find_spec(name) is not None
    done = subprocess.run([sys.executable, "-c", f"import {name}"], capture_output=True)
    return done.returncode == 0


def run_block(block: Block) -> None:
    """Run ``block`` in a fresh interpreter from the repository root (skip or fail as due)."""
    if block.not_run is not None:
        assert block.not_run, f"{block.name}: a block marked 'not run' must say why"
        pytest.skip(f"not run: {block.not_run}")
    if (
        "gymnasium.make" in block.code
        and "import mcts_agents.rl" not in block.code
        and not _import_registers_gymnasium_ids()
    ):
        # the docs' convention (issue 41): `import mcts_agents` registers the Gymnasium ids;
        # a tree without that change fails such a block, expectedly (and passes it with it)
        pytest.xfail("`import mcts_agents` does not register the Gymnasium ids yet (issue 41)")
    missing = [name for name in block.needs if not _installed(name)]
    if missing:
        pytest.skip(f"needs {', '.join(missing)}, which is not installed")
    # a fresh interpreter: a block must import what it uses itself (in one process, a name or a
    # Gymnasium id that an earlier block loaded would hide its absence)
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
    }
    done = subprocess.run(
        [sys.executable, "-c", block.code],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, f"{block.name}\n{done.stdout}{done.stderr}"


DOC_BLOCKS = [block for page in PAGES for block in python_blocks(page)]


def test_the_pages_show_python() -> None:
    assert {block.page for block in DOC_BLOCKS} >= {
        "docs/index.md",
        "docs/getting-started.md",
        "docs/hidden-information.md",
        "docs/rl.md",
        "docs/alphazero.md",
        "docs/ladder.md",
    }


@pytest.mark.parametrize("block", DOC_BLOCKS, ids=[block.name for block in DOC_BLOCKS])
def test_python_block_runs_on_its_own(block: Block) -> None:
    run_block(block)


def test_few_blocks_are_marked_not_run_and_each_says_why() -> None:
    blocks = DOC_BLOCKS + python_blocks(ROOT / "README.md")
    marked = [block for block in blocks if block.not_run is not None]
    assert len(marked) <= MAX_NOT_RUN, [block.name for block in marked]
    assert all(block.not_run for block in marked), [block.name for block in marked]


def test_no_install_line_names_the_unpublished_package() -> None:
    # mcts-agents is not on the package index: `pip install "mcts-agents[az]"` fails; a
    # checkout installs with `pip install ".[az]"`
    files = [ROOT / "README.md", *PAGES]
    for folder in ("mcts_agents", "envs", "examples"):
        files += [
            path for path in (ROOT / folder).rglob("*") if path.suffix in {".py", ".md", ".txt"}
        ]
    found = [
        str(path.relative_to(ROOT))
        for path in files
        if "__pycache__" not in path.parts and "mcts-agents[" in path.read_text()
    ]
    assert found == []


def _nav_pages(nav: object) -> list[str]:
    if isinstance(nav, str):
        return [nav]
    if isinstance(nav, list):
        return [page for item in nav for page in _nav_pages(item)]
    if isinstance(nav, dict):
        return [page for value in nav.values() for page in _nav_pages(value)]
    return []


def _nav() -> list[str]:
    text = (ROOT / "mkdocs.yml").read_text().split("\nnav:\n", 1)[1]
    return re.findall(r"^\s+- (?:[^:\n]+: )?([\w./-]+\.md)\s*$", text, flags=re.MULTILINE)


def test_every_page_is_in_the_nav_and_every_guide_on_the_landing_page() -> None:
    nav = _nav()
    assert sorted(page.name for page in PAGES) == sorted(p for p in nav if "/" not in p)
    index = (ROOT / "docs" / "index.md").read_text()
    guides = [p for p in nav if "/" not in p and p not in {"index.md", "changelog.md"}]
    assert [p for p in guides if f"]({p})" not in index] == []


def test_the_site_names_every_cli_command() -> None:
    text = "\n".join(page.read_text() for page in PAGES)
    for command in ("list", "play", "arena", "demo", "rate", "gtp", "serve", "train"):
        assert f"mcts-agents {command}" in text, command
    assert "LadderEvalCallback" in text


def test_the_first_build_of_a_fresh_copy_finds_every_package(tmp_path: Path) -> None:
    # mkdocstrings reads its search paths while MkDocs loads the config; the hook must lay out
    # the source farm before that, or a fresh clone's first build cannot find mcts_agents.envs
    pytest.importorskip("mkdocs")
    pytest.importorskip("mkdocstrings")
    for name in ("docs", "mcts_agents", "envs"):
        shutil.copytree(ROOT / name, tmp_path / name, ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("mkdocs.yml", "CHANGELOG.md"):
        shutil.copy2(ROOT / name, tmp_path / name)
    assert not (tmp_path / "build").exists()
    mkdocs = shutil.which("mkdocs") or pytest.skip("no mkdocs command")
    outside = tmp_path / "elsewhere"  # as .ci/docs: not the source folder, where envs/ is apart
    outside.mkdir()
    site = tmp_path / "site"
    done = subprocess.run(
        [mkdocs, "build", "--strict", "-f", str(tmp_path / "mkdocs.yml"), "-d", str(site)],
        cwd=outside,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "LadderEvalCallback" in (site / "reference" / "rl" / "index.html").read_text()
