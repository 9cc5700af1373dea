"""The web app through Starlette's test client (no browser): pages, the JSON API, replays of
arena results files, watch mode, error pages, and the open games count."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

from starlette.testclient import TestClient

from mcts_agents import play_match
from mcts_agents.agents.specs import AGENT_KINDS, ENV_SPECS
from mcts_agents.envs.games.connect_four import ConnectFour
from mcts_agents.web.app import create_app
from mcts_agents.web.store import Sessions

FAST = "mcts:iterations=60,backend=python"
#: the server answers its loopback names only (a test client's default is "testserver").
LOCAL = "http://127.0.0.1:8000"


@pytest.fixture
def client() -> Any:
    app = create_app(Sessions(max_sessions=8))
    with TestClient(app, base_url=LOCAL, raise_server_exceptions=False) as c:
        yield c


def game_id(page: str) -> str:
    match = re.search(r'<script id="config" type="application/json">(.*?)</script>', page)
    assert match, "no game config on the page"
    return str(json.loads(match.group(1))["id"])


def poll(client: TestClient, id: str, until: Any, timeout: float = 30) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        state = client.get(f"/api/games/{id}").json()
        if until(state):
            return dict(state)
        assert time.monotonic() < deadline, state["status"]
        time.sleep(0.02)


def error_message(page: str) -> str:
    match = re.search(r'<p id="error-message">(.*?)</p>', page, flags=re.DOTALL)
    assert match, page[:300]
    return match.group(1)


def test_index_lists_every_env_and_agent_kind_of_the_registry(client: TestClient) -> None:
    page = client.get("/")
    assert page.status_code == 200
    for name in ENV_SPECS:
        assert f'data-env="{name}"' in page.text
    for kind in AGENT_KINDS:
        assert f'data-agent-kind="{kind}"' in page.text
    registry = client.get("/api/registry").json()
    assert set(registry["envs"]) == set(ENV_SPECS) and set(registry["agents"]) == set(AGENT_KINDS)
    assert "iterations=None" in registry["agents"]["mcts"]
    for name in ("game.js", "replay.js", "style.css"):
        assert client.get(f"/static/{name}").status_code == 200


def test_a_connect_four_game_through_the_api(client: TestClient) -> None:
    page = client.get("/play/connect_four", params={"opponent": FAST, "seat": 0, "seed": 1})
    assert page.status_code == 200 and 'id="status"' in page.text and "data-action" in page.text
    id = game_id(page.text)
    assert client.get("/api/sessions").json()["count"] == 1
    while True:
        state = poll(client, id, lambda s: s["your_turn"] or s["over"])
        if state["over"]:
            break
        column = state["clickable"][len(state["clickable"]) // 2]
        reply = client.post(f"/api/games/{id}/move", json={"action": column})
        assert reply.status_code == 200
        # the person's move is the next one; the agent may already have answered it
        assert reply.json()["game"]["moves"][len(state["moves"])]["action"] == column
    game = ConnectFour()
    final = game.apply(game.initial_state(), [m["action"] for m in state["moves"]])
    returns = game.returns(final)
    assert state["returns"] == list(returns)
    word = {1.0: "win", -1.0: "loss", 0.0: "draw"}[returns[0]]
    assert state["result"] == word and word in state["status"]
    search = state["search"]
    assert search["final"] and (search["iterations"] > 0 or search["proven"])  # 0: proven before
    assert sum(m["share"] for m in search["moves"]) == pytest.approx(1.0)
    assert len(state["values"]) == sum(1 for m in state["moves"] if m["seat"] == 1)
    assert 'class="series"' in state["chart"]


def test_illegal_and_malformed_moves_are_refused_and_change_nothing(client: TestClient) -> None:
    id = game_id(client.get("/play/tic_tac_toe", params={"opponent": FAST}).text)
    client.post(f"/api/games/{id}/move", json={"action": 4})
    before = poll(client, id, lambda s: s["your_turn"])
    taken = [a for a in range(9) if a not in before["legal"]]
    for body in ({"action": taken[0]}, {"action": 9}, {"action": "x"}, {"action": True}):
        reply = client.post(f"/api/games/{id}/move", json=body)
        assert reply.status_code == 409 and reply.json()["error"]
    assert client.post(f"/api/games/{id}/move", json={}).status_code == 400
    assert client.post(f"/api/games/{id}/move", content=b"not json").status_code == 400
    after = client.get(f"/api/games/{id}").json()
    assert after["version"] == before["version"] and after["moves"] == before["moves"]


@pytest.mark.parametrize(
    ("url", "status", "named"),
    [
        ("/play/nope", 400, "nope"),
        ("/play/connect_four:widht=8", 400, "widht"),
        ("/play/tic_tac_toe?opponent=mcts:iteration=5", 400, "iteration"),
        ("/play/tic_tac_toe?opponent=wizard", 400, "wizard"),
        ("/play/tic_tac_toe?seat=3", 400, "seat 3"),
        ("/play/tic_tac_toe?seed=-1", 400, "seed"),
        ("/watch/tic_tac_toe?p0=random&p2=random", 400, "p2"),
        ("/watch/tic_tac_toe?delay=fast", 400, "delay"),
        ("/replay?file=no_such_file.jsonl", 404, "no_such_file.jsonl"),
        ("/replay", 400, "file"),
        ("/nowhere", 404, "/nowhere"),
        ("/api/games/abc", 404, "abc"),
    ],
)
def test_bad_input_gets_an_error_page_naming_it(
    client: TestClient, url: str, status: int, named: str
) -> None:
    reply = client.get(url)
    assert reply.status_code == status
    text = reply.json()["error"] if url.startswith("/api/") else error_message(reply.text)
    assert named in text.replace("&#x27;", "'")
    assert "Traceback" not in reply.text and 'File "' not in reply.text


def test_a_failure_of_the_server_is_a_page_without_a_trace(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*args: Any) -> None:
        raise KeyError("a bug")

    monkeypatch.setattr("mcts_agents.web.app.new_play", broken)
    reply = client.get("/play/tic_tac_toe")
    assert reply.status_code == 500 and "KeyError" in error_message(reply.text)
    assert "Traceback" not in reply.text and "a bug" not in reply.text


def results_file(tmp_path: Path) -> Path:
    out = tmp_path / "games.jsonl"
    play_match("connect_four", [FAST, "random"], games=2, seed=3, out=str(out))
    return out


def test_replay_steps_through_a_recorded_game(
    client: TestClient, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # the server replays the files of its folder
    out = results_file(tmp_path)
    records = [json.loads(line) for line in out.read_text().splitlines()[1:]]
    record = next(r for r in records if r["index"] == 1)
    moves = record["moves"]
    end = client.get("/replay", params={"file": str(out), "game": 1})
    assert end.status_code == 200 and "Game over" in end.text
    assert f"move {len(moves)} of {len(moves)}" in end.text
    game = ConnectFour()
    for step in (0, 1, len(moves) // 2):
        page = client.get("/replay", params={"file": str(out), "game": 1, "step": step})
        assert page.status_code == 200 and f"move {step} of {len(moves)}" in page.text
        state = game.apply(game.initial_state(), moves[:step])
        discs = page.text.count('class="piece"')
        assert discs == state[0].bit_count() + state[1].bit_count()
        assert (f'data-step="{step + 1}"' in page.text) == (step < len(moves))
        assert (f'data-step="{step - 1}"' in page.text) == (step > 0)
    assert "data-action" not in end.text  # a replay is not played by clicks


def test_replay_errors_name_the_file_and_the_game(
    client: TestClient, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    out = results_file(tmp_path)
    missing = client.get("/replay", params={"file": str(out), "game": 7})
    assert missing.status_code == 404 and "game 7" in error_message(missing.text)
    past = client.get("/replay", params={"file": str(out), "game": 0, "step": 999})
    assert past.status_code == 400 and "step" in error_message(past.text)
    other = tmp_path / "notes.txt"
    other.write_text("hello\n")
    refused = client.get("/replay", params={"file": str(other)})
    assert refused.status_code == 400 and "notes.txt" in error_message(refused.text)
    lines = out.read_text().splitlines()
    damaged = tmp_path / "damaged.jsonl"
    damaged.write_text("\n".join([lines[0], lines[1].replace('"moves"', '"muves"'), lines[2]]))
    bad = client.get("/replay", params={"file": str(damaged), "game": 1})
    assert bad.status_code == 400 and "line 2" in error_message(bad.text)


def forged(record: dict[str, Any], moves: int) -> dict[str, Any]:
    """``record`` cut to its first ``moves`` moves and won by seat 0: every field agrees with
    the others (the checks of each line pass), but the moves do not give that outcome."""
    cut = {key: record[key][:moves] for key in ("moves", "movers", "times")}
    iterations = record["iterations"]
    return {
        **record, **cut, "length": moves,
        "iterations": None if iterations is None else iterations[:moves],
        "returns": [1.0, -1.0], "scores": [1.0, 0.0], "outcome": "win",
        "winner": record["seats"][0],
    }  # fmt: skip


def test_replay_refuses_an_outcome_the_moves_do_not_give(
    client: TestClient, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    out = results_file(tmp_path)
    lines = out.read_text().splitlines()
    record = json.loads(lines[2])
    assert record["index"] == 1
    for moves in (1, record["length"] - 1):
        edited = tmp_path / f"forged-{moves}.jsonl"
        edited.write_text("\n".join([lines[0], lines[1], json.dumps(forged(record, moves))]))
        page = client.get("/replay", params={"file": str(edited), "game": 1})
        assert page.status_code == 400, page.text[:300]
        message = error_message(page.text)
        assert f"forged-{moves}.jsonl, line 3" in message and "is not over" in message, message
    won = {**record, "returns": record["returns"][::-1], "scores": record["scores"][::-1]}
    if record["outcome"] == "win":
        won["winner"] = record["seats"][won["scores"].index(1.0)]
    edited = tmp_path / "swapped.jsonl"
    edited.write_text("\n".join([lines[0], lines[1], json.dumps(won)]))
    page = client.get("/replay", params={"file": str(edited), "game": 1})
    if record["outcome"] == "win":  # a draw swapped is the same draw
        assert page.status_code == 400 and "line 3" in error_message(page.text)


def test_replay_of_a_line_nested_200000_deep_is_a_400_naming_the_line(
    client: TestClient, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    out = results_file(tmp_path)
    lines = out.read_text().splitlines()
    deep = tmp_path / "deep.jsonl"
    deep.write_text("\n".join([lines[0], "[" * 200_000 + "]" * 200_000, lines[2]]) + "\n")
    page = client.get("/replay", params={"file": str(deep), "game": 1})
    assert page.status_code == 400, page.text[:300]
    assert "deep.jsonl, line 2: nested deeper than" in error_message(page.text)
    header = tmp_path / "header.jsonl"
    header.write_text("\n".join(['{"a": ' * 5000 + "1" + "}" * 5000, *lines[1:]]) + "\n")
    page = client.get("/replay", params={"file": str(header), "game": 1})
    assert page.status_code == 400 and "header.jsonl" in error_message(page.text)


def test_watch_mode_speed_pause_and_the_end(client: TestClient) -> None:
    page = client.get("/watch/tic_tac_toe", params={"p0": FAST, "p1": FAST, "delay": 0.05})
    assert page.status_code == 200 and 'id="delay"' in page.text
    id = game_id(page.text)
    reply = client.post(f"/api/games/{id}/watch", json={"paused": True, "delay": 0.0})
    assert reply.status_code == 200 and reply.json()["game"]["paused"] is True
    assert client.post(f"/api/games/{id}/watch", json={"delay": "x"}).status_code == 400
    client.post(f"/api/games/{id}/watch", json={"paused": False})
    state = poll(client, id, lambda s: s["over"])
    assert state["clickable"] == [] and "Game over" in state["status"]
    assert all(not seat["person"] for seat in state["seats"])


def test_games_are_freed_when_their_pages_close(client: TestClient) -> None:
    ids = [game_id(client.get("/play/tic_tac_toe?opponent=random").text) for _ in range(3)]
    assert client.get("/api/sessions").json()["count"] == 3
    assert client.post(f"/api/games/{ids[0]}/close").json() == {"closed": True}
    assert client.post(f"/api/games/{ids[0]}/close").json() == {"closed": False}
    assert client.get("/api/sessions").json() == {"count": 2}  # not the ids: each page's own
    assert client.get(f"/api/games/{ids[0]}").status_code == 404


def test_the_server_holds_a_limited_number_of_games(client: TestClient) -> None:
    for _ in range(8):
        assert client.get("/play/nim?opponent=random").status_code == 200
    full = client.get("/play/nim?opponent=random")
    assert full.status_code == 503 and "8 games" in error_message(full.text)


def test_anothers_env_is_drawn_from_its_picture(client: TestClient) -> None:
    pytest.importorskip("pygame")
    # (PettingZoo's Connect Four and tic-tac-toe are read into our rules cores and drawn as ours)
    page = client.get("/play/classic/go-v5:board_size=5", params={"opponent": "random"})
    assert page.status_code == 200, page.text[:500]
    state = client.get(f"/api/games/{game_id(page.text)}").json()
    assert "data:image/png;base64," in state["board"]
    assert sorted(int(a) for a in re.findall(r'data-action="(\d+)"', state["board"])) == list(
        range(26)  # 25 points and pass
    )


def test_the_index_forms_lead_to_the_game_pages(client: TestClient) -> None:
    reply = client.get(
        "/play", params={"env": "connect_four:width=5", "opponent": "random", "seat": 1},
        follow_redirects=False,
    )  # fmt: skip
    assert reply.status_code == 303
    assert reply.headers["location"] == "/play/connect_four:width=5?opponent=random&seat=1"
    page = client.get(reply.headers["location"])
    state = client.get(f"/api/games/{game_id(page.text)}").json()
    assert state["env"] == "connect_four:width=5" and state["seats"][1]["person"]
    watch = client.get("/watch", params={"env": "nim", "p0": "random", "p1": "random"})
    assert watch.status_code == 200 and "watch" in watch.url.path
    assert client.get("/play", params={"env": ""}).status_code == 400


def test_the_watch_speed_is_a_number_of_seconds_from_0_to_10(client: TestClient) -> None:
    page = client.get("/watch/nim", params={"p0": "random", "p1": "random", "delay": 5})
    id = game_id(page.text)
    client.post(f"/api/games/{id}/watch", json={"paused": True})
    for body in (b'{"delay": -1}', b'{"delay": 1e308}', b'{"delay": NaN}', b'{"delay": Infinity}'):
        reply = client.post(
            f"/api/games/{id}/watch", content=body, headers={"content-type": "application/json"}
        )
        assert reply.status_code == 400 and "0 to 10" in reply.json()["error"], body
    assert client.get(f"/api/games/{id}").json()["delay"] == 5
    assert client.post(f"/api/games/{id}/watch", json={"delay": 10}).status_code == 200
