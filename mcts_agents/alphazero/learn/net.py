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
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import torch
from torch import nn

from mcts_agents.checks import check_instance, check_int, check_seed
from mcts_agents.errors import InvalidOptionError

__all__ = ["NetConfig", "PolicyValueNet", "build_net"]


def _positive(name: str, value: Any) -> int:
    return int(check_int(value, name, low=1))


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
        _positive("NetConfig's channels", self.channels)
        check_int(self.blocks, "NetConfig's blocks", low=0)
        _positive("NetConfig's value_hidden", self.value_hidden)

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
