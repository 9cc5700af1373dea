"""Every game of ours drawn as SVG: well-formed, a clickable element per legal move, the heat
map's shares, and pieces and cards that match the state (and hide what the viewer may not see).
"""

from __future__ import annotations

import io
import random
import xml.etree.ElementTree as ET
from typing import Any

import numpy as np
import pytest

from mcts_agents.adapters.aec import legal_actions
from mcts_agents.agents.specs import ENV_SPECS, parse_env_spec
from mcts_agents.envs.games.connect_four import ConnectFour
from mcts_agents.envs.games.kuhn_poker import KuhnPoker
from mcts_agents.envs.games.leduc_holdem import LeducHoldem
from mcts_agents.envs.games.mnk import MNK
from mcts_agents.envs.games.othello import Othello
from mcts_agents.envs.games.phantom_mnk import PhantomMNK
from mcts_agents.web.svg import Heat, compose, value_chart
from mcts_agents.web.tables import DRAWERS, draw_pixels, png_bytes
from mcts_agents.web.views import position_drawing

SVG = "{http://www.w3.org/2000/svg}"


def played(name: str, moves: int, seed: int = 0) -> Any:
    """The env ``name`` after up to ``moves`` random moves, stopping before one that ends it."""
    env = parse_env_spec(name)()
    env.reset(seed=seed)
    rng = random.Random(seed)
    game = env.unwrapped.game
    for _ in range(moves):
        action = rng.choice(legal_actions(env))
        if game.is_terminal(game.next_state(env.unwrapped.state, action)):
            break
        env.step(action)
    return env


def parse(svg: str) -> ET.Element:
    return ET.fromstring(svg)  # raises on malformed XML


def elements(root: ET.Element, attribute: str) -> list[ET.Element]:
    return [e for e in root.iter() if attribute in e.attrib]


@pytest.mark.parametrize("name", sorted(ENV_SPECS))
@pytest.mark.parametrize("moves", [0, 5])
def test_every_game_draws_its_moves_and_heat(name: str, moves: int) -> None:
    env = played(name, moves)
    raw = env.unwrapped
    game, state = raw.game, raw.state
    assert type(game) in DRAWERS, f"{name}: no drawer of its own"
    legal = legal_actions(env)
    shares = np.random.default_rng(0).dirichlet(np.ones(len(legal)))
    heat = {a: Heat(float(s), 0.5, 10) for a, s in zip(legal, shares, strict=True)}
    drawing = position_drawing(game, state, None, game.to_play(state))
    root = parse(compose(drawing, legal, heat, lambda a: game.action_to_string(state, a), None))
    clickable = [int(e.attrib["data-action"]) for e in elements(root, "data-action")]
    assert sorted(clickable) == sorted(legal)  # one element per legal move, no other
    heated = {int(e.attrib["data-heat"]): float(e.attrib["data-share"]) for e in
              elements(root, "data-heat")}  # fmt: skip
    assert set(heated) == set(legal)
    assert sum(heated.values()) == pytest.approx(1.0, abs=1e-4)
    titles = {e.find(f"{SVG}title").text for e in elements(root, "data-action")}  # type: ignore[union-attr]
    assert titles == {game.action_to_string(state, a) for a in legal}


def pieces(root: ET.Element, seat: int) -> int:
    return sum(
        1
        for e in root.iter()
        if "piece" in e.attrib.get("class", "") and e.attrib.get("data-seat") == str(seat)
    )


def test_tic_tac_toe_and_gomoku_pieces_match_the_board() -> None:
    for name in ("tic_tac_toe", "gomoku", "multi_mnk"):
        env = played(name, 7, seed=2)
        game: MNK = env.unwrapped.game
        state = env.unwrapped.state
        root = parse(compose(position_drawing(game, state, None, None)))
        for seat in range(game.num_players):
            assert pieces(root, seat) == state[seat].bit_count(), (name, seat)


def test_connect_four_pieces_and_a_region_per_column() -> None:
    env = played("connect_four", 9, seed=1)
    game: ConnectFour = env.unwrapped.game
    state = env.unwrapped.state
    drawing = position_drawing(game, state, None, None)
    assert sorted(drawing.regions) == list(range(game.width))
    root = parse(compose(drawing))
    assert pieces(root, 0) == state[0].bit_count() and pieces(root, 1) == state[1].bit_count()


def test_othello_counts_discs_and_pass_is_a_button() -> None:
    game = Othello(4)
    rng = random.Random(0)
    state = game.initial_state()
    while game.pass_action not in game.legal_actions(state):  # random games until a pass
        state = game.next_state(state, rng.choice(game.legal_actions(state)))
        if game.is_terminal(state):
            state = game.initial_state()
    drawing = position_drawing(game, state, None, None)
    assert game.pass_action not in drawing.regions
    root = parse(compose(drawing, [game.pass_action], None, str))
    assert [int(e.attrib["data-action"]) for e in elements(root, "data-action")] == [
        game.pass_action
    ]
    grid = game.grid(state)
    assert pieces(root, 0) == (grid == 1).sum() and pieces(root, 1) == (grid == 2).sum()


def test_phantom_view_hides_unseen_enemy_stones() -> None:
    game = PhantomMNK(3, 3, 3)
    state = game.apply(game.initial_state(), [4, 0, 8])  # X centre; O corner; X corner
    for view in (0, 1):
        root = parse(compose(position_drawing(game, state, None, view)))
        board, known = state[0], state[1 + view]
        enemy = 1 - view
        assert pieces(root, view) == board[view].bit_count()
        assert pieces(root, enemy) == (board[enemy] & known).bit_count()
    everything = parse(compose(position_drawing(game, state, None, None)))
    assert pieces(everything, 0) == 2 and pieces(everything, 1) == 1


def cards(root: ET.Element) -> list[str]:
    return [e.attrib["data-card"] for e in elements(root, "data-card")]


def test_poker_shows_only_the_viewers_card_until_the_end() -> None:
    for game in (KuhnPoker(), LeducHoldem()):
        env = played("kuhn_poker" if isinstance(game, KuhnPoker) else "leduc_holdem", 0, 4)
        state = env.unwrapped.state
        for view in (0, 1):
            shown = cards(parse(compose(position_drawing(game, state, None, view))))
            assert shown == [game.card_name(state[view + 1])]
        both = cards(parse(compose(position_drawing(game, state, None, None))))
        assert both == [game.card_name(state[1]), game.card_name(state[2])]


def test_oh_hell_hand_cards_are_the_card_moves() -> None:
    env = played("oh_hell", 40, seed=5)
    game, state = env.unwrapped.game, env.unwrapped.state
    mover = game.to_play(state)
    drawing = position_drawing(game, state, None, mover)
    hand = [c for c in range(game.num_cards) if state[4][mover] >> c & 1]
    assert sorted(drawing.regions) == hand
    legal = game.legal_actions(state)
    root = parse(compose(drawing, legal, None, str))
    assert sorted(int(e.attrib["data-action"]) for e in elements(root, "data-action")) == legal


def test_png_round_trip_and_the_pixel_fallback() -> None:
    image = np.random.default_rng(3).integers(0, 256, (7, 5, 3), dtype=np.uint8)
    data = png_bytes(image)
    pil = pytest.importorskip("PIL.Image")
    assert np.array_equal(np.asarray(pil.open(io.BytesIO(data)).convert("RGB")), image)
    drawing = draw_pixels(image)
    root = parse(compose(drawing, [0, 1, 2], None, lambda a: f"move {a}"))
    assert len(elements(root, "data-action")) == 3 and drawing.regions == {}
    with pytest.raises(ValueError, match="RGB"):
        png_bytes(np.zeros((3, 3)))


def test_value_chart_has_a_line_per_seat() -> None:
    root = parse(value_chart({"a": [(0, 0.1), (2, -0.5)], "b": [(1, 0.9)]}, 3))
    lines = [e for e in root.iter(f"{SVG}polyline")]
    assert [e.attrib["data-seat"] for e in lines] == ["a", "b"]
    assert len(lines[0].attrib["points"].split()) == 2


def test_an_openspiel_game_is_drawn_from_the_viewers_seat() -> None:
    """openspiel_v0's drawing is OpenSpiel's text: a seat's own observation while the hand
    lasts (never the other card), the whole state for a spectator."""
    pyspiel = pytest.importorskip("pyspiel")
    env = parse_env_spec("openspiel:kuhn_poker")()
    env.reset(seed=0)
    game, state = env.unwrapped.game, env.unwrapped.state
    words = {view: ET.tostring(parse(compose(position_drawing(game, state, None, view))))
             for view in (0, 1, None)}  # fmt: skip
    spiel = pyspiel.load_game("kuhn_poker").new_initial_state()
    for action in state.history:
        spiel.apply_action(action)
    for view in (0, 1):
        assert spiel.observation_string(view).encode() in words[view]
        assert spiel.observation_string(1 - view).encode() not in words[view]
    assert str(spiel).encode() in words[None]
