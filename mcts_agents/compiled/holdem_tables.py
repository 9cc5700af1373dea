"""The rules of rlcard's heads-up hold'em (limit and no-limit) as int arrays, for the compiled
ISMCTS (``holdem_kernel``).

``holdem_tables(game)`` reads the public betting tree that the rules cores
(``envs.games.limit_holdem.LimitHoldem``, ``envs.games.nolimit_holdem.NoLimitHoldem``) build
from rlcard's rules (blinds, raise sizes per round, the raise cap or the stacks, who opens each
round, when a round ends, folds, all-ins and run-outs) into arrays, so the compiled rules are the
cores' own tables, not a copy of the rules:

- ``kind[node]``: the core's node kinds (``DEAL``, ``BLIND``, ``BET``, ``FOLDED``, ``SHOWDOWN``
  of ``envs.games.rlcard_poker``); ``to_play[node]`` at a betting node;
- ``child[node, action]``: the node after a legal action (-1: illegal); the core's ids;
- ``deal_target[node]``, ``deal_next[node]`` at a deal node: cards are dealt, one uniformly
  from the deck left at a time, until ``deal_target`` are out, then the game goes on at
  ``deal_next``; ``blind_next``: the first betting node for each small-blind (limit) or dealer
  (no-limit) seat, drawn at even odds;
- ``fold_gain[node]``: seat 0's return at a fold (seat 1 gets minus that), ``stake[node]``: what
  a showdown there wins (the core's ``returns``, in the core's units: big blinds in limit, chips
  in no-limit).

A dealt world is nine ints: seat 0's two hole cards, seat 1's, then the board in the order dealt
(rlcard's card indices), as the core's ``cards``.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from mcts_agents.envs.games.limit_holdem import LimitHoldem
from mcts_agents.envs.games.nolimit_holdem import NoLimitHoldem
from mcts_agents.envs.games.rlcard_poker import BET, BLIND, DEAL, FOLDED, SHOWDOWN

__all__ = ["BET", "BLIND", "DEAL", "FOLDED", "NODE_BITS", "SHOWDOWN", "HoldemTables",
           "holdem_tables", "supports"]  # fmt: skip

#: bits of the node number in an information-set key (``holdem_kernel.info_key``)
NODE_BITS = 16


class HoldemTables(NamedTuple):
    """A hold'em core's rules as arrays (see the module docstring)."""

    kind: np.ndarray  # int64[nodes]
    to_play: np.ndarray  # int64[nodes]
    child: np.ndarray  # int64[nodes, actions]
    deal_target: np.ndarray  # int64[nodes]
    deal_next: np.ndarray  # int64[nodes]
    blind_next: np.ndarray  # int64[2]
    fold_gain: np.ndarray  # float64[nodes]
    stake: np.ndarray  # float64[nodes]
    low: float  # return_range
    high: float


def supports(game: Any) -> str | None:
    """``None`` if ``game`` is one of the two hold'em cores with their standard rules, else a
    sentence why not."""
    if type(game) in (LimitHoldem, NoLimitHoldem):
        return None
    return f"no compiled hold'em ISMCTS for {type(game).__name__} (LimitHoldem, NoLimitHoldem)"


def holdem_tables(game: LimitHoldem) -> HoldemTables:
    """The arrays of ``game`` (``supports(game)`` must be ``None``)."""
    nodes = game.num_nodes
    if nodes >= 1 << NODE_BITS:  # the standard cores have 5,306 and 35,226 nodes
        raise ValueError(f"{nodes} nodes do not fit the key's {NODE_BITS} bits")
    kind = np.array(game._kind, np.int64)
    to_play = np.array(game._to_play, np.int64)
    child = np.full((nodes, game.num_actions), -1, np.int64)
    for node, kids in enumerate(game._children):
        if kids is not None:
            child[node] = kids
    fold_gain = np.zeros(nodes, np.float64)
    stake = np.zeros(nodes, np.float64)
    for node in range(nodes):
        fixed = game._fixed_returns[node]
        if kind[node] == FOLDED and fixed is not None:
            fold_gain[node] = fixed[0]
        elif kind[node] == SHOWDOWN:
            stake[node] = game._stake[node]
    low, high = game.return_range
    return HoldemTables(
        kind, to_play, child, np.array(game._deal_target, np.int64),
        np.array(game._deal_next, np.int64), np.array(game._blind_next, np.int64), fold_gain,
        stake, float(low), float(high),
    )  # fmt: skip
