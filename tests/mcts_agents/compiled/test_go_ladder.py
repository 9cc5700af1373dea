"""Ladder reading in Go's compiled search (compiled/go_ladder.py): the textbook ladder is caught
and a ladder breaker on its path saves it; on random positions the kernel's reads agree with a
reader written on the Python rules core (envs/games/go.py: its legality, captures and groups);
the search with ``ladders`` does not run out of a ladder."""

from __future__ import annotations

import random

import pytest

from mcts_agents import Budget, SearchConfig
from mcts_agents.envs.games.go import Go, parse_vertex

pytest.importorskip("numba")

from mcts_agents.compiled.go_board import board_from_core, cell_of, offsets, zobrist
from mcts_agents.compiled.go_ladder import LEVELS, atari_caught, escape_caught, ladder_space
from mcts_agents.compiled.go_searcher import GoOptions, GoSearch

GAME = Go(9, superko=False)


def at(*points: str) -> list[int]:
    return [int(parse_vertex(p, 9)) for p in points]


def position(black: list[str], white: list[str], to_play: int) -> tuple:
    return GAME.state_from_stones(GAME.stones(at(*black)), GAME.stones(at(*white)), to_play)


def kernel_reads(state: tuple, action: int) -> tuple[bool, bool]:
    """The kernel's ``escape_caught`` and ``atari_caught`` of the side to move at ``action``."""
    col, bw, st = board_from_core(GAME, state)
    w = ladder_space(col.shape[0], LEVELS)
    p = cell_of(action, 9)
    offs, zob = offsets(9), zobrist(GAME)
    return escape_caught(p, col, bw, st, offs, zob, w), atari_caught(p, col, bw, st, offs, zob, w)


# --- a reader on the rules core: groups and liberties by bitboards, moves by next_state ---


def group_of(state: tuple, action: int) -> tuple[int, int]:
    """The bitboard of the string at ``action`` and its colour's index (0 black, 1 white)."""
    bit = 1 << GAME.action_bit[action]
    side = 0 if state[0] & bit else 1
    return GAME.group(bit, state[side]), side


def liberties(state: tuple, action: int) -> list[int]:
    group, _ = group_of(state, action)
    free = GAME.neighbours(group) & GAME.board & ~(state[0] | state[1])
    return [a for a in range(GAME.points) if free >> GAME.action_bit[a] & 1]


def can_capture_next_to(state: tuple, action: int) -> bool:
    """Whether the side to move (the string at ``action``'s colour) can capture an opponent
    string in atari next to that string."""
    group, side = group_of(state, action)
    near = GAME.neighbours(group) & state[1 - side]
    for a in range(GAME.points):
        if near >> GAME.action_bit[a] & 1:
            libs = liberties(state, a)
            if len(libs) == 1 and GAME.is_legal(state, libs[0]):
                return True
    return False


def caught(state: tuple, action: int) -> bool:
    """The attacker to move; the string at ``action`` has two liberties."""
    libs = liberties(state, action)
    for i, a in enumerate(libs):
        e = libs[1 - i]
        if not GAME.is_legal(state, a):
            continue
        after = GAME.next_state(state, a)
        if len(liberties(after, action)) != 1 or can_capture_next_to(after, action):
            continue
        if not GAME.is_legal(after, e):
            return True
        extended = GAME.next_state(after, e)
        n = len(liberties(extended, action))
        if n < 2 or (n == 2 and caught(extended, action)):
            return True
    return False


def core_escape_caught(state: tuple, action: int) -> bool:
    after = GAME.next_state(state, action)
    n = len(liberties(after, action))
    return n < 2 or (n == 2 and caught(after, action))


def core_atari_caught(state: tuple, action: int) -> bool:
    mover = state[2]
    bit = 1 << GAME.action_bit[action]
    after = GAME.next_state(state, action)
    near = GAME.neighbours(bit) & state[1 - mover]
    for a in range(GAME.points):
        if not near >> GAME.action_bit[a] & 1 or len(liberties(state, a)) != 2:
            continue
        if not after[1 - mover] >> GAME.action_bit[a] & 1:
            continue  # captured
        libs = liberties(after, a)
        if len(libs) != 1 or can_capture_next_to(after, a):
            continue
        if not GAME.is_legal(after, libs[0]) or core_escape_caught(after, libs[0]):
            return True
    return False


# --- the textbook ladder ---
#
#   9 . . . . . . . . .     black D4 in atari (white C4 D3 E3 D5): running out at E4 leaves
#   8 . . . . . . . . .     two liberties, and white's ataris chase the string up and to the
#   7 . . . . . . b . .     right to the edge, where it dies; a black stone on the way (b, G7)
#   6 . . . . . . . . .     breaks the ladder. With D5 not yet played, white's D5 is the atari
#   5 . . . W . . . . .     that starts the same ladder; white's E4 is an atari that black
#   4 . . W B . . . . .     gets out of (D5 then has three liberties).
#   3 . . . W W . . . .
#     A B C D E F G H J


@pytest.mark.parametrize(("breaker", "dies"), [([], True), (["G7"], False), (["H8"], False)])
def test_the_textbook_ladder_is_caught_and_a_breaker_saves_it(breaker, dies) -> None:
    running = position(["D4", *breaker], ["C4", "D3", "E3", "D5"], to_play=0)
    assert kernel_reads(running, at("E4")[0])[0] is dies
    assert core_escape_caught(running, at("E4")[0]) is dies
    chasing = position(["D4", *breaker], ["C4", "D3", "E3"], to_play=1)
    assert kernel_reads(chasing, at("D5")[0])[1] is dies
    assert kernel_reads(chasing, at("E4")[0])[1] is False


def test_the_chase_of_the_textbook_ladder_captures_on_the_core() -> None:
    """The ladder, played on the rules core: white's ataris, black's extensions; the string's
    liberties stay at two after each extension until the edge leaves it one, and it is
    captured."""
    state = position(["D4"], ["C4", "D3", "E3", "D5"], to_play=0)
    for black, white in zip(
        ["E4", "E5", "F5", "F6", "G6", "G7", "H7", "H8"],
        ["F4", "E6", "G5", "F7", "H6", "G8", "J7", "H9"],
        strict=True,
    ):
        state = GAME.next_state(state, at(black)[0])
        assert len(liberties(state, at("D4")[0])) == 2
        state = GAME.next_state(state, at(white)[0])
    state = GAME.next_state(state, at("J8")[0])  # the edge: one liberty left
    assert liberties(state, at("D4")[0]) == at("J9")
    state = GAME.next_state(state, at("J9")[0])
    assert not state[0] & GAME.stones(at("D4"))  # captured


def random_positions(count: int, seed: int) -> list[tuple]:
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        state = GAME.initial_state()
        for _ in range(rng.randrange(20, 70)):
            moves = GAME.legal_actions(state)[:-1]
            if not moves:
                break
            state = GAME.next_state(state, rng.choice(moves))
        out.append(state)
    return out


def test_reads_agree_with_a_reader_on_the_rules_core() -> None:
    """Every legal move of 40 random positions: ``escape_caught`` where the move joins an own
    string in atari, ``atari_caught`` everywhere; both sides of each answer occur."""
    seen: dict[tuple[str, bool], int] = {}
    for state in random_positions(40, 7):
        mover = state[2]
        for action in GAME.legal_actions(state)[:-1]:
            escape, atari = kernel_reads(state, action)
            bit = 1 << GAME.action_bit[action]
            joins_atari = any(
                len(liberties(state, a)) == 1
                for a in range(GAME.points)
                if (GAME.neighbours(bit) & state[mover]) >> GAME.action_bit[a] & 1
            )
            if joins_atari:
                assert escape == core_escape_caught(state, action), GAME.render_text(state)
                seen["escape", escape] = seen.get(("escape", escape), 0) + 1
            assert atari == core_atari_caught(state, action), GAME.render_text(state)
            seen["atari", atari] = seen.get(("atari", atari), 0) + 1
    assert all(seen.get((kind, value), 0) > 0 for kind in ("escape", "atari") for value in (0, 1))


def test_the_search_with_ladders_does_not_run_out_of_the_ladder() -> None:
    """Black to move in the textbook position with black stones elsewhere: running out at E4
    is a lost string; with ``ladders`` the search hardly visits it, and less than without
    (23 of 3,000 visits there, seed 1)."""
    state = position(["D4", "G3", "C7"], ["C4", "D3", "E3", "D5", "F7"], to_play=0)
    budget = Budget(iterations=3000)

    def visits(ladders: bool) -> dict[int, int]:
        search = GoSearch(GAME, budget, SearchConfig(), 1, GoOptions(ladders=ladders))
        return {child.action: child.visits for child in search.search(GAME, state).children}

    reading, not_reading = visits(True), visits(False)
    assert reading[at("E4")[0]] < 0.02 * sum(reading.values())
    assert reading[at("E4")[0]] < not_reading[at("E4")[0]]  # the read is what keeps it off
