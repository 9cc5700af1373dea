"""Checkpoints: a trainer (network, optimizer, step, config, sampling generator) and torch's
generator, saved so that training resumes exactly; and bare networks, for play.

Files are written with ``torch.save`` to a temporary file renamed over the target (a crash
leaves the old file or the new one, never half of one) and read with ``weights_only=True``
(no code runs at load: configs and generator states are stored as JSON text).

- ``save_checkpoint(path, trainer, extra, game)`` / ``load_checkpoint(path)``: the trainer as
  ``Trainer.state_dict`` has it, the network's shape, torch's CPU generator state and the
  caller's ``extra`` (tensors, strings, numbers, ``None``, dicts and lists of them);
- ``save_net(path, net, game)`` / ``load_net(path)``: a network's shape and weights; ``load_net``
  also reads the network of a checkpoint and the best network of a training run's folder
  (``BEST_NET`` inside it);
- ``load_model(path)``: what ``load_net`` reads, with the game the network was trained for.

Both kinds of file record that game as ``repr(game)`` (``MNK(m=3, n=3, k=3)``: the rules core's
name and parameters) when the writer gives it (``None`` otherwise); a run's folder also names it
in ``run.json``, read for a ``best.pt`` written without one.
"""

from __future__ import annotations

import json
import os
import pickle
import tempfile
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

from mcts_agents.az.net import PolicyValueNet
from mcts_agents.az.trainer import TrainConfig, Trainer
from mcts_agents.errors import CheckpointError, InvalidOptionError

__all__ = [
    "BEST_NET",
    "Checkpoint",
    "Model",
    "load_checkpoint",
    "load_model",
    "load_net",
    "save_checkpoint",
    "save_net",
]

FORMAT = "mcts-agents-az"
VERSION = 1
#: The best network's file in a training run's folder (``mcts_agents.az.loop.train``).
BEST_NET = "best.pt"
#: The run's description in a training run's folder (``mcts_agents.az.loop.RUN_FILE``).
RUN_FILE = "run.json"


@dataclass(slots=True)
class Checkpoint:
    """What ``load_checkpoint`` read.

    Attributes:
        trainer: the restored trainer (its ``net`` is the network, on the CPU).
        torch_rng: torch's CPU generator state at the save (``torch.set_rng_state`` restores
            it; ``load_checkpoint`` leaves the global generator alone).
        extra: the caller's ``extra``, as saved.
    """

    trainer: Trainer
    torch_rng: torch.Tensor
    extra: Any

    @property
    def net(self) -> PolicyValueNet:
        """The trainer's network."""
        return self.trainer.net


def _atomic_save(content: dict[str, Any], path: str | os.PathLike[str]) -> None:
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    descriptor, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.")
    try:
        with os.fdopen(descriptor, "wb") as handle:
            torch.save(content, handle)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def _read(path: str | os.PathLike[str], kind: str) -> dict[str, Any]:
    target = Path(path)
    if not target.is_file():
        raise CheckpointError(f"no {kind} file at {str(target)!r}")
    try:
        content = torch.load(target, map_location="cpu", weights_only=True)
    except (pickle.UnpicklingError, RuntimeError, EOFError, ValueError) as error:
        raise CheckpointError(
            f"{str(target)!r} is not a readable {kind} of mcts_agents.az ({error})"
        ) from None
    if not isinstance(content, dict) or content.get("format") != FORMAT:
        raise CheckpointError(f"{str(target)!r} is not a {kind} of mcts_agents.az")
    if content.get("version") != VERSION:
        raise CheckpointError(
            f"{str(target)!r} has format version {content.get('version')!r}; this library reads "
            f"version {VERSION}"
        )
    return content


def _net_of(spec_text: str, weights: dict[str, torch.Tensor], path: Any) -> PolicyValueNet:
    try:
        net = PolicyValueNet.from_spec(json.loads(spec_text))
        net.load_state_dict(weights)
    except (InvalidOptionError, RuntimeError, json.JSONDecodeError) as error:
        raise CheckpointError(f"the network in {str(path)!r} cannot be rebuilt: {error}") from None
    return net


def _game_text(game: Any) -> str | None:
    return None if game is None else repr(game)


def save_checkpoint(
    path: str | os.PathLike[str], trainer: Trainer, extra: Any = None, game: Any = None
) -> None:
    """Write ``trainer`` (see ``Trainer.state_dict``), torch's CPU generator state, ``extra``
    and ``repr(game)`` (the game trained for; ``None``: not recorded) to ``path``, atomically."""
    if not isinstance(trainer, Trainer):
        raise InvalidOptionError(f"save_checkpoint needs a Trainer, got {trainer!r}")
    content = {
        "format": FORMAT,
        "version": VERSION,
        "kind": "checkpoint",
        "net": json.dumps(trainer.net.spec()),
        "trainer": trainer.state_dict(),
        "torch_rng": torch.get_rng_state(),
        "extra": extra,
        "game": _game_text(game),
    }
    _atomic_save(content, path)


def load_checkpoint(path: str | os.PathLike[str]) -> Checkpoint:
    """Read a checkpoint written by ``save_checkpoint``: the trainer restored on the CPU.

    Raises:
        CheckpointError: no such file, not a checkpoint, or one that cannot be rebuilt.
    """
    content = _read(path, "checkpoint")
    if content.get("kind") != "checkpoint":
        raise CheckpointError(f"{str(path)!r} holds a network, not a training checkpoint")
    state = content["trainer"]
    net = _net_of(content["net"], state["net"], path)
    try:
        trainer = Trainer(net, TrainConfig(**json.loads(state["config"])))
        trainer.load_state_dict(state)
    except (InvalidOptionError, TypeError, KeyError, ValueError) as error:
        raise CheckpointError(f"the trainer in {str(path)!r} cannot be restored: {error}") from None
    return Checkpoint(trainer, content["torch_rng"], content["extra"])


def save_net(path: str | os.PathLike[str], net: PolicyValueNet, game: Any = None) -> None:
    """Write ``net``'s shape and weights and ``repr(game)`` (the game it plays; ``None``: not
    recorded) to ``path``, atomically."""
    if not isinstance(net, PolicyValueNet):
        raise InvalidOptionError(f"save_net needs a PolicyValueNet, got {net!r}")
    weights = {name: tensor.detach().cpu() for name, tensor in net.state_dict().items()}
    content = {
        "format": FORMAT,
        "version": VERSION,
        "kind": "net",
        "net": json.dumps(net.spec()),
        "weights": weights,
        "game": _game_text(game),
    }
    _atomic_save(content, path)


@dataclass(frozen=True, slots=True)
class Model:
    """What ``load_model`` read.

    Attributes:
        net: the network, on the CPU, in eval mode.
        game: ``repr`` of the game it was trained for (``MNK(m=3, n=3, k=3)``), or ``None``
            when the file does not record one.
        path: the file read.
    """

    net: PolicyValueNet
    game: str | None
    path: Path


def load_model(path: str | os.PathLike[str]) -> Model:
    """The network in ``path`` (a file of ``save_net``, a checkpoint's network, or the best
    network of a training run's folder) and the game it was trained for.

    Raises:
        CheckpointError: nothing of the kind at ``path``.
    """
    target = Path(path)
    folder = target if target.is_dir() else None
    if folder is not None:
        target = target / BEST_NET
    content = _read(target, "network")
    if content.get("kind") == "checkpoint":
        net = _net_of(content["net"], content["trainer"]["net"], target)
    else:
        net = _net_of(content["net"], content["weights"], target)
    game = content.get("game")
    if game is None and folder is not None:  # a best.pt written without its game
        with suppress(OSError, ValueError, AttributeError):
            game = json.loads((folder / RUN_FILE).read_text()).get("game")
    return Model(net.eval(), game if isinstance(game, str) else None, target)


def load_net(path: str | os.PathLike[str]) -> PolicyValueNet:
    """The network in ``path``: a file of ``save_net``, a checkpoint's network, or the best
    network of a training run's folder; on the CPU, in eval mode.

    Raises:
        CheckpointError: nothing of the kind at ``path``.
    """
    return load_model(path).net
