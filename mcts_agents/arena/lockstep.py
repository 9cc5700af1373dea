"""Arena games played in lockstep: many games of one process advanced together, one move each
per round, each entrant's moves of a round asked of its agents in one
``agents.batch.act_batch`` call.

Each game is the arena's own: its env made and reset with the task's seed, one agent per seat
built with ``derive_seed(task.seed, seat)`` (so seeds and search trees stay per game), its
moves played as ``play_game`` plays them, its record made by ``tasks.game_record`` (the same
fields, moves included) and yielded in the tasks' order. A finished game's agents and env play
later games where that changes nothing (``Builders``: an agent whose ``reset(seed)`` makes it a
new one, an env of our rules cores, whose ``reset(seed)`` starts it afresh). So the games, their
records and whatever is computed from them (a results file, a resumed run, ``rate``'s fit) are
those of ``run_game`` game by game; only a record's ``times`` differ: each move is given its
share of its entrant's ``act_batch`` call of the round. What a call batches is
``act_batch``'s: the compiled searches of ``MCTSAgent`` s (the ladder's levels) in one kernel
call, the searches of ``az:`` agents of one model in lockstep, ``PolicyAgent`` s of one
batched policy and ``PriorAgent`` s (``policy:`` specs) of one model in one forward pass; any
other agent acts on its own.

A spec naming a model (``policy:``, ``az:``) is opened once for all the games, not once per
game, so that their agents share it (``az:`` agents share the network, and their searches run
in lockstep: one forward pass a round for all their trees, ``search.tree_batch``). An agent
given as an instance is one object and cannot play many games at once: its tasks are played
game by game (``use_lockstep``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from time import perf_counter
from typing import Any

from mcts_agents.agents.agent import MCTSAgent, RandomAgent
from mcts_agents.agents.batch import act_batch, acts_in_batches
from mcts_agents.agents.models import PriorAgent, PUCTAgent
from mcts_agents.agents.play import Move, step_summing
from mcts_agents.agents.spec_builder import spec_builder
from mcts_agents.arena.entrants import Entrant, build_agent
from mcts_agents.arena.tasks import GameTask, Record, game_record, start_game
from mcts_agents.checks import check_int
from mcts_agents.errors import InvalidOptionError, OptionTypeError

__all__ = [
    "LOCKSTEP_GAMES",
    "RENEWABLE",
    "Builders",
    "check_lockstep",
    "lockstep_ready",
    "lockstep_records",
    "renewable",
    "use_lockstep",
]

#: The most games in play at once (a longer list of tasks starts a game as one finishes).
LOCKSTEP_GAMES = 64
#: The agent classes whose ``reset(seed=s)`` gives the agent a new build with seed ``s`` gives
#: (tables forgotten, generators reseeded): a finished game's are reused (``Builders``).
RENEWABLE = (MCTSAgent, PUCTAgent, PriorAgent, RandomAgent)


def check_lockstep(lockstep: Any) -> None:
    """``lockstep`` must be ``True``, ``False`` or ``"auto"``."""
    if not (isinstance(lockstep, bool) or lockstep == "auto"):
        raise OptionTypeError(f"lockstep must be True, False or 'auto', got {lockstep!r}")


def lockstep_ready(tasks: Sequence[GameTask]) -> str | None:
    """``None`` when the tasks can be played in lockstep, else why not (an agent instance)."""
    for task in tasks:
        for entrant in task.seats:
            if entrant.how == "instance":
                return (
                    f"agent {entrant.name!r} is one object (an instance), which cannot play "
                    "many games at once; give a spec or a factory"
                )
    return None


def use_lockstep(
    lockstep: Any,
    tasks: Sequence[GameTask],
    workers: int,
    backend: str,
    build: Builders | None = None,
) -> Builders | None:
    """The builders to play ``tasks`` in lockstep with (``build``, or new ones), else ``None``:
    ``"auto"`` plays in lockstep the tasks whose every agent is a spec whose agents act in
    batches (``agents.batch.acts_in_batches``), when they play in this process (one worker,
    the ``process`` backend), and the others game by game; ``True`` plays them all so, specs
    and factories (an ``InvalidOptionError`` for an instance: one object cannot play many
    games at once), ``False`` none."""
    check_lockstep(lockstep)
    if lockstep is False:
        return None
    why = lockstep_ready(tasks) if lockstep is True else None
    if why is None and (workers > 1 or backend != "process"):
        why = f"lockstep plays in this process; workers={workers} and backend={backend!r}"
    if why is not None and lockstep is True:
        raise InvalidOptionError(f"lockstep=True: {why}")
    if why is not None:
        return None
    build = Builders() if build is None else build
    build.auto = lockstep == "auto"
    return build if any(build.plays(task) for task in tasks) else None


@dataclass
class _Game:
    task: GameTask
    env: Any
    players: dict[Any, Any]
    moves: list[Move] = field(default_factory=list)
    totals: dict[Any, float] = field(default_factory=dict)

    def advance(self) -> bool:
        """Step finished agents with ``None`` (as ``play_game``); whether a move is due."""
        env = self.env
        while env.agents:
            agent = env.agent_selection
            if not (env.terminations[agent] or env.truncations[agent]):
                return True
            step_summing(env, None, self.totals)
        return False


def lockstep_records(
    tasks: Sequence[GameTask], games: int = LOCKSTEP_GAMES, build: Builders | None = None
) -> Iterator[Record]:
    """The records of ``tasks``, played in lockstep (see the module), up to ``games`` at a
    time, yielded in task order (a game that ends early waits for those before it, so a
    results file holds its lines in the order game by game gives; an exception in a round,
    Ctrl-C, first yields the finished games that wait). ``build``: the builders
    of the agents (a ``Builders`` kept between calls opens each model once)."""
    check_int(games, "games", low=1)
    build = Builders() if build is None else build
    waiting = list(reversed(range(len(tasks))))
    playing: dict[int, _Game] = {}
    ended: dict[int, Record] = {}
    shown = 0
    while waiting or playing:
        while waiting and len(playing) < games:
            position = waiting.pop()
            playing[position] = _start(tasks[position], build)
        for position, game in list(playing.items()):
            if not game.advance():
                ended[position] = game_record(game.task, game.env, game.moves, game.totals)
                del playing[position]
                build.release(game.task, game.players, game.env)
        while shown in ended:
            yield ended.pop(shown)
            shown += 1
        if playing:
            try:
                _round(list(playing.values()))
            except BaseException:  # Ctrl-C, a failing agent: the finished games are kept
                for position in sorted(ended):
                    yield ended.pop(position)
                raise


def _start(task: GameTask, build: Builders) -> _Game:
    env, players = start_game(task, build, build.spare_env(task))
    game = _Game(task, env, players)
    if game.advance():  # as play_game: kernels load, workers start, before any move
        for player in {id(p): p for p in players.values()}.values():
            ready = getattr(player, "prepare", None)
            if ready is not None:
                ready(env)
    return game


def _round(games: Sequence[_Game]) -> None:
    """One move in every game: each entrant's movers asked in one ``act_batch`` (its moves
    given that call's time, shared), each move played as ``play_game`` plays it (an illegal
    one is the env's to judge, as game by game)."""
    groups: dict[str, list[_Game]] = {}
    for game in games:
        seat = game.env.possible_agents.index(game.env.agent_selection)
        groups.setdefault(game.task.seats[seat].name, []).append(game)
    for group in groups.values():
        movers = [game.players[game.env.agent_selection] for game in group]
        start = perf_counter()
        actions = act_batch(movers, [game.env for game in group])
        seconds = (perf_counter() - start) / len(group)
        for game, player, action in zip(group, movers, actions, strict=True):
            agent = game.env.agent_selection
            step_summing(game.env, action, game.totals)
            result = getattr(player, "last_result", None)
            game.moves.append(Move(agent, action, seconds, result))


class Builders:
    """``build_agent``, with a model spec's model opened once (its agents share it), and the
    agents of finished games given to later ones: keep one for a run's calls of
    ``lockstep_records`` (``rate``'s batches).

    An agent built from a spec whose ``reset(seed)`` makes it the agent a fresh build with that
    seed would be (``RENEWABLE``: its tables forgotten, its generators reseeded) is reset and
    given to a later game instead of being built again; a factory's agents are always new."""

    def __init__(self) -> None:
        self.made: dict[str, Callable[[int], Any]] = {}
        self.spare: dict[str, list[Any]] = {}
        self.batching: dict[str, bool] = {}
        self.envs: dict[int, tuple[Any, list[Any]]] = {}  # id(env_fn) -> (env_fn, envs)
        #: Play in lockstep only the tasks whose every agent acts in batches (``plays``).
        self.auto = False

    def plays(self, task: GameTask) -> bool:
        """Whether ``task`` is for lockstep: always, or with ``auto`` when every agent of it is
        a spec whose agents act in batches (``acts_in_batches``, which its first agent tells;
        a factory's agents are not known before it is called, once a game)."""
        return not self.auto or all(self._batches(entrant) for entrant in task.seats)

    def _batches(self, entrant: Entrant) -> bool:
        known = self.batching.get(entrant.name)
        if known is None:
            known = entrant.how == "spec"
            if known:
                agent = self(entrant, 0)  # (a spec's model is opened once, for every game)
                known = acts_in_batches(agent)
                self._keep(entrant, agent)
            self.batching[entrant.name] = known
        return known

    def __call__(self, entrant: Entrant, seed: int) -> Any:
        spare = self.spare.get(entrant.name)
        if spare:
            agent = spare.pop()
            agent.reset(seed=seed)
            return agent
        if entrant.name not in self.made:
            self.made[entrant.name] = _builder(entrant)
        return self.made[entrant.name](seed)

    def release(self, task: GameTask, players: dict[Any, Any], env: Any = None) -> None:
        """The agents (those ``renewable``) and the env (one of our rules cores' envs, whose
        ``reset(seed=...)`` starts everything afresh) of ``task``'s finished game, for later
        games."""
        for entrant, agent in zip(task.seats, players.values(), strict=True):
            self._keep(entrant, agent)
        if env is not None and _fresh_on_reset(env):
            self.envs.setdefault(id(task.env_fn), (task.env_fn, []))[1].append(env)

    def spare_env(self, task: GameTask) -> Any:
        """A finished game's env of ``task.env_fn`` (``release``), else ``None``."""
        kept = self.envs.get(id(task.env_fn))
        return kept[1].pop() if kept is not None and kept[1] else None

    def _keep(self, entrant: Entrant, agent: Any) -> None:
        if entrant.how == "spec" and renewable(agent):
            self.spare.setdefault(entrant.name, []).append(agent)


def renewable(agent: Any) -> bool:
    """Whether ``reset(seed=s)`` makes ``agent`` what a new one of its spec with seed ``s`` is:
    one of ``RENEWABLE``'s classes exactly, a search in this process (no workers)."""
    return type(agent) in RENEWABLE and getattr(agent, "workers", 1) == 1


def _fresh_on_reset(env: Any) -> bool:
    """Whether ``env`` is one of our envs (``GameWrapper`` over a ``BoardGameEnv``), whose
    ``reset(seed=...)`` sets its state, bookkeeping, generator and wrapper afresh."""
    from mcts_agents.envs.core.aec import BoardGameEnv
    from mcts_agents.envs.core.wrappers import GameWrapper

    return type(env) is GameWrapper and isinstance(env.unwrapped, BoardGameEnv)


def _builder(entrant: Entrant) -> Callable[[int], Any]:
    """The agents of ``entrant``: a spec's through ``spec_builder`` (a model opened once)."""
    if entrant.how != "spec":
        return lambda seed: build_agent(entrant, seed)
    return spec_builder(entrant.item)
