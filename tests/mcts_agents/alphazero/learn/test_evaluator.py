"""``TorchEvaluator``: the network's priors and values as a checked batch evaluator.

The priors are compared with a softmax over the legal moves' logits computed here in numpy,
from the network's own raw outputs.
"""

from __future__ import annotations

import pickle

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from mcts_agents import Budget, SearchConfig  # noqa: E402
from mcts_agents.alphazero.learn import NetConfig, TorchEvaluator, build_net  # noqa: E402
from mcts_agents.envs.games.connect_four import ConnectFour  # noqa: E402
from mcts_agents.envs.games.mnk import MNK  # noqa: E402
from mcts_agents.errors import InvalidOptionError  # noqa: E402
from mcts_agents.search import MCTS  # noqa: E402
from mcts_agents.search.evaluators import check_batch  # noqa: E402

SMALL = NetConfig(channels=8, blocks=1, value_hidden=8)
TTT = MNK(3, 3, 3)


def positions(game: MNK, count: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Observations and legal masks of ``count`` positions along random games."""
    rng = np.random.default_rng(seed)
    observations, masks = [], []
    state = game.initial_state()
    while len(observations) < count:
        if game.is_terminal(state):
            state = game.initial_state()
        mover = game.to_play(state)
        observations.append(game.observation(state, mover))
        mask = np.zeros(game.num_actions, dtype=bool)
        mask[game.legal_actions(state)] = True
        masks.append(mask)
        state = game.next_state(state, int(rng.choice(game.legal_actions(state))))
    return np.stack(observations), np.stack(masks)


def test_priors_are_a_softmax_over_the_legal_moves_and_values_in_range() -> None:
    net = build_net(TTT, SMALL, seed=1)
    evaluator = TorchEvaluator(net, "cpu")
    observations, masks = positions(TTT, 24, seed=0)
    assert (~masks).any()  # some moves are illegal
    priors, values = evaluator.evaluate_batch(observations, masks)
    assert priors.shape == (24, 9) and values.shape == (24,)
    assert priors.dtype == values.dtype == np.float64
    assert (priors[~masks] == 0.0).all()
    assert np.allclose(priors.sum(axis=1), 1.0)
    assert ((values >= -1.0) & (values <= 1.0)).all()
    with torch.no_grad():
        logits, raw = net.eval()(torch.from_numpy(observations))
    logits = logits.double().numpy()
    for row in range(24):
        legal = logits[row][masks[row]]
        expected = np.exp(legal - legal.max()) / np.exp(legal - legal.max()).sum()
        assert np.allclose(priors[row][masks[row]], expected, atol=1e-6)
    assert np.allclose(values, raw.double().numpy())
    checked_priors, checked_values = check_batch(evaluator, (priors, values), masks)
    assert np.allclose(checked_priors, priors) and np.array_equal(checked_values, values)


def test_the_evaluator_sets_eval_mode_so_a_batch_of_one_is_the_batch_row() -> None:
    net = build_net(TTT, SMALL, seed=2)
    evaluator = TorchEvaluator(net, "cpu")
    observations, masks = positions(TTT, 6, seed=1)
    net.train()  # batch norm would use the batch's statistics in train mode
    together = evaluator.evaluate_batch(observations, masks)
    for row in range(6):
        alone = evaluator.evaluate_batch(observations[row : row + 1], masks[row : row + 1])
        assert np.allclose(alone[0][0], together[0][row], atol=1e-6)
        assert np.allclose(alone[1][0], together[1][row], atol=1e-6)


def test_it_drives_a_batched_search_and_pickles() -> None:
    game = ConnectFour(5, 4, 4)
    evaluator = TorchEvaluator(build_net(game, SMALL, seed=3))
    config = SearchConfig(selection="puct", evaluator=evaluator, batch_size=4, backend="python")
    result = MCTS(Budget(iterations=40), config, seed=0).search(game, game.initial_state())
    assert result.iterations == 40 and result.best_action in range(5)
    copy = pickle.loads(pickle.dumps(evaluator))
    assert copy.device == torch.device("cpu")
    observations, masks = positions(TTT, 1, 0)  # a shape of another game is refused
    with pytest.raises(InvalidOptionError, match=r"takes \[B, 4, 5, 2\]"):
        copy.evaluate_batch(observations, masks)
    state = game.next_state(game.initial_state(), 2)
    planes, mask = game.observation(state, 1)[None], np.ones((1, 5), dtype=bool)
    for one, two in zip(
        evaluator.evaluate_batch(planes, mask), copy.evaluate_batch(planes, mask), strict=True
    ):
        assert np.allclose(one, two)


def test_bad_batches_are_refused() -> None:
    evaluator = TorchEvaluator(build_net(TTT, SMALL, seed=0), "cpu")
    observations, masks = positions(TTT, 3, 0)
    with pytest.raises(InvalidOptionError, match=r"legal_masks of shape \(3, 8\)"):
        evaluator.evaluate_batch(observations, masks[:, :8])
    empty = masks.copy()
    empty[1] = False
    with pytest.raises(InvalidOptionError, match="position 1 of the batch has no legal move"):
        evaluator.evaluate_batch(observations, empty)
    with pytest.raises(InvalidOptionError, match="needs a PolicyValueNet"):
        TorchEvaluator(object())
