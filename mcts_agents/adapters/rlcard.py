"""PettingZoo's rlcard poker envs (``leduc_holdem_v4``, ``texas_holdem_v4``,
``texas_holdem_no_limit_v6``) as games with private information, searched without peeking.

Two paths, picked by ``rlcard_game``:

- the rules cores (fast): two-player ``leduc_holdem_v4``, ``texas_holdem_v4`` and
  ``texas_holdem_no_limit_v6`` are read into ``RLCardLeduc``, ``LimitHoldem`` and
  ``NoLimitHoldem`` (``mcts_agents.envs.games``), which have rlcard's rules and PettingZoo's
  action ids, so the search runs on small immutable states. The reading takes only what the
  player to move sees (its own cards, the public cards) and the public betting state (round,
  chips in, raises and calls, statuses, whose turn, the dealer); the other seat's cards are
  filled with the lowest cards the player has not seen (``oracle``: the true ones), and the
  core's ``determinize`` redeals them with the search's generator for every simulation. Only
  the exact PettingZoo and rlcard classes with their standard settings (blinds 1 and 2,
  no-limit stacks of 100) and PettingZoo's own wrappers take this path; anything else (a
  subclass, changed settings, more players, a state these rules do not reach) goes down the
  clone path.
- the clone path (``RLCardGame``, every rlcard poker env): verified clones
  of the env (``generic.EnvGame``), which hold every hand and the dealer's deck. Information Set
  MCTS reads them only through:

  - ``information_set(state, player)``: the player's own hand, the public cards and the public
    betting state (chips in, statuses, the round's raise counts, whose turn); all of it is seen
    by the player, and it fixes everything that can happen next but the unseen cards;
  - ``determinize(state, player, rng)``: a clone in which every card the player has not seen
    (the other hands and the deck, whose order is the env's future) is shuffled with the
    search's generator and dealt again into the same places, and the clone's random generator
    is reseeded from it, so nothing of the env's hidden cards or future draws survives.

Other rlcard games are refused: no redeal is written for them.
"""

from __future__ import annotations

import functools
import random
import sys
from collections.abc import Hashable
from typing import Any

from mcts_agents.adapters.aec import bookkeeping, check_live, describe_env, wrapper_chain
from mcts_agents.adapters.cloning import Memo, verified_clone
from mcts_agents.adapters.generic import EnvGame, EnvState
from mcts_agents.envs.games.limit_holdem import LimitHoldem
from mcts_agents.envs.games.nolimit_holdem import ALIVE, ALLIN, OUT, STACK, NoLimitHoldem
from mcts_agents.envs.games.rlcard_leduc import RLCardLeduc
from mcts_agents.envs.games.rlcard_poker import RLCardPoker
from mcts_agents.envs.games.rlcard_poker import State as CoreState
from mcts_agents.errors import CloneError, GameOverError

__all__ = ["RLCardGame", "core_game", "poker_core", "rlcard_env_type", "rlcard_game"]

#: rlcard game class -> (the most chips one player can put in, chips per payoff unit).
_HOLDEM = {
    "LeducholdemGame": (14, 2),  # blinds 1/2, 2 raises of 2 then of 4; payoffs in big blinds
    "LimitHoldemGame": (50, 2),  # big blind 2, 4 raises of 2, 2, 4, 4 a round; in big blinds
    "NolimitholdemGame": (None, 1),  # every stack (init_chips) can go in; payoffs in chips
}


def rlcard_env_type() -> type | None:
    """PettingZoo's rlcard base env class if it is loaded (an env of it implies it is)."""
    module = sys.modules.get("pettingzoo.classic.rlcard_envs.rlcard_base")
    return getattr(module, "RLCardBase", None)


def _card(card: Any) -> str:
    return str(card.get_index())


def _hand(player: Any) -> tuple[str, ...]:
    hand = player.hand
    return tuple(_card(c) for c in hand) if isinstance(hand, list) else (_card(hand),)


def _ints(obj: Any) -> tuple[tuple[str, Any], ...]:
    """The public int and list-of-int fields of an rlcard object (betting state), sorted."""
    fields: list[tuple[str, Any]] = []
    for name, value in sorted(vars(obj).items()):
        if isinstance(value, (bool, int, str)) or value is None:
            fields.append((name, value))
        elif isinstance(value, list) and all(isinstance(v, int) for v in value):
            fields.append((name, tuple(value)))
        elif hasattr(value, "value") and type(value).__module__.startswith("rlcard"):
            fields.append((name, str(value)))  # an enum: a player's status, the stage
    return tuple(fields)


class RLCardGame(EnvGame):
    """``EnvGame`` over an rlcard poker env, with information sets and redealing (see the
    module docstring)."""

    perfect_information = False

    def __init__(self, env: Any, memo: Memo, return_range: tuple[float, float]) -> None:
        super().__init__(env, memo)
        self.return_range = return_range
        self.spec = ("pettingzoo-rlcard", env.unwrapped.metadata.get("name"), self.num_players)

    @staticmethod
    def _rlcard(state: EnvState) -> Any:
        return state.env.unwrapped.env.game

    def information_set(self, state: EnvState, player: int) -> Hashable:
        game = self._rlcard(state)
        public = getattr(game, "public_cards", None)
        if public is None:
            card = getattr(game, "public_card", None)
            public = [] if card is None else [card]
        return (
            _hand(game.players[player]),
            tuple(_card(c) for c in public),
            tuple(_ints(p) for p in game.players),
            _ints(game.round),
            getattr(game, "round_counter", None),
            getattr(game, "game_pointer", None),
            str(getattr(game, "stage", "")),
        )

    def determinize(self, state: EnvState, player: int, rng: random.Random) -> EnvState:
        env, book = self.clone_state(state)
        game = env.unwrapped.env.game
        others = [p for i, p in enumerate(game.players) if i != player]
        unseen = [c for p in others for c in _cards(p.hand)] + list(game.dealer.deck)
        unseen.sort(key=_card)  # a canonical order first: the true order is hidden information
        rng.shuffle(unseen)
        dealt = iter(unseen)
        for p in others:
            if isinstance(p.hand, list):
                p.hand = [next(dealt) for _ in p.hand]
            else:
                p.hand = next(dealt)
        game.dealer.deck = list(dealt)
        game.np_random.seed(rng.getrandbits(32))  # one RandomState, shared by the dealer
        world = self._state(env, book, list(state.rewards))
        return world


def _cards(hand: Any) -> list[Any]:
    return list(hand) if isinstance(hand, list) else [hand]


def rlcard_game(
    env: Any, raw: Any, *, oracle: bool = False, clone: bool = False
) -> tuple[RLCardPoker | RLCardGame, Any]:
    """The game and root state for a live rlcard poker env (``CloneError`` for other games):
    a rules core where ``core_game`` reads the env (unless ``clone``, which forces the old clone
    path, kept for comparison), else ``RLCardGame`` over a verified clone."""
    agents, selected, terminations, truncations = bookkeeping(env)
    check_live(env, agents, selected, terminations, truncations)
    game_type = type(raw.env.game).__name__
    if game_type not in _HOLDEM:
        raise CloneError(
            f"{describe_env(env)} hides its players' cards and no redeal is written for "
            f"rlcard's {game_type}, so it cannot be searched without peeking; supported: "
            "leduc_holdem_v4, texas_holdem_v4, texas_holdem_no_limit_v6 "
            "(information='oracle' searches the true state, a cheat, only on purpose)"
        )
    if not clone:
        found = core_game(env, raw, oracle=oracle)
        if found is not None:
            return found
    most, unit = _HOLDEM[game_type]
    if most is None:
        most = max(raw.env.game.init_chips)
    players = raw.num_players
    return_range = (-most / unit, (players - 1) * most / unit)
    memo: Memo = {}
    clone_env = verified_clone(env, memo)
    game = RLCardGame(clone_env, memo, return_range)
    root = game.root(clone_env)
    if root.terminal:
        raise GameOverError(f"the game in {env} is over")
    game.legal_actions(root)  # raises NoLegalActionError for a stuck live env
    return game, root


# --------------------------------------------------------------------------- the rules cores
#: PettingZoo env name -> (its module, rlcard's game class, the core's constructor)
_CORES = {
    "leduc_holdem_v4": (
        "pettingzoo.classic.rlcard_envs.leduc_holdem",
        "rlcard.games.leducholdem.game",
        "LeducholdemGame",
    ),
    "texas_holdem_v4": (
        "pettingzoo.classic.rlcard_envs.texas_holdem",
        "rlcard.games.limitholdem.game",
        "LimitHoldemGame",
    ),
    "texas_holdem_no_limit_v6": (
        "pettingzoo.classic.rlcard_envs.texas_holdem_no_limit",
        "rlcard.games.nolimitholdem.game",
        "NolimitholdemGame",
    ),
}
_SUITS, _RANKS = "SHDC", "A23456789TJQK"


@functools.cache
def poker_core(name: str) -> RLCardPoker:
    """The rules core of a PettingZoo env name: ``leduc_holdem_v4``, ``texas_holdem_v4`` or
    ``texas_holdem_no_limit_v6``."""
    if name == "leduc_holdem_v4":
        return RLCardLeduc()
    if name == "texas_holdem_v4":
        return LimitHoldem()
    if name == "texas_holdem_no_limit_v6":
        return NoLimitHoldem()
    raise CloneError(
        f"no rules core for {name!r}; expected leduc_holdem_v4, texas_holdem_v4 or "
        "texas_holdem_no_limit_v6"
    )


def core_game(env: Any, raw: Any, *, oracle: bool = False) -> tuple[RLCardPoker, CoreState] | None:
    """The rules core and the state of the live env ``env`` (``raw`` its unwrapped env) from the
    player to move's view (module docstring), or ``None`` when the env does not take this path.

    Reads the player to move's cards, the public cards and the public betting state only; with
    ``oracle`` also the other seat's cards (the true state, for ``information="oracle"``).
    """
    name = raw.metadata.get("name") if isinstance(getattr(raw, "metadata", None), dict) else None
    if name not in _CORES:
        return None
    env_module, game_module, game_class = _CORES[name]
    module, rlcard_module = sys.modules.get(env_module), sys.modules.get(game_module)
    game = getattr(getattr(raw, "env", None), "game", None)
    if (
        module is None
        or rlcard_module is None
        or type(raw) is not getattr(module, "raw_env", None)
        or type(game) is not getattr(rlcard_module, game_class, None)
        or any(
            not type(w).__module__.startswith("pettingzoo.utils.wrappers")
            for w in wrapper_chain(env)[:-1]
        )
    ):
        return None
    core = poker_core(name)
    try:
        return _read(core, raw, game, oracle)
    except (AttributeError, TypeError, ValueError, IndexError):
        return None  # not a state of these rules (set by hand): the clone path steps it


def _limit_fact(core: RLCardPoker, game: Any) -> tuple[Any, ...] | None:
    """rlcard's public betting state of a limit game as the core's facts (see ``rlcard_poker``)."""
    rnd, rnd_state = game.round_counter, game.round
    if (
        game.allowed_raise_num != core.raise_cap
        or game.raise_amount != core.raise_amounts[0]
        or rnd_state.raise_amount != core.raise_amounts[rnd]
    ):
        return None
    history = tuple(game.history_raise_nums[:rnd]) if core.keep_raise_history else ()
    return (
        rnd,
        game.game_pointer,
        *(int(x) for x in rnd_state.raised),
        int(rnd_state.have_raised),
        int(rnd_state.not_raise_num),
        *(int(p.in_chips) for p in game.players),
        history,
    )


def _nolimit_fact(game: Any) -> tuple[Any, ...] | None:
    """rlcard's public betting state of no-limit hold'em as ``NoLimitHoldem``'s facts."""
    players = game.players
    if list(game.init_chips) != [STACK, STACK] or any(
        p.in_chips + p.remained_chips != STACK for p in players
    ):
        return None
    statuses = {"ALIVE": ALIVE, "FOLDED": OUT, "ALLIN": ALLIN}
    return (
        game.round_counter,
        game.game_pointer,
        *(int(x) for x in game.round.raised),
        *(int(p.in_chips) for p in players),
        int(game.round.not_raise_num),
        int(game.round.not_playing_num),
        *(statuses[p.status.name] for p in players),
        int(game.dealer_id),
    )


def _read(
    core: RLCardPoker, raw: Any, game: Any, oracle: bool
) -> tuple[RLCardPoker, CoreState] | None:
    """``core_game``'s reading (``None`` where the env is not at a state of the core)."""
    if game.num_players != 2 or (game.small_blind, game.big_blind) != (1, 2):
        return None
    player = raw.possible_agents.index(raw.agent_selection)
    rnd, rnd_state = game.round_counter, game.round
    if player != game.game_pointer or not 0 <= rnd < core.rounds:
        return None
    if rnd_state.game_pointer != player:
        return None
    fact = _nolimit_fact(game) if isinstance(core, NoLimitHoldem) else _limit_fact(core, game)
    node = None if fact is None else core.betting_node(fact)
    if node is None:
        return None
    leduc = isinstance(core, RLCardLeduc)

    def card(c: Any) -> int:
        if leduc:
            return "JQK".index(c.rank)
        return _SUITS.index(c.suit) * 13 + _RANKS.index(c.rank)

    def hand(p: Any) -> list[int]:
        return [card(c) for c in (p.hand if isinstance(p.hand, list) else [p.hand])]

    if leduc:
        board = [] if game.public_card is None else [card(game.public_card)]
    else:
        board = [card(c) for c in game.public_cards]
    own = hand(game.players[player])
    if oracle:
        other = hand(game.players[1 - player])
    else:  # the lowest cards the player has not seen: a placeholder, redealt by the search
        other = []
        for _ in range(core.hole):
            other.append(core.deck_outcomes((*own, *board, *other))[0][0])
    hands = (own, other) if player == 0 else (other, own)
    state = (node, (*hands[0], *hands[1], *board))
    core.check_state(state)
    if core.legal_actions(state) != sorted(raw.next_legal_moves):
        return None
    return core, state
