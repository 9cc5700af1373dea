"""The HTML pages: the index (envs and agent kinds, from the command line's registry), a game
(play or watch), a replay, and the error page. Pages are plain strings; the game page's script
(``static/game.js``) polls the game's JSON and draws what changed.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any
from urllib.parse import urlencode

from mcts_agents.agents.specs import AGENT_KINDS, ENV_SPECS, agent_options, env_parameters
from mcts_agents.web.svg import esc

__all__ = ["error_page", "game_page", "index_page", "layout", "replay_page"]


def layout(title: str, body: str, script: str = "") -> str:
    """A whole page around ``body``."""
    tail = f'<script src="/static/{script}"></script>' if script else ""
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{esc(title)} - mcts-agents</title>"
        '<link rel="stylesheet" href="/static/style.css"></head><body>'
        f'<header><a href="/">mcts-agents</a> <span>{esc(title)}</span></header>'
        f"<main>{body}</main>{tail}</body></html>"
    )


def error_page(status: int, message: str) -> str:
    """The page of a bad request: what was wrong, in words (never a stack trace)."""
    titles = {
        400: "Bad request",
        403: "Refused",
        404: "Not found",
        413: "Too large",
        503: "Too many games",
    }
    title = titles.get(status, "Error")
    body = (
        f'<section class="error"><h1>{status} {esc(title)}</h1>'
        f'<p id="error-message">{esc(message)}</p>'
        '<p><a href="/">Back to the list of games</a></p></section>'
    )
    return layout(title, body)


def _env_rows() -> str:
    rows = []
    for name, (module, base) in ENV_SPECS.items():
        options = {**env_parameters(module), **base}
        described = ", ".join(f"{k}={v!r}" for k, v in options.items()) or "-"
        links = (
            f'<a class="play" href="/play/{esc(name)}">play</a> '
            f'<a class="watch" href="/watch/{esc(name)}">watch</a>'
        )
        rows.append(
            f'<tr data-env="{esc(name)}"><td><code>{esc(name)}</code></td>'
            f"<td>{esc(described)}</td><td>{links}</td></tr>"
        )
    return "".join(rows)


def _agent_rows() -> str:
    return "".join(
        f'<tr data-agent-kind="{esc(kind)}"><td><code>{esc(kind)}</code></td>'
        f"<td>{esc(', '.join(agent_options(kind)) or '-')}</td></tr>"
        for kind in AGENT_KINDS
    )


def index_page(default_opponent: str, default_watch: str) -> str:
    """The envs and agent kinds, and forms to play, watch and replay."""
    options = "".join(f'<option value="{esc(n)}">{esc(n)}</option>' for n in ENV_SPECS)
    body = f"""
<section class="forms">
<form id="play-form" action="/play" method="get">
  <h2>Play against an agent</h2>
  <label>env <select name="env">{options}</select></label>
  <label>opponent <input name="opponent" value="{esc(default_opponent)}" size="24"></label>
  <label>your seat <input name="seat" value="0" size="2"></label>
  <label>seed <input name="seed" value="0" size="6"></label>
  <button type="submit">Play</button>
</form>
<form id="watch-form" action="/watch" method="get">
  <h2>Watch agents play</h2>
  <label>env <select name="env">{options}</select></label>
  <label>p0 <input name="p0" value="{esc(default_watch)}" size="22"></label>
  <label>p1 <input name="p1" value="mcts:iterations=500" size="22"></label>
  <label>seconds between moves <input name="delay" value="0.5" size="4"></label>
  <button type="submit">Watch</button>
</form>
<form id="replay-form" action="/replay" method="get">
  <h2>Replay an arena game</h2>
  <label>results file <input name="file" placeholder="results.jsonl" size="30"></label>
  <label>game <input name="game" value="0" size="4"></label>
  <button type="submit">Replay</button>
</form>
</section>
<p class="hint">The envs below and PettingZoo registry ids work in the address, with their
options (within the server's limits):
<code>/play/connect_four:width=8?opponent=mcts:time=2&amp;seat=1</code>,
<code>/watch/othello:size=6?p0=mcts:iterations=2000&amp;p1=random</code>,
<code>/play/classic/connect_four-v3</code> (PettingZoo's own, read into our rules). Your
own <code>module:factory</code> envs and model files: see <code>mcts-agents serve --help</code>
(<code>--allow-env</code>, <code>--models</code>).</p>
<h2>Envs</h2>
<table id="envs"><tr><th>env</th><th>options (defaults)</th><th></th></tr>{_env_rows()}</table>
<h2>Agent kinds</h2>
<table id="agents"><tr><th>kind</th><th>options (defaults)</th></tr>{_agent_rows()}</table>
"""
    return layout("Play in the browser", body)


def game_page(game: dict[str, Any], title: str, links: dict[str, str]) -> str:
    """A game's page (play or watch), drawn from its JSON (``views.game_json``) and then kept
    up to date by ``game.js``."""
    config = json.dumps({"id": game["id"], "mode": game["mode"], "version": game["version"]})
    config = config.replace("<", "\\u003c")  # inside <script>, text is not HTML-decoded
    watch = ""
    if game["mode"] == "watch":
        watch = (
            '<div id="watch-controls"><label>seconds between moves '
            f'<input id="delay" type="range" min="0" max="3" step="0.1" value="{game["delay"]}">'
            f'<output id="delay-value">{game["delay"]:g}</output></label> '
            f'<button id="pause" type="button">{"Resume" if game["paused"] else "Pause"}'
            "</button></div>"
        )
    nav = " ".join(f'<a class="{esc(k)}" href="{esc(v)}">{esc(k)}</a>' for k, v in links.items())
    seats = "".join(
        f"<li>{esc(s['agent'])}: {'<b>you</b>' if s['person'] else esc(s['name'])}</li>"
        for s in game["seats"]
    )
    body = f"""
<script id="config" type="application/json">{config}</script>
<div class="game">
 <div class="left">
  <div id="status" class="status" data-result="{esc(game["result"] or "")}">{esc(game["status"])}</div>
  <div id="board">{game["board"]}</div>
  <div id="message" class="message"></div>
  {watch}
  <nav class="links">{nav}</nav>
 </div>
 <div class="right">
  <h3>{esc(game["env"])} <small>seed {game["seed"]}</small></h3>
  <ul class="seats">{seats}</ul>
  <div id="search" class="search"></div>
  <h4>Root value over the game</h4>
  <div id="chart">{game["chart"]}</div>
  <h4>Moves</h4>
  <ol id="moves" class="moves"></ol>
 </div>
</div>"""  # noqa: E501
    return layout(title, body, "game.js")


def replay_page(
    title: str,
    board: str,
    status: str,
    moves: Sequence[tuple[str, str]],
    step: int,
    link: str,
    facts: Sequence[str],
) -> str:
    """One position of a recorded game: ``moves`` are ``(seat, move)`` names, ``step`` the
    moves played so far, ``link(step)`` the address of another step (``{step}`` in ``link``)."""
    total = len(moves)

    def go(to: int, words: str, cls: str) -> str:
        if to < 0 or to > total or to == step:
            return f'<span class="{cls} disabled">{esc(words)}</span>'
        return (
            f'<a class="{cls}" data-step="{to}" href="{esc(link.format(step=to))}">{esc(words)}</a>'
        )

    items = "".join(
        f'<li class="{"played" if i < step else "later"}{" current" if i == step - 1 else ""}">'
        f'<a href="{esc(link.format(step=i + 1))}"><b class="move-name">{esc(move)}</b>'
        f'<span class="mover">{esc(seat)}</span></a></li>'
        for i, (seat, move) in enumerate(moves)
    )
    body = f"""
<div class="game" data-step="{step}" data-moves="{total}">
 <div class="left">
  <div id="status" class="status">{esc(status)}</div>
  <div id="board">{board}</div>
  <nav class="steps">{go(0, "|< start", "first")} {go(step - 1, "< back", "back")}
   <span id="step">move {step} of {total}</span>
   {go(step + 1, "forward >", "forward")} {go(total, "end >|", "last")}</nav>
 </div>
 <div class="right">
  <h3>{esc(title)}</h3>
  <ul class="facts">{"".join(f"<li>{esc(f)}</li>" for f in facts)}</ul>
  <h4>Moves</h4><ol id="moves" class="moves replay-moves">{items}</ol>
 </div>
</div>"""
    return layout(title, body, "replay.js")


def query(**params: object) -> str:
    """``?a=1&b=x`` of the parameters that are not ``None``."""
    given = {k: v for k, v in params.items() if v is not None}
    return "?" + urlencode(given) if given else ""
