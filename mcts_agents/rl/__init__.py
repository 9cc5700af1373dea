"""Reinforcement-learning glue: a Gymnasium env against an opponent, and policies as agents.

``SingleAgentVsOpponent`` (``single_agent``) turns one seat of a PettingZoo AEC game into a
single-agent ``gymnasium.Env`` whose opponents, e.g. an ``MCTSAgent``, move inside ``reset`` and
``step``. ``PolicyAgent`` (``mcts_agents.agents.policy``) goes the other way: a policy callable
or a trained Stable-Baselines3 model as an agent for the arena and the standard AEC loop.
``SB3Evaluator`` (``mcts_agents.agents.sb3``) makes a trained Stable-Baselines3 policy the
search's batch evaluator (PUCT over its priors). ``import mcts_agents`` registers the
``gymnasium.make`` ids for every env (``registration``; ``mcts_agents._lazy``), and so does this
package. Nothing here imports Stable-Baselines3
or torch until a model is loaded or evaluated. ``VectorVsOpponent`` (``vector``) holds N such
games with one batched opponent search per step (the ids' ``gymnasium.make_vec`` entry point);
``sb3_vec`` adapts it to Stable-Baselines3 and is imported only by name. ``LadderTracker``
(``ladder_tracker``) rates a training run's agent on the game's calibrated ladder every K steps;
``ladder_callback.LadderEvalCallback`` does it as an SB3 callback (imported only by name).
``rllib`` and ``rllib_multi`` (the ``rllib`` extra; imported only by name) make the ids RLlib
envs with RLlib's action masking, and our AEC envs an RLlib ``MultiAgentEnv`` with our MCTS as
a fixed ``RLModule``.
"""

from __future__ import annotations

from mcts_agents.agents.policy import Policy, PolicyAgent
from mcts_agents.agents.sb3 import SB3Evaluator
from mcts_agents.rl.ladder_tracker import LadderPoint, LadderTracker
from mcts_agents.rl.registration import gym_id, make_vs_agent, register_envs
from mcts_agents.rl.single_agent import IllegalActionMode, SingleAgentVsOpponent
from mcts_agents.rl.vector import VectorVsOpponent

register_envs()  # gymnasium.make("mcts_agents/<variant>-vs-agent-v0", opponent=...)

__all__ = [
    "IllegalActionMode",
    "LadderPoint",
    "LadderTracker",
    "Policy",
    "PolicyAgent",
    "SB3Evaluator",
    "SingleAgentVsOpponent",
    "VectorVsOpponent",
    "gym_id",
    "make_vs_agent",
    "register_envs",
]
