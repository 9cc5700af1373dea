"""From a live PettingZoo AEC env to the search's view of it: a ``Game`` and a root state.

``game_from_env(env)`` picks the fastest faithful path, and never changes ``env``:

1. our envs (``env.unwrapped`` is an ``mcts_agents.envs.core.BoardGameEnv``): the rules core and its
   immutable state, with no AEC overhead;
2. Shimmy's OpenSpiel wrapper: a ``Game`` over cloned ``pyspiel`` states;
3. anyone else's AEC env: a ``Game`` over verified clones of the whole wrapper chain.

``copy.deepcopy`` cannot do path 3: PettingZoo's classic envs inherit ``gymnasium.utils.EzPickle``,
whose ``__setstate__`` rebuilds the object from its constructor arguments, so a deep copy taken
mid-game silently holds a fresh, never-reset board (PettingZoo issues #1186, #1271, #1307).
``clone_env`` copies the objects' ``__dict__``s itself, shares what must not be copied (modules,
functions, classes, pygame surfaces and clocks), refuses what cannot be copied faithfully
(generators, locks, open files, threads, sockets, objects with ``__del__``), turns rendering off
in the clone, and then checks the clone against the live env before anyone trusts it.
"""

from __future__ import annotations

import operator
import random
import sys
from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from mcts_agents.cloning import (
    Memo,
    clone_env,
    clone_with_memo,
    describe_env,
    info_mask,
    verified_clone,
    wrapper_chain,
)
from mcts_agents.envs.core.aec import BoardGameEnv
from mcts_agents.errors import (
    CloneError,
    GameOverError,
    IllegalActionError,
    NoLegalActionError,
    NotResetError,
)
from mcts_agents.game import Game, State

__all__ = [
    "EnvGame",
    "EnvState",
    "OpenSpielGame",
    "clone_env",
    "game_from_env",
    "legal_actions",
]


def game_from_env(env: Any) -> tuple[Game, State]:
    """The ``Game`` and root state for the position of the live AEC env ``env``.

    Args:
        env: any PettingZoo AEC env, possibly wrapped, reset and not finished.

    Returns:
        ``(game, state)``: for our envs the rules core and its state (the env's own immutable
        state object); for Shimmy's OpenSpiel wrapper an ``OpenSpielGame`` and a clone of the
        ``pyspiel`` state; otherwise an ``EnvGame`` and an ``EnvState`` over a verified clone.

    Raises:
        GameOverError: no agents remain, or the agent to move is terminated or truncated.
        NoLegalActionError: the agent to move has no legal action.
        NotResetError: the env has not been reset.
        CloneError: the env cannot be adapted (not an AEC env, uncopyable contents, a clone that
            does not match the original, an OpenSpiel game with chance or simultaneous moves).
    """
    if not isinstance(env, AECEnv):
        raise CloneError(
            f"game_from_env expects a PettingZoo AECEnv, got {type(env).__name__} "
            "(wrap a ParallelEnv with pettingzoo.utils.parallel_to_aec)"
        )
    raw = env.unwrapped
    if isinstance(raw, BoardGameEnv):
        _check_live(env, raw.agents, raw.agent_selection, raw.terminations, raw.truncations)
        game, state = raw.game, raw.state
        if game.is_terminal(state):
            raise GameOverError(f"the game in {env} is over")
        if not game.legal_actions(state):
            raise NoLegalActionError(f"{raw.agent_selection} has no legal action in {env}")
        return game, state
    openspiel_type = _openspiel_env_type()
    if openspiel_type is not None and isinstance(raw, openspiel_type):
        return _openspiel_game(env, raw)
    return _env_game(env)


def legal_actions(env: Any) -> list[int]:
    """Legal actions of the agent to move in any live AEC env, without cloning it.

    Our envs answer from the rules core; others from ``observation["action_mask"]``, else
    ``info["action_mask"]``, else every action of the ``Discrete`` space (mask index ``i`` is
    action ``space.start + i``).

    Raises:
        GameOverError, NoLegalActionError, NotResetError: as ``game_from_env``.
    """
    raw = env.unwrapped
    agents, selected, terminations, truncations = _bookkeeping(env)
    _check_live(env, agents, selected, terminations, truncations)
    space = env.action_space(selected)
    start = int(getattr(space, "start", 0))
    if isinstance(raw, BoardGameEnv):
        actions = raw.legal_actions()
    else:
        observation = env.observe(selected)
        if isinstance(observation, dict) and "action_mask" in observation:
            mask = observation["action_mask"]
        else:
            mask = info_mask(env, selected)
        if mask is None:
            if not isinstance(space, spaces.Discrete):
                raise CloneError(
                    f"{describe_env(env)} has no action mask and a {type(space).__name__} "
                    "action space; a Discrete space or a mask is needed"
                )
            return list(range(start, start + int(space.n)))
        actions = [start + int(i) for i in np.flatnonzero(mask)]
    if not actions:
        raise NoLegalActionError(f"{selected} has no legal action in {env}")
    return actions


# ---------------------------------------------------------------------------- liveness checks
def _bookkeeping(env: Any) -> tuple[list[Any], Any, dict[Any, bool], dict[Any, bool]]:
    try:
        return env.agents, env.agent_selection, env.terminations, env.truncations
    except AttributeError as error:
        raise NotResetError(
            f"{describe_env(env)} has no game in progress ({error}); call env.reset() first"
        ) from None


def _check_live(
    env: Any,
    agents: Sequence[Any],
    selected: Any,
    terminations: dict[Any, bool],
    truncations: dict[Any, bool],
) -> None:
    if not agents:
        raise GameOverError(f"no agents remain in {env}: the game is over; reset() for a new one")
    if terminations.get(selected, False) or truncations.get(selected, False):
        raise GameOverError(
            f"{selected} is done in {env}: step(None) to remove finished agents or reset()"
        )


# ---------------------------------------------------------------------------- OpenSpiel path
def _openspiel_env_type() -> type | None:
    """Shimmy's OpenSpiel env class if Shimmy is loaded (an env of it implies it is)."""
    module = sys.modules.get("shimmy.openspiel_compatibility")
    return getattr(module, "OpenSpielCompatibilityV0", None)


class OpenSpielGame:
    """``Game`` over ``pyspiel`` states of a deterministic, sequential, perfect-information game.

    States are ``pyspiel.State`` objects, never mutated: ``next_state`` clones then applies.
    Player ``i`` of OpenSpiel is ``possible_agents[i]`` of Shimmy's env (``"player_i"``). The key
    is ``(current player, str(state))``: OpenSpiel's text of a board game's position, equal for
    transposed move orders (``serialize()`` is the move history, which is not).
    """

    def __init__(self, game: Any) -> None:
        self.game = game
        self.num_players: int = game.num_players()

    def to_play(self, state: Any) -> int:
        return int(state.current_player())

    def legal_actions(self, state: Any) -> list[int]:
        return list(state.legal_actions())

    def next_state(self, state: Any, action: int) -> Any:
        if action not in state.legal_actions():
            raise IllegalActionError(
                f"{self.game}: action {action} is not legal here; legal: {state.legal_actions()}"
            )
        child = state.clone()
        child.apply_action(action)
        return child

    def is_terminal(self, state: Any) -> bool:
        return bool(state.is_terminal())

    def returns(self, state: Any) -> tuple[float, ...]:
        return tuple(state.returns())

    def key(self, state: Any) -> Hashable:
        return (state.current_player(), str(state))

    def rollout(self, state: Any, rng: random.Random) -> tuple[float, ...]:
        """Uniformly random playout on one private clone (same moves as ``default_rollout``)."""
        state = state.clone()
        while not state.is_terminal():
            actions = state.legal_actions()
            state.apply_action(actions[int(rng.random() * len(actions))])
        return tuple(state.returns())


def _openspiel_game(env: Any, raw: Any) -> tuple[OpenSpielGame, Any]:
    agents, selected, terminations, truncations = _bookkeeping(env)
    if not hasattr(raw, "game_state"):
        raise NotResetError(f"{type(raw).__name__} has no game in progress; call env.reset()")
    _check_live(env, agents, selected, terminations, truncations)
    import pyspiel  # present: Shimmy's OpenSpiel module imports it

    state = raw.game_state
    game = state.get_game()
    kind = game.get_type()
    refusals = []
    if kind.dynamics != pyspiel.GameType.Dynamics.SEQUENTIAL:
        refusals.append("simultaneous moves")
    if kind.chance_mode != pyspiel.GameType.ChanceMode.DETERMINISTIC:
        refusals.append("chance nodes (the search would see the env's future dice)")
    if kind.information != pyspiel.GameType.Information.PERFECT_INFORMATION:
        refusals.append("imperfect information (the search would see hidden state)")
    if refusals:
        raise CloneError(
            f"{type(raw).__name__} plays OpenSpiel's {kind.short_name!r}, which has "
            f"{' and '.join(refusals)}; the search supports deterministic, sequential, "
            "perfect-information games"
        )
    if state.is_terminal():
        raise GameOverError(f"the game in {env} is over")
    expected = [f"player_{i}" for i in range(game.num_players())]
    player = state.current_player()
    if list(env.possible_agents) != expected or not 0 <= player < len(expected):
        raise CloneError(
            f"{type(raw).__name__}: agents {env.possible_agents} do not map onto OpenSpiel "
            f"players {expected} (current player {player})"
        )
    if selected != expected[player]:
        raise CloneError(
            f"{type(raw).__name__}: agent to move {selected!r} is not OpenSpiel's current player "
            f"{player}"
        )
    if not state.legal_actions():
        raise NoLegalActionError(f"{selected} has no legal action in {env}")
    return OpenSpielGame(game), state.clone()


# ---------------------------------------------------------------------------- the generic Game
class EnvState:
    """A position of an env clone, treated as immutable (``EnvGame`` clones before stepping).

    Attributes:
        env: the clone (never stepped once it is in a state).
        book: the object of ``env``'s wrapper chain that holds the AEC bookkeeping (``agents``,
            ``agent_selection``, ...), read directly to skip the wrappers' ``__getattr__``.
        rewards: per-player sum of ``env.rewards`` over the steps since the search's root.
        player: index of the agent to move in ``possible_agents`` (-1 when none is left).
        terminal: no agents remain, or every remaining agent is terminated or truncated.
    """

    __slots__ = ("_key", "_legal", "book", "env", "player", "rewards", "terminal")

    def __init__(
        self, env: Any, book: Any, rewards: list[float], player: int, terminal: bool
    ) -> None:
        self.env = env
        self.book = book
        self.rewards = rewards
        self.player = player
        self.terminal = terminal
        self._legal: list[int] | None = None
        self._key: Hashable | None = None


_BOOK_NAMES = ("agents", "agent_selection", "terminations", "truncations", "rewards", "infos")


def _bookkeeper(env: Any) -> Any:
    """The outermost object of ``env``'s chain that defines the bookkeeping attributes.

    PettingZoo's wrappers forward them to the unwrapped env with ``__getattr__``; a wrapper that
    defines any of them itself is the owner. Falls back to ``env`` unless reading the owner gives
    the very same objects as reading ``env``.
    """
    for obj in wrapper_chain(env):
        own = vars(obj).keys() | {
            name for cls in type(obj).__mro__ if cls not in (AECEnv, object) for name in vars(cls)
        }
        if own.intersection(_BOOK_NAMES):
            break
    else:
        return env
    missing = object()
    if all(getattr(obj, n, missing) is getattr(env, n, missing) for n in _BOOK_NAMES):
        return obj
    return env


class EnvGame:
    """``Game`` over clones of any AEC env (the generic, slower path).

    ``next_state`` clones the state's env and steps the clone; a dead agent whose turn comes up
    while others play on is stepped with ``None``, as the AEC loop does. Legal actions come from
    ``observation["action_mask"]``, else ``info["action_mask"]``, else (no mask at all) every
    action of a ``Discrete`` space. Returns are the rewards summed since the root (PettingZoo's
    classic games pay at the end). The key is the unwrapped env's ``state_key()`` if it has one,
    else the agent to move, the agents left and the bytes of every agent's observation.

    Gymnasium spaces are copied from the live env once, then shared by all clones of a search.
    """

    def __init__(self, env: Any, memo: Memo) -> None:
        self.agents: tuple[Any, ...] = tuple(env.possible_agents)
        self.num_players = len(self.agents)
        self._index = {agent: i for i, agent in enumerate(self.agents)}
        # Spaces are specs, not position: copied once from the live env, shared by the clones.
        self._shared: Memo = {id(v): v for v in memo.values() if isinstance(v, spaces.Space)}
        raw = env.unwrapped
        self._state_key = callable(getattr(raw, "state_key", None))
        self._mask_source = self._find_mask_source(env)
        # A mask's index i is action ``start + i`` of a Discrete space (start is usually 0).
        self._start = {a: int(getattr(env.action_space(a), "start", 0)) for a in self.agents}

    def _find_mask_source(self, env: Any) -> str:
        agent = env.agent_selection
        observation = env.observe(agent)
        if isinstance(observation, dict) and "action_mask" in observation:
            return "observation"
        if info_mask(env, agent) is not None:
            return "info"
        space = env.action_space(agent)
        if isinstance(space, spaces.Discrete):
            return "all"
        raise CloneError(
            f"{type(env.unwrapped).__name__} has no action mask and a {type(space).__name__} "
            "action space; the search needs a Discrete space or a mask"
        )

    # -------------------------------------------------------------- states
    def root(self, env: Any) -> EnvState:
        """The root state over ``env`` (a verified clone, from now on never stepped)."""
        return self._state(env, _bookkeeper(env), [0.0] * self.num_players)

    def _state(self, env: Any, book: Any, rewards: list[float]) -> EnvState:
        agents, terminations, truncations = book.agents, book.terminations, book.truncations
        terminal = not agents or all(terminations[a] or truncations[a] for a in agents)
        return EnvState(env, book, rewards, self._index.get(book.agent_selection, -1), terminal)

    def clone_with_memo(self, state: EnvState) -> tuple[Any, Any]:
        memo = dict(self._shared)
        env = clone_with_memo(state.env, memo)
        return env, memo[id(state.book)]

    def _advance(self, env: Any, book: Any, action: Any, rewards: list[float]) -> bool:
        """Step ``env`` in place with ``action``, then ``None`` for dead agents to move.

        Returns whether the game is over.
        """
        index = self._index
        env.step(action)
        for _ in range(self.num_players + 1):
            for agent, reward in book.rewards.items():
                if reward:
                    rewards[index[agent]] += float(reward)
            agents, terminations, truncations = book.agents, book.terminations, book.truncations
            if not agents or all(terminations[a] or truncations[a] for a in agents):
                return True
            selected = book.agent_selection
            if not (terminations[selected] or truncations[selected]):
                return False
            env.step(None)
        raise CloneError(
            f"{type(env.unwrapped).__name__}: stepping finished agents with None does not reach "
            "a live agent"
        )

    # -------------------------------------------------------------- the Game protocol
    def to_play(self, state: EnvState) -> int:
        return state.player

    def legal_actions(self, state: EnvState) -> list[int]:
        legal = state._legal
        if legal is None:
            legal = state._legal = [] if state.terminal else self._legal_now(state.env, state.book)
        return list(legal)

    def _legal_now(self, env: Any, book: Any, observation: Any = None) -> list[int]:
        """Legal actions of the agent to move (``observation``: its observation, if at hand)."""
        agent = book.agent_selection
        source = self._mask_source
        if source == "observation":
            if observation is None:
                observation = env.observe(agent)
            mask = observation["action_mask"]
        elif source == "info":
            mask = book.infos[agent]["action_mask"]
        else:
            space = env.action_space(agent)
            return list(range(int(space.start), int(space.start + space.n)))
        actions: list[int] = np.flatnonzero(mask).tolist()
        if not actions:
            raise NoLegalActionError(
                f"{agent} has no legal action in a clone of {type(env.unwrapped).__name__}, "
                "whose game is not over"
            )
        start = self._start[agent]
        return [a + start for a in actions] if start else actions

    def next_state(self, state: EnvState, action: int) -> EnvState:
        legal = state._legal if state._legal is not None else self.legal_actions(state)
        if action not in legal:
            raise IllegalActionError(
                f"action {action!r} is not legal in this {type(state.env.unwrapped).__name__} "
                f"position; legal: {legal}"
            )
        env, book = self.clone_with_memo(state)
        rewards = list(state.rewards)
        self._advance(env, book, operator.index(action), rewards)
        return self._state(env, book, rewards)

    def is_terminal(self, state: EnvState) -> bool:
        return state.terminal

    def returns(self, state: EnvState) -> tuple[float, ...]:
        return tuple(state.rewards)

    def key(self, state: EnvState) -> Hashable:
        key = state._key
        if key is None:
            env, book = state.env, state.book
            if self._state_key:
                key = env.unwrapped.state_key()
            else:
                agents = tuple(book.agents)
                selected = book.agent_selection
                observed = [env.observe(agent) for agent in agents]
                seen = tuple(_freeze(observation) for observation in observed)
                if self._mask_source == "info":
                    seen += (_freeze(info_mask(book, selected)),)
                elif state._legal is None and not state.terminal and selected in agents:
                    # the search asks for the key, then the legal actions: observe once
                    mover = observed[agents.index(selected)]
                    state._legal = self._legal_now(env, book, mover)
                key = (selected, agents, seen)
            state._key = key
        return key

    def rollout(self, state: EnvState, rng: random.Random) -> tuple[float, ...]:
        """Uniformly random playout on one private clone (same moves as ``default_rollout``)."""
        if state.terminal:
            return tuple(state.rewards)
        env, book = self.clone_with_memo(state)
        rewards = list(state.rewards)
        actions = state._legal if state._legal is not None else self._legal_now(env, book)
        while not self._advance(env, book, actions[int(rng.random() * len(actions))], rewards):
            actions = self._legal_now(env, book)
        return tuple(rewards)


class ReachableEnvGame(EnvGame):
    """``EnvGame`` for an env whose unwrapped env offers ``is_reachable(key)``."""

    def is_reachable(self, state: EnvState, key: Hashable) -> bool:
        """Could the position with ``key`` occur at or after ``state``?"""
        return bool(state.env.unwrapped.is_reachable(key))


def _freeze(x: Any) -> Hashable:
    """A hashable, equality-preserving form of an observation."""
    if isinstance(x, np.ndarray):
        return (x.shape, x.tobytes()) if not x.dtype.hasobject else _freeze(x.tolist())
    if isinstance(x, dict):
        return tuple((k, _freeze(v)) for k, v in x.items())
    if isinstance(x, (list, tuple)):
        return tuple(_freeze(v) for v in x)
    if isinstance(x, np.generic):
        return x.item()
    try:
        hash(x)
    except TypeError:
        return repr(x)
    return x


def _env_game(env: Any) -> tuple[EnvGame, EnvState]:
    agents, selected, terminations, truncations = _bookkeeping(env)
    _check_live(env, agents, selected, terminations, truncations)
    if selected not in env.possible_agents:
        raise CloneError(f"{describe_env(env)}: agent to move {selected!r} is not a possible agent")
    memo: Memo = {}
    clone = verified_clone(env, memo)
    cls = ReachableEnvGame if callable(getattr(env.unwrapped, "is_reachable", None)) else EnvGame
    game = cls(clone, memo)
    root = game.root(clone)
    if root.terminal:
        raise GameOverError(f"the game in {env} is over")
    game.legal_actions(root)  # raises NoLegalActionError for a stuck live env
    return game, root
