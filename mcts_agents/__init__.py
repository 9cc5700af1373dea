"""mcts-agents: Monte Carlo Tree Search agents for PettingZoo turn-based games.

This module is the public API a user of the README needs: the agents, the search's options and
result, playing games, matches and tournaments, the strength ladders and ``rate``, agents and
envs from spec strings, the Gymnasium wrapper. Everything else lives in the sub-packages, each
of which lists its own public names in its ``__all__`` and says what it is in its docstring:

- ``mcts_agents.envs``: the games as PettingZoo AEC envs and their rules cores;
- ``mcts_agents.search``: the Python searches (``MCTS``, ``ISMCTS``, ``PIMC``), the ``Game``
  protocol, options, results and evaluators;
- ``mcts_agents.compiled``: the numba kernels (the ``fast`` extra);
- ``mcts_agents.adapters``: a live env as a ``Game`` and a root state, cloning;
- ``mcts_agents.planner``: which searcher runs a search (``make_searcher``), root parallelism;
- ``mcts_agents.alphazero``: self-play, the replay buffer, symmetries, the gate;
  ``mcts_agents.alphazero.learn``: the torch network and its training (the ``az`` extra);
- ``mcts_agents.agents``: agents, model agents, specs, one game, batched search;
- ``mcts_agents.arena``: matches, tournaments, results files and ratings;
- ``mcts_agents.rl``: Gymnasium envs against an opponent, policies as agents;
- ``mcts_agents.cli`` and ``mcts_agents.web``: the command line and the browser;
- ``mcts_agents.errors``: every exception the library raises; ``mcts_agents.seeding`` and
  ``mcts_agents.ratings``: seeds and Wilson / Elo statistics.

``docs/architecture.md`` maps the modules. The names are imported on first use (PEP 562,
``mcts_agents._lazy``), so that ``import mcts_agents`` costs milliseconds and a Ctrl-C while
the command line starts is a clean exit: the ``TYPE_CHECKING`` block below says where each name
lives, for type checkers and for ``__getattr__`` alike. The Gymnasium ids
``mcts_agents/<variant>-vs-agent-v0`` are registered as Gymnasium is imported (at once if it
already is), their modules imported by ``gymnasium.make`` only (``_lazy.register_gym_ids``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

# First: in a source checkout this makes the top-level envs/ folder importable as mcts_agents.envs.
from mcts_agents import _source_tree  # noqa: F401
from mcts_agents._lazy import lazy_exports, register_gym_ids_on_import

if TYPE_CHECKING:
    from mcts_agents.adapters import game_from_env
    from mcts_agents.adapters.cloning import clone_env
    from mcts_agents.agents.agent import Agent, HumanAgent, MCTSAgent, RandomAgent
    from mcts_agents.agents.batch import BatchedMCTS
    from mcts_agents.agents.ladder import ladder
    from mcts_agents.agents.models import open_model
    from mcts_agents.agents.play import play_game
    from mcts_agents.agents.policy import PolicyAgent
    from mcts_agents.agents.specs import make_agent, make_env
    from mcts_agents.arena import play_match, rate, tournament
    from mcts_agents.planner.factory import make_searcher
    from mcts_agents.rl import SingleAgentVsOpponent
    from mcts_agents.search.config import Budget, SearchConfig
    from mcts_agents.search.game import Game
    from mcts_agents.search.result import SearchResult
    from mcts_agents.seeding import derive_seed

__version__ = "0.2.0"

#: The public names. Growing this list is a decision (``tests/mcts_agents/test_public_api.py``
#: holds the agreed list): a name that only some users need belongs to its sub-package.
__all__ = [
    "Agent",
    "BatchedMCTS",
    "Budget",
    "Game",
    "HumanAgent",
    "MCTSAgent",
    "PolicyAgent",
    "RandomAgent",
    "SearchConfig",
    "SearchResult",
    "SingleAgentVsOpponent",
    "clone_env",
    "derive_seed",
    "game_from_env",
    "ladder",
    "make_agent",
    "make_env",
    "make_searcher",
    "open_model",
    "play_game",
    "play_match",
    "rate",
    "tournament",
]

_getattr, __dir__ = lazy_exports(__name__)
register_gym_ids_on_import()  # gymnasium.make("mcts_agents/connect_four-vs-agent-v0", ...)


def __getattr__(name: str) -> Any:
    if name == "envs":  # the one sub-package reachable as an attribute: the games
        import mcts_agents.envs

        return mcts_agents.envs
    return _getattr(name)
