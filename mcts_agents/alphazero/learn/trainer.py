"""Training the network on replay-buffer batches: AlphaZero's loss, Adam or SGD, exact state.

The loss of a batch of positions with policy targets ``pi`` (visit distributions), value
targets ``z`` (final returns from the mover's view) and the network's logits and values ``v``::

    loss = mean((z - v)^2) + mean(-sum(pi * log_softmax(logits over the legal moves)))
           + weight_decay * sum(theta^2 over every parameter)

(AlphaZero's ``l = (z - v)^2 - pi^T log p + c ||theta||^2``, the L2 term written into the loss
rather than left to the optimizer, so that Adam and SGD minimise the same thing). Illegal moves
are masked out of the softmax: the targets put no mass there and the search never asks.

``Trainer(net, config, seed)`` owns the optimizer, the step count and the generator that
samples batches from a ``ReplayBuffer``; ``state_dict``/``load_state_dict`` capture all of
it, so that a trainer saved after ``N`` steps and resumed for ``M`` ends bit for bit where one
that ran ``N + M`` steps does (on the CPU, with the same torch build and thread count).
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import torch

from mcts_agents.alphazero.learn.net import PolicyValueNet
from mcts_agents.alphazero.replay import ReplayBuffer
from mcts_agents.checks import (
    check_choice,
    check_instance,
    check_int,
    check_number,
    check_seed,
    load_json,
)
from mcts_agents.errors import InvalidOptionError

__all__ = ["MAX_BATCH_SIZE", "Losses", "TrainConfig", "Trainer", "loss_terms"]

Optimizer = Literal["adam", "sgd"]
Precision = Literal["float32", "bfloat16"]
#: The most positions of one training step (16 times AlphaZero's 4,096); more is a typo.
MAX_BATCH_SIZE = 1 << 16
#: devices whose autocast runs bfloat16 (``TrainConfig.precision``).
BFLOAT16_DEVICES = ("cpu", "cuda")


@dataclass(frozen=True, slots=True)
class TrainConfig:
    """How the network is trained.

    Attributes:
        batch_size: positions per step, sampled from the replay buffer (at most
            ``MAX_BATCH_SIZE``; ``loop.train`` also refuses a batch whose training would not
            fit in memory, ``net.check_training_memory``).
        learning_rate: the optimizer's step size.
        weight_decay: ``c`` of the L2 term ``c * sum(theta^2)`` in the loss.
        optimizer: ``"adam"`` or ``"sgd"`` (with ``momentum``).
        momentum: SGD's momentum (unused by Adam).
        precision: ``"float32"``, or ``"bfloat16"``: the forward pass of each step runs under
            torch's autocast in bfloat16 (convolutions and matrix products; the weights, the
            optimizer and the loss stay float32). On a 2-core AMD EPYC with AVX-512 BF16,
            Connect Four's steps were 1.5x faster than in float32 (docs/benchmarks.md, run
            30); a CPU without bfloat16 instructions can be slower. CPU and CUDA only.
    """

    batch_size: int = 64
    learning_rate: float = 1e-3
    weight_decay: float = 1e-4
    optimizer: Optimizer = "adam"
    momentum: float = 0.9
    precision: Precision = "float32"

    def __post_init__(self) -> None:
        check_int(self.batch_size, "TrainConfig's batch_size", low=1, high=MAX_BATCH_SIZE)
        check_number(self.learning_rate, "TrainConfig's learning_rate", low=0, low_open=True)
        check_number(self.weight_decay, "TrainConfig's weight_decay", low=0)
        check_number(self.momentum, "TrainConfig's momentum", low=0, high=1, high_open=True)
        check_choice(self.optimizer, "TrainConfig's optimizer", ("adam", "sgd"))
        check_choice(self.precision, "TrainConfig's precision", ("float32", "bfloat16"))

    def to_dict(self) -> dict[str, Any]:
        """The fields as a JSON-ready dict (``TrainConfig(**d)`` rebuilds it)."""
        return dataclasses.asdict(self)


@dataclass(frozen=True, slots=True)
class Losses:
    """One step's loss and its terms (floats): ``total = policy + value + l2``."""

    policy: float
    value: float
    l2: float
    total: float

    def to_dict(self) -> dict[str, float]:
        """The terms as a dict."""
        return dataclasses.asdict(self)


def loss_terms(
    net: PolicyValueNet,
    observations: torch.Tensor,
    masks: torch.Tensor,
    policies: torch.Tensor,
    values: torch.Tensor,
    weight_decay: float,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """``(policy, value, l2)`` loss tensors of one batch (see the module); their sum is the loss.

    ``masks`` are bools ``[B, A]``; ``policies`` ``[B, A]`` and ``values`` ``[B]`` floats.
    """
    logits, predicted = net(observations)
    logits, predicted = logits.float(), predicted.float()  # bfloat16 under autocast
    logits = logits.masked_fill(~masks, float("-inf"))
    log_priors = torch.log_softmax(logits, dim=1).masked_fill(~masks, 0.0)
    policy = -(policies * log_priors).sum(dim=1).mean()
    value = torch.mean((values - predicted) ** 2)
    l2 = weight_decay * torch.stack([(p * p).sum() for p in net.parameters()]).sum()
    return policy, value, l2


class Trainer:
    """The optimizer, step count and sampling generator of one network.

    Attributes:
        net: the network trained (in train mode during each step).
        config: the training options.
        step: steps taken.
        rng: the numpy generator that samples the batches.
    """

    def __init__(
        self, net: PolicyValueNet, config: TrainConfig | None = None, seed: int = 0
    ) -> None:
        if not isinstance(net, PolicyValueNet):
            raise InvalidOptionError(f"Trainer needs a PolicyValueNet, got {net!r}")
        config = TrainConfig() if config is None else config
        check_instance(config, "config", TrainConfig, optional=True)
        check_seed(seed)
        self.net = net
        if config.precision == "bfloat16" and self.device.type not in BFLOAT16_DEVICES:
            raise InvalidOptionError(
                f"precision 'bfloat16' trains under autocast on {' or '.join(BFLOAT16_DEVICES)}; "
                f"the network is on {self.device}"
            )
        self.config = config
        self.step = 0
        self.rng = np.random.default_rng(seed)
        self.optimizer: torch.optim.Optimizer
        if config.optimizer == "adam":
            self.optimizer = torch.optim.Adam(net.parameters(), lr=config.learning_rate)
        else:
            self.optimizer = torch.optim.SGD(
                net.parameters(), lr=config.learning_rate, momentum=config.momentum
            )

    @property
    def device(self) -> torch.device:
        """Where the network's parameters are."""
        return next(self.net.parameters()).device

    def train_step(self, buffer: ReplayBuffer) -> Losses:
        """One step on ``config.batch_size`` positions sampled from ``buffer`` by ``rng``."""
        return self.update(*buffer.sample(self.config.batch_size, self.rng))

    def update(
        self,
        observations: np.ndarray,
        masks: np.ndarray,
        policies: np.ndarray,
        values: np.ndarray,
    ) -> Losses:
        """One optimizer step on a batch (``ReplayBuffer.sample``'s arrays); its losses."""
        device = self.device
        batch = (
            torch.from_numpy(np.asarray(observations)).to(device),
            torch.from_numpy(np.asarray(masks, dtype=bool)).to(device),
            torch.from_numpy(np.asarray(policies, dtype=np.float32)).to(device),
            torch.from_numpy(np.asarray(values, dtype=np.float32)).to(device),
        )
        self.net.train()
        bfloat16 = self.config.precision == "bfloat16"
        with torch.autocast(device.type, torch.bfloat16) if bfloat16 else contextlib.nullcontext():
            policy, value, l2 = loss_terms(self.net, *batch, self.config.weight_decay)
        total = policy + value + l2
        self.optimizer.zero_grad(set_to_none=True)
        total.backward()
        self.optimizer.step()
        self.step += 1
        return Losses(*(float(term.detach()) for term in (policy, value, l2, total)))

    def state_dict(self) -> dict[str, Any]:
        """Everything a resumed trainer needs: the network's and the optimizer's state, the step,
        the config and the sampling generator's state (as JSON text)."""
        return {
            "net": self.net.state_dict(),
            "optimizer": self.optimizer.state_dict(),
            "step": self.step,
            "config": json.dumps(self.config.to_dict()),
            "rng": json.dumps(self.rng.bit_generator.state),
        }

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Restore ``state_dict()``'s output into this trainer (same network shape and config).

        Raises:
            InvalidOptionError: a state of another config or missing fields.
        """
        missing = [k for k in ("net", "optimizer", "step", "config", "rng") if k not in state]
        if missing:
            raise InvalidOptionError(f"a trainer state needs {missing}; got {sorted(state)}")
        config = TrainConfig(**_json(state["config"], "config"))
        if config != self.config:
            raise InvalidOptionError(
                f"the trainer state was saved with {config}; this trainer has {self.config}"
            )
        step = check_int(state["step"], "the trainer state's 'step'", low=0)
        rng = _json(state["rng"], "rng")
        generator = np.random.default_rng()
        try:  # a state of another size or kind: refused before anything is changed
            generator.bit_generator.state = rng
        except (TypeError, ValueError, KeyError, OverflowError) as error:
            raise InvalidOptionError(
                f"the trainer state's 'rng' is not a state of numpy's "
                f"{type(generator.bit_generator).__name__} ({type(error).__name__}: {error})"
            ) from None
        self.net.load_state_dict(state["net"])
        self.optimizer.load_state_dict(state["optimizer"])
        self.step = step
        self.rng.bit_generator.state = rng


def _json(text: Any, field: str) -> Any:
    """A trainer state's JSON text field, read with ``checks.load_json``."""
    if not isinstance(text, str):
        raise InvalidOptionError(f"the trainer state's {field!r} should be JSON text, got {text!r}")
    return load_json(text, f"the trainer state's {field!r}")
