"""The compiled simulations of ISMCTS over a card game's tables (``card_tables``).

One call of ``simulate`` runs up to ``n`` simulations of ``search.ismcts.ISMCTS``'s algorithm
(same node keys, UCB1 on availability counts, untried actions first in random order, Smooth UCT,
one new node per simulation then a uniformly random playout, chance drawn by its probabilities)
on a node table addressed by the information-set key: ``exists``, ``visits``, and per key and
action ``edge_n`` (simulations that chose it), ``edge_w`` (their summed normalised returns for
the mover) and ``avail`` (simulations in which it was available). The Python side passes the
root as ``(node, own card, public card)`` only: the opponent's card never enters the kernel
(determinizations draw it from ``unseen`` with the kernel's own generator).

``opts_f``: ``c``, ``smooth`` (-1: none), ``low``, ``high`` (the return range), Smooth UCT's
``eta`` and ``d``, regret matching's exploration. ``opts_i``:
``from_start``, ``single`` (single observer), the searching player, the root's node, own card
and public card, ``max_nodes`` (0: none), ``matching`` (1: regret matching instead of UCB),
its value estimate (0: the sampled return over the chosen action's sampling probability,
1: times the later nodes' sigma / q too (outcome sampling), 2: corrected by baselines as in
VR-MCCFR, Schmid et al. 2019) and its flags (1: regret matching plus, 2: linear averaging,
4: the baselines per history, the opponent's card included, in ``base_n``/``base_w``; else
per information set from ``edge_w``; 8: the regrets weighted by the opponent's ``sigma / q``
along the path, so that its exploration does not bias them). ``meta``: nodes in the table,
summed path depth.

Regret matching (Lanctot et al. 2014, Lisy et al. 2015, as self-play from the start): at each
information set the strategy ``sigma`` is the normalised positive regrets (``regret``), the
move is drawn from ``(1 - explore) sigma + explore uniform``, ``average`` adds ``sigma``
weighted by the mover's own ``sigma / q`` along the path (and by the node's visits with linear
averaging), and the sampled values of the simulation's game update the regrets on the way back.
"""

from __future__ import annotations

import numpy as np

from mcts_agents.compiled.cache import njit
from mcts_agents.compiled.card_tables import DEAL_0, DEAL_1, DEAL_PUBLIC, OVER, SEAT
from mcts_agents.compiled.common import random01

__all__ = ["simulate", "warm_up"]

#: Smooth UCT's schedule, as ``search.ismcts``: eta = max(smooth, ETA / (1 + D sqrt(N))).
SMOOTH_ETA = 0.9
SMOOTH_D = 0.001
MAX_DEPTH = 64


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
    actions = child.shape[1]
    while True:
        node, c0, c1, pub = _deal(
            kind, child, after_public, pool, pool_len, w, node, c0, c1, pub, rng
        )
        if kind[node] == OVER:
            return payoff[node, c0, c1, pub + 1]
        legal = 0
        for a in range(actions):
            if child[node, a] >= 0:
                legal += 1
        j = int(random01(rng) * legal)
        for a in range(actions):
            if child[node, a] >= 0:
                if j == 0:
                    node = child[node, a]
                    break
                j -= 1


@njit(cache=True)
def _key(node, c0, c1, pub, mover, observer, nodes, w):
    own = c1 if observer else c0
    return (((mover * 2 + observer) * nodes + node) * w + own + 1) * w + pub + 1


@njit(cache=True)
def simulate(
    n, kind, to_play, child, after_public, pool, pool_len, unseen, unseen_len, payoff,
    exists, visits, edge_n, edge_w, avail, regret, average, base_n, base_w, meta, opts_f,
    opts_i, rng,
):  # fmt: skip
    """Run ``n`` simulations (see the module docstring); returns ``n``."""
    c, smooth, low, high = opts_f[0], opts_f[1], opts_f[2], opts_f[3]
    eta0, decay, explore = opts_f[4], opts_f[5], opts_f[6]
    matching, tails, flavour = opts_i[7], opts_i[8], opts_i[9]
    scale = 2.0 / (high - low)
    from_start, single, player = opts_i[0], opts_i[1], opts_i[2]
    root_node, own, public, max_nodes = opts_i[3], opts_i[4], opts_i[5], opts_i[6]
    nodes = kind.shape[0]
    actions = child.shape[1]
    w = pool.shape[0]
    w = int(np.sqrt(w) + 0.5)
    path_key = np.empty(MAX_DEPTH, np.int64)
    path_action = np.empty(MAX_DEPTH, np.int64)
    path_mover = np.empty(MAX_DEPTH, np.int64)
    untried = np.empty(actions, np.int64)
    path_sigma = np.empty(MAX_DEPTH)  # regret matching: the chosen action's sigma and q
    path_q = np.empty(MAX_DEPTH)
    path_all = np.zeros((MAX_DEPTH, actions))
    path_other = np.empty(MAX_DEPTH, np.int64)
    path_ratio = np.ones(MAX_DEPTH)  # the opponent's sigma / q before each node
    sigma = np.empty(actions)
    reach = np.ones(2)
    root_key = _key(root_node, own, own, public, player, player, nodes, w)
    for _ in range(n):
        if from_start:
            node, c0, c1, pub = _deal(
                kind, child, after_public, pool, pool_len, w, 0, -1, -1, -1, rng
            )
            if kind[node] == OVER:
                continue
            mover = to_play[node]
            key = _key(node, c0, c1, pub, mover, player if single else mover, nodes, w)
            if not exists[key]:
                if max_nodes and meta[0] >= max_nodes:
                    continue
                exists[key] = 1
                meta[0] += 1
        else:
            i = own * w + public + 1
            other = unseen[i, int(random01(rng) * unseen_len[i])]
            node, pub = root_node, public
            c0, c1 = (own, other) if player == 0 else (other, own)
            mover = player
            key = root_key
        depth = 0
        reach[0] = reach[1] = 1.0
        while True:
            tried = 0
            free = 0
            for a in range(actions):
                if child[node, a] >= 0:
                    avail[key, a] += 1
                    if edge_n[key, a] == 0:
                        untried[free] = a
                        free += 1
                    else:
                        tried += 1
            if matching:
                a = _match(key, node, child, regret, sigma, explore, rng)
                weight = reach[mover] * (visits[key] + 1.0 if flavour & 2 else 1.0)
                for b in range(actions):  # the average strategy, weighted by own sigma / q
                    average[key, b] += weight * sigma[b]
                path_sigma[depth] = sigma[a]
                path_ratio[depth] = reach[1 - mover] if flavour & 8 else 1.0
                for b in range(actions):
                    path_all[depth, b] = sigma[b]
                path_q[depth] = (1.0 - explore) * sigma[a] + explore / (free + tried)
                reach[mover] *= sigma[a] / path_q[depth]
            elif free:
                a = untried[int(random01(rng) * free)]
            else:
                a = -1
                if smooth >= 0.0:
                    eta = max(smooth, eta0 / (1.0 + decay * np.sqrt(visits[key])))
                    if random01(rng) >= eta:  # the average policy: proportional to visits
                        total = 0
                        for b in range(actions):
                            if child[node, b] >= 0:
                                total += edge_n[key, b]
                        u = random01(rng) * total
                        for b in range(actions):
                            if child[node, b] >= 0:
                                a = b
                                u -= edge_n[key, b]
                                if u < 0.0:
                                    break
                if a < 0:
                    best = -np.inf
                    for b in range(actions):
                        if child[node, b] >= 0:
                            m = edge_n[key, b]
                            score = edge_w[key, b] / m + c * np.sqrt(np.log(avail[key, b]) / m)
                            if score > best:
                                best = score
                                a = b
            path_key[depth] = key
            path_action[depth] = a
            path_mover[depth] = mover
            path_other[depth] = c1 if mover == 0 else c0
            depth += 1
            node = child[node, a]
            node, c0, c1, pub = _deal(
                kind, child, after_public, pool, pool_len, w, node, c0, c1, pub, rng
            )
            if kind[node] == OVER:
                r0 = payoff[node, c0, c1, pub + 1]
                break
            mover = to_play[node]
            nxt = _key(node, c0, c1, pub, mover, player if single else mover, nodes, w)
            if not exists[nxt]:
                if not max_nodes or meta[0] < max_nodes:
                    exists[nxt] = 1
                    meta[0] += 1
                r0 = _playout(kind, child, after_public, pool, pool_len, payoff, w, node, c0,
                              c1, pub, rng)  # fmt: skip
                break
            if free and visits[nxt] == 0 and not matching:  # stored, never evaluated: now
                r0 = _playout(kind, child, after_public, pool, pool_len, payoff, w, node, c0,
                              c1, pub, rng)  # fmt: skip
                break
            key = nxt
            if depth == MAX_DEPTH:  # cannot happen in these games (at most 8 decisions)
                r0 = _playout(kind, child, after_public, pool, pool_len, payoff, w, node, c0,
                              c1, pub, rng)  # fmt: skip
                break
        v0 = (r0 - low) * scale - 1.0
        v1 = (-r0 - low) * scale - 1.0
        meta[1] += depth
        tail = 1.0  # regret matching: the suffix's sigma / q below each node
        u0 = v0  # regret matching with baselines: seat 0's estimate of the value below
        for d in range(depth - 1, -1, -1):
            key = path_key[d]
            a = path_action[d]
            mover = path_mover[d]
            v = v1 if mover else v0
            if matching and tails == 2:  # baselines: each action's mean return so far
                u = -u0 if mover else u0
                expected = 0.0
                h = key * w + path_other[d] + 1
                for b in range(actions):
                    if avail[key, b] > 0:
                        if flavour & 4:  # the history's baseline (the opponent's card too)
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
                        if flavour & 1 and regret[key, b] < 0.0:  # regret matching plus
                            regret[key, b] = 0.0
                if flavour & 4:
                    base_n[h, a] += 1.0
                    base_w[h, a] += v
                u0 = -expected if mover else expected
            elif matching:
                # sampled counterfactual values: v * tail / q for the chosen action, 0 others
                chosen = v * tail / path_q[d]
                mean = path_sigma[d] * chosen
                for b in range(actions):
                    if avail[key, b] > 0 or b == a:
                        regret[key, b] -= mean
                regret[key, a] += chosen
                if tails:
                    tail *= path_sigma[d] / path_q[d]
            visits[key] += 1
            edge_n[key, a] += 1
            edge_w[key, a] += v
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
        if child[node, b] >= 0:
            a = b
            u -= (1.0 - explore) * sigma[b] + explore / legal
            if u < 0.0:
                break
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
    size = t.keys
    actions = t.child.shape[1]
    simulate(
        8, t.kind, t.to_play, t.child, t.after_public, t.pool, t.pool_len, t.unseen,
        t.unseen_len, t.payoff, np.zeros(size, np.int8), np.zeros(size, np.int64),
        np.zeros((size, actions), np.int64), np.zeros((size, actions), np.float64),
        np.zeros((size, actions), np.int64), np.zeros((size, actions)),
        np.zeros((size, actions)), np.zeros((size * (t.cards + 1), actions)),
        np.zeros((size * (t.cards + 1), actions)), np.zeros(2, np.int64),
        np.array([1.4, -1.0, t.low, t.high, SMOOTH_ETA, SMOOTH_D, 0.0]),
        np.array([1, 0, 0, 2, 0, -1, 0, 0, 1, 0], np.int64),
        np.array([np.uint64(88172645463325252)], np.uint64),
    )  # fmt: skip
