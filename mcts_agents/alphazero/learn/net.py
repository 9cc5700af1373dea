"""The reference policy/value network: a small residual tower over a game's observation planes.

``build_net(game, config, seed)`` sizes a ``PolicyValueNet`` from the game's
``observation_shape`` (``(H, W, C)``: C planes of an H x W board, channels last, as this
library's games observe) and ``num_actions``:

- a stem (3x3 convolution to ``config.channels``, batch norm, ReLU) and ``config.blocks``
  residual blocks (two 3x3 convolutions with batch norm, the input added back before the last
  ReLU), the shape of AlphaZero's tower, only much smaller;
- a policy head (1x1 convolution to 2 planes, batch norm, ReLU, a linear layer to
  ``num_actions`` logits);
- a value head (1x1 convolution to 1 plane, batch norm, ReLU, a hidden layer of
  ``config.value_hidden`` units, one output through tanh: the mover's value in [-1, 1]).

``forward(observations)`` takes ``[B, H, W, C]`` (any numeric dtype; the planes are cast to
float) and returns ``(logits [B, num_actions], values [B])``; the logits are not masked (the
evaluator and the loss mask illegal moves).
"""

from __future__ import annotations

import dataclasses
import math
import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import torch
from torch import nn

from mcts_agents.checks import check_instance, check_int, check_seed
from mcts_agents.errors import InvalidOptionError

__all__ = [
    "MAX_BLOCKS",
    "MAX_CHANNELS",
    "MEMORY_SHARE",
    "NetConfig",
    "PolicyValueNet",
    "build_net",
    "check_training_memory",
    "parameter_count",
    "training_bytes",
]

#: The most channels (and value head units) and residual blocks of a network: ten times
#: AlphaZero's 256 channels and six times its 40 blocks; more is a typo, not a plan.
MAX_CHANNELS = 4096
MAX_BLOCKS = 256
#: The share of this machine's physical memory (or of the GPU's) that training may need.
MEMORY_SHARE = 0.5
_FLOAT = 4  # bytes of a float32


def _positive(name: str, value: Any, high: int | None = None) -> int:
    return int(check_int(value, name, low=1, high=high))


@dataclass(frozen=True, slots=True)
class NetConfig:
    """The tower's size.

    Attributes:
        channels: filters of every convolution of the tower.
        blocks: residual blocks after the stem (0: the stem alone).
        value_hidden: units of the value head's hidden layer.
    """

    channels: int = 32
    blocks: int = 2
    value_hidden: int = 32

    def __post_init__(self) -> None:
        _positive("NetConfig's channels", self.channels, MAX_CHANNELS)
        check_int(self.blocks, "NetConfig's blocks", low=0, high=MAX_BLOCKS)
        _positive("NetConfig's value_hidden", self.value_hidden, MAX_CHANNELS)

    def to_dict(self) -> dict[str, int]:
        """The fields as a JSON-ready dict (``NetConfig(**d)`` rebuilds it)."""
        return dataclasses.asdict(self)


def _conv(inputs: int, outputs: int, size: int) -> nn.Sequential:
    """A convolution (no bias: batch norm follows) and its batch norm."""
    return nn.Sequential(
        nn.Conv2d(inputs, outputs, size, padding=size // 2, bias=False), nn.BatchNorm2d(outputs)
    )


class _Residual(nn.Module):
    """Two 3x3 convolutions with batch norm; the input is added back before the last ReLU."""

    def __init__(self, channels: int) -> None:
        super().__init__()
        self.first = _conv(channels, channels, 3)
        self.second = _conv(channels, channels, 3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(x + self.second(torch.relu(self.first(x))))


class PolicyValueNet(nn.Module):
    """AlphaZero's two-headed network for one game's shapes (see the module).

    Attributes:
        observation_shape: ``(H, W, C)``, what ``forward`` takes per position.
        num_actions: the policy head's outputs.
        config: the tower's size.
    """

    def __init__(
        self, observation_shape: Sequence[int], num_actions: int, config: NetConfig
    ) -> None:
        super().__init__()
        shape = tuple(observation_shape)
        if len(shape) != 3 or not all(isinstance(d, int) and d >= 1 for d in shape):
            raise InvalidOptionError(
                f"the network needs observations of shape (H, W, C) (planes of a board, "
                f"channels last), got {observation_shape!r}"
            )
        _positive("num_actions", num_actions)
        check_instance(config, "config", NetConfig)
        check_training_memory(shape, num_actions, config, 0)  # before any layer is allocated
        height, width, planes = shape
        self.observation_shape: tuple[int, int, int] = (height, width, planes)
        self.num_actions = num_actions
        self.config = config
        channels, cells = config.channels, height * width
        self.stem = _conv(planes, channels, 3)
        self.tower = nn.Sequential(*(_Residual(channels) for _ in range(config.blocks)))
        self.policy_conv = _conv(channels, 2, 1)
        self.policy = nn.Linear(2 * cells, num_actions)
        self.value_conv = _conv(channels, 1, 1)
        self.value_hidden = nn.Linear(cells, config.value_hidden)
        self.value = nn.Linear(config.value_hidden, 1)

    def forward(self, observations: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """``(logits [B, num_actions], values [B] in [-1, 1])`` of ``observations [B, H, W, C]``."""
        x = observations.float().permute(0, 3, 1, 2)  # channels first, as Conv2d wants
        x = self.tower(torch.relu(self.stem(x)))
        logits = self.policy(torch.relu(self.policy_conv(x)).flatten(1))
        hidden = torch.relu(self.value_hidden(torch.relu(self.value_conv(x)).flatten(1)))
        return logits, torch.tanh(self.value(hidden)).squeeze(1)

    def spec(self) -> dict[str, Any]:
        """What rebuilds this network's shape (JSON-ready): ``PolicyValueNet.from_spec``."""
        return {
            "observation_shape": list(self.observation_shape),
            "num_actions": self.num_actions,
            "config": self.config.to_dict(),
        }

    @classmethod
    def from_spec(cls, spec: dict[str, Any]) -> PolicyValueNet:
        """A fresh network of the shape ``spec()`` described (weights not restored)."""
        try:
            shape = tuple(spec["observation_shape"])
            return cls(shape, spec["num_actions"], NetConfig(**spec["config"]))
        except (KeyError, TypeError) as error:
            raise InvalidOptionError(
                f"a network spec needs observation_shape, num_actions and config (NetConfig's "
                f"fields), got {spec!r} ({error})"
            ) from None


def parameter_count(observation_shape: Sequence[int], num_actions: int, config: NetConfig) -> int:
    """The parameters (and batch norm statistics) of ``PolicyValueNet(observation_shape,
    num_actions, config)``, counted from its layers' shapes without building it."""
    height, width, planes = observation_shape
    cells, channels, hidden = height * width, config.channels, config.value_hidden
    stem = 9 * planes * channels + 4 * channels
    block = 2 * (9 * channels * channels + 4 * channels)
    policy = 2 * channels + 8 + 2 * cells * num_actions + num_actions
    value = channels + 4 + cells * hidden + hidden + hidden + 1
    return stem + config.blocks * block + policy + value


def training_bytes(
    observation_shape: Sequence[int], num_actions: int, config: NetConfig, batch_size: int
) -> tuple[int, int]:
    """``(network, batch)``: about the bytes that training the network takes: its weights,
    gradients, Adam's two moments and the best network's copy (five float32 copies), and a
    batch of ``batch_size`` positions (the sampled arrays, and each layer's activations kept
    for the backward pass, twice for their gradients)."""
    height, width, planes = observation_shape
    cells, channels = height * width, config.channels
    network = 5 * _FLOAT * parameter_count(observation_shape, num_actions, config)
    activations = cells * (planes + channels * (3 + 7 * config.blocks) + 9)
    activations += 2 * num_actions + config.value_hidden
    arrays = cells * planes + 2 * num_actions + 1
    return network, batch_size * _FLOAT * (2 * activations + arrays)


def _memory(device: Any) -> tuple[int, str] | None:
    """The bytes training may use (``MEMORY_SHARE`` of the memory it runs in) and what that
    memory is; ``None`` where it cannot be known."""
    if device is not None and torch.device(device).type == "cuda":
        total = torch.cuda.get_device_properties(torch.device(device)).total_memory
        return int(MEMORY_SHARE * total), f"the GPU's {total / 2**30:.1f} GiB"
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):
        return None
    return int(MEMORY_SHARE * total), f"this machine's {total / 2**30:.1f} GiB"


def check_training_memory(
    observation_shape: Sequence[int],
    num_actions: int,
    config: NetConfig,
    batch_size: int,
    *,
    names: tuple[str, str] = ("NetConfig's channels and blocks", "TrainConfig's batch_size"),
    device: Any = None,
) -> None:
    """Refuse, before anything is allocated, a network (and a batch of ``batch_size``
    positions; 0: the network alone) whose training needs more than ``MEMORY_SHARE`` of the
    memory it would run in (``training_bytes``; ``device`` a CUDA device: the GPU's).

    Raises:
        InvalidOptionError: naming ``names[0]`` (the network's size) when the network alone
            is too big, else ``names[1]`` (the batch size), with the estimate and the bound.
    """
    found = _memory(device)
    if found is None:
        return
    limit, memory = found
    network, batch = training_bytes(observation_shape, num_actions, config, batch_size)
    if network + batch <= limit:
        return
    count = parameter_count(observation_shape, num_actions, config)
    what = f"{names[0]} ({config.channels} and {config.blocks})" if network > limit else (
        f"{names[1]} ({batch_size})"
    )  # fmt: skip
    raise InvalidOptionError(
        f"{what}: too large for the memory: a network of {config.channels} channels and "
        f"{config.blocks} blocks ({count:,} parameters) for {tuple(observation_shape)} boards"
        + (f", trained on batches of {batch_size} positions," if batch_size else "")
        + f" needs about {math.ceil((network + batch) / 2**30)} GiB, more than "
        f"{MEMORY_SHARE:.0%} of {memory}"
    )


def build_net(
    game: Any, config: NetConfig | None = None, seed: int | None = None
) -> PolicyValueNet:
    """A network for ``game``'s ``observation_shape`` and ``num_actions``.

    Args:
        game: a rules core whose observations are ``(H, W, C)`` planes.
        config: the tower's size (``None``: ``NetConfig()``).
        seed: seeds the initial weights (drawn without touching torch's global generator);
            ``None``: torch's global generator.

    Raises:
        InvalidOptionError: a game without board planes, a bad config or seed.
    """
    shape = getattr(game, "observation_shape", None)
    actions = getattr(game, "num_actions", None)
    if shape is None or actions is None:
        raise InvalidOptionError(
            f"the network needs a game with observation_shape and num_actions; {game!r} lacks them"
        )
    config = NetConfig() if config is None else config
    if seed is None:
        return PolicyValueNet(tuple(shape), actions, config)
    check_seed(seed, optional=True)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        return PolicyValueNet(tuple(shape), actions, config)
