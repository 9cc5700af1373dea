"""Agents that play a trained model: ``PUCTAgent`` searches with it, ``PriorAgent`` plays its
raw policy; ``open_model`` opens a model on disk (the ``az:`` and ``policy:`` agent specs).

A model is any batch evaluator (``mcts_agents.search.evaluators.BatchEvaluator``): a network of
``mcts_agents.alphazero.learn`` through its ``TorchEvaluator``, a Stable-Baselines3 policy through
``mcts_agents.agents.sb3.SB3Evaluator``, or one of your own. Both agents read the live env through
``adapters.game_from_env`` and show the model the rules core's ``observation(state, mover)``
and legal mask, as the search and self-play do.

``ModelInfo`` says what game a model was made for; an agent given one refuses another game
with a ``CheckpointError`` naming both (instead of playing garbage, or failing on a shape deep
in the network).

Nothing here imports torch or Stable-Baselines3; ``open_model`` imports them when it opens a
file that needs them (``TorchNotInstalledError`` naming the ``az`` extra without torch), and
sets torch to one CPU thread (its ``threads``: a search's small batches gain nothing from
more, and torch's spinning threads slow every move on a busy machine).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from mcts_agents.adapters import game_from_env
from mcts_agents.agents.agent import MCTSAgent
from mcts_agents.checks import check_choice, check_instance, check_int, check_number, check_seed
from mcts_agents.errors import CheckpointError, InvalidOptionError, TorchNotInstalledError
from mcts_agents.search.evaluators import check_batch, check_batch_game, is_batch_evaluator
from mcts_agents.search.searcher import Searcher, game_identity

__all__ = [
    "DEFAULT_SIMULATIONS",
    "ModelInfo",
    "PUCTAgent",
    "PriorAgent",
    "open_model",
    "prior_batch",
]

#: ``PUCTAgent``'s simulations per move when it is given no budget.
DEFAULT_SIMULATIONS = 200
#: What a model path may be, for error messages.
MODEL_FORMS = (
    "a training run's folder (mcts-agents train ... --out DIR), a network or checkpoint file "
    "of mcts_agents.alphazero.learn (.pt), or a Stable-Baselines3 MaskablePPO model (.zip)"
)
TORCH_HINT = (
    'pip install ".[az]" (on a CPU-only machine, first: pip install torch '
    "--index-url https://download.pytorch.org/whl/cpu)"
)


@dataclass(frozen=True, slots=True)
class ModelInfo:
    """What game a model was made for (each field ``None`` when unknown, and then not checked).

    Attributes:
        source: where the model came from (a path), for messages.
        game: ``repr`` of the rules core it was trained on (``MNK(m=3, n=3, k=3)``).
        observation_shape: the observations it takes.
        num_actions: the size of its policy.
    """

    source: str
    game: str | None = None
    observation_shape: tuple[int, ...] | None = None
    num_actions: int | None = None

    def check(self, game: Any) -> None:
        """``CheckpointError`` unless the model was made for ``game``."""
        if self.game is not None and repr(game) != self.game:
            raise CheckpointError(
                f"model {self.source!r} was trained for {self.game}, not for {game!r}; give a "
                "model of this game"
            )
        shape = getattr(game, "observation_shape", None)
        if self.observation_shape is not None and (
            shape is None or tuple(shape) != self.observation_shape
        ):
            raise CheckpointError(
                f"model {self.source!r} takes observations of shape {self.observation_shape}; "
                f"{game!r} observes {None if shape is None else tuple(shape)}"
            )
        actions = getattr(game, "num_actions", None)
        if self.num_actions is not None and actions != self.num_actions:
            raise CheckpointError(
                f"model {self.source!r} has {self.num_actions} actions; {game!r} has {actions}"
            )


def open_model(
    path: str | os.PathLike[str], device: str | None = None, threads: int | None = 1
) -> tuple[Any, ModelInfo]:
    """The batch evaluator of the model at ``path`` and what game it was made for.

    ``path``: a training run's folder (its ``best.pt``) or a file of ``mcts_agents.alphazero.learn``
    (``save_net``'s network or a checkpoint), read into a ``TorchEvaluator``; or a
    Stable-Baselines3 ``.zip`` (sb3-contrib's ``MaskablePPO``), read into an ``SB3Evaluator``.
    ``device``: where the network runs (``None``: CUDA when available, else the CPU).
    ``threads``: torch's CPU threads, set for the whole process (``torch.set_num_threads``)
    when the model is opened; ``None`` leaves torch's setting. The default, 1, is what the
    ``az:`` and ``policy:`` specs (``play``, ``arena``, ``serve``) use: a search evaluates
    one small batch at a time, and torch's default (a thread per core, spinning) can make a
    move hundreds of times slower on a busy machine.

    A model file is code to trust like any other: open only files you trust. Files of
    ``mcts_agents.alphazero.learn`` are checked (the archive's CRCs, the weights' keys, shapes and
    dtypes) and read with ``torch.load(weights_only=True)``; a Stable-Baselines3 ``.zip`` is read
    without unpickling the objects SB3 lets a caller give instead (``load_sb3``).

    Raises:
        InvalidOptionError: no such path, a folder that is not a training run, or a device
            this machine lacks (``cuda`` without CUDA).
        TorchNotInstalledError: torch (or sb3-contrib for a ``.zip``) is not installed.
        ModelFileError: a file that is not a model or is damaged (a ``CheckpointError``).
    """
    if not isinstance(path, (str, os.PathLike)) or not str(path).strip():
        raise InvalidOptionError(f"model must be a path ({MODEL_FORMS}), got {path!r}")
    target = Path(path).expanduser()
    if not target.exists():
        raise InvalidOptionError(f"model {str(path)!r} does not exist; expected {MODEL_FORMS}")
    if device is not None and not isinstance(device, str):
        raise InvalidOptionError(
            f"device must be a torch device name such as 'cpu', got {device!r}"
        )
    check_int(threads, "threads", low=1, optional=True)
    if target.is_file() and target.suffix == ".zip":
        from mcts_agents.agents.sb3 import load_sb3

        sb3 = load_sb3(target, device)
        _set_threads(threads)
        return sb3, ModelInfo(str(path), None, sb3.observation_shape, sb3.num_actions)
    if target.is_dir() and not (target / "best.pt").is_file():
        raise InvalidOptionError(
            f"model folder {str(path)!r} holds no best.pt; expected {MODEL_FORMS}"
        )
    try:
        from mcts_agents.alphazero.learn import TorchEvaluator, load_model, resolve_device
    except TorchNotInstalledError:
        raise TorchNotInstalledError(
            f"model {str(path)!r} is a network of mcts_agents.alphazero.learn, "
            f"which needs torch: {TORCH_HINT}"
        ) from None
    resolve_device(device)  # before the file is read
    model = load_model(target)
    evaluator = TorchEvaluator(model.net, device)
    _set_threads(threads)
    net = model.net
    return evaluator, ModelInfo(str(path), model.game, net.observation_shape, net.num_actions)


def _set_threads(threads: int | None) -> None:
    """torch's CPU threads for this process (called once torch is known to be there)."""
    if threads is not None:
        import torch

        torch.set_num_threads(threads)


def _checked(evaluator: Any) -> Any:
    if not is_batch_evaluator(evaluator):
        raise InvalidOptionError(
            f"evaluator must be a batch evaluator (an object with evaluate_batch(observations, "
            f"legal_masks)), got {evaluator!r}"
        )
    return evaluator


def _checked_model(model: Any) -> ModelInfo | None:
    check_instance(model, "model", ModelInfo, optional=True)
    return model


class PUCTAgent(MCTSAgent):
    """AlphaZero's player: the Python search with PUCT, a batch evaluator's priors guiding the
    selection and its values replacing playouts (``MCTSAgent`` with ``selection="puct"`` and
    ``evaluator``), leaves evaluated ``batch_size`` at a time; or with ``search="gumbel"``
    Gumbel search over the same evaluator (``mcts_agents.search.gumbel``; a budget of
    ``simulations``).

    Args:
        evaluator: the model (a batch evaluator).
        simulations: simulations per move (``None`` with no ``time_limit``:
            ``DEFAULT_SIMULATIONS``).
        time_limit: seconds per move.
        seed: the search's seed.
        batch_size: leaves per ``evaluate_batch`` call (``SearchConfig.batch_size``).
        c: PUCT's exploration constant (``mcts_agents.alphazero.learn``'s training default).
        search: ``"puct"`` (default) or ``"gumbel"`` (``SearchConfig.selection``; Gumbel's
            constants as ``gumbel_max_actions=``, ``gumbel_scale=``, ... in ``options``). A
            player's Gumbel search draws no root noise unless asked (``gumbel_scale`` defaults
            to 0 here, where the search's default 1 is self-play's exploration): with the draw,
            the networks that never lose without it lost 23-44 of 200 tic-tac-toe games.
        model: what game the model was made for; another game raises ``CheckpointError`` at
            its first search.
        **options: other ``MCTSAgent`` / ``SearchConfig`` options (``fpu``, ``virtual_loss``,
            ``solver``, ``final_move``, ``reuse``, ``max_nodes``, ...); not ``selection`` or
            ``evaluator``, which this agent sets.
    """

    def __init__(
        self,
        evaluator: Any,
        simulations: int | None = None,
        time_limit: float | None = None,
        seed: int | None = None,
        batch_size: int = 8,
        c: float = 1.5,
        model: ModelInfo | None = None,
        search: str = "puct",
        **options: Any,
    ) -> None:
        taken = sorted({"selection", "evaluator", "iterations"} & set(options))
        if taken:
            raise InvalidOptionError(
                f"PUCTAgent sets {', '.join(taken)} itself (search= for PUCT or Gumbel over "
                "the evaluator, simulations= for the budget)"
            )
        check_choice(search, "search", ("puct", "gumbel"))
        if search == "gumbel":
            options.setdefault("gumbel_scale", 0.0)  # play without self-play's exploration
        if simulations is None and time_limit is None:
            simulations = DEFAULT_SIMULATIONS
        super().__init__(
            iterations=simulations,
            time_limit=time_limit,
            seed=seed,
            selection=search,
            evaluator=_checked(evaluator),
            batch_size=batch_size,
            c=c,
            **options,
        )
        self.model = _checked_model(model)

    def _searcher_for(self, game: Any) -> Searcher:
        if self.model is not None and game_identity(game) != self._identity:
            self.model.check(game)
        return super()._searcher_for(game)

    def __repr__(self) -> str:
        budget = ", ".join(
            f"{name}={value}"
            for name, value in (
                ("simulations", self.budget.iterations),
                ("time_limit", self.budget.time_limit),
            )
            if value is not None
        )
        source = f", model={self.model.source!r}" if self.model is not None else ""
        search = ", search='gumbel'" if self.config.selection == "gumbel" else ""
        return f"PUCTAgent({budget}, seed={self.seed}{search}{source})"


class PriorAgent:
    """A model's raw policy, without search: the legal move of highest prior (the lowest action
    among equals), or with ``temperature > 0`` one drawn with probability proportional to
    ``prior ** (1 / temperature)``.

    Args:
        evaluator: the model (a batch evaluator; its values are not used).
        temperature: 0 (default) for the most probable move, else > 0.
        seed: seeds the draws (``reset(seed=...)`` reseeds).
        model: what game the model was made for; another game raises ``CheckpointError``.
    """

    def __init__(
        self,
        evaluator: Any,
        temperature: float = 0.0,
        seed: int | None = None,
        model: ModelInfo | None = None,
    ) -> None:
        check_number(temperature, "temperature", low=0, note="0: the most probable move")
        check_seed(seed, optional=True)
        self.evaluator = _checked(evaluator)
        self.temperature = float(temperature)
        self.seed = seed
        self.model = _checked_model(model)
        self.rng = np.random.default_rng(seed)
        self._identity: Any = None
        self.last_result = None  # no search: play shows no search summary

    def priors(self, game: Any, state: Any) -> np.ndarray:
        """The model's priors over ``game.num_actions`` at ``state`` (0 on illegal moves, the
        legal ones summing to 1), checked by ``evaluators.check_batch``."""
        return prior_batch([self], [(game, state)])[0]

    def check_game(self, game: Any) -> None:
        """``game`` fits the model (checked once per game: ``check_batch_game``, ``ModelInfo``)."""
        identity = game_identity(game)
        if identity != self._identity:
            check_batch_game(game, self.evaluator)
            if self.model is not None:
                self.model.check(game)
            self._identity = identity

    def act(self, env: Any) -> int:
        """The move for ``env.agent_selection``."""
        game, state = game_from_env(env)
        return self.choose(self.priors(game, state))

    def choose(self, priors: np.ndarray) -> int:
        """The move ``act`` plays from the model's ``priors`` (argmax, or a draw)."""
        if self.temperature == 0.0:
            return int(np.argmax(priors))
        legal = np.flatnonzero(priors > 0.0)
        logits = np.log(priors[legal]) / self.temperature
        weights = np.exp(logits - logits.max())
        return int(legal[self.rng.choice(len(legal), p=weights / weights.sum())])

    def reset(self, seed: int | None = None) -> None:
        """Between games: reseed the draws if ``seed`` is given."""
        if seed is not None:
            self.seed = seed
            self.rng = np.random.default_rng(seed)

    def __repr__(self) -> str:
        source = f", model={self.model.source!r}" if self.model is not None else ""
        return f"PriorAgent(temperature={self.temperature}, seed={self.seed}{source})"


def prior_batch(agents: Sequence[PriorAgent], positions: Sequence[tuple[Any, Any]]) -> list[Any]:
    """The priors of ``agents[i]`` at ``positions[i]`` (``(game, state)``), as ``priors`` gives
    them, in one ``evaluate_batch`` call: the agents share one evaluator (one forward pass). An
    evaluator with ``evaluate_priors(observations, legal_masks)`` (``SB3Evaluator``) is asked
    for the priors alone: ``evaluate_batch``'s, without running its value head."""
    if not agents:
        return []
    evaluator = agents[0].evaluator
    if any(agent.evaluator is not evaluator for agent in agents) or len(agents) != len(positions):
        raise InvalidOptionError("prior_batch needs one position per agent, all of one model")
    size = positions[0][0].num_actions
    masks = np.zeros((len(positions), size), dtype=bool)
    observations = []
    for row, (agent, (game, state)) in enumerate(zip(agents, positions, strict=True)):
        agent.check_game(game)
        if game.num_actions != size:
            raise InvalidOptionError(
                f"prior_batch got games of {size} and {game.num_actions} actions"
            )
        masks[row, list(game.legal_actions(state))] = True
        observations.append(np.asarray(game.observation(state, game.to_play(state))))
    stacked = np.stack(observations)
    alone = getattr(evaluator, "evaluate_priors", None)  # the priors without the value head
    if callable(alone):
        output = (alone(stacked, masks), np.zeros(len(masks)))
    else:
        output = evaluator.evaluate_batch(stacked, masks)
    return list(np.asarray(check_batch(evaluator, output, masks)[0]))
