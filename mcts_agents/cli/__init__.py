"""The ``mcts-agents`` command (also ``python -m mcts_agents``).

- ``launch``: ``run(argv)``, the entry point: a Ctrl-C while the library loads is exit code 130;
- ``main``: the parser (``build_parser``) and the ``list``, ``play``, ``arena`` and ``demo``
  commands; ``train``, ``serve`` and ``rate``: the ``train`` (torch), ``serve`` (the web extra)
  and ``rate`` (a calibrated ladder) ones;
- ``debug``: ``--debug`` and the tracebacks of errors raised in an env spec's own code.

The names below are imported on first use, so that ``run`` is in place before the library loads.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mcts_agents._lazy import lazy_exports

if TYPE_CHECKING:
    from mcts_agents.cli.launch import run
    from mcts_agents.cli.main import build_parser

__all__ = ["build_parser", "run"]

__getattr__, __dir__ = lazy_exports(__name__)
