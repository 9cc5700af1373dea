// A game page: poll the game's JSON, draw what changed, send clicks on [data-action] moves.
"use strict";
(function () {
  const config = JSON.parse(document.getElementById("config").textContent);
  const api = "/api/games/" + encodeURIComponent(config.id);
  const $ = (id) => document.getElementById(id);
  let version = -1;
  let state = null;
  let sending = false;
  let closed = false;

  function fmt(x, digits) {
    return (x >= 0 ? "+" : "") + x.toFixed(digits);
  }

  function pv(labels) {
    if (!labels.length) return "-";
    const shown = labels.slice(0, 10).join(" → ");
    return labels.length > 10 ? shown + " → … (" + labels.length + " moves)" : shown;
  }

  function text(tag, content, cls) {
    const el = document.createElement(tag);
    el.textContent = content;
    if (cls) el.className = cls;
    return el;
  }

  function drawSearch(search) {
    const box = $("search");
    box.replaceChildren();
    if (!search) {
      box.appendChild(text("p", "No search yet: the agent's statistics appear here as it thinks.", "hint"));
      return;
    }
    if (search.compiling) {  // before its first search: the agent's kernel compiles, once
      box.appendChild(text("p", search.agent + " (" + search.name + "): " + search.compiling + "…", "hint compiling"));
      return;
    }
    // a search of an earlier position (its move played since) says so: the board shows none
    const head = !search.current
      ? "its search, before that move (not of the position shown)"
      : search.final ? "searched" : "thinking…";
    const title = text("h4", search.agent + " (" + search.name + "), move " + (search.ply + 1) + ": " + head);
    title.dataset.current = String(search.current);
    box.appendChild(title);
    box.classList.toggle("previous", !search.current);
    const facts = document.createElement("dl");
    const rows = [
      ["root value", fmt(search.root_value, 3) + " (its own side)"],
      ["proven", search.proven || "-"],
      ["best move", search.best_label],
      ["principal variation", pv(search.pv_labels)],
      ["iterations", String(search.iterations)],
      ["simulations/s", Math.round(search.rate).toLocaleString()],
      ["seconds", search.elapsed.toFixed(3)],
    ];
    for (const [k, v] of rows) {
      facts.appendChild(text("dt", k));
      const dd = text("dd", v);
      dd.dataset.fact = k.replace(/[^a-z]+/g, "-");
      facts.appendChild(dd);
    }
    box.appendChild(facts);
    const table = document.createElement("table");
    table.className = "children";
    const header = document.createElement("tr");
    for (const h of ["move", "visits", "share", "value", "proven"]) header.appendChild(text("th", h));
    table.appendChild(header);
    for (const m of search.moves) {
      const tr = document.createElement("tr");
      tr.appendChild(text("td", m.label));
      tr.appendChild(text("td", String(m.visits)));
      tr.appendChild(text("td", (100 * m.share).toFixed(1) + "%"));
      tr.appendChild(text("td", fmt(m.value, 3)));
      tr.appendChild(text("td", m.proven || ""));
      table.appendChild(tr);
    }
    box.appendChild(table);
  }

  function drawMoves(moves, seats) {
    const list = $("moves");
    list.replaceChildren();
    for (const m of moves) list.appendChild(text("li", seats[m.seat].agent + ": " + m.label));
  }

  function draw(next) {
    state = next;
    version = next.version;
    $("board").innerHTML = next.board;
    const status = $("status");
    status.textContent = next.status;
    status.dataset.result = next.result || "";
    status.classList.toggle("your-turn", next.your_turn);
    status.classList.toggle("over", next.over);
    $("chart").innerHTML = next.chart;
    drawSearch(next.search);
    drawMoves(next.moves, next.seats);
    const pause = $("pause");
    if (pause) pause.textContent = next.paused ? "Resume" : "Pause";
  }

  function say(message) {
    $("message").textContent = message || "";
  }

  async function poll() {
    if (closed) return;
    let wait = 600;
    try {
      const response = await fetch(api, { cache: "no-store" });
      if (response.status === 404) {
        closed = true;
        say("This game was closed (its page was idle too long). Reload for a new one.");
        return;
      }
      const next = await response.json();
      if (next.version > version) draw(next); // never an older reply over a newer one
      if (next.thinking || (next.mode === "watch" && !next.over)) wait = 150;
    } catch (error) {
      wait = 1500; // the server is gone for now: try again later
    }
    setTimeout(poll, wait);
  }

  async function post(path, body) {
    const response = await fetch(api + path, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    const reply = await response.json();
    if (!response.ok) {
      say(reply.error || "refused");
      return null;
    }
    say("");
    if (reply.game && reply.game.version > version) draw(reply.game);
    return reply;
  }

  $("board").addEventListener("click", async (event) => {
    const target = event.target.closest("[data-action]");
    if (!target || sending || !state || !state.your_turn) return; // not a move: nothing happens
    sending = true;
    try {
      await post("/move", { action: Number(target.dataset.action) });
    } finally {
      sending = false;
    }
  });

  const delay = $("delay");
  if (delay) {
    delay.addEventListener("change", () => {
      $("delay-value").textContent = delay.value;
      post("/watch", { delay: Number(delay.value) });
    });
    $("pause").addEventListener("click", () => post("/watch", { paused: !(state && state.paused) }));
  }

  window.addEventListener("pagehide", () => {
    closed = true;
    navigator.sendBeacon(api + "/close", "");
  });

  poll();
})();
