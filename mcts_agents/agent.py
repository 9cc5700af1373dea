"""Agents that act in a live PettingZoo AEC env: ``act(env) -> action`` for the agent to move."""

from __future__ import annotations

import random
from types import TracebackType
from typing import Any, Protocol, runtime_checkable

from mcts_agents.adapters import game_from_env, legal_actions
from mcts_agents.config import Budget, SearchConfig
from mcts_agents.parallel import RootParallelSearch, validate_workers
from mcts_agents.result import SearchResult
from mcts_agents.search import MCTS


@runtime_checkable
class Agent(Protocol):
    """Anything that picks an action for ``env.agent_selection`` without changing ``env``."""

    def act(self, env: Any) -> int: ...


class MCTSAgent:
    """Monte Carlo Tree Search planner for any PettingZoo AEC env.

    Args:
        iterations: simulations per move.
        time_limit: seconds per move.
        max_nodes: bound on the node table (kept across moves with tree reuse).
        seed: seed of the search's random numbers (same seed, same moves under an iteration
            budget; a time budget makes the number of simulations depend on the machine).
        workers: independent searches of each position, merged at the root (root parallelism,
            ``RootParallelSearch``): one in this process and ``workers - 1`` in worker processes
            that keep their trees from move to move. ``iterations`` is the total across them,
            ``time_limit`` applies to each, ``max_nodes`` to each table. Needs a game that
            pickles (this library's envs, OpenSpiel); call ``close()`` (or use ``with``) to stop
            the workers early.
        **options: fields of ``SearchConfig`` (``c``, ``selection``, ``fpu``, ``expand_all``,
            ``rollout_depth``, ``cutoff_value``, ``playout``, ``evaluator``, ``solver``,
            ``final_move``, ``reuse``, ``backend``); an unknown option raises
            ``InvalidOptionError`` naming it. With numba installed (extra ``fast``), Connect
            Four runs in a compiled kernel (``backend="auto"``); the first such search in a
            process loads it (0.3-0.6 s, outside ``time_limit``).

    Our envs are searched through their rules core (no AEC overhead); anyone else's env through
    a verified clone (``CloneError`` if it cannot be cloned). The env is never changed.
    """

    def __init__(
        self,
        iterations: int | None = None,
        time_limit: float | None = None,
        max_nodes: int | None = None,
        seed: int | None = None,
        workers: int = 1,
        **options: Any,
    ) -> None:
        self.budget = Budget(iterations=iterations, time_limit=time_limit, max_nodes=max_nodes)
        self.config = SearchConfig.from_options(options)
        self.seed = seed
        self.workers = validate_workers(workers)
        self.parallel: RootParallelSearch | None = None
        if self.workers == 1:
            self.mcts = MCTS(self.budget, self.config, seed)
        else:
            self.parallel = RootParallelSearch(self.budget, self.config, seed, self.workers)
            self.mcts = self.parallel.local  # the search in this process, to inspect
        self.last_result: SearchResult | None = None

    def search(self, env: Any) -> SearchResult:
        """Search from ``env``'s current position and return the full result."""
        game, state = game_from_env(env)  # raises for a finished or stuck env
        if self.parallel is None:
            self.last_result = self.mcts.search(game, state)
        else:
            self.last_result = self.parallel.search(game, state)
        return self.last_result

    def act(self, env: Any) -> int:
        """The action for ``env.agent_selection``."""
        return self.search(env).best_action

    def reset(self, seed: int | None = None) -> None:
        """Forget the node table(s) (between games); reseed if ``seed`` is given."""
        if self.parallel is not None:
            self.parallel.reset(seed)
            if seed is not None:
                self.seed = seed
            return
        self.mcts.reset()
        if seed is not None:
            self.seed = seed
            self.mcts.rng.seed(seed)

    def close(self) -> None:
        """Stop the worker processes (``workers > 1``; a later search restarts them)."""
        if self.parallel is not None:
            self.parallel.close()

    def __enter__(self) -> MCTSAgent:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        if self.parallel is not None:  # configuration only: workers restart lazily
            del state["mcts"]
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        if self.parallel is not None:
            self.mcts = self.parallel.local

    def __repr__(self) -> str:
        budget = ", ".join(
            f"{k}={v}"
            for k, v in (
                ("iterations", self.budget.iterations),
                ("time_limit", self.budget.time_limit),
                ("max_nodes", self.budget.max_nodes),
            )
            if v is not None
        )
        workers = f", workers={self.workers}" if self.workers > 1 else ""
        return f"MCTSAgent({budget}, seed={self.seed}{workers})"


class RandomAgent:
    """Uniformly random legal moves, seeded."""

    def __init__(self, seed: int | None = None) -> None:
        self.seed = seed
        self.rng = random.Random(seed)

    def act(self, env: Any) -> int:
        actions = legal_actions(env)
        return actions[int(self.rng.random() * len(actions))]

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.seed = seed
            self.rng.seed(seed)

    def __repr__(self) -> str:
        return f"RandomAgent(seed={self.seed})"
