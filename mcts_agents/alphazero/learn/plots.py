"""A training run's metrics drawn: ``plot_run(run_dir, path)`` (needs matplotlib, the ``plot``
extra).

Four panels from the run's ``metrics.jsonl``, by training step: the losses (policy, value);
self-play (mean game length, the share of drawn games); every gate's score with its Wilson
95% interval against the threshold (promotions filled); and, when the run measured it
(``RunConfig.elo_games``), each promoted network's Elo against the fixed MCTS opponents.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from mcts_agents.checks import load_json
from mcts_agents.errors import InvalidOptionError
from mcts_agents.plotting import check_plot_path

__all__ = ["plot_run", "read_metrics"]


def read_metrics(run_dir: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """The metrics lines of the run in ``run_dir`` (a damaged last line is skipped).

    Raises:
        InvalidOptionError: ``run_dir`` holds no ``metrics.jsonl``.
    """
    path = Path(run_dir) / "metrics.jsonl"
    if not path.is_file():
        raise InvalidOptionError(f"{str(run_dir)!r} holds no metrics.jsonl: not a training run")
    lines = []
    for number, text in enumerate(path.read_text().splitlines(), 1):
        try:
            line = load_json(text, str(path), line=number)
        except ValueError:
            continue  # a write cut short
        if isinstance(line, dict):
            lines.append(line)
    return lines


def plot_run(run_dir: str | os.PathLike[str], path: str | os.PathLike[str]) -> Path:
    """Draw the run's metrics (see the module) into ``path`` (PNG, SVG, PDF: by extension).

    Raises:
        ImportError: matplotlib is not installed.
        InvalidOptionError: not a run's folder, or a file type matplotlib cannot write.
    """
    check_plot_path(path)
    lines = read_metrics(run_dir)
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(11, 7), layout="constrained")
    FigureCanvasAgg(figure)
    losses, play, gates, elo = figure.subplots(2, 2).ravel()
    trained = [line for line in lines if line["loss"]["total"] is not None]
    steps = [line["step"] for line in trained]
    for name in ("policy", "value"):
        losses.plot(steps, [line["loss"][name] for line in trained], label=f"{name} loss")
    losses.set(title="losses", xlabel="training step")
    losses.legend()

    steps = [line["step"] for line in lines]
    play.plot(steps, [line["selfplay"]["mean_length"] for line in lines], label="mean plies")
    play.set(title="self-play games", xlabel="training step", ylabel="plies")
    draws = play.twinx()
    draws.plot(
        steps,
        [line["selfplay"]["draws"] / max(1, line["selfplay"]["games"]) for line in lines],
        color="tab:orange",
        label="drawn share",
    )
    draws.set_ylim(0, 1)
    draws.set_ylabel("drawn share")
    play.legend(loc="upper left")
    draws.legend(loc="upper right")

    gated = [line for line in lines if line.get("gate")]
    for promoted, marker in ((True, "o"), (False, "x")):
        chosen = [line for line in gated if line["gate"]["promoted"] == promoted]
        if not chosen:
            continue
        scores = [line["gate"]["score"] for line in chosen]
        gates.errorbar(
            [line["step"] for line in chosen],
            scores,
            yerr=[
                [s - line["gate"]["low"] for s, line in zip(scores, chosen, strict=True)],
                [line["gate"]["high"] - s for s, line in zip(scores, chosen, strict=True)],
            ],
            fmt=marker,
            capsize=3,
            label="promoted" if promoted else "kept the best",
        )
    if gated:
        gates.axhline(gated[0]["gate"]["threshold"], linestyle="--", color="grey")
        gates.legend()
    gates.set(title="gate: candidate's score (95%)", xlabel="training step", ylim=(0, 1))

    rated = [line for line in lines if line.get("elo")]
    opponents = sorted({row["opponent"] for line in rated for row in line["elo"]})
    for opponent in opponents:
        points = [
            (line["step"], row["elo"])
            for line in rated
            for row in line["elo"]
            if row["opponent"] == opponent
        ]
        elo.plot(*zip(*points, strict=True), marker="o", label=f"vs {opponent}")
    if opponents:
        elo.axhline(0, linestyle="--", color="grey")
        elo.legend()
    else:
        elo.text(0.5, 0.5, "no Elo measured (RunConfig.elo_games = 0)", ha="center")
    elo.set(title="best network's Elo against fixed MCTS", xlabel="training step")
    target = Path(path)
    figure.savefig(target)
    return target
