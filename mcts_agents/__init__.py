"""mcts-agents: Monte Carlo Tree Search agents for PettingZoo turn-based games.

This module is the public API; ``docs/architecture.md`` maps the modules behind it. Its names
are imported on first use (PEP 562), so that ``import mcts_agents`` costs milliseconds and a
Ctrl-C while the command line starts is a clean exit: the ``TYPE_CHECKING`` block below says
where each name lives, for type checkers and for ``__getattr__`` alike.
"""

from __future__ import annotations

import ast
import importlib
import sys
import types
from pathlib import Path
from typing import TYPE_CHECKING, Any

# First: in a source checkout this makes the top-level envs/ folder importable as mcts_agents.envs.
from mcts_agents import _source_tree  # noqa: F401

if TYPE_CHECKING:
    from mcts_agents.adapters import EnvGame, OpenSpielGame, game_from_env
    from mcts_agents.adapters.aec import legal_actions
    from mcts_agents.adapters.cloning import clone_env
    from mcts_agents.agents.agent import Agent, HumanAgent, MCTSAgent, RandomAgent
    from mcts_agents.agents.batch import BatchedMCTS, search_batch
    from mcts_agents.agents.models import ModelInfo, PriorAgent, PUCTAgent, open_model
    from mcts_agents.agents.play import Move, play_game
    from mcts_agents.agents.specs import AgentSpec, EnvSpec, make_agent, make_env, parse_agent_spec
    from mcts_agents.alphazero.gate import GateResult, gate
    from mcts_agents.alphazero.replay import ReplayBuffer
    from mcts_agents.alphazero.selfplay import (
        GameRecord,
        PlayoutCap,
        Resign,
        TemperatureSchedule,
        play_selfplay_game,
    )
    from mcts_agents.alphazero.symmetries import Symmetry, symmetries
    from mcts_agents.alphazero.targets import select_move, visit_distribution
    from mcts_agents.arena import (
        AgentStats,
        ArenaResult,
        MatchResult,
        TournamentResult,
        play_match,
        tournament,
    )
    from mcts_agents.errors import (
        ActionTypeError,
        CheckpointError,
        CloneError,
        EmptyBufferError,
        EvaluatorError,
        GameOverError,
        IllegalActionError,
        InvalidOptionError,
        InvalidParameterError,
        InvalidSnapshotError,
        InvalidStateError,
        ModelFileError,
        NoLegalActionError,
        NotResetError,
        RayNotInstalledError,
        ResultsFileBusyError,
        ResultsFileError,
        SpecError,
        TooManyGamesError,
        TorchNotInstalledError,
        UnpicklableGameError,
        WebNotInstalledError,
        WorkerError,
    )
    from mcts_agents.planner.factory import make_searcher
    from mcts_agents.planner.parallel import RootParallelSearch
    from mcts_agents.ratings import bradley_terry_elo, wilson_interval
    from mcts_agents.rl import PolicyAgent, SB3Evaluator, SingleAgentVsOpponent
    from mcts_agents.search.config import Budget, SearchConfig
    from mcts_agents.search.evaluators import BatchEvaluator, PositionEvaluator
    from mcts_agents.search.game import Game
    from mcts_agents.search.ismcts import ISMCTS
    from mcts_agents.search.mcts import MCTS
    from mcts_agents.search.pimc import PIMC
    from mcts_agents.search.result import ChildStats, SearchResult
    from mcts_agents.search.searcher import Searcher
    from mcts_agents.seeding import derive_seed

__version__ = "0.2.0"

__all__ = [
    "ISMCTS",
    "MCTS",
    "PIMC",
    "ActionTypeError",
    "Agent",
    "AgentSpec",
    "AgentStats",
    "ArenaResult",
    "BatchEvaluator",
    "BatchedMCTS",
    "Budget",
    "CheckpointError",
    "ChildStats",
    "CloneError",
    "EmptyBufferError",
    "EnvGame",
    "EnvSpec",
    "EvaluatorError",
    "Game",
    "GameOverError",
    "GameRecord",
    "GateResult",
    "HumanAgent",
    "IllegalActionError",
    "InvalidOptionError",
    "InvalidParameterError",
    "InvalidSnapshotError",
    "InvalidStateError",
    "MCTSAgent",
    "MatchResult",
    "ModelFileError",
    "ModelInfo",
    "Move",
    "NoLegalActionError",
    "NotResetError",
    "OpenSpielGame",
    "PUCTAgent",
    "PlayoutCap",
    "PolicyAgent",
    "PositionEvaluator",
    "PriorAgent",
    "RandomAgent",
    "RayNotInstalledError",
    "ReplayBuffer",
    "Resign",
    "ResultsFileBusyError",
    "ResultsFileError",
    "RootParallelSearch",
    "SB3Evaluator",
    "SearchConfig",
    "SearchResult",
    "Searcher",
    "SingleAgentVsOpponent",
    "SpecError",
    "Symmetry",
    "TemperatureSchedule",
    "TooManyGamesError",
    "TorchNotInstalledError",
    "TournamentResult",
    "UnpicklableGameError",
    "WebNotInstalledError",
    "WorkerError",
    "bradley_terry_elo",
    "clone_env",
    "derive_seed",
    "game_from_env",
    "gate",
    "legal_actions",
    "make_agent",
    "make_env",
    "make_searcher",
    "open_model",
    "parse_agent_spec",
    "play_game",
    "play_match",
    "play_selfplay_game",
    "search_batch",
    "select_move",
    "symmetries",
    "tournament",
    "visit_distribution",
    "wilson_interval",
]


def _homes() -> dict[str, str]:
    """Public name -> the module it comes from, read from this file's ``TYPE_CHECKING`` block
    (one list of the names and their modules, not two)."""
    tree = ast.parse(Path(__file__).read_text(encoding="utf-8"))
    block = next(
        node
        for node in tree.body
        if isinstance(node, ast.If)
        and isinstance(node.test, ast.Name)
        and node.test.id == "TYPE_CHECKING"
    )
    return {
        alias.asname or alias.name: str(node.module)
        for node in block.body
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
    }


_HOMES: dict[str, str] | None = None


def __getattr__(name: str) -> Any:
    global _HOMES
    if name == "envs":
        return importlib.import_module("mcts_agents.envs")
    if _HOMES is None:
        _HOMES = _homes()
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'mcts_agents' has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


class _Package(types.ModuleType):
    """This package's module type: two public functions share their module's name (``gate``,
    ``symmetries``); importing that module must not put the module where the function is (the
    import system sets a submodule as its package's attribute)."""

    def __setattr__(self, name: str, value: Any) -> None:
        if name in _SHADOWED and isinstance(value, types.ModuleType):
            return
        super().__setattr__(name, value)


#: Public functions named like the module they live in.
_SHADOWED = frozenset({"gate", "symmetries"})
sys.modules[__name__].__class__ = _Package
