"""Agents that act in a live PettingZoo AEC env (``act(env) -> action``), and what makes them.

- ``agent``: the ``Agent`` protocol, ``MCTSAgent``, ``RandomAgent`` and ``HumanAgent``;
- ``models``: agents over a trained model: ``PUCTAgent`` (search with its priors and values),
  ``PriorAgent`` (its raw policy); ``open_model`` reads a model file (``ModelInfo``);
- ``policy``: ``PolicyAgent``, any ``Policy`` callable or a Stable-Baselines3 model as an agent;
  ``sb3``: ``SB3Evaluator``, such a model as the search's evaluator;
- ``specs``: agents and envs from spec strings (``make_agent``, ``make_env``,
  ``parse_agent_spec``: ``"mcts:iterations=400"``, ``"connect_four"``);
- ``play``: ``play_game``, one game between agents (its ``Move`` records);
- ``batch``: ``BatchedMCTS`` and ``search_batch``, many games searched in one call;
- ``ladder``: the calibrated strength ladders (``Level``, ``Ladder``, ``LEVEL_SPECS``,
  ``load_ladder``; ``mcts_agents.ladder(env)`` gives a game's levels).

The names below are imported on first use (nothing here imports torch until a model is read).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mcts_agents._lazy import lazy_exports

if TYPE_CHECKING:
    from mcts_agents.agents.agent import Agent, HumanAgent, MCTSAgent, RandomAgent
    from mcts_agents.agents.batch import BatchedMCTS, search_batch
    from mcts_agents.agents.ladder import (
        LEVEL_SPECS,
        Ladder,
        Level,
        ladder_game,
        level_spec,
        load_ladder,
        save_ladder,
    )
    from mcts_agents.agents.models import ModelInfo, PriorAgent, PUCTAgent, open_model
    from mcts_agents.agents.play import Move, play_game
    from mcts_agents.agents.policy import Policy, PolicyAgent
    from mcts_agents.agents.sb3 import SB3Evaluator
    from mcts_agents.agents.specs import (
        AgentSpec,
        EnvSpec,
        make_agent,
        make_env,
        parse_agent_spec,
    )

__all__ = [
    "LEVEL_SPECS",
    "Agent",
    "AgentSpec",
    "BatchedMCTS",
    "EnvSpec",
    "HumanAgent",
    "Ladder",
    "Level",
    "MCTSAgent",
    "ModelInfo",
    "Move",
    "PUCTAgent",
    "Policy",
    "PolicyAgent",
    "PriorAgent",
    "RandomAgent",
    "SB3Evaluator",
    "ladder_game",
    "level_spec",
    "load_ladder",
    "make_agent",
    "make_env",
    "open_model",
    "parse_agent_spec",
    "play_game",
    "save_ladder",
    "search_batch",
]

__getattr__, __dir__ = lazy_exports(__name__)
