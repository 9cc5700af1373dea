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
import tempfile
import zipfile
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

from mcts_agents.alphazero.learn.net import PolicyValueNet
from mcts_agents.alphazero.learn.trainer import TrainConfig, Trainer
from mcts_agents.checks import is_int, is_number, load_json, read_json
from mcts_agents.errors import CheckpointError, InvalidOptionError, ModelFileError

__all__ = [
    "BEST_NET",
    "Checkpoint",
    "Model",
    "check_run_counters",
    "check_weights",
    "load_checkpoint",
    "load_model",
    "load_net",
    "save_checkpoint",
    "save_net",
]

FORMAT = "mcts-agents-az"
VERSION = 1
#: The best network's file in a training run's folder (``mcts_agents.alphazero.learn.loop.train``).
BEST_NET = "best.pt"
#: The run's description in a training run's folder (``mcts_agents.alphazero.learn.loop.RUN_FILE``).
RUN_FILE = "run.json"


@dataclass(slots=True)
class Checkpoint:
    """What ``load_checkpoint`` read.

    Attributes:
        trainer: the restored trainer (its ``net`` is the network, on the CPU).
        torch_rng: torch's CPU generator state at the save (``torch.set_rng_state`` restores
            it; ``load_checkpoint`` leaves the global generator alone; checked to be one).
        extra: the caller's ``extra``, as saved.
        game: ``repr`` of the game the checkpoint was written for, or ``None``.
    """

    trainer: Trainer
    torch_rng: torch.Tensor
    extra: Any
    game: str | None = None

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


def _check_archive(target: Path, kind: str) -> None:
    """``ModelFileError`` unless ``target`` is a whole zip archive (``torch.save``'s format)
    whose every member matches its CRC: torch itself reads a member with flipped bytes without
    a word."""
    try:
        with zipfile.ZipFile(target) as archive:
            damaged = archive.testzip()
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, EOFError, ValueError) as error:
        raise ModelFileError(
            f"{str(target)!r} is not a readable {kind} of mcts_agents.alphazero.learn: "
            "not a whole zip "
            f"archive as torch.save writes (truncated, or another kind of file: {error})"
        ) from None
    if damaged is not None:
        raise ModelFileError(
            f"{str(target)!r} is damaged: its member {damaged!r} fails the archive's CRC check "
            "(the file was changed after it was written)"
        )


def _check_finite(content: Any, target: Path, where: str = "") -> None:
    """``ModelFileError`` at the first floating-point tensor of ``content`` (nested dicts and
    lists) that holds a NaN or an infinity."""
    if isinstance(content, torch.Tensor):
        if content.is_floating_point() and not bool(torch.isfinite(content).all()):
            raise ModelFileError(
                f"{str(target)!r} holds a tensor that is not finite (NaN or infinity) at "
                f"{where or 'the top'}"
            )
    elif isinstance(content, dict):
        for key, value in content.items():
            _check_finite(value, target, f"{where}/{key}")
    elif isinstance(content, (list, tuple)):
        for index, value in enumerate(content):
            _check_finite(value, target, f"{where}/{index}")


def _read(path: str | os.PathLike[str], kind: str) -> dict[str, Any]:
    target = Path(path)
    if not target.is_file():
        raise CheckpointError(f"no {kind} file at {str(target)!r}")
    _check_archive(target, kind)
    try:
        content = torch.load(target, map_location="cpu", weights_only=True)
    except Exception as error:  # torch's reader: any failure is a bad file
        raise ModelFileError(
            f"{str(target)!r} is not a readable {kind} of mcts_agents.alphazero.learn "
            f"({type(error).__name__}: {error})"
        ) from None
    if not isinstance(content, dict) or content.get("format") != FORMAT:
        raise ModelFileError(f"{str(target)!r} is not a {kind} of mcts_agents.alphazero.learn")
    if content.get("version") != VERSION:
        raise ModelFileError(
            f"{str(target)!r} has format version {content.get('version')!r}; this library reads "
            f"version {VERSION}"
        )
    _check_finite(content, target)
    return content


def check_weights(weights: Any, net: torch.nn.Module, path: Any, what: str = "network") -> None:
    """``ModelFileError`` unless ``weights`` is a state dict of ``net``'s exact keys, shapes
    and dtypes (``load_state_dict`` converts dtypes silently and builds nothing it lacks)."""
    source = str(path)
    if not isinstance(weights, dict):
        raise ModelFileError(f"the {what} in {source!r} has no weights (got {type(weights)})")
    expected = net.state_dict()
    missing = sorted(set(expected) - set(weights))
    unexpected = sorted(str(k) for k in set(weights) - set(expected))
    if missing or unexpected:
        raise ModelFileError(
            f"the {what} in {source!r} does not match its shape: missing weights {missing}, "
            f"unexpected {unexpected}"
        )
    for name, tensor in expected.items():
        given = weights[name]
        if not isinstance(given, torch.Tensor):
            raise ModelFileError(f"the {what}'s weight {name!r} in {source!r} is not a tensor")
        if given.shape != tensor.shape or given.dtype != tensor.dtype:
            raise ModelFileError(
                f"the {what}'s weight {name!r} in {source!r} is {given.dtype} "
                f"{tuple(given.shape)}; the network needs {tensor.dtype} {tuple(tensor.shape)}"
            )


def _net_of(spec_text: Any, weights: Any, path: Any) -> PolicyValueNet:
    try:
        if not isinstance(spec_text, str):
            raise InvalidOptionError(f"its 'net' should be JSON text, got {spec_text!r}")
        spec = load_json(spec_text, "its 'net'")
        with torch.device("meta"):  # the spec's shapes, without allocating what it claims
            shaped = PolicyValueNet.from_spec(spec)
        check_weights(weights, shaped, path)
        net = PolicyValueNet.from_spec(spec)
        net.load_state_dict(weights)
    except (InvalidOptionError, RuntimeError, TypeError, ValueError) as error:
        if isinstance(error, ModelFileError):
            raise
        raise ModelFileError(f"the network in {str(path)!r} cannot be rebuilt: {error}") from None
    return net


def _field(content: dict[str, Any], key: str, kind: type, path: Any) -> Any:
    """``content[key]``, which must be a ``kind``; else ``ModelFileError``."""
    value = content.get(key)
    if not isinstance(value, kind):
        raise ModelFileError(
            f"{str(path)!r} is damaged: its {key!r} is {type(value).__name__}, not {kind.__name__}"
        )
    return value


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
        CheckpointError: no such file, or a network's file instead of a checkpoint.
        ModelFileError: not a checkpoint, or a damaged one (see ``load_model``).
    """
    content = _read(path, "checkpoint")
    if content.get("kind") != "checkpoint":
        raise CheckpointError(f"{str(path)!r} holds a network, not a training checkpoint")
    state = _field(content, "trainer", dict, path)
    net = _net_of(content.get("net"), state.get("net"), path)
    torch_rng = _field(content, "torch_rng", torch.Tensor, path)
    current = torch.get_rng_state()
    if torch_rng.dtype != current.dtype or torch_rng.shape != current.shape:
        raise ModelFileError(
            f"{str(path)!r} is damaged: its 'torch_rng' is {torch_rng.dtype} "
            f"{tuple(torch_rng.shape)}, not torch's CPU generator state ({current.dtype} "
            f"{tuple(current.shape)})"
        )
    game = content.get("game")
    if game is not None and not isinstance(game, str):
        raise ModelFileError(f"{str(path)!r} is damaged: its 'game' is {game!r}, not a name")
    try:
        trainer = Trainer(net, TrainConfig(**_trainer_config(state)))
        trainer.load_state_dict(state)
    except (InvalidOptionError, TypeError, KeyError, ValueError, RuntimeError) as error:
        raise ModelFileError(f"the trainer in {str(path)!r} cannot be restored: {error}") from None
    return Checkpoint(trainer, torch_rng, content.get("extra"), game)


def _trainer_config(state: dict[str, Any]) -> Any:
    text = state.get("config")
    if not isinstance(text, str):
        raise InvalidOptionError(f"its 'config' should be JSON text, got {text!r}")
    return load_json(text, "its 'config'")


#: The most iterations a run's checkpoint may count (a billion: decades of training).
MAX_ITERATIONS = 10**9


def check_run_counters(extra: Any, step: int, steps_per_iteration: int, path: Any) -> None:
    """``ModelFileError`` naming the field unless a training run's checkpoint counters
    (``extra``: ``iteration``, ``promotions``, ``seconds``) can be a run's: every iteration
    trains at least one step and at most ``steps_per_iteration`` (so ``iteration <= step <=
    iteration * steps_per_iteration``), at most ``MAX_ITERATIONS``; ``0 <= promotions <=
    iteration``; ``seconds`` finite and >= 0."""
    source = str(path)

    def refuse(message: str) -> ModelFileError:
        return ModelFileError(f"{source!r} is not a checkpoint of this run: {message}")

    if not isinstance(extra, dict):
        raise refuse(f"its 'extra' should be a dict of the run's counters, got {type(extra)}")
    missing = [
        k for k in ("iteration", "promotions", "seconds", "best", "buffer") if k not in extra
    ]
    if missing:
        raise refuse(f"its 'extra' lacks {missing}")
    iteration, promotions, seconds = extra["iteration"], extra["promotions"], extra["seconds"]
    if not is_int(iteration) or not 0 <= iteration <= min(step, MAX_ITERATIONS):
        raise refuse(
            f"'iteration' should be an int in [0, {min(step, MAX_ITERATIONS)}] (each iteration "
            f"trains at least one of the {step} steps), got {iteration!r}"
        )
    if step > iteration * steps_per_iteration:
        raise refuse(
            f"'step' {step} is more than {iteration} iterations of {steps_per_iteration} steps"
        )
    if not is_int(promotions) or not 0 <= promotions <= iteration:
        raise refuse(f"'promotions' should be an int in [0, {iteration}], got {promotions!r}")
    if not is_number(seconds) or seconds < 0:
        raise refuse(f"'seconds' should be a finite number >= 0, got {seconds!r}")


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

    The file must be a whole zip archive whose members match their CRCs, read with
    ``torch.load(weights_only=True)`` (no code runs), with this library's format and version,
    weights of exactly the keys, shapes and dtypes its network spec needs, and only finite
    floating-point tensors. A model file is code all the same: load only files you trust.

    Raises:
        CheckpointError: no file at ``path``.
        ModelFileError: a file that is not a model of ours, or a damaged one (the message
            names the file and what is wrong).
    """
    target = Path(path)
    folder = target if target.is_dir() else None
    if folder is not None:
        target = target / BEST_NET
    content = _read(target, "network")
    if content.get("kind") == "checkpoint":
        weights = _field(content, "trainer", dict, target).get("net")
    else:
        weights = content.get("weights")
    net = _net_of(content.get("net"), weights, target)
    game = content.get("game")
    if game is None and folder is not None:  # a best.pt written without its game
        with suppress(ValueError, AttributeError):
            game = read_json(folder / RUN_FILE, error=CheckpointError).get("game")
    return Model(net.eval(), game if isinstance(game, str) else None, target)


def load_net(path: str | os.PathLike[str]) -> PolicyValueNet:
    """The network in ``path``: a file of ``save_net``, a checkpoint's network, or the best
    network of a training run's folder; on the CPU, in eval mode.

    Raises:
        CheckpointError: nothing of the kind at ``path``.
    """
    return load_model(path).net
