"""What every plot shares (the extra ``plot``, matplotlib): the check of a plot's file name
before any work starts, and the hint that names the extra (the arena's and training's plots)."""

from __future__ import annotations

import os

from mcts_agents.errors import InvalidOptionError

__all__ = ["NEEDS_MATPLOTLIB", "check_plot_path"]

NEEDS_MATPLOTLIB = 'plots need matplotlib: pip install ".[plot]"'


def check_plot_path(path: str | os.PathLike[str]) -> None:
    """Refuse a plot that could not be saved, before any game is played.

    Raises:
        ImportError: matplotlib is not installed.
        InvalidOptionError: the file name has no extension, or one matplotlib cannot write
            (the message lists those it can).
    """
    try:
        from matplotlib.backend_bases import FigureCanvasBase
    except ImportError as error:
        raise ImportError(NEEDS_MATPLOTLIB) from error
    formats = sorted(FigureCanvasBase.get_supported_filetypes())
    name = os.fspath(path)
    suffix = os.path.splitext(name)[1][1:].lower()
    if suffix not in formats:
        what = f"unknown image format {suffix!r}" if suffix else "no image extension"
        raise InvalidOptionError(
            f"plot {name!r}: {what}; use one of {', '.join('.' + f for f in formats)}"
        )
