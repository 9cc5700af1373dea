"""``BoardGameEnv``: a PettingZoo AEC environment over any ``BoardGame`` rules core.

The env keeps one immutable game state plus the AEC bookkeeping (agents, rewards,
terminations, ...). ``save_state`` and ``restore_state`` copy a handful of references, so they
cost O(1) in the board size; the planner's fast path skips the AEC layer altogether and works on
``env.unwrapped.game`` and ``env.unwrapped.state``.

Games with chance nodes (dice, deals) are resolved by the env: after ``reset`` and after every
move, chance outcomes are drawn with the env's own seeded generator (``reset(seed=...)``) until
a player is to move, so agents never act at a chance node. In games with private information
every agent's observation shows only what it may see; ``information_set(agent)`` gives its key.
"""

from __future__ import annotations

import sys
from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any, ClassVar

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from mcts_agents.envs.core.errors import GameOverError, InvalidParameterError, InvalidSnapshotError
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
        observation_space = spaces.Dict(
            {
                "observation": spaces.Box(0, 1, shape=game.observation_shape, dtype=np.int8),
                "action_mask": spaces.Box(0, 1, shape=(game.num_actions,), dtype=np.int8),
            }
        )
        action_space = spaces.Discrete(game.num_actions)
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
        """Start a new game. The games are deterministic; ``seed`` seeds ``np_random``."""
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

        The snapshot is checked whole before anything changes: a forged or damaged one raises
        ``InvalidSnapshotError`` naming what is wrong, and the env stays as it was.
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
        """``InvalidSnapshotError`` unless ``snapshot`` describes a position of this game."""
        possible = set(self.possible_agents)
        agents = snapshot.agents
        if (
            not isinstance(agents, tuple)
            or not set(agents) <= possible
            or len(set(agents)) < len(agents)
        ):
            raise InvalidSnapshotError(f"snapshot's agents {agents!r} are not agents of this env")
        if snapshot.agent_selection not in possible:
            raise InvalidSnapshotError(
                f"snapshot's agent to move {snapshot.agent_selection!r} is not one of "
                f"{self.possible_agents}"
            )
        for name in ("rewards", "cumulative_rewards", "terminations", "truncations"):
            pairs = getattr(snapshot, name)
            try:
                if not all(a in possible and isinstance(v, (int, float)) for a, v in pairs):
                    raise ValueError
            except (TypeError, ValueError):
                raise InvalidSnapshotError(
                    f"snapshot's {name} {pairs!r} are not (agent, number) pairs"
                ) from None
        game, state = self._game, snapshot.state
        try:
            hash(state)
            game.key(state)
            for player in range(game.num_players):  # every view of it can be computed
                game.observation(state, player)
            if game.is_terminal(state) and len(game.returns(state)) != game.num_players:
                raise ValueError(f"its returns are not one per player: {game.returns(state)}")
            if not game.is_terminal(state):
                player = game.to_play(state)
                game.legal_actions(state)
                if agents and self.possible_agents[player] != snapshot.agent_selection:
                    raise ValueError(
                        f"the state's player to move is {self.possible_agents[player]}, "
                        f"the snapshot says {snapshot.agent_selection}"
                    )
        except (TypeError, ValueError, IndexError, KeyError, AttributeError) as error:
            raise InvalidSnapshotError(
                f"snapshot's state {state!r} is not a state of {game!r}: {error!r}"
            ) from None
        if game.has_chance and snapshot.rng_state is None:
            raise InvalidSnapshotError("snapshot of a game with chance lacks its generator state")

    def state_key(self) -> Hashable:
        """Hashable transposition key of the current position."""
        return self._game.key(self._state)

    def information_set(self, agent: AgentID) -> Hashable:
        """Key of everything ``agent`` has observed (the state's key in perfect-information
        games)."""
        return self._game.information_set(self._state, self._index[agent])

    def is_reachable(self, key: Hashable) -> bool:
        """Could the position with ``key`` still occur in this game (now or later)? A key that
        is no key of this game (wrong shape or types) never occurs: ``False``."""
        try:
            return bool(self._game.is_reachable(self._state, key))
        except (TypeError, ValueError, IndexError):
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


def _thaw(value: Any) -> Any:
    if isinstance(value, tuple) and value and value[0] == "dict":
        return {k: _thaw(v) for k, v in value[1]}
    if isinstance(value, tuple) and value and value[0] == "list":
        return [_thaw(v) for v in value[1]]
    if isinstance(value, tuple) and value and value[0] == "array":
        return np.array(value[2], dtype=value[1])
    return value
