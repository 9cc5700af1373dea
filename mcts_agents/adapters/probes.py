"""What the generic path checks in an env before it searches clones of it (``generic.env_game``).

A clone holds everything the env holds, so a search of clones reads whatever the env keeps from
its players. Unless the caller asks for ``information="oracle"``:

- randomness at reset: two copies reset with different seeds must end in the same state (apart
  from their generators and seed fields), else the env deals or draws something at reset that
  the player to move may not see (``refuse_randomness_at_reset``);
- hidden state: the env's word decides where it gives one, ``metadata["perfect_information"]``
  (or a ``perfect_information`` attribute of the unwrapped env, the flag of this library's
  rules cores): ``True`` is trusted, ``False`` is refused. Without it the player's observation
  must determine the state: two positions where one agent is to move and sees the same
  observation (its ``observe()``, and its ``info["action_mask"]`` where the mask lives there)
  must hold the same env, apart from generators, seed fields and the rewards already paid.
  ``refuse_hidden_state`` looks for two that do not: breadth first from a reset copy
  (``PROBE_STATES`` positions), then ``PROBE_WALKS`` seeded random games; the search goes on
  checking every position it meets (``EnvGame.key``). Finding two is proof of hidden state; not
  finding any is evidence only, so an env that hides state only in positions neither reaches
  is caught when the search reaches them, or never: declare the flag to be sure.

PettingZoo's classic board games (``KNOWN_BOARD_GAMES``) declare neither flag nor return range
in their metadata; their documentation does (perfect information, +1 for a win, -1 for a loss),
and the generic path takes it as their word.

The verdicts are kept per live env (its unwrapped object), so a game of many moves probes once.
Every probe leaves the live env and the program's global random generators as they were.
"""

from __future__ import annotations

import contextlib
import math
import random
import weakref
from collections import deque
from typing import Any

from mcts_agents.adapters.aec import describe_env
from mcts_agents.adapters.cloning import clone_with_memo
from mcts_agents.adapters.compare import GlobalRandom, first_difference
from mcts_agents.checks import check_bool
from mcts_agents.errors import CloneError

__all__ = [
    "KNOWN_BOARD_GAMES",
    "PROBE_STATES",
    "PROBE_WALKS",
    "declared_perfect_information",
    "declared_return_range",
    "refuse_hidden_state",
    "refuse_randomness_at_reset",
    "refuse_simultaneous",
]

#: Positions the hidden-state probe makes breadth first from a reset copy of the env.
PROBE_STATES = 128
#: Seeded random games the probe plays to the end after that (at most ``PROBE_DEPTH`` moves).
PROBE_WALKS = 4
PROBE_DEPTH = 200
_PROBE_SEEDS = (104_729, 1_299_709)
#: PettingZoo's classic board games (``metadata["name"]``): perfect information, returns in
#: [-1, 1], as PettingZoo documents them.
KNOWN_BOARD_GAMES = frozenset({"chess_v6", "connect_four_v3", "go_v5", "tictactoe_v3"})

#: live env (its unwrapped object) -> why a search of its clones would read hidden randomness
_RESET_PROBES: weakref.WeakKeyDictionary[Any, str | None] = weakref.WeakKeyDictionary()
#: live env (its unwrapped object) -> why its player's observation does not determine the state
_HIDDEN_PROBES: weakref.WeakKeyDictionary[Any, str | None] = weakref.WeakKeyDictionary()


def declared_perfect_information(env: Any) -> bool | None:
    """The env's own word: ``metadata["perfect_information"]``, else the unwrapped env's
    ``perfect_information`` attribute; ``None`` where it gives none."""
    raw = env.unwrapped
    value = getattr(raw, "metadata", {}).get("perfect_information")
    where = 'metadata["perfect_information"]'
    if value is None:
        value = getattr(raw, "perfect_information", None)
        where = "perfect_information"
    if value is None:
        return True if _known_board_game(raw) else None
    return check_bool(value, f"{describe_env(env)}: {where}", error=CloneError)


def declared_return_range(env: Any) -> tuple[float, float] | None:
    """``metadata["return_range"]``: the lowest and highest return an agent can get, or
    ``None`` where the env does not declare it (the search then learns it)."""
    value = getattr(env.unwrapped, "metadata", {}).get("return_range")
    if value is None:
        return (-1.0, 1.0) if _known_board_game(env.unwrapped) else None
    try:
        low, high = (float(v) for v in value)
    except (TypeError, ValueError):
        low = high = math.nan
    if not (math.isfinite(low) and math.isfinite(high) and low < high):
        raise CloneError(
            f'{describe_env(env)}: metadata["return_range"] must be (low, high), two finite '
            f"numbers with low < high, got {value!r}"
        )
    return low, high


def _known_board_game(raw: Any) -> bool:
    return type(raw).__module__.startswith("pettingzoo.classic.") and (
        getattr(raw, "metadata", {}).get("name") in KNOWN_BOARD_GAMES
    )


def _cached(cache: weakref.WeakKeyDictionary[Any, str | None], raw: Any, probe: Any) -> str | None:
    try:
        return cache[raw]
    except (KeyError, TypeError):
        found: str | None = probe()
        with contextlib.suppress(TypeError):  # not weak-referenceable: probe every time
            cache[raw] = found
        return found


def refuse_randomness_at_reset(env: Any, clone: Any) -> None:
    """``CloneError`` if resetting two clones with different seeds gives different states."""
    found = _cached(_RESET_PROBES, env.unwrapped, lambda: _reset_probe(clone))
    if found is not None:
        raise CloneError(
            f"{describe_env(env)} draws randomness at reset ({found}): it may hide cards or "
            "future draws from the player to move, and a search of its clones would read "
            "them; information='oracle' searches the true state anyway, as a cheat, only on "
            "purpose"
        )


def _reset_probe(clone: Any) -> str | None:
    """Where two resets of copies of ``clone`` with different seeds differ, or ``None``."""
    resets = []
    kept = GlobalRandom()
    try:
        for seed in _PROBE_SEEDS:
            copy = clone_with_memo(clone, {})
            try:
                copy.reset(seed=seed)
            except Exception as error:
                return f"resetting a clone to check this raised {error!r}"
            resets.append(copy)
    finally:
        kept.restore()
    return first_difference(resets[0].unwrapped, resets[1].unwrapped, "env.unwrapped")


def refuse_declared_hidden(env: Any) -> None:
    """``CloneError`` for an env that declares it hides information."""
    raise CloneError(
        f"{describe_env(env)} declares perfect_information False: its players do not see the "
        "whole state, and a search of its clones would read what the player to move cannot "
        "see; information='oracle' searches the true state anyway, as a cheat, only on purpose"
    )


def hidden_state_message(env: Any, agent: Any, where: str) -> str:
    """Why a search refuses ``env``: two positions ``agent`` sees alike differ at ``where``."""
    return (
        f"{describe_env(env)} hides state from its players: two positions where {agent!r} is "
        f"to move and sees the same observation differ at {where}, so a search of its clones "
        f"would read what {agent!r} cannot see; information='oracle' searches the true state "
        'anyway, as a cheat, only on purpose (or declare metadata["perfect_information"] = '
        "True if the observation does determine the state)"
    )


def refuse_hidden_state(env: Any, game: Any, clone: Any) -> None:
    """``CloneError`` if the probe finds two positions one player cannot tell apart.

    ``game`` is the ``EnvGame`` (built with ``watch_hidden``) whose ``key`` raises on such a
    pair; the probe walks positions of a reset copy of ``clone`` through it.
    """
    found = _cached(_HIDDEN_PROBES, env.unwrapped, lambda: _hidden_probe(env, game, clone))
    if found is not None:
        raise CloneError(found)


def _hidden_probe(env: Any, game: Any, clone: Any) -> str | None:
    kept = GlobalRandom()
    try:
        start = clone_with_memo(clone, {})
        start.reset(seed=_PROBE_SEEDS[0])
        root = game.root(start)
        _breadth_first(game, root)
        rng = random.Random(_PROBE_SEEDS[1])
        for _ in range(PROBE_WALKS):
            _walk(game, root, rng)
    except CloneError as error:
        return str(error)
    except Exception as error:
        return (
            f"{describe_env(env)}: exploring a reset copy to check that each player's "
            f"observation determines the state raised {error!r}; information='oracle' searches "
            'it without the check (or declare metadata["perfect_information"])'
        )
    finally:
        kept.restore()
    return None


def _breadth_first(game: Any, root: Any) -> None:
    """Key (and so check) positions breadth first until ``PROBE_STATES`` have been made."""
    frontier = deque([root])
    made = 0
    while frontier and made < PROBE_STATES:
        state = frontier.popleft()
        game.key(state)  # raises CloneError for a second position its player sees alike
        if game.is_terminal(state):
            continue
        moves = range(3) if game.is_chance(state) else game.legal_actions(state)  # 3 outcomes
        for move in moves:
            if made >= PROBE_STATES:
                break
            frontier.append(game.next_state(state, move))
            made += 1
    for state in frontier:
        game.key(state)


def _walk(game: Any, state: Any, rng: random.Random) -> None:
    for _ in range(PROBE_DEPTH):
        if game.is_terminal(state):
            return
        game.key(state)
        if game.is_chance(state):
            state = game.next_state(state, int(rng.random() * 3))
            continue
        actions = game.legal_actions(state)
        state = game.next_state(state, actions[int(rng.random() * len(actions))])


def refuse_simultaneous(env: Any) -> None:
    """``CloneError`` for an env whose agents move simultaneously (``CloneError`` names why)."""
    raw = env.unwrapped
    simultaneous = bool(getattr(raw, "metadata", {}).get("is_parallelizable", False))
    converted = type(raw).__name__ == "parallel_to_aec_wrapper"
    if simultaneous or converted:
        raise CloneError(
            f"{describe_env(env)} has simultaneous moves (metadata is_parallelizable or a "
            "parallel env converted to AEC): a player does not see the others' moves of the "
            "same turn, and the search supports sequential games only"
        )
