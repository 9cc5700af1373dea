"""``TorchEvaluator``: a ``PolicyValueNet`` as the search's batch evaluator.

``evaluate_batch(observations, legal_masks)`` (``mcts_agents.search.evaluators.BatchEvaluator``)
runs the network in eval mode without gradients on its device (CUDA when there is one, else the
CPU), and returns numpy float64 arrays: the softmax of the logits over each position's legal moves
(exactly 0 on the illegal ones, summing to 1) and the value head's output, the mover's value in [-1,
1]. It pickles as the network's shape and weights, so self-play worker processes can be sent one;
they rebuild it on the CPU."""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from mcts_agents.alphazero.learn.net import PolicyValueNet
from mcts_agents.errors import InvalidOptionError
from mcts_agents.search.evaluators import check_batch_inputs

__all__ = ["TorchEvaluator", "default_device", "resolve_device"]

#: The device types a network may be put on.
DEVICE_TYPES = ("cpu", "cuda", "mps")


def default_device() -> torch.device:
    """CUDA when torch sees a GPU, else the CPU."""
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")


def resolve_device(device: Any, option: str = "device") -> torch.device:
    """``device`` (``None``: ``default_device()``) as a ``torch.device`` that this machine has.

    Raises:
        InvalidOptionError: a name torch does not know, a type other than ``DEVICE_TYPES``,
            CUDA (or MPS) where torch cannot use it, or a GPU index past the last GPU; the
            message names ``option`` and the value.
    """
    if device is None:
        return default_device()
    if not isinstance(device, (str, torch.device)):
        raise InvalidOptionError(
            f"{option} must be a torch device name such as 'cpu' or 'cuda', got {device!r}"
        )
    try:
        resolved = torch.device(device)
    except (RuntimeError, ValueError) as error:
        raise InvalidOptionError(f"{option} {str(device)!r}: {error}") from None
    if resolved.type not in DEVICE_TYPES:
        raise InvalidOptionError(
            f"{option} {str(device)!r}: expected one of {', '.join(DEVICE_TYPES)} (with an "
            "index for a GPU: cuda:1)"
        )
    if resolved.type == "cuda":
        if not torch.cuda.is_available():
            why = "torch was built without CUDA" if torch.version.cuda is None else "no GPU found"
            raise InvalidOptionError(
                f"{option} {str(device)!r}: CUDA is not available on this machine ({why}, "
                f"torch {torch.__version__}); use {option} cpu"
            )
        count = torch.cuda.device_count()
        if resolved.index is not None and resolved.index >= count:
            raise InvalidOptionError(
                f"{option} {str(device)!r}: this machine has {count} CUDA device"
                f"{'s' if count != 1 else ''} (cuda:0 to cuda:{count - 1})"
            )
    if resolved.type == "mps" and not torch.backends.mps.is_available():
        raise InvalidOptionError(
            f"{option} {str(device)!r}: MPS (Apple's GPU) is not available on this machine; "
            f"use {option} cpu"
        )
    return resolved


class TorchEvaluator:
    """A batch evaluator over ``net``, which it moves to ``device`` (``None``: CUDA when
    available, else the CPU; a device this machine lacks raises ``InvalidOptionError``).

    Attributes:
        net: the network (evaluated in eval mode; its mode is set at every call, so the same
            network may be trained between calls).
        device: where the network and the batches live.
    """

    def __init__(self, net: PolicyValueNet, device: str | torch.device | None = None) -> None:
        if not isinstance(net, PolicyValueNet):
            raise InvalidOptionError(
                "TorchEvaluator needs a PolicyValueNet (mcts_agents.alphazero.learn.build_net), "
                f"got {net!r}"
            )
        self.device = resolve_device(device)
        self.net = net.to(self.device)
        self.__qualname__ = f"TorchEvaluator({self.device})"

    def evaluate_batch(
        self, observations: np.ndarray, legal_masks: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """Priors ``[B, num_actions]`` (0 on illegal moves, rows summing to 1) and values ``[B]``.

        Raises:
            InvalidOptionError: observations not of the network's shape, masks not ``[B,
                num_actions]``, or a position without a legal move.
        """
        net = self.net
        observations, masks = check_batch_inputs(
            observations, legal_masks, net.observation_shape, net.num_actions, "this network"
        )
        empty = ~masks.any(axis=1)
        if empty.any():
            raise InvalidOptionError(
                f"position {int(np.argmax(empty))} of the batch has no legal move; only positions "
                "where a player is to move can be evaluated"
            )
        net.eval()
        with torch.inference_mode():
            x = torch.from_numpy(observations).to(self.device)
            mask = torch.from_numpy(masks).to(self.device)
            logits, values = net(x)
            logits = logits.float().masked_fill(~mask, float("-inf"))
            priors = torch.softmax(logits, dim=1)
        return (
            priors.cpu().numpy().astype(np.float64),
            values.float().cpu().numpy().astype(np.float64),
        )

    def __getstate__(self) -> dict[str, Any]:
        weights = {name: tensor.cpu() for name, tensor in self.net.state_dict().items()}
        return {"spec": self.net.spec(), "weights": weights}

    def __setstate__(self, state: dict[str, Any]) -> None:
        net = PolicyValueNet.from_spec(state["spec"])
        net.load_state_dict(state["weights"])
        self.device = torch.device("cpu")
        self.net = net
        self.__qualname__ = "TorchEvaluator(cpu)"

    def __repr__(self) -> str:
        return f"TorchEvaluator({type(self.net).__name__}{self.net.spec()}, device={self.device})"
