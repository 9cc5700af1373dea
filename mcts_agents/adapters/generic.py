"""Anyone else's PettingZoo AEC env as a ``Game``: states are verified clones of the env.

The generic, slower path of ``game_from_env``: ``EnvGame.next_state`` clones the state's env
(``mcts_agents.adapters.cloning``, which copies what ``copy.deepcopy`` of a PettingZoo classic env
gets wrong) and steps the clone.

A clone holds everything the env holds, hidden cards and the generator of its future dice
included, so the generic path never searches an env that is known or found to hide information
or to draw randomness from its own generators, unless ``information="oracle"`` asks for exactly
that:

- simultaneous-move envs (``metadata["is_parallelizable"]``, ``parallel_to_aec``) are refused;
- randomness at reset, and state the player to move does not see: ``mcts_agents.adapters.probes``
  says how each is decided (the env's ``metadata["perfect_information"]``, else probes and a
  check of every position the search meets);
- randomness in ``step`` from a generator the env holds (its ``np_random``): a generator that
  moves while the search steps a clone means dice or cards drawn from the env's future; the
  search stops with a ``CloneError``.

Randomness in ``step`` from the process-wide generators (Python's ``random``, numpy's
``np.random``) is not in the clone, so it reads no future: a step seen to move them becomes a
chance node (``is_chance``) of ``OUTCOMES`` outcomes, each the step run with the globals seeded
from the outcome's index, which the search draws with its own seeded generator: every visit a
fresh draw. Such a node stands for a distribution the search cannot list: the solver never
proves it (``sampled_outcomes``). The caller's global random state is put back after every
step. A generator the env makes inside ``step`` (``np.random.default_rng()``) is not seen.

Returns: an env may declare ``metadata["return_range"] = (low, high)``; else the Python search
learns the range and never calls a return a win (``mcts_agents.search.return_range``).
"""

from __future__ import annotations

import operator
import random
from collections.abc import Hashable
from typing import Any

import numpy as np
from gymnasium import spaces

from mcts_agents.adapters.aec import bookkeeper, bookkeeping, check_live, describe_env, info_mask
from mcts_agents.adapters.cloning import Memo, clone_with_memo, verified_clone
from mcts_agents.adapters.compare import (
    GlobalRandom,
    fingerprint,
    first_difference,
    freeze,
    is_rng,
    rng_state,
    structurally_equal,
)
from mcts_agents.adapters.probes import (
    declared_perfect_information,
    declared_return_range,
    hidden_state_message,
    refuse_declared_hidden,
    refuse_hidden_state,
    refuse_randomness_at_reset,
    refuse_simultaneous,
)
from mcts_agents.errors import CloneError, GameOverError, IllegalActionError, NoLegalActionError
from mcts_agents.search.game import CHANCE
from mcts_agents.search.playouts import CLOCK_EVERY

__all__ = ["OUTCOMES", "EnvGame", "EnvState", "ReachableEnvGame", "env_game"]

#: Outcomes of a chance node of a step that draws from the global generators: each seeds them.
OUTCOMES = 256
_OUTCOME_PROBABILITIES = [(j, 1.0 / OUTCOMES) for j in range(OUTCOMES)]
#: Fields that may differ between positions a player sees alike: the rewards already paid.
_PAID = frozenset({"rewards", "_cumulative_rewards"})


def _outcome_seed(outcome: int) -> int:
    """The global generators' seed for a chance node's ``outcome`` (spread over 32 bits)."""
    return (outcome * 0x9E37_79B1 + 0x7F4A_7C15) & 0xFFFF_FFFF


class EnvState:
    """A position of an env clone, treated as immutable (``EnvGame`` clones before stepping).

    Attributes:
        env: the clone (never stepped once it is in a state).
        book: the object of ``env``'s wrapper chain that holds the AEC bookkeeping (``agents``,
            ``agent_selection``, ...), read directly to skip the wrappers' ``__getattr__``.
        rewards: per-player sum of ``env.rewards`` over the steps since the search's root.
        player: index of the agent to move in ``possible_agents`` (-1 when none is left,
            ``CHANCE`` for a chance node).
        terminal: no agents remain, or every remaining agent is terminated or truncated.
        pending: at a chance node, the action whose step draws from the global generators
            (``env`` is the position before it), else ``None``.
    """

    __slots__ = ("_key", "_legal", "book", "env", "pending", "player", "rewards", "terminal")

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
        self.pending: int | None = None

    @property
    def sampled_outcomes(self) -> bool:
        """A chance node whose outcomes are samples, not a list of all: never proven."""
        return self.pending is not None


class EnvGame:
    """``Game`` over clones of any AEC env (the generic, slower path).

    ``next_state`` clones the state's env and steps the clone; a dead agent whose turn comes up
    while others play on is stepped with ``None``, as the AEC loop does. Legal actions come from
    ``observation["action_mask"]``, else ``info["action_mask"]``, else (no mask at all) every
    action of a ``Discrete`` space. Returns are the rewards summed since the root (PettingZoo's
    classic games pay at the end). The key is the unwrapped env's ``state_key()`` if it has one,
    else the agent to move, the agents left, the bytes of every agent's observation, the rewards
    summed since the root and whether the game is over. Such a key may merge states that the
    observations do not tell apart: so the first state of every key is kept as its witness, and
    a later state with that key whose env differs from the witness's (``compare``) gets the key
    extended by a fingerprint of its whole env. States whose futures differ never merge.

    Gymnasium spaces are copied from the live env once, then shared by all clones of a search.

    Args:
        env: the verified clone the game starts from; ``memo``: its clone memo.
        watch_randomness: refuse a step that moves a generator the env holds.
        sample_chance: a step that draws from the global generators becomes a chance node
            (else it raises ``CloneError``); ``has_chance`` says so to the search.
        watch_hidden: ``key`` raises ``CloneError`` when two positions where one agent is to
            move and sees the same observation hold different envs (see ``probes``).
        return_range: the env's declared ``(low, high)``; ``None``: not declared, and the
            Python search learns it (``learn_return_range``).
    """

    #: Without a ``return_range``, the Python search learns the range of the returns it meets.
    learn_return_range = True

    def __init__(
        self,
        env: Any,
        memo: Memo,
        watch_randomness: bool = True,
        sample_chance: bool = False,
        watch_hidden: bool = False,
        return_range: tuple[float, float] | None = None,
    ) -> None:
        self.watch_randomness = watch_randomness
        self.has_chance = sample_chance
        self.watch_hidden = watch_hidden
        #: whether a step was seen drawing from the global generators
        self.draws_globally = False
        self._globals = GlobalRandom()  # the caller's global random state, put back after steps
        if return_range is not None:
            self.return_range = return_range
        self._name = describe_env(env)
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
        self._witnesses: dict[Hashable, EnvState] = {}  # an observation key's first state
        self._seen_alike: dict[Hashable, EnvState] = {}  # (mover, its observation)'s first state

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._name})"

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
        return self._state(env, bookkeeper(env), [0.0] * self.num_players)

    def _state(self, env: Any, book: Any, rewards: list[float]) -> EnvState:
        agents, terminations, truncations = book.agents, book.terminations, book.truncations
        terminal = not agents or all(terminations[a] or truncations[a] for a in agents)
        return EnvState(env, book, rewards, self._index.get(book.agent_selection, -1), terminal)

    def clone_state(self, state: EnvState) -> tuple[Any, Any]:
        """A private copy of ``state``'s env to step, and its bookkeeping object."""
        env, book, _ = self._clone(state)
        return env, book

    def _clone(self, state: EnvState) -> tuple[Any, Any, list[tuple[Any, Any]]]:
        """``clone_state`` and, when watched, the clone's generators with their states."""
        memo = dict(self._shared)
        env = clone_with_memo(state.env, memo)
        rngs = (
            [(g, rng_state(g)) for g in memo.values() if is_rng(g)] if self.watch_randomness else []
        )
        return env, memo[id(state.book)], rngs

    @staticmethod
    def _check_no_draw(env: Any, rngs: list[tuple[Any, Any]]) -> None:
        """``CloneError`` if a watched generator of a stepped clone has moved."""
        for generator, before in rngs:
            if not structurally_equal(rng_state(generator), before):
                raise CloneError(
                    f"{describe_env(env)} draws randomness inside step (its random generator "
                    "moved while the search stepped a clone): searching it would read the "
                    "env's future dice or cards; information='oracle' searches it anyway, as a "
                    "cheat, only on purpose"
                )

    def _drew_globally(self, env: Any) -> None:
        """Note a step that drew from the global generators (``CloneError`` if not allowed)."""
        if not self.has_chance:
            raise CloneError(
                f"{describe_env(env)} draws from Python's or numpy's global random generator "
                f"inside step, which {type(self).__name__} cannot search as chance"
            )
        self.draws_globally = True

    def _step(
        self, env: Any, book: Any, action: Any, rewards: list[float], seed: int | None
    ) -> tuple[bool, bool]:
        """``_advance`` with the global generators seeded with ``seed`` (``None``: as they
        are), then put back. Returns ``(over, drew)``: whether they moved (unseeded only)."""
        kept = self._globals
        kept.refresh()
        try:
            if seed is not None:
                GlobalRandom.seed(seed)
            over = self._advance(env, book, action, rewards)
            drew = seed is None and kept.moved()
        finally:
            if seed is not None or kept.moved():
                kept.restore()
        return over, drew

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

    def is_chance(self, state: EnvState) -> bool:
        """A step that draws from the global generators, waiting for its outcome."""
        return state.pending is not None

    def chance_outcomes(self, state: EnvState) -> list[tuple[int, float]]:
        """``OUTCOMES`` equally likely outcomes, each a seed of the global generators."""
        return list(_OUTCOME_PROBABILITIES)

    def legal_actions(self, state: EnvState) -> list[int]:
        if state.pending is not None:
            return list(range(OUTCOMES))
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
        pending = state.pending
        if pending is not None:
            if not (isinstance(action, int) and 0 <= action < OUTCOMES):
                raise IllegalActionError(
                    f"outcome {action!r} of a chance node must be an int in [0, {OUTCOMES})"
                )
        else:
            legal = state._legal if state._legal is not None else self.legal_actions(state)
            if action not in legal:
                raise IllegalActionError(
                    f"action {action!r} is not legal in this "
                    f"{type(state.env.unwrapped).__name__} position; legal: {legal}"
                )
        env, book, rngs = self._clone(state)
        rewards = list(state.rewards)
        seed = None if pending is None else _outcome_seed(action)
        move = operator.index(action) if pending is None else pending
        drew = self._step(env, book, move, rewards, seed)[1]
        self._check_no_draw(env, rngs)
        if drew:  # this step is a chance node: its outcome is drawn by the search
            self._drew_globally(env)
            chance = EnvState(state.env, state.book, state.rewards, CHANCE, False)
            chance.pending = move
            chance._key = ("chance", self.key(state), move)
            return chance
        return self._state(env, book, rewards)

    def is_terminal(self, state: EnvState) -> bool:
        return state.terminal

    def returns(self, state: EnvState) -> tuple[float, ...]:
        return tuple(state.rewards)

    def key(self, state: EnvState) -> Hashable:
        key = state._key
        if key is None:
            env, book = state.env, state.book
            agents = tuple(book.agents)
            selected = book.agent_selection
            live = not state.terminal and selected in agents
            if self._state_key:
                key = env.unwrapped.state_key()
                mover = env.observe(selected) if live and self.watch_hidden else None
            else:
                observed = [env.observe(agent) for agent in agents]
                mover = observed[agents.index(selected)] if live else None
                seen = tuple(freeze(observation) for observation in observed)
                if self._mask_source == "info":
                    seen += (freeze(info_mask(book, selected)),)
                elif state._legal is None and live:
                    # the search asks for the key, then the legal actions: observe once
                    state._legal = self._legal_now(env, book, mover)
                # rewards so far and the end flag: states that pay differently never merge
                key = self._told_apart(
                    (selected, agents, seen, tuple(state.rewards), state.terminal), state
                )
            if live and self.watch_hidden:
                self._check_seen_alike(state, selected, mover)
            state._key = key
        return key

    def _check_seen_alike(self, state: EnvState, agent: Any, observation: Any) -> None:
        """``CloneError`` if an earlier position where ``agent`` moved and saw the same (its
        observation, and its info mask where masks live there) holds another env."""
        seen: tuple[Any, ...] = (agent, freeze(observation))
        if self._mask_source == "info":
            seen += (freeze(info_mask(state.book, agent)),)
        witness = self._seen_alike.setdefault(seen, state)
        if witness is state:
            return
        where = first_difference(witness.env, state.env, skip=_PAID)
        if where is not None:
            raise CloneError(hidden_state_message(state.env, agent, where))

    def _told_apart(self, key: Hashable, state: EnvState) -> Hashable:
        """``key``, or ``key`` with a fingerprint of ``state``'s env when another state with this
        key (its witness) holds a different env: the observations did not tell them apart."""
        witness = self._witnesses.setdefault(key, state)
        if witness is state or first_difference(witness.env, state.env) is None:
            return key
        return (key, fingerprint(state.env))

    def rollout(self, state: EnvState, rng: random.Random) -> tuple[float, ...]:
        """Uniformly random playout to the end on one private clone (``bounded_rollout``
        without bounds: same moves as ``default_rollout``)."""
        returns = self.bounded_rollout(state, rng)
        assert returns is not None  # no bound given: played to the end
        return returns

    def bounded_rollout(
        self, state: EnvState, rng: random.Random, max_moves: int | None = None, stop: Any = None
    ) -> tuple[float, ...] | None:
        """Uniformly random playout on one private clone: the returns at its end, or ``None``
        once it played ``max_moves`` steps or ``stop()`` said so (asked every ``CLOCK_EVERY``
        steps; ``mcts_agents.search.playouts``: an env may never end).

        Once a step was seen drawing from the global generators, they are seeded from ``rng``
        for the playout (fresh draws); they are put back afterwards either way.
        """
        if state.terminal:
            return tuple(state.rewards)
        env, book, rngs = self._clone(state)
        rewards = list(state.rewards)
        kept = self._globals
        kept.refresh()
        seeded = self.draws_globally
        moves, cut = 0, False
        try:
            if seeded:
                GlobalRandom.seed(rng.getrandbits(32))
            over = state.pending is not None and self._advance(env, book, state.pending, rewards)
            if not over:  # the chance node's step is taken: now the player to move's
                legal = state._legal if state.pending is None else None
                actions = legal if legal is not None else self._legal_now(env, book)
            while not over:
                moves += 1
                cut = (max_moves is not None and moves > max_moves) or (
                    stop is not None and not moves % CLOCK_EVERY and stop()
                )
                if cut:
                    break
                over = self._advance(env, book, actions[int(rng.random() * len(actions))], rewards)
                if not over:
                    actions = self._legal_now(env, book)
            drew = not seeded and kept.moved()
        finally:
            if seeded or kept.moved():
                kept.restore()
        self._check_no_draw(env, rngs)
        if drew:
            self._drew_globally(env)
        return None if cut else tuple(rewards)


class ReachableEnvGame(EnvGame):
    """``EnvGame`` for an env whose unwrapped env offers ``is_reachable(key)``."""

    def is_reachable(self, state: EnvState, key: Hashable) -> bool:
        """Could the position with ``key`` occur at or after ``state``?"""
        return bool(state.env.unwrapped.is_reachable(key))


def env_game(env: Any, oracle: bool = False) -> tuple[EnvGame, EnvState]:
    """The generic game over a verified clone of ``env``, and its root state.

    Without ``oracle``, an env with simultaneous moves, randomness at reset or state its player
    to move does not see is refused, and the game refuses randomness drawn in ``step`` from the
    env's own generators (see the module docstring and ``mcts_agents.adapters.probes``).
    """
    agents, selected, terminations, truncations = bookkeeping(env)
    check_live(env, agents, selected, terminations, truncations)
    if selected not in env.possible_agents:
        raise CloneError(f"{describe_env(env)}: agent to move {selected!r} is not a possible agent")
    refuse_simultaneous(env)
    declared = declared_perfect_information(env)
    if declared is False and not oracle:
        refuse_declared_hidden(env)
    memo: Memo = {}
    clone = verified_clone(env, memo)
    if not oracle:
        refuse_randomness_at_reset(env, clone)
    cls = ReachableEnvGame if callable(getattr(env.unwrapped, "is_reachable", None)) else EnvGame
    watch_hidden = not oracle and declared is None
    game = cls(
        clone,
        memo,
        watch_randomness=not oracle,
        sample_chance=True,
        watch_hidden=watch_hidden,
        return_range=declared_return_range(env),
    )
    root = game.root(clone)
    if root.terminal:
        raise GameOverError(f"the game in {env} is over")
    game.legal_actions(root)  # raises NoLegalActionError for a stuck live env
    if watch_hidden:
        refuse_hidden_state(env, game, clone)
    return game, root
