"""``OpponentPool``: the opponents of an RL env, drawn per episode from a mix of fixed bots and
frozen copies of the learner, the mix steered by the learner's results.

An entry is an agent spec (``"ladder:connect_four:L3"``, ``"mcts:iterations=50"``,
``"policy:model=net.pt"``, ``"az:model=net.pt"``) or a callable policy
``policy(observation, action_mask) -> action`` (a frozen snapshot of the learner:
``rl.snapshots.add_snapshot``). The env draws an entry at each episode start (``draw``) and
reports the learner's score against it at the end (``record``: win 1, draw 1/2, loss 0).

Rules (``rule=``):

* ``"fixed"``: entry ``i`` with probability ``weights[i] / sum(weights)`` (uniform by default).
* ``"pfsp_hard"``: prioritized fictitious self-play (AlphaStar): weight ``(1 - p) ** 2`` where
  ``p`` is the learner's score against the entry, so the entries it loses to come most often.
* ``"pfsp_even"``: weight ``p * (1 - p)``: the entries it is even with come most often.
  Under both PFSP rules an entry not yet played counts ``p = 1/2``, ``weights`` (if given)
  multiply the PFSP weights, and if every weight is 0 (the learner beats every entry, or
  loses to every one under ``pfsp_even``) the draw is uniform.
* ``"curriculum"`` (``OpponentPool.curriculum``): one entry at a time, a ladder level; after
  every ``window`` games against it the level moves up when the learner's score over them is
  above the band, down when below it, and stays inside it.

Draws come from the pool's own generator (``numpy.random.default_rng(seed)``): the same seed
and the same results give the same draws. ``stats()`` counts wins, draws and losses per entry
with the score's 95% Wilson interval (``ratings.wilson_interval``); ``elo()`` fits the
learner's Elo on the ladder's scale from its games against ladder entries, the levels' ratings
held fixed (``ratings.bradley_terry_elo``, as ``arena.rating.rate``).

With ``out=PATH`` (and ``env=``, the game's spec) every finished game is appended to a results
file of the arena's format (``rl.pool_record``); a file of the same run is resumed: its games
are counted into the pool again in the order played (the PFSP weights and the curriculum's
level follow), a game against an entry the pool does not have yet (a snapshot) is counted when
an entry of that name is added, and the draws go on from a generator seeded by the seed and
the number of games read (``seeding.derive_seed``) rather than repeating the first run's.
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal

import numpy as np

from mcts_agents.agents.spec_builder import spec_builder
from mcts_agents.agents.specs import read_agent_spec
from mcts_agents.checks import check_int, check_seed, is_number
from mcts_agents.errors import InvalidOptionError, OptionTypeError, SpecError
from mcts_agents.ratings import bradley_terry_elo, wilson_interval
from mcts_agents.seeding import derive_seed

__all__ = ["RECENT_GAMES", "OpponentPool", "PoolRule", "Stats"]

#: How the pool draws its entries (see the module).
PoolRule = Literal["fixed", "pfsp_hard", "pfsp_even", "curriculum"]
_RULES = ("fixed", "pfsp_hard", "pfsp_even")
#: One entry's results: ``games``, ``wins``, ``draws``, ``losses``, ``score`` (``None`` before
#: a game) and its 95% Wilson interval ``low`` .. ``high``.
Stats = dict[str, Any]
_SCORES = (0.0, 0.5, 1.0)
#: The most recent games against ladder entries that ``elo(last=K)`` can fit from.
RECENT_GAMES = 20_000


def _entry_name(entry: Any, index: int) -> str:
    if isinstance(entry, str):
        return entry.strip()
    name = getattr(entry, "name", None) or getattr(entry, "__name__", None)
    return str(name) if isinstance(name, str) and name else f"policy{index}"


def check_entry(entry: Any, name: str) -> Any:
    """``entry`` if it can be a pool entry (an agent spec that plays unattended, or a callable
    policy), else ``SpecError``/``OptionTypeError`` naming it."""
    if isinstance(entry, str):
        spec = read_agent_spec(entry)  # SpecError naming it: unknown kind, level, option
        if spec.kind == "human":
            raise SpecError(
                f"pool entry {name!r}: a human agent cannot play unattended inside an RL env's "
                "reset and step; give a bot's spec such as 'mcts:iterations=200'"
            )
        return entry.strip()
    if callable(entry):
        return entry
    raise OptionTypeError(
        f"pool entry {name!r} is {entry!r} (a {type(entry).__name__}); an entry is an agent "
        "spec (such as 'ladder:connect_four:L3') or a callable "
        "policy(observation, action_mask) -> action"
    )


def check_band(band: Any) -> tuple[float, float]:
    """``(low, high)`` with ``0 <= low < high <= 1``, else ``InvalidOptionError`` naming it."""
    if (
        not isinstance(band, Sequence)
        or isinstance(band, str)
        or len(band) != 2
        or not all(is_number(x) for x in band)
        or not 0.0 <= band[0] < band[1] <= 1.0
    ):
        raise InvalidOptionError(
            f"band must be two scores (low, high) with 0 <= low < high <= 1, got {band!r}"
        )
    return float(band[0]), float(band[1])


class OpponentPool:
    """Opponents drawn per episode by a rule over the learner's results (see the module).

    Args:
        entries: agent specs and callable policies, in a sequence (each named by its spec, or
            a policy's ``name``/``__name__``) or a mapping name -> entry.
        rule: ``"fixed"``, ``"pfsp_hard"`` or ``"pfsp_even"``.
        weights: one weight >= 0 per entry (not all 0): the draw's weights under ``"fixed"``,
            factors of the PFSP weights otherwise (default: all 1).
        seed: seed of the draws.
        out: a results file of the pool's games (``rl.pool_record``): made, or resumed.
        env: the game's spec (``"connect_four"``), for ``out``'s header.

    Raises:
        SpecError, OptionTypeError: a bad entry, naming it; InvalidOptionError: no entries, a
            name given twice, an unknown rule, bad weights.
    """

    def __init__(
        self,
        entries: Sequence[Any] | Mapping[str, Any],
        rule: str = "fixed",
        weights: Sequence[float] | None = None,
        seed: int | None = None,
        out: str | os.PathLike[str] | None = None,
        env: str | None = None,
    ) -> None:
        if rule not in _RULES:
            raise InvalidOptionError(
                f"rule must be one of {list(_RULES)} (or use OpponentPool.curriculum), got {rule!r}"
            )
        check_seed(seed, optional=True)
        if isinstance(entries, Mapping):
            named = [(str(name), entry) for name, entry in entries.items()]
        elif isinstance(entries, Sequence) and not isinstance(entries, str):
            named = [(_entry_name(entry, i), entry) for i, entry in enumerate(entries)]
        else:
            raise OptionTypeError(
                f"entries must be a list of agent specs and policies or a mapping name -> "
                f"entry, got {entries!r}"
            )
        if not named:
            raise InvalidOptionError("an OpponentPool needs at least one entry, got none")
        self.rule: PoolRule = rule  # type: ignore[assignment]
        self.seed = seed
        self.names: list[str] = []
        self.entries: list[Any] = []
        self._weights: list[float] = []
        self._results: list[list[int]] = []  # per entry: [wins, draws, losses]
        self._record: Any = None  # the results file (``rl.pool_record.PoolRecord``)
        self._held: dict[str, list[float]] = {}  # its games against entries not (yet) here
        # (ladder spec, score) of the latest games against ladder entries, for elo(last=K)
        self._ladder_recent: deque[tuple[str, float]] = deque(maxlen=RECENT_GAMES)
        for name, entry in named:
            self.add(entry, name)
        if weights is not None:
            self._weights = self._check_weights(weights)
        self._rng = np.random.default_rng(seed)
        self._policies: dict[int, Any] = {}
        self._builders: dict[str, Callable[[int | None], Any]] = {}  # spec -> its agents
        # the curriculum's state (``curriculum``)
        self.game: str | None = None
        self.level = 0
        self.band = (0.4, 0.7)
        self.window = 0
        self.others = 0.0  # the share of episodes against entries beyond the ladder
        self._ladder = 0  # the ladder's levels are entries 0 .. _ladder - 1
        self._recent: deque[float] = deque()
        if out is not None:
            self._open_record(out, env)

    @classmethod
    def curriculum(
        cls,
        game: str,
        start: str | int = 0,
        band: Sequence[float] = (0.4, 0.7),
        window: int = 50,
        seed: int | None = None,
        out: str | os.PathLike[str] | None = None,
        env: str | None = None,
        others: float = 0.0,
    ) -> OpponentPool:
        """A ladder curriculum on ``game``'s calibrated ladder (``"connect_four"``): one level
        at a time from ``start`` (``"L3"`` or 3); after every ``window`` games against the
        current level, up one level if the learner scored above ``band[1]`` over them, down
        one if below ``band[0]`` (never past L0 or the top). ``others``: the share of episodes
        drawn from the entries added beyond the ladder (snapshots, ``add``), among them by the
        PFSP-hard weight ``(1 - p) ** 2``; 0 (the default) plays the level only. ``out``,
        ``env`` (default ``game``): as the constructor's.

        Raises:
            InvalidOptionError: an unknown game or level, a bad band, window or share, naming
                them.
        """
        from mcts_agents.agents.ladder import load_ladder

        low, high = check_band(band)
        check_int(window, "window", low=1)
        if not is_number(others) or not 0.0 <= others < 1.0:
            raise InvalidOptionError(
                f"others must be a share of episodes, 0 <= others < 1, got {others!r}"
            )
        levels = load_ladder(game).levels
        names = [level.name for level in levels]
        index = start if isinstance(start, int) and not isinstance(start, bool) else -1
        if isinstance(start, str) and start.strip().upper() in names:
            index = names.index(start.strip().upper())
        if not 0 <= index < len(levels):
            raise InvalidOptionError(
                f"start must be a level of {game}'s ladder (L0 .. L{len(levels) - 1} or an "
                f"index), got {start!r}"
            )
        pool = cls({level.name: f"ladder:{game}:{level.name}" for level in levels}, seed=seed)
        pool.rule = "curriculum"
        pool.game, pool.level, pool.band, pool.window = game, index, (low, high), window
        pool.others, pool._ladder = float(others), len(levels)
        pool._recent = deque(maxlen=window)
        if out is not None:
            pool._open_record(out, game if env is None else env, start=index)
        return pool

    # ------------------------------------------------------------------ the results file
    def _open_record(self, out: Any, env: Any, start: int | None = None) -> None:
        from mcts_agents.rl.pool_record import PoolRecord, pool_header

        if not isinstance(env, str) or not env.strip():
            raise InvalidOptionError(
                f"out= needs env= naming the game the pool plays (such as 'connect_four') for "
                f"its results file's header, got env={env!r}"
            )
        if not isinstance(out, (str, os.PathLike)):
            raise OptionTypeError(f"out must be a file's path, got {out!r}")
        record = PoolRecord(out, pool_header(self, env.strip(), start))
        for game in record.games:
            if game["entry"] in self.names:
                self._count(self.index(game["entry"]), float(game["score"]))
            else:
                self._held.setdefault(game["entry"], []).append(float(game["score"]))
        if self.seed is not None and record.games:
            self._rng = np.random.default_rng(derive_seed(self.seed, len(record.games)))
        self._record = record

    @property
    def out(self) -> str | None:
        """The results file's name (``None``: no file)."""
        return None if self._record is None else self._record.name

    def close(self) -> None:
        """Close the results file (releasing its lock); later games are not written."""
        if self._record is not None:
            self._record.close()
            self._record = None

    # ------------------------------------------------------------------ entries
    def add(self, entry: Any, name: str | None = None, weight: float = 1.0) -> str:
        """Add ``entry`` (named ``name``, default as the constructor names it); its name.

        Raises:
            InvalidOptionError: a name the pool has; as the constructor for a bad entry.
        """
        name = _entry_name(entry, len(self.names)) if name is None else name
        if not isinstance(name, str) or not name:
            raise OptionTypeError(f"a pool entry's name must be a non-empty string, got {name!r}")
        if name in self.names:
            raise InvalidOptionError(
                f"pool entry name {name!r} is given twice; name each entry once (a mapping "
                "name -> entry, or add(entry, name=...))"
            )
        if not is_number(weight) or weight < 0:
            raise InvalidOptionError(f"weight of {name!r} must be a number >= 0, got {weight!r}")
        self.entries.append(check_entry(entry, name))
        self.names.append(name)
        self._weights.append(float(weight))
        self._results.append([0, 0, 0])
        for score in self._held.pop(name, []):  # its games in the results file read back
            self._count(len(self.names) - 1, score)
        return name

    def remove(self, name: str) -> None:
        """Drop the entry ``name`` (its results go with it; episodes already drawn finish)."""
        index = self.index(name)
        if len(self.names) == 1:
            raise InvalidOptionError(f"cannot remove {name!r}: the pool's only entry")
        if index < self._ladder:
            raise InvalidOptionError(
                f"cannot remove {name!r}: a level of the curriculum's ladder (only entries "
                f"added beyond it can go: {self.names[self._ladder :]})"
            )
        for items in (self.names, self.entries, self._weights, self._results):
            del items[index]
        self._policies.pop(index, None)
        self._policies = {(i - 1 if i > index else i): p for i, p in self._policies.items()}

    def index(self, name: str) -> int:
        """The position of the entry ``name``; ``InvalidOptionError`` naming the entries."""
        if name not in self.names:
            raise InvalidOptionError(f"the pool has no entry {name!r}; its entries: {self.names}")
        return self.names.index(name)

    def entry(self, name: str) -> Any:
        """The entry called ``name``: its spec, or the policy."""
        return self.entries[self.index(name)]

    def _check_weights(self, weights: Any) -> list[float]:
        found = list(weights) if isinstance(weights, Sequence) else None
        if (
            found is None
            or len(found) != len(self.names)
            or not all(is_number(w) and w >= 0 for w in found)
            or not any(w > 0 for w in found)
        ):
            raise InvalidOptionError(
                f"weights must be {len(self.names)} numbers >= 0 (one per entry "
                f"{self.names}), not all 0; got {weights!r}"
            )
        return [float(w) for w in found]

    # ------------------------------------------------------------------ drawing
    def probabilities(self) -> np.ndarray:
        """Each entry's chance of being drawn next (the rule over the results so far)."""
        n = len(self.names)
        if self.rule == "curriculum":
            chances = np.zeros(n)
            share = self._others_share()
            chances[self.level] = 1.0 - share
            if share:
                chances[self._ladder :] = share * self._pfsp(range(self._ladder, n), "pfsp_hard")
            return chances
        return self._pfsp(range(n), self.rule)

    def _others_share(self) -> float:
        """Under the curriculum, the share of episodes against the entries beyond the ladder
        (0 while there are none)."""
        return self.others if len(self.names) > self._ladder else 0.0

    def _pfsp(self, indices: range, rule: str) -> np.ndarray:
        """The chances among ``indices`` by ``rule`` (``"fixed"`` or a PFSP rule), summing to 1."""
        base = np.asarray([self._weights[i] for i in indices], dtype=np.float64)
        if rule != "fixed":
            p = np.array([self._score(i, prior=0.5) for i in indices])
            base = base * ((1.0 - p) ** 2 if rule == "pfsp_hard" else p * (1.0 - p))
        total = base.sum()
        if total <= 0:
            return np.full(len(indices), 1.0 / len(indices))
        return base / total

    def draw(self) -> str:
        """The name of the next episode's opponent, drawn by the rule."""
        if self.rule == "curriculum" and not self._others_share():
            return self.names[self.level]  # the level only: no draw from the generator
        chances = self.probabilities()
        return self.names[int(self._rng.choice(len(chances), p=chances))]

    def opponent(self, name: str, seed: int | None = None) -> Any:
        """An agent for the entry ``name``: a fresh agent of a spec (seeded ``seed``; the agents
        of an ``az:`` or ``policy:`` spec share the model it opened once,
        ``agents.spec_builder``), or one ``PolicyAgent`` per policy entry, shared by every
        episode that draws it (so a vector env evaluates all of them in one batch, and
        searches the ``az:`` trees in lockstep, one forward pass a round)."""
        from mcts_agents.agents.policy import PolicyAgent

        index = self.index(name)
        entry = self.entries[index]
        if isinstance(entry, str):
            build = self._builders.get(entry)
            if build is None:
                build = self._builders[entry] = spec_builder(entry)
            return build(seed)
        agent = self._policies.get(index)
        if agent is None:
            agent = self._policies[index] = PolicyAgent(entry, name)
        return agent

    # ------------------------------------------------------------------ results
    def record(
        self,
        name: str,
        score: float,
        seat: str | None = None,
        returns: Mapping[str, float] | None = None,
        moves: Sequence[int] | None = None,
    ) -> None:
        """The learner scored ``score`` (1 win, 1/2 draw, 0 loss) against the entry ``name``;
        under the curriculum, the level may move (see ``curriculum``). With a results file
        (``out``) the game is written there: the learner's ``seat``, every seat's ``returns``
        (in seat order) and the ``moves`` where given."""
        index = self.index(name)
        if not is_number(score) or float(score) not in _SCORES:
            raise InvalidOptionError(
                f"score against {name!r} must be 1 (win), 0.5 (draw) or 0 (loss), got {score!r}"
            )
        self._count(index, float(score))
        if self._record is not None:
            seats = None if returns is None else [str(s) for s in returns]
            values = None if returns is None else [float(v) for v in returns.values()]
            played = None if moves is None else [int(m) for m in moves]
            self._record.write(name, float(score), seat, seats, values, played)

    def _count(self, index: int, score: float) -> None:
        self._results[index][2 - int(2 * score)] += 1
        entry = self.entries[index]
        if isinstance(entry, str) and entry.startswith("ladder:"):
            self._ladder_recent.append((entry, score))
        if self.rule == "curriculum" and index == self.level:
            self._recent.append(float(score))
            if len(self._recent) == self.window:
                mean = sum(self._recent) / self.window
                low, high = self.band
                move = 1 if mean > high else -1 if mean < low else 0
                if 0 <= self.level + move < len(self.names) and move:
                    self.level += move
                    self._recent.clear()

    def _score(self, index: int, prior: float | None = None) -> Any:
        wins, draws, losses = self._results[index]
        games = wins + draws + losses
        return prior if games == 0 else (wins + draws / 2) / games

    def stats(self) -> dict[str, Stats]:
        """``{entry: {"games", "wins", "draws", "losses", "score", "low", "high"}}``: the
        learner's results against each entry, its score (``None`` before any game) and the
        score's 95% Wilson interval."""
        found: dict[str, Stats] = {}
        for name, (wins, draws, losses) in zip(self.names, self._results, strict=True):
            games = wins + draws + losses
            low, high = wilson_interval(wins + draws / 2, games)
            score = None if games == 0 else (wins + draws / 2) / games
            found[name] = {
                "games": games,
                "wins": wins,
                "draws": draws,
                "losses": losses,
                "score": score,
                "low": low,
                "high": high,
            }
        return found

    def elo(
        self, name: str = "learner", last: int | None = None
    ) -> tuple[float, float, float] | None:
        """The learner's Elo on the ladder's scale and its 95% interval, fitted from its games
        against the ladder entries (``ladder:GAME:L``) with the levels' ratings held fixed:
        all of them, or the ``last`` ones (at most ``RECENT_GAMES``), which follow a learner
        that is still changing; ``None`` before any such game (or where a fit has no finite
        answer).

        Raises:
            InvalidOptionError: ``last`` not in 1 .. ``RECENT_GAMES``.
        """
        from mcts_agents.agents.ladder import load_ladder

        counts: list[tuple[Any, list[int] | tuple[int, int, int]]]
        if last is None:
            counts = list(zip(self.entries, self._results, strict=True))
        else:
            check_int(last, "last", low=1, high=RECENT_GAMES)
            tally: dict[str, list[int]] = {}
            for entry, score in list(self._ladder_recent)[-last:]:
                tally.setdefault(entry, [0, 0, 0])[2 - int(2 * score)] += 1
            counts = list(tally.items())
        results, fixed = [], {}
        for entry, (wins, draws, losses) in counts:
            level = _ladder_level(entry, load_ladder)
            if level is None or wins + draws + losses == 0:
                continue
            fixed[entry] = level
            results.append((name, entry, wins + draws / 2, wins + draws + losses))
        if not results or all(r[2] == 0 for r in results) or all(r[2] == r[3] for r in results):
            return None  # all lost or all won: the estimate is infinite
        try:
            fit = bradley_terry_elo([name, *fixed], results, fixed=fixed)
        except ValueError:  # no finite maximum
            return None
        return fit[name]

    def __repr__(self) -> str:
        if self.rule == "curriculum":
            return f"OpponentPool.curriculum({self.game!r}, level={self.names[self.level]!r})"
        return f"OpponentPool({self.names}, rule={self.rule!r})"


def _ladder_level(entry: Any, load: Callable[[str], Any]) -> float | None:
    """The Elo of a ``ladder:GAME:L`` entry on its calibrated ladder, else ``None``."""
    if not isinstance(entry, str) or not entry.startswith("ladder:"):
        return None
    game, _, level = entry[len("ladder:") :].partition(":")
    try:
        return float(load(game.strip()).level(level.strip().upper()).elo)
    except ValueError:
        return None
