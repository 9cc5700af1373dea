"""Root exploration noise for the Python search (AlphaZero's self-play exploration).

At each search with ``SearchConfig.root_noise = (alpha, epsilon)``, the root's priors ``P``
become ``(1 - epsilon) * P + epsilon * eta`` with ``eta ~ Dirichlet(alpha, ..., alpha)`` over
the root's legal actions, drawn from the search's own generator (same seed, same noise). A root
without priors (no evaluator) is noised from uniform priors. Only the root is touched.

The noise belongs to one search: ``noise_root`` returns a function that puts the clean priors
back, so that a later search that reuses the node (tree reuse, or the same position again)
draws fresh noise over the evaluator's priors instead of noise over noise.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from mcts_agents.search.tree import Node

__all__ = ["dirichlet", "noise_root"]


def dirichlet(alpha: float, size: int, rng: random.Random) -> list[float]:
    """A draw from the symmetric Dirichlet distribution of ``size`` components: normalised
    ``Gamma(alpha, 1)`` draws. If every draw underflows to 0 (a tiny ``alpha``), the limit of
    the distribution as ``alpha -> 0``: all the mass on one component, drawn uniformly."""
    draws = [rng.gammavariate(alpha, 1.0) for _ in range(size)]
    total = sum(draws)
    if total > 0.0:
        return [d / total for d in draws]
    one_hot = [0.0] * size
    one_hot[int(rng.random() * size)] = 1.0
    return one_hot


def _order_untried(node: Node) -> None:
    """Sort the untried actions (after the expanded children) by decreasing prior, as PUCT
    expects (it expands the next untried action and scores it by its prior)."""
    actions, priors = node.actions, node.priors
    assert actions is not None and priors is not None  # noise_root sets both
    k = len(node.children)
    order = sorted(range(k, len(actions)), key=lambda i: -priors[i])
    node.actions = actions[:k] + [actions[i] for i in order]
    node.priors = priors[:k] + [priors[i] for i in order]


def _nothing() -> None:
    """The restore of a search without noise."""


def noise_root(
    root: Node, noise: tuple[float, float] | None, rng: random.Random
) -> Callable[[], None]:
    """Mix Dirichlet noise into ``root``'s priors; return the function that restores them.

    With ``noise`` ``None``, ``epsilon = 0`` or a root without actions (terminal), nothing is
    changed and nothing is drawn from ``rng``.
    """
    actions = root.actions
    if noise is None or noise[1] == 0.0 or not actions:
        return _nothing
    alpha, epsilon = noise
    count = len(actions)
    clean = None if root.priors is None else dict(zip(actions, root.priors, strict=True))
    base = root.priors if root.priors is not None else [1.0 / count] * count
    eta = dirichlet(alpha, count, rng)
    root.priors = [(1.0 - epsilon) * p + epsilon * e for p, e in zip(base, eta, strict=True)]
    _order_untried(root)

    def restore() -> None:
        if clean is None:
            root.priors = None  # uniform again, drawn lazily as before
            return
        root.priors = [clean[a] for a in root.actions or ()]
        _order_untried(root)

    return restore
