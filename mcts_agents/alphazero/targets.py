"""From a search's root statistics to training targets and self-play moves.

``visit_distribution`` is AlphaZero's policy target: the root's visit counts over the whole
action space, normalised. ``select_move`` plays from the same counts: the most visited move at
temperature 0, else a move drawn with probability proportional to ``visits ** (1 / t)``.
``policy_target`` is the target of either search: the visits, or after a Gumbel search its
improved policy (``SearchResult.improved_policy``), which ``select_move`` then plays from too.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from mcts_agents.checks import check_int, check_number
from mcts_agents.errors import InvalidOptionError
from mcts_agents.search.result import SearchResult
from mcts_agents.search.searcher import pick_child

__all__ = ["check_temperature", "policy_target", "select_move", "visit_distribution"]


def visit_distribution(result: SearchResult, num_actions: int) -> np.ndarray:
    """The root's visits as a float64 distribution over ``range(num_actions)``.

    Each root action gets ``visits / total``; actions that are illegal or never visited get 0.
    If no simulation reached a child (a budget spent before the first), the distribution is
    uniform over the root's legal actions, like ``SearchResult.policy``.

    Raises:
        InvalidOptionError: ``num_actions`` is not an int >= 1, or a root action lies
            outside ``range(num_actions)``.
    """
    check_int(num_actions, "num_actions", low=1)
    target = np.zeros(num_actions, dtype=np.float64)
    children = result.children
    outside = [c.action for c in children if not 0 <= c.action < num_actions]
    if outside:
        raise InvalidOptionError(
            f"the result's root actions {outside} lie outside range({num_actions}); "
            "num_actions must be the game's action count"
        )
    total = sum(c.visits for c in children)
    for c in children:
        target[c.action] = c.visits / total if total else 1.0 / len(children)
    return target


def policy_target(result: SearchResult, num_actions: int) -> np.ndarray:
    """The policy target of ``result`` over ``range(num_actions)``: a Gumbel search's improved
    policy (``SearchResult.improved_policy``; Gumbel AlphaZero's target), else the visits
    (``visit_distribution``).

    Raises:
        InvalidOptionError: as ``visit_distribution``.
    """
    target = visit_distribution(result, num_actions)
    if result.improved_policy:
        target[:] = 0.0
        for action, probability in result.improved_policy:
            target[action] = probability
    return target


def check_temperature(temperature: Any, name: str = "temperature") -> float:
    """``temperature`` as a float, or ``InvalidOptionError`` unless it is a finite number >= 0."""
    return float(check_number(temperature, name, low=0))


def select_move(result: SearchResult, temperature: float, rng: Any) -> int:
    """The move to play from ``result``'s root visits at ``temperature``.

    ``temperature = 0``: the final-move rule by visits (``searcher.pick_child``): a proven win
    first, proven losses avoided, then the most visited child, ties to the higher value and then
    the lower action. ``temperature = t > 0``: a visited child drawn with probability
    proportional to ``visits ** (1 / t)`` (``t = 1``: in proportion to visits; large ``t``:
    towards uniform over the visited children; small ``t``: towards the most visited). With no
    visits at all, a root action drawn uniformly. After a Gumbel search
    (``result.improved_policy``): at ``t = 0`` its move (``best_action``), else a move drawn
    with probability proportional to ``improved_policy ** (1 / t)``.

    Args:
        result: a search result (``children`` lists every root action).
        temperature: a finite number >= 0.
        rng: anything with ``random()`` in [0, 1): a ``numpy.random.Generator`` or a
            ``random.Random`` (only drawn from when ``temperature > 0``).

    Raises:
        InvalidOptionError: a negative, infinite, NaN or non-numeric temperature, or a result
            without root actions.
    """
    t = check_temperature(temperature)
    children = result.children
    if not children:
        raise InvalidOptionError("the search result has no root actions to choose from")
    if result.improved_policy and t == 0.0:
        return result.best_action
    visits = [c.visits for c in children]
    if t == 0.0:
        labels = [c.proven for c in children]
        return children[pick_child(visits, [c.value for c in children], labels, "visits")].action
    if result.improved_policy:
        policy = dict(result.improved_policy)
        return _draw(children, [policy.get(c.action, 0.0) for c in children], t, rng)
    return _draw(children, [float(v) for v in visits], t, rng)


def _draw(children: Any, visits: list[float], t: float, rng: Any) -> int:
    """A child drawn with probability proportional to ``visits ** (1 / t)``."""
    most = max(visits)
    if most == 0:
        return children[min(int(rng.random() * len(children)), len(children) - 1)].action
    # visits ** (1/t), scaled by the largest: exp(log(v / most) / t), in (0, 1], no overflow
    weights = [math.exp(math.log(v / most) / t) if v else 0.0 for v in visits]
    u = rng.random() * sum(weights)
    for child, weight in zip(children, weights, strict=True):
        u -= weight
        if u < 0.0:
            return child.action
    return children[max(i for i, w in enumerate(weights) if w > 0.0)].action  # rounding
