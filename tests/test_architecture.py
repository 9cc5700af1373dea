"""The shape of the library: no import cycles, layers that only look down, modules of a size.

Imports are read from the source (``ast``), wherever they stand: at module level, inside
functions (lazy imports) and under ``if TYPE_CHECKING:``. A cycle hidden behind a lazy import
is still a cycle: two modules that need each other cannot be understood or moved apart.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: Library source folders and the package name each is imported as.
SOURCES = ((ROOT / "mcts_agents", "mcts_agents"), (ROOT / "envs", "mcts_agents.envs"))
MAX_LINES = 500
#: Modules allowed over ``MAX_LINES``, each with its reason (none so far).
LONG_MODULES: dict[str, str] = {}


def library_modules() -> dict[str, Path]:
    """Module name -> file, for every module of the library (packages by their ``__init__``)."""
    modules = {}
    for folder, package in SOURCES:
        for path in folder.rglob("*.py"):
            parts = list(path.relative_to(folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            modules[".".join([package, *parts])] = path
    return modules


MODULES = library_modules()


def imported_names(name: str, path: Path) -> Iterator[str]:
    """Every module name ``path`` imports (absolute; ``from a import b`` gives ``a.b`` when
    that is a module of the library, else ``a``)."""
    is_package = path.name == "__init__.py"
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = name.split(".")
                anchor = anchor if is_package else anchor[:-1]
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, base]) if base else ".".join(anchor)
            for alias in node.names:
                full = f"{base}.{alias.name}"
                yield full if full in MODULES else base


def import_graph() -> dict[str, set[str]]:
    """Library module -> the library modules it imports."""
    return {
        name: {target for target in imported_names(name, path) if target in MODULES} - {name}
        for name, path in MODULES.items()
    }


def strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's strongly connected components (iterative), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                components.append(sorted(component))
    return components


def test_the_cycle_finder_finds_cycles() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    cycles = [c for c in strongly_connected(graph) if len(c) > 1]
    assert cycles == [["a", "b", "c"]]


def test_relative_and_lazy_imports_are_read(tmp_path: Path) -> None:
    source = tmp_path / "mod.py"
    source.write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from mcts_agents.search.mcts import MCTS\n"
        "def f():\n    from . import generic\n    import mcts_agents.agents.play\n"
    )
    names = set(imported_names("mcts_agents.adapters.mod", source))
    assert {
        "mcts_agents.search.mcts",
        "mcts_agents.adapters.generic",
        "mcts_agents.agents.play",
    } <= names


def test_no_import_cycles_between_library_modules() -> None:
    cycles = [c for c in strongly_connected(import_graph()) if len(c) > 1]
    assert cycles == []


def test_envs_import_nothing_of_the_planner() -> None:
    """The environments are the lowest layer: usable without the search, the arena or the CLI."""
    graph = import_graph()
    upward = {
        name: sorted(t for t in targets if not t.startswith("mcts_agents.envs"))
        for name, targets in graph.items()
        if name.startswith("mcts_agents.envs")
    }
    assert {name: targets for name, targets in upward.items() if targets} == {}


def test_the_shared_search_pieces_import_nothing_search_specific() -> None:
    """``searcher`` (protocol, budgets, final move, proofs) is what every searcher imports."""
    neutral = {"mcts_agents.search.config", "mcts_agents.search.game", "mcts_agents.search.result"}
    assert import_graph()["mcts_agents.search.searcher"] <= neutral | {"mcts_agents.errors"}


def test_searchers_do_not_import_each_other() -> None:
    """The Python search and the compiled kernels share only the neutral module."""
    graph = import_graph()
    compiled = {name for name in MODULES if name.startswith("mcts_agents.compiled")}
    assert not graph["mcts_agents.search.mcts"] & compiled
    assert not any("mcts_agents.search.mcts" in graph[name] for name in compiled)


@pytest.mark.parametrize("name", sorted(MODULES))
def test_no_module_is_longer_than_the_line_limit(name: str) -> None:
    path = MODULES[name]
    lines = len(path.read_text().splitlines())
    relative = str(path.relative_to(ROOT))
    assert lines <= MAX_LINES or relative in LONG_MODULES, f"{relative}: {lines} lines"


#: The packages as layers, bottom to top (``docs/architecture.md``): a module imports only from
#: its own package or from a lower layer. The top-level package's ``__init__`` (the public names,
#: loaded lazily) and ``__main__`` sit above everything.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("mcts_agents.envs",),
    ("mcts_agents.errors", "mcts_agents._lazy"),
    ("mcts_agents.checks", "mcts_agents.seeding"),
    ("mcts_agents.ratings", "mcts_agents.plotting"),
    ("mcts_agents.processes", "mcts_agents._source_tree"),
    ("mcts_agents.search",),
    ("mcts_agents.compiled",),
    ("mcts_agents.adapters",),
    ("mcts_agents.planner",),
    ("mcts_agents.alphazero",),
    ("mcts_agents.alphazero.learn",),
    ("mcts_agents.agents",),
    ("mcts_agents.arena",),
    ("mcts_agents.rl",),
    ("mcts_agents.web",),
    ("mcts_agents.cli",),
)
TOP = {"mcts_agents", "mcts_agents.__main__"}


def home(module: str) -> tuple[int, str]:
    """The layer index and package (the longest ``LAYERS`` prefix) of a library module."""
    best: tuple[int, str] | None = None
    for level, packages in enumerate(LAYERS):
        for package in packages:
            inside = module == package or module.startswith(package + ".")
            if inside and (best is None or len(package) > len(best[1])):
                best = (level, package)
    if best is None:
        raise AssertionError(f"{module} is in no layer of LAYERS: add it there and to the docs")
    return best


def test_every_module_has_a_layer() -> None:
    for name in MODULES:
        if name not in TOP:
            home(name)


def test_imports_only_look_down_the_layers() -> None:
    """No import runs upward, or sideways into another package of the same layer."""
    wrong = []
    for name, targets in import_graph().items():
        if name in TOP:
            continue
        level, package = home(name)
        for target in sorted(targets - {"mcts_agents"}):  # the package itself loads nothing
            other_level, other_package = home(target)
            if other_level > level or (other_level == level and other_package != package):
                wrong.append(f"{name} -> {target}")
    assert wrong == []


def test_the_layer_check_sees_an_upward_import() -> None:
    assert home("mcts_agents.search.mcts") < home("mcts_agents.compiled.kernel")
    assert home("mcts_agents.alphazero.learn.net")[1] == "mcts_agents.alphazero.learn"
    assert home("mcts_agents.alphazero.gate")[1] == "mcts_agents.alphazero"
