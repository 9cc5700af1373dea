"""What a game page shows, from a session's ``Snapshot``: the board as SVG with the search's heat
map and the clickable moves, the status line, the search panel's numbers, the value chart, and
all of it as one JSON object (``game_json``) that the page polls.

The status line speaks from the person's side: ``Your turn``, then ``Game over: a win for you``
(``a loss``, ``a draw``): the person's return against the best of the others. In watch mode,
and with more than one person, it names the seat that won.
"""

from __future__ import annotations

from typing import Any

from mcts_agents.web.boards import seat_names
from mcts_agents.web.session import Session, Snapshot
from mcts_agents.web.svg import Drawing, compose, value_chart
from mcts_agents.web.tables import DRAWERS, draw_pixels

__all__ = ["board_svg", "chart_svg", "game_json", "position_drawing", "status_text"]


def position_drawing(game: Any, state: Any, pixels: Any, view: int | None) -> Drawing:
    """The drawing of a position: our rules core's own drawer, else the env's picture."""
    if game is not None:
        drawer = DRAWERS.get(type(game))
        if drawer is not None:
            return drawer(game, state, view)
        try:  # a rules core of ours without a drawer of its own: its pixel rendering
            from mcts_agents.envs.core.render import draw_grid

            return draw_pixels(draw_grid(game.grid(state)))
        except (TypeError, ValueError):
            return draw_pixels(None, game.render_text(state))
    return draw_pixels(pixels)


def board_svg(snap: Snapshot) -> str:
    """The board with the clickable moves and the heat map of the search of this position (of
    its player to move), if one runs or ran; once its move is played, the next position is
    drawn without it: one player's search is never laid over the other's position."""
    position = snap.position
    drawing = position_drawing(position.game, position.state, position.pixels, snap.view)
    search = snap.search
    heat = dict(search.heat) if search is not None and search.ply == position.ply else {}
    return compose(drawing, snap.clickable, heat, position.label, position.last)


def chart_svg(session: Session, snap: Snapshot) -> str:
    """The root value of every searching seat over the game, each from its own side."""
    series: dict[str, list[tuple[int, float]]] = {}
    for seat in session.seats:
        if not seat.person:
            series[f"{seat.agent} ({seat.name})"] = [
                (ply, value) for s, ply, value in snap.values if s == seat.index
            ]
    return value_chart(series, max(snap.position.ply, 1))


def _who(session: Session, seat: int) -> str:
    entry = session.seats[seat]
    names = seat_names(session.position.game)
    mark = f", {names[seat]}" if seat < len(names) else ""
    return f"{entry.agent} ({entry.name}{mark})"


def status_text(session: Session, snap: Snapshot) -> str:
    """Whose turn it is, or the result in words (``win``, ``loss``, ``draw``)."""
    position = snap.position
    people = [seat.index for seat in session.seats if seat.person]
    if snap.error:
        return f"The game stopped: {snap.error}"
    if position.returns is not None:
        if len(people) == 1:
            seat = people[0]
            word = session.outcome(seat)
            mine = f"{position.returns[seat]:+g}"
            if word == "draw":
                return f"Game over: a draw ({mine})"
            return f"Game over: a {word} for you ({mine})"
        best = max(position.returns)
        top = [i for i, r in enumerate(position.returns) if r == best]
        if len(top) == 1:
            return f"Game over: a win for {_who(session, top[0])}"
        return "Game over: a draw"
    mover = position.mover
    if mover is None:  # not reached: a game that is not over has a mover
        return ""
    if session.seats[mover].person:
        if len(people) == 1:
            names = seat_names(position.game)
            mark = f", {names[mover]}" if mover < len(names) else ""
            return f"Your turn ({session.seats[mover].agent}{mark})"
        return f"{_who(session, mover)} to move: click a move"
    if snap.paused:
        return f"Paused: {_who(session, mover)} to move"
    if snap.thinking:
        return f"{_who(session, mover)} is thinking…"
    return f"{_who(session, mover)} to move"  # watch mode's pause between moves


def game_json(session: Session) -> dict[str, Any]:
    """Everything the page shows, as JSON."""
    snap = session.snapshot()
    position = snap.position
    people = [seat.index for seat in session.seats if seat.person]
    side = people[0] if len(people) == 1 else 0
    search = snap.search
    return {
        "id": session.id,
        "mode": session.mode,
        "env": session.env_name,
        "seed": session.seed,
        "version": snap.version,
        "ply": position.ply,
        "over": position.over,
        "to_move": position.mover,
        "your_turn": bool(snap.clickable),
        "legal": list(position.legal),
        "clickable": list(snap.clickable),
        "thinking": snap.thinking,
        "paused": snap.paused,
        "delay": snap.delay,
        "error": snap.error,
        "seats": [
            {"seat": s.index, "agent": s.agent, "name": s.name, "person": s.person}
            for s in session.seats
        ],
        "returns": list(position.returns) if position.returns is not None else None,
        "result": session.outcome(side) if position.over else None,
        "status": status_text(session, snap),
        "moves": [
            {
                "ply": m.ply,
                "seat": m.seat,
                "action": m.action,
                "label": m.label,
                "seconds": round(m.seconds, 4),
            }
            for m in snap.moves
        ],
        "search": search.to_json(position.label, position.ply) if search is not None else None,
        "values": [{"seat": s, "ply": p, "value": v} for s, p, v in snap.values],
        "board": board_svg(snap),
        "chart": chart_svg(session, snap),
    }
