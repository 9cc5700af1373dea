"""Root exploration noise (``SearchConfig.root_noise``, ``mcts_agents.search.noise``) in the Python
search.

The evaluator's priors are written in the test (a fixed rule of the action and the number of
stones), so the clean prior of every node is known from outside the search; the Dirichlet draws
are checked against the distribution's moments.
"""

from __future__ import annotations

import dataclasses
import random
from typing import Any

import numpy as np
import pytest

from mcts_agents import Budget, SearchConfig, make_searcher
from mcts_agents.envs.games.kuhn_poker import KuhnPoker
from mcts_agents.envs.games.mnk import MNK
from mcts_agents.errors import InvalidOptionError
from mcts_agents.search import MCTS
from mcts_agents.search.noise import dirichlet

TTT = MNK(3, 3, 3)
NOISE = (0.3, 0.25)


class Skewed:
    """Priors ``1 + (3a + stones) % 4`` on legal actions (renormalised by the search), value 0."""

    def evaluate_batch(self, observations: np.ndarray, legal_masks: np.ndarray) -> Any:
        return clean_priors(observations, legal_masks), np.zeros(len(observations))


def clean_priors(observations: np.ndarray, legal_masks: np.ndarray) -> np.ndarray:
    stones = observations.reshape(len(observations), -1).sum(axis=1)
    actions = np.arange(legal_masks.shape[1])
    raw = np.where(legal_masks, 1.0 + (3 * actions[None, :] + stones[:, None]) % 4, 0.0)
    return raw / raw.sum(axis=1, keepdims=True)


def expected_priors(game: Any, state: Any) -> dict[int, float]:
    """The evaluator's normalised priors of ``state``'s legal actions."""
    mask = np.zeros((1, game.num_actions), dtype=bool)
    mask[0, game.legal_actions(state)] = True
    obs = np.asarray(game.observation(state, game.to_play(state)))[None]
    priors = clean_priors(obs, mask)[0]
    return {a: float(priors[a]) for a in game.legal_actions(state)}


def searcher(noise: Any, seed: int = 5, iterations: int = 200, **options: Any) -> MCTS:
    options.setdefault("evaluator", Skewed())
    config = SearchConfig(selection="puct", root_noise=noise, **options)
    return MCTS(Budget(iterations=iterations), config, seed)


def timeless(result: Any) -> Any:
    return dataclasses.replace(result, elapsed=0.0)


def test_noise_changes_the_root_priors_only_and_they_sum_to_one() -> None:
    search = searcher(NOISE)
    state = TTT.initial_state()
    result = search.search(TTT, state)
    noised = {c.action: c.prior for c in result.children}
    clean = expected_priors(TTT, state)
    assert set(noised) == set(clean)
    assert sum(noised.values()) == pytest.approx(1.0)
    assert all(p is not None and p >= 0.75 * clean[a] - 1e-12 for a, p in noised.items())
    assert max(abs(noised[a] - clean[a]) for a in clean) > 1e-3
    checked = 0
    for node in search.table:
        if node.priors is None or node.actions is None:
            continue
        stored = dict(zip(node.actions, node.priors, strict=True))
        assert stored == pytest.approx(expected_priors(TTT, node.state))  # the root too: restored
        checked += 1
    assert checked > 10


def test_untried_root_actions_are_expanded_by_decreasing_noised_prior() -> None:
    """PUCT expands the untried action of highest prior first: after one simulation the visited
    child is the one the noise made most likely, not the evaluator's favourite."""
    for seed in range(6):
        result = searcher((0.3, 1.0), seed=seed, iterations=1).search(TTT, TTT.initial_state())
        visited = [c.action for c in result.children if c.visits]
        top = max(result.children, key=lambda c: c.prior or 0.0)
        assert visited == [top.action]


def test_same_seed_same_noise_and_different_seeds_differ() -> None:
    state = TTT.initial_state()
    first = timeless(searcher(NOISE, seed=9).search(TTT, state))
    assert timeless(searcher(NOISE, seed=9).search(TTT, state)) == first
    others = [searcher(NOISE, seed=s).search(TTT, state) for s in (10, 11)]
    assert all([c.prior for c in o.children] != [c.prior for c in first.children] for o in others)


@pytest.mark.parametrize("evaluator", [Skewed(), None])
def test_epsilon_zero_is_no_noise(evaluator: Any) -> None:
    """No noise and nothing drawn: the same search, even where random playouts use the same
    generator (``evaluator=None``)."""
    state = TTT.next_state(TTT.initial_state(), 4)
    plain = searcher(None, evaluator=evaluator).search(TTT, state)
    zero = searcher((0.3, 0.0), evaluator=evaluator).search(TTT, state)
    assert timeless(zero) == timeless(plain)


def test_a_reused_root_gets_fresh_noise_over_its_clean_priors() -> None:
    search = searcher(NOISE, iterations=100)
    state = TTT.initial_state()
    first = search.search(TTT, state)
    second = search.search(TTT, state)  # the same root again, kept by tree reuse
    assert second.reused_nodes > 0
    assert [c.prior for c in first.children] != [c.prior for c in second.children]
    root = search.table.get(TTT.key(state))
    assert root is not None and root.actions is not None and root.priors is not None
    assert dict(zip(root.actions, root.priors, strict=True)) == pytest.approx(
        expected_priors(TTT, state)
    )


def test_noise_without_an_evaluator_mixes_into_uniform_priors() -> None:
    result = searcher(NOISE, evaluator=None, iterations=50).search(TTT, TTT.initial_state())
    priors = [c.prior for c in result.children]
    assert all(p is not None and p >= 0.75 / 9 - 1e-12 for p in priors)
    assert sum(p for p in priors if p is not None) == pytest.approx(1.0)


@pytest.mark.parametrize(("alpha", "size"), [(0.5, 4), (2.0, 3), (0.03, 10)])
def test_dirichlet_draws_have_the_distributions_moments(alpha: float, size: int) -> None:
    """Symmetric Dirichlet: mean 1/n, variance (1/n)(1 - 1/n) / (n alpha + 1) per component."""
    rng = random.Random(1)
    draws = np.array([dirichlet(alpha, size, rng) for _ in range(6000)])
    assert np.allclose(draws.sum(axis=1), 1.0)
    assert (draws >= 0).all()
    mean = 1.0 / size
    variance = mean * (1 - mean) / (size * alpha + 1)
    assert np.allclose(draws.mean(axis=0), mean, atol=4 * np.sqrt(variance / 6000))
    assert np.allclose(draws.var(axis=0), variance, rtol=0.12)


@pytest.mark.parametrize(
    ("noise", "options", "words"),
    [
        ((0.0, 0.25), {}, "alpha"),
        ((-1.0, 0.25), {}, "alpha"),
        ((0.3, 1.5), {}, "epsilon"),
        ((0.3, float("nan")), {}, "epsilon"),
        ((0.3,), {}, "pair"),
        ("0.3,0.25", {}, "pair"),
        ((True, 0.25), {}, "alpha"),
        ((0.3, 0.25), {"selection": "ucb1"}, "puct"),
    ],
)
def test_bad_root_noise_is_refused_with_a_clear_error(
    noise: Any, options: dict[str, Any], words: str
) -> None:
    options.setdefault("selection", "puct")
    with pytest.raises(InvalidOptionError, match=words):
        SearchConfig(root_noise=noise, **options)


def test_root_noise_is_stored_as_floats() -> None:
    assert SearchConfig(selection="puct", root_noise=[1, 0]).root_noise == (1.0, 0.0)


def test_information_set_search_refuses_root_noise() -> None:
    config = SearchConfig(selection="puct", root_noise=NOISE)
    with pytest.raises(InvalidOptionError, match="ISMCTS"):
        make_searcher(KuhnPoker(), Budget(iterations=10), config)
