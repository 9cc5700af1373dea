"""An ``OpponentPool`` inside the RL envs (``rl.single_agent``, ``rl.vector``): the opponent drawn
at each episode start (``start_episode``), the learner's score recorded at each end
(``end_episode``), the ends' ``info`` and the vector env's per-sub-env info arrays
(``end_episodes``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from mcts_agents.arena.tasks import scores
from mcts_agents.rl.pool import OpponentPool

__all__ = ["end_episode", "end_episodes", "learner_score", "start_episode"]


def learner_score(returns: dict[str, float], seat: str, seats: Sequence[str]) -> float:
    """The learner's score of a finished game, as the arena scores it (``arena.tasks.scores``:
    the unique best return wins, a tie at the top draws): 1, 1/2 or 0."""
    values = [float(returns.get(s, 0.0)) for s in seats]
    return scores(values)[0][list(seats).index(seat)]


def start_episode(env: Any) -> None:
    """Draw ``env.pool``'s next opponent and make it ``env``'s opponent for every other seat:
    one agent per entry and env, kept from episode to episode (an ``MCTSAgent`` keeps its
    compiled searcher; ``reset`` forgets its tree). A new agent is seeded from
    ``env.np_random``, as a replaced opponent is; an old one is reseeded on seeded resets only,
    as every opponent is (``SingleAgentVsOpponent``'s Seeding)."""
    pool: OpponentPool = env.pool
    name = pool.draw()
    kept = env._pool_agents.get(name)
    if kept is None or kept[0] is not pool.entry(name):
        agent = pool.opponent(name, seed=env._draw_seed())
        opponents = dict.fromkeys(env.seats, agent)
        kept = env._pool_agents[name] = (pool.entry(name), opponents)
    env.opponents = kept[1]
    env.opponent = next(iter(kept[1].values()))
    env.pool_entry = name


def end_episode(
    env: Any, returns: dict[str, float], info: dict[str, Any], moves: Any = None
) -> None:
    """Record the learner's score against this episode's entry (with every seat's return and
    the game's ``moves``, by default those ``env`` played: the pool's results file);
    ``info["pool_entry"]`` and ``info["pool_score"]`` say which and what."""
    name = env.pool_entry
    if name is None:
        return
    score = learner_score(returns, env.seat, env.seats)
    if name in env.pool.names:  # (an entry removed mid-episode is not counted)
        values = {s: float(returns.get(s, 0.0)) for s in env.seats}
        if moves is None:
            moves = getattr(env, "_moves", None)
        env.pool.record(name, score, env.seat, values, moves)
    info["pool_entry"], info["pool_score"] = name, score
    env.pool_entry = None


def end_episodes(env: Any, ended: np.ndarray, illegal: np.ndarray | None) -> dict[str, Any]:
    """The vector env's ends: for each sub-env of ``ended`` with a pool, its score recorded (an
    illegal action, ``illegal[i] >= 0``, is a loss); the infos ``"pool_entry"`` and
    ``"pool_score"`` (arrays over the sub-envs, with their ``_`` masks)."""
    done = [i for i in np.flatnonzero(ended).tolist() if env._subs[i].pool_entry is not None]
    if not done:
        return {}
    n = env.num_envs
    entries = np.full(n, None, dtype=object)
    found = np.full(n, np.nan)
    where = np.zeros(n, dtype=bool)
    fast = env._fast
    for i in done:
        sub = env._subs[i]
        info: dict[str, Any] = {}
        moves = None  # (the sub-env's own, ``end_episode``, unless it is on the words)
        if fast is not None and fast.on[i] and sub.pool.out is not None:
            moves = fast.history[i, : fast.lengths[i]].tolist()
        if illegal is not None and illegal[i] >= 0:
            returns = {s: (0.0 if s != sub.seat else -1.0) for s in sub.seats}
        else:
            returns = env._sub_info(i)["returns"]
        end_episode(sub, returns, info, moves)
        entries[i], found[i], where[i] = info["pool_entry"], info["pool_score"], True
    return {
        "pool_entry": entries,
        "_pool_entry": where,
        "pool_score": found,
        "_pool_score": where.copy(),
    }
