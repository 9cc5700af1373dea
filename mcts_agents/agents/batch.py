"""Many positions, one tree each, searched in one call: ``search_batch`` and ``BatchedMCTS``.

RL pipelines step tens to thousands of games at once; each opponent keeps its own tree. A
batch of searches through ``search_batch`` gives exactly the results of the same searches made
one after another (``searcher.search(game, state)`` for each), with the same seeds, so a batch
changes how fast the searches run and nothing else. Compiled searchers (``mcts_agents.compiled``)
with an iteration budget run in one kernel call over all their trees, in parallel over the
trees on every core (``compiled.batch``); the Python searches over a batch evaluator (``az:``
agents, ``PUCTAgent``) with no time limit run in lockstep, one ``evaluate_batch`` a round for
all the trees of one evaluator (``search.tree_batch``: each tree's result is its search's,
the values to within the evaluator's rounding of a bigger batch); every other searcher (the
Python search with playouts, time budgets) is searched in turn in this process, with the same
API.

``BatchedMCTS`` is the agent for hand-written loops: ``N`` trees built by ``make_searcher``,
``search_batch(game, states)`` and ``act_batch(envs)``. ``act_batch(agents, envs)`` (the
function) asks a list of agents for one move each: the ``MCTSAgent`` s among them are searched as
one batch, ``PolicyAgent`` s and ``PriorAgent`` s sharing a model in one forward pass, any
other agent through its ``act(env)``; ``mcts_agents.rl.vector`` uses it for its
opponents.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from mcts_agents.adapters import game_from_env
from mcts_agents.agents.agent import MCTSAgent, RandomAgent
from mcts_agents.agents.models import PriorAgent, prior_batch
from mcts_agents.agents.policy import PolicyAgent
from mcts_agents.checks import check_int, is_int
from mcts_agents.errors import InvalidOptionError
from mcts_agents.search.game import Game, State, is_perfect_information
from mcts_agents.search.result import SearchResult
from mcts_agents.search.searcher import Searcher
from mcts_agents.search.tree_batch import joins_lockstep, search_lockstep

__all__ = ["BatchedMCTS", "act_batch", "acts_in_batches", "search_batch"]

#: The module that searches compiled searchers as one batch (imported only when one is met).
_COMPILED_BATCH = "mcts_agents.compiled.batch"


def _is_compiled(searcher: Any) -> bool:
    return type(searcher).__module__.startswith("mcts_agents.compiled.")


def search_batch(
    searchers: Sequence[Searcher], games: Game | Sequence[Game], states: Sequence[State]
) -> list[SearchResult]:
    """``searchers[i].search(games[i], states[i])`` for every ``i``, the compiled ones in one call.

    Args:
        searchers: one searcher per position, each at most once (a tree searches one position
            at a time).
        games: the game of every position, or one game for all.
        states: the positions (none terminal); none is changed.

    Returns:
        The results in the order of ``states``: equal to the searches made one by one (a
        network's values to within its rounding of a bigger batch: ``search.tree_batch``).

    Raises:
        InvalidOptionError: lists of different lengths, or a searcher given twice.
    """
    game_list = _check(searchers, games, states)
    return _by_kind(searchers, game_list, states, "search_compiled", lambda result: result)


def _by_kind(
    searchers: Sequence[Searcher],
    games: list[Game],
    states: Sequence[State],
    compiled_call: str,
    answer: Callable[[SearchResult], Any],
) -> list[Any]:
    """For every ``i``: the compiled searchers' answers from one ``compiled.batch`` call
    (``compiled_call``), the Python searches over a batch evaluator in lockstep
    (``search.tree_batch``: one ``evaluate_batch`` a round for every tree of one evaluator),
    the others' searches in turn; ``answer`` makes an answer of a result."""
    answers: list[Any] = [None] * len(states)
    compiled = [i for i, searcher in enumerate(searchers) if _is_compiled(searcher)]
    if compiled:
        batch = importlib.import_module(_COMPILED_BATCH)
        found = getattr(batch, compiled_call)(
            [searchers[i] for i in compiled],
            [games[i] for i in compiled],
            [states[i] for i in compiled],
        )
        for i, found_i in zip(compiled, found, strict=True):
            answers[i] = found_i
    together = [i for i, searcher in enumerate(searchers) if joins_lockstep(searcher)]
    if together:
        results = search_lockstep(
            [searchers[i] for i in together],
            [games[i] for i in together],
            [states[i] for i in together],
        )
        for i, result in zip(together, results, strict=True):
            answers[i] = answer(result)
    for i, searcher in enumerate(searchers):
        if answers[i] is None:
            answers[i] = answer(searcher.search(games[i], states[i]))
    return answers


def _check(
    searchers: Sequence[Searcher], games: Game | Sequence[Game], states: Sequence[State]
) -> list[Game]:
    """The game of every state, after checking the lengths and that no searcher repeats."""
    count = len(states)
    game_list = list(games) if isinstance(games, Sequence) else [games] * count
    if len(searchers) != count or len(game_list) != count:
        raise InvalidOptionError(
            f"search_batch needs one searcher and one game per state; got {len(searchers)} "
            f"searchers, {len(game_list)} games and {count} states"
        )
    seen: dict[int, int] = {}
    for i, searcher in enumerate(searchers):
        first = seen.setdefault(id(searcher), i)
        if first != i:
            raise InvalidOptionError(
                f"search_batch got the searcher {searcher!r} for states {first} and {i}; each "
                "tree searches one position per batch"
            )
    return game_list


def _moves_batch(searchers: list[Searcher], games: list[Game], states: list[State]) -> list[int]:
    """``search_batch``'s best actions; compiled trees build no result (``moves_compiled``)."""
    _check(searchers, games, states)
    moves = _by_kind(searchers, games, states, "moves_compiled", lambda r: r.best_action)
    return [int(move) for move in moves]


def act_batch(agents: Sequence[Any], envs: Sequence[Any], keep_results: bool = True) -> list[Any]:
    """The move of ``agents[i]`` in ``envs[i]`` for every ``i``, as ``agents[i].act(envs[i])``.

    ``MCTSAgent`` s of one process (``workers == 1``) are searched as one batch
    (``search_batch``: the compiled ones in one kernel call, those of one network, ``az:``
    agents, in lockstep; their ``last_result`` is set as ``act`` sets it); ``PolicyAgent`` s of
    one batched policy and ``PriorAgent`` s of one model are evaluated in one forward pass
    each (the moves their ``act`` would choose); any other agent is
    asked through ``act(env)`` (its action returned as it is, for the caller to check). The
    envs are not changed. An agent may appear once. With ``keep_results=False`` the compiled
    trees' results are not built (only their moves: the same moves, the trees in the same
    state) and those agents' ``last_result`` is ``None``.

    Raises:
        InvalidOptionError: lists of different lengths, or an ``MCTSAgent`` given twice.
    """
    if len(agents) != len(envs):
        raise InvalidOptionError(
            f"act_batch needs one agent per env; got {len(agents)} agents and {len(envs)} envs"
        )
    actions: list[Any] = [None] * len(envs)
    searched = [False] * len(envs)
    batched: list[int] = []
    searchers: list[Searcher] = []
    games: list[Game] = []
    states: list[State] = []
    for i, (agent, env) in enumerate(zip(agents, envs, strict=True)):
        if isinstance(agent, MCTSAgent) and agent.workers == 1:
            game, state = game_from_env(env, agent.config.information == "oracle")
            batched.append(i)
            searchers.append(agent._searcher_for(game))
            games.append(game)
            states.append(state)
    # a move drawn from the search's policy needs the result (only a best action does not)
    draws = any(
        agents[i].config.play == "sample"
        or (agents[i].config.play == "auto" and not is_perfect_information(game))
        for i, game in zip(batched, games, strict=True)
    )
    if batched and not keep_results and not draws:
        for i, move in zip(batched, _moves_batch(searchers, games, states), strict=True):
            agents[i].last_result = None
            actions[i], searched[i] = move, True
    elif batched:
        for i, result in zip(batched, search_batch(searchers, games, states), strict=True):
            agents[i].last_result = result
            actions[i], searched[i] = agents[i].choose(result), True
    _policy_batches(agents, envs, actions, searched)
    _prior_batches(agents, envs, actions, searched)
    for i, (agent, env) in enumerate(zip(agents, envs, strict=True)):
        if not searched[i]:
            actions[i] = agent.act(env)  # as the agent gives it: the caller checks it
    return actions


def acts_in_batches(agent: Any) -> bool:
    """Whether ``act_batch`` asks ``agent`` for its moves together with others' and its moves do
    not depend on the clock: an ``MCTSAgent`` (``az:`` agents too) of one process with an
    iteration budget and no time limit (compiled searchers in one kernel call), a
    ``PriorAgent``, a ``PolicyAgent`` of a batched policy, or a ``RandomAgent`` itself (nothing
    to batch, nothing to wait for; a subclass's ``act`` may be anything). Such agents play
    many games at once at no cost to any."""
    if isinstance(agent, MCTSAgent):
        budget = agent.budget
        return agent.workers == 1 and budget.iterations is not None and budget.time_limit is None
    if isinstance(agent, PolicyAgent):
        return callable(getattr(agent.policy, "batch", None))
    return isinstance(agent, PriorAgent) or type(agent) is RandomAgent  # (a subclass: its act)


def _policy_batches(
    agents: Sequence[Any], envs: Sequence[Any], actions: list[Any], searched: list[bool]
) -> None:
    """The ``PolicyAgent`` s whose policy has ``batch(observations, masks) -> actions`` (a
    learned policy: ``rl.snapshots.FrozenPolicy``): one call per distinct policy over every
    env it plays in (one forward pass), each env's observation and mask those ``act`` reads."""
    groups: dict[int, list[int]] = {}
    for i, agent in enumerate(agents):
        policy = getattr(agent, "policy", None) if isinstance(agent, PolicyAgent) else None
        if not searched[i] and callable(getattr(policy, "batch", None)):
            groups.setdefault(id(policy), []).append(i)
    for indices in groups.values():
        seen = [envs[i].observe(envs[i].agent_selection) for i in indices]
        if not all(isinstance(s, dict) and "action_mask" in s for s in seen):
            continue  # (``act`` names what is wrong)
        observations = np.stack([np.asarray(s["observation"]) for s in seen])
        masks = np.stack([np.asarray(s["action_mask"]).astype(bool) for s in seen])
        found = agents[indices[0]].policy.batch(observations, masks)
        for i, action in zip(indices, np.asarray(found).tolist(), strict=True):
            actions[i], searched[i] = int(action), True


def _prior_batches(
    agents: Sequence[Any], envs: Sequence[Any], actions: list[Any], searched: list[bool]
) -> None:
    """The ``PriorAgent`` s (``policy:`` specs) sharing one model: one ``evaluate_batch`` per
    model over every env it plays in, each agent's move chosen as its ``act`` chooses it."""
    groups: dict[int, list[int]] = {}
    for i, agent in enumerate(agents):
        if not searched[i] and isinstance(agent, PriorAgent):
            groups.setdefault(id(agent.evaluator), []).append(i)
    for indices in groups.values():
        chosen = [agents[i] for i in indices]
        priors = prior_batch(chosen, [game_from_env(envs[i]) for i in indices])
        for i, agent, row in zip(indices, chosen, priors, strict=True):
            actions[i], searched[i] = agent.choose(row), True


class BatchedMCTS:
    """``trees`` independent MCTS trees searched as one batch (see the module).

    Args:
        trees: how many trees (one per game of the batch).
        iterations: simulations of every search (the budget as ``MCTSAgent``'s); the
            compiled batch needs an iteration budget.
        time_limit: seconds of every search; a time budget searches the trees in turn.
        max_nodes: the most nodes of every tree.
        seed: tree ``i``'s seed: ``seed + i`` for an int, ``seed[i]`` for a list, ``None``
            for unseeded trees. Tree ``i`` then searches exactly as ``MCTSAgent(..., seed=that)``.
        **options: ``SearchConfig`` fields, as ``MCTSAgent``'s.

    Attributes:
        agents: the ``MCTSAgent`` of every tree (its searcher comes from ``make_searcher``).
    """

    def __init__(
        self,
        trees: int,
        iterations: int | None = None,
        time_limit: float | None = None,
        max_nodes: int | None = None,
        seed: int | Sequence[int] | None = None,
        **options: Any,
    ) -> None:
        check_int(trees, "trees", low=1)
        seeds = _tree_seeds(seed, trees)
        self.agents = [
            MCTSAgent(iterations, time_limit, max_nodes, seed=seeds[i], **options)
            for i in range(trees)
        ]

    def __len__(self) -> int:
        return len(self.agents)

    def search_batch(
        self, game: Game, states: Sequence[State], trees: Sequence[int] | None = None
    ) -> list[SearchResult]:
        """Search ``states[j]`` in tree ``trees[j]`` (default: tree ``j``), each tree once.

        Raises:
            InvalidOptionError: more states than trees, a tree index out of range or repeated.
        """
        chosen = self._trees(len(states), trees)
        searchers = [self.agents[t]._searcher_for(game) for t in chosen]
        results = search_batch(searchers, game, states)
        for t, result in zip(chosen, results, strict=True):
            self.agents[t].last_result = result
        return results

    def act_batch(self, envs: Sequence[Any], trees: Sequence[int] | None = None) -> list[Any]:
        """The move for ``envs[j]`` (an AEC env) from tree ``trees[j]`` (default: tree ``j``)."""
        chosen = self._trees(len(envs), trees)
        return act_batch([self.agents[t] for t in chosen], envs)

    def reset(self, seed: int | Sequence[int] | None = None) -> None:
        """Forget every tree; reseed them as the constructor does if ``seed`` is given."""
        seeds = _tree_seeds(seed, len(self.agents))
        for agent, tree_seed in zip(self.agents, seeds, strict=True):
            agent.reset(tree_seed)

    def close(self) -> None:
        for agent in self.agents:
            agent.close()

    def _trees(self, count: int, trees: Sequence[int] | None) -> list[int]:
        if trees is None:
            if count > len(self.agents):
                raise InvalidOptionError(
                    f"{count} positions for {len(self.agents)} trees; give trees= or build "
                    "more trees"
                )
            return list(range(count))
        chosen = [int(t) for t in trees]
        if len(chosen) != count:
            raise InvalidOptionError(f"trees has {len(chosen)} entries for {count} positions")
        bad = [t for t in chosen if not 0 <= t < len(self.agents)]
        if bad or len(set(chosen)) != len(chosen):
            raise InvalidOptionError(
                f"trees must be distinct indices below {len(self.agents)}, got {chosen}"
            )
        return chosen

    def __repr__(self) -> str:
        first = self.agents[0]
        return f"BatchedMCTS({len(self.agents)} trees, {first!r})"


def _tree_seeds(seed: int | Sequence[int] | None, trees: int) -> list[int | None]:
    if seed is None:
        return [None] * trees
    if is_int(seed):
        return [seed + i for i in range(trees)]
    if isinstance(seed, Sequence) and not isinstance(seed, str):
        seeds = list(seed)
        if len(seeds) != trees or not all(is_int(s) for s in seeds):
            raise InvalidOptionError(f"seed must list {trees} ints (one per tree), got {seed!r}")
        return list(seeds)
    raise InvalidOptionError(f"seed must be an int, a list of ints or None, got {seed!r}")
