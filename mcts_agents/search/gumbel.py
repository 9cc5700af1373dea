"""Gumbel search (Danihelka, Guez, Schrittwieser and Silver, ICLR 2022) for the Python search.

``SearchConfig(selection="gumbel")`` replaces PUCT's root exploration by a root that improves its
policy with any number of simulations ``n`` (``Budget.iterations``):

- **Gumbel-top-k.** Each root action ``a`` gets ``g(a) ~ Gumbel(0, gumbel_scale)`` from the
  search's own generator (same seed, same search); the ``m = min(gumbel_max_actions, legal)``
  actions of highest ``g(a) + logits(a)`` are considered (``logits = log prior``; uniform
  priors, logits 0, with no evaluator).
- **Sequential Halving** (``halving_schedule``) spends the ``n`` simulations in
  ``ceil(log2 m)`` phases; a phase with ``r`` actions left visits each of them
  ``max(1, floor(n / (ceil(log2 m) * r)))`` times, then keeps the better half (at least two) by
  ``g + logits + sigma(q)``. **Leftovers**: simulations left after the last phase go on in more
  phases of the last two actions, by the same rule; the last phase is cut where the budget
  ends, so exactly ``n`` simulations run and the two finalists' visits differ by at most one.
  A budget too small for the phases cuts them short the same way.
- **Completed Q-values**: a visited action's ``q`` is its mean value; an unvisited one gets
  ``v_mix = (v + sum_b N(b) / sum_{b visited} pi(b) * sum_{a visited} pi(a) q(a)) /
  (1 + sum_b N(b))``, the node's own value estimate ``v`` (the evaluator's, or its first
  playout's) mixed with the prior-weighted visited ``q``.
- **sigma**: ``sigma(q) = (gumbel_c_visit + max_b N(b)) * gumbel_c_scale * q``, with ``q``
  mapped from the values' [-1, 1] onto [0, 1] (``(q + 1) / 2``; the paper's Q-values are on
  [0, 1]).
- **The improved policy** ``softmax(logits + sigma(completed q))`` over the root's legal
  actions is the result's ``SearchResult.policy`` (the policy target of Gumbel AlphaZero).
- **Below the root** the selection is deterministic: the action maximising
  ``pi'(a) - N(a) / (1 + sum_b N(b))`` with ``pi'`` the node's improved policy (ties to the
  first action; without priors the actions are shuffled once by the search's generator, so
  that ties fall in a random order). Proven children are not selected (their values are
  exact), as in the other rules.
- **The move**: a proven win at the root if the solver found one, else among the actions
  visited most in this search (the last phase's survivors), the highest ``g + logits +
  sigma(q)``.

Sequential Halving counts this search's own visits; ``q`` and ``N`` in ``sigma`` and the
improved policy are the root's statistics (with tree reuse, the earlier searches' too). With a
batch evaluator and ``batch_size > 1`` the simulations in flight are told apart by the root's
schedule and, below it, by the virtual visits (``leaf_batch``) that enter ``N`` and ``q``.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

from mcts_agents.errors import InvalidOptionError
from mcts_agents.search.config import Budget, SearchConfig
from mcts_agents.search.selection import CLOSED, EXPAND
from mcts_agents.search.tree import Node

__all__ = [
    "GumbelRoot",
    "completed_q",
    "halving_phases",
    "halving_schedule",
    "improved_policy",
    "nonroot_select",
]

_TINY = 1e-300  # log's floor for a zero prior


def halving_phases(m: int, n: int) -> list[tuple[int, int]]:
    """Sequential Halving's phases for ``m`` considered actions and ``n`` simulations: a list
    of ``(actions, visits each)``; the last may be cut short (see ``halving_schedule``).

    ``ceil(log2 m)`` phases halve ``m`` down to two (``r -> max(2, r // 2)``), each action of a
    phase with ``r`` getting ``max(1, floor(n / (ceil(log2 m) * r)))`` visits; while
    simulations are left after them, more phases of two. With ``m = 1`` one phase of ``n``.
    """
    if m <= 1:
        return [(1, n)]
    rounds = math.ceil(math.log2(m))
    phases, spent, r = [], 0, m
    while spent < n:
        visits = max(1, n // (rounds * r))
        phases.append((r, visits))
        spent += r * visits
        r = max(2, r // 2)
    return phases


def halving_schedule(m: int, n: int) -> list[int]:
    """For each of ``n`` simulations, the visit count (in this search) that the root action it
    goes to has before it: the action is the best by ``g + logits + sigma(q)`` among the
    considered actions with that count. ``len(result) == n`` exactly."""
    schedule: list[int] = []
    done = 0  # visits each survivor has so far
    for r, visits in halving_phases(m, n):
        for k in range(visits):
            schedule.extend([done + k] * r)
        done += visits
    return schedule[:n]


def _logits(node: Node) -> list[float]:
    priors = node.priors
    if priors is None:
        return [0.0] * len(node.actions or ())
    return [math.log(p) if p > _TINY else math.log(_TINY) for p in priors]


def completed_q(node: Node, value: float | None) -> list[float]:
    """The mover's completed Q-values of ``node``'s actions (aligned with ``node.actions``):
    the mean (exact when proven) where visited, else ``v_mix`` from the node's own estimate
    ``value`` (``None``: the prior-weighted mean of the visited values alone)."""
    actions = node.actions or ()
    count = len(actions)
    priors = node.priors if node.priors is not None else [1.0 / count] * count
    mover = node.to_play
    q: list[float | None] = [None] * count
    total = 0
    weighted, weight, plain = 0.0, 0.0, 0.0
    for i, child in enumerate(node.children):
        n = node.edge_visits[i]
        if child.proven is not None and mover >= 0:
            qi = child.proven[mover]
        elif n > 0:
            qi = node.edge_value[i] / n
        else:
            continue
        q[i] = qi
        total += n
        weighted += priors[i] * qi
        weight += priors[i]
        plain += qi
    visited = sum(1 for x in q if x is not None)
    if not visited:
        mix = 0.0 if value is None else value
    else:
        mean = weighted / weight if weight > 0.0 else plain / visited
        mix = mean if value is None else (value + total * mean) / (1 + total)
    return [mix if x is None else x for x in q]


def _sigma_scale(node: Node, config: SearchConfig) -> float:
    most = max(node.edge_visits, default=0)
    return (config.gumbel_c_visit + most) * config.gumbel_c_scale


def _transformed(node: Node, config: SearchConfig) -> list[float]:
    """``sigma(completed q)`` of each action (q mapped onto [0, 1])."""
    scale = _sigma_scale(node, config)
    return [scale * (q + 1.0) / 2.0 for q in completed_q(node, node.value)]


def _softmax(scores: Sequence[float]) -> list[float]:
    top = max(scores)
    weights = [math.exp(s - top) for s in scores]
    total = sum(weights)
    return [w / total for w in weights]


def improved_policy(node: Node, config: SearchConfig) -> list[float]:
    """``softmax(logits + sigma(completed q))`` over ``node.actions`` (in their order)."""
    sigma = _transformed(node, config)
    return _softmax([lg + s for lg, s in zip(_logits(node), sigma, strict=True)])


def _uniform_priors(node: Node, rng: random.Random) -> None:
    """Give a node without priors uniform ones, its untried actions shuffled by ``rng``."""
    actions = node.actions
    assert actions is not None  # set by the caller before selection
    k = len(node.children)
    untried = actions[k:]
    rng.shuffle(untried)
    node.actions = actions[:k] + untried
    node.priors = [1.0 / len(actions)] * len(actions)


def _to_expand(node: Node, j: int) -> int:
    """Move untried action ``j`` to the next expansion slot; ``EXPAND``."""
    k = len(node.children)
    actions, priors = node.actions, node.priors
    assert actions is not None and priors is not None
    if j != k:
        actions[k], actions[j] = actions[j], actions[k]
        priors[k], priors[j] = priors[j], priors[k]
    return EXPAND


def nonroot_select(node: Node, config: SearchConfig, rng: random.Random) -> int:
    """The deterministic rule below the root: argmax ``pi'(a) - N(a) / (1 + sum_b N(b))``
    over unproven actions; ``EXPAND`` (the action moved to the next slot) for an untried one,
    ``CLOSED`` when every child is proven and nothing is left to expand."""
    if node.priors is None:
        _uniform_priors(node, rng)
    policy = improved_policy(node, config)
    visits = node.edge_visits
    denominator = 1.0 + sum(visits)
    k = len(node.children)
    best, best_score = CLOSED, -math.inf
    for i, p in enumerate(policy):
        if i < k:
            if node.children[i].proven is not None:
                continue
            score = p - visits[i] / denominator
        else:
            score = p
        if score > best_score:
            best, best_score = i, score
    if best >= k:
        return _to_expand(node, best)
    return best


class GumbelRoot:
    """One search's root: its Gumbel draw, the considered actions and their schedule.

    Attributes:
        root: the root node (its ``actions`` and ``priors`` set).
        gumbel: each root action -> its draw ``g``.
        considered: the considered actions (best ``g + logits`` first).
        schedule: ``halving_schedule(len(considered), n)``.
        visits: each considered action -> its visits in this search.
        simulations: simulations that passed the root in this search.
    """

    __slots__ = (
        "config",
        "considered",
        "gumbel",
        "rng",
        "root",
        "schedule",
        "simulations",
        "visits",
    )

    def __init__(
        self, root: Node, config: SearchConfig, budget: Budget, rng: random.Random
    ) -> None:
        if budget.iterations is None:
            raise InvalidOptionError(
                "selection='gumbel' plans its simulations ahead (Sequential Halving): the budget "
                f"needs iterations, got {budget!r}"
            )
        self.root, self.config, self.rng = root, config, rng
        actions = root.actions or []
        if root.priors is None:
            _uniform_priors(root, rng)
            actions = root.actions or []
        scale = config.gumbel_scale
        self.gumbel = {}
        for a in actions:  # in the root's order (the same for the same seed)
            u = max(rng.random(), _TINY)  # in (0, 1)
            self.gumbel[a] = -scale * math.log(-math.log(u))
        logits = dict(zip(actions, _logits(root), strict=True))
        ranked = sorted(actions, key=lambda a: -(self.gumbel[a] + logits[a]))
        self.considered = ranked[: min(config.gumbel_max_actions, len(actions))]
        self.schedule = halving_schedule(len(self.considered), budget.iterations)
        self.visits = dict.fromkeys(self.considered, 0)
        self.simulations = 0

    def _scores(self) -> dict[int, float]:
        """``g + logits + sigma(completed q)`` of every root action."""
        root = self.root
        sigma = _transformed(root, self.config)
        logits = _logits(root)
        return {
            a: self.gumbel[a] + lg + s
            for a, lg, s in zip(root.actions or (), logits, sigma, strict=True)
        }

    def select(self, node: Node, c: float, fpu: float | None) -> int:
        """The selection rule of this search (``SELECTION_RULES``' signature): the schedule at
        the root, ``nonroot_select`` below it."""
        if node is not self.root:
            return nonroot_select(node, self.config, self.rng)
        j = self.simulations
        self.simulations += 1
        if j < len(self.schedule):
            target = self.schedule[j]
            candidates = [a for a in self.considered if self.visits[a] == target]
        else:  # past the plan (a budget raised mid-search): the finalists
            most = max(self.visits.values())
            candidates = [a for a in self.considered if self.visits[a] == most]
        scores = self._scores()
        action = max(candidates, key=lambda a: scores[a])
        self.visits[action] += 1
        index = (self.root.actions or []).index(action)
        if index >= len(self.root.children):
            return _to_expand(self.root, index)
        return index

    def best_action(self) -> int:
        """The move: among the considered actions visited most in this search, the highest
        ``g + logits + sigma(q)``."""
        most = max(self.visits.values())
        scores = self._scores()
        finalists = [a for a in self.considered if self.visits[a] == most]
        return max(finalists, key=lambda a: scores[a])

    def final_index(self, solver_pick: int) -> int:
        """The root child to play: ``solver_pick`` (the final-move rule's) when it is a proven
        win, else ``best_action``'s index in ``root.actions``."""
        root = self.root
        proven = root.children[solver_pick].proven if solver_pick < len(root.children) else None
        if proven is not None and proven[root.to_play] >= 1.0:
            return solver_pick
        return (root.actions or []).index(self.best_action())

    def policy(self) -> tuple[tuple[int, float], ...]:
        """The improved policy, ``(action, probability)`` per root action."""
        policy = improved_policy(self.root, self.config)
        return tuple(zip(self.root.actions or (), policy, strict=True))
