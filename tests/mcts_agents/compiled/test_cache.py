"""Where the compiled kernels are cached (``compiled.cache``): a folder of the user's, never the
installed package or the checkout, and only our functions' cache moved there."""

from __future__ import annotations

import functools
import logging
import os
import shutil
import subprocess
import sys
import sysconfig
import textwrap
from pathlib import Path

import pytest

import mcts_agents
from mcts_agents.compiled.cache import CACHE_DIR_ENV, cache_dir, user_cache_root

ROOT = Path(mcts_agents.__file__).resolve().parents[1]
HOME = {"HOME": "/home/ada"}
#: The variables that choose the folder, removed from a test's subprocess.
CHOOSERS = (CACHE_DIR_ENV, "NUMBA_CACHE_DIR", "XDG_CACHE_HOME")


# ------------------------------------------------------------------------- the folder's rules
def test_the_platform_cache_folder_by_default() -> None:
    assert cache_dir(HOME, "linux") == Path("/home/ada/.cache/mcts-agents/numba")
    assert cache_dir(HOME, "darwin") == Path("/home/ada/Library/Caches/mcts-agents/numba")
    windows = {**HOME, "LOCALAPPDATA": r"C:\Users\ada\AppData\Local"}
    assert str(cache_dir(windows, "win32")) == str(
        Path(r"C:\Users\ada\AppData\Local") / "mcts-agents" / "numba"
    )
    assert user_cache_root(HOME, "win32") == Path("/home/ada/AppData/Local")  # no LOCALAPPDATA


def test_xdg_cache_home_is_read_where_it_is_an_absolute_path() -> None:
    assert cache_dir({**HOME, "XDG_CACHE_HOME": "/var/cache/ada"}, "linux") == Path(
        "/var/cache/ada/mcts-agents/numba"
    )
    # the XDG spec: a relative (or empty) value is ignored
    for ignored in ("relative/cache", ""):
        assert cache_dir({**HOME, "XDG_CACHE_HOME": ignored}, "linux") == Path(
            "/home/ada/.cache/mcts-agents/numba"
        )
    # macOS and Windows have their own folders
    assert cache_dir({**HOME, "XDG_CACHE_HOME": "/x"}, "darwin") == Path(
        "/home/ada/Library/Caches/mcts-agents/numba"
    )


def test_numba_cache_dir_is_honoured_and_our_setting_comes_first() -> None:
    both = {**HOME, "XDG_CACHE_HOME": "/c", "NUMBA_CACHE_DIR": "/numba/cache"}
    assert cache_dir(both, "linux") == Path("/numba/cache")
    assert cache_dir({**both, CACHE_DIR_ENV: "/ours"}, "linux") == Path("/ours/numba")
    assert cache_dir({**both, CACHE_DIR_ENV: "  "}, "linux") == Path("/numba/cache")  # unset
    relative = cache_dir({**HOME, CACHE_DIR_ENV: "caches"}, "linux")
    assert relative == Path.cwd() / "caches" / "numba"  # made absolute once


def run_python(code: str, env: dict[str, str], cwd: Path | None = None) -> str:
    """``code`` in a fresh interpreter with ``env`` over ours (the folder's choosers removed)
    and this checkout first on the path; its stdout (it must succeed)."""
    base = {k: v for k, v in os.environ.items() if k not in CHOOSERS}
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=cwd,
        env={**base, "PYTHONPATH": str(ROOT), **env},
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_our_kernels_are_cached_in_the_folder_and_a_users_own_code_is_not(
    tmp_path: Path,
) -> None:
    """Decided when a function is defined (numba then makes its folder): no compile needed."""
    pytest.importorskip("numba")
    user = tmp_path / "user"
    user.mkdir()
    (user / "users_module.py").write_text(
        "from numba import njit\n\n@njit(cache=True)\ndef plus_one(x):\n    return x + 1\n"
    )
    code = """
        import sys
        from mcts_agents.compiled import common, entries
        from mcts_agents.compiled.rules import mnk
        import numba.core.config
        import users_module
        print(entries.ENTRIES[2][0].stats.cache_path)
        print(common.gain.stats.cache_path)
        print(mnk.legal.stats.cache_path)
        print(users_module.plus_one.stats.cache_path)
        print(repr(numba.core.config.CACHE_DIR))
    """
    xdg = tmp_path / "xdg"
    lines = run_python(code, {"XDG_CACHE_HOME": str(xdg), "PYTHONPATH": f"{ROOT}:{user}"})
    *ours, users, config = lines.splitlines()
    for path in map(Path, ours):
        assert path.parent == xdg / "mcts-agents" / "numba" and path.is_dir()
        assert ROOT not in path.parents
    assert Path(users) == user / "__pycache__"  # numba's own rule for the user's code
    assert config == "''"  # restored

    ours_folder = tmp_path / "setting"
    setting = {CACHE_DIR_ENV: str(ours_folder), "NUMBA_CACHE_DIR": str(tmp_path / "numba")}
    lines = run_python(code, {**setting, "PYTHONPATH": f"{ROOT}:{user}"})
    *ours, users, config = lines.splitlines()
    assert {Path(path).parent for path in ours} == {ours_folder / "numba"}
    # NUMBA_CACHE_DIR is numba's setting for everyone's code, the user's too
    assert Path(users).parent == tmp_path / "numba"
    assert config == repr(str(tmp_path / "numba"))


# ------------------------------------------------------------------------ a real install
def dependencies_folder(tmp_path: Path) -> Path:
    """A folder of links to this interpreter's installed packages, without mcts-agents (nor
    its editable finder): a fresh venv reads it through a ``.pth`` line, so nothing is
    downloaded and the only mcts_agents it can import is the one installed into it."""
    folder = tmp_path / "dependencies"
    folder.mkdir()
    paths = sysconfig.get_paths()
    for site in dict.fromkeys((paths["purelib"], paths["platlib"])):
        for entry in Path(site).iterdir():
            name = entry.name.lower()
            ours = name.startswith(("mcts_agents", "mcts-agents", "__editable__"))
            if ours or entry.suffix == ".pth" or (folder / entry.name).exists():
                continue
            (folder / entry.name).symlink_to(entry, target_is_directory=entry.is_dir())
    return folder


def numba_files(folder: Path) -> list[str]:
    return sorted(str(p) for p in folder.rglob("*") if p.suffix in (".nbi", ".nbc"))


@pytest.mark.slow
def test_uninstall_then_an_editable_install_works_and_nothing_is_cached_in_the_package(
    tmp_path: Path,
) -> None:
    """The user's path of issue 38: ``pip install .``, a compiled search, ``pip uninstall``,
    ``pip install -e .``. numba's cache used to stay in the uninstalled package's folder,
    which then shadowed the editable install as an empty namespace package (``ImportError:
    cannot import name '__version__'``), and to be written into the checkout."""
    pytest.importorskip("numba")
    pytest.importorskip("setuptools", reason="pip install --no-build-isolation needs setuptools")
    if sys.platform.startswith("win"):
        pytest.skip("the venv's layout is POSIX's here")
    source = tmp_path / "checkout"
    ignore = shutil.ignore_patterns(
        ".git", "__pycache__", "build", "dist", "*.egg-info", ".*_cache", "site", ".venv*"
    )
    shutil.copytree(ROOT, source, ignore=ignore)
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    site = Path(
        subprocess.run(
            [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            capture_output=True, text=True, check=True,
        ).stdout.strip()
    )  # fmt: skip
    (site / "dependencies.pth").write_text(f"{dependencies_folder(tmp_path)}\n")
    elsewhere = tmp_path / "elsewhere"  # no checkout on the path
    elsewhere.mkdir()
    xdg = tmp_path / "xdg"
    env = {k: v for k, v in os.environ.items() if k not in (*CHOOSERS, "PYTHONPATH")}
    env["XDG_CACHE_HOME"] = str(xdg)

    def run(*args: str | Path) -> str:
        done = subprocess.run(
            [python, *args], capture_output=True, text=True, cwd=elsewhere, env=env, timeout=600
        )
        assert done.returncode == 0, f"{args}:\n{done.stdout}\n{done.stderr}"
        return done.stdout

    pip = ("-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation", "--no-index")
    run(*pip, source)
    search = (
        "import mcts_agents\n"
        "from mcts_agents import MCTSAgent\n"
        "from mcts_agents.envs import nim_v0\n"
        "env = nim_v0.env()\n"
        "env.reset(seed=0)\n"
        "agent = MCTSAgent(iterations=20, seed=0, backend='numba')\n"
        "agent.act(env)\n"
        "print(mcts_agents.__file__, agent.last_result.backend)\n"
    )
    where, backend = run("-c", search).split()
    assert Path(where).is_relative_to(site) and backend == "numba"
    run("-m", "pip", "uninstall", "-q", "-y", "mcts-agents")
    assert not (site / "mcts_agents").exists()  # nothing left behind
    run(*pip, "-e", source)
    check = (
        "import mcts_agents\n"
        "from mcts_agents.compiled import entries\n"
        "print(mcts_agents.__version__, mcts_agents.__file__)\n"
        "print(entries.ENTRIES[max(entries.ENTRIES)][0].stats.cache_path)\n"
    )
    first, cached_in = run("-c", check).splitlines()
    assert first.split() == [mcts_agents.__version__, str(source / "mcts_agents" / "__init__.py")]
    assert Path(cached_in).parent == xdg / "mcts-agents" / "numba"
    assert numba_files(site) == [] and numba_files(source) == []
    assert numba_files(xdg / "mcts-agents" / "numba")  # the search's kernel: cached there


def test_a_folder_that_cannot_be_written_never_sends_the_cache_into_the_package(
    tmp_path: Path,
) -> None:
    """numba's own fallback for a cache folder it cannot write is the folder beside the source
    (``compiled/__pycache__``, inside the package): a temporary folder of the user's takes its
    place, and where that cannot be written either, nothing is cached."""
    pytest.importorskip("numba")
    blocker = tmp_path / "a-file"  # a folder below a file can never be made, even by root
    blocker.write_text("")
    code = """
        from mcts_agents.compiled import cache, common
        print(common.gain.stats.cache_path)
        print(cache.fallback_dir())
    """
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    env = {CACHE_DIR_ENV: str(blocker / "cache"), "TMPDIR": str(temporary)}
    cached_in, fallback = run_python(code, env).splitlines()
    assert Path(fallback).is_relative_to(temporary)
    assert Path(cached_in).parent == Path(fallback) and ROOT not in Path(cached_in).parents


def test_with_no_folder_to_write_nothing_is_cached(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    pytest.importorskip("numba")
    from mcts_agents.compiled import cache

    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setattr(cache, "cache_dir", lambda: blocker / "cache")
    monkeypatch.setattr(cache, "fallback_dir", lambda: blocker / "tmp")
    monkeypatch.setattr(cache, "_folder", functools.cache(cache._folder.__wrapped__))
    with caplog.at_level(logging.WARNING, logger="mcts_agents.compiled"):
        plus_one = cache.njit(cache=True)(lambda x: x + 1)
    assert type(plus_one._cache).__name__ == "NullCache"
    assert "no writable folder for the compiled kernels' cache" in caplog.text
    assert not list(Path(cache.__file__).parent.glob("__pycache__/*<lambda>*"))


def test_every_kernel_of_the_package_is_cached_in_the_folder() -> None:
    """Each cached kernel of ``compiled/`` is defined by ``cache.njit`` (numba's own ``njit``
    would cache it beside its source, inside the package): its cache is in the folder."""
    pytest.importorskip("numba")
    import importlib
    import pkgutil

    from numba.core.registry import CPUDispatcher

    import mcts_agents.compiled as package
    from mcts_agents.compiled import cache

    folder = cache._folder()
    assert folder is not None
    misplaced = []
    for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
        module = importlib.import_module(info.name)
        for name, value in vars(module).items():
            if isinstance(value, CPUDispatcher) and value.__module__ == module.__name__:
                path = getattr(value._cache, "_cache_path", None)
                if path is not None and not Path(path).is_relative_to(folder):
                    misplaced.append(f"{info.name}.{name}")
    assert misplaced == []
