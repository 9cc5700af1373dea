"""Information Set MCTS (Cowling, Powley and Whitehouse 2012): search without seeing hidden cards.

Every simulation starts from a determinization: a full state drawn by ``game.determinize`` from
what the searching player may believe (it reads only that player's information and the search's
own generator). The simulation walks down a table of nodes keyed by information sets, not
states, so the statistics of a node pool every world the player cannot tell apart:

- multiple-observer (``"mo_ismcts"``): a node is keyed by the information set of the player to
  move there, so each player decides on what it knows: the opponents' nodes do not see our
  cards, nor we theirs. One table of such nodes is the paper's one tree per player.
- single-observer (``"so_ismcts"``): every node is keyed by the searching player's information
  set, so opponents are modelled as deciding on what we know.

At a node only the actions legal in the current determinization are available; UCB1 counts,
for each action, how often it was available (``availability``) instead of the node's visits.
Chance outcomes are drawn with the search's generator by their probabilities and make no node.
There are no proofs: an outcome seen in some worlds says nothing exact about the others. With
``smooth`` (Smooth UCT, Heinrich and Silver 2015) a node follows UCB1 with a probability that
decays towards ``smooth`` and otherwise plays its average policy (normalised visits), which
makes the visit counts approach an equilibrium strategy in games such as poker.

Tree reuse keeps the table from move to move; re-rooting keeps the nodes reachable from the new
root's information set through the links recorded during search (determinizations are uniform
over what the player cannot see, so a kept node's statistics are those a fresh search from the
narrower information set would gather, only fewer).

A determinization drawn uniformly ignores what the opponents' actions say about their cards.
With ``search_from="start"`` every simulation begins at the game's initial state instead: the
search draws every chance outcome itself and every player decides by its own nodes, so each
information set is reached as often as the players' strategies make it (beliefs by self-play,
as in Heinrich and Silver's Smooth UCT). The decision is read from the current information
set's node, the table serves the whole game, and the true state is not read at all. Measured
(``docs/benchmarks.md``): in Kuhn poker this brings the exploitability of the searched policy
from 0.164 to about 0.03 at 10,000 simulations; in Leduc, whose decisions lie deeper, a search
from the information set does better at that budget (self-play reaches deep decisions rarely).

``check_game`` (``mcts_agents.search.information``) refuses, before any simulation, a game that
lacks what the mode needs: its information sets, worlds drawn from one (``determinize``; a game
may say it has none with ``can_determinize = False``, as OpenSpiel's ``phantom_ttt`` does) for a
search from here, or its start (``initial_state``) for one from the start. ``search_from="auto"``
searches from here where the game draws worlds, else from the start. From the start, a game
without worlds keeps what the self-play found where it did not reach the current information set.

Playouts, and the walk down the table, are bounded (``mcts_agents.search.playouts``).
"""

from __future__ import annotations

import random
from collections.abc import Hashable, Sequence
from dataclasses import replace
from math import log, sqrt
from time import perf_counter

from mcts_agents.errors import InvalidOptionError, InvalidStateError
from mcts_agents.search.config import Budget, SearchConfig
from mcts_agents.search.game import Game, State, has_chance
from mcts_agents.search.game import sample_chance as draw_chance
from mcts_agents.search.information import check_game, search_from_start
from mcts_agents.search.playouts import bounded_playout, cap_reached, playout_cap, search_stop
from mcts_agents.search.result import ChildStats, SearchResult
from mcts_agents.search.return_range import checked_normalizer
from mcts_agents.search.searcher import (
    Progress,
    StopCheck,
    check_room,
    game_identity,
    most_visited_is_best,
    pick_child,
    reporter,
    run_budget,
)

__all__ = ["ISMCTS", "InfoNode", "check_game"]

#: Smooth UCT's schedule (Heinrich and Silver 2015): eta_k = max(smooth, ETA / (1 + D sqrt(N))).
SMOOTH_ETA = 0.9
SMOOTH_D = 0.001


class InfoNode:
    """A node of the information-set table: one player's decision in one information set.

    Attributes:
        key: ``(player, information set key)``.
        player: the player who moves here.
        actions: every action seen available here, in the order first seen.
        index: action -> its position in ``actions``.
        visits: simulations through the node.
        edge_visits, edge_value: per action, simulations that chose it and the sum of the
            mover's normalised returns.
        availability: per action, simulations in which it was available here.
        links: keys of the nodes the simulations reached next from here (for re-rooting).
    """

    __slots__ = (
        "actions",
        "availability",
        "edge_value",
        "edge_visits",
        "index",
        "key",
        "links",
        "player",
        "visits",
    )

    def __init__(self, key: Hashable, player: int) -> None:
        self.key = key
        self.player = player
        self.actions: list[int] = []
        self.index: dict[int, int] = {}
        self.visits = 0
        self.edge_visits: list[int] = []
        self.edge_value: list[float] = []
        self.availability: list[int] = []
        self.links: set[Hashable] = set()

    def __repr__(self) -> str:
        return f"InfoNode(key={self.key!r}, visits={self.visits}, actions={self.actions})"


class ISMCTS:
    """Information Set MCTS over a game with private information; implements ``Searcher``.

    Args:
        budget: the budget of each search.
        config: ``config.information`` picks the observer (``"mo_ismcts"``, the default for
            ``"auto"``, or ``"so_ismcts"``); ``c``, ``smooth``, ``final_move``, ``reuse`` and
            ``playout`` apply; ``selection`` must be ``"ucb1"`` (UCB1 with availability counts:
            any other raises ``InvalidOptionError``).
        seed: seed of the search's generator: determinizations, chance, expansion order and
            playouts all come from it, never from the env.
    """

    def __init__(self, budget: Budget, config: SearchConfig, seed: int | None = None) -> None:
        if config.selection != "ucb1":
            raise InvalidOptionError(
                "ISMCTS selects with UCB1 over availability counts (Smooth UCT with smooth=); "
                f"selection={config.selection!r} applies to perfect-information searches only: "
                "use selection='ucb1' (the default), or information='pimc' whose searches of "
                "each determinization take any selection"
            )
        self.budget = budget
        self.config = config
        self.should_stop: StopCheck | None = None  # see Searcher: ends a search early
        self.on_progress: Progress | None = None  # see Searcher: the result so far
        self.single_observer = config.information == "so_ismcts"
        self.from_start = config.search_from == "start"
        self.rng = random.Random(seed)
        self.table: dict[Hashable, InfoNode] = {}
        self._game_id: Hashable = None
        self._root_key: Hashable = None

    # ------------------------------------------------------------------ Searcher protocol
    def reset(self, seed: int | None = None) -> None:
        """Forget the table (between games); reseed if ``seed`` is given."""
        self.table.clear()
        self._game_id = self._root_key = None
        if seed is not None:
            self.rng.seed(seed)

    def table_size(self) -> int:
        """Information-set nodes stored."""
        return len(self.table)

    def table_keys(self) -> list[Hashable]:
        """Their keys: ``(player, information set)``."""
        return list(self.table)

    def close(self) -> None:
        """Nothing to release."""

    def prepare(self, game: Game) -> None:
        """Nothing to prepare."""

    def search(self, game: Game, state: State) -> SearchResult:
        """Search the decision of the player to move in ``state`` from its information set.

        ``state`` is the true state; the search reads it only through
        ``game.determinize(state, player, rng)`` and ``game.information_set(state, player)``
        for the player to move, so every state of one information set gives the same search
        for the same seed.
        """
        start = perf_counter()
        chance = has_chance(game)
        if chance and game.is_chance(state):  # type: ignore[attr-defined]
            raise InvalidStateError(
                f"a search starts where a player is to move, got a chance node of {game!r}"
            )
        self.from_start = search_from_start(game, self.config.search_from)  # "auto": per game
        check_game(game, self.from_start, "so_ismcts" if self.single_observer else "mo_ismcts")
        player = game.to_play(state)
        legal = list(game.legal_actions(state))  # the player knows its own legal actions
        check_room(self.budget, len(legal))
        if self.from_start:
            root, reused, pruned = self._prepare_game(game, state, player)
        else:
            root, reused, pruned = self._prepare_root(game, state, player)
        stop = search_stop(self.budget, self.config.final_move, start, self.should_stop)
        walk = _Walk(self, game, player, chance, stop)
        report = reporter(
            self.on_progress,
            lambda n: self._result(root, legal, player, n, perf_counter() - start, reused, pruned),
        )
        iterations = run_budget(
            self.budget,
            self.config.final_move,
            start,
            lambda _: walk.simulate(state, root),
            solved=lambda: False,
            robust_agrees=lambda: most_visited_is_best(*self._root_stats(root, legal)),
            table_size=self.table.__len__,
            should_stop=self.should_stop,
            progress=report,
        )
        if self.from_start and sum(self._root_stats(root, legal)[0]) < len(legal):
            return self._fallback(game, state, iterations, perf_counter() - start)
        return self._result(root, legal, player, iterations, perf_counter() - start, reused, pruned)

    def _fallback(self, game: Game, state: State, iterations: int, spent: float) -> SearchResult:
        """A search from here, for a decision the self-play from the start did not reach: the
        same iteration budget, and what is left of a time limit (at least a tenth of it). A game
        that cannot draw worlds of an information set (``can_determinize`` False) keeps what
        the self-play found."""
        if not getattr(game, "can_determinize", True):
            player = game.to_play(state)
            root = self.table[(player, game.information_set(state, player))]  # type: ignore[attr-defined]
            legal = list(game.legal_actions(state))
            return self._result(root, legal, player, iterations, spent, len(self.table), 0)
        budget = self.budget
        if budget.time_limit is not None:
            left = max(budget.time_limit - spent, budget.time_limit / 10)
            budget = replace(budget, time_limit=left)
        config = replace(self.config, search_from="here")
        here = ISMCTS(budget, config, self.rng.getrandbits(64))
        here.should_stop, here.on_progress = self.should_stop, self.on_progress
        result = here.search(game, state)
        return replace(
            result,
            iterations=result.iterations + iterations,
            elapsed=result.elapsed + spent,
            search_from="here",
            self_play_iterations=iterations,
        )

    # ------------------------------------------------------------------ reuse
    def _prepare_game(self, game: Game, state: State, player: int) -> tuple[InfoNode, int, int]:
        """``search_from="start"``: one table for the whole game; the current node in it."""
        game_id = game_identity(game)
        if not self.config.reuse or game_id != self._game_id:
            self.table.clear()
            self._game_id = game_id
        kept = len(self.table)
        key = (player, game.information_set(state, player))  # type: ignore[attr-defined]
        root = self.table.get(key)
        if root is None:
            root = self.table[key] = InfoNode(key, player)
        return root, kept, 0

    def _prepare_root(self, game: Game, state: State, player: int) -> tuple[InfoNode, int, int]:
        game_id = game_identity(game)
        if not self.config.reuse or game_id != self._game_id:
            self.table.clear()
            self._game_id = game_id
        key = (player, game.information_set(state, player))  # type: ignore[attr-defined]
        root = self.table.get(key)
        if root is None:
            self.table.clear()
            root = self.table[key] = InfoNode(key, player)
            self._root_key = key
            return root, 0, 0
        if key == self._root_key:
            return root, len(self.table), 0
        self._root_key = key
        kept: dict[Hashable, InfoNode] = {key: root}
        stack = [root]
        while stack:
            for link in stack.pop().links:
                node = self.table.get(link)
                if node is not None and link not in kept:
                    kept[link] = node
                    stack.append(node)
        pruned = len(self.table) - len(kept)
        self.table = kept
        return root, len(kept), pruned

    # ------------------------------------------------------------------ the answer
    @staticmethod
    def _root_stats(root: InfoNode, legal: Sequence[int]) -> tuple[list[int], list[float]]:
        visits, values = [], []
        for action in legal:
            i = root.index.get(action)
            n = root.edge_visits[i] if i is not None else 0
            visits.append(n)
            values.append(root.edge_value[i] / n if n else 0.0)  # type: ignore[index]
        return visits, values

    def _result(
        self,
        root: InfoNode,
        legal: list[int],
        player: int,
        iterations: int,
        elapsed: float,
        reused: int,
        pruned: int,
    ) -> SearchResult:
        visits, values = self._root_stats(root, legal)
        if any(visits):
            best = legal[pick_child(visits, values, [None] * len(legal), self.config.final_move)]
        else:  # no simulation ran (a tiny time budget): any legal action will do
            best = legal[0]
        stats = zip(legal, visits, values, strict=True)
        children = sorted(
            (ChildStats(a, n, v, None, None) for a, n, v in stats),
            key=lambda c: (-c.visits, c.action),
        )
        total = sum(visits)
        weighted = sum(v * n for v, n in zip(values, visits, strict=True))
        root_value = weighted / total if total else 0.0
        return SearchResult(
            best_action=best,
            iterations=iterations,
            elapsed=elapsed,
            nodes=len(self.table),
            reused_nodes=reused,
            pruned_nodes=pruned,
            children=tuple(children),
            principal_variation=(best,),
            root_value=root_value,
            proven=None,
            to_play=player,
            information="so_ismcts" if self.single_observer else "mo_ismcts",
            search_from="start" if self.from_start else "here",
        )


class _Walk:
    """The simulations of one search (what they need, looked up once)."""

    def __init__(
        self, search: ISMCTS, game: Game, player: int, chance: bool, stop: StopCheck | None
    ) -> None:
        self.search = search
        self.game = game
        self.player = player
        self.chance = chance
        self.normalize = checked_normalizer(game)  # each return checked (NaN, its range)
        self.c = search.config.c
        self.smooth = search.config.smooth
        self.from_start = search.from_start
        self.rng = search.rng
        self.table = search.table
        self.max_nodes = search.budget.max_nodes
        self.rollout = bounded_playout(game, search.config, stop)
        self.cap = playout_cap(game, search.config.playout_cap)  # the walk's too: sets may cycle

    def simulate(self, state: State, root: InfoNode) -> int:
        """One simulation from a fresh determinization (or from the game's start); returns 1.

        The hot loop of the search: the node's bookkeeping (availability, untried actions), the
        chance outcomes and the child's key are written inline, not called.
        """
        game, rng, table = self.game, self.rng, self.table
        legal_actions, next_state, is_terminal = (
            game.legal_actions,
            game.next_state,
            game.is_terminal,
        )
        if self.from_start:
            world = self._resolve(game.initial_state())  # type: ignore[attr-defined]
            if is_terminal(world):
                return 1
            key = self._key(world)
            start = table.get(key)
            if start is None:
                if self.max_nodes is not None and len(table) >= self.max_nodes:
                    return 1
                start = table[key] = InfoNode(key, key[0])
            node = start
        else:
            world = game.determinize(state, self.player, rng)  # type: ignore[attr-defined]
            node = root
        chance, single, player = self.chance, self.search.single_observer, self.player
        to_play, information_set = game.to_play, game.information_set  # type: ignore[attr-defined]
        path: list[tuple[InfoNode, int]] = []
        values: Sequence[float]
        while True:
            # every action legal in this world is available here (new ones join the node)
            index, actions, visits, available = (
                node.index,
                node.actions,
                node.edge_visits,
                node.availability,
            )
            positions = []
            untried = []
            for action in legal_actions(world):
                i = index.get(action)
                if i is None:
                    i = index[action] = len(actions)
                    actions.append(action)
                    visits.append(0)
                    node.edge_value.append(0.0)
                    available.append(0)
                available[i] += 1
                positions.append(i)
                if not visits[i]:
                    untried.append(i)
            if untried:
                i = untried[int(rng.random() * len(untried))]
            else:
                i = self._choose(node, positions)
            path.append((node, i))
            if len(path) > self.cap:  # information sets that repeat: a walk with no end
                values = cap_reached(game, self.cap, self.search.config.cutoff_value)
                break
            world = next_state(world, actions[i])
            if chance:
                while game.is_chance(world):  # type: ignore[attr-defined]
                    world = next_state(world, draw_chance(game, world, rng))
            if is_terminal(world):
                values = game.returns(world)
                break
            mover = to_play(world)
            key = (mover, information_set(world, player if single else mover))
            node.links.add(key)
            child = table.get(key)
            if child is None:
                if self.max_nodes is None or len(table) < self.max_nodes:
                    table[key] = InfoNode(key, mover)
                values = self.rollout(world, rng)
                break
            if untried and child.visits == 0:  # stored, never evaluated: evaluate it now
                values = self.rollout(world, rng)
                break
            node = child
        values = self.normalize(values)
        for visited, i in path:
            visited.visits += 1
            visited.edge_visits[i] += 1
            visited.edge_value[i] += values[visited.player]
        return 1

    def _resolve(self, world: State) -> State:
        """``world`` after the chance outcomes that follow it, drawn with the search's generator."""
        if self.chance:
            game, rng = self.game, self.rng
            while game.is_chance(world):  # type: ignore[attr-defined]
                world = game.next_state(world, draw_chance(game, world, rng))
        return world

    def _key(self, world: State) -> tuple[int, Hashable]:
        game = self.game
        mover = game.to_play(world)
        observer = self.player if self.search.single_observer else mover
        return (mover, game.information_set(world, observer))  # type: ignore[attr-defined]

    def _choose(self, node: InfoNode, positions: list[int]) -> int:
        """The position of the action to play among ``positions``, every one tried before:
        UCB1 on availability counts, or (Smooth UCT) sometimes the average policy."""
        visits, rng = node.edge_visits, self.rng
        smooth = self.smooth
        if smooth is not None:
            eta = max(smooth, SMOOTH_ETA / (1.0 + SMOOTH_D * sqrt(node.visits)))
            if rng.random() >= eta:  # play the average policy: proportional to visits
                u = rng.random() * sum(visits[i] for i in positions)
                for i in positions:
                    u -= visits[i]
                    if u < 0.0:
                        return i
                return positions[-1]
        values, available, c = node.edge_value, node.availability, self.c
        best, best_score = positions[0], float("-inf")
        for i in positions:
            n = visits[i]
            score = values[i] / n + c * sqrt(log(available[i]) / n)
            if score > best_score:
                best, best_score = i, score
        return best
