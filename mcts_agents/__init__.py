"""mcts-agents: Monte Carlo Tree Search agents for PettingZoo turn-based games."""

# First: in a source checkout this makes the top-level envs/ folder importable as mcts_agents.envs.
from mcts_agents import _source_tree  # noqa: F401
from mcts_agents.adapters import game_from_env
from mcts_agents.agent import Agent, MCTSAgent, RandomAgent
from mcts_agents.arena import MatchResult, TournamentResult, play_match, tournament
from mcts_agents.cloning import clone_env
from mcts_agents.config import Budget, SearchConfig
from mcts_agents.errors import (
    CloneError,
    GameOverError,
    IllegalActionError,
    InvalidOptionError,
    NoLegalActionError,
    NotResetError,
)
from mcts_agents.game import Game
from mcts_agents.parallel import RootParallelSearch
from mcts_agents.ratings import bradley_terry_elo, wilson_interval
from mcts_agents.result import ChildStats, SearchResult
from mcts_agents.rl import PolicyAgent, SingleAgentVsOpponent
from mcts_agents.search import MCTS
from mcts_agents.specs import HumanAgent, SpecError, make_agent, make_env, parse_agent_spec

__version__ = "0.1.0"

__all__ = [
    "MCTS",
    "Agent",
    "Budget",
    "ChildStats",
    "CloneError",
    "Game",
    "GameOverError",
    "HumanAgent",
    "IllegalActionError",
    "InvalidOptionError",
    "MCTSAgent",
    "MatchResult",
    "NoLegalActionError",
    "NotResetError",
    "PolicyAgent",
    "RandomAgent",
    "RootParallelSearch",
    "SearchConfig",
    "SearchResult",
    "SingleAgentVsOpponent",
    "SpecError",
    "TournamentResult",
    "bradley_terry_elo",
    "clone_env",
    "game_from_env",
    "make_agent",
    "make_env",
    "parse_agent_spec",
    "play_match",
    "tournament",
    "wilson_interval",
]
