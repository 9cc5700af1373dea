"""AlphaZero with torch: the reference network, its evaluator, trainer, checkpoints and the
training loop (the optional extra ``az``: ``pip install ".[az]"``).

Everything else in the library runs without torch; only this package imports it. Modules:

- ``net``: ``PolicyValueNet`` (a small residual tower, a policy and a value head) and
  ``build_net(game, config, seed)`` from a game's ``observation_shape`` and ``num_actions``;
- ``evaluator``: ``TorchEvaluator``, the network as the search's batch evaluator;
- ``trainer``: ``Trainer`` (AlphaZero's loss, Adam or SGD, batches from a ``ReplayBuffer``);
- ``checkpoint``: checkpoints that resume exactly, and bare networks for play;
- ``loop``: ``train(game, out_dir, ...)``: self-play, training and gating, resumable.

The search, self-play, the replay buffer and the gate are framework-agnostic and live in the
core library (``mcts_agents.alphazero.selfplay``, ``replay``, ``gate``).
"""

from __future__ import annotations

from mcts_agents.errors import TorchNotInstalledError

try:
    import torch  # noqa: F401
except ImportError as error:  # pragma: no cover - CI's main job has no torch
    raise TorchNotInstalledError(
        "mcts_agents.alphazero.learn needs torch: pip install '.[az]' "
        "(on a CPU-only machine, "
        "first: pip install torch --index-url https://download.pytorch.org/whl/cpu)"
    ) from error

from mcts_agents.alphazero.learn.checkpoint import (
    BEST_NET,
    Checkpoint,
    Model,
    load_checkpoint,
    load_model,
    load_net,
    save_checkpoint,
    save_net,
)
from mcts_agents.alphazero.learn.evaluator import TorchEvaluator, default_device, resolve_device
from mcts_agents.alphazero.learn.loop import RunConfig, RunSummary, train
from mcts_agents.alphazero.learn.net import NetConfig, PolicyValueNet, build_net
from mcts_agents.alphazero.learn.trainer import Losses, TrainConfig, Trainer, loss_terms

__all__ = [
    "BEST_NET",
    "Checkpoint",
    "Losses",
    "Model",
    "NetConfig",
    "PolicyValueNet",
    "RunConfig",
    "RunSummary",
    "TorchEvaluator",
    "TrainConfig",
    "Trainer",
    "build_net",
    "default_device",
    "load_checkpoint",
    "load_model",
    "load_net",
    "loss_terms",
    "resolve_device",
    "save_checkpoint",
    "save_net",
    "train",
]
