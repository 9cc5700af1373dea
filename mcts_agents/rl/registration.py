"""``gymnasium.make`` ids for playing one seat of our envs against an agent.

Every env variant of ``mcts_agents.envs`` is registered (by ``import mcts_agents``, as Gymnasium
is imported; ``_lazy.register_gym_ids``) as ``mcts_agents/<variant>-vs-agent-v0``
(e.g. ``gymnasium.make("mcts_agents/connect_four-vs-agent-v0", opponent="mcts:time=0.1")``):
a ``SingleAgentVsOpponent`` whose opponent is built from an agent spec string (default
``"mcts:iterations=200"``), so the id, its keywords and the env pickle to worker processes as
vectorised RL pipelines need. ``gymnasium.make`` sets ``env.spec``. Through gymnasium's wrappers
the mask is ``env.unwrapped.action_masks()`` (or ``env.get_wrapper_attr("action_masks")()``).
``gymnasium.make_vec(id, num_envs=N, opponent=...)`` builds the native vector env of the id
(``vector.VectorVsOpponent``: one batched opponent for all N games; its ``vector_entry_point``).
"""

from __future__ import annotations

from mcts_agents import _lazy
from mcts_agents.agents.agent import MCTSAgent
from mcts_agents.agents.specs import make_env
from mcts_agents.rl.single_agent import (
    IllegalActionMode,
    SingleAgentVsOpponent,
    opponent_from_spec,
)

__all__ = ["gym_id", "make_vs_agent", "prepare_opponents", "register_envs"]

DEFAULT_OPPONENT = "mcts:iterations=200"


def gym_id(variant: str) -> str:
    """The gymnasium id of ``variant`` (an env spec name such as ``"connect_four"``)."""
    return _lazy.gym_id(variant)


def make_vs_agent(
    env: str = "connect_four",
    opponent: str = DEFAULT_OPPONENT,
    learner: str | None = None,
    seed: int | None = None,
    illegal_action: IllegalActionMode = "lose",
    illegal_reward: float = -1.0,
    render_mode: str | None = None,
    search_threads: int | None = 1,
) -> SingleAgentVsOpponent:
    """One seat of the env spec ``env`` (options allowed: ``"connect_four:width=8"``) against
    the agent spec ``opponent``; the other arguments are ``SingleAgentVsOpponent``'s.

    Raises:
        SpecError: a bad env or agent spec, or an opponent that does not play unattended
            (``human``), naming it.
        InvalidOptionError: a bad argument of ``SingleAgentVsOpponent`` (an
            ``illegal_reward`` that is not a finite number, ...).
    """
    aec = make_env(env, render_mode=render_mode)
    wrapper = SingleAgentVsOpponent(
        aec,
        opponent_from_spec(opponent, seed),
        learner=learner,
        seed=seed,
        illegal_action=illegal_action,
        illegal_reward=illegal_reward,
        search_threads=search_threads,
    )
    prepare_opponents(wrapper)
    return wrapper


def prepare_opponents(env: SingleAgentVsOpponent) -> None:
    """Build the searchers of the env's ``MCTSAgent`` opponents (one process each) now, which
    compiles their kernels or loads them from numba's cache.

    ``make_vec(..., vectorization_mode="async")`` builds one env in the parent process before
    it starts the workers: the kernels are compiled there once, and every worker only loads
    them from the cache (instead of each compiling them at once). The AEC env is reset here
    (seed 0) to show the agents the game; every episode resets it again with its own seed.
    """
    agents = {id(agent): agent for agent in env.opponents.values()}.values()
    searching = [a for a in agents if isinstance(a, MCTSAgent) and a.workers == 1]
    if searching:
        env.aec_env.reset(seed=0)
        for agent in searching:
            agent.prepare(env.aec_env)


def register_envs() -> None:
    """Register every variant (idempotent: ids already registered are left alone). ``import
    mcts_agents`` has done it already, as Gymnasium was imported (``_lazy.register_gym_ids``)."""
    _lazy.register_gym_ids()
