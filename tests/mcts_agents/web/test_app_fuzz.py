"""The web app under generated requests (Hypothesis, a fixed number of examples, derandomized):
addresses made of the registry's envs and agent kinds, their options, code to import, shell
commands, model paths, numbers past the limits and random text. No request gets a 500, imports
a module, runs the planted code, or starts more processes than the limits allow."""

from __future__ import annotations

import multiprocessing
import string
import sys
import time
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")
pytest.importorskip("hypothesis")

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.testclient import TestClient

from mcts_agents import envs, play_match
from mcts_agents.agents.specs import ENV_SPECS
from mcts_agents.web.app import create_app
from mcts_agents.web.policy import Limits, ServerPolicy
from mcts_agents.web.store import Sessions
from tests.mcts_agents.web.test_policy import LOCAL, Evil

EXAMPLES = 250
GAMES = 3
#: small limits, so that the generated games stay cheap on a loaded machine.
LIMITS = Limits(workers=2, iterations=200, seconds=1.0, nodes=20_000, board=9)


#: packages whose lazy imports a request may cause (compiling a kernel)
COMPILER = {"numba", "llvmlite"}


def vocabulary(evil: Evil, results: Path) -> dict[str, list[str]]:
    shell = f"subprocess:getoutput:cmd=touch {evil.pwned}"
    return {
        "envs": [
            *ENV_SPECS,
            shell,
            "os:system:command=true",
            "os:getcwd",
            "this:s",
            "this",
            f"{evil.module}:make",
            f"{evil.module}:make:width=3",
            f"{evil.package}.games",
            f"{evil.package}.games:env",
            "classic/no_such_game-v1",
            "nope",
            "",
        ],
        "options": [
            "width=5",
            "width=64",
            "height=3,width=4,k=3",
            "size=6",
            "size=1000",
            "m=4,n=4,k=3",
            "players=3",
            "players=99",
            "winscore=10",
            "winscore=1e300",
            "num_players=3",
            "k=-1",
            "width=nan",
            "x=1",
            "render_mode=human",
            "=",
            ",",
        ],
        "agents": [
            "random",
            "human",
            "mcts:iterations=20",
            "mcts:iterations=20,backend=python",
            "mcts:iterations=1000000000",
            "mcts:time=0.01",
            "mcts:time=1e9",
            "mcts:time=inf",
            "mcts:iterations=20,workers=2",
            "mcts:iterations=20,workers=256",
            "mcts:iterations=20,max_nodes=1e12",
            "mcts:iterations=20,determinizations=100000000",
            "mcts:iterations=20,evaluator=os:system",
            "mcts:iterations=20,backend=ray",
            "az:model=/etc/passwd",
            f"policy:model={evil.zip}",
            "policy:model=../evil.zip",
            "az:model=x,simulations=1000000000",
            f"{evil.module}:make",
            "wizard",
        ],
        "files": [str(results), str(evil.zip), "/etc/passwd", "/", "../results.jsonl", "nope"],
    }


def requests(words: dict[str, list[str]]) -> Any:
    letters = (string.ascii_letters + string.digits + string.punctuation + " é☃\u200b").replace(
        "#", ""
    )
    text = st.text(alphabet=letters.replace("?", ""), max_size=30)
    number = st.integers(-(10**12), 10**12).map(str)
    env = st.one_of(
        st.sampled_from(words["envs"]),
        st.tuples(st.sampled_from(words["envs"]), st.sampled_from(words["options"])).map(":".join),
        text,
    )
    path = st.one_of(
        st.tuples(st.sampled_from(["/play/", "/watch/"]), env).map("".join),
        st.sampled_from(
            ["/", "/play", "/watch", "/replay", "/api/sessions", "/api/registry", "/static/x"]
        ),
        st.tuples(st.sampled_from(["/api/games/", "/static/", "/"]), text).map("".join),
    )
    value = st.one_of(
        st.sampled_from(words["agents"]),
        st.sampled_from(words["envs"]),
        st.sampled_from(words["files"]),
        number,
        text,
    )
    keys = ["opponent", "p0", "p1", "p2", "seat", "seed", "delay", "env", "file", "game", "step"]
    query = st.dictionaries(st.sampled_from(keys), value, max_size=4)
    return st.tuples(st.sampled_from(["GET", "GET", "GET", "POST"]), path, query)


def test_generated_requests_get_no_500_import_nothing_and_start_no_process_past_the_limits(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.chdir(tmp_path)  # the folder the server replays from
    evil = Evil(tmp_path)
    results = tmp_path / "results.jsonl"
    play_match("tic_tac_toe", ["random", "random"], games=2, seed=0, out=str(results))
    words = vocabulary(evil, results)
    sessions = Sessions(max_sessions=GAMES)
    app = create_app(sessions, policy=ServerPolicy(limits=LIMITS))
    most_seats = most_children = 0
    for module in {module for module, _ in ENV_SPECS.values()}:
        envs.load(module)  # our envs' modules: imported by the registry, not by a request
    seen: dict[int, int] = {}
    with TestClient(app, base_url=LOCAL, raise_server_exceptions=False) as client:
        for warm in (  # the lazy imports of a first page, search (compiled or not), replay
            "/play/tic_tac_toe?opponent=mcts:iterations=20&seat=1",
            "/play/connect_four?opponent=mcts:iterations=20&seat=1",
            "/play/tic_tac_toe?opponent=mcts:iterations=20,backend=python&seat=1",
            "/play/nope",
            f"/replay?file={results}&game=0",
        ):
            client.get(warm)
            for id in sessions.ids():
                until = time.monotonic() + 120
                while not client.get(f"/api/games/{id}").json()["moves"]:
                    assert time.monotonic() < until, warm
                    time.sleep(0.05)
            sessions.close_all()
        import concurrent.futures.thread  # noqa: F401  (asyncio.to_thread's, for the sweeper)

        @settings(
            max_examples=EXAMPLES,
            derandomize=True,
            deadline=None,
            database=None,
            suppress_health_check=list(HealthCheck),
        )
        @given(request=requests(words))
        def check(request: tuple[str, str, dict[str, str]]) -> None:
            nonlocal most_seats, most_children
            method, path, query = request
            before = set(sys.modules)  # (Hypothesis imports its own between examples)
            try:
                reply = client.request(method, path, params=query)
                seen[reply.status_code] = seen.get(reply.status_code, 0) + 1
                assert reply.status_code < 500 or reply.status_code == 503, (request, reply.text)
                if sessions.ids():  # give the agents a moment to start their searches
                    time.sleep(0.2)
                seats = sum(
                    len(s.seats) for s in map(sessions.get, sessions.ids()) if s is not None
                )
                most_seats = max(most_seats, seats)
                allowed = seats * (LIMITS.workers - 1)
                children = len(multiprocessing.active_children())
                most_children = max(most_children, children)
                assert children <= allowed, request
            finally:
                sessions.close_all()
            assert evil.traces() == [] and evil.modules() == set(), request
            # numba's own lazy imports are allowed: a game whose cached kernel is stale (the
            # source hash empties the cache) compiles it on its first page, importing numba's
            # compiler modules, which the warm-up's cached games never needed
            new = {m for m in set(sys.modules) - before if m.split(".")[0] not in COMPILER}
            assert new == set(), request

        check()
    assert seen.get(200, 0) > 10 and seen.get(400, 0) > 10, seen  # both kinds were reached
    assert most_seats > 0 and most_children <= most_seats * (LIMITS.workers - 1)
