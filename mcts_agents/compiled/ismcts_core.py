"""What the two compiled ISMCTS kernels share: their records, their selection and backup.

``ismcts_kernel`` (Kuhn and Leduc poker) and ``holdem_kernel`` (rlcard's hold'em) run the same
simulation of ``search.ismcts.ISMCTS`` over their own worlds, deals, keys and payoffs; what does
not depend on the game is written here once:

- ``Options``: a search's settings as one record of named fields (the UCB constant, Smooth UCT's
  schedule, the return range, from the start or from here, single observer, the searching
  player, the node bound; regret matching's settings, which only the card games' kernel reads);
- ``Tree``: a node table as one record of named arrays, one row per information set: ``stored``
  (the direct table's flags by key, or the hashed table's keys by slot, -1 empty), ``visits``,
  and per row and action ``edge_n`` (simulations that chose it), ``edge_w`` (their summed
  normalised returns for the mover) and ``avail`` (simulations in which it was available);
  ``meta``: nodes stored, summed path depth;
- the selection at a node: ``observe`` (count the available actions, find the untried ones),
  then an untried one at random, else ``smooth_turn`` (whether Smooth UCT plays its average
  policy) and ``by_visits`` (that policy's draw), else ``best_ucb`` (UCB1 on availability
  counts); ``backup`` (a simulation's values, ``values``, added along its path) and
  ``random_child`` (a playout's move).

A kernel takes the records (and its game's tables, a record too) and unpacks them once per
call; these functions take the arrays. A record read inside the simulation loop, or a function
there whose arrays numba's reference-count pruning cannot follow (arrays last used on different
branches around a call), costs an atomic increment and decrement per array at each use: measured
up to 5 times slower. So each function here is straight-line code whose reference counts prune
away, and ``observe``, the one called at every node, is inlined by numba (as the code it
replaces was).
"""

from __future__ import annotations

from typing import NamedTuple, get_type_hints

import numpy as np

from mcts_agents.compiled.cache import njit
from mcts_agents.compiled.common import random01

__all__ = ["MAX_DEPTH", "SMOOTH_D", "SMOOTH_ETA", "Options", "Tree", "backup", "best_ucb",
           "by_visits", "new_tree", "observe", "options", "random_child", "smooth_turn",
           "untried_pick", "value_scale", "values"]  # fmt: skip

#: Smooth UCT's schedule, as ``search.ismcts``: eta = max(smooth, ETA / (1 + D sqrt(N))).
SMOOTH_ETA = 0.9
SMOOTH_D = 0.001
#: the longest path a simulation stores (the games here have at most a few dozen decisions)
MAX_DEPTH = 64


class Options(NamedTuple):
    """A search's settings, as the kernels read them (build it with the Python types shown:
    numba compiles the kernels for these field types)."""

    c: float  # UCB1's exploration constant
    smooth: float  # Smooth UCT's least eta (gamma); -1: plain UCB1
    low: float  # the return range, read into values in [-1, 1]
    high: float
    eta: float  # Smooth UCT's schedule: eta = max(smooth, eta / (1 + decay sqrt(N)))
    decay: float
    from_start: bool  # self-play from the deal, else from the searching player's root
    single: bool  # single observer: every key is the searching player's information set
    player: int  # the searching player
    max_nodes: int  # the most nodes stored (0: no bound)
    #: regret matching instead of UCB (the card games' kernel: ``ismcts_kernel``)
    matching: bool = False
    explore: float = 0.0  # the share of uniform play mixed into the regret-matching strategy
    #: the sampled value: 0, the return over the chosen action's sampling probability; 1, times
    #: the later nodes' sigma / q too (outcome sampling); 2, corrected by baselines (VR-MCCFR)
    estimate: int = 0
    plus: bool = False  # regret matching plus: negative regrets clipped to 0
    linear: bool = False  # linear averaging: the average strategy weighted by the node's visits
    history_baselines: bool = False  # baselines per history (the opponent's card included)
    opponent_weighted: bool = False  # regrets weighted by the opponent's sigma / q on the path


class Tree(NamedTuple):
    """A node table (see the module docstring)."""

    stored: np.ndarray  # int8[rows] flags by key (direct table) or int64[slots] keys (hashed)
    visits: np.ndarray  # int64[rows]
    edge_n: np.ndarray  # int64[rows, actions]
    edge_w: np.ndarray  # float64[rows, actions]
    avail: np.ndarray  # int64[rows, actions]
    meta: np.ndarray  # int64[2]: nodes stored, summed path depth


#: each field's type, in order
_KINDS = tuple(get_type_hints(Options)[name] for name in Options._fields)


def options(**fields: float | bool | int) -> Options:
    """``Options(**fields)`` with each field cast to its declared type (an int ``c`` or a numpy
    int ``player`` would compile the kernels again for other types)."""
    record = Options(**fields)  # type: ignore[arg-type]
    return Options(*(kind(value) for kind, value in zip(_KINDS, record, strict=True)))


def new_tree(stored: np.ndarray, actions: int, meta: np.ndarray) -> Tree:
    """An empty node table of ``len(stored)`` rows over ``meta`` (its ``stored`` as given:
    zeros for a direct table, -1 for a hashed one)."""
    rows = stored.shape[0]
    return Tree(stored, np.zeros(rows, np.int64), np.zeros((rows, actions), np.int64),
                np.zeros((rows, actions), np.float64), np.zeros((rows, actions), np.int64),
                meta)  # fmt: skip


@njit(cache=True, inline="always")
def observe(avail, edge_n, slot, child, node, untried):
    """Count each legal action at ``node`` as available at row ``slot``; the untried ones into
    ``untried``. Returns ``(untried, tried)``: how many of each."""
    free = 0
    tried = 0
    for a in range(child.shape[1]):
        if child[node, a] >= 0:
            avail[slot, a] += 1
            if edge_n[slot, a] == 0:
                untried[free] = a
                free += 1
            else:
                tried += 1
    return free, tried


@njit(cache=True)
def untried_pick(untried, free, rng):
    """One of the ``free`` untried actions, uniformly (the selection's first rule); -1 where
    there is none (no random number drawn)."""
    if not free:
        return -1
    return untried[int(random01(rng) * free)]


@njit(cache=True)
def smooth_turn(visits, opts, rng):
    """Whether Smooth UCT plays its average policy at a node of ``visits`` visits (every
    action tried): with probability ``1 - eta``, ``eta = max(smooth, eta0 / (1 + d sqrt(N)))``;
    never without Smooth UCT (``opts.smooth < 0``, no random number drawn)."""
    if opts.smooth < 0.0:
        return False
    eta = max(opts.smooth, opts.eta / (1.0 + opts.decay * np.sqrt(visits)))
    return random01(rng) >= eta


@njit(cache=True)
def by_visits(edge_n, slot, child, node, rng):
    """An action of ``node`` drawn in proportion to its visits at row ``slot`` (Smooth UCT's
    average policy)."""
    a = -1
    total = 0
    for b in range(child.shape[1]):
        if child[node, b] >= 0:
            total += edge_n[slot, b]
    u = random01(rng) * total
    for b in range(child.shape[1]):
        if child[node, b] >= 0 and u >= 0.0:  # the first whose running sum passes u
            a = b
            u -= edge_n[slot, b]
    return a


@njit(cache=True)
def best_ucb(edge_n, edge_w, avail, slot, child, node, c):
    """The action of ``node`` of the best UCB1 score on availability counts at row ``slot``
    (every action tried; the first of equal scores)."""
    a = -1
    best = -np.inf
    for b in range(child.shape[1]):
        if child[node, b] >= 0:
            m = edge_n[slot, b]
            score = edge_w[slot, b] / m + c * np.sqrt(np.log(avail[slot, b]) / m)
            if score > best:
                best = score
                a = b
    return a


@njit(cache=True)
def random_child(child, node, rng):
    """The node after a uniformly random legal action at ``node`` (a playout's move)."""
    actions = child.shape[1]
    legal = 0
    for a in range(actions):
        if child[node, a] >= 0:
            legal += 1
    j = int(random01(rng) * legal)
    for a in range(actions):
        if child[node, a] >= 0:
            if j == 0:
                return child[node, a]
            j -= 1
    return node


@njit(cache=True)
def values(r0, low, scale):
    """Seat 0's return ``r0`` as each seat's value in [-1, 1]: ``low`` and ``scale`` are the
    return range's low end and ``2 / (high - low)`` (``value_scale``)."""
    return (r0 - low) * scale - 1.0, (-r0 - low) * scale - 1.0


@njit(cache=True)
def value_scale(opts):
    """``(low, 2 / (high - low))`` of the return range: ``values``'s, once a kernel call."""
    return opts.low, 2.0 / (opts.high - opts.low)


@njit(cache=True)
def backup(visits, edge_n, edge_w, path_slot, path_action, path_mover, depth, v0, v1):
    """Add one simulation of ``depth`` decisions (the path's rows, actions and movers), worth
    ``v0`` to seat 0 and ``v1`` to seat 1, to the node table's statistics."""
    for d in range(depth):
        slot = path_slot[d]
        a = path_action[d]
        visits[slot] += 1
        edge_n[slot, a] += 1
        edge_w[slot, a] += v1 if path_mover[d] else v0
