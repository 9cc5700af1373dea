"""The compiled simulations of ISMCTS over a card game's tables (``card_tables``).

One call of ``simulate`` runs up to ``n`` simulations of ``search.ismcts.ISMCTS``'s algorithm
(same node keys, UCB1 on availability counts, untried actions first in random order, Smooth UCT,
one new node per simulation then a uniformly random playout, chance drawn by its probabilities)
on a node table (``ismcts_core.Tree``) addressed by the information-set key: ``stored`` flags a
key as stored. The selection and the backup are ``ismcts_core``'s, shared with hold'em's kernel;
this module holds the card games' worlds, deals, keys and payoffs, and regret matching. The
Python side passes the root as ``(node, own card, public card)`` only: the opponent's card never
enters the kernel (determinizations draw it from ``unseen`` with the kernel's own generator).
The settings come as one ``ismcts_core.Options`` record, the rules as ``card_tables.CardTables``.

Regret matching (Lanctot et al. 2014, Lisy et al. 2015, as self-play from the start;
``Options.matching``): at each information set the strategy ``sigma`` is the normalised positive
regrets (``Regrets.regret``), the move is drawn from ``(1 - explore) sigma + explore uniform``,
``average`` adds ``sigma`` weighted by the mover's own ``sigma / q`` along the path (and by the
node's visits with ``linear`` averaging), and the sampled values of the simulation's game update
the regrets on the way back: the sampled return over the chosen action's sampling probability
(``estimate`` 0), times the later nodes' ``sigma / q`` too (1: outcome sampling), or corrected by
baselines (2: VR-MCCFR, Schmid et al. 2019), per information set from ``edge_w`` or per history
(``history_baselines``: the opponent's card included, in ``base_n``/``base_w``); ``plus``:
regret matching plus; ``opponent_weighted``: the regrets weighted by the opponent's ``sigma / q``
along the path, so that its exploration does not bias them. Regret matching's update is written
in the simulation loop, where it was: a call a simulation with its fifteen arrays cost a fifth of
the speed (measured; see ``ismcts_core`` on arrays and calls in the loop).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from mcts_agents.compiled import ismcts_core as core
from mcts_agents.compiled.cache import njit
from mcts_agents.compiled.card_tables import DEAL_0, DEAL_1, DEAL_PUBLIC, OVER, SEAT
from mcts_agents.compiled.common import random01

__all__ = ["Regrets", "new_regrets", "simulate", "warm_up"]


class Regrets(NamedTuple):
    """Regret matching's tables (one row each where it cannot run)."""

    regret: np.ndarray  # float64[keys, actions]
    average: np.ndarray  # float64[keys, actions]: the average strategy's weights
    base_n: np.ndarray  # float64[keys * W, actions]: the baselines per history
    base_w: np.ndarray  # float64[keys * W, actions]


def new_regrets(rows: int, actions: int, cards: int) -> Regrets:
    """Empty regret tables of ``rows`` keys (baselines: ``cards + 1`` rows a key)."""
    history = rows * (cards + 1)
    return Regrets(np.zeros((rows, actions)), np.zeros((rows, actions)),
                   np.zeros((history, actions)), np.zeros((history, actions)))  # fmt: skip


@njit(cache=True)
def _deal(kind, child, after_public, pool, pool_len, w, node, c0, c1, pub, rng):
    """The world after the chance nodes from ``node`` on, drawn with ``rng``."""
    while True:
        k = kind[node]
        if k == SEAT:  # a chance node among its children, even odds (rlcard's blind seat)
            node = child[node, int(random01(rng) * 2)]
            continue
        if k != DEAL_0 and k != DEAL_1 and k != DEAL_PUBLIC:
            return node, c0, c1, pub
        i = (c0 + 1) * w + c1 + 1
        card = pool[i, int(random01(rng) * pool_len[i])]
        if k == DEAL_0:
            c0 = card
            node += 1
        elif k == DEAL_1:
            c1 = card
            node += 1
        else:
            pub = card
            node = after_public[node]


@njit(cache=True)
def _playout(kind, child, after_public, pool, pool_len, payoff, w, node, c0, c1, pub, rng):
    """Seat 0's chips after uniformly random play to the end."""
    while True:
        node, c0, c1, pub = _deal(
            kind, child, after_public, pool, pool_len, w, node, c0, c1, pub, rng
        )
        if kind[node] == OVER:
            return payoff[node, c0, c1, pub + 1]
        node = core.random_child(child, node, rng)


@njit(cache=True)
def _key(node, c0, c1, pub, mover, observer, nodes, w):
    own = c1 if observer else c0
    return (((mover * 2 + observer) * nodes + node) * w + own + 1) * w + pub + 1


@njit(cache=True)
def simulate(n, tables, tree, regrets, opts, root, own, public, rng):
    """Run ``n`` simulations (see the module docstring) from the node ``root`` where the
    searching player holds ``own`` and sees ``public`` (-1: none); returns ``n``."""
    kind, to_play, child, after_public, pool, pool_len, unseen, unseen_len, payoff = tables[:9]
    stored, visits, edge_n, edge_w, avail, meta = tree
    regret, average, base_n, base_w = regrets
    player, single, max_nodes, matching = opts.player, opts.single, opts.max_nodes, opts.matching
    explore = opts.explore
    low, scale = core.value_scale(opts)
    nodes = kind.shape[0]
    actions = child.shape[1]
    w = tables.cards + 1
    path_key = np.empty(core.MAX_DEPTH, np.int64)
    path_action = np.empty(core.MAX_DEPTH, np.int64)
    path_mover = np.empty(core.MAX_DEPTH, np.int64)
    path_other = np.empty(core.MAX_DEPTH, np.int64)  # regret matching: the opponent's card,
    path_sigma = np.empty(core.MAX_DEPTH)  # the chosen action's sigma and q,
    path_q = np.empty(core.MAX_DEPTH)
    path_all = np.zeros((core.MAX_DEPTH, actions))  # every action's sigma,
    path_ratio = np.ones(core.MAX_DEPTH)  # the opponent's sigma / q before each node
    untried = np.empty(actions, np.int64)
    sigma = np.empty(actions)
    reach = np.ones(2)  # regret matching: each seat's sigma / q so far
    root_key = _key(root, own, own, public, player, player, nodes, w)
    for _ in range(n):
        if opts.from_start:
            node, c0, c1, pub = _deal(
                kind, child, after_public, pool, pool_len, w, 0, -1, -1, -1, rng
            )
            if kind[node] == OVER:
                continue
            mover = to_play[node]
            key = _key(node, c0, c1, pub, mover, player if single else mover, nodes, w)
            if not stored[key]:
                if max_nodes and meta[0] >= max_nodes:
                    continue
                stored[key] = 1
                meta[0] += 1
        else:
            i = own * w + public + 1
            other = unseen[i, int(random01(rng) * unseen_len[i])]
            node, pub = root, public
            c0, c1 = (own, other) if player == 0 else (other, own)
            mover = player
            key = root_key
        depth = 0
        reach[0] = reach[1] = 1.0
        while True:
            free, tried = core.observe(avail, edge_n, key, child, node, untried)
            if matching:
                a = _match(key, node, child, regret, sigma, explore, rng)
                weight = reach[mover] * (visits[key] + 1.0 if opts.linear else 1.0)
                for b in range(actions):  # the average strategy, weighted by own sigma / q
                    average[key, b] += weight * sigma[b]
                    path_all[depth, b] = sigma[b]
                path_sigma[depth] = sigma[a]
                path_ratio[depth] = reach[1 - mover] if opts.opponent_weighted else 1.0
                path_q[depth] = (1.0 - explore) * sigma[a] + explore / (free + tried)
                reach[mover] *= sigma[a] / path_q[depth]
            else:
                a = core.untried_pick(untried, free, rng)
                if a < 0 and core.smooth_turn(visits[key], opts, rng):  # all tried: Smooth UCT's
                    a = core.by_visits(edge_n, key, child, node, rng)  # average policy, or UCB1
                elif a < 0:
                    a = core.best_ucb(edge_n, edge_w, avail, key, child, node, opts.c)
            path_other[depth] = c1 if mover == 0 else c0
            path_key[depth], path_action[depth], path_mover[depth] = key, a, mover
            depth += 1
            node, c0, c1, pub = _deal(
                kind, child, after_public, pool, pool_len, w, child[node, a], c0, c1, pub, rng
            )
            if kind[node] == OVER:
                r0 = payoff[node, c0, c1, pub + 1]
                break
            mover = to_play[node]
            nxt = _key(node, c0, c1, pub, mover, player if single else mover, nodes, w)
            if not stored[nxt]:
                if not max_nodes or meta[0] < max_nodes:
                    stored[nxt] = 1
                    meta[0] += 1
                r0 = _playout(kind, child, after_public, pool, pool_len, payoff, w, node, c0,
                              c1, pub, rng)  # fmt: skip
                break
            if (free and visits[nxt] == 0 and not matching) or depth == core.MAX_DEPTH:
                # stored but never evaluated; or a path too long (not in these games)
                r0 = _playout(kind, child, after_public, pool, pool_len, payoff, w, node, c0,
                              c1, pub, rng)  # fmt: skip
                break
            key = nxt
        v0, v1 = core.values(r0, low, scale)
        meta[1] += depth
        if matching:
            tail = 1.0  # the suffix's sigma / q below each node
            u0 = v0  # with baselines: seat 0's estimate of the value below
            for d in range(depth - 1, -1, -1):
                key = path_key[d]
                a = path_action[d]
                mover = path_mover[d]
                v = v1 if mover else v0
                if opts.estimate == 2:  # baselines: each action's mean return so far
                    u = -u0 if mover else u0
                    expected = 0.0
                    h = key * w + path_other[d] + 1
                    for b in range(actions):
                        if avail[key, b] > 0:
                            if opts.history_baselines:  # the history's (the opponent's card too)
                                base = base_w[h, b] / base_n[h, b] if base_n[h, b] else 0.0
                            else:
                                base = edge_w[key, b] / edge_n[key, b] if edge_n[key, b] else 0.0
                            if b == a:
                                base += (u - base) / path_q[d]
                            sigma[b] = base
                            expected += path_all[d, b] * base
                    for b in range(actions):
                        if avail[key, b] > 0:
                            regret[key, b] += path_ratio[d] * (sigma[b] - expected)
                            if opts.plus and regret[key, b] < 0.0:  # regret matching plus
                                regret[key, b] = 0.0
                    if opts.history_baselines:
                        base_n[h, a] += 1.0
                        base_w[h, a] += v
                    u0 = -expected if mover else expected
                else:
                    # sampled counterfactual values: v * tail / q for the chosen action, 0 others
                    chosen = v * tail / path_q[d]
                    mean = path_sigma[d] * chosen
                    for b in range(actions):
                        if avail[key, b] > 0 or b == a:
                            regret[key, b] -= mean
                    regret[key, a] += chosen
                    if opts.estimate == 1:
                        tail *= path_sigma[d] / path_q[d]

        core.backup(visits, edge_n, edge_w, path_key, path_action, path_mover, depth, v0, v1)
    return n


@njit(cache=True)
def _match(key, node, child, regret, sigma, explore, rng):
    """Regret matching at ``key``: fills ``sigma`` (positive regrets normalised, uniform if
    none) and draws from ``(1 - explore) sigma + explore uniform``."""
    actions = child.shape[1]
    positive = 0.0
    legal = 0
    for b in range(actions):
        sigma[b] = 0.0
        if child[node, b] >= 0:
            legal += 1
            if regret[key, b] > 0.0:
                positive += regret[key, b]
    for b in range(actions):
        if child[node, b] >= 0:
            if positive <= 0.0:
                sigma[b] = 1.0 / legal
            elif regret[key, b] > 0.0:
                sigma[b] = regret[key, b] / positive
    u = random01(rng)
    a = -1
    for b in range(actions):
        if child[node, b] >= 0 and u >= 0.0:  # the first whose running sum passes u
            a = b
            u -= (1.0 - explore) * sigma[b] + explore / legal
    return a


_WARM: list[bool] = []


def warm_up() -> None:
    """Compile (or load from numba's cache) the kernel, once per process: a tiny search of Kuhn
    poker (Leduc's arrays have the same types, so it serves both)."""
    if _WARM:
        return
    _WARM.append(True)
    from mcts_agents.compiled.card_tables import card_tables
    from mcts_agents.envs.games.kuhn_poker import KuhnPoker

    t = card_tables(KuhnPoker())
    actions = t.child.shape[1]
    tree = core.new_tree(np.zeros(t.keys, np.int8), actions, np.zeros(2, np.int64))
    opts = core.options(
        c=1.4, smooth=-1.0, low=t.low, high=t.high, eta=core.SMOOTH_ETA, decay=core.SMOOTH_D,
        from_start=True, single=False, player=0, max_nodes=0, estimate=1,
    )  # fmt: skip
    simulate(8, t, tree, new_regrets(t.keys, actions, t.cards), opts, 2, 0, -1,
             np.array([np.uint64(88172645463325252)], np.uint64))  # fmt: skip
