"""``env()``'s wrapper: PettingZoo's usual conventions in one thin layer, with clear errors.

PettingZoo's classic envs stack ``TerminateIllegalWrapper``, ``AssertOutOfBoundsWrapper`` and
``OrderEnforcingWrapper``. ``GameWrapper`` keeps their behaviour (an illegal move ends the game
with ``illegal_reward`` for the offender; calls before ``reset`` are refused) in one layer that
talks to the raw env directly, and it raises ``ActionTypeError`` / ``IllegalActionError``
naming the action where ``AssertOutOfBoundsWrapper`` would ``assert`` (asserts vanish under
``python -O``). It subclasses ``OrderEnforcingWrapper``, so code that looks for that wrapper
still finds it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pettingzoo.utils import wrappers
from pettingzoo.utils.env_logger import EnvLogger

from mcts_agents.envs.core.aec import BoardGameEnv
from mcts_agents.envs.core.errors import NotResetError


class GameWrapper(wrappers.OrderEnforcingWrapper[Any, Any, Any]):
    """Order enforcing, clear action errors and terminate-on-illegal-move for a ``BoardGameEnv``.

    Args:
        env: the raw env.
        illegal_reward: the offender's reward for an illegal move (the others get 0).
    """

    def __init__(self, env: BoardGameEnv, illegal_reward: float = -1.0) -> None:
        super().__init__(env)
        self._raw = env
        self._illegal_reward = float(illegal_reward)

    def step(self, action: Any) -> None:
        raw = self._raw
        if not self._has_reset:
            raise NotResetError("reset() must be called before step()")
        self._has_updated = True
        if not raw.agents:
            EnvLogger.warn_step_after_terminated_truncated()
            return
        agent = raw.agent_selection
        if raw.terminations[agent] or raw.truncations[agent]:
            raw.step(action)  # a dead step (or GameOverError for a real action)
            return
        game = raw.game
        if type(action) is not int or not 0 <= action < game.num_actions:
            action = game.action_index(action)  # converts numpy ints; raises for the rest
        if game.is_legal(raw.state, action):
            raw._play(action)
        else:
            self._terminate_illegal(agent)

    def observe(self, agent: str) -> Any:
        if not self._has_reset:
            raise NotResetError("reset() must be called before observe()")
        return self._raw.observe(agent)

    def render(self) -> Any:
        if not self._has_reset:
            raise NotResetError("reset() must be called before render()")
        return self._raw.render()

    def _terminate_illegal(self, agent: str) -> None:
        """PettingZoo's TerminateIllegal convention: the game ends, the offender is punished."""
        EnvLogger.warn_on_illegal_move()
        raw = self._raw
        raw._cumulative_rewards[agent] = 0.0
        raw.terminations = dict.fromkeys(raw.agents, True)
        raw.truncations = dict.fromkeys(raw.agents, True)
        raw.rewards = dict.fromkeys(raw.agents, 0.0)
        raw.rewards[agent] = self._illegal_reward
        raw._accumulate_rewards()
        raw._deads_step_first()


def env_fn(raw_cls: Callable[..., BoardGameEnv]) -> Callable[..., GameWrapper]:
    """Build a module's ``env(**kwargs)`` from its ``raw_env`` class."""

    def env(**kwargs: Any) -> GameWrapper:
        return GameWrapper(raw_cls(**kwargs))

    env.__doc__ = f"The wrapped environment; keyword arguments go to ``{raw_cls.__name__}``."
    return env
