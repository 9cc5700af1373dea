"""What a request may name: nothing it (or a results file it replays) names is imported,
called or unpickled; models only by name from the ``--models`` folder; the numbers it asks
for under the server's limits (``web.policy``), each refusal a 400 naming what was wrong."""

from __future__ import annotations

import base64
import json
import pickle
import sys
import uuid
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

from starlette.testclient import TestClient

from mcts_agents import make_agent, play_match
from mcts_agents.adapters import legal_actions
from mcts_agents.agents.specs import ENV_SPECS
from mcts_agents.errors import InvalidOptionError, SpecError
from mcts_agents.web.app import create_app
from mcts_agents.web.policy import Limits, ServerPolicy, default_nodes, host_name, hosts_for
from mcts_agents.web.store import Sessions, make_env

LOCAL = "http://127.0.0.1:8000"
FAST = "mcts:iterations=60,backend=python"


class Touch:
    """Unpickled, it creates the file ``path`` (a payload that shows it ran, harmlessly)."""

    def __init__(self, path: str) -> None:
        self.path = path

    def __reduce__(self) -> tuple[Any, tuple[str, str]]:
        return (open, (self.path, "w"))


class Evil:
    """A module of code on ``sys.path`` that leaves a file behind when it is imported
    (``<marker>.imported``) and when its functions are called (``<marker>.called``); a
    package of it with ``env()`` too; a marker for a shell command; a malicious model."""

    def __init__(self, folder: Path) -> None:
        tag = uuid.uuid4().hex[:10]
        self.folder = folder
        self.module = f"evil_{tag}"
        self.package = f"evilpkg_{tag}"
        self.imported = folder / "marker.imported"
        self.called = folder / "marker.called"
        self.pwned = folder / "pwned"
        self.unpickled = folder / "marker.unpickled"
        code = (
            "import pathlib\n"
            f"pathlib.Path({str(self.imported)!r}).touch()\n"
            "def make(**kwargs):\n"
            f"    pathlib.Path({str(self.called)!r}).touch()\n"
            "    raise RuntimeError('not an env')\n"
            "env = make\n"
        )
        (folder / f"{self.module}.py").write_text(code)
        (folder / self.package).mkdir()
        (folder / self.package / "__init__.py").write_text("")
        (folder / self.package / "games.py").write_text(code)
        self.zip = folder / "evil.zip"
        payload = base64.b64encode(pickle.dumps(Touch(str(self.unpickled)))).decode()
        data = {
            "policy_class": {":type:": "<class 'abc.ABCMeta'>", ":serialized:": payload},
            "observation_space": {":type:": "<class 'gym.Box'>", ":serialized:": payload},
        }
        with zipfile.ZipFile(self.zip, "w") as archive:
            archive.writestr("data", json.dumps(data))
            archive.writestr("_stable_baselines3_version", "2.3.0")

    def modules(self) -> set[str]:
        return {m for m in sys.modules if m.startswith((self.module, self.package))}

    def traces(self) -> list[Path]:
        marks = (self.imported, self.called, self.pwned, self.unpickled)
        return [path for path in marks if path.exists()]


@pytest.fixture
def evil(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Evil]:
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.chdir(tmp_path)  # the folder the server replays from
    made = Evil(tmp_path)
    yield made
    for name in made.modules():
        del sys.modules[name]


def client_of(policy: ServerPolicy | None = None) -> TestClient:
    app = create_app(Sessions(max_sessions=8), policy=policy)
    return TestClient(app, base_url=LOCAL, raise_server_exceptions=False)


@pytest.fixture
def client() -> Iterator[TestClient]:
    with client_of() as c:
        yield c


def message(reply: Any) -> str:
    if reply.headers["content-type"].startswith("application/json"):
        return str(reply.json()["error"])
    text = str(reply.text).replace("&#x27;", "'").replace("&quot;", '"')
    return text.partition('<p id="error-message">')[2].partition("</p>")[0]


# ------------------------------------------------------------------ nothing is imported
def test_watch_and_play_refuse_module_factory_specs_without_running_them(
    client: TestClient, evil: Evil
) -> None:
    shell = f"subprocess:getoutput:cmd=touch {evil.pwned}"
    urls = [
        f"/watch/{shell}",
        f"/play/{shell}",
        f"/play/{evil.module}:make",
        f"/watch/{evil.module}:make:width=3",
        f"/play/{evil.package}.games",
        f"/play/{evil.package}.games:width=3",
        "/play/os:getcwd",
        f"/replay?file={evil.folder}/none.jsonl&game=0",  # a 404, and nothing imported
    ]
    for url in urls:
        reply = client.get(url)
        assert reply.status_code in (400, 404), (url, reply.status_code)
    for query in ({"env": shell}, {"env": f"{evil.module}:make"}):
        reply = client.get("/play", params=query)  # the index's form, redirected
        assert reply.status_code == 400 and "--allow-env" in message(reply)
    assert evil.traces() == [] and evil.modules() == set()
    refused = client.get(f"/play/{evil.module}:make")
    assert f"{evil.module}:make" in message(refused) and "--allow-env" in message(refused)


def test_a_replayed_results_file_naming_a_module_env_is_refused_unrun(
    client: TestClient, evil: Evil
) -> None:
    out = evil.folder / "games.jsonl"
    play_match("tic_tac_toe", ["random", "random"], games=1, seed=0, out=str(out))
    lines = out.read_text().splitlines()
    for env in (f"{evil.module}:make", f"subprocess:getoutput:cmd=touch {evil.pwned}"):
        edited = [{**json.loads(line), "env": env} for line in lines]  # header and games
        forged = evil.folder / "forged.jsonl"
        forged.write_text("".join(json.dumps(line) + "\n" for line in edited))
        reply = client.get("/replay", params={"file": str(forged), "game": 0})
        assert reply.status_code == 400 and env.split(":")[0] in message(reply)
    assert evil.traces() == [] and evil.modules() == set()


def test_a_replay_reads_only_results_files_inside_the_servers_results_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder, elsewhere = tmp_path / "results", tmp_path / "elsewhere"
    folder.mkdir()
    elsewhere.mkdir()
    play_match("tic_tac_toe", ["random", "random"], games=1, seed=0, out=str(folder / "a.jsonl"))
    play_match("tic_tac_toe", ["random", "random"], games=1, seed=0, out=str(elsewhere / "b.jsonl"))
    (folder / "link.jsonl").symlink_to(elsewhere / "b.jsonl")
    monkeypatch.chdir(elsewhere)  # the server's own folder is not the one it was given
    with client_of(ServerPolicy(results=folder)) as c:
        assert c.get("/replay", params={"file": "a.jsonl"}).status_code == 200
        assert c.get("/replay", params={"file": str(folder / "a.jsonl")}).status_code == 200
        for outside in (
            str(elsewhere / "b.jsonl"),
            "../elsewhere/b.jsonl",
            "link.jsonl",
            "/etc/passwd",
        ):
            reply = c.get("/replay", params={"file": outside})
            assert reply.status_code == 400, outside
            assert "outside the folder" in message(reply) and "--results" in message(reply)


def test_an_allowed_factory_is_served_and_others_still_refused(evil: Evil) -> None:
    allowed = ServerPolicy(allow_env=(f"{evil.module}:make",))
    with client_of(allowed) as c:
        other = c.get(f"/play/{evil.package}.games:make")
        assert other.status_code == 400 and not evil.imported.exists()
        reply = c.get(f"/play/{evil.module}:make")  # imported and called: the person's own
        assert reply.status_code == 400 and "not an env" in message(reply)
    assert evil.imported.exists() and evil.called.exists()


def test_models_come_only_by_name_from_the_models_folder(
    tmp_path: Path, evil: Evil, client: TestClient
) -> None:
    for spec in (f"policy:model={evil.zip}", f"az:model={evil.zip}", "az:model=/etc/passwd"):
        reply = client.get("/play/tic_tac_toe", params={"opponent": spec})
        assert reply.status_code == 400 and "--models" in message(reply), spec
    models = tmp_path / "models"
    models.mkdir()
    (models / "junk.pt").write_bytes(b"not a model")
    (models / "out.zip").symlink_to(evil.zip)
    with client_of(ServerPolicy(models=models)) as c:
        for name, said in [
            (str(evil.zip), "absolute"),
            ("../evil.zip", ".."),
            ("sub/../../evil.zip", ".."),
            ("out.zip", "leads out"),
            ("missing.pt", "no model"),
            ("junk.pt", "junk.pt"),
        ]:
            reply = c.get("/play/tic_tac_toe", params={"opponent": f"policy:model={name}"})
            assert reply.status_code == 400 and said in message(reply), (name, message(reply))
    assert evil.traces() == []


def test_every_file_of_a_model_folder_must_be_inside_the_models_folder(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "best.pt").write_bytes(b"someone else's file")
    (outside / "run.json").write_text("{}")
    models = tmp_path / "models"
    for run, linked in (("linked_best", "best.pt"), ("linked_run", "run.json")):
        folder = models / run
        folder.mkdir(parents=True)
        for name in ("best.pt", "run.json"):
            if name == linked:
                (folder / name).symlink_to(outside / name)
            else:
                (folder / name).write_bytes(b"not a model")
    with client_of(ServerPolicy(models=models)) as c:
        for run, linked in (("linked_best", "best.pt"), ("linked_run", "run.json")):
            reply = c.get("/play/tic_tac_toe", params={"opponent": f"az:model={run}"})
            assert reply.status_code == 400, message(reply)
            assert linked in message(reply) and "leads out" in message(reply), message(reply)


def test_a_model_of_the_models_folder_plays(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    from mcts_agents.alphazero.learn import build_net, save_net
    from mcts_agents.envs.games.mnk import MNK

    game = MNK(3, 3, 3, name="tic_tac_toe")
    models = tmp_path / "models"
    models.mkdir()
    save_net(models / "net.pt", build_net(game, seed=0), game)
    with client_of(ServerPolicy(models=models)) as c:
        reply = c.get("/play/tic_tac_toe", params={"opponent": "policy:model=net.pt", "seat": 1})
        assert reply.status_code == 200, message(reply)


# ------------------------------------------------------------------------------ limits
@pytest.mark.parametrize(
    ("opponent", "named", "option"),
    [
        ("mcts:time=0.2,workers=32", "workers=32", "--max-workers"),
        ("mcts:time=0.2,workers=256", "workers=256", "--max-workers"),
        ("mcts:iterations=100000000", "iterations=100000000", "--max-iterations"),
        ("mcts:time=3600", "time_limit=3600", "--max-time"),
        ("mcts:time=inf", "time_limit=inf", "--max-time"),
        ("mcts:time=nan", "time_limit=nan", "--max-time"),
        ("mcts:iterations=10,max_nodes=1000000000", "max_nodes=1000000000", "--max-nodes"),
        ("mcts:iterations=10,determinizations=10000000", "determinizations", "--max-iter"),
        ("mcts:time=0.2,kernel.min_simulations=10000000", "kernel.min_simulations", "--max-it"),
        ("az:model=x,simulations=10000000", "simulations=10000000", "--max-iterations"),
        ("az:model=x,threads=64", "threads=64", "--max-threads"),
        ("policy:model=x,threads=2", "threads=2", "--max-threads"),
    ],
)
def test_a_request_over_a_limit_is_refused_naming_it(
    client: TestClient, opponent: str, named: str, option: str
) -> None:
    reply = client.get("/play/tic_tac_toe", params={"opponent": opponent})
    assert reply.status_code == 400
    assert named in message(reply) and option in message(reply), message(reply)


@pytest.mark.parametrize(
    ("env", "named"),
    [
        ("connect_four:width=5000,height=5000", "width=5000"),
        ("othello:size=1000", "size=1000"),
        ("mnk:m=100,n=100,k=5", "m=100"),
        ("pig:winscore=1000000000", "winscore=1000000000"),
        ("multi_mnk:num_players=50", "num_players=50"),
        ("classic/tictactoe-v3:screen_height=100000", "screen_height=100000"),
    ],
)
def test_an_env_over_the_board_limit_is_refused_naming_it(
    client: TestClient, env: str, named: str
) -> None:
    reply = client.get(f"/play/{env}", params={"opponent": "random"})
    assert reply.status_code == 400
    assert named in message(reply) and "--max-board" in message(reply), message(reply)


@pytest.mark.parametrize("env", list(ENV_SPECS))
def test_every_env_is_searched_under_the_servers_node_bound(env: str) -> None:
    policy = ServerPolicy()
    agents = ["mcts:iterations=30,backend=python"]
    if env in ("tic_tac_toe", "connect_four"):
        agents.append("mcts:iterations=30")  # a compiled kernel
    for text in agents:
        spec = policy.agent_spec(text)
        assert spec.options["max_nodes"] == default_nodes(Limits()) <= Limits().nodes
        game = make_env(policy.env_spec(env))
        game.reset(seed=0)
        with make_agent(spec, seed=0) as agent:
            assert agent.act(game) in legal_actions(game)


def test_limits_raised_by_the_server_let_a_request_through() -> None:
    policy = ServerPolicy(limits=Limits(workers=3, board=30))
    with client_of(policy) as c:
        assert c.get("/play/connect_four:width=25?opponent=random").status_code == 200
        wide = c.get("/play/connect_four:width=31?opponent=random")
        assert wide.status_code == 400 and "30" in message(wide)
    spec = policy.agent_spec("mcts:iterations=10,workers=3")
    assert spec.options["workers"] == 3
    assert spec.options["max_nodes"] == default_nodes(Limits())  # a search without a bound
    assert policy.agent_spec("mcts:iterations=10,max_nodes=500").options["max_nodes"] == 500
    assert policy.env_spec("pig:winscore=100").kwargs["winscore"] == 100  # its default


def test_an_unknown_env_is_named_with_the_close_one(client: TestClient) -> None:
    reply = client.get("/play/conect_four?opponent=random")
    assert reply.status_code == 400 and "'conect_four'" in message(reply)
    assert "did you mean 'connect_four'?" in message(reply)


def test_a_registry_env_may_not_choose_its_render_mode(client: TestClient) -> None:
    reply = client.get("/play/classic/tictactoe-v3:render_mode=human?opponent=random")
    assert reply.status_code == 400 and "render_mode" in message(reply)


def test_limits_and_policy_refuse_bad_values() -> None:
    with pytest.raises(InvalidOptionError, match="workers"):
        Limits(workers=0)
    with pytest.raises(InvalidOptionError, match="seconds"):
        Limits(seconds=float("nan"))
    with pytest.raises(SpecError, match="characters"):
        ServerPolicy().env_spec("connect_four:" + "k=4," * 200)
    with pytest.raises(SpecError, match="string"):
        ServerPolicy().agent_spec(3)


def test_host_names_of_a_listening_address() -> None:
    assert host_name("[::1]:8000") == "::1" and host_name("LocalHost:80") == "localhost"
    assert host_name("attacker.example") == "attacker.example"
    assert set(hosts_for("127.0.0.1")) == {"127.0.0.1", "localhost", "::1"}
    assert hosts_for("192.168.1.5", ["box.lan"]) == ("192.168.1.5", "box.lan")
    policy = ServerPolicy(hosts=hosts_for("0.0.0.0", ["box.lan"]))
    assert policy.host_allowed("box.lan:8000") and policy.host_allowed("localhost:8000")
    assert not policy.host_allowed("attacker.example:8000")
    assert ServerPolicy(hosts=("*",)).host_allowed("attacker.example")


def test_the_registry_envs_and_agent_kinds_are_served(client: TestClient) -> None:
    pytest.importorskip("pygame")
    for url in (
        "/play/classic/tictactoe-v3?opponent=random",
        f"/watch/connect_four:width=5?p0={FAST}&p1=random",
        "/play/nim?opponent=mcts:iterations=50,workers=1",
    ):
        assert client.get(url).status_code == 200, url


# ------------------------------------------------------------------------ OpenSpiel
SECRET = "root-password-hash-3f9a1c"


def test_openspiel_games_that_read_files_are_refused_unread(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text(f"{SECRET}\n{SECRET}\n")  # OpenSpiel's parser echoes the line it fails on
    missing = tmp_path / "missing.txt"
    out = tmp_path / "games.jsonl"
    play_match("tic_tac_toe", ["random", "random"], games=1, seed=0, out=str(out))
    with client_of(ServerPolicy(results=tmp_path)) as c:
        for env in (
            "openspiel:efg_game:filename={}",
            "openspiel:nfg_game:filename={}",
            "mcts_agents/openspiel-v0:game=efg_game,filename={}",
            "openspiel:bargaining:instances_file={}",
        ):
            answers = []
            for path in (secret, missing):
                reply = c.get(f"/play/{env.format(path)}", params={"opponent": "random"})
                assert reply.status_code == 400 and SECRET not in reply.text, reply.text
                answers.append(message(reply).replace(str(path), "PATH"))
            assert answers[0] == answers[1] and "file" in answers[0], answers
            lines = out.read_text().splitlines()
            forged = tmp_path / "forged.jsonl"
            named = env.format(secret)
            forged.write_text(
                "".join(json.dumps({**json.loads(x), "env": named}) + "\n" for x in lines)
            )
            reply = c.get("/replay", params={"file": "forged.jsonl", "game": 0})
            assert reply.status_code == 400 and SECRET not in reply.text, reply.text


def test_a_fifo_named_by_a_request_does_not_freeze_the_server(tmp_path: Path) -> None:
    """Run in a process of its own: an open() of the FIFO would block it for good."""
    import os
    import subprocess

    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    code = (
        "from mcts_agents.web.policy import ServerPolicy\n"
        "from mcts_agents.errors import SpecError\n"
        "try:\n"
        f"    ServerPolicy().env_spec('openspiel:efg_game:filename={fifo}')\n"
        "except SpecError as error:\n"
        "    print('refused', error)\n"
    )
    process = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    try:
        out, _ = process.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))  # it waits in open(): free it
        process.kill()
        process.communicate()
        raise AssertionError("the spec of a FIFO blocked in open()") from None
    assert out.startswith("refused") and "efg_game" in out


def test_an_openspiel_game_over_the_size_caps_is_a_400_naming_the_cap(client: TestClient) -> None:
    import time

    start = time.monotonic()
    poker = (
        "openspiel:universal_poker:betting=nolimit,stack=200000 200000,bettingAbstraction=fullgame"
    )
    reply = client.get(f"/play/{poker}", params={"opponent": "random"})
    assert reply.status_code == 400 and len(reply.content) < 20_000
    assert "200001 distinct actions" in message(reply) and "30000" in message(reply), message(reply)
    assert time.monotonic() - start < 20
    assert (
        client.get("/play/openspiel:leduc_poker", params={"opponent": "random"}).status_code == 200
    )


# ----------------------------------------------------------------- time and memory bounds
def test_every_search_gets_the_servers_time_bound_whatever_its_budget() -> None:
    policy = ServerPolicy(limits=Limits(seconds=2.5))
    for text in ("mcts:iterations=100000,backend=python", "mcts:max_nodes=5000", "ladder:nim:L1"):
        assert policy.agent_spec(text).options["time_limit"] == 2.5, text
    assert policy.agent_spec("mcts:time=1").options["time_limit"] == 1
    assert "time_limit" not in policy.agent_spec("random").options


def test_a_huge_budget_moves_within_the_servers_time_bound() -> None:
    """Go 19x19 with 100,000 Python simulations took about ten minutes a move."""
    import time

    policy = ServerPolicy(limits=Limits(seconds=0.5))
    with client_of(policy) as c:
        opponent = "mcts:iterations=100000,backend=python"
        page = c.get("/play/go:size=19", params={"opponent": opponent, "seat": 1})
        assert page.status_code == 200, message(page)
        config = page.text.partition('<script id="config" type="application/json">')[2]
        id = json.loads(config.partition("</script>")[0])["id"]
        deadline = time.monotonic() + 30
        while not c.get(f"/api/games/{id}").json()["moves"]:
            assert time.monotonic() < deadline, "the agent's move outlasted --max-time"
            time.sleep(0.1)


def test_the_open_games_searches_hold_at_most_the_servers_total_nodes() -> None:
    policy = ServerPolicy(limits=Limits(nodes=2_000, total_nodes=5_000))
    assert default_nodes(policy.limits) == 5_000 // 16
    with client_of(policy) as c:
        big = "mcts:iterations=50,max_nodes=2000,backend=python"
        for _ in range(2):
            assert c.get("/play/nim", params={"opponent": big}).status_code == 200
        full = c.get("/play/nim", params={"opponent": big})
        assert full.status_code == 503 and "--max-total-nodes" in message(full), message(full)
        assert "4000" in message(full)
        assert c.get("/play/nim", params={"opponent": "random"}).status_code == 200
        watch = c.get("/watch/nim", params={"p0": big, "p1": big})
        assert watch.status_code == 503
        assert c.get("/api/sessions").json()["count"] == 3
