"""SVG pieces the boards share: a ``Drawing`` of one position, its moves, the search's heat map.

A game's drawer (``boards``, ``tables``) returns a ``Drawing``: the picture of the position and
the box of every action that has a place on it (a cell, a column, a card in the hand). ``compose``
turns it into one ``<svg>`` element: the picture, then the heat map of a search (each action's
visit share and value, ``data-heat``/``data-share``/``data-value`` attributes), then the moves a
person may click (``data-action``), and a row of buttons for the actions without a place on the
board (pass, roll, bet, bids, and every action of an env drawn from its pixels). Nothing here
knows any game.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from html import escape

__all__ = [
    "Box",
    "Drawing",
    "Heat",
    "circle",
    "compose",
    "esc",
    "rect",
    "text",
    "value_chart",
]

#: ``(x, y, width, height)`` of an action's place on the board.
Box = tuple[float, float, float, float]

#: Colours of the players' pieces (up to seven seats: Oh Hell), and of the heat map.
SEAT_COLOURS = ("#1f1f1f", "#f4f4f4", "#d62728", "#f2c12e", "#1f77b4", "#2ca02c", "#9467bd")
HEAT_COLOUR = "#ff7f0e"
BUTTON_WIDTH, BUTTON_HEIGHT, BUTTON_GAP = 118.0, 40.0, 8.0


def esc(value: object) -> str:
    """Text for SVG/HTML content and attributes."""
    return escape(str(value), quote=True)


def _attrs(attrs: Mapping[str, object]) -> str:
    return "".join(
        f' {key.rstrip("_").replace("_", "-")}="{esc(value)}"'
        for key, value in attrs.items()
        if value is not None
    )


def rect(x: float, y: float, w: float, h: float, **attrs: object) -> str:
    """A ``<rect>``; keyword attributes with ``_`` for ``-`` (``stroke_width``)."""
    return f'<rect x="{x:g}" y="{y:g}" width="{w:g}" height="{h:g}"{_attrs(attrs)}/>'


def circle(cx: float, cy: float, r: float, **attrs: object) -> str:
    """A ``<circle>``."""
    return f'<circle cx="{cx:g}" cy="{cy:g}" r="{r:g}"{_attrs(attrs)}/>'


def text(x: float, y: float, content: object, size: float = 14, **attrs: object) -> str:
    """A ``<text>`` centred on ``x`` unless ``text_anchor`` says otherwise."""
    attrs.setdefault("text_anchor", "middle")
    attrs.setdefault("dominant_baseline", "central")
    return f'<text x="{x:g}" y="{y:g}" font-size="{size:g}"{_attrs(attrs)}>{esc(content)}</text>'


@dataclass(frozen=True, slots=True)
class Heat:
    """One action of a search, for the heat map.

    Attributes:
        share: the action's share of the root's visits (the shares of a search sum to 1).
        value: the mean return of the action for the searching player, in [-1, 1].
        visits: simulations through the action.
        proven: ``"win"``, ``"loss"``, ``"draw"`` or ``"exact"`` once proven, else ``None``.
    """

    share: float
    value: float
    visits: int
    proven: str | None = None


@dataclass
class Drawing:
    """A position drawn on a ``width`` x ``height`` canvas.

    Attributes:
        parts: SVG elements under everything (the board, cards, words).
        pieces: SVG elements drawn over the heat map's colours (stones, marks, discs).
        regions: the box of each action that has a place on the board (what a click hits).
        heat_regions: where an action's heat is drawn, where not over its region (Connect
            Four: a strip above its column).
        last_regions: where the last move is outlined, where not over its region (Connect
            Four: the disc it dropped).
        round_regions: the places hold round pieces: heat drawn as discs.
    """

    width: float
    height: float
    parts: list[str] = field(default_factory=list)
    pieces: list[str] = field(default_factory=list)
    regions: dict[int, Box] = field(default_factory=dict)
    heat_regions: dict[int, Box] = field(default_factory=dict)
    last_regions: dict[int, Box] = field(default_factory=dict)
    round_regions: bool = False

    def add(self, *parts: str) -> None:
        self.parts.extend(parts)


def compose(
    drawing: Drawing,
    clickable: Sequence[int] = (),
    heat: Mapping[int, Heat] | None = None,
    label: Callable[[int], str] = str,
    last: int | None = None,
) -> str:
    """One ``<svg>``: the drawing, the heat map of ``heat``, the ``clickable`` moves, buttons.

    Every clickable action is an element with ``data-action``; every action of ``heat`` one
    with ``data-heat`` (its share, value and visits as ``data-share``, ``data-value``,
    ``data-visits``). Actions without a region on the board become buttons under it.
    """
    heat = heat or {}
    buttons = [a for a in dict.fromkeys([*clickable, *heat]) if a not in drawing.regions]
    width = max(drawing.width, BUTTON_WIDTH + 2 * BUTTON_GAP)
    per_row = max(1, int((width - BUTTON_GAP) // (BUTTON_WIDTH + BUTTON_GAP)))
    rows = -(-len(buttons) // per_row) if buttons else 0
    height = drawing.height + rows * (BUTTON_HEIGHT + BUTTON_GAP) + (BUTTON_GAP if rows else 0)
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="board" viewBox="0 0 {width:g} '
        f'{height:g}" width="{width:g}" height="{height:g}" font-family="sans-serif">',
        *drawing.parts,
    ]
    boxes = {**drawing.regions, **drawing.heat_regions}
    for i, action in enumerate(buttons):
        row, col = divmod(i, per_row)
        x = BUTTON_GAP + col * (BUTTON_WIDTH + BUTTON_GAP)
        y = drawing.height + BUTTON_GAP + row * (BUTTON_HEIGHT + BUTTON_GAP)
        boxes[action] = (x, y, BUTTON_WIDTH, BUTTON_HEIGHT)
        out.append(rect(x, y, BUTTON_WIDTH, BUTTON_HEIGHT, rx=6, fill="#ececec", stroke="#888"))
        out.append(text(x + BUTTON_WIDTH / 2, y + 15, label(action), 13, fill="#222"))
    top = max((h.share for h in heat.values()), default=0.0)
    shown = [(a, h, boxes[a], a in buttons) for a, h in heat.items() if a in boxes]
    fills = [_heat_fill(box, h, top, drawing.round_regions, button) for _, h, box, button in shown]
    labels = [_heat_label(box, h, button) for _, h, box, button in shown]
    out.extend(
        f'<g class="heat" data-heat="{a}" data-share="{h.share:.6f}" data-value="{h.value:.6f}" '
        f'data-visits="{h.visits}"'
        + (f' data-proven="{esc(h.proven)}"' if h.proven else "")
        + f' pointer-events="none">{fill}</g>'
        for (a, h, _, _), fill in zip(shown, fills, strict=True)
    )
    out.extend(drawing.pieces)
    out.extend(labels)
    outline = {**drawing.regions, **drawing.last_regions}
    if last is not None and last in outline:
        x, y, w, h = outline[last]
        out.append(
            rect(
                x + 2,
                y + 2,
                w - 4,
                h - 4,
                fill="none",
                stroke="#0a84ff",
                stroke_width=3,
                class_="last-move",
                pointer_events="none",
            )
        )
    for action in clickable:
        x, y, w, h = drawing.regions.get(action) or boxes[action]
        out.append(
            f'<g class="move" data-action="{action}"><title>{esc(label(action))}</title>'
            + rect(x, y, w, h, fill="#ffffff", fill_opacity=0.0, class_="target")
            + "</g>"
        )
    out.append("</svg>")
    return "".join(out)


def _heat_fill(box: Box, stats: Heat, top: float, disc: bool, button: bool) -> str:
    """The colour of an action's heat: stronger for more visits (relative to the most)."""
    x, y, w, h = box
    if button:  # a bar along the button's foot
        return rect(
            x + 2, y + h - 12, (w - 4) * stats.share, 9, fill=HEAT_COLOUR, fill_opacity=0.85
        )
    opacity = round(0.1 + 0.5 * (stats.share / top if top > 0 else 0.0), 3)
    if disc:
        return circle(
            x + w / 2, y + h / 2, min(w, h) * 0.45, fill=HEAT_COLOUR, fill_opacity=opacity
        )
    return rect(x + 1, y + 1, w - 2, h - 2, fill=HEAT_COLOUR, fill_opacity=opacity)


def _heat_label(box: Box, stats: Heat, button: bool) -> str:
    """The share (and, where there is room, the value or proof) as text over the pieces."""
    x, y, w, h = box
    halo = {"stroke": "#fff", "stroke_width": 3, "paint_order": "stroke", "fill": "#111"}
    share = f"{stats.share:.0%}"
    if button:
        words = f"{share}  {stats.value:+.2f}"
        return text(x + w / 2, y + h - 7.5, words, 9, class_="heat-label", **halo)
    size = max(9.0, min(15.0, min(w, h) / 3.2))
    if min(w, h) < 40:
        return text(x + w / 2, y + h / 2, share, size, class_="heat-label", **halo)
    value = stats.proven or f"{stats.value:+.2f}"
    return text(
        x + w / 2,
        y + h / 2 - size * 0.6,
        share,
        size,
        font_weight="bold",
        class_="heat-label",
        **halo,
    ) + text(x + w / 2, y + h / 2 + size * 0.6, value, size * 0.8, class_="heat-label", **halo)


def value_chart(
    series: Mapping[str, Sequence[tuple[int, float]]],
    plies: int,
    width: float = 420,
    height: float = 150,
) -> str:
    """The root value of each searching seat over the game: a line per seat, ply on x, value in
    [-1, 1] on y (each seat's own side)."""
    left, right, top, bottom = 34.0, 8.0, 8.0, 22.0
    inner_w, inner_h = width - left - right, height - top - bottom
    span = max(plies, 1)

    def point(ply: int, value: float) -> str:
        v = max(-1.0, min(1.0, value))
        return f"{left + inner_w * ply / span:.1f},{top + inner_h * (1 - v) / 2:.1f}"

    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" viewBox="0 0 {width:g} '
        f'{height:g}" width="{width:g}" height="{height:g}" font-family="sans-serif">',
        rect(left, top, inner_w, inner_h, fill="#fafafa", stroke="#ccc"),
        f'<line x1="{left}" x2="{left + inner_w}" y1="{top + inner_h / 2}" '
        f'y2="{top + inner_h / 2}" stroke="#bbb" stroke-dasharray="4 3"/>',
    ]
    for level, label in ((1, "+1"), (0, "0"), (-1, "-1")):
        y = top + inner_h * (1 - level) / 2
        out.append(text(left - 6, y, label, 10, fill="#555", text_anchor="end"))
    out.append(text(left + inner_w / 2, height - 7, "ply", 10, fill="#555"))
    colours = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f")
    for i, (name, points) in enumerate(series.items()):
        colour = colours[i % len(colours)]
        if points:
            coords = " ".join(point(ply, value) for ply, value in points)
            out.append(
                f'<polyline class="series" data-seat="{esc(name)}" fill="none" '
                f'stroke="{colour}" stroke-width="2" points="{coords}"/>'
            )
            for ply, value in points:
                cx, cy = point(ply, value).split(",")
                out.append(circle(float(cx), float(cy), 2.5, fill=colour))
        out.append(text(left + 6 + 150 * i, top + 10, name, 10, fill=colour, text_anchor="start"))
    out.append("</svg>")
    return "".join(out)
