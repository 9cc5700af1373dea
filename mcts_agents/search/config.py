"""Configuration of the search: budgets and options, as frozen dataclasses (the source of truth)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any, Literal

from mcts_agents.checks import check_bool, check_choice, check_int, check_number, is_number
from mcts_agents.errors import InvalidOptionError, describe_unknown
from mcts_agents.search.evaluators import BatchEvaluator, is_batch_evaluator

SelectionName = Literal["ucb1", "ucb1_tuned", "puct", "gumbel"]
SELECTIONS = ("ucb1", "ucb1_tuned", "puct", "gumbel")
FinalMove = Literal["visits", "value", "robust_max"]
PlayMove = Literal["auto", "best", "sample"]
#: The searches whose ``act`` draws its move by default (``play="auto"``): players hold private
#: information, and a pure strategy is what an opponent exploits.
MIXED_INFORMATION = ("mo_ismcts", "so_ismcts", "pimc")
Playout = Literal["random", "decisive"]
Backend = Literal["auto", "python", "numba"]
Information = Literal["auto", "perfect", "oracle", "mo_ismcts", "so_ismcts", "pimc"]
INFORMATION_MODES = ("auto", "perfect", "oracle", "mo_ismcts", "so_ismcts", "pimc")
SearchFrom = Literal["auto", "here", "start"]

#: A position evaluator maps ``(game, state)`` to per-player values in [-1, 1] and optional
#: priors (a mapping action -> prior, or a sequence indexed by action); ``None`` priors mean
#: uniform. ``mcts_agents.search.evaluators.BatchEvaluator`` is the other kind, over numpy batches.
Evaluator = Callable[
    [Any, Any], tuple[Sequence[float], "Mapping[int, float] | Sequence[float] | None"]
]


@dataclass(frozen=True, slots=True)
class Budget:
    """When a search stops: whichever limit is hit first. At least one must be set.

    Attributes:
        iterations: number of simulations (select, expand, evaluate, back up).
        time_limit: wall-clock seconds for one search.
        max_nodes: bound on entries in the node table (also across moves with tree reuse). With
            no other limit the search stops when the table is full, or after ``max_nodes``
            simulations in a row that add no node (every position of a small game stored);
            otherwise the search goes on without adding nodes.
    """

    iterations: int | None = None
    time_limit: float | None = None
    max_nodes: int | None = None

    def __post_init__(self) -> None:
        if self.iterations is None and self.time_limit is None and self.max_nodes is None:
            raise InvalidOptionError(
                "a budget is needed: give at least one of iterations, time_limit, max_nodes"
            )
        check_int(self.iterations, "iterations", low=1, optional=True)
        check_int(self.max_nodes, "max_nodes", low=1, optional=True)
        check_number(self.time_limit, "time_limit", low=0, low_open=True, optional=True)


@dataclass(frozen=True, slots=True)
class SearchConfig:
    """Everything about how the search plays, apart from its budget.

    Attributes:
        c: exploration constant (values are in [-1, 1], so 2 here equals sqrt(2)-ish x 1.4 on
            [0, 1] rewards).
        selection: ``"ucb1"``, ``"ucb1_tuned"``, ``"puct"`` (priors from the evaluator, else
            uniform) or ``"gumbel"``: Gumbel search (``mcts_agents.search.gumbel``: Gumbel-top-k
            at the root, Sequential Halving over ``Budget.iterations``, which it needs, and the
            improved policy as ``SearchResult.policy``; the Python search only; no
            ``root_noise``, and ``final_move="visits"``, as Gumbel picks its own move).
        gumbel_max_actions: Gumbel search: the root actions considered (``k``, at least 1).
        gumbel_scale: Gumbel search: the scale of the root's Gumbel draws (>= 0; 0: no draw,
            the root considers the best priors and plays deterministically).
        gumbel_c_visit: Gumbel search: ``c_visit`` of ``sigma(q) = (c_visit + max_b N(b)) *
            c_scale * q`` (>= 0).
        gumbel_c_scale: Gumbel search: ``c_scale`` of ``sigma`` (> 0; default 0.1, ``mctx``'s
            ``value_scale``: it measured better than the paper's 1.0 here, docs/alphazero.md).
        fpu: first-play urgency: the score of an unvisited child. ``None`` means every child is
            tried once before any is tried twice (classic UCT).
        expand_all: create all children of a node at its first expansion instead of one per
            iteration.
        rollout_depth: cap on random-playout length; a capped playout is worth ``cutoff_value``
            to every player. ``None``: play to the end.
        cutoff_value: value of a playout stopped by ``rollout_depth`` (a value in [-1, 1], not
            a return), by ``playout_cap`` or by the search's clock.
        playout_cap: the most moves a playout of the Python search plays (chance outcomes
            included) before it stops, worth ``cutoff_value``, with one warning logged: a
            safety net for games that may never end (``mcts_agents.search.playouts``; a long
            playout also stops once the time limit is up). ``None`` (default): 10 times the
            game's ``max_game_length`` where it declares one, else 10,000. The compiled kernels
            play games that end and take no cap.
        playout: ``"decisive"`` (default): playouts win at once when they can and block the
            opponent's immediate win, through the game's ``decisive_rollout`` where it has one
            (Connect Four, Othello, ultimate tic-tac-toe, Pig), else uniformly random;
            ``"random"``: uniformly random playouts.
        evaluator: what replaces random playouts: a position evaluator (a callable, see
            ``Evaluator``) or a batch evaluator (an object with ``evaluate_batch``, see
            ``mcts_agents.search.evaluators.BatchEvaluator``: two-player or one-player games without
            chance nodes). Only the Python search takes one (``backend="auto"`` picks it).
        batch_size: with a batch evaluator, the Python search selects up to this many leaves
            (``K``) before evaluating them together in one ``evaluate_batch`` call; the
            selections in flight are told apart by ``virtual_loss``. 1 (default) evaluates each
            leaf on its own, the same search as the batch evaluator used position by position.
            Above 1 it needs a batch evaluator.
        virtual_loss: while a selected leaf waits for its evaluation, every edge on its path
            counts one more visit that scored ``-virtual_loss`` for the player moving along it,
            so that the next selections of the batch look elsewhere; undone when the leaf's
            value is backed up. In [0, 1] (the scale of values); default 1 (a loss).
        root_noise: ``(alpha, epsilon)``: at each search the Python search mixes Dirichlet
            noise into the root's priors, ``(1 - epsilon) * prior + epsilon * Dir(alpha)``
            (AlphaZero's self-play exploration; e.g. ``(0.3, 0.25)`` for chess-sized move
            counts, a larger ``alpha`` for fewer moves), drawn from the search's own seeded
            generator. Only the root; the result's ``ChildStats.prior`` shows the noised priors,
            the node keeps its clean ones for later searches. Needs ``selection="puct"``.
            ``None`` (default) or ``epsilon = 0``: no noise (nothing is drawn).
        solver: MCTS-Solver: prove wins, losses and draws and use the proofs.
        final_move: ``"visits"`` (most visits), ``"value"`` (highest mean) or ``"robust_max"``
            (most visits and highest mean at once; searches up to 50% longer to get one, then
            falls back to most visits). A proven result overrides the rule. This is the
            search's ``SearchResult.best_action``; ``play`` says whether ``act`` plays it.
        play: how an agent's ``act`` turns the search into a move. ``"best"``: the result's
            ``best_action``; ``"sample"``: an action drawn from ``SearchResult.policy`` (the
            search's mixed strategy at the root: regret matching's average strategy, Gumbel's
            improved policy, else the normalised root visits) by the agent's own seeded
            generator (same seed, same games), except that a proven win is played; ``"auto"``
            (default): ``"sample"`` where players hold private information (the search ran
            ``mo_ismcts``, ``so_ismcts`` or ``pimc``, whose pure strategy an opponent
            exploits), ``"best"`` on every other game.
        reuse: keep the node table from move to move within a game.
        backend: ``"auto"`` (default): a compiled kernel (``mcts_agents.compiled``, needs the
            ``fast`` extra, numba) where one implements the game and these options, else
            Python; ``"python"``: always the Python search; ``"numba"``: the kernel, or an
            ``InvalidOptionError`` saying why it cannot run. Same seed, same result within a
            backend (the backends draw different random numbers).
        kernel_options: settings of the compiled kernel that runs the search, by name (Go's
            ``GoOptions``: ``{"defend": True}``; in an agent spec ``kernel.defend=1``); the
            kernel checks them (an unknown name is refused, naming it). Given as a mapping,
            kept as a sorted tuple of ``(name, value)`` pairs, each value a bool, number, text
            or ``None``. Only a kernel that takes options runs such a search: a search that
            would run elsewhere (``backend="python"``, a game with no such kernel) is refused.
            Default ``()``: the kernel's defaults.
        information: how the search treats hidden information and chance. ``"auto"``
            (default): MO-ISMCTS on games with private information, else ``"perfect"``;
            ``"perfect"``: MCTS over full states, with chance nodes where the game has them
            (refused for a game with private information: it would read hidden cards);
            ``"mo_ismcts"`` / ``"so_ismcts"``: Information Set MCTS, multiple-observer (every
            player's nodes keyed by its own information set) or single-observer (every node
            keyed by the searching player's); ``"pimc"``: determinized perfect-information
            MCTS, ``determinizations`` trees merged at the root; ``"oracle"``: MCTS on the
            true hidden state, a cheating upper bound that is never chosen unless asked for.
        determinizations: PIMC's number of determinized trees per search (each gets an equal
            share of the budget).
        search_from: where ISMCTS simulations begin. ``"auto"`` (default): ``"start"`` with
            Smooth UCT's tuned schedule where the compiled ISMCTS runs the game (Kuhn and
            Leduc poker, ``mcts_agents.compiled.ismcts``: millions of self-play simulations a
            second reach near-equilibrium play) and the budget allows enough of them (Leduc:
            100k simulations or 0.025 s; regret-matching self-play there instead of Smooth UCT,
            read as its average strategy); ``"start"`` for a game that cannot draw worlds of an
            information set (``can_determinize`` False: OpenSpiel's ``liars_dice``,
            ``phantom_ttt``, ``dark_hex``); ``"here"`` everywhere else.
            ``"here"``: a
            determinization
            of the current information set, drawn uniformly from what the player cannot see
            (the classic ISMCTS; it does not weigh the worlds by the opponents' past actions).
            ``"start"``: the game's initial state, every chance outcome drawn by the search and
            every player's decision by its own information-set nodes (self-play), so the
            worlds of the current information set are reached as often as the players'
            strategies make them; the decision is read from its node, and the table is kept
            for the whole game. With ``smooth`` this is Smooth UCT's self-play, which
            approaches an equilibrium in poker. Needs ``game.initial_state()``; a decision
            the self-play never reached falls back to ``"here"``.
        return_range: ``(low, high)``, the lowest and highest return a player can get, for the
            Python search (``MCTS``): values are mapped from it and a proof is a win only at
            ``high``. ``None`` (default): the game's own ``return_range``; for anyone else's env
            on the generic path without ``metadata["return_range"]``, a range learned from the
            returns the search meets, under which no return is ever called a win (see
            ``mcts_agents.search.return_range``). The result says which range was used
            (``SearchResult.return_range``, ``SearchResult.return_range_source``).
        smooth: Smooth UCT (Heinrich and Silver 2015) for ISMCTS: at a node of ``N`` visits the
            UCB rule is followed with probability ``max(smooth, 0.9 / (1 + 0.001 sqrt(N)))``,
            else an action is drawn from the node's average policy (its normalised visits), so
            the visit counts approach an equilibrium strategy; ``None`` (default): plain UCB.
    """

    c: float = 1.4
    selection: SelectionName = "ucb1"
    fpu: float | None = None
    expand_all: bool = False
    rollout_depth: int | None = None
    cutoff_value: float = 0.0
    playout_cap: int | None = None
    playout: Playout = "decisive"
    evaluator: Evaluator | BatchEvaluator | None = None
    batch_size: int = 1
    virtual_loss: float = 1.0
    root_noise: tuple[float, float] | None = None
    solver: bool = True
    final_move: FinalMove = "visits"
    play: PlayMove = "auto"
    reuse: bool = True
    backend: Backend = "auto"
    kernel_options: Mapping[str, Any] | tuple[tuple[str, Any], ...] = ()
    information: Information = "auto"
    determinizations: int = 20
    search_from: SearchFrom = "auto"
    smooth: float | None = None
    return_range: tuple[float, float] | None = None
    gumbel_max_actions: int = 16
    gumbel_scale: float = 1.0
    gumbel_c_visit: float = 50.0
    gumbel_c_scale: float = 0.1

    def __post_init__(self) -> None:
        check_number(self.c, "c", low=0)
        check_choice(self.selection, "selection", SELECTIONS)
        check_number(self.fpu, "fpu", optional=True)
        check_int(self.rollout_depth, "rollout_depth", low=0, optional=True)
        check_number(self.cutoff_value, "cutoff_value", low=-1, high=1)
        check_int(self.playout_cap, "playout_cap", low=1, optional=True)
        check_choice(self.playout, "playout", ("random", "decisive"))
        batched = is_batch_evaluator(self.evaluator)
        if self.evaluator is not None and not batched and not callable(self.evaluator):
            raise InvalidOptionError(
                "evaluator must be a callable (game, state) -> (values, priors) or an object "
                f"with evaluate_batch(observations, legal_masks), got {self.evaluator!r}"
            )
        size = check_int(self.batch_size, "batch_size", low=1)
        if size > 1 and not batched:
            raise InvalidOptionError(
                f"batch_size={size} needs a batch evaluator (an object with "
                f"evaluate_batch(observations, legal_masks)); the evaluator is {self.evaluator!r}"
            )
        check_number(self.virtual_loss, "virtual_loss", low=0, high=1)
        self._check_root_noise()
        for flag in ("expand_all", "solver", "reuse"):
            check_bool(getattr(self, flag), flag)
        check_choice(self.final_move, "final_move", ("visits", "value", "robust_max"))
        check_choice(self.play, "play", ("auto", "best", "sample"))
        check_choice(self.backend, "backend", ("auto", "python", "numba"))
        self._check_kernel_options()
        check_choice(self.information, "information", INFORMATION_MODES)
        check_int(self.determinizations, "determinizations", low=1)
        check_choice(self.search_from, "search_from", ("auto", "here", "start"))
        check_number(self.smooth, "smooth", low=0, high=1, optional=True)
        self._check_return_range()
        self._check_gumbel()

    def _check_kernel_options(self) -> None:
        given = self.kernel_options
        pairs = list(given.items()) if isinstance(given, Mapping) else given
        if not isinstance(pairs, (tuple, list)) or not all(
            isinstance(p, (tuple, list)) and len(p) == 2 for p in pairs
        ):
            raise InvalidOptionError(
                "kernel_options must be a mapping of option names to values (in an agent spec: "
                f"kernel.NAME=VALUE, e.g. mcts:kernel.defend=1), got {given!r}"
            )
        checked: dict[str, Any] = {}
        for name, value in pairs:
            if not isinstance(name, str) or not name.isidentifier():
                raise InvalidOptionError(
                    f"kernel_options: an option's name must be an identifier, got {name!r}"
                )
            if name in checked:
                raise InvalidOptionError(f"kernel_options: {name!r} is given twice")
            if value is not None and not isinstance(value, (bool, int, float, str)):
                raise InvalidOptionError(
                    f"kernel_options: {name}= must be a bool, number, text or None, got {value!r}"
                )
            checked[name] = value
        object.__setattr__(self, "kernel_options", tuple(sorted(checked.items())))

    def _check_gumbel(self) -> None:
        check_int(self.gumbel_max_actions, "gumbel_max_actions", low=1)
        check_number(self.gumbel_scale, "gumbel_scale", low=0)
        check_number(self.gumbel_c_visit, "gumbel_c_visit", low=0)
        check_number(self.gumbel_c_scale, "gumbel_c_scale", low=0, low_open=True)
        if self.selection == "gumbel" and self.final_move != "visits":
            raise InvalidOptionError(
                "selection='gumbel' picks its own final move (the surviving action of highest "
                f"g + logits + sigma(q)); final_move must be 'visits', got {self.final_move!r}"
            )

    def _check_return_range(self) -> None:
        bounds = self.return_range
        if bounds is None:
            return
        valid = (
            isinstance(bounds, (tuple, list))
            and len(bounds) == 2
            and all(is_number(v) for v in bounds)
            and bounds[0] < bounds[1]
        )
        if not valid:
            raise InvalidOptionError(
                "return_range must be None or (low, high), two finite numbers with low < high, "
                f"got {bounds!r}"
            )
        object.__setattr__(self, "return_range", (float(bounds[0]), float(bounds[1])))

    def _check_root_noise(self) -> None:
        noise = self.root_noise
        if noise is None:
            return
        if not isinstance(noise, (tuple, list)) or len(noise) != 2:
            raise InvalidOptionError(
                f"root_noise must be None or a pair (alpha, epsilon), got {noise!r}"
            )
        for name, value in zip(("alpha", "epsilon"), noise, strict=True):
            if not is_number(value):
                raise InvalidOptionError(
                    f"root_noise's {name} must be a finite number, got {value!r} in {noise!r}"
                )
        alpha, epsilon = noise
        if self.selection == "gumbel":
            raise InvalidOptionError(
                "selection='gumbel' takes no root_noise: its Gumbel draw at the root explores; "
                f"got root_noise={noise!r}"
            )
        if alpha <= 0:
            raise InvalidOptionError(
                f"root_noise's alpha (Dirichlet concentration) must be > 0, got {alpha!r}"
            )
        if not 0.0 <= epsilon <= 1.0:
            raise InvalidOptionError(
                f"root_noise's epsilon (the noise's share) must be in [0, 1], got {epsilon!r}"
            )
        if self.selection != "puct":
            raise InvalidOptionError(
                f"root_noise mixes noise into PUCT's priors; it needs selection='puct', got "
                f"selection={self.selection!r}"
            )
        object.__setattr__(self, "root_noise", (float(alpha), float(epsilon)))

    @classmethod
    def from_options(cls, options: Mapping[str, Any], also: Sequence[str] = ()) -> SearchConfig:
        """Build from keyword options, naming any unknown option in the error (with the close
        valid one); ``also`` are the caller's own valid keywords, listed with the fields."""
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(options) - known)
        if unknown:
            valid = sorted(known | set(also))
            raise InvalidOptionError(
                f"unknown option(s) {describe_unknown(unknown, valid)}; "
                f"valid options: {', '.join(valid)}"
            )
        return cls(**options)
