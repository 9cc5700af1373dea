"""The AEC play loop, written once: the arena, the CLI and the RL wrapper all play through it.

``play_game(env, players)`` plays a live PettingZoo AEC env from where it stands: the agent to
move acts (``players[agent].act(env)``), finished agents are stepped with ``None`` as the AEC
loop requires, and every agent's rewards are summed from ``env.rewards`` after every step. It
stops when no agent is left, or earlier when ``until(env)`` says so (the RL wrapper stops at its
learner's turn). ``on_move`` sees each move as it is played, with its time and search result.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from time import perf_counter
from typing import Any

import numpy as np

from mcts_agents.errors import ActionTypeError, IllegalActionError

__all__ = ["Move", "action_index", "check_legal_action", "play_game", "step_summing"]


def action_index(action: Any, who: str) -> int:
    """``action`` as a Python int (numpy integers and one-element arrays are accepted).

    Raises:
        ActionTypeError: naming ``who`` gave it, for a bool or anything not an integer.
    """
    if isinstance(action, np.ndarray) and action.size == 1:
        action = action.reshape(()).item()
    if isinstance(action, (bool, np.bool_)):
        raise ActionTypeError(f"{who} gave the action {action!r}; expected an integer, not a bool")
    try:
        return operator.index(action)
    except TypeError:
        raise ActionTypeError(
            f"{who} gave the action {action!r} of type {type(action).__name__}; expected an integer"
        ) from None


@dataclass(frozen=True, slots=True)
class Move:
    """One move of ``play_game``.

    Attributes:
        agent: the agent id that moved.
        action: the action played.
        seconds: wall-clock time of the player's ``act`` call.
        result: the player's ``last_result`` after ``act`` (an ``MCTSAgent``'s
            ``SearchResult``), or ``None`` for players without one.
    """

    agent: Any
    action: Any
    seconds: float
    result: Any


def play_game(
    env: Any,
    players: Mapping[Any, Any],
    *,
    returns: dict[Any, float] | None = None,
    until: Callable[[Any], bool] | None = None,
    on_move: Callable[[Move], None] | None = None,
    check_legal: bool = False,
    prepare: bool = True,
) -> dict[Any, float]:
    """Play ``env`` (reset, possibly mid-game) until no agent is left or ``until(env)``.

    Args:
        env: a live PettingZoo AEC env.
        players: agent id -> anything with ``act(env) -> action``, for every agent that moves.
        returns: a dict to add each agent's rewards into (a new one if ``None``); the same dict
            is returned, so calls can go on summing one episode.
        until: checked before every step; ``True`` stops the loop (the env is left as it is).
        on_move: called after every move (not after ``None`` steps of finished agents).
        check_legal: refuse an action the mover's action mask forbids with an
            ``IllegalActionError`` naming the player, instead of stepping the env with it (which
            PettingZoo's ``env()`` wrappers score as a loss for the offender); a non-integer
            action raises ``ActionTypeError``.
        prepare: call ``prepare(env)`` of the players that have one (``MCTSAgent``) before the
            first move, so that loading a compiled kernel or starting workers is not in any
            move's ``seconds``.

    Returns:
        ``returns``: the summed rewards of every agent that got any since the call began.
    """
    totals: dict[Any, float] = {} if returns is None else returns
    first = env.agent_selection if env.agents else None
    live = first is not None and not (env.terminations[first] or env.truncations[first])
    if prepare and live and not (until is not None and until(env)):
        for player in {id(p): p for p in players.values()}.values():
            ready = getattr(player, "prepare", None)
            if ready is not None:
                ready(env)  # kernels load and workers start before any move is timed
    while env.agents:
        if until is not None and until(env):
            break
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            step_summing(env, None, totals)
            continue
        player = players[agent]
        start = perf_counter()
        action = player.act(env)
        seconds = perf_counter() - start
        if check_legal:
            action = action_index(action, f"{player!r} ({agent})")
            check_legal_action(env, agent, action, player)
        step_summing(env, action, totals)
        if on_move is not None:
            on_move(Move(agent, action, seconds, getattr(player, "last_result", None)))
    return totals


def step_summing(env: Any, action: Any, totals: dict[Any, float]) -> None:
    """``env.step(action)``, every agent's reward of the step added into ``totals``."""
    env.step(action)
    for agent, reward in env.rewards.items():
        if reward:
            totals[agent] = totals.get(agent, 0.0) + float(reward)


def check_legal_action(env: Any, agent: Any, action: int, player: Any) -> None:
    """``IllegalActionError`` naming ``player`` if ``agent``'s action mask forbids ``action``."""
    observation = env.observe(agent)
    if isinstance(observation, Mapping) and "action_mask" in observation:
        mask = np.asarray(observation["action_mask"]).astype(bool)
    else:
        return  # no mask to check against: the env itself judges the action
    start = int(getattr(env.action_space(agent), "start", 0))
    index = action - start
    if not 0 <= index < len(mask) or not mask[index]:
        legal = [start + int(i) for i in np.flatnonzero(mask)]
        raise IllegalActionError(
            f"{player!r} played the illegal action {action} for {agent}; legal: {legal}"
        )
