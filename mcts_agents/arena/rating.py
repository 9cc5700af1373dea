"""``rate``: an agent's Elo on a game's calibrated ladder (the ladder's ratings held fixed).

The agent plays batches of games (seats swapped game by game, each game seeded by
``derive_seed(seed, index)``) against ladder levels chosen adaptively: the first batch against
the middle level, each later one against the level whose Elo is nearest the agent's current
estimate (a Bradley-Terry fit with the levels' ratings fixed, ``ratings.bradley_terry_elo``).
It stops after ``games`` games, or once the 95% interval's half-width is at most
``precision``. Every choice follows from the games already played, which follow from the seed,
so the same seed gives the same rating; with ``out`` every game is a line of an arena results
file (kind ``"rate"``) and a second call with the same file and seed replays the finished games
from it and plays only the rest.

On a chip game's ladder (``Ladder.hands`` > 1, see ``agents.ladder.HANDS``) the unit the ratings
count is not one hand but a duplicate match: ``hands`` consecutive arena games, ``hands // 2``
deals each played twice with the seats swapped and the same env seed (so the same cards),
scored 1 / 1/2 / 0 by the rated agent's summed chips (above / at / below 0). ``games`` and
``batch`` then count units; game ``i`` is seeded ``derive_seed(seed, i // 2)``.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from mcts_agents.agents.ladder import Ladder, Level, check_levels, ladder_game, load_ladder
from mcts_agents.arena.entrants import Entrant, env_factory, env_label, make_entrant
from mcts_agents.arena.lockstep import Builders, check_lockstep, use_lockstep
from mcts_agents.arena.match import check_game_count, results_header
from mcts_agents.arena.record_checks import game_seed
from mcts_agents.arena.runner import check_options, run_tasks
from mcts_agents.arena.tasks import GameTask, Record
from mcts_agents.checks import check_int, check_number
from mcts_agents.errors import InvalidOptionError, OptionTypeError, ResultsFileError
from mcts_agents.processes import ray_session
from mcts_agents.ratings import bradley_terry_elo

__all__ = ["Rating", "rate", "unit_scores", "unit_tasks"]


@dataclass(frozen=True)
class Rating:
    """An agent's rating on a ladder's scale.

    Attributes:
        elo: the Bradley-Terry estimate with the levels' ratings fixed.
        low, high: its 95% interval (the levels' own uncertainty not included).
        games: games played.
        scores: level name -> ``(points, games)`` of the rated agent against it (a draw is half
            a point), for the levels it met, in ladder order.
        game: the ladder's game (``"connect_four"``).
        hands: arena games per unit (1, or a chip game's duplicate match of ``hands // 2``
            deals); ``games`` and ``scores`` count units.
    """

    elo: float
    low: float
    high: float
    games: int
    scores: dict[str, tuple[float, int]] = field(default_factory=dict)
    game: str = ""
    hands: int = 1

    @property
    def half_width(self) -> float:
        """Half the interval's width (what ``precision`` is compared with)."""
        return (self.high - self.low) / 2


def unit_tasks(
    make: Any, label: str, seats: tuple[Entrant, Entrant], seed: int, units: range, hands: int
) -> list[GameTask]:
    """The arena games of ``units`` (unit ``u`` is games ``u * hands`` .. ``+ hands - 1``):
    ``seats`` in game ``i``'s seats when ``i`` is even, swapped when odd; with ``hands`` > 1
    games ``2k`` and ``2k + 1`` share the seed ``derive_seed(seed, k)`` (one deal, both
    seats), else game ``i`` has ``derive_seed(seed, i)`` (as ``play_match``)."""
    header = {"seed": seed, "hands": hands}
    swapped = (seats[1], seats[0])
    return [
        GameTask(i, game_seed(header, i), make, label, seats if i % 2 == 0 else swapped)
        for i in range(units.start * hands, units.stop * hands)
    ]


def unit_scores(records: Sequence[Record], name: str, hands: int) -> list[float]:
    """The score of ``name`` in each unit of ``records`` (whole units, consecutive by index):
    with ``hands`` 1 a game's arena score (win 1, draw 1/2, loss 0), else 1 / 1/2 / 0 for its
    summed returns over the unit's ``hands`` games above / at / below 0."""
    ordered = sorted(records, key=lambda record: int(record["index"]))
    if len(ordered) % hands:
        raise InvalidOptionError(f"{len(ordered)} games do not make whole units of {hands}")
    if hands == 1:
        return [_points(record, name) for record in ordered]
    found = []
    for start in range(0, len(ordered), hands):
        unit = ordered[start : start + hands]
        if [int(r["index"]) for r in unit] != list(
            range(unit[0]["index"], unit[0]["index"] + hands)
        ):
            raise InvalidOptionError(f"games {[r['index'] for r in unit]} are not one unit")
        chips = sum(float(r["returns"][r["seats"].index(name)]) for r in unit)
        found.append(1.0 if chips > 0 else 0.5 if chips == 0 else 0.0)
    return found


def _levels(
    levels: Ladder | Sequence[Level] | None, env: Any, sample: Any, label: str
) -> tuple[str, tuple[Level, ...], int]:
    if levels is None:
        game = ladder_game(env if isinstance(env, str) else sample)
        calibrated = load_ladder(game)
        return game, calibrated.levels, calibrated.hands
    if isinstance(levels, Ladder):
        return levels.game, levels.levels, levels.hands
    if isinstance(levels, (str, bytes)) or not isinstance(levels, Sequence):
        raise OptionTypeError(f"levels must be a Ladder or a sequence of Level, got {levels!r}")
    found = tuple(levels)
    if not found or not all(isinstance(level, Level) for level in found):
        raise OptionTypeError(f"levels must be a non-empty sequence of Level, got {list(found)!r}")
    names = [level.name for level in found]
    if len(set(names)) != len(names):
        raise InvalidOptionError(f"levels must have distinct names, got {names}")
    check_levels(found, "levels")  # rising in Elo, specs that play unattended
    return label, found, 1


def _rated_entrant(agent: Any, names: Sequence[str]) -> Entrant:
    rated = make_entrant(agent)
    if rated.name in names:  # an agent called "L3" is not the level L3
        rated = make_entrant(agent, f"{rated.name} (rated)")
    return rated


def _fit(
    rated: str, levels: Sequence[Level], tally: dict[str, list[float]]
) -> tuple[float, float, float]:
    met = [level for level in levels if tally[level.name][1] > 0]
    results = [(rated, level.name, *tally[level.name]) for level in met]
    fit = bradley_terry_elo(
        [rated, *(level.name for level in met)],
        results,
        fixed={level.name: level.elo for level in met},
    )
    return fit[rated]


def _nearest(levels: Sequence[Level], elo: float) -> int:
    """The index of the level whose Elo is nearest ``elo`` (the lower one on a tie)."""
    return min(range(len(levels)), key=lambda i: (abs(levels[i].elo - elo), i))


def rate(
    agent: Any,
    env: Any,
    games: int = 400,
    seed: int = 0,
    *,
    precision: float | None = None,
    out: str | os.PathLike[str] | None = None,
    workers: int = 1,
    batch: int = 20,
    levels: Ladder | Sequence[Level] | None = None,
    on_progress: Callable[[Rating], None] | None = None,
    lockstep: bool | str = "auto",
    backend: str = "process",
    address: str | None = None,
) -> Rating:
    """Rate ``agent`` on the calibrated ladder of ``env``'s game.

    Args:
        agent: anything the arena takes: an agent spec string, an ``AgentSpec``, a factory or
            an agent instance (``act(env)``; ``reset(seed=...)`` before every game).
        env: an env spec (``"connect_four"``), an ``EnvSpec`` or a zero-argument callable
            returning a fresh two-player env whose game has a ladder (``ladder(env)``).
        games: the most games to play (>= 1); on a chip game's ladder, units (duplicate
            matches of ``Ladder.hands`` hands).
        seed: the run's seed: game ``i`` is seeded by ``derive_seed(seed, i)``.
        precision: stop as soon as the 95% interval's half-width is at most this many Elo
            (checked after every batch); ``None``: play all ``games``.
        out: an arena results file (see ``play_match``): every game is recorded as it
            finishes, and a later call with the same file, agent, env and seed resumes.
        workers: processes playing each batch's games (agents and env must pickle).
        batch: games (units) per batch (between two choices of the level).
        levels: a ladder to use instead of the game's calibrated one (a ``Ladder``, whose
            ``hands`` is used, or its levels, L0 first, one game a unit).
        on_progress: called with the rating so far after every finished game (unit): its
            ``games`` those finished, its Elo and interval their fit (for a progress bar; the
            choices of levels are made per batch all the same).
        lockstep: play each batch's games together in this process, every round's moves asked
            in one batch (``arena.lockstep``: a ``policy:`` model's moves in one forward pass,
            the levels' compiled searches in one kernel call; the same games and rating as
            game by game); ``"auto"``: when ``workers`` is 1, ``backend`` is ``"process"`` and
            the agent acts in batches (``agents.batch.acts_in_batches``: a ``policy:`` or
            ``az:`` agent, an ``mcts:`` agent with an iteration budget) and is a spec
            (``True`` for a factory too).
        backend: ``"process"`` (``workers`` processes here) or ``"ray"``: each batch's games
            are Ray tasks, spread over the cluster at ``address`` (``None`` or ``"local"``: a
            local Ray instance bound to 127.0.0.1; see ``processes.ray_session``), one Ray
            session for the whole run; the same games and rating as here.
        address: the Ray cluster's address (``backend="ray"`` only).

    Returns:
        a ``Rating``: ``elo``, ``low``, ``high`` (95%), ``games`` played, per-level ``scores``.

    Raises:
        InvalidOptionError: bad options, an env with no calibrated ladder (naming those that
            have one), an env that is not for two players; SpecError: a bad agent spec;
            ResultsFileError: an ``out`` file of another run or a damaged one.
    """
    check_int(seed, "seed", low=0)
    check_int(games, "games", low=1)
    check_int(batch, "batch", low=1)
    check_number(precision, "precision", low=0, low_open=True, optional=True)
    check_options(backend, workers)
    check_lockstep(lockstep)
    if address is not None and backend != "ray":
        raise InvalidOptionError(f"address={address!r} is for backend='ray', not {backend!r}")
    if on_progress is not None and not callable(on_progress):
        raise OptionTypeError(f"on_progress must be callable or None, got {on_progress!r}")
    make = env_factory(env)
    sample = make()
    try:
        label = env_label(make, sample)
        seats = len(sample.possible_agents)
        game, ladder_levels, hands = _levels(levels, env, sample, label)
    finally:
        close = getattr(sample, "close", None)
        if callable(close):
            close()
    if seats != 2:
        raise InvalidOptionError(f"rate needs a two-player env; {label} has {seats} seats")
    opponents = [make_entrant(level.spec, level.name) for level in ladder_levels]
    rated = _rated_entrant(agent, [level.name for level in ladder_levels])
    check_game_count("games", games, hands)
    extra = {"hands": hands} if hands > 1 else {}
    header = results_header("rate", label, [rated, *opponents], seed, games=games * hands, **extra)
    tally = {level.name: [0.0, 0] for level in ladder_levels}
    current = len(ladder_levels) // 2
    played = 0
    elo = low = high = 0.0
    build = Builders()  # a model opened once for every batch played in lockstep
    with _session(backend, address):
        while played < games:
            opponent = opponents[current]
            count = min(batch, games - played)
            units = range(played, played + count)
            tasks = unit_tasks(make, label, (rated, opponent), seed, units, hands)
            together = use_lockstep(lockstep, tasks, workers, backend, build)
            live = None
            if on_progress is not None:
                live = _Live(on_progress, rated.name, ladder_levels, tally, opponent.name,
                             played, (game, hands))  # fmt: skip
            try:
                records = run_tasks(
                    tasks, header, workers=workers, out=out, progress=False, backend=backend,
                    address=address, on_record=None if live is None else live.record,
                    lockstep=together,
                )  # fmt: skip
            except ResultsFileError as error:
                if "other seats or seed" not in str(error):
                    raise
                raise ResultsFileError(
                    f"{error} (a rating run resumes with the same agent, ladder, seed and batch)"
                ) from None
            for points in unit_scores(records, rated.name, hands):
                tally[opponent.name][0] += points
                tally[opponent.name][1] += 1
            played += count
            elo, low, high = _fit(rated.name, ladder_levels, tally)
            if live is not None and live.units < count:  # some games read back from ``out``
                live.on_progress(
                    Rating(elo, low, high, played, _scores(ladder_levels, tally), game, hands)
                )
            if precision is not None and (high - low) / 2 <= precision:
                break
            current = _nearest(ladder_levels, elo)
    return Rating(elo, low, high, played, _scores(ladder_levels, tally), game, hands)


def _session(backend: str, address: str | None) -> contextlib.AbstractContextManager[Any]:
    """One Ray session around every batch of a ``"ray"`` run (each batch's pool joins it)."""
    return ray_session(address) if backend == "ray" else contextlib.nullcontext()


def _scores(levels: Sequence[Level], tally: dict[str, list[float]]) -> dict[str, tuple[float, int]]:
    """Level name -> ``(points, games)`` of the levels played, in ladder order."""
    return {
        level.name: (float(tally[level.name][0]), int(tally[level.name][1]))
        for level in levels
        if tally[level.name][1]
    }


class _Live:
    """One batch's games as they finish: each whole unit scored, fitted with the games before
    the batch, and reported to ``on_progress`` (see ``rate``)."""

    def __init__(
        self,
        on_progress: Callable[[Rating], None],
        rated: str,
        levels: Sequence[Level],
        tally: dict[str, list[float]],
        opponent: str,
        played: int,
        ladder: tuple[str, int],
    ) -> None:
        self.on_progress, self.rated, self.levels = on_progress, rated, levels
        self.tally = {name: list(counts) for name, counts in tally.items()}
        self.opponent, self.played, self.units = opponent, played, 0
        self.game, self.hands = ladder
        self.open: dict[int, list[Record]] = {}

    def record(self, record: Record) -> None:
        unit = int(record["index"]) // self.hands
        group = self.open.setdefault(unit, [])
        group.append(record)
        if len(group) < self.hands:
            return
        del self.open[unit]
        (points,) = unit_scores(group, self.rated, self.hands)
        self.tally[self.opponent][0] += points
        self.tally[self.opponent][1] += 1
        self.units += 1
        elo, low, high = _fit(self.rated, self.levels, self.tally)
        scores = _scores(self.levels, self.tally)
        self.on_progress(
            Rating(elo, low, high, self.played + self.units, scores, self.game, self.hands)
        )


def _points(record: Record, name: str) -> float:
    return float(record["scores"][record["seats"].index(name)])
