"""``mcts-agents serve``: prints its URL and serves it, refuses a port in use in one line, and
names the ``web`` extra when Starlette or Uvicorn is missing."""

from __future__ import annotations

import importlib.util
import signal
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from mcts_agents.cli.main import main
from mcts_agents.errors import WebNotInstalledError
from mcts_agents.web import require_web


def test_without_the_web_extra_serve_names_it(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    real = importlib.util.find_spec

    def find_spec(name: str, *args: Any) -> Any:
        return None if name == "uvicorn" else real(name, *args)

    monkeypatch.setattr(importlib.util, "find_spec", find_spec)
    with pytest.raises(WebNotInstalledError, match=r'pip install "\.\[web\]"'):
        require_web()
    assert main(["serve", "--port", "0"]) == 2
    err = capsys.readouterr().err
    assert 'pip install ".[web]"' in err and "uvicorn" in err and "Traceback" not in err


def test_the_core_imports_without_the_web_packages() -> None:
    code = (
        "import sys; sys.modules['starlette'] = None; sys.modules['uvicorn'] = None\n"
        "import mcts_agents, mcts_agents.cli.main, mcts_agents.web.views\n"
        "print('ok')"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert run.returncode == 0 and run.stdout.strip() == "ok", run.stderr


def test_serve_prints_its_url_and_serves_until_interrupted() -> None:
    pytest.importorskip("uvicorn")
    pytest.importorskip("starlette")
    process = subprocess.Popen(
        [sys.executable, "-m", "mcts_agents", "serve", "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        assert line.startswith("mcts-agents: serving on http://127.0.0.1:"), line
        url = line.split()[3]
        with urllib.request.urlopen(url, timeout=20) as page:
            assert page.status == 200 and b"connect_four" in page.read()
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=20) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def test_a_port_in_use_is_refused_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("uvicorn")
    pytest.importorskip("starlette")
    from mcts_agents.web.server import bind

    taken = bind("127.0.0.1", 0)
    try:
        port = str(taken.getsockname()[1])
        assert main(["serve", "--port", port]) == 1
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1 and port in err and "--port" in err
    finally:
        taken.close()


def test_serve_options_make_the_servers_policy(tmp_path: Path) -> None:
    from mcts_agents.cli.main import build_parser
    from mcts_agents.cli.serve import policy_of

    args = build_parser().parse_args(
        ["serve", "--allow-env", "mygames:make_env", "--models", str(tmp_path),
         "--results", str(tmp_path),
         "--max-workers", "3", "--max-iterations", "500", "--max-time", "2.5",
         "--max-nodes", "9000", "--max-board", "12", "--allow-host", "box.lan",
         "--max-total-nodes", "50000", "--max-threads", "4"]
    )  # fmt: skip
    policy = policy_of(args)
    assert policy.allow_env == ("mygames:make_env",) and policy.models == tmp_path
    assert policy.results == tmp_path
    limits = policy.limits
    assert (limits.workers, limits.iterations, limits.seconds, limits.nodes, limits.board) == (
        3, 500, 2.5, 9000, 12
    )  # fmt: skip
    assert (limits.total_nodes, limits.threads) == (50_000, 4)
    assert set(policy.hosts) == {"127.0.0.1", "localhost", "::1", "box.lan"}
    default = policy_of(build_parser().parse_args(["serve"]))
    assert default.allow_env == () and default.models is None and default.limits.workers == 1
    assert (default.limits.total_nodes, default.limits.threads) == (4_000_000, 1)
    assert default.results is None  # the folder the server runs in


@pytest.mark.parametrize(
    ("option", "value", "said"),
    [
        ("--models", "no_such_folder", "not a folder"),
        ("--results", "nowhere", "not a folder"),
        ("--max-time", "0", "seconds"),
    ],
)
def test_a_bad_serve_option_is_a_usage_error(
    capsys: pytest.CaptureFixture[str], option: str, value: str, said: str
) -> None:
    with pytest.raises(SystemExit) as exit:
        main(["serve", option, value])
    assert exit.value.code == 2 and said in capsys.readouterr().err


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("--host", "999.1.1.1"),
        ("--host", "not a host"),
        ("--host", "no-such-host.invalid"),
        ("--allow-env", "junk!"),
        ("--allow-env", "mygames:make_env:width=3"),
        ("--max-total-nodes", "0"),
        ("--max-threads", "0"),
    ],
)
def test_a_bad_address_env_or_bound_is_a_usage_error_naming_the_option(
    capsys: pytest.CaptureFixture[str], option: str, value: str
) -> None:
    from mcts_agents.cli.main import build_parser

    with pytest.raises(SystemExit) as exit:  # parsed only: nothing would serve
        build_parser().parse_args(["serve", option, value])
    said = capsys.readouterr().err
    assert exit.value.code == 2 and option in said and value in said, said
    args = build_parser().parse_args(["serve", "--host", "::1", "--allow-env", "my.games"])
    assert args.host == "::1" and args.allow_env == ["my.games"]


def test_the_served_server_answers_its_own_host_names_only() -> None:
    pytest.importorskip("uvicorn")
    pytest.importorskip("starlette")
    process = subprocess.Popen(
        [sys.executable, "-m", "mcts_agents", "serve", "--port", "0", "--allow-host", "box.lan"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        url = process.stdout.readline().split()[3]

        def status(host: str) -> int:
            request = urllib.request.Request(url + "api/sessions", headers={"Host": host})
            try:
                with urllib.request.urlopen(request, timeout=20) as reply:
                    return int(reply.status)
            except urllib.error.HTTPError as error:
                return int(error.code)

        port = url.rstrip("/").rpartition(":")[2]
        assert status(f"127.0.0.1:{port}") == 200 and status(f"box.lan:{port}") == 200
        assert status(f"attacker.example:{port}") == 400
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=20) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
