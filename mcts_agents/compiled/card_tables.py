"""The rules of two-player Kuhn and Leduc poker as small int arrays, for the compiled ISMCTS.

Both rules cores (``envs.games.kuhn_poker.KuhnPoker`` with two players,
``envs.games.leduc_holdem.LeducHoldem`` with any of its parameters) keep their public betting
tree in tables indexed by a node number; ``card_tables(game)`` reads those tables (and the
core's own ``returns``) into numpy arrays, so the compiled rules are the core's, not a copy:

- a world is four ints ``(node, card_0, card_1, public)`` (-1: not dealt; Kuhn has no public
  card), the core's own state with Kuhn's ``public`` appended;
- ``kind[node]``: ``DECIDE`` (a player moves), ``DEAL_0``, ``DEAL_1``, ``DEAL_PUBLIC`` (chance)
  or ``OVER``; ``to_play[node]``; ``child[node, action]`` (-1: illegal); ``after_public[node]``;
- ``pool[(c0 + 1) * W + c1 + 1]``: the cards the next deal draws from, one entry per physical
  card (so a uniform draw is the core's ``chance_outcomes``), ``W = cards + 1``;
- ``unseen[own * W + public + 1]``: the opponent's possible cards for a player who holds
  ``own`` and sees ``public`` (the core's ``determinize`` away from a showdown);
- ``payoff[node, c0, c1, public + 1]``: seat 0's chips at a terminal node (seat 1 gets minus
  that: both games are zero-sum).

An information-set key is one int: ``(((mover * 2 + observer) * nodes + node) * W + own + 1)
* W + public + 1``, ``own`` the observer's card. It partitions decisions exactly as the cores'
``information_set(state, observer)`` does, paired with the mover as ``ISMCTS`` pairs them (the
cores' showdown result and Kuhn's deal-time node never key a decision). The key space is small
(Leduc: 4 x 467 x 49 keys), so the node table is addressed by the key directly.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from mcts_agents.envs.games.kuhn_poker import KuhnPoker
from mcts_agents.envs.games.leduc_holdem import LeducHoldem
from mcts_agents.envs.games.rlcard_leduc import RLCardLeduc
from mcts_agents.envs.games.rlcard_poker import BET, BLIND, DEAL, FOLDED

__all__ = ["DEAL_0", "DEAL_1", "DEAL_PUBLIC", "DECIDE", "OVER", "SEAT", "CardTables",
           "card_tables", "root_of", "supports"]  # fmt: skip

DECIDE, DEAL_0, DEAL_1, DEAL_PUBLIC, OVER, SEAT = range(6)
#: how ``root_of`` reads a core's state: ``(node, card_0, card_1[, public])`` or rlcard's
#: ``(node, cards dealt)``
TUPLE, RLCARD = 0, 1


class CardTables(NamedTuple):
    """A card game's rules as arrays (see the module docstring)."""

    kind: np.ndarray  # int64[nodes]
    to_play: np.ndarray  # int64[nodes]
    child: np.ndarray  # int64[nodes, actions]
    after_public: np.ndarray  # int64[nodes]
    pool: np.ndarray  # int64[W * W, most]
    pool_len: np.ndarray  # int64[W * W]
    unseen: np.ndarray  # int64[cards * W, most]
    unseen_len: np.ndarray  # int64[cards * W]
    payoff: np.ndarray  # float64[nodes, cards, cards, W]
    cards: int
    low: float  # return_range
    high: float
    layout: int = TUPLE

    @property
    def keys(self) -> int:
        """Size of the key space."""
        w = self.cards + 1
        return 4 * len(self.kind) * w * w


def supports(game: Any) -> str | None:
    """``None`` if the compiled ISMCTS plays ``game``'s rules, else a sentence why not."""
    if isinstance(game, KuhnPoker) and type(game) is KuhnPoker:
        return None if game.players == 2 else f"Kuhn poker with {game.players} players (2 only)"
    if type(game) in (LeducHoldem, RLCardLeduc):
        return None
    return (
        f"no compiled ISMCTS for {type(game).__name__} (two-player Kuhn poker, Leduc hold'em "
        "with OpenSpiel's rules or rlcard's, and rlcard's limit and no-limit hold'em only)"
    )


def root_of(tables: CardTables, state: Any, player: int) -> tuple[int, int, int]:
    """``(node, own card, public card or -1)`` of ``player`` in the core's ``state``: all that
    a search reads of it."""
    if tables.layout == RLCARD:
        node, cards = state
        public = cards[2] if len(cards) > 2 else -1
        return (len(cards) if node == 0 else node + 1), int(cards[player]), int(public)
    return int(state[0]), int(state[1 + player]), int(state[3]) if len(state) > 3 else -1


def _pad(rows: list[tuple[int, ...]]) -> tuple[np.ndarray, np.ndarray]:
    most = max(1, max(len(r) for r in rows))
    table = np.full((len(rows), most), -1, np.int64)
    for i, row in enumerate(rows):
        table[i, : len(row)] = row
    return table, np.array([len(r) for r in rows], np.int64)


def card_tables(game: Any) -> CardTables:
    """The arrays of ``game`` (``supports(game)`` must be ``None``)."""
    if isinstance(game, KuhnPoker):
        return _kuhn(game)
    if isinstance(game, RLCardLeduc):
        return _rlcard_leduc(game)
    return _leduc(game)


def _kuhn(game: KuhnPoker) -> CardTables:
    k = game.num_cards
    w = k + 1
    nodes = len(game._seqs)
    kind = np.full(nodes, DECIDE, np.int64)
    kind[0], kind[1] = DEAL_0, DEAL_1
    child = np.full((nodes, 2), -1, np.int64)
    for node in range(2, nodes):
        kids = game._children[node]
        if game._terminal[node]:
            kind[node] = OVER
        elif kids is not None:
            child[node] = kids
    to_play = np.array(game._to_play, np.int64)
    pools = [tuple(c for c in range(k) if c not in (i // w - 1, i % w - 1)) for i in range(w * w)]
    pool, pool_len = _pad(pools)
    unseen, unseen_len = _pad(
        [tuple(c for c in range(k) if c != own) if pub < 0 else () for own in range(k)
         for pub in range(-1, k)]
    )  # fmt: skip
    payoff = np.zeros((nodes, k, k, w), np.float64)
    for node in range(nodes):
        if kind[node] == OVER:
            for c0 in range(k):
                for c1 in range(k):
                    if c0 != c1:
                        payoff[node, c0, c1, 0] = game.returns((node, c0, c1))[0]
    low, high = game.return_range
    return CardTables(kind, to_play, child, np.full(nodes, -1, np.int64), pool, pool_len,
                      unseen, unseen_len, payoff, k, float(low), float(high))  # fmt: skip


def _leduc(game: LeducHoldem) -> CardTables:
    k = game.num_cards
    w = k + 1
    nodes = len(game._nodes)
    # the core's node kinds: deal 0, deal 1, bet, public, folded, showdown
    kind = np.array([(DEAL_0, DEAL_1, DECIDE, DEAL_PUBLIC, OVER, OVER)[x] for x in game._kind],
                    np.int64)  # fmt: skip
    child = np.full((nodes, 3), -1, np.int64)
    for node, kids in enumerate(game._children):
        if kids is not None:
            child[node] = kids
    pool, pool_len = _pad(list(game._deal_pool))
    unseen, unseen_len = _pad(list(game._unseen))
    payoff = np.zeros((nodes, k, k, w), np.float64)
    for node in range(nodes):
        if kind[node] != OVER:
            continue
        for c0 in range(k):
            for c1 in range(k):
                for pub in range(-1 if game._fixed_returns[node] else 0, k):
                    payoff[node, c0, c1, pub + 1] = game.returns((node, c0, c1, pub))[0]
    low, high = game.return_range
    return CardTables(kind, np.array(game._to_play, np.int64), child,
                      np.array(game._after_public, np.int64), pool, pool_len, unseen, unseen_len,
                      payoff, k, float(low), float(high))  # fmt: skip


def _rlcard_leduc(game: RLCardLeduc) -> CardTables:
    """rlcard's Leduc (``RLCardLeduc``): its node ``n >= 1`` is ours ``n + 1``; its node 0
    (both hole cards, one chance node each) is ours 0 (seat 0's card) and 1 (seat 1's); its
    blind draw (node 1, ours 2) is a ``SEAT`` chance node, even odds. Cards are ranks, two
    copies each."""
    k, w = 3, 4
    nodes = len(game._kind) + 1
    kind = np.full(nodes, DECIDE, np.int64)
    to_play = np.full(nodes, -1, np.int64)
    child = np.full((nodes, game.num_actions), -1, np.int64)
    after_public = np.full(nodes, -1, np.int64)
    kind[0], kind[1], kind[2] = DEAL_0, DEAL_1, SEAT
    child[2, :2] = [n + 1 for n in game._blind_next]
    for node in range(2, len(game._kind)):
        ours = node + 1
        rl = game._kind[node]
        to_play[ours] = game._to_play[node]
        if rl == BET:
            child[ours] = [n + 1 if n >= 0 else -1 for n in game._children[node] or ()]
        elif rl == DEAL:
            kind[ours] = DEAL_PUBLIC
            after_public[ours] = game._deal_next[node] + 1
        elif rl != BLIND:
            kind[ours] = OVER
    pools = [game._pool(tuple(c for c in (i // w - 1, i % w - 1) if c >= 0)) for i in range(w * w)]
    pool, pool_len = _pad(pools)
    unseen, unseen_len = _pad(
        [game._pool((own,) if pub < 0 else (own, pub)) for own in range(k) for pub in range(-1, k)]
    )
    payoff = np.zeros((nodes, k, k, w), np.float64)
    for node in range(2, len(game._kind)):
        if kind[node + 1] != OVER:
            continue
        for c0 in range(k):
            for c1 in range(k):
                for pub in range(-1 if game._kind[node] == FOLDED else 0, k):
                    cards = (c0, c1) if pub < 0 else (c0, c1, pub)
                    payoff[node + 1, c0, c1, pub + 1] = game.returns((node, cards))[0]
    low, high = game.return_range
    return CardTables(kind, to_play, child, after_public, pool, pool_len, unseen, unseen_len,
                      payoff, k, float(low), float(high), RLCARD)  # fmt: skip
