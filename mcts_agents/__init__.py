"""mcts-agents: Monte Carlo Tree Search agents for PettingZoo turn-based games.

This module is the public API; ``docs/architecture.md`` maps the modules behind it.
"""

# First: in a source checkout this makes the top-level envs/ folder importable as mcts_agents.envs.
from mcts_agents import _source_tree  # noqa: F401
from mcts_agents.adapters import EnvGame, OpenSpielGame, game_from_env
from mcts_agents.aec import legal_actions
from mcts_agents.agent import Agent, HumanAgent, MCTSAgent, RandomAgent
from mcts_agents.arena import (
    AgentStats,
    ArenaResult,
    MatchResult,
    TournamentResult,
    play_match,
    tournament,
)
from mcts_agents.batch_search import BatchedMCTS, search_batch
from mcts_agents.cloning import clone_env
from mcts_agents.config import Budget, SearchConfig
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
from mcts_agents.evaluators import BatchEvaluator, PositionEvaluator
from mcts_agents.factory import make_searcher
from mcts_agents.game import Game
from mcts_agents.gate import GateResult, gate
from mcts_agents.ismcts import ISMCTS
from mcts_agents.mcts import MCTS
from mcts_agents.model_agents import ModelInfo, PriorAgent, PUCTAgent, open_model
from mcts_agents.parallel import RootParallelSearch
from mcts_agents.pimc import PIMC
from mcts_agents.play import Move, play_game
from mcts_agents.ratings import bradley_terry_elo, wilson_interval
from mcts_agents.replay import ReplayBuffer
from mcts_agents.result import ChildStats, SearchResult
from mcts_agents.rl import PolicyAgent, SB3Evaluator, SingleAgentVsOpponent
from mcts_agents.searcher import Searcher
from mcts_agents.seeding import derive_seed
from mcts_agents.selfplay import (
    GameRecord,
    PlayoutCap,
    Resign,
    TemperatureSchedule,
    play_selfplay_game,
)
from mcts_agents.specs import AgentSpec, EnvSpec, make_agent, make_env, parse_agent_spec
from mcts_agents.symmetries import Symmetry, symmetries
from mcts_agents.targets import select_move, visit_distribution

__version__ = "0.1.0"

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
