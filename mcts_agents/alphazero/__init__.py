"""AlphaZero without a framework: self-play, its targets, the replay buffer, symmetries, the gate.

- ``selfplay``: ``play_selfplay_game`` (PUCT with root noise, ``TemperatureSchedule``,
  ``PlayoutCap``, ``Resign``) gives a ``GameRecord``;
- ``targets``: ``visit_distribution`` and ``select_move``, from a search's root visits;
- ``replay``: ``ReplayBuffer``, the positions trained on (with ``symmetries`` applied);
- ``symmetries``: a game's board symmetries (``Symmetry``; ``symmetries.symmetries(game)``);
- ``gate``: a new network against the best so far (``GateResult``; ``gate.gate(...)``);
- ``learn``: the torch network, trainer, checkpoints and training loop (the ``az`` extra).

Nothing here but ``learn`` imports torch; the names below are imported on first use. The
functions ``gate`` and ``symmetries`` share their modules' names, so they are not exported
here (``mcts_agents.alphazero.gate`` is always the module): import them from their modules,
``from mcts_agents.alphazero.gate import gate``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mcts_agents._lazy import lazy_exports

if TYPE_CHECKING:
    from mcts_agents.alphazero.gate import GateResult
    from mcts_agents.alphazero.replay import ReplayBuffer
    from mcts_agents.alphazero.selfplay import (
        GameRecord,
        PlayoutCap,
        Resign,
        TemperatureSchedule,
        play_selfplay_game,
    )
    from mcts_agents.alphazero.symmetries import Symmetry
    from mcts_agents.alphazero.targets import select_move, visit_distribution

__all__ = [
    "GameRecord",
    "GateResult",
    "PlayoutCap",
    "ReplayBuffer",
    "Resign",
    "Symmetry",
    "TemperatureSchedule",
    "play_selfplay_game",
    "select_move",
    "visit_distribution",
]

__getattr__, __dir__ = lazy_exports(__name__)
