"""``BoardGameEnv``: a PettingZoo AEC environment over any ``BoardGame`` rules core.

The env keeps one immutable game state plus the AEC bookkeeping (agents, rewards,
terminations, ...). ``save_state`` copies a handful of references, O(1) in the board size;
``restore_state`` also checks the snapshot against the rules (the core's ``check_state``,
O(board)). The planner's fast path skips the AEC layer altogether and works on
``env.unwrapped.game`` and ``env.unwrapped.state``, so a search never pays for the checks.

Games with chance nodes (dice, deals) are resolved by the env: after ``reset`` and after every
move, chance outcomes are drawn with the env's own seeded generator (``reset(seed=...)``) until
a player is to move, so agents never act at a chance node. In games with private information
every agent's observation shows only what it may see; ``information_set(agent)`` gives its key.
"""

from __future__ import annotations

import math
import operator
import sys
from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any, ClassVar

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from mcts_agents.envs.core.checks import short
from mcts_agents.envs.core.errors import (
    GameOverError,
    InvalidParameterError,
    InvalidSnapshotError,
    InvalidStateError,
)
from mcts_agents.envs.core.game import BoardGame
from mcts_agents.envs.core.render import draw_grid

AgentID = str
Observation = dict[str, np.ndarray]


@dataclass(frozen=True, slots=True)
class EnvSnapshot:
    """Everything needed to put a ``BoardGameEnv`` back exactly as it was.

    Attributes:
        spec: the game's ``spec`` (a snapshot only restores into an env with the same rules).
        state: the rules core's immutable state.
        agents: agents still in the game, in order.
        agent_selection: the agent whose turn it is (or who must step ``None`` after the end).
        rewards: ``(agent, reward)`` pairs of the last step.
        cumulative_rewards: ``(agent, reward)`` pairs not yet collected by ``last()``.
        terminations: ``(agent, flag)`` pairs.
        truncations: ``(agent, flag)`` pairs.
        rng_state: in games with chance, the state of the generator that draws the next
            outcomes (frozen into nested tuples, so the snapshot stays immutable and hashable),
            else ``None``.
    """

    spec: tuple[Hashable, ...]
    state: Hashable
    agents: tuple[AgentID, ...]
    agent_selection: AgentID
    rewards: tuple[tuple[AgentID, float], ...]
    cumulative_rewards: tuple[tuple[AgentID, float], ...]
    terminations: tuple[tuple[AgentID, bool], ...]
    truncations: tuple[tuple[AgentID, bool], ...]
    rng_state: Hashable = None  # games with chance: the generator's state, as nested tuples


class BoardGameEnv(AECEnv[AgentID, Observation, int]):
    """AEC environment for a turn-based game given by a ``BoardGame`` rules core.

    Observations are ``{"observation": int8 planes from the observing agent's view,
    "action_mask": int8}``; the mask is all zeros for an agent that is not to move. Rewards are
    the core's returns, paid once at the end. ``step`` raises ``IllegalActionError`` (a
    ``ValueError``) for an illegal move; ``env()`` wraps it in PettingZoo's TerminateIllegal
    convention instead.
    """

    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": ["ansi", "rgb_array", "human"],
        "name": "board_game_v0",
        "is_parallelizable": False,
        "render_fps": 1,
    }
    #: thicker grid lines every ``render_block`` squares in ``rgb_array`` drawings (0: none).
    render_block: ClassVar[int] = 0

    def __init__(self, game: BoardGame[Any], render_mode: str | None = None) -> None:
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise InvalidParameterError(
                f"render_mode must be None or one of {self.metadata['render_modes']}, "
                f"got {render_mode!r}"
            )
        self.render_mode = render_mode
        self._game = game
        self.possible_agents = [f"player_{i}" for i in range(game.num_players)]
        self._index = {agent: i for i, agent in enumerate(self.possible_agents)}
        #: a game in progress as save_state gives it: all agents, no rewards, no flags
        self._live_bookkeeping = (
            tuple(self.possible_agents),
            tuple((a, 0.0) for a in self.possible_agents),
            tuple((a, False) for a in self.possible_agents),
        )
        observation_space = spaces.Dict(
            {
                "observation": spaces.Box(0, 1, shape=game.observation_shape, dtype=np.int8),
                "action_mask": spaces.Box(0, 1, shape=(game.num_actions,), dtype=np.int8),
            }
        )
        action_space: spaces.Discrete = spaces.Discrete(game.num_actions)
        self.observation_spaces = dict.fromkeys(self.possible_agents, observation_space)
        self.action_spaces = dict.fromkeys(self.possible_agents, action_space)
        if game.has_chance:  # the initial deal needs a generator before reset (unseeded)
            self._np_random, self._np_random_seed = gymnasium.utils.seeding.np_random(None)
        self._state: Hashable = self._resolve_chance(game.initial_state())
        self._start_bookkeeping()

    # ------------------------------------------------------------------ PettingZoo API
    def observation_space(self, agent: AgentID) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: AgentID) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a new game. The games are deterministic; ``seed`` (``None`` or an integer,
        numpy's too: a bool is a ``TypeError``) seeds ``np_random``."""
        if seed is not None:
            if isinstance(seed, (bool, np.bool_)) or not hasattr(seed, "__index__"):
                raise TypeError(f"seed must be None or an integer, got {seed!r}")
            seed = operator.index(seed)
        if seed is not None or not hasattr(self, "_np_random"):
            self._np_random, self._np_random_seed = gymnasium.utils.seeding.np_random(seed)
        self._state = self._resolve_chance(self._game.initial_state())
        self._start_bookkeeping()

    def _start_bookkeeping(self) -> None:
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[AgentID, dict[str, Any]] = {agent: {} for agent in self.agents}
        self.agent_selection = self.possible_agents[self._game.to_play(self._state)]

    def observe(self, agent: AgentID) -> Observation:
        game, state = self._game, self._state
        player = self._index[agent]
        if agent == self.agent_selection and not (
            self.terminations[agent] or self.truncations[agent] or game.is_terminal(state)
        ):
            mask = game.legal_mask(state)
        else:
            mask = np.zeros(game.num_actions, dtype=np.int8)
        return {"observation": game.observation(state, player), "action_mask": mask}

    def step(self, action: Any) -> None:
        if not self.agents:
            raise GameOverError(
                f"no agents remain in {self.metadata['name']}: the game is over and every "
                f"finished agent was removed; reset() for a new game (got action {action!r})"
            )
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            if action is not None:
                raise GameOverError(
                    f"the game is over for {agent}: step(None) to remove finished agents or "
                    f"reset() for a new game; got action {action!r}"
                )
            self._was_dead_step(action)
            return
        self._play(self._game.check_action(self._state, action))

    def _play(self, action: int) -> None:
        """Play a checked, legal ``action`` for the agent to move.

        Rewards are paid only at the end, so during a game ``rewards`` and
        ``_cumulative_rewards`` stay all zero and a move only changes the state and the turn.
        """
        game = self._game
        state = game.next_state(self._state, action)
        if game.has_chance:
            state = self._resolve_chance(state)
        self._state = state
        if game.is_terminal(state):
            self._cumulative_rewards[self.agent_selection] = 0.0
            self.rewards = dict(zip(self.possible_agents, game.returns(state), strict=True))
            self.terminations = dict.fromkeys(self.agents, True)
            self._accumulate_rewards()
        else:
            self.agent_selection = self.possible_agents[game.to_play(state)]

    def _resolve_chance(self, state: Hashable) -> Hashable:
        """Draw chance outcomes with the env's generator until a player is to move (or the end)."""
        game = self._game
        if game.has_chance:
            while game.is_chance(state):
                state = game.next_state(state, game.sample_chance(state, self._np_random))
        return state

    def render(self) -> str | np.ndarray | None:
        if self.render_mode is None:
            gymnasium.logger.warn(
                "render() called without a render_mode; pass render_mode='ansi', "
                "'rgb_array' or 'human' to the constructor."
            )
            return None
        if self.render_mode == "rgb_array":
            return draw_grid(self._game.grid(self._state), block=self.render_block)
        text = self._game.render_text(self._state)
        if self.render_mode == "ansi":
            return text
        sys.stdout.write(text + "\n")  # render_mode="human" prints the text board
        return None

    def close(self) -> None:
        """Nothing to release: rendering holds no windows."""

    # ------------------------------------------------------------------ fast path
    @property
    def game(self) -> BoardGame[Any]:
        """The rules core (shared, immutable)."""
        return self._game

    @property
    def state(self) -> Hashable:
        """The rules core's current immutable state."""
        return self._state

    def save_state(self) -> EnvSnapshot:
        """An immutable snapshot of the game and the AEC bookkeeping, in O(1)."""
        return EnvSnapshot(
            spec=self._game.spec,
            state=self._state,
            agents=tuple(self.agents),
            agent_selection=self.agent_selection,
            rewards=tuple(self.rewards.items()),
            cumulative_rewards=tuple(self._cumulative_rewards.items()),
            terminations=tuple(self.terminations.items()),
            truncations=tuple(self.truncations.items()),
            rng_state=_freeze(self._np_random.bit_generator.state)
            if self._game.has_chance
            else None,
        )

    def restore_state(self, snapshot: EnvSnapshot) -> None:
        """Put the env back exactly as it was when ``snapshot`` was taken.

        The snapshot is checked whole before anything changes, and the env stays as it was if
        it is refused: ``InvalidSnapshotError`` (a ``TypeError``) for something that is not a
        snapshot of this game, ``InvalidStateError`` (a ``ValueError``) naming the field for a
        forged or damaged one (a state no play reaches, bookkeeping that does not fit it, a bad
        generator state). The checks cost O(board); the search never makes them.
        """
        if not isinstance(snapshot, EnvSnapshot):
            raise InvalidSnapshotError(
                f"restore_state expects an EnvSnapshot from save_state(), "
                f"got {type(snapshot).__name__}"
            )
        if snapshot.spec != self._game.spec:
            raise InvalidSnapshotError(
                f"snapshot is of game {snapshot.spec}, this env plays {self._game.spec}"
            )
        self._check_snapshot(snapshot)
        if snapshot.rng_state is not None:
            try:
                self._np_random.bit_generator.state = _thaw(snapshot.rng_state)
            except (TypeError, ValueError, KeyError) as error:
                raise InvalidSnapshotError(
                    f"snapshot's generator state is damaged: {error}"
                ) from None
        self._state = snapshot.state
        self.agents = list(snapshot.agents)
        self.agent_selection = snapshot.agent_selection
        self.rewards = dict(snapshot.rewards)
        self._cumulative_rewards = dict(snapshot.cumulative_rewards)
        self.terminations = dict(snapshot.terminations)
        self.truncations = dict(snapshot.truncations)
        self.infos = {agent: {} for agent in self.agents}

    def _check_snapshot(self, snapshot: EnvSnapshot) -> None:
        """``InvalidStateError`` unless ``snapshot`` is a position of this game as this env
        holds one: the state passes the core's ``check_state`` (and every view of it can be
        computed), the bookkeeping agrees with it (``_check_bookkeeping``) and a game with
        chance carries a generator state of the env's kind. Cheap: O(board) in the core's check,
        O(players) here."""
        game, state = self._game, snapshot.state
        try:
            game.check_state(state)
            hash(state)
            if type(game).check_state is BoardGame.check_state:  # no checks of its own:
                game.key(state)  # at least every view of the state can be computed
                for player in range(game.num_players):
                    game.observation(state, player)
                game.legal_actions(state)
            terminal = game.is_terminal(state)
            if terminal and len(game.returns(state)) != game.num_players:
                raise ValueError(f"its returns are not one per player: {game.returns(state)}")
            if not terminal and game.has_chance and game.is_chance(state):
                raise ValueError("it is a chance node; the env draws chance outcomes itself")
            mover = None if terminal else self.possible_agents[game.to_play(state)]
        except InvalidStateError as error:
            raise InvalidStateError(
                f"snapshot's state is not a state of {game!r}: {error}"
            ) from None
        except (TypeError, ValueError, IndexError, KeyError, AttributeError) as error:
            raise InvalidStateError(
                f"snapshot's state {short(state)} is not a state of {game!r}: {error!r}"
            ) from None
        self._check_bookkeeping(snapshot, mover)
        if game.has_chance:
            self._check_rng_state(snapshot.rng_state)
        elif snapshot.rng_state is not None:
            raise InvalidStateError(
                f"snapshot's rng_state {short(snapshot.rng_state)}: a game without chance keeps "
                "none (expected None)"
            )

    def _check_bookkeeping(self, snapshot: EnvSnapshot, mover: AgentID | None) -> None:
        """The agents, rewards, terminations and truncations of ``snapshot`` agree with its
        state; ``mover`` is the agent to move, None when the state is terminal."""
        all_agents, no_rewards, no_flags = self._live_bookkeeping
        fields = (snapshot.agents, snapshot.rewards, snapshot.cumulative_rewards)
        flag_fields = (snapshot.terminations, snapshot.truncations)
        try:
            if (  # the usual case, a game in progress, in one comparison per field
                mover is not None
                and type(snapshot.agent_selection) is str
                and snapshot.agent_selection == mover
                and fields == (all_agents, no_rewards, no_rewards)
                and flag_fields == (no_flags, no_flags)
            ):
                return
        except (TypeError, ValueError):  # junk that compares badly (arrays): the checks below
            pass
        possible = self.possible_agents
        agents = snapshot.agents
        if (
            not isinstance(agents, tuple)
            or not all(isinstance(a, str) and a in self._index for a in agents)
            or list(agents) != sorted(set(agents), key=possible.index)
        ):
            raise InvalidStateError(
                f"snapshot's agents {short(agents)} are not agents of this env in seat order "
                f"(expected a tuple drawn from {possible})"
            )
        selected = snapshot.agent_selection
        if (
            not isinstance(selected, str)
            or selected not in possible
            or (agents and selected not in agents)
        ):
            raise InvalidStateError(
                f"snapshot's agent_selection {short(selected)} is not one of its agents {agents}"
            )
        values = {}
        for name in ("rewards", "cumulative_rewards", "terminations", "truncations"):
            pairs = getattr(snapshot, name)
            flags = name in ("terminations", "truncations")
            try:
                table = dict(pairs)
                if len(table) != len(pairs) or set(table) != set(agents):
                    raise ValueError
                for value in table.values():
                    if flags and not isinstance(value, (bool, np.bool_)):
                        raise ValueError
                    if not flags and (
                        isinstance(value, (bool, np.bool_))
                        or not isinstance(value, (int, float, np.integer, np.floating))
                        or not math.isfinite(value)
                    ):
                        raise ValueError
            except (TypeError, ValueError, OverflowError):
                kind = "flag" if flags else "finite number"
                raise InvalidStateError(
                    f"snapshot's {name} {short(pairs)} are not (agent, {kind}) pairs, one for "
                    f"each of its agents {agents}"
                ) from None
            values[name] = table
        terminated = values["terminations"].values()
        truncated = values["truncations"].values()
        if mover is None:  # the game is over: every agent left is terminated, none truncated
            returns = dict(zip(possible, self._game.returns(snapshot.state), strict=True))
            if not all(terminated) or any(truncated):
                raise InvalidStateError(
                    f"snapshot's state is terminal, so its agents are terminated and not "
                    f"truncated; got terminations {snapshot.terminations}, truncations "
                    f"{snapshot.truncations}"
                )
            for name in ("rewards", "cumulative_rewards"):
                if any(v not in (0.0, returns[a]) for a, v in values[name].items()):
                    raise InvalidStateError(
                        f"snapshot's {name} {getattr(snapshot, name)} are neither the game's "
                        f"returns {returns} nor 0"
                    )
        elif not agents:  # env()'s illegal-move ending, every agent stepped out since
            pass
        elif any(terminated) or any(truncated):
            if not (all(terminated) and all(truncated)):  # env()'s illegal-move ending
                raise InvalidStateError(
                    f"snapshot's terminations {snapshot.terminations} and truncations "
                    f"{snapshot.truncations} on a live state: a game goes on until its end, or "
                    "an illegal move ends it for every agent (terminated and truncated)"
                )
        elif list(agents) != possible:
            raise InvalidStateError(
                f"snapshot's agents {agents}: in a game in progress every agent {possible} plays"
            )
        elif selected != mover:
            raise InvalidStateError(
                f"snapshot's agent_selection {selected} is not the state's player to move {mover}"
            )
        else:
            for name in ("rewards", "cumulative_rewards"):
                if any(values[name].values()):
                    raise InvalidStateError(
                        f"snapshot's {name} {getattr(snapshot, name)} in a game in progress: "
                        "rewards are paid at the end (expected all 0)"
                    )

    def _check_rng_state(self, frozen: Hashable) -> None:
        """``frozen`` is a generator state of the env's kind (same fields, same types)."""
        current = self._np_random.bit_generator.state
        try:
            thawed = _thaw(frozen)
        except (TypeError, ValueError, IndexError, KeyError, AttributeError):
            thawed = None
        if not _same_shape(thawed, current):
            raise InvalidStateError(
                f"snapshot's rng_state {short(frozen)} is not a state of the env's "
                f"{current.get('bit_generator')} generator (from save_state)"
            )

    def state_key(self) -> Hashable:
        """Hashable transposition key of the current position."""
        return self._game.key(self._state)

    def information_set(self, agent: AgentID) -> Hashable:
        """Key of everything ``agent`` has observed (the state's key in perfect-information
        games)."""
        return self._game.information_set(self._state, self._index[agent])

    def is_reachable(self, key: Hashable) -> bool:
        """Could the position with ``key`` still occur in this game (now or later)? A key that
        is no state of this game (wrong type or length, pieces off the board or on one cell,
        impossible counts, cards or histories: the core's ``check_key``) never occurs:
        ``False``."""
        try:
            self._game.check_key(key)
            return bool(self._game.is_reachable(self._state, key))
        except (TypeError, ValueError, IndexError, KeyError, AttributeError):
            return False

    def legal_actions(self) -> list[int]:
        """Legal actions of the agent to move (empty once the game is over)."""
        if self.terminations[self.agent_selection] or self.truncations[self.agent_selection]:
            return []
        return self._game.legal_actions(self._state)


def _freeze(value: Any) -> Any:
    """Nested dicts and lists as sorted tuples (hashable, immutable); ``_thaw`` undoes it."""
    if isinstance(value, dict):
        return ("dict", tuple(sorted((k, _freeze(v)) for k, v in value.items())))
    if isinstance(value, (list, tuple)):
        return ("list", tuple(_freeze(v) for v in value))
    if isinstance(value, np.ndarray):
        return ("array", str(value.dtype), tuple(value.tolist()))
    return value


def _same_shape(value: Any, model: Any) -> bool:
    """Whether ``value`` has the fields and types of the generator state ``model`` (equal
    strings: the generator's name)."""
    if isinstance(model, dict):
        return (
            isinstance(value, dict)
            and set(value) == set(model)
            and all(_same_shape(value[k], v) for k, v in model.items())
        )
    if isinstance(model, str):
        return bool(value == model)
    if isinstance(model, np.ndarray):
        return isinstance(value, np.ndarray) and value.shape == model.shape
    return type(value) is type(model)


def _thaw(value: Any) -> Any:
    if isinstance(value, tuple) and value and value[0] == "dict":
        return {k: _thaw(v) for k, v in value[1]}
    if isinstance(value, tuple) and value and value[0] == "list":
        return [_thaw(v) for v in value[1]]
    if isinstance(value, tuple) and value and value[0] == "array":
        return np.array(value[2], dtype=value[1])
    return value
