"""The screenshots of ``docs/img`` (shown in the README): the web server in headless Chromium.

Run from the repository root with the ``web`` and ``test`` extras and Debian's ``chromium``:
``python docs/web_screenshots.py [folder]`` (default ``docs/img``). Connect Four against the
MCTS agent, caught while it thinks (its search laid over the board as a heat map), and two agents
playing Othello in watch mode. The browser tests take the same kind of pictures at every run
(``MCTS_AGENTS_SCREENSHOTS=folder`` keeps them).
"""

from __future__ import annotations

import shutil
import sys
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

from mcts_agents.web.server import BackgroundServer


def main(folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    with BackgroundServer() as server, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1120, "height": 780})
        page.goto(f"{server.url}play/connect_four?opponent=mcts:time=4&seat=1&seed=1")
        for column in (3, 3):  # the person's moves; the agent opened and answers each
            page.wait_for_selector("#status.your-turn", timeout=60_000)
            page.click(f"[data-action='{column}']")
        page.wait_for_selector("#search h4:has-text('thinking')", timeout=60_000)
        time.sleep(1.5)  # a while into the agent's four seconds
        page.screenshot(path=str(folder / "web_connect_four.png"))
        page.goto(
            f"{server.url}watch/othello?p0=mcts:iterations=20000&p1=mcts:iterations=2000"
            "&delay=1&seed=3"
        )
        page.wait_for_function(
            "document.querySelectorAll('#moves li').length >= 14", timeout=120_000
        )
        page.screenshot(path=str(folder / "web_watch_othello.png"))
        browser.close()


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path("docs/img"))
