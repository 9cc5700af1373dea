"""When ``mcts-agents gtp`` resigns: GTP's ``resign`` answer to ``genmove`` for a lost game.

The engine resigns when the searched move's win probability for the player to move (its value
``v`` in [-1, 1] read as ``(v + 1) / 2``) is under the threshold (``--resign-threshold``,
default ``DEFAULT_RESIGN_THRESHOLD`` = 0.05, a value of -0.9 or less; 0: never), once the search
ran at least ``RESIGN_MIN_SIMULATIONS`` simulations and at least ``points // 4`` moves are on
the record (20 on 9x9: no resignation in the opening). An agent without a search result
(``random``, ``policy:``) never resigns.
"""

from __future__ import annotations

import argparse
import logging
import math

from mcts_agents.search.result import SearchResult

__all__ = ["DEFAULT_RESIGN_THRESHOLD", "RESIGN_MIN_SIMULATIONS", "resign_type", "resigns"]

logger = logging.getLogger(__name__)

#: the searched move's win probability under which ``genmove`` resigns (0: never).
DEFAULT_RESIGN_THRESHOLD = 0.05
#: the fewest simulations behind a resignation (Go's compiled search always runs this many).
RESIGN_MIN_SIMULATIONS = 1000
#: the highest threshold accepted: above one half the engine would resign games it leads.
MAX_RESIGN_THRESHOLD = 0.5


def resigns(result: object, to_play: int, moves: int, points: int, threshold: float) -> bool:
    """Whether the search ``result`` (a ``SearchResult``, or anything else: no) of the position
    with ``to_play`` to move, ``moves`` moves into a game on ``points`` points, says to resign
    at ``threshold``."""
    if not threshold or not isinstance(result, SearchResult) or result.to_play != to_play:
        return False
    if moves < points // 4 or result.iterations < RESIGN_MIN_SIMULATIONS:
        return False
    best = next((c for c in result.children if c.action == result.best_action), None)
    if best is None or not best.visits:
        return False
    win = (best.value + 1.0) / 2.0
    if win >= threshold:
        return False
    logger.info("resigning: win probability %.3f after %d simulations", win, result.iterations)
    return True


def resign_type(text: str) -> float:
    """``--resign-threshold``'s argparse type: a decimal win probability in [0, 0.5]."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0.0 <= value <= MAX_RESIGN_THRESHOLD or "_" in text or not text.isascii():
        raise argparse.ArgumentTypeError(
            f"must be a win probability in [0, {MAX_RESIGN_THRESHOLD}] (0: never resign), "
            f"got {text!r}"
        )
    return value
