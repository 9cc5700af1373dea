"""``mcts-agents train ENV --minutes M --out DIR``: AlphaZero training from the command line.

Trains a network for ENV's rules core by self-play (``mcts_agents.alphazero.learn.loop.train``), or
resumes the run in ``--out``: a line per iteration on stdout, then a summary with the command that
plays the result (``az:model=DIR``). Run settings not given are the defaults of a new run
(``RunConfig``) or the stored settings of a resumed one; a setting given to a resumed run must equal
the stored one. Needs torch (the ``az`` extra): without it the command says what to install and
exits with code 2."""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import logging
import math
import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from mcts_agents.adapters import game_from_env
from mcts_agents.agents.models import TORCH_HINT
from mcts_agents.agents.specs import parse_env_spec
from mcts_agents.alphazero.selfplay import require_perfect_information
from mcts_agents.checks import check_output_file, read_json
from mcts_agents.errors import InvalidOptionError, TorchNotInstalledError
from mcts_agents.processes import MAX_WORKERS
from mcts_agents.search.config import SearchConfig

__all__ = ["add_train_parser", "train"]

#: The bounds of --channels, --blocks and --batch-size (``alphazero.learn``'s, which needs torch
#: to import: the parser is built without it).
MAX_CHANNELS, MAX_BLOCKS, MAX_BATCH_SIZE = 4096, 256, 1 << 16
#: ``--option`` -> ``RunConfig`` field (``net.`` and ``training.`` for the nested configs).
RUN_OPTIONS = {
    "seed": "seed",
    "workers": "workers",
    "simulations": "simulations",
    "search_batch": "search_batch",
    "games": "games_per_iteration",
    "train_steps": "steps_per_iteration",
    "buffer": "buffer_capacity",
    "gate_every": "gate_every",
    "gate_games": "gate_games",
    "channels": "net.channels",
    "blocks": "net.blocks",
    "batch_size": "training.batch_size",
    "lr": "training.learning_rate",
    "precision": "training.precision",
    "gate_simulations": "gate_simulations",
    "playout_cap": "playout_cap",
    "resign": "resign",
    "value_mix": "value_mix",
    "elo_games": "elo_games",
    "teacher_iterations": "teacher_iterations",
    "teacher_simulations": "teacher_simulations",
    "search": "search",
    "gumbel_actions": "gumbel_max_actions",
    "gumbel_c_scale": "gumbel_c_scale",
}


#: A new run's settings under ``--search gumbel`` where none is given: those of the Gumbel runs
#: that never lost at tic-tac-toe (4 root actions considered, no gate; ``docs/alphazero.md``).
GUMBEL_RUN_DEFAULTS = {"gumbel_max_actions": 4, "gate_every": 0}


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"must be a positive number, got {text}")
    return value


def _pair(text: str) -> tuple[float, float]:
    parts = text.split(",")
    try:
        first, second = (float(part) for part in parts)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected two numbers A,B, got {text!r}") from None
    return first, second


def _cap(text: str) -> tuple[float, int]:
    probability, fast = _pair(text)
    if not fast.is_integer():
        raise argparse.ArgumentTypeError(f"the fast simulations must be an int, got {text!r}")
    return probability, int(fast)


def add_train_parser(commands: Any, int_type: Any) -> None:
    """Add the ``train`` subcommand to ``commands`` (``int_type(low, high=None)``: an argparse
    int type)."""
    parser = commands.add_parser(
        "train",
        help="train an AlphaZero network by self-play (needs torch)",
        description="Train a network for ENV by self-play, gating and training (AlphaZero), or "
        'resume the run in --out. Needs torch: pip install ".[az]". Settings not '
        "given are the defaults of a new run or the stored ones of a resumed run.",
    )
    parser.add_argument("env", help="env spec, e.g. tic_tac_toe or connect_four (see list)")
    parser.add_argument("--out", required=True, metavar="DIR", help="the run's folder")
    parser.add_argument("--minutes", type=_positive_float, help="stop after this long (this call)")
    parser.add_argument("--steps", type=int_type(0), help="stop at this many training steps in all")
    parser.add_argument("--device", help="cpu, cuda, cuda:1, ... (default: CUDA if available)")
    parser.add_argument(
        "--threads", type=int_type(1), default=1, help="torch's CPU threads (default 1)"
    )
    run = parser.add_argument_group("run settings (stored with the run)")
    run.add_argument("--seed", type=int_type(0), help="seed of the run (default 0)")
    run.add_argument(
        "--workers",
        type=int_type(1, MAX_WORKERS),
        help=f"self-play processes (default 1, at most {MAX_WORKERS})",
    )
    run.add_argument("--simulations", type=int_type(1), help="simulations per self-play move")
    run.add_argument(
        "--search",
        choices=("puct", "gumbel"),
        help="self-play's search: puct (AlphaZero, default) or gumbel (Gumbel AlphaZero: "
        "learns from few simulations, e.g. 8 to 32)",
    )
    run.add_argument(
        "--gumbel-actions",
        type=int_type(1),
        help="Gumbel: root actions considered (default 16; a new --search gumbel run: 4)",
    )
    run.add_argument(
        "--gumbel-c-scale",
        type=_positive_float,
        help=f"Gumbel: sigma's c_scale (default {SearchConfig().gumbel_c_scale:g})",
    )
    run.add_argument("--search-batch", type=int_type(1), help="leaves per network call")
    run.add_argument("--games", type=int_type(1), help="self-play games per iteration")
    run.add_argument("--train-steps", type=int_type(1), help="training steps per iteration")
    run.add_argument("--buffer", type=int_type(1), help="replay buffer capacity (positions)")
    run.add_argument(
        "--gate-every",
        type=int_type(0),
        help="iterations per gate (0: no gate; default 5, a new --search gumbel run: 0)",
    )
    run.add_argument("--gate-games", type=int_type(2), help="games per gate (even)")
    run.add_argument("--channels", type=int_type(1, MAX_CHANNELS), help="the network's channels")
    run.add_argument("--blocks", type=int_type(0, MAX_BLOCKS), help="the network's residual blocks")
    run.add_argument(
        "--batch-size",
        type=int_type(1, MAX_BATCH_SIZE),
        help="positions per training step (a run whose training would need more than half "
        "the machine's memory is refused)",
    )
    run.add_argument("--lr", type=_positive_float, help="learning rate")
    run.add_argument(
        "--precision",
        choices=("float32", "bfloat16"),
        help="training steps in bfloat16 autocast (faster on CPUs with AVX-512 BF16)",
    )
    run.add_argument("--gate-simulations", type=int_type(1), help="simulations per gate move")
    run.add_argument(
        "--playout-cap",
        type=_cap,
        metavar="P,N",
        help="full searches with probability P, else N simulations (not trained on)",
    )
    run.add_argument(
        "--resign",
        type=_pair,
        metavar="T,F",
        help="resign below value T; a fraction F of games never resign (to check the rule); "
        "write --resign=-0.9,0.1",
    )
    run.add_argument(
        "--value-mix", type=float, metavar="M", help="value target: (1-M) result + M root value"
    )
    run.add_argument(
        "--elo-games",
        type=int_type(0),
        help="games against fixed MCTS opponents after each promotion (even; 0: none)",
    )
    run.add_argument(
        "--teacher-iterations",
        type=int_type(0),
        help="warm start: this many first iterations played by plain MCTS (Expert Iteration)",
    )
    run.add_argument(
        "--teacher-simulations", type=int_type(1), help="the teacher's simulations per move"
    )
    parser.add_argument(
        "--backend",
        choices=("process", "ray"),
        default="process",
        help="self-play and gate games in --workers processes (default) or as Ray tasks",
    )
    parser.add_argument("--address", help="the Ray cluster (--backend ray; default: local)")
    parser.add_argument(
        "--plot", metavar="PNG", help="draw the run's metrics here at the end (matplotlib)"
    )


def _settings(args: argparse.Namespace) -> dict[str, Any]:
    """The run settings given on the command line, by ``RunConfig`` field."""
    return {
        field: getattr(args, option)
        for option, field in RUN_OPTIONS.items()
        if getattr(args, option) is not None
    }


def _stored(az: Any, out: Path) -> dict[str, Any] | None:
    """The run file of the run in ``out``, if there is a readable one (``train`` reports a bad
    one)."""
    from mcts_agents.alphazero.learn.run_config import run_file_config

    path = out / az.loop.RUN_FILE
    try:
        stored = read_json(path)
        stored["config"] = run_file_config(stored, path)
    except (ValueError, KeyError, TypeError):
        return None
    return dict(stored)


def _config(az: Any, out: Path, game: Any, settings: dict[str, Any]) -> Any:
    """The ``RunConfig`` to pass ``train``: ``None`` (a new run's defaults, or a resumed run's
    stored settings) when no setting is given, else the base with the settings over it.

    Raises:
        InvalidOptionError: the run in ``out`` trains another game, or was started with other
            settings than those given (named as options).
    """
    stored = _stored(az, out)
    if stored is not None and stored.get("game") != repr(game):
        raise InvalidOptionError(
            f"the run in {str(out)!r} trains {stored.get('game')}, not {game!r}; give a new "
            "--out for this game"
        )
    if stored is None and settings.get("search") == "gumbel":
        for field, value in GUMBEL_RUN_DEFAULTS.items():
            settings.setdefault(field, value)
    if not settings:
        return None
    base = az.RunConfig() if stored is None else stored["config"]
    top = {k: v for k, v in settings.items() if "." not in k}
    for part in ("net", "training"):
        nested = {k.split(".")[1]: v for k, v in settings.items() if k.startswith(part + ".")}
        if nested:
            top[part] = dataclasses.replace(getattr(base, part), **nested)
    if "search" in top and top["search"] != base.search:
        top.setdefault("root_noise", "default")  # the search's own default (Gumbel: none)
    config = dataclasses.replace(base, **top)
    if stored is not None and config != base:
        differ = []
        for option, field in RUN_OPTIONS.items():
            part, _, name = field.rpartition(".")
            was = getattr(getattr(base, part), name) if part else getattr(base, field)
            if field in settings and settings[field] != was:
                differ.append(f"--{option.replace('_', '-')} {was} (given {settings[field]})")
        raise InvalidOptionError(
            f"the run in {str(out)!r} was started with {', '.join(differ)}; leave run settings "
            "out to resume it as it was, or give a new --out"
        )
    return config


def _check_out(text: str) -> Path:
    """The run's folder ``--out``: a folder or nothing yet; a link to nothing is refused (the
    run would make its target, or fail half way)."""
    out = Path(text)
    if not text.strip():
        raise InvalidOptionError("--out is empty; give a folder for the run")
    if out.is_symlink() and not out.exists():
        raise InvalidOptionError(
            f"--out {text!r} is a link to {os.path.realpath(out)!r}, which does not exist; "
            "give the folder itself"
        )
    if out.exists() and not out.is_dir():
        what = "a file" if out.is_file() else "not a folder"
        raise InvalidOptionError(f"--out {text!r} is {what}; give a folder for the run")
    return out


def _line(metrics: dict[str, Any]) -> str:
    """One progress line from an iteration's metrics."""
    loss = metrics["loss"]
    losses = (
        f"loss {loss['total']:.3f} (policy {loss['policy']:.3f}, value {loss['value']:.3f})"
        if loss["total"] is not None
        else "no training step"
    )
    play = metrics["selfplay"]
    games = f"{play['games']} game{'s' if play['games'] != 1 else ''}"
    gate = metrics["gate"]
    gated = ""
    if gate is not None:
        gated = f", gate {gate['score']:.2f}" + (" promoted" if gate["promoted"] else "")
    return (
        f"iteration {metrics['iteration']}, step {metrics['step']}: {losses}; self-play "
        f"{games} of {play['mean_length']:.1f} moves; buffer {metrics['buffer']}"
        f"{gated}; {metrics['seconds']:.1f} s"
    )


class _Progress:
    """A line per iteration on stdout and, with tqdm installed, a bar on stderr: towards
    ``--steps`` when given, else towards ``--minutes``."""

    def __init__(self, steps: int | None, minutes: float | None) -> None:
        self.steps = steps
        self.started = time.monotonic()
        self.bar: Any = None
        try:
            from tqdm.auto import tqdm
        except ImportError:
            return
        if steps is not None:
            self.bar = tqdm(total=steps, desc="training", unit="step", file=sys.stderr)
        else:
            total = round(60.0 * (minutes or 0.0))
            self.bar = tqdm(total=total, desc="training", unit="s", file=sys.stderr)

    def __call__(self, metrics: dict[str, Any]) -> None:
        line = _line(metrics)
        if self.bar is None:
            print(line, flush=True)
            return
        self.bar.write(line, file=sys.stdout)
        done = metrics["step"] if self.steps is not None else time.monotonic() - self.started
        self.bar.n = min(self.bar.total, round(done))
        loss = metrics["loss"]["total"]
        self.bar.set_postfix(
            iteration=metrics["iteration"],
            loss="-" if loss is None else f"{loss:.3f}",
            promotions=metrics["promotions"],
        )

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


@contextlib.contextmanager
def _quiet_loop() -> Iterator[None]:
    """The loop's own log line per iteration is left out (``_line`` prints it)."""
    logger = logging.getLogger("mcts_agents.alphazero.learn.loop")
    level = logger.level
    logger.setLevel(logging.WARNING)
    try:
        yield
    finally:
        logger.setLevel(level)


def train(args: argparse.Namespace) -> int:
    """Run ``mcts-agents train``; returns the exit code."""
    if args.minutes is None and args.steps is None:
        raise InvalidOptionError(
            "train needs --minutes (for this call) or --steps (in all), or both"
        )
    spec = parse_env_spec(args.env)
    env = spec()
    env.reset(seed=0)
    game, _ = game_from_env(env)
    require_perfect_information(game, "mcts-agents train (AlphaZero)")
    try:
        from mcts_agents.alphazero import learn as az
    except TorchNotInstalledError:
        raise TorchNotInstalledError(f"mcts-agents train needs torch: {TORCH_HINT}") from None
    import torch

    az.resolve_device(args.device, "--device")  # before the run's folder is made
    torch.set_num_threads(args.threads)
    out = _check_out(args.out)
    if args.plot is not None:
        from mcts_agents.plotting import check_plot_path

        # before the training, not after it (its folder may be the new run's: made)
        check_output_file(args.plot, "--plot", make_folders=True)
        check_plot_path(args.plot)
    config = _config(az, out, game, _settings(args))
    stored = _stored(az, out)
    chosen = config or (stored["config"] if stored is not None else az.RunConfig())
    names = ("--channels and --blocks", "--batch-size")  # before anything is allocated
    az.loop.check_memory(game, chosen, az.resolve_device(args.device), names)
    resuming = (out / az.loop.CHECKPOINT).exists()
    print(f"{'resuming' if resuming else 'training'} {spec} ({game!r}) in {out}", flush=True)
    progress = _Progress(args.steps, args.minutes)
    try:
        with _quiet_loop():
            summary = az.train(
                game,
                out,
                config=config,
                steps=args.steps,
                minutes=args.minutes,
                device=args.device,
                on_iteration=progress,
                backend=args.backend,
                address=args.address,
            )
    except KeyboardInterrupt:
        print(f"mcts-agents: interrupted; rerun the command to resume the run in {out}")
        return 130
    finally:
        progress.close()
    if args.plot is not None:
        from mcts_agents.alphazero.learn.plots import plot_run

        print(f"metrics plot: {plot_run(out, args.plot)}")
    done = len(summary.metrics)
    print(
        f"done: {summary.iteration} iterations and {summary.step} training steps in all "
        f"({done} iteration{'s' if done != 1 else ''} in this call), {summary.promotions} "
        f"promotion{'s' if summary.promotions != 1 else ''}, {summary.seconds:.1f} s of "
        f"training in all\nbest network: {out / az.BEST_NET}\nplay it: mcts-agents arena "
        f"{spec} --agents az:model={out},simulations=200 mcts:iterations=1000"
    )
    return 0
