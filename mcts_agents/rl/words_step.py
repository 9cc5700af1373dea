"""The native vector env's sub-envs on the rules' words (``rl.boards``): ``fast_boards`` builds
their ``FastBoards``; ``step_on_words`` is ``rl.vector.VectorVsOpponent.step``'s common case
(every sub-env there), two compiled calls around the searches, or ``None`` where the vector
env must take its general step (which raises for or penalizes an illegal action).
"""

from __future__ import annotations

import importlib.util
from typing import Any

import numpy as np
from gymnasium.vector import AutoresetMode

from mcts_agents.rl.pool_episodes import end_episodes

__all__ = ["fast_boards", "step_on_words"]


def fast_boards(aec_env: Any, num_envs: int) -> Any:
    """``rl.boards.FastBoards`` for ``aec_env``'s game, or ``None`` (no numba, or a game whose
    boards are not words there)."""
    if importlib.util.find_spec("numba") is None:
        return None
    from mcts_agents.rl.boards import FastBoards

    return FastBoards.build(aec_env, num_envs)


def step_on_words(env: Any, fast: Any, actions: np.ndarray) -> Any:
    """``step`` with every sub-env on the rules' words (``fast``), if every sub-env not
    restarting has a legal action in ``actions``: the learners' moves in one compiled call,
    the restarts, the opponents' searches and replies (``FastBoards.advance``), then the
    results and observations of every board in one more call. ``None`` (nothing changed)
    if an action is not legal: the general path then raises or penalizes it."""
    skip = env._autoreset
    if fast.learn(env._masks, skip, actions, env._start) < 0:
        return None
    n = env.num_envs
    rewards = np.zeros(n, dtype=np.float64)
    terminated = np.zeros(n, dtype=bool)
    resetting = skip.nonzero()[0].tolist() if np.count_nonzero(skip) else []
    observed = True
    if resetting:
        env._reset_subs(resetting)
        observed = bool(np.count_nonzero(fast.on) == n)
    if observed:
        fast.advance(env._every)
        done = np.zeros(n, dtype=bool)
        if fast.settle(skip, rewards, terminated, done):
            for i in done.nonzero()[0].tolist():
                env._subs[i]._done = True
    else:  # a restarted sub-env plays on its AEC env: as the general path
        moved = (~skip).nonzero()[0]
        env._advance_all(resetting, moved)
        for i in fast.results(moved, rewards, terminated).tolist():
            env._subs[i]._done = True
    for i in resetting:
        env._check_started(i)
    pool = end_episodes(env, terminated, None)
    final: dict[str, Any] = {}
    if env.autoreset_mode == AutoresetMode.SAME_STEP and terminated.any():
        final = env._reset_finished(np.flatnonzero(terminated).tolist())
        env._autoreset[:] = False
        observed = False
    elif env.autoreset_mode == AutoresetMode.DISABLED:
        env._finished |= terminated
    else:
        env._autoreset = terminated.copy()
    observations = env._collect(observed)
    infos = {**env._infos(), **pool, **final}
    return observations, rewards, terminated, np.zeros(n, dtype=bool), infos
