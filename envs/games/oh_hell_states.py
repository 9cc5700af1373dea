"""Oh Hell's state checks, kept apart from the rules (``oh_hell.py``) for size: ``check_state``
and ``is_reachable`` of ``OhHell`` call these.

``check_state`` is exact: it rebuilds the state from its deal (the number of tricks, the dealer,
the hands as dealt and the trump card) and its public history, checking every bid and card
against the rules on the way, and compares the result with the state field by field. That
costs one pass over the history (at most ``players * (tricks + 1)`` actions).
"""

from __future__ import annotations

from typing import Any

from mcts_agents.envs.core.checks import int_field, ints_field, invalid, short, state_fields
from mcts_agents.envs.core.game import CHANCE

#: The rules core these functions check (``OhHell``; not imported: it imports this module).
Game = Any
State = tuple[Any, ...]

FIELDS = (
    "tricks",
    "dealer",
    "dealt",
    "trump",
    "hands",
    "initial",
    "history",
    "to_play",
    "won",
    "trick",
    "voids",
    "played",
)


def check_state(game: Game, state: object) -> None:
    """``InvalidStateError`` naming the first field that disagrees with the rules."""
    name, n, cards = game.name, game.players, game.num_cards
    fields = state_fields(name, state, FIELDS)
    tricks, dealer, dealt, trump, hands, initial, history = fields[:7]
    int_field(name, "tricks", tricks, 0, game.max_tricks)
    if game.num_tricks_fixed > 0 and tricks not in (0, game.num_tricks_fixed):
        invalid(name, f"tricks {tricks}: this game always deals {game.num_tricks_fixed}")
    int_field(name, "dealer", dealer, -1, n - 1)
    int_field(name, "dealt", dealt, 0, n * tricks + 1)
    int_field(name, "trump", trump, -1, cards - 1)
    full = (1 << cards) - 1
    for field, value in (("hands", hands), ("initial", initial)):
        ints_field(name, field, value, n, 0, full)
    ints_field(name, "won", fields[8], n, 0, tricks)
    if type(history) is not tuple or len(history) > n * (tricks + 1):
        invalid(name, f"history must be a tuple of at most {n * (tricks + 1)} actions")
    for i, action in enumerate(history):
        int_field(name, f"history[{i}]", action, 0, game.num_actions - 1)
    int_field(name, "to_play", fields[7], -4, n - 1)
    int_field(name, "voids", fields[10], 0, (1 << (n * game.num_suits)) - 1)
    int_field(name, "played", fields[11], 0, full)
    trick = fields[9]
    if trick is not None and (type(trick) is not tuple or len(trick) != 3):
        invalid(name, f"trick must be None or (led suit, best card, its player), got {trick!r}")
    if trick is not None:
        for field, value in zip(("led suit", "best card", "its player"), trick, strict=True):
            int_field(name, f"trick's {field}", value, 0, cards - 1)
    expected = _rebuild(game, tricks, dealer, dealt, trump, initial, history)
    for field, got, want in zip(FIELDS, fields, expected, strict=True):
        if got != want:
            invalid(name, f"{field} is {short(got)}; the deal and the history give {short(want)}")


def _rebuild(
    game: Game,
    tricks: int,
    dealer: int,
    dealt: int,
    trump: int,
    initial: tuple[int, ...],
    history: tuple[int, ...],
) -> State:
    """The state that the deal and ``history`` lead to, checking each step on the way."""
    name, n = game.name, game.players
    zeros = (0,) * n
    if not tricks or dealer < 0:  # the deal has not started: nothing else may be set
        return (tricks, dealer, 0, -1, zeros, zeros, (), CHANCE, zeros, None, 0, 0)
    seen = 0
    for q, hand in enumerate(initial):
        if seen & hand:
            invalid(name, f"a card is dealt twice: {seen & hand:#x} (player {q})")
        seen |= hand
    for q, hand in enumerate(initial):
        size = len(range(q, min(dealt, n * tricks), n))  # card i of the deal goes to i % n
        if hand.bit_count() != size:
            invalid(name, f"player {q} holds {hand.bit_count()} cards after {dealt} dealt")
    if dealt <= n * tricks:  # still dealing: no trump card, no bids yet
        return (tricks, dealer, dealt, -1, initial, initial, (), CHANCE, zeros, None, 0, 0)
    if trump < 0 or seen >> trump & 1:
        invalid(name, f"trump card {trump}: expected a card of the deck not in a hand")
    state: Any = (tricks, dealer, dealt, trump, initial, initial, (), (dealer + 1) % n)
    state = (*state, zeros, None, 0, 0)
    for i, action in enumerate(history):
        if action not in game.legal_actions(state):
            invalid(name, f"history[{i}] = {action} is not legal there (over, or against a rule)")
        state = game.next_state(state, action)
    return state


def is_reachable(game: Game, state: State, key: object) -> bool:
    """The deal and the history only grow: the number of tricks, the dealer and the trump card
    once set stay, every dealt card stays in its hand as dealt, the history keeps its start; a
    finished game reaches only itself."""
    if not isinstance(key, tuple) or len(key) != len(FIELDS):
        return False
    if game.is_terminal(state):
        return key == state
    tricks, dealer, dealt, trump = state[:4]
    if (tricks and key[0] != tricks) or (dealer >= 0 and key[1] != dealer) or key[2] < dealt:
        return False
    if trump >= 0 and key[3] != trump:
        return False
    now, later = state[5], key[5]
    if any(later[q] & hand != hand for q, hand in enumerate(now)):
        return False
    history = state[6]
    return bool(key[6][: len(history)] == history)
