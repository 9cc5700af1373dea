"""The compiled simulations of ISMCTS over rlcard's hold'em (``holdem_tables``), on a hashed
node table.

``simulate`` runs ``search.ismcts.ISMCTS``'s algorithm as ``ismcts_kernel`` does for Kuhn and
Leduc (UCB1 on availability counts, untried actions first in random order, Smooth UCT, one new
node per simulation then a uniformly random playout, chance drawn uniformly from the deck left),
with ``ismcts_core``'s selection and backup (shared with that kernel) and this module's own
hold'em worlds (nine cards, ``holdem_tables``), showdowns ranked by ``holdem_rank`` and
the information sets too many to index directly: the table (``ismcts_core.Tree``, its
``stored`` the key in each slot) is open-addressed (linear probing) on
a 64-bit key, ``info_key``, of the mover, the observer, the public betting node, the observer's
two hole cards and the visible board (the flop sorted; ``ISMCTS``'s key
``(mover, game.information_set(world, observer))`` packed in bits, so the two partition the
decisions alike). Per slot: the key (-1: empty), then the statistics of ``ismcts_core.Tree``.

The searching player's world comes in as its own two hole cards and the board only
(``root_cards``): the opponent's hole cards never enter the kernel; each simulation draws them,
and the board still to come, from the cards the player has not seen, with the kernel's own
generator. From the start (``from_start``) every card is dealt by the kernel.

The settings come as one ``ismcts_core.Options`` record; the root as its betting node and the
board cards shown (0, 3, 4 or 5); ``load`` is the most nodes the table takes before
``simulate`` returns early so the caller can grow it (0: never return early, a full table stops
growing).
"""

from __future__ import annotations

import numpy as np

from mcts_agents.compiled import ismcts_core as core
from mcts_agents.compiled.cache import njit
from mcts_agents.compiled.common import random01
from mcts_agents.compiled.holdem_rank import seat_value
from mcts_agents.compiled.holdem_tables import BET, BLIND, DEAL, FOLDED, NODE_BITS

__all__ = ["find", "info_key", "rehash", "root_key", "simulate", "warm_up"]

_MIX = np.uint64(0x9E3779B97F4A7C15)


@njit(cache=True)
def info_key(mover, observer, node, cards, dealt):
    """The key of the information set of ``observer`` (a seat) at ``node`` with ``dealt`` cards
    of the world ``cards`` out, paired with the ``mover``: see the module docstring."""
    a, b = cards[2 * observer], cards[2 * observer + 1]
    pair = a * 52 + b if a < b else b * 52 + a
    board = 0
    if dealt > 4:
        x, y, z = cards[4], cards[5], cards[6]
        if x > y:
            x, y = y, x
        if y > z:
            y, z = z, y
        if x > y:
            x, y = y, x
        board = ((x + 1) << 12) | ((y + 1) << 6) | (z + 1)
        for i in range(7, dealt):
            board = (board << 6) | (cards[i] + 1)
        board <<= 6 * (9 - dealt)
    return (((board << 12 | pair) << NODE_BITS | node) << 2) | (observer << 1) | mover


@njit(cache=True)
def find(keys, key):
    """The slot of ``key`` in the table ``keys``, or the empty slot where it would go."""
    mask = keys.shape[0] - 1
    slot = int((np.uint64(key) * _MIX) >> np.uint64(40)) & mask
    while keys[slot] != key and keys[slot] != -1:
        slot = (slot + 1) & mask
    return slot


@njit(cache=True)
def rehash(tree, bigger):
    """Move every stored node of ``tree`` into ``bigger`` (a larger, empty table)."""
    keys = tree.stored
    for s in range(keys.shape[0]):
        if keys[s] >= 0:
            t = find(bigger.stored, keys[s])
            bigger.stored[t] = keys[s]
            bigger.visits[t] = tree.visits[s]
            bigger.edge_n[t] = tree.edge_n[s]
            bigger.edge_w[t] = tree.edge_w[s]
            bigger.avail[t] = tree.avail[s]


@njit(cache=True)
def _draw(used, rng):
    """A card of the deck not in the bit set ``used``, uniformly."""
    card = int(random01(rng) * 52)
    while used >> card & 1:
        card = int(random01(rng) * 52)
    return card


@njit(cache=True)
def _chance(kind, deal_target, deal_next, blind_next, node, cards, dealt, used, rng):
    """The world after the chance nodes from ``node`` on: ``(node, dealt, used)``."""
    while True:
        k = kind[node]
        if k == BLIND:
            node = blind_next[int(random01(rng) * 2)]
        elif k == DEAL:
            card = _draw(used, rng)
            cards[dealt] = card
            dealt += 1
            used |= 1 << card
            if dealt == deal_target[node]:
                node = deal_next[node]
        else:
            return node, dealt, used


@njit(cache=True)
def _payoff(kind, fold_gain, stake, node, cards):
    """Seat 0's return at a finished hand."""
    if kind[node] == FOLDED:
        return fold_gain[node]
    v0, v1 = seat_value(cards, 0), seat_value(cards, 1)
    return stake[node] if v0 > v1 else (-stake[node] if v0 < v1 else 0.0)


@njit(cache=True)
def _playout(kind, child, deal_target, deal_next, blind_next, fold_gain, stake, node, cards,
             dealt, used, rng):  # fmt: skip
    """Seat 0's return after uniformly random play to the end."""
    while True:
        node, dealt, used = _chance(
            kind, deal_target, deal_next, blind_next, node, cards, dealt, used, rng
        )
        if kind[node] != BET:
            return _payoff(kind, fold_gain, stake, node, cards)
        node = core.random_child(child, node, rng)


@njit(cache=True)
def _claim(keys, key, meta, max_nodes, full):
    """The slot of ``key``, stored now if it was not and there is room; -1 if there is none.
    Returns ``(slot, new)``."""
    slot = find(keys, key)
    if keys[slot] == key:
        return slot, False
    if full or (max_nodes and meta[0] >= max_nodes):
        return -1, True
    keys[slot] = key
    meta[0] += 1
    return slot, True


@njit(cache=True)
def _seen(root_cards, shown):
    """The searching player's cards (its hole cards and the board shown) as a bit set."""
    seen = 0
    for i in range(2):
        seen |= 1 << root_cards[i]
    for i in range(shown):
        seen |= 1 << root_cards[2 + i]
    return seen


@njit(cache=True)
def simulate(n, tables, tree, opts, root_node, shown, root_cards, load, rng):
    """Run up to ``n`` simulations (see the module docstring) from the root ``root_node``
    where the searching player holds ``root_cards`` (two hole cards, then the ``shown`` board
    cards); returns how many ran (fewer only when the table reached ``load`` nodes)."""
    kind, to_play, child, deal_target, deal_next, blind_next, fold_gain, stake = tables[:8]
    keys, visits, edge_n, edge_w, avail, meta = tree
    player, single, max_nodes = opts.player, opts.single, opts.max_nodes
    low, scale = core.value_scale(opts)
    capacity = keys.shape[0]
    full_at = capacity - capacity // 4  # never fuller than 3/4: probes stay short
    path_slot = np.empty(core.MAX_DEPTH, np.int64)
    path_action = np.empty(core.MAX_DEPTH, np.int64)
    path_mover = np.empty(core.MAX_DEPTH, np.int64)
    untried = np.empty(child.shape[1], np.int64)
    cards = np.zeros(9, np.int64)
    seen = _seen(root_cards, shown)
    root_slot = find(keys, root_key(root_cards, player, root_node, shown))
    done = 0
    for _ in range(n):
        if load and meta[0] >= load:
            break
        done += 1
        if opts.from_start:
            node, dealt, used = _chance(
                kind, deal_target, deal_next, blind_next, 0, cards, 0, 0, rng
            )
            mover = to_play[node]
            key = info_key(mover, player if single else mover, node, cards, dealt)
            slot, _ = _claim(keys, key, meta, max_nodes, meta[0] >= full_at)
            if slot < 0:
                continue
        else:
            used = seen
            cards[2 * player] = root_cards[0]
            cards[2 * player + 1] = root_cards[1]
            for i in range(shown):
                cards[4 + i] = root_cards[2 + i]
            other = 2 * (1 - player)
            cards[other] = _draw(used, rng)
            used |= 1 << cards[other]
            cards[other + 1] = _draw(used, rng)
            used |= 1 << cards[other + 1]
            node, dealt, mover, slot = root_node, 4 + shown, player, root_slot
        depth = 0
        while True:
            free, _ = core.observe(avail, edge_n, slot, child, node, untried)
            a = core.untried_pick(untried, free, rng)
            if a < 0 and core.smooth_turn(visits[slot], opts, rng):  # all tried: Smooth UCT's
                a = core.by_visits(edge_n, slot, child, node, rng)  # average policy, or UCB1
            elif a < 0:
                a = core.best_ucb(edge_n, edge_w, avail, slot, child, node, opts.c)
            path_slot[depth], path_action[depth], path_mover[depth] = slot, a, mover
            depth += 1
            node, dealt, used = _chance(
                kind, deal_target, deal_next, blind_next, child[node, a], cards, dealt, used, rng
            )
            if kind[node] != BET:
                r0 = _payoff(kind, fold_gain, stake, node, cards)
                break
            mover = to_play[node]
            key = info_key(mover, player if single else mover, node, cards, dealt)
            nxt, new = _claim(keys, key, meta, max_nodes, meta[0] >= full_at)
            if new or (free and visits[nxt] == 0) or depth == core.MAX_DEPTH:
                # a new node (stored if there was room), or one stored but never evaluated
                r0 = _playout(kind, child, deal_target, deal_next, blind_next, fold_gain, stake,
                              node, cards, dealt, used, rng)  # fmt: skip
                break
            slot = nxt
        v0, v1 = core.values(r0, low, scale)
        meta[1] += depth
        core.backup(visits, edge_n, edge_w, path_slot, path_action, path_mover, depth, v0, v1)
    return done


@njit(cache=True)
def _root_world(root_cards, player, shown):
    """A world holding the player's hole cards and the board shown (for its key)."""
    cards = np.zeros(9, np.int64)
    cards[2 * player] = root_cards[0]
    cards[2 * player + 1] = root_cards[1]
    for i in range(shown):
        cards[4 + i] = root_cards[2 + i]
    return cards


@njit(cache=True)
def root_key(root_cards, player, node, shown):
    """The key of the searching player's own information set (the search's root)."""
    return info_key(player, player, node, _root_world(root_cards, player, shown), 4 + shown)


_WARM: list[bool] = []


def warm_up() -> None:
    """Compile (or load from numba's cache) the kernel, once per process: a tiny search of
    limit hold'em (no-limit's arrays have the same types)."""
    if _WARM:
        return
    _WARM.append(True)
    from mcts_agents.compiled.holdem_tables import holdem_tables
    from mcts_agents.envs.games.limit_holdem import LimitHoldem

    t = holdem_tables(LimitHoldem())
    size, actions = 1 << 8, t.child.shape[1]
    meta = np.zeros(2, np.int64)
    tree = core.new_tree(np.full(size, -1, np.int64), actions, meta)
    opts = core.options(
        c=1.4, smooth=-1.0, low=t.low, high=t.high, eta=core.SMOOTH_ETA, decay=core.SMOOTH_D,
        from_start=True, single=False, player=0, max_nodes=0,
    )  # fmt: skip
    rng = np.array([np.uint64(88172645463325252)], np.uint64)
    simulate(8, t, tree, opts, 2, 0, np.zeros(7, np.int64), 100, rng)
    root_key(np.zeros(7, np.int64), 0, 2, 0)
    rehash(tree, core.new_tree(np.full(2 * size, -1, np.int64), actions, meta))
