"""The training loop: self-play with the best network, training steps, gating; resumable.

``train(game, out_dir, steps=..., minutes=...)`` repeats an iteration until the trainer has
taken ``steps`` steps in all or ``minutes`` have passed in this call (checked between
iterations):

1. ``games_per_iteration`` self-play games (``selfplay.play_selfplay_game``, PUCT with root
   noise or Gumbel search (``search="gumbel"``), ``simulations`` per move, ``search_batch``
   leaves per network call) with the best network, seeded
   ``derive_seed(seed, 0, iteration, game)``, in ``workers`` processes (``learn.pools``, a
   ``processes.open_pool`` pool: bounded, ending with the process that trains, whatever ends
   it), as Ray tasks (``backend="ray"``), or here; their full-search
   positions go to the replay buffer (sampled with the game's symmetries when ``augment``);
2. ``steps_per_iteration`` training steps of the candidate network (``Trainer``);
3. every ``gate_every`` iterations, the gate (``mcts_agents.alphazero.gate``): the candidate plays
   ``gate_games`` games against the best network and replaces it at a score of
   ``gate_threshold``. ``gate_every = 0``: no gate, self-play uses the latest network
   (AlphaZero's variant of AlphaGo Zero's loop).

The run's folder holds ``run.json`` (the game and the ``RunConfig``), ``metrics.jsonl`` (a
line per iteration: step, mean losses, self-play game lengths and draws, the buffer, the
gate's result), ``checkpoint.pt`` (trainer, best network, replay buffer, iteration; written
after the iteration's metrics line) and ``best.pt`` (the best network, for
``checkpoint.load_net``). Called again on the same folder, ``train`` resumes from the
checkpoint (metrics lines past it are dropped) and goes on as a run that never stopped would.

On the CPU, small networks train and play fastest with ``torch.set_num_threads(1)`` (torch's
threads spin on tiny tensors, and on a busy machine they slow every step many times over);
``train`` leaves that setting to the caller. Self-play workers run on one thread each.
"""

from __future__ import annotations

import contextlib
import copy
import json
import logging
import math
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch

from mcts_agents.alphazero.gate import against_mcts, gate
from mcts_agents.alphazero.learn.checkpoint import (
    BEST_NET,
    RUN_FILE,
    check_run_counters,
    check_weights,
    load_checkpoint,
    save_checkpoint,
    save_net,
)
from mcts_agents.alphazero.learn.evaluator import TorchEvaluator, resolve_device
from mcts_agents.alphazero.learn.net import build_net, check_training_memory
from mcts_agents.alphazero.learn.pools import check_pool_game, open_loop_pool
from mcts_agents.alphazero.learn.run_config import RUN_FORMAT, RunConfig, run_file_config
from mcts_agents.alphazero.learn.trainer import Trainer
from mcts_agents.alphazero.replay import ReplayBuffer
from mcts_agents.alphazero.selfplay import (
    GameRecord,
    play_selfplay_game,
    play_teacher_game,
    require_perfect_information,
)
from mcts_agents.alphazero.symmetries import symmetries
from mcts_agents.checks import (
    check_choice,
    check_instance,
    check_int,
    check_number,
    load_json,
    read_json,
)
from mcts_agents.errors import CheckpointError, InvalidOptionError, ModelFileError
from mcts_agents.processes import Pool
from mcts_agents.ratings import elo_from_rate
from mcts_agents.seeding import derive_seed

__all__ = ["CHECKPOINT", "METRICS", "NETS", "RUN_FILE", "RunConfig", "RunSummary", "train"]

logger = logging.getLogger(__name__)

METRICS = "metrics.jsonl"
CHECKPOINT = "checkpoint.pt"
#: The folder of every best network of the run, ``iteration-NNNNNN.pt`` (0: the initial one).
NETS = "nets"


@dataclass(frozen=True, slots=True)
class RunSummary:
    """What one ``train`` call did.

    Attributes:
        out_dir: the run's folder.
        resumed: whether it went on from a checkpoint.
        iteration: iterations done in all.
        step: training steps taken in all.
        promotions: times the candidate replaced the best network, in all.
        seconds: wall time of the run in all (every call's).
        metrics: this call's metrics lines.
    """

    out_dir: Path
    resumed: bool
    iteration: int
    step: int
    promotions: int
    seconds: float
    metrics: tuple[dict[str, Any], ...]


def _selfplay_game(game: Any, evaluator: Any, config: RunConfig, seed: int) -> GameRecord:
    search = config.search_config(
        root_noise=config.root_noise,  # resolved: never "default"
        evaluator=evaluator,
        batch_size=config.search_batch,
    )
    cap, resign = config.selfplay_options()
    return play_selfplay_game(
        game,
        evaluator,
        search,
        config.simulations,
        config.temperature,
        seed,
        playout_cap=cap,
        resign=resign,
    )


def _selfplay_task(task: tuple[Any, Any, RunConfig, int]) -> GameRecord:
    return _selfplay_game(*task)


def _teacher_task(task: tuple[Any, Any, RunConfig, int]) -> GameRecord:
    game, _, config, seed = task
    return play_teacher_game(game, config.teacher_simulations, config.temperature, seed)


def _tensors(state: dict[str, Any]) -> dict[str, Any]:
    """Numpy arrays of a buffer state as tensors (what ``weights_only`` loads read)."""
    return {k: torch.from_numpy(v) if isinstance(v, np.ndarray) else v for k, v in state.items()}


def _arrays(state: dict[str, Any]) -> dict[str, Any]:
    return {k: v.numpy() if isinstance(v, torch.Tensor) else v for k, v in state.items()}


class _Run:
    """A run in progress: the folder, the networks, the buffer and the counters."""

    def __init__(self, game: Any, out: Path, config: RunConfig, device: torch.device) -> None:
        self.game = game
        self.out = out
        self.config = config
        self.device = device
        net = build_net(game, config.net, seed=derive_seed(config.seed, 3)).to(device)
        self.trainer = Trainer(net, config.training, seed=derive_seed(config.seed, 2))
        self.best = copy.deepcopy(net)
        self.buffer = ReplayBuffer(
            config.buffer_capacity, symmetries(game) if config.augment else ()
        )
        self.iteration = 0
        self.promotions = 0
        self.seconds = 0.0

    # ------------------------------------------------------------------ saving and resuming
    def save(self) -> None:
        extra = {
            "iteration": self.iteration,
            "promotions": self.promotions,
            "seconds": self.seconds,
            "best": {k: v.detach().cpu() for k, v in self.best.state_dict().items()},
            "buffer": _tensors(self.buffer.state_dict()),
        }
        save_checkpoint(self.out / CHECKPOINT, self.trainer, extra, game=self.game)

    def resume(self) -> None:
        path = self.out / CHECKPOINT
        checkpoint = load_checkpoint(path)
        if checkpoint.game is not None and checkpoint.game != repr(self.game):
            raise CheckpointError(
                f"{str(path)!r} is a checkpoint of {checkpoint.game}, not of {self.game!r}"
            )
        extra = checkpoint.extra
        step = checkpoint.trainer.step
        check_run_counters(extra, step, self.config.steps_per_iteration, path)
        try:
            self.trainer.load_state_dict(checkpoint.trainer.state_dict())
            check_weights(extra["best"], self.best, self.out / CHECKPOINT, "best network")
            self.best.load_state_dict(extra["best"])
            self.buffer.load_state_dict(_arrays(extra["buffer"]))
            self.iteration = int(extra["iteration"])
            self.promotions = int(extra["promotions"])
            self.seconds = float(extra["seconds"])
        except ModelFileError:
            raise
        except (KeyError, TypeError, AttributeError, RuntimeError, ValueError) as error:
            raise ModelFileError(
                f"{str(self.out / CHECKPOINT)!r} is not a checkpoint of this run: {error}"
            ) from None
        torch.set_rng_state(checkpoint.torch_rng)
        self.drop_metrics_after(self.iteration)

    def drop_metrics_after(self, iteration: int) -> None:
        """Metrics lines past the checkpoint (an iteration cut short) are dropped."""
        path = self.out / METRICS
        if not path.exists():
            return
        lines = path.read_text().splitlines()
        kept = [line for line in lines if line.strip() and _iteration(line) <= iteration]
        if len(kept) != len(lines):
            path.write_text("".join(line + "\n" for line in kept))

    def write_metrics(self, line: dict[str, Any]) -> None:
        with open(self.out / METRICS, "a") as handle:
            handle.write(json.dumps(line) + "\n")
            handle.flush()
            os.fsync(handle.fileno())

    # ------------------------------------------------------------------ one iteration
    def selfplay(self, pool: Pool) -> list[GameRecord]:
        config = self.config
        player = self.best if config.gate_every else self.trainer.net
        # the teacher plays without the network: no weights to send with its games
        evaluator = None if self.teaching else TorchEvaluator(player, self.device)
        seeds = [
            derive_seed(config.seed, 0, self.iteration, g)
            for g in range(config.games_per_iteration)
        ]
        play = _teacher_task if self.teaching else _selfplay_task
        tasks = [(self.game, evaluator, config, seed) for seed in seeds]
        return pool.map(play, tasks)

    @property
    def teaching(self) -> bool:
        """Whether this iteration's games are the teacher's (``RunConfig.teacher_iterations``)."""
        return self.iteration <= self.config.teacher_iterations

    def step(self, pool: Pool, steps: int | None) -> dict[str, Any]:
        config = self.config
        started = time.perf_counter()
        self.iteration += 1
        records = self.selfplay(pool)
        for record in records:
            self.buffer.add(record, config.value_mix)
        played = time.perf_counter()
        count = config.steps_per_iteration
        if steps is not None:
            count = min(count, steps - self.trainer.step)
        losses = [self.trainer.train_step(self.buffer) for _ in range(count)]
        trained = time.perf_counter()
        gated = elo = None
        if config.gate_every and self.iteration % config.gate_every == 0:
            gated = self.gate(pool)
            if gated["promoted"] and config.elo_games:
                elo = self.elo(pool)
        elif not config.gate_every:
            self.best.load_state_dict(self.trainer.net.state_dict())
            self.save_best(snapshot=False)  # every iteration's network: too many to keep
        self.seconds += time.perf_counter() - started
        lengths = [len(r) for r in records]
        line: dict[str, Any] = {
            "iteration": self.iteration,
            "step": self.trainer.step,
            "seconds": round(self.seconds, 3),
            "selfplay": {
                "teacher": self.teaching,
                "games": len(records),
                "mean_length": float(np.mean(lengths)),
                "draws": sum(1 for r in records if len(set(r.returns)) == 1),
                "resigned": sum(1 for r in records if r.resigned is not None),
                # games without resignation where the rule fired, and where it was wrong
                "resign_checks": sum(1 for r in records if r.false_positive is not None),
                "false_positives": sum(1 for r in records if r.false_positive),
                "positions": int(sum(int(r.full_search.sum()) for r in records)),
                "seconds": round(played - started, 3),
            },
            "buffer": len(self.buffer),
            "loss": {
                name: float(np.mean([getattr(loss, name) for loss in losses])) if losses else None
                for name in ("policy", "value", "l2", "total")
            },
            "train_seconds": round(trained - played, 3),
            "gate": gated,
            "elo": elo,
            "promotions": self.promotions,
        }
        self.write_metrics(line)
        self.save()
        logger.info(
            "iteration %d, step %d: loss %s, self-play length %.1f, gate %s",
            self.iteration,
            self.trainer.step,
            line["loss"]["total"],
            line["selfplay"]["mean_length"],
            gated,
        )
        return line

    def save_best(self, snapshot: bool = True) -> None:
        """``best.pt``, and with ``snapshot`` the same network under ``nets/`` by iteration
        (every gated network of the run: the Elo curve's)."""
        save_net(self.out / BEST_NET, self.best, self.game)
        if not snapshot:
            return
        (self.out / NETS).mkdir(exist_ok=True)
        save_net(self.out / NETS / f"iteration-{self.iteration:06d}.pt", self.best, self.game)

    def gate(self, pool: Pool) -> dict[str, Any]:
        config = self.config
        result = gate(
            self.game,
            TorchEvaluator(self.trainer.net, self.device),
            TorchEvaluator(self.best, self.device),
            games=config.gate_games,
            simulations=config.gate_simulations or config.simulations,
            seed=derive_seed(config.seed, 1, self.iteration),
            threshold=config.gate_threshold,
            config=config.search_config(),
            batch_size=config.search_batch,
            pool=pool,
        )
        if result.promoted:
            self.best.load_state_dict(self.trainer.net.state_dict())
            self.promotions += 1
            self.save_best()
        return result.to_dict()

    def elo(self, pool: Pool) -> list[dict[str, Any]]:
        """The best network against each fixed MCTS opponent: score, interval and Elo (from
        the score with one virtual draw, so that a clean sweep stays finite)."""
        config = self.config
        rows = []
        for index, iterations in enumerate(config.elo_opponents):
            result = against_mcts(
                self.game,
                TorchEvaluator(self.best, self.device),
                config.gate_simulations or config.simulations,
                iterations,
                config.elo_games,
                derive_seed(config.seed, 4, self.iteration, index),
                config=config.search_config(),
                batch_size=config.search_batch,
                pool=pool,
            )
            points = result.wins + result.draws / 2
            rows.append(
                {
                    "opponent": f"mcts:iterations={iterations},playout=random",
                    "games": result.games,
                    "score": result.score,
                    "low": result.interval[0],
                    "high": result.interval[1],
                    "elo": elo_from_rate((points + 0.5) / (result.games + 1)),
                }
            )
        return rows


def check_memory(game: Any, config: RunConfig, device: Any, names: Any = None) -> None:
    """Refuse a run whose network and batches would not fit in memory
    (``net.check_training_memory``), naming ``names`` (default: the ``RunConfig`` fields)."""
    shape, actions = getattr(game, "observation_shape", None), getattr(game, "num_actions", None)
    if shape is None or actions is None:
        return  # build_net names what the game lacks
    named = names or ("RunConfig's net.channels and net.blocks", "RunConfig's training.batch_size")
    check_training_memory(
        tuple(shape), actions, config.net, config.training.batch_size, names=named, device=device
    )


def _iteration(line: str) -> float:
    try:
        return float(load_json(line, METRICS)["iteration"])
    except (ValueError, KeyError, TypeError):
        return math.inf  # a damaged line (a write cut short) goes with what follows it


def _run_config(out: Path, game: Any, config: RunConfig | None) -> tuple[RunConfig, bool]:
    """The run's config: a new folder's (written to ``run.json``) or the stored one."""
    path = out / RUN_FILE
    if not path.exists():
        if out.exists() and any(out.iterdir()):
            raise CheckpointError(
                f"{str(out)!r} is not empty and holds no {RUN_FILE}; give a new folder or a "
                "training run's folder"
            )
        config = RunConfig() if config is None else config
        out.mkdir(parents=True, exist_ok=True)
        run = {"format": RUN_FORMAT, "game": repr(game), "config": config.to_dict()}
        path.write_text(json.dumps(run, indent=2) + "\n")
        return config, False
    stored = read_json(path, repr(str(path)), error=CheckpointError)
    stored_config = run_file_config(stored, path)
    if stored.get("game") != repr(game):
        raise CheckpointError(f"the run in {str(out)!r} trains {stored.get('game')}, not {game!r}")
    if config is not None and config != stored_config:
        mine, theirs = config.to_dict(), stored_config.to_dict()
        differ = {k: (theirs[k], mine[k]) for k in mine if mine[k] != theirs[k]}
        raise CheckpointError(
            f"the run in {str(out)!r} was started with other settings (stored, given): {differ}; "
            "pass config=None to resume it as it was"
        )
    return stored_config, (out / CHECKPOINT).exists()


def train(
    game: Any,
    out_dir: str | os.PathLike[str],
    *,
    config: RunConfig | None = None,
    steps: int | None = None,
    minutes: float | None = None,
    device: str | torch.device | None = None,
    on_iteration: Callable[[dict[str, Any]], None] | None = None,
    backend: str = "process",
    address: str | None = None,
) -> RunSummary:
    """Train a network for ``game`` by self-play, or resume the run in ``out_dir`` (see the
    module).

    Args:
        game: a rules core with ``(H, W, C)`` observations, two players, no chance nodes,
            perfect information (self-play and the gate search the true state).
        out_dir: the run's folder: new (or empty), or one a previous call wrote.
        config: the run's settings (``None``: ``RunConfig()`` for a new run, the stored
            settings for a resumed one; given for a resumed run, they must equal the stored).
        steps: stop when the trainer has taken this many steps in all.
        minutes: stop when this call has run this long (checked between iterations).
        device: where the networks live (``None``: CUDA when available, else the CPU).
        on_iteration: called with each iteration's metrics line once it is saved (progress).
        backend: where self-play and gate games run: ``"process"`` (``config.workers``
            processes, or here with one) or ``"ray"`` (Ray tasks, one CPU each, through
            ``processes.ray_session`` as in the arena: a local instance, or the cluster at
            ``address``). The games and the run are the same on every backend.
        address: the Ray cluster for ``backend="ray"`` (``None``: a new local instance).

    Raises:
        InvalidOptionError: neither ``steps`` nor ``minutes``, a bad value, or a ``device``
            this machine lacks (``cuda`` without CUDA).
        CheckpointError: a folder that is not a run, or a run of another game or config.
        RayNotInstalledError: ``backend="ray"`` without Ray.
        UnpicklableError: more than one worker process, and a game that does not pickle.
        WorkerError: a worker process died (killed, out of memory).
        InvalidStateError: a game with hidden information (``perfect_information`` False).
    """
    require_perfect_information(game, "AlphaZero's training loop")
    check_choice(backend, "backend", ("process", "ray"))
    if steps is None and minutes is None:
        raise InvalidOptionError("train needs steps (in all) or minutes (for this call), or both")
    check_int(steps, "steps", low=0, optional=True)
    check_number(minutes, "minutes", low=0, low_open=True, optional=True)
    check_instance(config, "config", RunConfig, optional=True)
    where = resolve_device(device)
    if config is not None:  # before the run's folder is written (a resumed run: open_loop_pool)
        check_pool_game(game, backend, config)
        check_memory(game, config, where)
    out = Path(out_dir)
    config, resumed = _run_config(out, game, config)
    check_memory(game, config, where)  # a stored run's settings too
    run = _Run(game, out, config, where)
    if resumed:
        run.resume()
    else:  # a first iteration cut short before its checkpoint may have left a metrics line
        run.drop_metrics_after(0)
        run.save_best()
    deadline = None if minutes is None else time.monotonic() + 60.0 * minutes
    lines: list[dict[str, Any]] = []
    with contextlib.ExitStack() as stack:
        pool = open_loop_pool(stack, backend, address, config, game)
        while (steps is None or run.trainer.step < steps) and (
            deadline is None or time.monotonic() < deadline
        ):
            lines.append(run.step(pool, steps))
            if on_iteration is not None:
                on_iteration(lines[-1])
    return RunSummary(
        out_dir=out,
        resumed=resumed,
        iteration=run.iteration,
        step=run.trainer.step,
        promotions=run.promotions,
        seconds=run.seconds,
        metrics=tuple(lines),
    )
