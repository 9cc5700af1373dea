"""Agents that act in a live PettingZoo AEC env: ``act(env) -> action`` for the agent to move."""

from __future__ import annotations

import random
import sys
from dataclasses import replace
from types import TracebackType
from typing import Any, Protocol, TextIO, runtime_checkable

from mcts_agents.adapters import game_from_env, hint_if_slow
from mcts_agents.adapters.aec import legal_actions
from mcts_agents.checks import check_seed
from mcts_agents.planner.factory import make_searcher
from mcts_agents.planner.parallel import (
    check_config_picklable,
    validate_workers,
)
from mcts_agents.search.config import MIXED_INFORMATION, Budget, SearchConfig
from mcts_agents.search.result import SearchResult
from mcts_agents.search.searcher import Progress, Searcher, StopCheck, game_identity

__all__ = [
    "AGENT_ARGUMENTS",
    "Agent",
    "HumanAgent",
    "MCTSAgent",
    "RandomAgent",
    "SearchingAgent",
    "play_move",
]

#: ``MCTSAgent``'s own arguments, besides the ``SearchConfig`` options.
AGENT_ARGUMENTS = ("iterations", "time_limit", "max_nodes", "seed", "workers")


def play_move(result: SearchResult, play: str, rng: random.Random) -> int:
    """The move an agent plays after ``result`` (``SearchConfig.play``): the best action, or
    one drawn from ``result.policy`` with ``rng`` (``"sample"``, and ``"auto"`` after an
    information-set search); a proven win is always played, and a move proven lost is never
    drawn while another is not."""
    mixed = play == "sample" or (play == "auto" and result.information in MIXED_INFORMATION)
    if not mixed or result.proven == "win":
        return result.best_action
    lost = {c.action for c in result.children if c.proven == "loss"}
    if len(lost) == len(result.children):
        lost = set()
    policy = [(a, p) for a, p in result.policy.items() if p > 0 and a not in lost]
    if not policy:
        return result.best_action
    draw = rng.random() * sum(p for _, p in policy)
    for action, p in policy:
        draw -= p
        if draw < 0:
            return int(action)
    return int(policy[-1][0])  # rounding left the draw at the total


@runtime_checkable
class Agent(Protocol):
    """Anything that picks an action for ``env.agent_selection`` without changing ``env``."""

    def act(self, env: Any) -> int: ...


@runtime_checkable
class SearchingAgent(Protocol):
    """An agent whose move is a search that can be watched and stopped (``MCTSAgent`` and its
    kinds): the web page shows its progress; ``reset`` drops its tree."""

    def act(self, env: Any) -> int: ...

    def search(
        self,
        env: Any,
        should_stop: StopCheck | None = None,
        on_progress: Progress | None = None,
    ) -> SearchResult: ...

    def reset(self, seed: int | None = None) -> None: ...


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
            ``rollout_depth``, ``cutoff_value``, ``playout``, ``evaluator``, ``batch_size``,
            ``virtual_loss``, ``solver``, ``final_move``, ``reuse``, ``backend``, ...); an
            unknown option raises ``InvalidOptionError`` naming it. With numba installed (extra
            ``fast``), Connect Four, Othello, m,n,k, ultimate tic-tac-toe and Nim run in a
            compiled kernel (``backend="auto"``); the first such search of a game in a process
            loads its kernel (0.3-0.6 s, outside ``time_limit``; compiled once, with a warning,
            where numba's cache does not hold it).

    The searcher (``searcher``: ``make_searcher``'s choice for the game) is built at the first
    search and again when the agent meets another game. Our envs are searched through their
    rules core (no AEC overhead); anyone else's env through a verified clone (``CloneError`` if
    it cannot be cloned). The env is never changed.
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
        # options first: a typo in a budget's name is named, not taken for a missing budget
        self.config = SearchConfig.from_options(options, also=AGENT_ARGUMENTS)
        self.budget = Budget(iterations=iterations, time_limit=time_limit, max_nodes=max_nodes)
        self.seed = check_seed(seed, optional=True)
        self.workers = validate_workers(workers)
        if self.workers > 1:
            check_config_picklable(self.config, self.workers)
        self.searcher: Searcher | None = None
        self._identity: Any = None  # the game ``searcher`` was built for
        self._play_rng = _play_rng(seed)
        self.last_result: SearchResult | None = None

    def search(
        self,
        env: Any,
        should_stop: StopCheck | None = None,
        on_progress: Progress | None = None,
    ) -> SearchResult:
        """Search from ``env``'s current position and return the full result.

        Args:
            env: the live env (only read).
            should_stop: called between simulations, from the searching thread; once it
                returns true the search ends, whatever the budget: the result covers the
                simulations run and its ``stopped`` is true. Set it from another thread to stop
                a search (a closed page). Root parallelism stops this process's search; its
                workers run their budget to the end.
            on_progress: given the result so far about every ``PROGRESS_SECONDS`` (0.1 s) while
                the search runs (a live heat map, a progress bar); it changes nothing of the
                search. The final result is the one returned.
        """
        game, state = game_from_env(env, self.config.information == "oracle")
        searcher = self._searcher_for(game)
        searcher.should_stop, searcher.on_progress = should_stop, on_progress
        try:
            result = searcher.search(game, state)
        finally:
            searcher.should_stop = searcher.on_progress = None
        if should_stop is not None and should_stop():
            result = replace(result, stopped=True)
        else:
            hint_if_slow(  # logs, once per kind
                env,
                game,
                result.iterations,
                result.elapsed,
                state=state,
                config=self.config,
                time_limit=self.budget.time_limit,
            )
        self.last_result = result
        return result

    def act(self, env: Any) -> int:
        """The action for ``env.agent_selection``: the search's ``best_action``, or a draw from
        its ``policy`` where the game hides information (``SearchConfig.play``)."""
        return self.choose(self.search(env))

    def choose(self, result: SearchResult) -> int:
        """The move ``act`` plays after ``result`` (``play_move`` with this agent's ``play``
        option and its own seeded generator of move draws)."""
        return play_move(result, self.config.play, self._play_rng)

    def prepare(self, env: Any) -> None:
        """Build the searcher for ``env``'s game now, without searching: a compiled kernel or
        playout is compiled or loaded here (0.3-0.6 s from numba's cache, seconds without it)
        and worker processes start, so that none of it is charged to the first timed move.
        ``play_game`` (so the arena and the CLI) calls it before a game's first move."""
        game = game_from_env(env, self.config.information == "oracle")[0]
        self._searcher_for(game).prepare(game)

    def _searcher_for(self, game: Any) -> Searcher:
        """The kept searcher if it was built for ``game``, else a new one (closing the old)."""
        identity = game_identity(game)
        if self.searcher is None or identity != self._identity:
            if self.searcher is not None:
                self.searcher.close()
            self.searcher = make_searcher(game, self.budget, self.config, self.seed, self.workers)
            self._identity = identity
        return self.searcher

    def reset(self, seed: int | None = None) -> None:
        """Forget the node table(s) (between games); reseed if ``seed`` is given."""
        if seed is not None:
            self.seed = check_seed(seed)
            self._play_rng = _play_rng(seed)
        if self.searcher is not None:
            self.searcher.reset(seed)

    def close(self) -> None:
        """Stop the worker processes (``workers > 1``; a later search restarts them)."""
        if self.searcher is not None:
            self.searcher.close()

    def __enter__(self) -> MCTSAgent:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

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


def _play_rng(seed: int | None) -> random.Random:
    """The generator of an agent's move draws: derived from its seed (apart from the search's
    own numbers), OS entropy without one."""
    return random.Random(None if seed is None else f"play {int(seed)}")


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


class HumanAgent:
    """A person typing moves (action numbers) on a text stream.

    Shows the board (``env.render()`` when the env renders as ``ansi``) and the legal moves,
    then reads a line; a non-integer or an illegal move is explained and asked again. End of
    input raises ``EOFError``.

    Args:
        input: where moves are read (default ``sys.stdin``).
        output: where the board and prompts are written (default ``sys.stdout``).
        name: display name.
    """

    def __init__(
        self, input: TextIO | None = None, output: TextIO | None = None, name: str = "human"
    ) -> None:
        self.input = input
        self.output = output
        self.name = name

    def act(self, env: Any) -> int:
        out = self.output if self.output is not None else sys.stdout
        inp = self.input if self.input is not None else sys.stdin
        if getattr(env.unwrapped, "render_mode", None) == "ansi":
            out.write(f"{env.render()}\n")
        legal = legal_actions(env)
        out.write(f"legal moves: {' '.join(map(str, legal))}\n")
        while True:
            out.write(f"{env.agent_selection} move: ")
            out.flush()
            line = inp.readline()
            if not line:
                out.write("\n")
                raise EOFError("input ended before a move was given")
            text = line.strip()
            try:
                action = int(text)
            except ValueError:
                out.write(f"{text!r} is not an integer; type one of the legal moves\n")
                continue
            if action not in legal:
                out.write(f"{action} is not a legal move; legal: {' '.join(map(str, legal))}\n")
                continue
            return action

    def reset(self, seed: int | None = None) -> None:
        """Nothing to forget between games."""

    def __repr__(self) -> str:
        return f"HumanAgent(name={self.name!r})"
