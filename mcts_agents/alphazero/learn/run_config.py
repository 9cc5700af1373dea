"""A training run's settings: ``RunConfig`` (stored in the run's ``run.json``)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Literal

from mcts_agents.alphazero.learn.net import NetConfig
from mcts_agents.alphazero.learn.trainer import TrainConfig
from mcts_agents.alphazero.selfplay import PlayoutCap, Resign, TemperatureSchedule
from mcts_agents.checks import check_choice, check_int, check_number, is_int
from mcts_agents.errors import CheckpointError, InvalidOptionError
from mcts_agents.processes import check_workers
from mcts_agents.search.config import SearchConfig

__all__ = ["PUCT_ROOT_NOISE", "RUN_FORMAT", "RunConfig", "run_file_config"]

#: The ``format`` of a run's ``run.json``.
RUN_FORMAT = "mcts-agents-az-run"
#: Self-play's Dirichlet noise with PUCT when ``root_noise`` is not given.
PUCT_ROOT_NOISE = (0.3, 0.25)


def _int(name: str, value: Any, low: int) -> None:
    check_int(value, f"RunConfig's {name}", low=low)


@dataclass(frozen=True, slots=True)
class RunConfig:
    """One training run's settings (stored in ``run.json``; a resumed run must match them).

    Attributes:
        net: the network's size.
        training: the trainer's options (batch, learning rate, weight decay, optimizer).
        simulations: simulations per self-play move (and per gate move unless
            ``gate_simulations``).
        search_batch: leaves per network call in the searches (``SearchConfig.batch_size``).
        search: ``"puct"`` (AlphaZero's PUCT, Dirichlet noise at the root, the visits as
            policy targets) or ``"gumbel"`` (Gumbel AlphaZero: ``SearchConfig(selection=
            "gumbel")`` in self-play, the gate and the Elo games; no root noise; each self-play
            move the search's own; its improved policy as the policy target; works with few
            simulations, e.g. 8 to 32).
        gumbel_max_actions, gumbel_scale, gumbel_c_visit, gumbel_c_scale: Gumbel search's
            options (``SearchConfig``'s), with ``search="gumbel"``.
        c: PUCT's exploration constant.
        root_noise: self-play's Dirichlet noise ``(alpha, epsilon)`` at the root, or ``None``;
            not given: ``PUCT_ROOT_NOISE`` with PUCT, ``None`` with Gumbel (which takes none).
        temperature: self-play's ``(moves, t_early, t_late)``.
        games_per_iteration: self-play games per iteration.
        steps_per_iteration: training steps per iteration.
        buffer_capacity: positions the replay buffer keeps.
        augment: sample the buffer through the game's symmetries.
        gate_every: gate every this many iterations; 0: no gate, self-play with the latest net.
        gate_games: games per gate (even; the issue's real runs: >= 200).
        gate_simulations: simulations per gate move (``None``: ``simulations``).
        gate_threshold: the candidate's score needed to replace the best network.
        seed: seeds the network's initial weights, the trainer, self-play and the gates.
        workers: self-play (and gate) processes (1: here; at most
            ``processes.MAX_WORKERS``, 256, and no more than an iteration's games use).
        playout_cap: playout-cap randomisation ``(full_probability, fast_simulations)``
            (``selfplay.PlayoutCap``): only the full searches' positions are trained on; or
            ``None``: every self-play move searches ``simulations``.
        resign: resignation ``(threshold, disabled_fraction)`` (``selfplay.Resign``), or
            ``None``: self-play games are played out.
        value_mix: the value target's share of the search's root value (``ReplayBuffer.add``);
            0: the game's result alone.
        elo_games: after each promotion, the new best network plays this many games (even)
            against each fixed opponent of ``elo_opponents`` (``gate.against_mcts``) and the
            metrics line records its scores and Elo against them; 0: not measured.
        elo_opponents: the fixed opponents, MCTS iterations of uniform random playouts each.
        teacher_iterations: a warm start by Expert Iteration: the first this many iterations'
            games are played by plain MCTS against itself (``selfplay.play_teacher_game``, the
            compiled search where the game has one), whose visits and results the network
            learns; AlphaZero's self-play with the network after. 0: self-play from the start.
        teacher_simulations: the teacher's simulations per move.
    """

    net: NetConfig = field(default_factory=NetConfig)
    training: TrainConfig = field(default_factory=TrainConfig)
    simulations: int = 50
    search_batch: int = 8
    c: float = 1.5
    root_noise: tuple[float, float] | Literal["default"] | None = "default"
    temperature: tuple[int, float, float] = (8, 1.0, 0.0)
    games_per_iteration: int = 16
    steps_per_iteration: int = 50
    buffer_capacity: int = 50_000
    augment: bool = True
    gate_every: int = 5
    gate_games: int = 20
    gate_simulations: int | None = None
    gate_threshold: float = 0.55
    seed: int = 0
    workers: int = 1
    playout_cap: tuple[float, int] | None = None
    resign: tuple[float, float] | None = None
    value_mix: float = 0.0
    elo_games: int = 0
    elo_opponents: tuple[int, ...] = (100, 1000)
    teacher_iterations: int = 0
    teacher_simulations: int = 5000
    search: Literal["puct", "gumbel"] = "puct"
    gumbel_max_actions: int = 16
    gumbel_scale: float = 1.0
    gumbel_c_visit: float = 50.0
    gumbel_c_scale: float = 0.1

    def __post_init__(self) -> None:
        check_choice(self.search, "RunConfig's search", ("puct", "gumbel"))
        if self.root_noise == "default":
            default = PUCT_ROOT_NOISE if self.search == "puct" else None
            object.__setattr__(self, "root_noise", default)
        if not isinstance(self.net, NetConfig) or not isinstance(self.training, TrainConfig):
            raise InvalidOptionError(
                f"RunConfig's net must be a NetConfig and training a TrainConfig, got "
                f"{self.net!r} and {self.training!r}"
            )
        for name in (
            "simulations",
            "search_batch",
            "games_per_iteration",
            "steps_per_iteration",
            "buffer_capacity",
            "teacher_simulations",
        ):
            _int(name, getattr(self, name), 1)
        for name in ("gate_every", "seed", "elo_games", "teacher_iterations"):
            _int(name, getattr(self, name), 0)
        check_workers(self.workers, "RunConfig's workers")
        if self.gate_every:
            _int("gate_games", self.gate_games, 2)
            if self.gate_games % 2:
                raise InvalidOptionError(
                    f"RunConfig's gate_games must be even (each opening from both seats), got "
                    f"{self.gate_games!r}"
                )
        if self.elo_games % 2:
            raise InvalidOptionError(
                f"RunConfig's elo_games must be even (each opening from both seats), got "
                f"{self.elo_games!r}"
            )
        opponents = self.elo_opponents
        if not isinstance(opponents, (tuple, list)) or not all(
            is_int(n) and n >= 1 for n in opponents
        ):
            raise InvalidOptionError(
                f"RunConfig's elo_opponents must be MCTS iteration counts (ints >= 1), got "
                f"{opponents!r}"
            )
        if self.gate_simulations is not None:
            _int("gate_simulations", self.gate_simulations, 1)
        TemperatureSchedule.of(self.temperature)  # checks it
        self.selfplay_options()  # checks the cap and the resignation
        check_number(self.value_mix, "RunConfig's value_mix", low=0, high=1)
        # the search options are checked where they are used: SearchConfig checks them here
        self.search_config(root_noise=self.root_noise)
        check_number(self.gate_threshold, "RunConfig's gate_threshold", low=0, high=1)

    def search_config(self, **options: Any) -> SearchConfig:
        """The run's search (``selection``, ``c`` and Gumbel's options) with ``options``."""
        return SearchConfig(
            selection=self.search,
            c=self.c,
            gumbel_max_actions=self.gumbel_max_actions,
            gumbel_scale=self.gumbel_scale,
            gumbel_c_visit=self.gumbel_c_visit,
            gumbel_c_scale=self.gumbel_c_scale,
            **options,
        )

    def selfplay_options(self) -> tuple[PlayoutCap | None, Resign | None]:
        """The self-play game's ``playout_cap`` and ``resign`` options (checked)."""
        pairs = (self.playout_cap, self.resign)
        try:
            if any(p is not None and not isinstance(p, (tuple, list)) for p in pairs):
                raise TypeError
            cap = None if self.playout_cap is None else PlayoutCap(*self.playout_cap)
            resign = None if self.resign is None else Resign(*self.resign)
        except TypeError:
            raise InvalidOptionError(
                f"RunConfig's playout_cap must be (full_probability, fast_simulations) and "
                f"resign (threshold, disabled_fraction), or None; got {self.playout_cap!r} and "
                f"{self.resign!r}"
            ) from None
        if cap is not None and cap.fast_simulations > self.simulations:
            raise InvalidOptionError(
                f"RunConfig's playout_cap fast_simulations ({cap.fast_simulations}) must not "
                f"exceed simulations ({self.simulations})"
            )
        return cap, resign

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready fields (``RunConfig.from_dict`` rebuilds an equal config)."""
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RunConfig:
        """The config ``to_dict`` (or its JSON round trip) describes."""
        data = dict(data)
        data["net"] = NetConfig(**data["net"])
        data["training"] = TrainConfig(**data["training"])
        data["temperature"] = tuple(data["temperature"])
        for name in ("root_noise", "playout_cap", "resign", "elo_opponents"):
            if data.get(name) is not None:
                data[name] = tuple(data[name])
        return cls(**data)


def run_file_config(stored: Any, path: Any) -> RunConfig:
    """The ``RunConfig`` of a run's ``run.json`` (``stored``: its JSON), checked: the format,
    the game's name (a string) and every setting; else ``CheckpointError`` naming the file
    and the field."""
    source = repr(str(path))
    if not isinstance(stored, dict) or stored.get("format") != RUN_FORMAT:
        raise CheckpointError(
            f"{source} is not a training run's file (no 'format': {RUN_FORMAT!r})"
        )
    if not isinstance(stored.get("game"), str):
        raise CheckpointError(f"{source}: 'game' should be the game's name, got "
                              f"{stored.get('game')!r}")  # fmt: skip
    config = stored.get("config")
    try:
        if not isinstance(config, dict) or not all(
            isinstance(config.get(k), dict) for k in ("net", "training")
        ):
            raise TypeError("'config' should be an object with 'net' and 'training' objects")
        return RunConfig.from_dict(config)
    except (ValueError, KeyError, TypeError) as error:
        raise CheckpointError(f"{source}: a bad 'config': {error}") from None
