"""What a game needs for each information mode, and where ``search_from="auto"`` starts.

``check_game`` refuses, before any simulation, a game that lacks what the mode needs (ISMCTS's,
PIMC's, the compiled ISMCTS's). ``search_from_start`` resolves ``search_from``: ``"auto"`` searches
from the current information set where the game can draw worlds of it, else from the start of the
game (OpenSpiel's ``liars_dice``, ``phantom_ttt``, ``dark_hex``: ``can_determinize`` False).
"""

from __future__ import annotations

from mcts_agents.errors import InvalidOptionError
from mcts_agents.search.game import Game
from mcts_agents.search.searcher import game_name

__all__ = ["check_game", "search_from_start"]


def search_from_start(game: Game, search_from: str) -> bool:
    """Whether ISMCTS's simulations of ``game`` begin at its start: ``"start"``, or ``"auto"``
    for a game that cannot draw worlds of an information set (``can_determinize`` False) and
    has a start (``initial_state``)."""
    if search_from != "auto":
        return search_from == "start"
    cannot = not getattr(game, "can_determinize", True)
    return cannot and callable(getattr(game, "initial_state", None))


def check_game(game: Game, from_start: bool, mode: str) -> None:
    """``InvalidOptionError`` naming what ``game`` lacks for ``mode`` (``"mo_ismcts"``,
    ``"so_ismcts"``, ``"pimc"``): information sets (``information_set``) always; worlds drawn
    from one (``determinize``, and ``can_determinize`` not False) for a search from here;
    the game's start (``initial_state``) for ``search_from="start"``."""
    name = game_name(game)
    needs = ([] if mode == "pimc" else ["information_set"]) + (
        ["initial_state"] if from_start else ["determinize"]
    )
    missing = [m for m in needs if not callable(getattr(game, m, None))]
    if missing:
        where = "search_from='start'" if from_start else "search_from='here'"
        raise InvalidOptionError(
            f"information={mode!r} with {where} needs {' and '.join(needs)} of the game; "
            f"{name} has no {' and no '.join(missing)}"
            + ("" if from_start else " (search_from='start' needs initial_state instead)")
        )
    if not from_start and not getattr(game, "can_determinize", True):
        raise InvalidOptionError(
            f"information={mode!r} draws worlds from the player's information set, which "
            f"{name} cannot (its rules do not implement a redeal: OpenSpiel's "
            "resample_from_infostate); search_from='start' deals from the start instead"
            + (" (ISMCTS only)" if mode == "pimc" else "")
        )
