"""``VectorVsOpponent``: N games against MCTS opponents as one ``gymnasium.vector.VectorEnv``.

``gymnasium.make_vec("mcts_agents/<variant>-vs-agent-v0", num_envs=N, opponent=...)`` builds it
(the ids' ``vector_entry_point``; ``vectorization_mode="vector_entry_point"`` is the default
when none is given). Each sub-env is a ``SingleAgentVsOpponent`` over its own game and its own
opponent; the vector env plays the learner's actions in every sub-env, then asks all the
opponents that are to move for their replies in one call (``batch_search.act_batch``: the
compiled kernels search every tree in one parallel call), and repeats until every learner is
to move again or its game is over.

Sub-envs of a two-player game with compiled rules (Connect Four, Othello, tic-tac-toe...)
whose opponent is a compiled search play on arrays of the rules' words instead
(``rl.boards``): every step's work for all of them in compiled calls, no AEC env per board
(each is brought up to date from the boards' move histories when read: ``envs``, ``call``,
``render``); the other sub-envs step their AEC envs (``rl.aec_path``).

Sub-env ``i`` plays exactly the games that ``SingleAgentVsOpponent`` (``gymnasium.make`` of
the same id) plays when reset with seed ``s + i``, which is what ``make_vec(...,
vectorization_mode="sync").reset(seed=s)`` does: ``reset(seed=s)`` seeds sub-env ``i`` with
``s + i`` (a list gives each its own), and the constructor's ``seed`` seeds the first reset the
same way.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space, concatenate, create_empty_array

from mcts_agents.agents.specs import make_env
from mcts_agents.checks import check_int, check_seed, is_int
from mcts_agents.errors import (
    GameOverError,
    InvalidOptionError,
    NoLegalActionError,
    NotResetError,
)
from mcts_agents.rl.action_checks import (
    check_actions,
    check_legality,
    check_not_finished,
    check_range,
    reset_indices,
)
from mcts_agents.rl.aec_path import advance
from mcts_agents.rl.pool import OpponentPool
from mcts_agents.rl.pool_episodes import end_episodes
from mcts_agents.rl.single_agent import IllegalActionMode
from mcts_agents.rl.sub_env import SubEnv, opponent_specs
from mcts_agents.rl.words_step import fast_boards, step_on_words

__all__ = ["VectorVsOpponent", "make_vector_vs_agent"]

DEFAULT_OPPONENT = "mcts:iterations=200"
#: Sub-env attributes that ``get_attr`` reads without bringing the AEC envs up to date.
_SETTINGS = frozenset(
    ("opponent_spec", "seat", "learner", "seed", "illegal_action", "illegal_reward")
)
_MODES = (AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP, AutoresetMode.DISABLED)


class VectorVsOpponent(VectorEnv[Any, Any, Any]):
    """``num_envs`` games of one env variant, each against its own opponent (see the module).

    Args:
        num_envs: the number of games.
        env: an env spec (``"connect_four"``, ``"connect_four:width=8"``).
        opponent: an agent spec for every sub-env, or a list of one spec per sub-env (a
            curriculum of strengths), or an ``OpponentPool`` that every sub-env draws from at
            each episode start (``pool_stats()``; ``info["pool_entry"]``/``["pool_score"]``
            where episodes end); ``set_opponent`` changes them between episodes.
        learner: as ``SingleAgentVsOpponent``'s, for every sub-env.
        illegal_action: as ``SingleAgentVsOpponent``'s, for every sub-env. Under ``"lose"``
            an illegal action ends only its own sub-env's episode (reward ``illegal_reward``,
            ``info["illegal_action"]``); under ``"raise"`` it raises ``IllegalActionError``
            before any sub-env is stepped.
        illegal_reward: as ``SingleAgentVsOpponent``'s, for every sub-env.
        seed: seed of the first reset without one (sub-env ``i`` gets ``seed + i``).
        render_mode: sub-env 0's (the one ``render`` shows).
        autoreset_mode: ``AutoresetMode.NEXT_STEP`` (default: a finished sub-env is reset by
            the next ``step``, which ignores its action) or ``SAME_STEP`` (reset at once; the
            last observation and info are in ``info["final_obs"]``/``info["final_info"]``)
            or ``DISABLED`` (a finished sub-env waits for ``reset(options={"reset_mask":
            mask})``, which resets the sub-envs where ``mask`` is True; TorchRL's mode).
        fast_path: play the sub-envs that qualify on arrays of the rules' words, every step's
            work for all of them in compiled calls (``rl.boards``; the same games, moves,
            observations and rewards); ``False``: every sub-env through its AEC env.

    Observations are the learner's, stacked (``[N, *shape]``); rewards, terminations and
    truncations are arrays of ``N``. ``action_masks()`` (``[N, A]`` bool, all False for a
    finished game) is also ``info["action_mask"]``; ``info["learner"]`` holds each learner's
    seat.
    """

    def __init__(
        self,
        num_envs: int,
        env: str = "connect_four",
        opponent: str | Sequence[str] | OpponentPool = DEFAULT_OPPONENT,
        learner: str | None = None,
        seed: int | None = None,
        illegal_action: IllegalActionMode = "lose",
        illegal_reward: float = -1.0,
        render_mode: str | None = None,
        autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP,
        fast_path: bool = True,
    ) -> None:
        check_int(num_envs, "num_envs", low=1)
        check_seed(seed, optional=True)
        try:
            mode = AutoresetMode(autoreset_mode)
        except ValueError:
            mode = None
        if mode not in _MODES:
            raise InvalidOptionError(
                f"autoreset_mode must be one of {[m.value for m in _MODES]}, got {autoreset_mode!r}"
            )
        specs = opponent_specs(opponent, num_envs)
        builders: dict[str, Any] = {}  # one model for the sub-envs of one az:/policy: spec
        self._subs = [
            SubEnv(
                make_env(env, render_mode=render_mode if i == 0 else None),
                specs[i],
                None if seed is None else seed + i,
                builders,
                learner=learner,
                illegal_action=illegal_action,
                illegal_reward=illegal_reward,
            )
            for i in range(num_envs)
        ]
        first = self._subs[0]
        self.num_envs = num_envs
        self.autoreset_mode = mode
        self.metadata = {**first.metadata, "autoreset_mode": mode}
        self.render_mode = first.render_mode
        self.single_observation_space = first.observation_space
        self.single_action_space = first.action_space
        self.observation_space = batch_space(first.observation_space, num_envs)
        self.action_space = batch_space(first.action_space, num_envs)
        self._start = first._start
        self._num_actions = first._num_actions
        self._observations: Any = create_empty_array(first.observation_space, num_envs)
        self._autoreset = np.zeros(num_envs, dtype=bool)
        self._finished = np.zeros(num_envs, dtype=bool)  # (DISABLED: awaiting a reset)
        self._masks = np.zeros((num_envs, self._num_actions), dtype=bool)
        self._has_reset = False
        self._seat_names: np.ndarray | None = None  # each learner's seat (``info["learner"]``)
        self._fast = fast_boards(first.aec_env, num_envs) if fast_path else None
        self._every = np.arange(num_envs, dtype=np.int64)

    @property
    def envs(self) -> list[SubEnv]:
        """The sub-envs (``SubEnv``). Reading them brings every AEC env up to date and plays the
        rest of the running episodes through them (the caller may change them)."""
        if self._fast is not None:
            for i, sub in enumerate(self._subs):
                self._fast.leave(i, sub)
        self._seat_names = None  # (read again: the caller may change the sub-envs)
        return self._subs

    # ------------------------------------------------------------------ gymnasium API
    def reset(
        self,
        *,
        seed: int | Sequence[int | None] | None = None,
        options: dict[str, Any] | None = None,
    ) -> tuple[Any, dict[str, Any]]:
        """Reset every sub-env (sub-env ``i`` with ``seed + i``); the opponents move first
        where the learner is not first to play. ``options={"opponent": spec or list}`` sets
        the opponents first (as ``set_opponent``); under ``autoreset_mode="Disabled"``,
        ``options={"reset_mask": mask}`` (``N`` bools) resets only the sub-envs where it is True
        (the others go on; their observations are returned again)."""
        seeds = self._seeds(seed)
        super().reset(seed=seeds[0])
        options = dict(options or {})
        if "opponent" in options:
            self.set_opponent(options.pop("opponent"))
        indices = reset_indices(self, options.pop("reset_mask", None))
        if options:
            raise InvalidOptionError(
                f"reset got the options {sorted(options)}; the options are 'opponent' and "
                "'reset_mask' (autoreset_mode Disabled)"
            )
        self._reset_subs(indices, seeds)
        self._advance_all(indices)
        for i in indices:
            self._check_started(i)
        self._autoreset[:] = False
        self._finished[indices] = False
        self._has_reset = True
        observations = self._collect()
        return observations, self._infos()

    def step(self, actions: Any) -> tuple[Any, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Play ``actions`` (one per sub-env), then every opponent's reply (in one batch)."""
        if not self._has_reset:
            raise NotResetError("reset() must be called before step()")
        check_not_finished(self)
        actions = check_actions(self, actions)
        fast = self._fast
        if fast is not None and np.count_nonzero(fast.on) == self.num_envs:
            stepped = step_on_words(self, fast, actions)
            if stepped is not None:
                return stepped
        check_range(self, actions)
        n = self.num_envs
        rewards = np.zeros(n, dtype=np.float64)
        terminated = np.zeros(n, dtype=bool)
        truncated = np.zeros(n, dtype=bool)
        illegal = np.full(n, -1, dtype=np.int64)
        resetting = self._autoreset.nonzero()[0].tolist()
        waiting = ~self._autoreset
        rows = waiting.nonzero()[0]
        allowed = np.zeros(n, dtype=bool)
        allowed[rows] = self._masks[rows, actions[rows] - self._start]
        # under "raise": before anything changes
        check_legality(self, actions, (waiting & ~allowed).nonzero()[0].tolist())
        moved: list[int] = []
        before = np.zeros(n, dtype=np.float64)
        fast_moved = np.zeros(0, np.int64)
        if fast is not None and np.count_nonzero(fast.on):
            on = fast.on & waiting
            fast_moved = (on & allowed).nonzero()[0]
            fast.play(fast_moved, actions[fast_moved] - self._start)
            playing = (waiting & ~(on & allowed)).nonzero()[0].tolist()
        else:
            playing = rows.tolist()
        for i in playing:
            sub = self._subs[i]
            action = int(actions[i])
            if not self._masks[i, action - self._start]:
                if fast is not None and fast.on[i]:  # as _lose_on_illegal, on the words
                    fast.lost[i], sub._done, reward = True, True, sub.illegal_reward
                else:
                    legal = [self._start + int(a) for a in np.flatnonzero(self._masks[i])]
                    _, reward, _, _, _ = sub._lose_on_illegal(action, legal)
                rewards[i] = float(reward)
                terminated[i] = True
                illegal[i] = action
                continue
            seat = sub._learner_seat()
            before[i] = sub._returns[seat]
            sub._step_env(action)
            moved.append(i)
        self._reset_subs(resetting)
        self._advance_all(moved + resetting, fast_moved)
        for i in resetting:
            self._check_started(i)
        for i in moved:
            sub = self._subs[i]
            rewards[i] = sub._returns[sub._learner_seat()] - before[i]
            terminated[i], truncated[i] = sub._learner_flags()
        if fast is not None and len(fast_moved):
            for i in fast.results(fast_moved, rewards, terminated).tolist():
                self._subs[i]._done = True
        ended = np.logical_or(terminated, truncated)
        pool = end_episodes(self, ended, illegal)
        final: dict[str, Any] = {}
        if self.autoreset_mode == AutoresetMode.SAME_STEP and ended.any():
            final = self._reset_finished(np.flatnonzero(ended).tolist())
            self._autoreset[:] = False
        elif self.autoreset_mode == AutoresetMode.DISABLED:
            self._finished |= ended
        else:
            self._autoreset = ended
        observations = self._collect()
        infos = {**self._infos(), **pool, **final}
        if len(playing) and np.count_nonzero(illegal >= 0):  # (only there: illegal actions)
            infos["illegal_action"], infos["_illegal_action"] = illegal, illegal >= 0
        return observations, rewards, terminated, truncated, infos

    def action_masks(self) -> np.ndarray:
        """``[N, A]`` bool: each sub-env's legal actions (all False where its game is over)."""
        if not self._has_reset:
            raise NotResetError("reset() must be called before action_masks()")
        return self._masks.copy()

    def pool_stats(self) -> dict[str, dict[str, Any]]:
        """``OpponentPool.stats()`` of sub-env 0's pool (``{}`` without one)."""
        return self._subs[0].pool_stats()

    def set_opponent(self, opponent: str | Sequence[str] | OpponentPool) -> None:
        """Play ``opponent`` (one agent spec, or one per sub-env) from each sub-env's next
        episode on (its next reset, autoresets included).

        Raises:
            SpecError: a bad spec; InvalidOptionError: a list of the wrong length.
        """
        specs = opponent_specs(opponent, self.num_envs)
        for sub, spec in zip(self._subs, specs, strict=True):
            sub.set_opponent(spec)

    def render(self) -> Any:
        """Sub-env 0's ``render()``."""
        if self._fast is not None and self._fast.on[0]:
            self._fast.sync(0, self._subs[0])
        return self._subs[0].render()

    def close_extras(self, **kwargs: Any) -> None:
        # (``getattr``: gymnasium's ``__del__`` closes an env whose constructor raised too)
        for sub in getattr(self, "_subs", ()):
            for agent in {id(a): a for a in sub.opponents.values()}.values():
                close = getattr(agent, "close", None)
                if callable(close):
                    close()
            sub.close()

    def call(self, name: str, *args: Any, **kwargs: Any) -> tuple[Any, ...]:
        """``name(*args, **kwargs)`` of every sub-env (an attribute's value if not callable).
        ``set_opponent`` and ``action_masks`` leave the sub-envs on the rules' words."""
        if name == "set_opponent":
            for sub in self._subs:
                sub.set_opponent(*args, **kwargs)
            return (None,) * self.num_envs
        if name == "action_masks" and not args and not kwargs and self._has_reset:
            return tuple(self.action_masks())
        results = []
        for sub in self.envs:
            attribute = getattr(sub, name)
            results.append(attribute(*args, **kwargs) if callable(attribute) else attribute)
        return tuple(results)

    def get_attr(self, name: str) -> tuple[Any, ...]:
        """The attribute ``name`` of every sub-env (those of ``_SETTINGS`` without leaving the
        rules' words)."""
        subs = self._subs if name in _SETTINGS else self.envs
        return tuple(getattr(sub, name) for sub in subs)

    def set_attr(self, name: str, values: Any) -> None:
        """Set ``name`` on every sub-env: one value each from a list or tuple, else the same."""
        if not isinstance(values, (list, tuple)):
            values = [values] * self.num_envs
        if len(values) != self.num_envs:
            raise InvalidOptionError(
                f"set_attr({name!r}) got {len(values)} values for {self.num_envs} sub-envs"
            )
        for sub, value in zip(self.envs, values, strict=True):
            setattr(sub, name, value)

    # ------------------------------------------------------------------ internals
    def _seeds(self, seed: int | Sequence[int | None] | None) -> list[int | None]:
        n = self.num_envs
        if seed is None:
            return [None] * n
        if is_int(seed, numpy_ints=True):
            return [int(seed) + i for i in range(n)]
        if isinstance(seed, Sequence) and len(seed) == n:
            return list(seed)
        raise InvalidOptionError(
            f"seed must be an int, None or a list of {n} seeds (one per sub-env), got {seed!r}"
        )

    def _reset_subs(self, indices: list[int], seeds: Sequence[int | None] | None = None) -> None:
        """Reset the sub-envs ``indices`` (with ``seeds[i]``, else none), on the words where
        they qualify (``FastBoards.start``)."""
        fast = self._fast
        names = self._seat_names
        for i in indices:
            sub = self._subs[i]
            sub.start(None if seeds is None else seeds[i], put_off=fast is not None)
            if names is not None:
                names[i] = sub.seat
        if fast is not None:
            for i in fast.start(indices, self._subs):
                self._subs[i].ready()

    def _advance_all(self, indices: list[int], fast_moved: Any = ()) -> None:
        """``_advance`` the sub-envs of ``indices`` on the AEC path, the others (and
        ``fast_moved``) on the words (``FastBoards.advance``)."""
        fast = self._fast
        if fast is None:
            self._advance(indices)
            return
        chosen = np.array(indices, np.int64)
        on = chosen[fast.on[chosen]]
        if len(on) < len(chosen):
            self._advance([i for i in indices if not fast.on[i]])
        fast.advance(
            np.concatenate([np.asarray(fast_moved, np.int64), on]) if len(on) else fast_moved
        )
        for i in on[fast.over_all()[on]].tolist():  # (games over before the learner's turn)
            self._subs[i]._done = True

    def _check_started(self, i: int) -> None:
        sub = self._subs[i]
        if self._fast is not None and self._fast.on[i] and sub._done:
            self._fast.sync(i, sub)  # the message shows the AEC env and its returns
        if sub._done:
            raise GameOverError(
                f"the game of sub-env {i} ({sub.aec_env}) ended before {sub.seat}'s first turn "
                f"(returns {sub._returns}); the learner needs at least one move per episode"
            )

    def _advance(self, indices: list[int]) -> None:
        """``aec_path.advance`` of the sub-envs ``indices`` (on their AEC envs)."""
        advance(self._subs, indices, self._start)

    def _reset_finished(self, finished: list[int]) -> dict[str, Any]:
        """``SAME_STEP``: reset the finished sub-envs; their last observations and infos."""
        final_obs = np.empty(self.num_envs, dtype=object)
        final_mask = np.zeros(self.num_envs, dtype=bool)
        final_info: dict[str, Any] = {}
        fast = self._fast
        if fast is not None:
            fast.observe()
        for i in finished:
            if fast is not None and fast.on[i]:
                final_obs[i] = fast.planes[i].reshape(fast.shape).copy()
            else:
                final_obs[i] = self._subs[i]._observation()
            final_mask[i] = True
            final_info = self._add_info(final_info, self._sub_info(i), i)
        self._reset_subs(finished)
        self._advance_all(finished)
        for i in finished:
            self._check_started(i)
        return {
            "final_obs": final_obs,
            "_final_obs": final_mask,
            "final_info": final_info,
            "_final_info": final_mask.copy(),
        }

    def _sub_info(self, i: int) -> dict[str, Any]:
        sub = self._subs[i]
        if self._fast is not None and self._fast.on[i]:
            return {"learner": sub.seat, "returns": self._fast.returns(i, sub.seats)}
        return {"learner": sub.seat, "returns": dict(sub._returns)}

    def _infos(self) -> dict[str, Any]:
        everyone = np.ones(self.num_envs, dtype=bool)
        seats = self._seat_names
        if seats is None:  # (after a reset, or a read of the sub-envs)
            seats = self._seat_names = np.array([sub.seat for sub in self._subs], dtype=object)
        seats = seats.copy()
        return {
            "action_mask": self._masks.copy(),
            "_action_mask": everyone,
            "learner": seats,
            "_learner": everyone.copy(),
        }

    def _collect(self, observed: bool = False) -> Any:
        """Observe every sub-env once: the batched observations (returned, a copy) and the masks
        (kept for ``action_masks``, ``info`` and the next step's checks). ``observed``: every
        sub-env is on the words and ``FastBoards.settle`` observed them since they last changed.

        Raises:
            NoLegalActionError: a learner to move with an empty mask, naming the sub-env.
        """
        fast = self._fast
        if fast is not None and np.count_nonzero(fast.on):
            self._masks = fast.collect(self._subs, self._observations, observed)
            return np.copy(self._observations)
        masks = np.zeros((self.num_envs, self._num_actions), dtype=bool)
        observations = []
        for i, sub in enumerate(self._subs):
            seen = sub._observe()
            observations.append(seen["observation"])
            if sub._done:
                continue
            mask = np.asarray(seen["action_mask"]).astype(bool)
            if not mask.any():
                raise NoLegalActionError(
                    f"{sub.seat} is to move in sub-env {i} ({sub.aec_env}) but its action mask "
                    "has no legal action"
                )
            masks[i] = mask
        self._observations = concatenate(
            self.single_observation_space, observations, self._observations
        )
        self._masks = masks
        return np.copy(self._observations)

    def __repr__(self) -> str:
        return f"VectorVsOpponent({self.num_envs} x {self._subs[0]!r})"


def make_vector_vs_agent(num_envs: int = 1, env: str = "connect_four", **kwargs: Any) -> Any:
    """The ``vector_entry_point`` of the ``mcts_agents/<variant>-vs-agent-v0`` ids: a
    ``VectorVsOpponent`` (keywords as its constructor's)."""
    return VectorVsOpponent(num_envs, env, **kwargs)
