"""Board, dice and card games as PettingZoo AEC environments with O(1) save/restore and state keys.

Perfect-information board games (Nim, tic-tac-toe, m,n,k, Connect Four, Othello, ultimate
tic-tac-toe, multi-player m,n,k) offer reachability tests for pruning; Pig has dice (chance
nodes drawn by the env's seeded generator); phantom m,n,k, Kuhn and Leduc poker and Oh Hell hide
information, and every agent observes only what it may see. ``openspiel_v0`` plays any sequential
OpenSpiel game (``openspiel_v0.env(game="leduc_poker")``; OpenSpiel optional).

Importing this package registers every env with ``pettingzoo.register`` under the
``mcts_agents/`` namespace, e.g. ``pettingzoo.make("mcts_agents/connect_four-v0")``.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any

import pettingzoo
from pettingzoo.env_registry.registration import aec_registry

from mcts_agents.envs.core import (
    ActionTypeError,
    BoardGame,
    BoardGameEnv,
    EnvSnapshot,
    GameOverError,
    IllegalActionError,
    InvalidParameterError,
    InvalidSnapshotError,
    InvalidStateError,
    NotResetError,
)

#: env module name -> keyword arguments of its registered variants (id suffix -> kwargs).
ENV_MODULES: dict[str, dict[str, dict[str, Any]]] = {
    "nim_v0": {"nim": {}},
    "tic_tac_toe_v0": {"tic_tac_toe": {}},
    "mnk_v0": {
        "mnk": {},
        "gomoku": {"preset": "gomoku"},
        "mnk_5x5x4": {"preset": "5x5x4"},
        "tic_tac_toe_deluxe": {"preset": "deluxe"},
    },
    "connect_four_v0": {"connect_four": {}},
    "othello_v0": {"othello": {}},
    "go_v0": {"go": {"size": 9}},
    "ultimate_tic_tac_toe_v0": {"ultimate_tic_tac_toe": {}},
    "multi_mnk_v0": {"multi_mnk": {}},
    "pig_v0": {"pig": {}},
    "phantom_mnk_v0": {
        "phantom_ttt": {"preset": "phantom_ttt"},
        "phantom_444": {"preset": "phantom_444"},
    },
    "kuhn_poker_v0": {"kuhn_poker": {}},
    "leduc_holdem_v0": {"leduc_holdem": {}},
    "oh_hell_v0": {"oh_hell": {}},
    "rlcard_leduc_holdem_v0": {"rlcard_leduc_holdem": {}},
    "limit_holdem_v0": {"limit_holdem": {}},
    "openspiel_v0": {"openspiel": {}},
}


def load(module_name: str) -> ModuleType:
    """Import ``mcts_agents.envs.<module_name>`` (``"connect_four_v0"``); refuse unknown names."""
    if module_name not in ENV_MODULES:
        raise InvalidParameterError(
            f"unknown env {module_name!r}; expected one of {sorted(ENV_MODULES)}"
        )
    return importlib.import_module(f"{__name__}.{module_name}")


def _register_all() -> None:
    for module_name, variants in ENV_MODULES.items():
        for variant, kwargs in variants.items():
            env_id = f"mcts_agents/{variant}-v0"
            if env_id not in aec_registry:
                pettingzoo.register(
                    "aec", env_id, entry_point=f"{__name__}.{module_name}:env", kwargs=kwargs
                )


_register_all()

__all__ = [
    "ENV_MODULES",
    "ActionTypeError",
    "BoardGame",
    "BoardGameEnv",
    "EnvSnapshot",
    "GameOverError",
    "IllegalActionError",
    "InvalidParameterError",
    "InvalidSnapshotError",
    "InvalidStateError",
    "NotResetError",
    "load",
]
