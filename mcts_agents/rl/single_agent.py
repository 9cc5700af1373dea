"""``SingleAgentVsOpponent``: one seat of a PettingZoo AEC game as a single-agent Gymnasium env.

The opponents (an ``MCTSAgent``, say) move inside ``reset`` and ``step`` through
``mcts_agents.agents.play.play_game``; ``action_masks()`` serves sb3-contrib's ``MaskablePPO``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, SupportsFloat

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from mcts_agents.agents.agent import HumanAgent
from mcts_agents.agents.play import action_index, play_game
from mcts_agents.agents.specs import make_agent
from mcts_agents.checks import check_int, check_number
from mcts_agents.compiled.threads import limit_threads
from mcts_agents.errors import (
    GameOverError,
    IllegalActionError,
    InvalidOptionError,
    NoLegalActionError,
    NotResetError,
    OptionTypeError,
    SpecError,
)
from mcts_agents.rl.pool import OpponentPool
from mcts_agents.rl.pool_episodes import end_episode, start_episode

__all__ = ["SingleAgentVsOpponent", "check_unattended", "opponent_from_spec"]

#: What ``SingleAgentVsOpponent.step`` does with an action the mask forbids.
IllegalActionMode = Literal["lose", "raise"]
_ILLEGAL_MODES = ("lose", "raise")
_SEED_LIMIT = 2**31 - 1
_SEED_MASK = 2**32 - 1


#: ``metadata["render_fps"]`` where the AEC env declares none (one frame a move, a second each).
DEFAULT_RENDER_FPS = 1


def _legal_from_mask(mask: np.ndarray, start: int) -> list[int]:
    return [start + int(i) for i in np.flatnonzero(mask)]


def _has_act(agent: Any) -> bool:
    return callable(getattr(agent, "act", None))


def check_unattended(agent: Any, seat: str | None = None) -> None:
    """``InvalidOptionError`` for an opponent that needs a person (a ``HumanAgent``): an RL
    env's opponents move inside ``reset`` and ``step``, with no one there to type."""
    if isinstance(agent, HumanAgent):
        where = f" for seat {seat!r}" if seat is not None else ""
        raise InvalidOptionError(
            f"opponent{where} {agent.name!r} is a HumanAgent; an RL env's opponents must play "
            "unattended (they move inside reset and step): give an agent such as MCTSAgent, "
            "or a spec such as 'mcts:iterations=200'"
        )


def opponent_from_spec(
    spec: str, seed: int | None = None, builders: dict[str, Any] | None = None
) -> Any:
    """The agent of the spec ``spec`` (``make_agent``), as an RL env's opponent.

    Args:
        builders: the ``agents.spec_builder`` of each spec so far (filled here), shared by the
            opponents of many envs (the vector env's sub-envs): the agents of one ``az:`` or
            ``policy:`` spec then share the model opened once, so ``act_batch`` evaluates them
            together (``az:`` trees searched in lockstep).

    Raises:
        SpecError: a bad spec, or one of an agent that does not play unattended (``human``),
            naming it.
    """
    if builders is None:
        agent = make_agent(spec, seed=seed)
    else:
        from mcts_agents.agents.spec_builder import spec_builder

        build = builders.get(spec)
        if build is None:
            build = builders[spec] = spec_builder(spec)
        agent = build(seed)
    try:
        check_unattended(agent)
    except InvalidOptionError as error:
        raise SpecError(f"agent spec {spec!r}: {error}") from None
    return agent


class SingleAgentVsOpponent(gymnasium.Env[Any, Any]):
    """One seat of a PettingZoo AEC game as a single-agent ``gymnasium.Env``.

    The learner plays ``learner``'s seat; every other seat is played by ``opponent``, whose moves
    happen inside ``reset`` and ``step``, so the learner only ever sees its own turns. The
    opponent acts on the live AEC env exactly as in the standard loop: nothing but the rules
    changes what it sees.

    Args:
        aec_env: a PettingZoo AEC env with two or more seats, ``Discrete`` action spaces and
            dict observations ``{"observation", "action_mask"}`` (ours, or PettingZoo's classic
            games such as ``connect_four_v3`` and ``tictactoe_v3``). The wrapper owns it.
        opponent: an agent with ``act(env) -> action`` (``MCTSAgent``, ``RandomAgent``, a
            ``PolicyAgent``, ...) playing every other seat, or a mapping seat -> agent (every seat
            the learner may not hold needs one), or an ``OpponentPool`` (``rl.pool``): an entry
            drawn at each reset plays every other seat, and the learner's score is recorded at
            each end (``pool_stats()``; ``info["pool_entry"]``, ``info["pool_score"]``).
            Agents with ``reset(seed=...)`` are reset at each ``reset`` (an ``MCTSAgent``
            forgets its node table), and reseeded at a seeded one (see Seeding).
        learner: the learner's seat (e.g. ``"player_1"``; default: the env's first seat,
            ``possible_agents[0]``), or ``"random"`` for a seeded random seat per episode
            (every seat must then share one observation and action space).
        seed: seed of the first ``reset`` when it is called without one.
        illegal_action: what an action outside the mask does. ``"lose"`` (default; PettingZoo's
            terminate-on-illegal convention): the episode ends at once with reward
            ``illegal_reward`` and ``info["illegal_action"]`` set; the AEC env is not stepped with
            it, so the opponent never sees the move. ``"raise"``: ``IllegalActionError`` naming
            the action and the legal actions, and the episode goes on. An action outside the
            action space always raises (``IllegalActionError``, or ``ActionTypeError`` for a
            non-integer).
        illegal_reward: the learner's reward for an illegal action under ``"lose"`` (a
            finite number, checked here and whenever it is set).
        search_threads: the numba threads the opponents' turns may use (``None``: numba's own
            count). One by default: a vector of these envs (Gymnasium's ``sync``, one process
            each for ``async``) searches one opponent after another, each on one core; the
            native vector env (``make_vec``'s default) is the one that searches its N trees in
            parallel.

    Spaces: ``observation_space`` is the learner seat's ``"observation"`` space and observations
    are ``env.observe(learner)["observation"]``; ``action_space`` is the seat's ``Discrete``
    space. ``action_masks()`` gives the boolean mask of the current position.

    Rewards are from the learner's view: the sum of its PettingZoo rewards over its own move and
    the opponents' replies. ``terminated`` when the learner's game ends, ``truncated`` when the
    AEC env truncates it. ``info`` holds ``"learner"`` (the seat) and, at the end, ``"returns"``
    (every seat's summed rewards over the episode).

    Seeding: ``reset(seed=s)`` seeds ``np_random``, from which the AEC env's seed, the learner's
    seat and the opponents' seeds are drawn; the same seed gives the same episode when the
    opponents are seeded by ``reset(seed=...)`` and the learner plays the same actions. A
    ``reset()`` without a seed (the next episode, an autoreset) draws the AEC env's seed and the
    seat from ``np_random`` and does not reseed the opponents: their generators go on from the
    last episode, so a seeded first reset fixes every later episode of the same actions too.

    Raises (besides the argument checks, ``TypeError``/``ValueError`` naming the argument):
    ``GameOverError`` from ``reset`` if the game ends before the learner's first turn, and from
    ``step`` after the episode ended; ``NoLegalActionError`` if the learner is to move with an
    empty mask; ``IllegalActionError`` naming the opponent if an opponent plays an illegal move.
    """

    def __init__(
        self,
        aec_env: AECEnv[Any, Any, Any],
        opponent: Any,
        learner: str | None = None,
        seed: int | None = None,
        illegal_action: IllegalActionMode = "lose",
        illegal_reward: float = -1.0,
        search_threads: int | None = 1,
    ) -> None:
        check_int(search_threads, "search_threads", low=1, optional=True)
        if not isinstance(aec_env, AECEnv):
            raise OptionTypeError(
                f"aec_env must be a PettingZoo AECEnv, got {type(aec_env).__name__} "
                "(wrap a ParallelEnv with pettingzoo.utils.parallel_to_aec)"
            )
        seats = list(aec_env.possible_agents)
        if len(seats) < 2:
            raise InvalidOptionError(
                f"aec_env has {len(seats)} seat(s) {seats}; SingleAgentVsOpponent needs a game "
                "of two or more players"
            )
        if learner is None:
            learner = seats[0]
        elif learner != "random" and learner not in seats:
            raise InvalidOptionError(
                f"learner must be one of the env's seats {seats} or 'random', got {learner!r}"
            )
        if illegal_action not in _ILLEGAL_MODES:
            raise InvalidOptionError(
                f"illegal_action must be one of {list(_ILLEGAL_MODES)}, got {illegal_action!r}"
            )
        self.seats = seats
        learner_seats = seats if learner == "random" else [learner]
        #: the ``OpponentPool`` the opponents are drawn from, if any; this episode's entry
        self.pool: OpponentPool | None = opponent if isinstance(opponent, OpponentPool) else None
        self.pool_entry: str | None = None
        self._pool_agents: dict[str, Any] = {}
        self.opponents = {} if self.pool else self._check_opponents(opponent, seats, learner_seats)
        observation_space, action_space = self._check_spaces(aec_env, learner_seats)
        self.aec_env = aec_env
        self.opponent = opponent
        self.learner: str = learner
        self.seed = seed
        self.illegal_action: IllegalActionMode = illegal_action
        self.illegal_reward = illegal_reward
        self.search_threads = search_threads
        self.observation_space = observation_space
        self.action_space = action_space
        self._start = int(action_space.start)
        self._num_actions = int(action_space.n)
        aec_metadata = getattr(aec_env, "metadata", {})
        self.metadata = {
            "render_modes": list(aec_metadata.get("render_modes", [])),
            # gymnasium's checker warns without it; a board game renders once a move, and the
            # AEC env's own rate wins where it declares one
            "render_fps": aec_metadata.get("render_fps") or DEFAULT_RENDER_FPS,
        }
        self.render_mode = getattr(aec_env, "render_mode", None)
        self.seat: str | None = None  # the learner's seat in the current episode
        self._returns: dict[str, float] = {}
        self._moves: list[int] = []  # the episode's moves (a pool's results file)
        self._done = True
        self._has_reset = False

    @property
    def illegal_reward(self) -> float:
        """The learner's reward for an illegal action under ``"lose"``."""
        return self._illegal_reward

    @illegal_reward.setter
    def illegal_reward(self, value: float) -> None:
        self._illegal_reward = check_number(
            value, "illegal_reward", note="the learner's reward for an illegal action"
        )

    # ------------------------------------------------------------------ checks
    @staticmethod
    def _check_opponents(
        opponent: Any, seats: list[str], learner_seats: list[str]
    ) -> dict[str, Any]:
        """Seat -> agent for every seat an opponent may have to play."""
        if isinstance(opponent, Mapping):
            unknown = [seat for seat in opponent if seat not in seats]
            if unknown:
                raise InvalidOptionError(
                    f"opponent has seats {unknown} that the env does not have; seats: {seats}"
                )
            needed = (
                seats if len(learner_seats) > 1 else [s for s in seats if s != learner_seats[0]]
            )
            missing = [seat for seat in needed if seat not in opponent]
            if missing:
                raise InvalidOptionError(
                    f"opponent mapping has no agent for seat(s) {missing}; it needs {needed}"
                )
            for seat, agent in opponent.items():
                if not _has_act(agent):
                    raise OptionTypeError(
                        f"opponent for seat {seat!r} ({type(agent).__name__}) has no "
                        "act(env) method"
                    )
                check_unattended(agent, seat)
            return dict(opponent)
        if not _has_act(opponent):
            raise OptionTypeError(
                f"opponent must be an agent with an act(env) method (e.g. MCTSAgent) or a "
                f"mapping seat -> agent, got {type(opponent).__name__}"
            )
        check_unattended(opponent)
        return dict.fromkeys(seats, opponent)

    @staticmethod
    def _check_spaces(
        aec_env: AECEnv[Any, Any, Any], learner_seats: list[str]
    ) -> tuple[spaces.Space[Any], spaces.Discrete]:
        """The learner's observation and action spaces (equal for every possible seat)."""
        found: list[tuple[spaces.Space[Any], spaces.Discrete]] = []
        for seat in learner_seats:
            space = aec_env.observation_space(seat)
            if not (
                isinstance(space, spaces.Dict)
                and "observation" in space.spaces
                and "action_mask" in space.spaces
            ):
                raise OptionTypeError(
                    f"the observation space of seat {seat!r} is {space}; SingleAgentVsOpponent "
                    "needs dict observations {'observation': ..., 'action_mask': ...}"
                )
            action_space = aec_env.action_space(seat)
            if not isinstance(action_space, spaces.Discrete):
                raise OptionTypeError(
                    f"the action space of seat {seat!r} is {action_space}; a Discrete space is "
                    "needed"
                )
            found.append((space["observation"], action_space))
        if any(pair != found[0] for pair in found[1:]):
            raise InvalidOptionError(
                f"learner='random' needs every seat to share one observation and action space; "
                f"seats {learner_seats} have {found}"
            )
        return found[0]

    # ------------------------------------------------------------------ gymnasium API
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """Start an episode; the opponents move until it is the learner's turn."""
        self.aec_env.reset(seed=self._start_episode(seed))
        self._play_opponents()
        if self._done:
            raise GameOverError(
                f"the game in {self.aec_env} ended before {self.seat}'s first turn "
                f"(returns {self._returns}); the learner needs at least one move per episode"
            )
        return self._observation(), {"learner": self.seat}

    def _start_episode(self, seed: int | None) -> int:
        """``reset`` up to the AEC env's: seed ``np_random`` (if seeded), draw the AEC env's seed
        (returned) and the learner's seat from it in one draw, and reset the opponents: each
        distinct one forgets its tree, and is reseeded from ``np_random`` only on a seeded
        reset (its own generator goes on across the unseeded ones: a random number generator
        seeded again each episode cost more than the rest of the reset)."""
        if seed is None and not self._has_reset:
            seed = self.seed
        if seed is not None:  # (gymnasium's ``Env.reset`` does nothing else)
            super().reset(seed=seed)
        self._has_reset = True
        # 64 random bits (a generator call costs ~4x as much)
        raw = int(self.np_random.bit_generator.random_raw())
        env_seed = (raw & _SEED_MASK) % _SEED_LIMIT
        if self.learner == "random":
            self.seat = self.seats[(raw >> 32) % len(self.seats)]
        else:
            self.seat = self.learner
        if self.pool is not None:
            start_episode(self)
        # Each distinct opponent object is reset once (with its own seed if seeded).
        distinct = {id(agent): agent for agent in self.opponents.values()}
        for agent in distinct.values():
            opponent_seed = None
            if seed is not None:
                opponent_seed = self._draw_seed()
            reset = getattr(agent, "reset", None)
            if callable(reset):
                reset(seed=opponent_seed)
        self._returns = dict.fromkeys(self.seats, 0.0)
        self._moves = []
        self._done = False
        return env_seed

    def _draw_seed(self) -> int:
        """A seed for an opponent, from 64 random bits of ``np_random``."""
        return (int(self.np_random.bit_generator.random_raw()) & _SEED_MASK) % _SEED_LIMIT

    def step(self, action: Any) -> tuple[Any, SupportsFloat, bool, bool, dict[str, Any]]:
        """Play the learner's ``action``, then the opponents' replies."""
        if not self._has_reset:
            raise NotResetError("reset() must be called before step()")
        if self._done:
            raise GameOverError(
                f"the episode is over for {self.seat}; call reset() to start a new one "
                f"(got action {action!r})"
            )
        seat = self._learner_seat()
        action = action_index(action, f"the learner ({seat})")
        if not self.action_space.contains(action):
            raise IllegalActionError(
                f"action {action} for {seat} is outside the action space {self.action_space}"
            )
        mask = self._mask()
        if not mask[action - self._start]:
            legal = _legal_from_mask(mask, self._start)
            if self.illegal_action == "raise":
                raise IllegalActionError(
                    f"action {action} is not legal for {seat} in {self.aec_env}; legal: {legal}"
                )
            return self._lose_on_illegal(action, legal)
        before = self._returns[seat]
        self._step_env(action)
        self._play_opponents()
        reward = self._returns[seat] - before
        terminated, truncated = self._learner_flags()
        info: dict[str, Any] = {"learner": seat}
        if self._done:
            info["returns"] = dict(self._returns)
            if self.pool is not None:
                end_episode(self, self._returns, info)
        return self._observation(), reward, terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        """Boolean mask over the action space of the current position (all False at the end)."""
        if not self._has_reset:
            raise NotResetError("reset() must be called before action_masks()")
        if self._done:
            return np.zeros(self._num_actions, dtype=bool)
        return self._mask()

    def pool_stats(self) -> dict[str, dict[str, Any]]:
        """``OpponentPool.stats()`` of the pool the opponents are drawn from (``{}`` without
        one): per entry ``games``, ``wins``, ``draws``, ``losses``, ``score``, ``low``,
        ``high``."""
        return {} if self.pool is None else self.pool.stats()

    def render(self) -> Any:
        """The AEC env's ``render()``."""
        return self.aec_env.render()

    def close(self) -> None:
        self.aec_env.close()

    # ------------------------------------------------------------------ internals
    def _observe(self) -> Mapping[str, Any]:
        observation = self.aec_env.observe(self.seat)
        if not isinstance(observation, Mapping) or "action_mask" not in observation:
            raise OptionTypeError(
                f"{self.aec_env} observed {type(observation).__name__} for {self.seat}; "
                "a dict {'observation': ..., 'action_mask': ...} was expected"
            )
        return observation

    def _observation(self) -> Any:
        observation = self._observe()["observation"]
        return (
            np.array(observation, copy=True) if isinstance(observation, np.ndarray) else observation
        )

    def _mask(self) -> np.ndarray:
        return np.asarray(self._observe()["action_mask"]).astype(bool)

    def _step_env(self, action: Any) -> None:
        env = self.aec_env
        env.step(action)
        if action is not None:
            self._moves.append(int(action))
        for agent, reward in env.rewards.items():
            if reward:
                self._returns[agent] = self._returns.get(agent, 0.0) + float(reward)

    def _learner_flags(self) -> tuple[bool, bool]:
        env, seat = self.aec_env, self.seat
        if seat not in env.agents:
            return True, False
        terminated = bool(env.terminations[seat])
        return terminated, bool(env.truncations[seat]) and not terminated

    def _learner_seat(self) -> str:
        if self.seat is None:
            raise NotResetError("reset() must be called first")
        return self.seat

    def _play_opponents(self) -> None:
        """Play the opponents (``play_game``) until the learner is to move or its game is over.

        Finished seats other than the learner's are stepped with ``None``, as the AEC loop does.
        """
        env, seat = self.aec_env, self._learner_seat()
        learner_done = False

        def learner_turn(env: Any) -> bool:
            nonlocal learner_done
            terminated, truncated = self._learner_flags()
            learner_done = terminated or truncated
            current = env.agent_selection
            alive = not (env.terminations[current] or env.truncations[current])
            return learner_done or (current == seat and alive)

        with limit_threads(self.search_threads):
            play_game(
                env,
                self.opponents,
                returns=self._returns,
                until=learner_turn,
                check_legal=True,
                prepare=False,  # called at every step: the searchers are built at the first one
            )
        if learner_done or not env.agents:
            self._done = True
        elif not self._mask().any():
            raise NoLegalActionError(
                f"{seat} is to move in {env} but its action mask has no legal action"
            )

    def _lose_on_illegal(
        self, action: int, legal: list[int]
    ) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """End the episode as PettingZoo's terminate-on-illegal does, without stepping the env."""
        seat = self._learner_seat()
        self._done = True
        returns = dict.fromkeys(self.seats, 0.0)
        returns[seat] = self.illegal_reward
        info = {"learner": seat, "returns": returns, "illegal_action": action, "legal": legal}
        if self.pool is not None:
            end_episode(self, returns, info)
        return self._observation(), self.illegal_reward, True, False, info

    def __repr__(self) -> str:
        return (
            f"SingleAgentVsOpponent({self.aec_env}, opponent={self.opponent!r}, "
            f"learner={self.learner!r}, illegal_action={self.illegal_action!r})"
        )
