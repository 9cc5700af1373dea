"""SVG drawings of the dice and card games (Pig, Kuhn poker, Leduc hold'em, Oh Hell, rlcard's
Leduc and limit hold'em; any OpenSpiel game as OpenSpiel's text, from the viewer's seat), and
the fallback for anyone else's env: its ``rgb_array`` picture as an embedded PNG.

A card game is drawn from one seat's view: its own cards face up, the others' face down, until
the hand is over (``view=None`` shows every card: a spectator, or the end). Their moves (pass,
bet, fold, call, raise, bids) have no place on the table and become buttons (``svg.compose``);
Oh Hell's cards in hand are the places of its card moves.
"""

from __future__ import annotations

import base64
import struct
import zlib
from typing import Any

import numpy as np

from mcts_agents.envs.games.go import Go
from mcts_agents.envs.games.kuhn_poker import KuhnPoker
from mcts_agents.envs.games.leduc_holdem import LeducHoldem
from mcts_agents.envs.games.limit_holdem import LimitHoldem
from mcts_agents.envs.games.oh_hell import TERMINAL, OhHell
from mcts_agents.envs.games.openspiel import OpenSpielCore
from mcts_agents.envs.games.pig import Pig
from mcts_agents.envs.games.rlcard_leduc import RLCardLeduc
from mcts_agents.envs.games.rlcard_poker import RLCardPoker
from mcts_agents.web.boards import BOARD_DRAWERS, PAD, Drawer
from mcts_agents.web.go_board import draw_go
from mcts_agents.web.svg import SEAT_COLOURS, Drawing, rect, text

__all__ = ["DRAWERS", "draw_pixels", "png_bytes"]

CARD_W, CARD_H = 46.0, 66.0
_SUIT_SYMBOLS = {"C": "♣", "D": "♦", "S": "♠", "H": "♥"}


def _card(x: float, y: float, name: str | None, w: float = CARD_W, h: float = CARD_H) -> str:
    """A card face (``name`` like ``"K"``, ``"Q2"`` or ``"TH"``), or its back for ``None``."""
    if name is None:
        return rect(x, y, w, h, rx=5, fill="#2b4c8c", stroke="#13264d", class_="card-back")
    suit = _SUIT_SYMBOLS.get(name[-1]) if len(name) == 2 and name[-1] in _SUIT_SYMBOLS else None
    shown = name[:-1] + suit if suit else name
    colour = "#c0392b" if name[-1:] in ("D", "H") and suit else "#111"
    return (
        f'<g class="card" data-card="{name}">'
        + rect(x, y, w, h, rx=5, fill="#fff", stroke="#555")
        + text(x + w / 2, y + h / 2, shown, min(22.0, w * 0.45), fill=colour, font_weight="bold")
        + "</g>"
    )


def _lines(drawing: Drawing, y: float, lines: list[str]) -> float:
    for line in lines:
        drawing.add(text(PAD, y, line, 13, fill="#222", text_anchor="start"))
        y += 20
    return y


def draw_pig(game: Pig, state: Any, view: int | None) -> Drawing:
    """A score bar per player towards ``winscore``, the turn total of the player to move."""
    _, player, total, node, scores = state
    bar = 320.0
    drawing = Drawing(bar + 150 + 2 * PAD, (len(scores) + 2) * 30 + 2 * PAD)
    drawing.add(rect(0, 0, drawing.width, drawing.height, fill="#f3f6f9", rx=8))
    for p, score in enumerate(scores):
        y = PAD + p * 30
        drawing.add(text(PAD, y + 12, f"player_{p}", 13, fill="#222", text_anchor="start"))
        drawing.add(rect(PAD + 80, y + 2, bar, 20, fill="#ddd", rx=4))
        fill = min(1.0, score / game.winscore)
        colour = SEAT_COLOURS[2 + p % 5]
        drawing.add(rect(PAD + 80, y + 2, bar * fill, 20, fill=colour, rx=4, class_="score"))
        drawing.add(
            text(
                PAD + 90 + bar,
                y + 12,
                f"{score} / {game.winscore}",
                13,
                fill="#222",
                text_anchor="start",
            )
        )
    y = PAD + len(scores) * 30 + 10
    words = "game over" if node == 2 else f"player_{player} to move, turn total {total}"
    drawing.add(text(PAD, y + 12, words, 14, fill="#222", text_anchor="start"))
    return drawing


def _poker(
    drawing: Drawing, cards: list[str | None], public: list[str | None], info: list[str]
) -> Drawing:
    y = PAD
    for p, name in enumerate(cards):
        x = PAD + p * (CARD_W + 60)
        drawing.add(text(x + CARD_W / 2, y + 8, f"player_{p}", 12, fill="#222"))
        drawing.add(_card(x, y + 20, name))
    if public:
        x = drawing.width - PAD - CARD_W
        drawing.add(text(x + CARD_W / 2, y + 8, "public", 12, fill="#222"))
        drawing.add(
            _card(x, y + 20, public[0])
            if public[0]
            else rect(
                x, y + 20, CARD_W, CARD_H, rx=5, fill="none", stroke="#999", stroke_dasharray="4 3"
            )
        )
    _lines(drawing, y + CARD_H + 40, info)
    return drawing


def _shown(view: int | None, seat: int) -> bool:
    return view is None or view == seat


def draw_kuhn(game: KuhnPoker, state: Any, view: int | None) -> Drawing:
    n = game.players
    cards = [
        game.card_name(state[p + 1]) if state[p + 1] >= 0 and _shown(view, p) else None
        for p in range(n)
    ]
    info = [line for line in game.render_text(state).split("\n") if not line.startswith("cards")]
    drawing = Drawing(max(360.0, 2 * PAD + n * (CARD_W + 60)), CARD_H + 60 + 20 * len(info))
    drawing.add(rect(0, 0, drawing.width, drawing.height, fill="#e8f3ea", rx=8))
    return _poker(drawing, cards, [], info)


def draw_leduc(game: LeducHoldem, state: Any, view: int | None) -> Drawing:
    cards = [
        game.card_name(state[p + 1]) if state[p + 1] >= 0 and _shown(view, p) else None
        for p in range(2)
    ]
    public = [game.card_name(state[3]) if state[3] >= 0 else None]
    info = [line for line in game.render_text(state).split("\n") if not line.startswith("cards")]
    drawing = Drawing(400.0, CARD_H + 60 + 20 * len(info))
    drawing.add(rect(0, 0, drawing.width, drawing.height, fill="#e8f3ea", rx=8))
    return _poker(drawing, cards, public, info)


def draw_rlcard_poker(game: RLCardPoker, state: Any, view: int | None) -> Drawing:
    """rlcard's Leduc and limit hold'em: each seat's hole cards (backs where hidden), the board."""
    _, cards = state
    hole = game.hole

    def face(card: int) -> str:  # rlcard's "HT" as the drawing's "TH"
        name = game.card_name(card)
        return name[1] + name[0] if len(name) == 2 else name

    info = [line for line in game.render_text(state).split("\n") if ":" not in line[:9]]
    seat_w = hole * (CARD_W + 6) + 40
    drawing = Drawing(max(400.0, 2 * PAD + 5 * (CARD_W + 6)), 2 * CARD_H + 100 + 20 * len(info))
    drawing.add(rect(0, 0, drawing.width, drawing.height, fill="#e8f3ea", rx=8))
    for p in range(2):
        x = PAD + p * seat_w
        drawing.add(text(x + seat_w / 2 - 20, PAD + 8, f"player_{p}", 12, fill="#222"))
        for k, card in enumerate(cards[p * hole : (p + 1) * hole]):
            drawing.add(
                _card(x + k * (CARD_W + 6), PAD + 28, face(card) if _shown(view, p) else None)
            )
    y = PAD + CARD_H + 44
    drawing.add(text(PAD + 20, y, "public", 12, fill="#222"))
    for k, card in enumerate(cards[2 * hole :]):
        drawing.add(_card(PAD + k * (CARD_W + 6), y + 12, face(card)))
    _lines(drawing, y + CARD_H + 36, info)
    return drawing


def _bits(mask: int) -> list[int]:
    return [i for i in range(mask.bit_length()) if mask >> i & 1]


def draw_oh_hell(game: OhHell, state: Any, view: int | None) -> Drawing:
    """The trump card, each player's bid and tricks, the trick on the table (or the last one),
    and one hand face up (``view``'s; as a spectator, the player to move's): its cards are the
    places of the card moves. Other hands show as card counts until the end."""
    n, suits = game.players, game.num_suits
    tricks, dealer, _, trump, hands, initial, history, to_play = state[:8]
    over = to_play == TERMINAL
    focus = view if view is not None else (to_play if to_play >= 0 else 0)
    hand = sorted(_bits(hands[focus]), key=lambda c: (c % suits, c))
    width = max(520.0, 2 * PAD + len(hand) * (CARD_W + 4))
    drawing = Drawing(width, 0.0)
    parts: list[str] = []
    y = PAD + 10
    head = f"{tricks} tricks, dealer player_{dealer}, trump"
    parts.append(text(PAD, y, head, 13, fill="#222", text_anchor="start"))
    if trump >= 0:
        parts.append(_card(PAD + 230, y - 12, game.card_string(trump), 30, 42))
    y += 44
    scores = game.returns(state)
    for q, (bid, won) in enumerate(zip(game.bids(state), state[8], strict=True)):
        words = f"player_{q}: bid {'-' if bid < 0 else bid}, won {won}"
        if over:
            words += f", score {scores[q]:g}"
        elif q != focus:
            cards = " ".join(game.card_string(c) for c in _bits(hands[q])) if view is None else ""
            words += f", {hands[q].bit_count()} cards" + (f": {cards}" if cards else "")
        marker = " <- to play" if q == to_play else ""
        parts.append(text(PAD, y, words + marker, 13, fill="#222", text_anchor="start"))
        y += 20
    in_trick = (len(history) - n) % n if len(history) >= n else 0
    table = history[len(history) - in_trick :] if in_trick else []
    caption = "on the table"
    if not table and len(history) > n:
        table, caption = history[-n:], "last trick"
    if table:
        parts.append(text(PAD, y + 8, caption, 12, fill="#555", text_anchor="start"))
        for i, card in enumerate(table):
            owner = next(q for q in range(n) if initial[q] >> card & 1)
            x = PAD + 90 + i * (CARD_W + 30)
            parts.append(text(x + CARD_W / 2, y + 8, f"player_{owner}", 11, fill="#222"))
            parts.append(_card(x, y + 18, game.card_string(card)))
        y += CARD_H + 30
    parts.append(text(PAD, y + 6, f"hand of player_{focus}", 12, fill="#555", text_anchor="start"))
    y += 16
    for i, card in enumerate(hand):
        x = PAD + i * (CARD_W + 4)
        parts.append(_card(x, y, game.card_string(card)))
        drawing.regions[card] = (x, y, CARD_W, CARD_H)
    drawing.height = y + CARD_H + PAD
    drawing.add(rect(0, 0, drawing.width, drawing.height, fill="#e8f3ea", rx=8), *parts)
    return drawing


def draw_openspiel(game: OpenSpielCore, state: Any, view: int | None) -> Drawing:
    """``openspiel_v0``: OpenSpiel's own text of the position, from ``view``'s seat in a game
    with hidden information while it lasts (its ``observation_string``, else its
    ``information_state_string``), else the whole ``str(state)``. Every move is a button."""
    spiel = state.spiel
    if view is None or game.perfect_information or spiel.is_terminal():
        words = str(spiel)
    else:
        try:
            words = spiel.observation_string(view)
        except Exception:  # pyspiel.SpielError: the game has no observation string
            words = spiel.information_state_string(view)
    lines = [line.rstrip() for line in str(words).splitlines()][:40] or [""]
    width = max(480.0, 8.0 * max(len(line) for line in lines) + 2 * PAD)
    drawing = Drawing(width, 20.0 * len(lines) + 2 * PAD)
    drawing.add(rect(0, 0, drawing.width, drawing.height, fill="#f3f6f9", rx=8))
    _lines(drawing, PAD + 10, lines)
    return drawing


#: rules core type -> drawer, for every game of ``mcts_agents.envs``.
DRAWERS: dict[type, Drawer] = {
    **BOARD_DRAWERS,
    Go: draw_go,
    Pig: draw_pig,
    KuhnPoker: draw_kuhn,
    LeducHoldem: draw_leduc,
    OhHell: draw_oh_hell,
    RLCardLeduc: draw_rlcard_poker,
    LimitHoldem: draw_rlcard_poker,
    OpenSpielCore: draw_openspiel,
}


def png_bytes(image: np.ndarray) -> bytes:
    """A PNG file of an RGB or RGBA ``uint8`` image ``[height, width, 3 or 4]`` (zlib only)."""
    pixels = np.ascontiguousarray(image, dtype=np.uint8)
    if pixels.ndim != 3 or pixels.shape[2] not in (3, 4):
        raise ValueError(f"expected an RGB(A) image [H, W, 3 or 4], got shape {pixels.shape}")
    height, width, channels = pixels.shape
    raw = b"".join(b"\x00" + pixels[row].tobytes() for row in range(height))

    def chunk(tag: bytes, data: bytes) -> bytes:
        crc = zlib.crc32(tag + data) & 0xFFFFFFFF
        return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", crc)

    colour_type = 2 if channels == 3 else 6
    header = struct.pack(">IIBBBBB", width, height, 8, colour_type, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(raw, 6))
        + chunk(b"IEND", b"")
    )


def draw_pixels(image: Any, note: str = "") -> Drawing:
    """An env we cannot draw ourselves: its ``rgb_array`` picture (at most 480 pixels wide), or
    ``note`` when it has none. Its moves all become buttons."""
    if image is None:
        drawing = Drawing(480.0, 60.0)
        drawing.add(rect(0, 0, 480, 60, fill="#f3f3f3", rx=8))
        drawing.add(text(240, 30, note or "this env draws no picture", 13, fill="#555"))
        return drawing
    array = np.asarray(image)
    height, width = array.shape[:2]
    scale = min(1.0, 480.0 / width)
    w, h = width * scale, height * scale
    data = base64.b64encode(png_bytes(array)).decode("ascii")
    drawing = Drawing(w + 2 * PAD, h + 2 * PAD)
    drawing.add(
        f'<image class="pixels" x="{PAD}" y="{PAD}" width="{w:g}" height="{h:g}" '
        f'href="data:image/png;base64,{data}"/>'
    )
    return drawing
