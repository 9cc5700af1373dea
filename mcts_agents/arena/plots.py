"""Arena plots (extra ``plot``, matplotlib): Elo with error bars beside the score matrix."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence

import numpy as np

from mcts_agents.plotting import NEEDS_MATPLOTLIB as _NEEDS_MATPLOTLIB
from mcts_agents.plotting import check_plot_path

__all__ = ["check_plot_path", "plot_ratings"]  # check_plot_path: from mcts_agents.plotting


def plot_ratings(
    path: str | os.PathLike[str],
    names: Sequence[str],
    ratings: Mapping[str, tuple[float, float, float]],
    matrix: Sequence[Sequence[float | None]],
    title: str,
    anchor: str,
) -> None:
    """Save Elo with 95% error bars and the pairwise score matrix (``None``: no games)."""
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
        from matplotlib.ticker import MaxNLocator
    except ImportError as error:
        raise ImportError(_NEEDS_MATPLOTLIB) from error
    figure = Figure(figsize=(11, 0.5 * len(names) + 3))
    FigureCanvasAgg(figure)
    left, right = figure.subplots(1, 2)
    order = sorted(names, key=lambda n: ratings[n][0])
    elo = np.array([ratings[n][0] for n in order])
    low = np.array([ratings[n][1] for n in order])
    high = np.array([ratings[n][2] for n in order])
    left.errorbar(elo, range(len(order)), xerr=[elo - low, high - elo], fmt="o", capsize=4)
    left.set_yticks(range(len(order)), order)
    left.axvline(0.0, color="grey", linewidth=0.8)
    left.set_xlabel(f"Elo (anchor {anchor} = 0), 95% CI")
    left.xaxis.set_major_locator(MaxNLocator(nbins=5))  # wide Elo ranges: few, legible ticks
    left.tick_params(axis="x", labelrotation=30)
    left.set_title(title)
    values = np.array([[np.nan if v is None else v for v in row] for row in matrix])
    image = right.imshow(values, vmin=0.0, vmax=1.0, cmap="RdYlGn")
    labels = [str(i + 1) for i in range(len(names))]
    right.set_xticks(range(len(names)), labels)
    right.set_yticks(range(len(names)), [f"{n} {i + 1}" for i, n in enumerate(names)])
    for i, row in enumerate(matrix):
        for j, v in enumerate(row):
            if v is not None:
                right.text(j, i, f"{v:.2f}", ha="center", va="center", fontsize=8)
    right.set_title("score rate of row vs column")
    figure.colorbar(image, ax=right)
    figure.tight_layout()
    figure.savefig(os.fspath(path))
