"""Compiled searchers searched as one batch (``mcts_agents.batch_search``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from mcts_agents.result import SearchResult


def search_compiled(
    searchers: Sequence[Any], games: Sequence[Any], states: Sequence[Any]
) -> list[SearchResult]:
    """Each searcher's search of its state (distinct searchers)."""
    return [s.search(g, st) for s, g, st in zip(searchers, games, states, strict=True)]
