"""Every information mode, ``search_from`` and Smooth UCT on every hidden-information game.

Games: our cores (Kuhn, Leduc, phantom tic-tac-toe, Oh Hell), ``openspiel_v0`` (Kuhn, Leduc,
euchre, and phantom tic-tac-toe, which OpenSpiel cannot redeal), Shimmy's OpenSpiel env and
PettingZoo's rlcard Leduc. Each combination either plays (whole games for the small ones: the
agent in every seat, with the mode's own answer) or is refused before any search with an
``InvalidOptionError`` naming what is missing: ISMCTS's options (``search_from``, ``smooth``)
for PIMC and the oracle, a redeal for a search from the information set of a game without one,
a start of the game for ``search_from="start"`` on an env cloned as a whole.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable
from typing import Any

import pytest

from mcts_agents import MCTSAgent
from mcts_agents.errors import InvalidOptionError

pytest.importorskip("pyspiel")


def ours(module: str, **kwargs: Any) -> Callable[[], Any]:
    def make() -> Any:
        from mcts_agents import envs

        return envs.load(module).env(**kwargs)

    return make


def shimmy(name: str) -> Callable[[], Any]:
    def make() -> Any:
        import shimmy as shimmy_module

        return shimmy_module.OpenSpielCompatibilityV0(game_name=name)

    return make


def rlcard_leduc() -> Any:
    pytest.importorskip("rlcard")
    from pettingzoo.classic import leduc_holdem_v4

    return leduc_holdem_v4.env()


#: (id, env factory, whole games (else the first decision only), can draw worlds, has a start)
GAMES = [
    ("kuhn", ours("kuhn_poker_v0"), True, True, True),
    ("leduc", ours("leduc_holdem_v0"), True, True, True),
    ("phantom_ttt", ours("phantom_mnk_v0", preset="phantom_ttt"), True, True, True),
    ("oh_hell", ours("oh_hell_v0"), False, True, True),
    ("openspiel:kuhn", ours("openspiel_v0", game="kuhn_poker"), True, True, True),
    ("openspiel:leduc", ours("openspiel_v0", game="leduc_poker"), True, True, True),
    ("openspiel:euchre", ours("openspiel_v0", game="euchre"), False, True, True),
    ("openspiel:phantom_ttt", ours("openspiel_v0", game="phantom_ttt"), True, False, True),
    ("shimmy:kuhn", shimmy("kuhn_poker"), False, True, True),
    ("shimmy:leduc", shimmy("leduc_poker"), False, True, True),
    ("rlcard:leduc", rlcard_leduc, False, True, None),  # None: a start if its adapter has one
]
MODES = list(
    itertools.product(
        ["auto", "mo_ismcts", "so_ismcts", "pimc", "oracle"], ["here", "start"], [None, 0.1]
    )
)


def refusal(mode: str, search_from: str, smooth: float | None, worlds: bool) -> str | None:
    """What the mode's refusal names, or None where it must play."""
    if mode in ("pimc", "oracle") and (search_from != "here" or smooth is not None):
        return "Information Set MCTS's"
    if mode != "oracle" and search_from == "here" and not worlds:
        return "resample_from_infostate"
    return None


def play(env: Any, agent: MCTSAgent, whole: bool, seed: int) -> list[Any]:
    """The agent in every seat (the same searcher: each seat's decisions from its own
    information sets); the results of its searches."""
    results = []
    rng = random.Random(seed)
    for _ in env.agent_iter():
        _, _, termination, truncation, _ = env.last()
        if termination or truncation:
            env.step(None)
            continue
        result = agent.search(env)
        results.append(result)
        if not whole:
            break
        legal = [a for a, _ in sorted((c.action, c.visits) for c in result.children)]
        assert result.best_action in legal
        env.step(result.best_action if rng.random() < 0.9 else rng.choice(legal))
    return results


@pytest.mark.parametrize(
    ("mode", "search_from", "smooth"), MODES, ids=[f"{m}-{f}-{s}" for m, f, s in MODES]
)
@pytest.mark.parametrize(
    ("name", "factory", "whole", "worlds", "start"), GAMES, ids=[g[0] for g in GAMES]
)
def test_every_mode_plays_or_is_refused_clearly(
    name: str,
    factory: Callable[[], Any],
    whole: bool,
    worlds: bool,
    start: bool | None,
    mode: str,
    search_from: str,
    smooth: float | None,
) -> None:
    env = factory()
    env.reset(seed=3)
    agent = MCTSAgent(
        iterations=30, seed=0, information=mode, search_from=search_from, smooth=smooth
    )
    expected = refusal(mode, search_from, smooth, worlds)
    ismcts = mode in ("auto", "mo_ismcts", "so_ismcts")
    if expected is None and ismcts and search_from == "start" and start is not True:
        try:
            play(env, agent, whole, seed=1)
        except InvalidOptionError as error:  # an adapter without the game's start
            assert "initial_state" in str(error) and "search_from='start'" in str(error)
        return
    if expected is not None:
        with pytest.raises(InvalidOptionError, match=expected):
            play(env, agent, whole, seed=1)
        return
    results = play(env, agent, whole, seed=1)
    assert results
    for result in results:
        if ismcts:
            assert result.iterations >= 30 and result.proven is None
            assert result.information == ("so_ismcts" if mode == "so_ismcts" else "mo_ismcts")
            assert result.search_from in (search_from, "here")  # "here": self-play fell short
        elif mode == "pimc":
            assert result.information == "pimc" and result.proven is None
            assert 1 <= result.iterations <= 30  # a world stops once its solver has proven it
        else:  # the oracle: MCTS on the true state
            assert result.information not in ("mo_ismcts", "so_ismcts", "pimc")


@pytest.mark.parametrize("game", ["liars_dice", "phantom_ttt", "dark_hex"])
def test_auto_searches_from_the_start_where_openspiel_cannot_redeal(
    game: str, capfd: pytest.CaptureFixture[str]
) -> None:
    """``search_from="auto"`` (the default) failed on these games, which OpenSpiel cannot redeal
    (``resample_from_infostate``), and every env made printed OpenSpiel's refusal on stderr.
    Now ``auto`` searches them from the start, and the refusal is printed once a process."""
    results = []
    for seed in range(3):  # three envs, as an arena makes one a game
        env = ours("openspiel_v0", game=game)()
        env.reset(seed=seed)
        results.append(MCTSAgent(iterations=30, seed=seed).search(env))
    assert all(r.search_from == "start" and r.iterations >= 30 for r in results)
    assert capfd.readouterr().err.count("ResampleFromInfostate") <= 1
    here = MCTSAgent(iterations=30, seed=0, search_from="here")  # asked for: refused, naming why
    with pytest.raises(InvalidOptionError, match="resample_from_infostate"):
        here.search(env)
