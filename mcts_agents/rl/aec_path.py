"""The native vector env's AEC path (``rl.vector``): sub-envs stepped through their AEC envs,
their opponents asked for their moves in batches (``agents.batch.act_batch``: the compiled
searches in one kernel call). Sub-envs that are not on the rules' words (``rl.boards``) play
here: Python-search games, adapters, opponents that are not compiled searches."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from mcts_agents.agents.agent import MCTSAgent
from mcts_agents.agents.batch import act_batch
from mcts_agents.agents.play import action_index
from mcts_agents.errors import IllegalActionError
from mcts_agents.rl.sub_env import SubEnv, learner_flags

__all__ = ["advance", "next_opponent", "play_reply"]


def advance(subs: list[SubEnv], indices: list[int], start: int) -> None:
    """Play the opponents of sub-envs ``indices`` (their moves in batches) until each learner is to
    move or its game is over, as ``SingleAgentVsOpponent._play_opponents`` does."""
    pending = list(indices)
    while pending:
        waiting: list[tuple[int, str]] = []
        for i in pending:
            seat = next_opponent(subs, i)
            if seat is not None:
                waiting.append((i, seat))
        if not waiting:
            break
        agents = [subs[i].opponents[seat] for i, seat in waiting]
        envs = [subs[i].aec_env for i, _ in waiting]
        replies = act_batch(agents, envs, keep_results=False)  # moves only: no result built
        for (i, seat), agent, reply in zip(waiting, agents, replies, strict=True):
            if isinstance(agent, MCTSAgent) and type(reply) is int:
                subs[i]._step_env(reply)  # a search's move: one of the legal moves
            else:
                play_reply(subs, start, i, seat, agent, reply)
        pending = [i for i, _ in waiting]
    for i in indices:
        sub = subs[i]
        raw = sub.aec_env.unwrapped
        terminated, truncated = learner_flags(raw, sub._learner_seat())
        if terminated or truncated or not raw.agents:
            sub._done = True


def next_opponent(subs: list[SubEnv], i: int) -> str | None:
    """Step finished seats of sub-env ``i``; the opponent seat to move, or ``None`` when
    the learner is to move or its game is over."""
    sub = subs[i]
    seat = sub._learner_seat()
    env = sub.aec_env.unwrapped  # read past the wrappers (steps still go through them)
    while env.agents:
        terminated, truncated = learner_flags(env, seat)
        if terminated or truncated:
            return None
        current = env.agent_selection
        if env.terminations[current] or env.truncations[current]:
            sub._step_env(None)
            continue
        return None if current == seat else str(current)
    return None


def play_reply(subs: list[SubEnv], start: int, i: int, seat: str, agent: Any, reply: Any) -> None:
    """Play an opponent's reply other than a search's move, checked against the mask."""
    sub = subs[i]
    # an int is an action already; anything else is checked (the message formatted then)
    action = reply if type(reply) is int else action_index(reply, f"{agent!r} ({seat})")
    observation = sub.aec_env.observe(seat)
    if isinstance(observation, Mapping) and "action_mask" in observation:
        mask = np.asarray(observation["action_mask"]).astype(bool)
        index = action - start
        if not 0 <= index < len(mask) or not mask[index]:
            legal = [start + int(a) for a in np.flatnonzero(mask)]
            raise IllegalActionError(
                f"{agent!r} played the illegal action {action} for {seat} in sub-env {i}; "
                f"legal: {legal}"
            )
    sub._step_env(action)
