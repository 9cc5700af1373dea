"""Other sites' requests and DNS rebinding are refused before any page sees them (``web.guard``),
the open games' ids are not listed, and a move's body is JSON of a bounded size and depth."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

from starlette.testclient import TestClient

from mcts_agents.web.app import create_app
from mcts_agents.web.store import Sessions

LOCAL = "http://127.0.0.1:8000"
FOREIGN = "http://attacker.example"


@pytest.fixture
def client() -> Iterator[TestClient]:
    app = create_app(Sessions(max_sessions=8))
    with TestClient(app, base_url=LOCAL, raise_server_exceptions=False) as c:
        yield c


def open_game(client: TestClient) -> str:
    page = client.get("/play/tic_tac_toe", params={"opponent": "random"})
    match = re.search(r'<script id="config" type="application/json">(.*?)</script>', page.text)
    assert page.status_code == 200 and match
    return str(json.loads(match.group(1))["id"])


def version(client: TestClient, id: str) -> Any:
    return client.get(f"/api/games/{id}").json()["version"]


@pytest.mark.parametrize("path", ["/api/sessions", "/", "/api/registry", "/play/nim"])
def test_a_foreign_host_header_is_refused(client: TestClient, path: str) -> None:
    reply = client.get(path, headers={"host": "attacker.example:8000"})
    assert reply.status_code == 400 and "attacker.example" in reply.text
    for host in ("127.0.0.1:8000", "localhost:8000", "[::1]:8000"):
        assert client.get("/api/sessions", headers={"host": host}).status_code == 200


def test_a_cross_site_move_is_refused_and_changes_nothing(client: TestClient) -> None:
    id = open_game(client)
    before = version(client, id)
    body = json.dumps({"action": 4})
    for headers in (
        {"content-type": "text/plain", "origin": FOREIGN},  # a form or no-cors fetch
        {"content-type": "application/json", "origin": FOREIGN},
        {"content-type": "application/json", "origin": "null"},
        {"content-type": "application/json", "sec-fetch-site": "cross-site"},
        {"content-type": "application/json", "sec-fetch-site": "same-site"},
    ):
        reply = client.post(f"/api/games/{id}/move", content=body, headers=headers)
        assert reply.status_code == 403 and "refused" in reply.json()["error"], headers
    plain = client.post(
        f"/api/games/{id}/move", content=body, headers={"content-type": "text/plain"}
    )
    assert plain.status_code == 400 and "application/json" in plain.json()["error"]
    closing = client.post(f"/api/games/{id}/close", headers={"origin": FOREIGN})
    assert closing.status_code == 403
    assert version(client, id) == before
    assert client.get("/api/sessions").json()["count"] == 1


def test_the_pages_own_requests_pass(client: TestClient) -> None:
    id = open_game(client)
    same = {"origin": LOCAL, "sec-fetch-site": "same-origin"}
    reply = client.post(f"/api/games/{id}/move", json={"action": 4}, headers=same)
    assert reply.status_code == 200 and reply.json()["game"]["moves"][0]["action"] == 4
    beacon = {**same, "content-type": "text/plain;charset=UTF-8"}  # navigator.sendBeacon
    assert client.post(f"/api/games/{id}/close", content=b"", headers=beacon).json() == {
        "closed": True
    }


def test_another_site_may_link_to_a_page_but_not_load_it_inside_its_own(
    client: TestClient,
) -> None:
    link = {
        "sec-fetch-site": "cross-site",
        "sec-fetch-mode": "navigate",
        "sec-fetch-dest": "document",
    }
    assert client.get("/play/nim", params={"opponent": "random"}, headers=link).status_code == 200
    for mode in ("no-cors", "cors"):
        embedded = {"sec-fetch-site": "cross-site", "sec-fetch-mode": mode}
        reply = client.get("/play/nim", params={"opponent": "random"}, headers=embedded)
        assert reply.status_code == 403
    for site in ("cross-site", "same-site"):  # a page of theirs in a (hidden) frame
        for dest in ("iframe", "frame", "embed", "object", ""):
            framed = {"sec-fetch-site": site, "sec-fetch-mode": "navigate", "sec-fetch-dest": dest}
            reply = client.get("/play/nim", params={"opponent": "random"}, headers=framed)
            assert reply.status_code == 403, (site, dest)
    api = client.get("/api/sessions", headers=link)
    assert api.status_code == 403
    assert client.get("/api/sessions").json()["count"] == 1  # only the linked page's game


def test_the_sessions_api_lists_no_game_ids(client: TestClient) -> None:
    ids = [open_game(client) for _ in range(2)]
    reply = client.get("/api/sessions")
    assert reply.json() == {"count": 2}
    assert not any(id in reply.text for id in ids)


def test_a_deeply_nested_json_move_is_a_400(client: TestClient) -> None:
    id = open_game(client)
    nested = "[" * 5_000 + "]" * 5_000  # under the size limit, over the parser's depth
    for body in (nested, '{"action": ' + nested + "}"):
        reply = client.post(
            f"/api/games/{id}/move", content=body, headers={"content-type": "application/json"}
        )
        assert reply.status_code == 400 and "nested too deep" in reply.json()["error"]


def test_an_oversized_body_is_refused(client: TestClient) -> None:
    id = open_game(client)
    reply = client.post(f"/api/games/{id}/move", json={"action": 4, "pad": "x" * 100_000})
    assert reply.status_code == 413 and "bytes" in reply.json()["error"]


def test_every_response_forbids_framing(client: TestClient) -> None:
    """A page shown in another site's frame could be clicked through it (clickjacking)."""
    id = open_game(client)
    replies = [
        client.get("/"),
        client.get("/play/nim", params={"opponent": "random"}),
        client.get("/static/style.css"),
        client.get("/static/nothing.js"),  # 404
        client.get("/no/such/page"),
        client.get("/play/no_such_env"),  # 400
        client.get(f"/api/games/{id}"),
        client.post(f"/api/games/{id}/move", json={"action": 99}),  # 409
        client.get("/api/sessions", headers={"host": "attacker.example"}),  # refused: 400
        client.get("/", headers={"sec-fetch-site": "cross-site", "sec-fetch-mode": "no-cors"}),
    ]
    for reply in replies:
        assert reply.headers.get("content-security-policy") == "frame-ancestors 'none'", reply
        assert reply.headers.get("x-frame-options") == "DENY", reply


def test_a_server_failure_forbids_framing_too(monkeypatch: pytest.MonkeyPatch) -> None:
    from mcts_agents.web import app as web_app

    def broken(*args: Any) -> str:
        raise RuntimeError("a bug")

    monkeypatch.setattr(web_app.pages, "index_page", broken)
    with TestClient(create_app(), base_url=LOCAL, raise_server_exceptions=False) as c:
        reply = c.get("/")
    assert reply.status_code == 500
    assert reply.headers.get("content-security-policy") == "frame-ancestors 'none'"
    assert reply.headers.get("x-frame-options") == "DENY"


def test_a_client_leaving_mid_body_is_logged_in_one_line(
    caplog: pytest.LogCaptureFixture, capfd: pytest.CaptureFixture[str]
) -> None:
    import logging
    import socket
    import time
    import urllib.request

    from mcts_agents.web.server import BackgroundServer

    caplog.set_level(logging.INFO)
    with BackgroundServer() as server:
        with urllib.request.urlopen(server.url + "play/nim?opponent=random", timeout=20) as page:
            text = page.read().decode()
        match = re.search(r'<script id="config" type="application/json">(.*?)</script>', text)
        assert match
        id = json.loads(match.group(1))["id"]
        host, port = server.url.split("//")[1].rstrip("/").rsplit(":", 1)
        with socket.create_connection((host, int(port)), timeout=20) as sock:
            head = (
                f"POST /api/games/{id}/move HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                "Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n"
            )
            sock.sendall(head.encode() + b'{"act')
            time.sleep(0.3)
        deadline = time.monotonic() + 20
        while not any("left" in r.getMessage() for r in caplog.records):
            assert time.monotonic() < deadline, "the disconnect was not logged"
            time.sleep(0.05)
        time.sleep(0.3)  # anything else it would log
    assert [r for r in caplog.records if r.exc_info] == []
    said = [r.getMessage() for r in caplog.records if "left" in r.getMessage()]
    assert len(said) == 1 and f"/api/games/{id}/move" in said[0]
    assert "Traceback" not in capfd.readouterr().err
