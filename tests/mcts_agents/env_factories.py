"""Env factories that specs name as ``module:factory`` in the tests (importable by path)."""

from __future__ import annotations

from typing import Any

from pettingzoo.classic import rps_v2

from mcts_agents.envs import connect_four_v0


def small_connect_four() -> Any:
    """A zero-argument factory: Connect Four on a 5x4 board."""
    return connect_four_v0.env(width=5, height=4)


def sized_connect_four(width: int = 7, height: int = 6, render_mode: str | None = None) -> Any:
    """A factory with options."""
    return connect_four_v0.env(width=width, height=height, render_mode=render_mode)


def parallel_rps() -> Any:
    return rps_v2.parallel_env()


def not_an_env() -> int:
    return 42


def broken() -> Any:
    raise RuntimeError("the factory broke")
