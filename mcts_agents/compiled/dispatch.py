"""The games of the compiled search: one id per rule set, and dispatch by id.

The tree core (``core``, ``tree``) calls ``legal``, ``play``, ``to_play``, ``playout``,
``reachable`` and ``blocks`` with the game's id ``g`` and parameter words ``p``; each forwards
to that game's compiled rules. In compiled code the choice is made while compiling (numba
overloads on a literal ``g``): the core's entry points for one game (``entries``, which pass its
id as a constant) compile that game's rules and no other game's, and numba caches them like
any module-level function. From Python they forward by a dict lookup (for tests).

A rule set (the modules of ``rules.RULE_SETS``) has, over a position ``s`` of int64 words and
a scratch row ``t``:
    legal(p, s, out) -> n           the legal actions into ``out[:n]``
    play(p, s, action, t) -> term   the next position into ``t``; its value for its player to
                                    move (-1, 0, 1) if terminal, else ``UNKNOWN`` (more than
                                    two players: an outcome code, see ``core``)
    to_play(p, s) -> player
    playout(p, s, buf, decisive, rng) -> value for the player to move at ``s`` (not terminal);
                                    ``buf`` is ``BUFFER`` scratch words
    reachable(p, root, s) -> bool   whether ``s`` may follow ``root`` (sound: never False for
                                    a position that can follow), closed under moves
and may set ``EDGE_BLOCKS = True``: the tree's edge layout (``tree``'s docstring), read by
``blocks(g)`` as a constant, so the core compiles one layout per game at no cost at run time;
``RUNTIME_FREE = True`` where those five functions (and all they call) allocate nothing and
create no array (no slice, no view): the core then calls them without numba's runtime;
``ALTERNATES = True`` where two players alternate at every move (no pass, no second stone):
the tree keeps no ``player`` column and a value changes sign at every step (``alternates``);
and ``WORDS``, the words of every position of the rule set (``words``: the hash's loop
bound, a constant; without it, the row's length).
A new rule set needs no line in this module (the ids by name below serve tests and tools).
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np
from numba.core import types
from numba.extending import overload

from mcts_agents.compiled.rules import RULE_SETS, rule_set

#: Scratch words a playout may use: a position and a list of cells or actions.
BUFFER = 1024
#: Each game id's rules module.
RULES: dict[int, ModuleType] = {one.game_id: one.module() for one in RULE_SETS}
#: The ids of the first rule sets by name (for tests and tools; the kernel needs none).
OTHELLO, MNK, ULTIMATE, NIM, OTHELLO_WIDE, CONNECT_FOUR = (
    rule_set(name).game_id
    for name in ("othello", "mnk", "ultimate", "nim", "othello_wide", "connect_four")
)


def _rules(g: Any) -> ModuleType | None:
    """The rules of a literal game id while numba types a call, else ``None`` (no match: the
    kernel must be entered through ``entries``, which makes ``g`` a constant)."""
    if isinstance(g, types.IntegerLiteral):
        return RULES.get(g.literal_value)
    return None


def legal(g: int, p: np.ndarray, s: np.ndarray, out: np.ndarray) -> int:
    return int(RULES[g].legal(p, s, out))


def play(g: int, p: np.ndarray, s: np.ndarray, action: int, t: np.ndarray) -> int:
    return int(RULES[g].play(p, s, action, t))


def to_play(g: int, p: np.ndarray, s: np.ndarray) -> int:
    return int(RULES[g].to_play(p, s))


def playout(
    g: int, p: np.ndarray, s: np.ndarray, buf: np.ndarray, decisive: bool, rng: np.ndarray
) -> float:
    return float(RULES[g].playout(p, s, buf, decisive, rng))


def reachable(g: int, p: np.ndarray, root: np.ndarray, s: np.ndarray) -> bool:
    return bool(RULES[g].reachable(p, root, s))


def blocks(g: int) -> bool:
    """Whether game ``g``'s tree keeps a node's legal moves as one block of edges (its rule
    set's ``EDGE_BLOCKS``), else a list of the expanded ones."""
    return bool(getattr(RULES[g], "EDGE_BLOCKS", False))


def alternates(g: int) -> bool:
    """Whether game ``g``'s two players alternate at every move (its rule set's
    ``ALTERNATES``): its tree stores no ``player`` column."""
    return bool(getattr(RULES[g], "ALTERNATES", False))


def words(g: int) -> int:
    """The words of every position of game ``g`` (its rule set's ``WORDS``), or 0 where they
    vary with the game's parameters."""
    return int(getattr(RULES[g], "WORDS", 0))


# The overloads' parameters are unannotated: numba wants them equal to their ``impl``'s. One
# overload a function (not one factory for the five): numba wants an overload's parameters to
# be its function's, which a shared factory could only give as star-args, in the core's
# innermost calls. Each is made twice (``_overloads``): for the rule sets whose functions need
# no runtime (``RUNTIME_FREE``) the calls are compiled without numba's reference counting (a
# call would otherwise count a reference to each array it is given, on the way in and out).
def _overloads(free: bool) -> None:
    options: dict[str, Any] = {"prefer_literal": True}
    if free:
        options["jit_options"] = {"_nrt": False}

    def chosen(g: Any) -> ModuleType | None:
        rules = _rules(g)
        if rules is None or bool(getattr(rules, "RUNTIME_FREE", False)) != free:
            return None
        return rules

    @overload(legal, **options)
    def _legal(g, p, s, out):
        rules = chosen(g)
        if rules is None:
            return None
        f = rules.legal

        def impl(g, p, s, out):
            return f(p, s, out)

        return impl

    @overload(play, **options)
    def _play(g, p, s, action, t):
        rules = chosen(g)
        if rules is None:
            return None
        f = rules.play

        def impl(g, p, s, action, t):
            return f(p, s, action, t)

        return impl

    @overload(to_play, **options)
    def _to_play(g, p, s):
        rules = chosen(g)
        if rules is None:
            return None
        f = rules.to_play

        def impl(g, p, s):
            return f(p, s)

        return impl

    @overload(playout, **options)
    def _playout(g, p, s, buf, decisive, rng):
        rules = chosen(g)
        if rules is None:
            return None
        f = rules.playout

        def impl(g, p, s, buf, decisive, rng):
            return f(p, s, buf, decisive, rng)

        return impl

    @overload(reachable, **options)
    def _reachable(g, p, root, s):
        rules = chosen(g)
        if rules is None:
            return None
        f = rules.reachable

        def impl(g, p, root, s):
            return f(p, root, s)

        return impl


_overloads(free=True)
_overloads(free=False)


def _constant(f: Any, name: str, default: Any) -> None:
    """An overload of ``f(g)``: the rule set's constant ``name`` (else ``default``), frozen
    into the caller's code."""

    @overload(f, prefer_literal=True)
    def _f(g):
        rules = _rules(g)
        if rules is None:
            return None
        value = type(default)(getattr(rules, name, default))

        def impl(g):
            return value

        return impl


_constant(blocks, "EDGE_BLOCKS", False)
_constant(alternates, "ALTERNATES", False)
_constant(words, "WORDS", 0)
