"""``SB3Evaluator``: a trained Stable-Baselines3 / sb3-contrib policy as the search's batch
evaluator, so that an RL agent trained against MCTS (``SingleAgentVsOpponent``) can guide a
PUCT search (``PUCTAgent``, or ``SearchConfig(selection="puct", evaluator=...)``).

Observations: the search shows an evaluator ``game.observation(state, mover)``, the planes of
the player to move. ``SingleAgentVsOpponent`` gives its learner ``env.observe(seat)
["observation"]`` at the learner's turns, and this library's envs observe exactly
``game.observation(state, player)`` of that seat's player (``BoardGameEnv.observe``): the same
planes, from the same (the mover's) view, with the same legal mask. So a policy trained on the
RL wrapper over our envs takes the search's observations as they are. (Someone else's env may
observe other planes than the rules core our adapter reads it into; such a policy needs an
evaluator of its own.) Train with ``learner="random"`` so that the policy sees both seats'
positions.

Priors: the policy's action probabilities, masked (sb3-contrib's maskable policies get the
legal mask; a plain policy's mass on illegal moves is dropped and the rest renormalised).

Values: our values are the mover's expected return in [-1, 1]; the value head estimates the
learner's discounted return in reward units. With this library's board games a win pays 1, a
loss -1 and a draw 0, so the estimates are already on our scale (discounting only shrinks
them); ``value_scale`` divides them for games that pay more (chips, points), and the result is
clipped to [-1, 1]. Policies trained briefly have poor value heads: the priors then carry the
search.

Stable-Baselines3 and torch are imported only when a model is loaded or evaluated.

``load_sb3`` reads a model file without unpickling anything in it (SB3 stores spaces, the
policy class and schedules pickled; they are rebuilt from the file's readable fields and given
to SB3 as its ``custom_objects``).
"""

from __future__ import annotations

import contextlib
import inspect
import io
import json
import math
import os
import re
import zipfile
from typing import Any

import numpy as np

from mcts_agents.checks import check_number
from mcts_agents.errors import (
    InvalidOptionError,
    ModelFileError,
    OptionTypeError,
    TorchNotInstalledError,
)
from mcts_agents.search.evaluators import check_batch_inputs

__all__ = ["SB3Evaluator", "load_sb3"]

RL_HINT = 'pip install ".[rl]" (sb3-contrib, which brings Stable-Baselines3 and torch)'


class SB3Evaluator:
    """A Stable-Baselines3 actor-critic policy as a ``BatchEvaluator`` (see the module).

    Args:
        model: a trained model (``MaskablePPO``, ``PPO``, ``A2C``: anything whose ``policy``
            has ``get_distribution`` and ``predict_values``) or such a policy itself, with a
            ``Discrete`` action space.
        value_scale: the games' largest return; value estimates are divided by it, then clipped
            to [-1, 1] (1 for games that pay +-1).

    Attributes:
        observation_shape: the policy's observation shape.
        num_actions: its number of actions.
    """

    def __init__(self, model: Any, value_scale: float = 1.0) -> None:
        policy = getattr(model, "policy", model)
        for method in ("get_distribution", "predict_values", "obs_to_tensor"):
            if not callable(getattr(policy, method, None)):
                raise OptionTypeError(
                    f"SB3Evaluator needs a Stable-Baselines3 actor-critic model or policy (with "
                    f"policy.{method}); got {type(model).__name__}"
                )
        actions = getattr(getattr(policy, "action_space", None), "n", None)
        if actions is None:
            raise InvalidOptionError(
                f"SB3Evaluator needs a Discrete action space; the policy has "
                f"{getattr(policy, 'action_space', None)}"
            )
        check_number(
            value_scale, "value_scale", low=0, low_open=True, note="the games' largest return"
        )
        self.model = model
        self.policy = policy
        self.value_scale = float(value_scale)
        self.observation_shape: tuple[int, ...] = tuple(policy.observation_space.shape)
        self.num_actions = int(actions)
        try:
            parameters = inspect.signature(policy.get_distribution).parameters
        except (TypeError, ValueError):  # pragma: no cover - SB3's methods have signatures
            parameters = {}  # type: ignore[assignment]
        self.masked = "action_masks" in parameters
        self._categorical = _is_categorical(policy, self.masked)
        self.__qualname__ = f"SB3Evaluator({type(model).__name__})"

    def evaluate_batch(
        self, observations: np.ndarray, legal_masks: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """Priors ``[B, num_actions]`` (0 on illegal moves) and values ``[B]`` in [-1, 1].

        Raises:
            InvalidOptionError: observations not of the policy's shape, or masks not ``[B,
                num_actions]``.
        """
        import torch

        tensor, masks = self._inputs(observations, legal_masks)
        with torch.no_grad():
            probabilities = self._probabilities(tensor, masks)
            values = self.policy.predict_values(tensor).reshape(-1)
        scaled = values.cpu().numpy().astype(np.float64) / self.value_scale
        return _priors(probabilities, masks), np.clip(scaled, -1.0, 1.0)

    def evaluate_priors(self, observations: np.ndarray, legal_masks: np.ndarray) -> np.ndarray:
        """``evaluate_batch``'s priors alone (the value head is not run): what a player of the
        raw policy (``PriorAgent``) needs. Same checks and errors as ``evaluate_batch``."""
        import torch

        tensor, masks = self._inputs(observations, legal_masks)
        with torch.no_grad():
            return _priors(self._probabilities(tensor, masks), masks)

    def _inputs(self, observations: np.ndarray, legal_masks: np.ndarray) -> tuple[Any, Any]:
        """The checked observations as the policy's tensor, and the masks."""
        observations, masks = check_batch_inputs(
            observations, legal_masks, self.observation_shape, self.num_actions, "this policy"
        )
        policy = self.policy
        if getattr(policy, "training", True):  # eval mode: once, unless someone trains it
            policy.set_training_mode(False)
        tensor, _ = policy.obs_to_tensor(observations)
        return tensor, masks

    def _probabilities(self, tensor: Any, masks: np.ndarray) -> Any:
        """The policy's action probabilities, masked: those of its ``get_distribution``, bit
        for bit, computed as its categorical distribution computes them (logits normalised,
        illegal ones set to -1e8, normalised again, softmax) without building the
        distribution objects (their checks cost more than the network on small batches);
        other distributions through ``get_distribution``."""
        import torch

        policy = self.policy
        if not self._categorical:
            if self.masked:
                distribution = policy.get_distribution(tensor, action_masks=masks)
            else:
                distribution = policy.get_distribution(tensor)
            return distribution.distribution.probs
        features = policy.extract_features(tensor, policy.pi_features_extractor)
        latent = policy.mlp_extractor.forward_actor(features)
        logits = policy.action_net(latent).view(-1, self.num_actions)
        logits = logits - logits.logsumexp(dim=-1, keepdim=True)
        if self.masked:
            allowed = torch.as_tensor(masks, dtype=torch.bool, device=logits.device)
            huge = torch.tensor(-1e8, dtype=logits.dtype, device=logits.device)
            logits = torch.where(allowed.reshape(logits.shape), logits, huge)
            logits = logits - logits.logsumexp(dim=-1, keepdim=True)
        return torch.softmax(logits, dim=-1)

    def __repr__(self) -> str:
        return (
            f"SB3Evaluator({type(self.model).__name__}, observations {self.observation_shape}, "
            f"{self.num_actions} actions, value_scale={self.value_scale})"
        )


def _priors(probabilities: Any, masks: np.ndarray) -> np.ndarray:
    """Probabilities (a tensor) as priors: float64, 0 on illegal moves, renormalised."""
    priors = np.where(masks, probabilities.cpu().numpy().astype(np.float64), 0.0)
    mass = priors.sum(axis=1, keepdims=True)
    return np.divide(priors, mass, out=np.zeros_like(priors), where=mass > 0)


def _is_categorical(policy: Any, masked: bool) -> bool:
    """Whether ``policy`` is one of SB3's actor-critic policies over a categorical distribution
    (sb3-contrib's ``MaskableCategoricalDistribution`` for a masked one, SB3's
    ``CategoricalDistribution`` otherwise), whose probabilities ``_probabilities`` computes."""
    expected = "MaskableCategoricalDistribution" if masked else "CategoricalDistribution"
    if type(getattr(policy, "action_dist", None)).__name__ != expected:
        return False
    extractor = getattr(policy, "mlp_extractor", None)
    return (
        callable(getattr(policy, "extract_features", None))
        and callable(getattr(policy, "action_net", None))
        and callable(getattr(extractor, "forward_actor", None))
        and hasattr(policy, "pi_features_extractor")
    )


#: sb3-contrib's maskable policy classes a model file may name (read from its ``data``).
POLICY_CLASSES = (
    "MaskableActorCriticPolicy",
    "MaskableActorCriticCnnPolicy",
    "MaskableMultiInputActorCriticPolicy",
)
#: Training state SB3 saves (pickled when it is set: arrays, deques); prediction needs none.
TRAINING_STATE = (
    "_last_obs",
    "_last_episode_starts",
    "_last_original_obs",
    "ep_info_buffer",
    "ep_success_buffer",
    "action_noise",
)
#: Training schedules SB3 pickles; prediction never calls them, so they are given as constants.
SCHEDULES = ("learning_rate", "lr_schedule", "clip_range", "clip_range_vf")


def _bad(path: Any, what: str) -> ModelFileError:
    return ModelFileError(f"{str(path)!r} is not a MaskablePPO model we can read safely: {what}")


def _stored(path: Any) -> dict[str, Any]:
    """The model's ``data`` (JSON, read here), after the archive's CRCs are checked."""
    try:
        with zipfile.ZipFile(path) as archive:
            damaged = archive.testzip()
            if damaged is not None:
                raise ModelFileError(
                    f"{str(path)!r} is damaged: its member {damaged!r} fails the archive's CRC "
                    "check (the file was changed after it was written)"
                )
            data = json.loads(archive.read("data"))
    except RecursionError:  # a data member nested deeper than Python's stack
        raise _bad(path, "its data nests deeper than a model's") from None
    except (zipfile.BadZipFile, OSError, EOFError, KeyError, ValueError) as error:
        if isinstance(error, ModelFileError):
            raise
        raise _bad(path, f"not a whole model archive of model.save ({error})") from None
    if not isinstance(data, dict):
        raise _bad(path, "its data is not a JSON object")
    return data


def _weight_sizes(path: Any) -> tuple[int, int, int | None]:
    """``(numbers, widest, actions)`` of the policy's weights in the file (``policy.pth``, read
    with ``torch.load(weights_only=True)``; its CRC already checked): how many numbers they
    hold, their largest dimension, and the rows of ``action_net.weight`` (None without it)."""
    import torch

    try:
        with zipfile.ZipFile(path) as archive:
            content = archive.read("policy.pth")
        weights = torch.load(io.BytesIO(content), map_location="cpu", weights_only=True)
    except Exception as error:  # torch's reader: any failure is a bad file
        raise _bad(path, f"its weights (policy.pth) cannot be read: {error}") from None
    if not isinstance(weights, dict) or not all(
        isinstance(tensor, torch.Tensor) for tensor in weights.values()
    ):
        raise _bad(path, "its policy.pth holds no weights")
    numbers = sum(tensor.numel() for tensor in weights.values())
    widest = max((int(n) for tensor in weights.values() for n in tensor.shape), default=0)
    action = weights.get("action_net.weight")
    actions = int(action.shape[0]) if action is not None and action.dim() == 2 else None
    return numbers, widest, actions


def _check_sizes(data: dict[str, Any], path: Any) -> None:
    """``ModelFileError`` for a size in the file's data that its weights do not have, before
    anything of that size is made: the observation space's ``_shape`` (positive, no more
    inputs than the weights hold numbers; each input has a weight in an MLP or a CNN), its
    ``dtype`` (bool, integer or float), the action space's ``n`` (the rows of ``action_net``),
    and the layer widths of ``policy_kwargs`` (no wider than the weights' widest tensor)."""
    numbers, widest, actions = _weight_sizes(path)
    observation = _readable(data, "observation_space", path)
    shape = observation.get("_shape")
    sizes = [_count(n) for n in shape] if isinstance(shape, list) else [None]
    positive = [n for n in sizes if n is not None and n >= 1]
    if len(positive) != len(sizes) or math.prod(positive) > numbers:
        raise _bad(
            path,
            f"its observation space's _shape {shape!r} is not a list of positive sizes of at "
            f"most {numbers} inputs in all (its weights hold {numbers} numbers)",
        )
    dtype = observation.get("dtype")
    try:
        kind = np.dtype(dtype).kind if isinstance(dtype, str) else ""
    except TypeError:
        kind = ""
    if kind not in ("b", "i", "u", "f"):
        raise _bad(path, f"its observation space's dtype {dtype!r} is not a bool, int or float")
    n = _readable(data, "action_space", path).get("n")
    count = _count(n)
    expected = "at least 1" if actions is None else f"its action_net's {actions}"
    if count is None or not 1 <= count <= numbers or actions not in (None, count):
        raise _bad(path, f"its action space has {n} actions; expected {expected}")
    kwargs = data.get("policy_kwargs")
    if isinstance(kwargs, dict):
        for key in ("net_arch", "features_extractor_kwargs"):
            wide = [w for w in _integers(kwargs.get(key)) if w > widest]
            if wide:
                raise _bad(
                    path,
                    f"its policy_kwargs {key} names {wide[0]} units; its weights are at most "
                    f"{widest} wide",
                )


def _count(value: Any) -> int | None:
    """A size in the file's data: an int, or the decimal digits SB3 writes for a numpy int
    (None for anything else)."""
    if type(value) is int:
        return value
    if isinstance(value, str) and re.fullmatch(r"-?[0-9]{1,18}", value):
        return int(value)
    return None


def _integers(item: Any) -> list[int]:
    """Every int (not bool) in ``item``, through lists and dicts."""
    if isinstance(item, dict):
        return [n for value in item.values() for n in _integers(value)]
    if isinstance(item, list):
        return [n for value in item for n in _integers(value)]
    return [item] if type(item) is int else []


def _readable(data: dict[str, Any], key: str, path: Any) -> dict[str, Any]:
    item = data.get(key)
    if not isinstance(item, dict):
        raise _bad(path, f"it has no {key}")
    return item


def _space_type(item: dict[str, Any]) -> str:
    return str(item.get(":type:", "")).rpartition(".")[2].rstrip("'>")


def _bounds(text: Any, dtype: Any, shape: tuple[int, ...], low: bool) -> Any:
    """A Box bound from SB3's text of the array; a summarised one (``...``) is the dtype's
    whole range (it only matters for images: uint8 in [0, 255])."""
    if isinstance(text, str) and "..." not in text:
        with contextlib.suppress(ValueError):
            values = np.array(text.replace("[", " ").replace("]", " ").split(), dtype=float)
            if values.size == int(np.prod(shape)):
                return values.reshape(shape).astype(dtype)
    if np.issubdtype(dtype, np.integer):
        info = np.iinfo(dtype)
        return np.full(shape, info.min if low else info.max, dtype=dtype)
    return np.full(shape, -np.inf if low else np.inf, dtype=dtype)


def _custom_objects(data: dict[str, Any], path: Any) -> dict[str, Any]:
    """What SB3 would unpickle from ``data`` (cloudpickle: code), rebuilt from its readable
    fields instead: the policy class (one of sb3-contrib's), a Box observation space, a
    Discrete action space; schedules as constants, training state as ``None``, small rollout
    sizes (nothing is trained)."""
    import gymnasium
    from sb3_contrib.common.maskable import policies

    objects: dict[str, Any] = {"n_steps": 1, "n_envs": 1, "batch_size": 1}
    policy = _readable(data, "policy_class", path)
    match = re.search(r"<function (\w+)\.__init__", str(policy.get("__init__", "")))
    name = match.group(1) if match else None
    if name not in POLICY_CLASSES:
        raise _bad(path, f"its policy class {name!r} is not one of {', '.join(POLICY_CLASSES)}")
    objects["policy_class"] = getattr(policies, name)
    observation = _readable(data, "observation_space", path)
    action = _readable(data, "action_space", path)
    _check_sizes(data, path)  # before anything of a size the file names is made
    try:
        if _space_type(observation) != "Box" or _space_type(action) != "Discrete":
            raise ValueError(
                f"observations {_space_type(observation)!r} and actions "
                f"{_space_type(action)!r}; expected Box and Discrete"
            )
        shape = tuple(int(n) for n in observation["_shape"])
        dtype = np.dtype(observation["dtype"])
        low = _bounds(observation.get("low"), dtype, shape, True)
        high = _bounds(observation.get("high"), dtype, shape, False)
        objects["observation_space"] = gymnasium.spaces.Box(low, high, shape, dtype)
        objects["action_space"] = gymnasium.spaces.Discrete(
            int(action["n"]), start=int(action.get("start", 0))
        )
    except (KeyError, TypeError, ValueError) as error:
        raise _bad(path, f"its spaces cannot be read ({error})") from None
    for key in SCHEDULES:
        item = data.get(key)
        if isinstance(item, dict) and ":serialized:" in item:
            objects[key] = 0.0  # not used to predict
    if "lr_schedule" in objects:
        objects["learning_rate"] = 0.0
    objects["rollout_buffer_class"] = None  # MaskablePPO's own (nothing is trained)
    objects.update(dict.fromkeys(TRAINING_STATE))
    pickled = sorted(
        key
        for key, item in data.items()
        if isinstance(item, dict) and ":serialized:" in item and key not in objects
    )
    if pickled:
        raise _bad(
            path,
            f"it stores {', '.join(pickled)} as pickled code; if you trust the file, load it with "
            "MaskablePPO.load yourself and give SB3Evaluator the model",
        )
    return objects


def load_sb3(path: str | os.PathLike[str], device: str | None = None) -> SB3Evaluator:
    """An ``SB3Evaluator`` over the sb3-contrib ``MaskablePPO`` model saved at ``path`` (a
    ``.zip`` of ``model.save``), on ``device`` (``None``: SB3's ``"auto"``).

    Nothing in the file is unpickled: the archive's CRCs are checked, and every object that SB3
    stores pickled (with cloudpickle: code) and lets a caller give instead (its
    ``custom_objects``) is rebuilt from the file's readable fields: the policy class (one of
    sb3-contrib's maskable policies), the observation space (a ``Box``) and the action space (a
    ``Discrete``); training schedules are constants, the training state (last observations,
    episode buffers) ``None``, the rollout buffer a single step (nothing is trained). SB3 reads
    the weights with ``torch.load(weights_only=True)``; they must be finite. A file that pickles
    anything else (a custom policy, ``policy_kwargs`` holding classes) is refused: if you trust
    it, load it with ``MaskablePPO.load`` yourself and give ``SB3Evaluator`` the model. A model
    file is code to trust like any other all the same.

    Raises:
        TorchNotInstalledError: sb3-contrib (or torch) is not installed.
        ModelFileError: the file is not a MaskablePPO model, is damaged, or pickles objects
            that cannot be rebuilt safely.
        InvalidOptionError: a ``device`` this machine lacks.
    """
    try:
        from sb3_contrib import MaskablePPO
    except ImportError:
        raise TorchNotInstalledError(
            f"model {str(path)!r} is a Stable-Baselines3 model, which needs sb3-contrib: {RL_HINT}"
        ) from None
    if device is not None:
        from mcts_agents.alphazero.learn.evaluator import resolve_device

        resolve_device(device)  # SB3 itself falls back to the CPU without a word
    objects = _custom_objects(_stored(path), path)
    try:
        model = MaskablePPO.load(
            str(path), device="auto" if device is None else device, custom_objects=objects
        )
    except Exception as error:  # someone else's loader: any failure is a bad file
        raise _bad(path, f"{type(error).__name__}: {error}") from None
    import torch

    for name, tensor in model.policy.state_dict().items():
        if tensor.is_floating_point() and not bool(torch.isfinite(tensor).all()):
            raise _bad(path, f"its weight {name!r} is not finite (NaN or infinity)")
    return SB3Evaluator(model)
