"""In a real browser: headless Chromium (Debian's ``chromium``) driven by Playwright plays full
games of tic-tac-toe and Connect Four by clicking, reads the status and the heat map, clicks
where no move is, runs two games side by side, closes pages, watches agents, and takes the
screenshots of ``docs/img`` (into ``MCTS_AGENTS_SCREENSHOTS`` when set, else a temporary folder).

Skipped, saying why, without Playwright or a Chromium (``apt-get install chromium``; ``.ci/run``
installs it). Playwright's own browser download is not used: it drives the system's Chromium.
"""

from __future__ import annotations

import itertools
import json
import os
import re
import shutil
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")
sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright is not installed")

from mcts_agents import play_match  # noqa: E402
from mcts_agents.envs.games.connect_four import ConnectFour  # noqa: E402
from mcts_agents.envs.games.mnk import MNK  # noqa: E402
from mcts_agents.web.server import BackgroundServer  # noqa: E402
from mcts_agents.web.store import Sessions  # noqa: E402

CHROMIUM = os.environ.get("MCTS_AGENTS_CHROMIUM") or next(
    (p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome")) if p), None
)
if CHROMIUM is None:
    pytest.skip(
        "no Chromium to drive: apt-get install chromium (CI's .ci/run does), or set "
        "MCTS_AGENTS_CHROMIUM to a Chromium or Chrome binary",
        allow_module_level=True,
    )

AGENT = "mcts:iterations=50,backend=python"
IDLE = 8.0  # seconds after which the server frees a silent page's game


@pytest.fixture(scope="module")
def server() -> Iterator[BackgroundServer]:
    with BackgroundServer(sessions=Sessions(idle_seconds=IDLE), sweep_seconds=0.5) as running:
        yield running


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with sync_api.sync_playwright() as playwright:
        try:
            chromium = playwright.chromium.launch(
                executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"]
            )
        except Exception as error:  # a Chromium that cannot start here
            pytest.skip(f"Chromium at {CHROMIUM} did not start: {error}")
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1180, "height": 820})
    tab = context.new_page()
    errors: list[str] = []
    tab.on("pageerror", lambda error: errors.append(str(error)))
    yield tab
    context.close()
    assert errors == [], errors  # no script error on any page


def shots() -> Path | None:
    folder = os.environ.get("MCTS_AGENTS_SCREENSHOTS")
    return Path(folder) if folder else None


def screenshot(page: Any, name: str, tmp_path: Path) -> None:
    path = (shots() or tmp_path) / name
    path.parent.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(path))
    assert path.stat().st_size > 10_000  # a picture, not an empty page


def api(server: BackgroundServer, path: str) -> dict[str, Any]:
    with urllib.request.urlopen(server.url + path.lstrip("/"), timeout=20) as reply:
        return dict(json.loads(reply.read()))


def game_id(page: Any) -> str:
    return str(page.evaluate("JSON.parse(document.getElementById('config').textContent).id"))


def moves_shown(page: Any) -> int:
    return int(page.locator("#moves li").count())


def wait_for_turn(page: Any) -> bool:
    """Wait until the person is to move (True) or the game is over (False)."""
    page.wait_for_selector("#status.your-turn, #status.over", timeout=60_000)
    return "over" not in (page.get_attribute("#status", "class") or "")


def actions_on(page: Any, selector: str, attribute: str) -> list[int]:
    return [int(a) for a in page.eval_on_selector_all(
        selector, f"els => els.map(e => e.getAttribute('{attribute}'))")]  # fmt: skip


def heat_shares(page: Any) -> dict[int, float]:
    pairs = page.eval_on_selector_all(
        "[data-heat]", "els => els.map(e => [e.dataset.heat, e.dataset.share])"
    )
    return {int(a): float(s) for a, s in pairs}


def play_by_clicking(page: Any, pick: Any) -> list[int]:
    """Click moves chosen by ``pick(legal)`` until the game ends; on the way, after every agent
    move, its search is shown as the search of the position before, and not on the board."""
    clicked: list[int] = []
    while wait_for_turn(page):
        legal = actions_on(page, "[data-action]", "data-action")
        shown = moves_shown(page)
        if shown:  # the agent has moved: its search was of its own turn, not the person's
            assert heat_shares(page) == {}
            assert page.get_attribute("#search h4", "data-current") == "false"
            assert "before that move" in page.text_content("#search h4")
        action = pick(legal)
        page.click(f"[data-action='{action}']")
        clicked.append(action)
        page.wait_for_function(f"document.querySelectorAll('#moves li').length > {shown}")
    return clicked


def result_word(returns: tuple[float, ...], seat: int) -> str:
    mine, theirs = returns[seat], returns[1 - seat]
    return "win" if mine > theirs else "loss" if mine < theirs else "draw"


def test_a_full_tic_tac_toe_game_by_clicking(
    page: Any, server: BackgroundServer, tmp_path: Path
) -> None:
    page.goto(f"{server.url}play/tic_tac_toe?opponent={AGENT}&seat=0&seed=0")
    assert "Your turn" in page.text_content("#status")
    clicked = play_by_clicking(page, lambda legal: legal[0])
    state = api(server, f"/api/games/{game_id(page)}")
    actions = [m["action"] for m in state["moves"]]
    assert actions[0::2] == clicked  # every click was played, in order
    game = MNK(3, 3, 3)
    final = game.apply(game.initial_state(), actions)
    assert game.is_terminal(final)
    word = result_word(game.returns(final), 0)
    status = page.text_content("#status")
    assert status.startswith("Game over") and word in status
    assert page.get_attribute("#status", "data-result") == word
    assert page.locator("[data-action]").count() == 0  # nothing left to click
    screenshot(page, "web_tic_tac_toe.png", tmp_path)


def test_a_full_connect_four_game_by_clicking_columns(
    page: Any, server: BackgroundServer, tmp_path: Path
) -> None:
    page.goto(f"{server.url}play/connect_four?opponent={AGENT}&seat=1&seed=2")
    taken = False

    def pick(legal: list[int]) -> int:
        nonlocal taken
        if not taken and moves_shown(page) >= 5:
            screenshot(page, "web_connect_four.png", tmp_path)  # mid-game
            taken = True
        return min(legal, key=lambda column: abs(column - 3))  # the most central column

    clicked = play_by_clicking(page, pick)
    state = api(server, f"/api/games/{game_id(page)}")
    actions = [m["action"] for m in state["moves"]]
    assert actions[1::2] == clicked and state["moves"][0]["seat"] == 0  # the agent opened
    game = ConnectFour()
    final = game.apply(game.initial_state(), actions)
    assert game.is_terminal(final)
    word = result_word(game.returns(final), 1)
    assert word in page.text_content("#status")
    assert page.text_content("#search dd[data-fact='iterations']").strip().isdigit()
    assert 'class="series"' in page.inner_html("#chart")


def test_clicks_where_no_move_is_change_nothing(page: Any, server: BackgroundServer) -> None:
    page.goto(f"{server.url}play/tic_tac_toe?opponent={AGENT}&seat=0&seed=1")
    wait_for_turn(page)
    page.click("[data-action='4']")
    page.wait_for_function("document.querySelectorAll('#moves li').length >= 2")
    wait_for_turn(page)
    id = game_id(page)
    before = api(server, f"/api/games/{id}")
    for piece in page.query_selector_all("svg.board .piece"):
        piece.click(force=True)  # an occupied square: no move there
    page.click("#status")
    time.sleep(0.5)
    after = api(server, f"/api/games/{id}")
    assert after["version"] == before["version"] and after["moves"] == before["moves"]
    assert moves_shown(page) == len(before["moves"])


def test_two_pages_hold_two_independent_games(browser: Any, server: BackgroundServer) -> None:
    context = browser.new_context()
    first, second = context.new_page(), context.new_page()
    try:
        for tab in (first, second):
            tab.goto(f"{server.url}play/connect_four?opponent={AGENT}&seat=0&seed=5")
            wait_for_turn(tab)
        ids = {game_id(first), game_id(second)}
        assert len(ids) == 2 and ids <= set(server.sessions.ids())
        first.click("[data-action='0']")
        first.wait_for_function("document.querySelectorAll('#moves li').length >= 2")
        second.click("[data-action='6']")
        second.wait_for_function("document.querySelectorAll('#moves li').length >= 2")
        one = api(server, f"/api/games/{game_id(first)}")["moves"]
        two = api(server, f"/api/games/{game_id(second)}")["moves"]
        assert one[0]["action"] == 0 and two[0]["action"] == 6
    finally:
        context.close()


def test_games_are_freed_when_their_pages_close(browser: Any, server: BackgroundServer) -> None:
    context = browser.new_context()
    try:
        tab = context.new_page()
        tab.goto(f"{server.url}play/tic_tac_toe?opponent={AGENT}")
        id = game_id(tab)
        assert id in server.sessions.ids()
        tab.goto("about:blank")  # the page goes away: it says so
        deadline = time.monotonic() + IDLE - 1
        while id in server.sessions.ids():
            assert time.monotonic() < deadline, "not freed when its page went away"
            time.sleep(0.1)
        tab.goto(f"{server.url}play/tic_tac_toe?opponent={AGENT}")
        other = game_id(tab)
        tab.close()  # closed or killed: freed once silent for IDLE seconds at the latest
        deadline = time.monotonic() + IDLE + 5
        while other in server.sessions.ids():
            assert time.monotonic() < deadline, "not freed after its page closed"
            time.sleep(0.2)
    finally:
        context.close()


def test_watch_mode_with_its_speed_control(
    page: Any, server: BackgroundServer, tmp_path: Path
) -> None:
    page.goto(f"{server.url}watch/othello:size=6?p0={AGENT}&p1=mcts:iterations=20&delay=0.3")
    page.wait_for_function("document.querySelectorAll('#moves li').length >= 4")
    screenshot(page, "web_watch_othello.png", tmp_path)
    page.click("#pause")
    page.wait_for_selector("#pause:text('Resume')")
    page.fill("#delay", "0")
    page.dispatch_event("#delay", "change")
    page.click("#pause")
    page.wait_for_selector("#status.over", timeout=60_000)
    state = api(server, f"/api/games/{game_id(page)}")
    assert state["delay"] == 0 and not state["paused"]
    assert "Game over" in page.text_content("#status")
    assert page.locator("[data-action]").count() == 0


def test_a_bad_spec_gives_an_error_page_in_the_browser(page: Any, server: BackgroundServer) -> None:
    reply = page.goto(f"{server.url}play/tic_tac_toe?opponent=mcts:iteration=5")
    assert reply.status == 400
    assert "iteration" in page.text_content("#error-message")


def test_the_search_is_shown_while_the_agent_thinks(page: Any, server: BackgroundServer) -> None:
    page.goto(f"{server.url}play/connect_four?opponent=mcts:time=30,backend=python&seat=1")
    head = "#search h4:has-text('thinking')"
    page.wait_for_selector(head, timeout=20_000)
    counted = "#search dd[data-fact='iterations']"
    first = int(page.text_content(counted))
    page.wait_for_function(
        f'Number(document.querySelector("{counted}").textContent) > {first}', timeout=20_000
    )
    assert page.locator(head).count() == 1  # still thinking, with more simulations shown
    heat = heat_shares(page)
    assert set(heat) == set(range(7)) and sum(heat.values()) == pytest.approx(1.0, abs=1e-3)
    assert moves_shown(page) == 0 and page.locator("[data-action]").count() == 0
    id = game_id(page)
    page.goto("about:blank")  # closing the page closes its game and stops the search
    deadline = time.monotonic() + IDLE
    while id in server.sessions.ids():
        assert time.monotonic() < deadline
        time.sleep(0.1)


def test_a_replay_steps_forward_and_back(
    page: Any, server: BackgroundServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # the folder the server replays from
    out = tmp_path / "games.jsonl"
    play_match("tic_tac_toe", [AGENT, "random"], games=1, seed=0, out=str(out))
    moves = json.loads(out.read_text().splitlines()[1])["moves"]
    page.goto(f"{server.url}replay?file={out}&game=0&step=0")

    def at(step: int) -> None:  # the page of ``step``, its key handler loaded
        page.wait_for_url(re.compile(rf"step={step}$"))
        page.wait_for_load_state("load")
        assert page.text_content("#step") == f"move {step} of {len(moves)}"

    at(0)
    page.click("a.forward")
    at(1)
    page.keyboard.press("ArrowRight")
    at(2)
    assert page.locator("svg.board .piece").count() == 2
    page.keyboard.press("ArrowLeft")
    at(1)
    page.keyboard.press("End")
    at(len(moves))
    assert "Game over" in page.text_content("#status")


def test_pettingzoo_connect_four_is_played_by_clicking_its_drawn_columns(
    page: Any, server: BackgroundServer, tmp_path: Path
) -> None:
    page.goto(f"{server.url}play/classic/connect_four-v3?opponent={AGENT}&seat=0&seed=0")
    wait_for_turn(page)
    assert page.locator("svg.board image.pixels").count() == 0  # our board, not its picture
    holes = page.eval_on_selector_all(  # the drawn holes' centres on the page, by column
        "svg.board circle[fill='#ffffff']",
        "els => els.map(e => { const r = e.getBoundingClientRect();"
        " return [r.x + r.width / 2, r.y + r.height / 2]; })",
    )
    columns = sorted({round(x) for x, _ in holes})
    assert len(columns) == 7
    x = columns[5]
    y = max(hy for hx, hy in holes if round(hx) == x)  # the lowest hole of column 5
    page.mouse.click(x, y)  # where column 5 is drawn, not a button somewhere else
    page.wait_for_function("document.querySelectorAll('#moves li').length >= 1")
    state = api(server, f"/api/games/{game_id(page)}")
    assert state["moves"][0]["action"] == 5 and state["moves"][0]["label"] == "column 5"
    screenshot(page, "web_pettingzoo_connect_four.png", tmp_path)


def test_a_replays_move_list_has_one_readable_move_a_line(
    page: Any, server: BackgroundServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # the folder the server replays from
    out = tmp_path / "games.jsonl"
    long = "mcts:iterations=30,backend=python,c=1.41421356,solver=false,seed=12345"
    play_match("connect_four", [long, "random"], games=1, seed=0, out=str(out))
    moves = json.loads(out.read_text().splitlines()[1])["moves"]
    page.goto(f"{server.url}replay?file={out}&game=0&step=3")
    boxes = page.eval_on_selector_all(
        "#moves li",
        "els => els.map(e => { const r = e.getBoundingClientRect();"
        " return [r.left, r.top, r.right, r.bottom, e.scrollWidth - e.clientWidth]; })",
    )
    assert len(boxes) == len(moves)
    assert len({round(left) for left, *_ in boxes}) == 1  # one column
    for (_, _, _, bottom, _), (_, top, _, _, _) in itertools.pairwise(boxes):
        assert top >= bottom - 0.5  # each move below the one before, none over another
    assert all(overflow <= 0 for *_, overflow in boxes)  # no name runs out of its line
    names = page.eval_on_selector_all("#moves .move-name", "els => els.map(e => e.textContent)")
    assert names == [f"column {a}" for a in moves]
    assert page.text_content("#moves li.current .move-name") == f"column {moves[2]}"
    screenshot(page, "web_replay.png", tmp_path)
