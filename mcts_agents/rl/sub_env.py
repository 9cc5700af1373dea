"""The pieces of ``rl.vector``'s sub-envs: ``SubEnv`` (a ``SingleAgentVsOpponent`` whose
opponents the vector env plays, in batches, and whose opponent spec may change between
episodes), the opponent specs of N sub-envs, and the learner's flags read past the wrappers."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from mcts_agents.errors import InvalidOptionError, OptionTypeError
from mcts_agents.rl.pool import OpponentPool
from mcts_agents.rl.single_agent import SingleAgentVsOpponent, opponent_from_spec

__all__ = ["SubEnv", "check_spec", "learner_flags", "opponent_specs"]


class SubEnv(SingleAgentVsOpponent):
    """One game of the vector env: ``SingleAgentVsOpponent`` whose opponents the vector env
    plays (in batches) and whose opponent spec may change between episodes."""

    def __init__(
        self,
        aec_env: Any,
        spec: str | OpponentPool,
        seed: int | None,
        builders: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        #: the vector env's ``spec_builder`` per spec, shared by its sub-envs (one model a spec)
        self._builders = {} if builders is None else builders
        opponent = (
            spec
            if isinstance(spec, OpponentPool)
            else opponent_from_spec(spec, seed, self._builders)
        )
        super().__init__(aec_env, opponent, seed=seed, **kwargs)
        self.opponent_spec = None if isinstance(spec, OpponentPool) else spec
        self._next_spec: str | OpponentPool | None = None
        self.deferred = False  # the vector env plays the opponents after reset
        self._aec_seed: int | None = None  # the AEC env's reset, put off (``start``)

    def set_opponent(self, spec: str | OpponentPool) -> None:
        """Play ``spec`` (an agent spec, or an ``OpponentPool``) from the next episode on.

        Raises:
            SpecError: a bad spec, or one of an agent that does not play unattended
                (``human``), naming it (checked now).
        """
        if not isinstance(spec, OpponentPool):
            opponent_from_spec(check_spec(spec))
        self._next_spec = spec

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        self._take_next_spec()
        self._aec_seed = None
        return super().reset(seed=seed, options=options)

    def start(self, seed: int | None, put_off: bool = False) -> None:
        """The vector env's reset: ``reset`` without the opponents' moves or an observation
        (the vector env plays and observes them); ``put_off``: the AEC env's reset too, until
        ``ready`` (a sub-env played on words needs its AEC env only when asked for it)."""
        self._take_next_spec()
        env_seed = self._start_episode(seed)
        if put_off:
            self._aec_seed = env_seed
        else:
            self._aec_seed = None
            self.aec_env.reset(seed=env_seed)

    def ready(self) -> None:
        """Reset the AEC env if ``start`` put it off."""
        if self._aec_seed is not None:
            seed, self._aec_seed = self._aec_seed, None
            self.aec_env.reset(seed=seed)

    def _take_next_spec(self) -> None:
        """The opponent of ``set_opponent``, from this episode on."""
        if self._next_spec is not None:
            close = getattr(self.opponent, "close", None)
            if callable(close):
                close()  # the replaced opponent's worker processes, if it has any
            if isinstance(self._next_spec, OpponentPool):
                self.pool, self._pool_agents, self.opponent_spec = self._next_spec, {}, None
                self._next_spec = None
                return
            self.pool = self.pool_entry = None
            seed = self.seed
            if seed is None and self._has_reset:
                # a new opponent mid-run (an autoreset): seeded from this env's generator, so
                # that a run reset with a seed plays the same games again
                seed = self._draw_seed()
            agent = opponent_from_spec(self._next_spec, seed, self._builders)
            learner_seats = self.seats if self.learner == "random" else [self.learner]
            self.opponents = self._check_opponents(agent, self.seats, learner_seats)
            self.opponent, self.opponent_spec, self._next_spec = agent, self._next_spec, None

    def _play_opponents(self) -> None:
        if not self.deferred:
            super()._play_opponents()


def check_spec(spec: Any) -> str:
    if not isinstance(spec, str):
        raise OptionTypeError(f"an opponent must be an agent spec string, got {spec!r}")
    return spec


def opponent_specs(
    opponent: str | Sequence[str] | OpponentPool, num_envs: int
) -> list[str | OpponentPool]:
    if isinstance(opponent, (str, OpponentPool)):
        return [opponent] * num_envs
    if isinstance(opponent, Sequence):
        specs: list[str | OpponentPool] = [check_spec(spec) for spec in opponent]
        if len(specs) != num_envs:
            raise InvalidOptionError(
                f"opponent lists {len(specs)} specs for num_envs={num_envs}; give one spec or "
                "one per sub-env"
            )
        return specs
    raise OptionTypeError(
        f"opponent must be an agent spec, a list of them or an OpponentPool, got {opponent!r}"
    )


def learner_flags(env: Any, seat: str) -> tuple[bool, bool]:
    """``SingleAgentVsOpponent._learner_flags`` on the unwrapped AEC env (the wrappers' attribute
    lookups cost more than the reads)."""
    if seat not in env.agents:
        return True, False
    terminated = bool(env.terminations[seat])
    return terminated, bool(env.truncations[seat]) and not terminated
