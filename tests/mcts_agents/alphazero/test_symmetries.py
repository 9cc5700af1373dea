"""Symmetries of the games' rules (``mcts_agents.alphazero.symmetries``), checked against the rules
cores.

The truth from outside: a symmetry is right when the position reached by playing the mapped
moves in the core shows the mapped observation and legal mask (and the same returns at the
end). Tic-tac-toe's eight maps are also compared with the dihedral group written out by hand.
Othello's start is symmetric under four of the eight maps only (white on the main diagonal,
black on the other), so the other four are checked on positions built from mapped boards.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest

from mcts_agents.alphazero import Symmetry
from mcts_agents.alphazero.symmetries import SQUARE, grid_symmetry, symmetries
from mcts_agents.envs.games.connect_four import ConnectFour
from mcts_agents.envs.games.go import Go
from mcts_agents.envs.games.mnk import MNK
from mcts_agents.envs.games.nim import Nim
from mcts_agents.envs.games.othello import Othello
from mcts_agents.errors import InvalidOptionError

TTT = MNK(3, 3, 3)
#: The eight symmetries of the 3x3 board as cell -> cell maps, written out by hand (cells
#: numbered 0 1 2 / 3 4 5 / 6 7 8).
DIHEDRAL_3X3 = {
    (0, 1, 2, 3, 4, 5, 6, 7, 8),  # identity
    (6, 3, 0, 7, 4, 1, 8, 5, 2),  # a quarter turn counterclockwise: 0 (top left) to bottom left
    (8, 7, 6, 5, 4, 3, 2, 1, 0),  # half turn
    (2, 5, 8, 1, 4, 7, 0, 3, 6),  # three quarters
    (2, 1, 0, 5, 4, 3, 8, 7, 6),  # left-right mirror
    (6, 7, 8, 3, 4, 5, 0, 1, 2),  # top-bottom mirror
    (0, 3, 6, 1, 4, 7, 2, 5, 8),  # main diagonal
    (8, 5, 2, 7, 4, 1, 6, 3, 0),  # other diagonal
}


def random_line(game: Any, seed: int, plies: int | None = None) -> list[int]:
    """Moves of a random game (to the end, or ``plies`` moves)."""
    rng = random.Random(seed)
    state, line = game.initial_state(), []
    while not game.is_terminal(state) and (plies is None or len(line) < plies):
        action = rng.choice(game.legal_actions(state))
        line.append(action)
        state = game.next_state(state, action)
    return line


def check_mapped_line(game: Any, symmetry: Symmetry, line: list[int]) -> None:
    """Play ``line`` and its image side by side; compare views at every position."""
    state, image = game.initial_state(), game.initial_state()
    for ply in range(len(line) + 1):
        assert game.to_play(image) == game.to_play(state)
        for player in range(game.num_players):
            mapped = symmetry.observations(game.observation(state, player))
            assert np.array_equal(mapped, game.observation(image, player)), (symmetry, ply)
        assert np.array_equal(symmetry.actions_of(game.legal_mask(state)), game.legal_mask(image))
        if ply == len(line):
            break
        state = game.next_state(state, line[ply])
        image = game.next_state(image, int(symmetry.actions[line[ply]]))
    assert game.is_terminal(state) == game.is_terminal(image)
    assert game.returns(state) == game.returns(image)


def test_tic_tac_toe_has_the_eight_symmetries_of_the_square() -> None:
    maps = symmetries(TTT)
    assert maps[0].name == "identity"
    assert {tuple(s.actions.tolist()) for s in maps} == DIHEDRAL_3X3
    assert len(maps) == 8


@pytest.mark.parametrize("seed", range(12))
def test_tic_tac_toe_symmetries_match_the_rules(seed: int) -> None:
    line = random_line(TTT, seed)
    for symmetry in symmetries(TTT):
        check_mapped_line(TTT, symmetry, line)


def test_the_symmetries_form_a_group() -> None:
    """Closed under composition, each with its inverse among them."""
    perms = {tuple(s.actions.tolist()) for s in symmetries(TTT)}
    for a in perms:
        for b in perms:
            assert tuple(a[b[x]] for x in range(9)) in perms


def test_connect_four_has_the_mirror_only() -> None:
    maps = symmetries(ConnectFour())
    assert [s.name for s in maps] == ["identity", "flip_columns"]
    assert maps[1].actions.tolist() == [6, 5, 4, 3, 2, 1, 0]


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize(("width", "height", "k"), [(7, 6, 4), (5, 4, 3)])
def test_connect_four_mirror_matches_the_rules(width: int, height: int, k: int, seed: int) -> None:
    game = ConnectFour(width, height, k)
    mirror = symmetries(game)[1]
    check_mapped_line(game, mirror, random_line(game, seed))


def test_the_mirror_flips_planes_on_the_width_axis() -> None:
    game = ConnectFour()
    state = game.apply(game.initial_state(), [0, 0, 1])
    obs = game.observation(state, 0)
    assert np.array_equal(symmetries(game)[1].observations(obs), obs[:, ::-1, :])


@pytest.mark.parametrize("seed", range(4))
def test_a_rectangular_board_has_four_symmetries_that_match_the_rules(seed: int) -> None:
    game = MNK(3, 4, 3)
    maps = symmetries(game)
    assert [s.name for s in maps] == ["identity", "flip_columns", "flip_rows", "rotate_180"]
    for symmetry in maps:
        check_mapped_line(game, symmetry, random_line(game, seed))


def test_a_quarter_turn_of_a_rectangle_is_refused() -> None:
    with pytest.raises(InvalidOptionError, match="square"):
        grid_symmetry("rotate_90", 3, 4)


# ------------------------------------------------------------------------------- Othello
START_KEEPERS = {"identity", "rotate_180", "transpose", "anti_transpose"}


@pytest.mark.parametrize("size", [6, 8])
def test_othello_start_is_kept_by_four_maps_and_colour_swapped_by_the_rest(size: int) -> None:
    game = Othello(size)
    start = game.initial_state()
    own = game.observation(start, 0)
    maps = symmetries(game)
    assert len(maps) == 8
    kept = {s.name for s in maps if np.array_equal(s.observations(own), own)}
    assert kept == START_KEEPERS
    for symmetry in maps:
        assert symmetry.actions[game.pass_action] == game.pass_action
        if symmetry.name not in kept:  # the colours swap: black's view shows white's discs
            assert np.array_equal(symmetry.observations(own), own[..., ::-1])


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("size", [6, 8])
def test_othello_start_keeping_symmetries_match_played_lines(size: int, seed: int) -> None:
    game = Othello(size)
    line = random_line(game, seed, plies=None if size == 6 else 30)
    for symmetry in symmetries(game):
        if symmetry.name in START_KEEPERS:
            check_mapped_line(game, symmetry, line)


def map_board(symmetry: Symmetry, board: int) -> int:
    return sum(1 << int(symmetry.actions[c]) for c in range(board.bit_length()) if board >> c & 1)


def othello_state(game: Othello, own: int, other: int, player: int) -> Any:
    """The position with ``own`` discs for ``player`` to move: the core's state after a pass
    from the position of the other player (its layout ``(own, other, to_play, moves)``)."""
    return game.next_state((other, own, 1 - player, 0), game.pass_action)


@pytest.mark.parametrize("seed", range(4))
def test_all_eight_othello_maps_commute_with_the_rules(seed: int) -> None:
    """From mapped boards: the mapped legal mask, and every move's result mapped."""
    game = Othello(6)
    line = random_line(game, seed)
    state = game.initial_state()
    for action in line[:-1]:
        state = game.next_state(state, action)
        if game.is_terminal(state):
            break
        own, other, player = state[0], state[1], game.to_play(state)
        for symmetry in symmetries(game):
            image = othello_state(
                game, map_board(symmetry, own), map_board(symmetry, other), player
            )
            obs = game.observation(state, player)
            assert np.array_equal(symmetry.observations(obs), game.observation(image, player))
            mask = symmetry.actions_of(game.legal_mask(state))
            assert np.array_equal(mask, game.legal_mask(image))
            for move in game.legal_actions(state):
                after = game.next_state(state, move)
                after_image = game.next_state(image, int(symmetry.actions[move]))
                for viewer in (0, 1):
                    assert np.array_equal(
                        symmetry.observations(game.observation(after, viewer)),
                        game.observation(after_image, viewer),
                    )


# ---------------------------------------------------------------------------- the protocol
# ------------------------------------------------------------------------------------ Go


@pytest.mark.parametrize("superko", [True, False])
@pytest.mark.parametrize("seed", range(3))
def test_all_eight_go_maps_commute_with_the_rules(superko: bool, seed: int) -> None:
    """A random 5x5 game (captures, ko, passes; to its end) and its image under each map are
    the same game: observations (the history planes too), legal masks, ends and scores."""
    game = Go(5, komi=0.5, superko=superko)
    line = random_line(game, seed, plies=120)
    maps = symmetries(game)
    assert [m.name for m in maps] == list(SQUARE)
    for symmetry in maps:
        assert symmetry.actions[game.pass_action] == game.pass_action
        check_mapped_line(game, symmetry, line)


def test_a_go_corner_stone_visits_the_four_corners() -> None:
    game = Go(9)
    images = {int(m.actions[0]) for m in symmetries(game)}  # the point a1's images
    assert images == {0, 8, 72, 80}


def test_a_game_without_symmetries_gets_the_identity() -> None:
    game = Nim()
    (only,) = symmetries(game)
    assert only.name == "identity"
    obs = np.arange(6.0).reshape(2, 3)
    assert only.observations(obs) is obs
    assert only.actions.tolist() == list(range(game.num_actions))


def test_batches_map_like_single_observations() -> None:
    game = Othello(6)
    states = [game.initial_state()]
    for action in random_line(game, 3, plies=5):
        states.append(game.next_state(states[-1], action))
    batch = np.stack([game.observation(s, 0) for s in states])
    masks = np.stack([game.legal_mask(s) for s in states])
    for symmetry in symmetries(game):
        mapped = symmetry.observations(batch)
        mapped_masks = symmetry.actions_of(masks)
        for i, state in enumerate(states):
            assert np.array_equal(mapped[i], symmetry.observations(game.observation(state, 0)))
            assert np.array_equal(mapped_masks[i], symmetry.actions_of(game.legal_mask(state)))


@pytest.mark.parametrize(
    ("arguments", "words"),
    [
        (("bad", np.array([0, 0, 1])), "permutation of range"),
        (("bad", np.arange(4), np.array([0, 1, 1, 3]), (2, 2)), "permutation of the"),
        (("bad", np.arange(4), np.arange(4)), "both cells and board"),
    ],
)
def test_a_bad_symmetry_is_refused(arguments: tuple[Any, ...], words: str) -> None:
    with pytest.raises(InvalidOptionError, match=words):
        Symmetry(*arguments)


def test_shapes_that_do_not_fit_are_refused() -> None:
    symmetry = symmetries(TTT)[1]
    with pytest.raises(InvalidOptionError, match=r"\[\.\.\., 3, 3, channels\]"):
        symmetry.observations(np.zeros((4, 4, 2)))
    with pytest.raises(InvalidOptionError, match=r"\[\.\.\., 9\]"):
        symmetry.actions_of(np.zeros(8))
