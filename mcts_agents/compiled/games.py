"""The games of the compiled kernel: one id per rule set, and dispatch by id.

``kernel.run`` calls ``legal``, ``play``, ``to_play``, ``playout`` and ``reachable`` with the
game's id ``g`` and parameter words ``p``; each forwards to that game's compiled rules. One
kernel compiled once (and cached by numba) serves every game: a branch on ``g`` per call costs
nothing next to the rules, where a kernel built per game around its functions would recompile
in every process (numba cannot cache closures over compiled functions).

A rule set (``othello``, ``othello_wide``, ``mnk``, ``ultimate``, ``nim``,
``connect_four_rules``) has, over a position
``s`` of int64 words and a scratch row ``t``:
    legal(p, s, out) -> n           the legal actions into ``out[:n]``
    play(p, s, action, t) -> term   the next position into ``t``; its value for its player to
                                    move (-1, 0, 1) if terminal, else ``UNKNOWN`` (more than
                                    two players: an outcome code, see ``kernel.run``)
    to_play(p, s) -> player
    playout(p, s, buf, decisive, rng) -> value for the player to move at ``s`` (not terminal);
                                    ``buf`` is ``BUFFER`` scratch words
    reachable(p, root, s) -> bool   whether ``s`` may follow ``root`` (sound: never False for
                                    a position that can follow), closed under moves
"""

from __future__ import annotations

import numpy as np
from numba import njit

from mcts_agents.compiled import connect_four_rules, mnk, nim, othello, othello_wide, ultimate

OTHELLO, MNK, ULTIMATE, NIM, OTHELLO_WIDE, CONNECT_FOUR = 1, 2, 3, 4, 5, 6
#: Scratch words a playout may use: a position and a list of cells or actions.
BUFFER = 1024


@njit(cache=True)
def legal(g: int, p: np.ndarray, s: np.ndarray, out: np.ndarray) -> int:
    if g == OTHELLO:
        return othello.legal(p, s, out)
    if g == MNK:
        return mnk.legal(p, s, out)
    if g == ULTIMATE:
        return ultimate.legal(p, s, out)
    if g == CONNECT_FOUR:
        return connect_four_rules.legal(p, s, out)
    if g == OTHELLO_WIDE:
        return othello_wide.legal(p, s, out)
    return nim.legal(p, s, out)


@njit(cache=True)
def play(g: int, p: np.ndarray, s: np.ndarray, action: int, t: np.ndarray) -> int:
    if g == OTHELLO:
        return othello.play(p, s, action, t)
    if g == MNK:
        return mnk.play(p, s, action, t)
    if g == ULTIMATE:
        return ultimate.play(p, s, action, t)
    if g == CONNECT_FOUR:
        return connect_four_rules.play(p, s, action, t)
    if g == OTHELLO_WIDE:
        return othello_wide.play(p, s, action, t)
    return nim.play(p, s, action, t)


@njit(cache=True)
def to_play(g: int, p: np.ndarray, s: np.ndarray) -> int:
    if g == OTHELLO:
        return othello.to_play(p, s)
    if g == MNK:
        return mnk.to_play(p, s)
    if g == ULTIMATE:
        return ultimate.to_play(p, s)
    if g == CONNECT_FOUR:
        return connect_four_rules.to_play(p, s)
    if g == OTHELLO_WIDE:
        return othello_wide.to_play(p, s)
    return nim.to_play(p, s)


@njit(cache=True)
def playout(
    g: int, p: np.ndarray, s: np.ndarray, buf: np.ndarray, decisive: bool, rng: np.ndarray
) -> float:
    if g == OTHELLO:
        return othello.playout(p, s, rng, decisive)
    if g == MNK:
        return mnk.playout(p, s, buf, decisive, rng)
    if g == ULTIMATE:
        return ultimate.playout(p, s, buf, decisive, rng)
    if g == CONNECT_FOUR:
        return connect_four_rules.playout(p, s, buf, decisive, rng)
    if g == OTHELLO_WIDE:
        return othello_wide.playout(p, s, rng)
    return nim.playout(p, s, buf, decisive, rng)


@njit(cache=True)
def reachable(g: int, p: np.ndarray, root: np.ndarray, s: np.ndarray) -> bool:
    if g == OTHELLO:
        return othello.reachable(p, root, s)
    if g == MNK:
        return mnk.reachable(p, root, s)
    if g == ULTIMATE:
        return ultimate.reachable(p, root, s)
    if g == CONNECT_FOUR:
        return connect_four_rules.reachable(p, root, s)
    if g == OTHELLO_WIDE:
        return othello_wide.reachable(p, root, s)
    return nim.reachable(p, root, s)
