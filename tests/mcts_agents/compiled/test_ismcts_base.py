"""The compiled ISMCTS's shared parts (``compiled.ismcts_base``, ``compiled.ismcts_core``): both
searchers on one Python side and one core, with the results they gave before they shared them,
records of named options, small kernels, and no numba loaded by the planner's import."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("numba")

from mcts_agents import Budget, SearchConfig, make_searcher
from mcts_agents.compiled.holdem_search import HoldemISMCTS
from mcts_agents.compiled.ismcts import CompiledISMCTS
from mcts_agents.compiled.ismcts_base import InformationSetSearch
from mcts_agents.envs.games.kuhn_poker import KuhnPoker
from mcts_agents.envs.games.leduc_holdem import LeducHoldem
from mcts_agents.envs.games.limit_holdem import LimitHoldem
from mcts_agents.envs.games.nolimit_holdem import NoLimitHoldem
from mcts_agents.envs.games.rlcard_leduc import RLCardLeduc

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")  # rlcard's Box precision warnings
ROOT = Path(__file__).resolve().parents[3]
COMPILED = ROOT / "mcts_agents" / "compiled"
KUHN, LEDUC, RLCARD = KuhnPoker(), LeducHoldem(), RLCardLeduc()
LIMIT, NOLIMIT = LimitHoldem(), NoLimitHoldem()
DEAL = [12, 25, 3, 17, 0]  # as test_holdem_ismcts: SK HK against S4 H5, then the blind seat
FLOP, TURN, RIVER = [40, 8, 30], [51], [22]
HERE, START = {"search_from": "here"}, {"search_from": "start"}

#: (game, history, options, iterations, seed, max_nodes) -> (best action, iterations, search
#: from, self-play iterations, (action, visits) of the children, root value, nodes), as the two
#: kernels gave them before their selection and Python side were shared (commit 8d72e16): the
#: same seed gives the same search
BEFORE = [
    ((KUHN, [2, 0, 0], {}, 3000, 0, None),  # regret matching from the start
     (0, 3000, "start", 0, [(0, 393), (1, 244)], -0.47959183673469385, 12)),
    ((LEDUC, [0, 3], HERE, 3000, 0, None),
     (1, 3000, "here", 0, [(1, 1995), (2, 1005)], -0.10607692307692242, 371)),
    ((LEDUC, [0, 3, 2], {**HERE, "smooth": 0.1}, 3000, 7, None),
     (2, 3000, "here", 0, [(2, 1572), (1, 968), (0, 460)], -0.013051282051282058, 156)),
    ((RLCARD, [2, 1, 0], {**START, "smooth": 0.1}, 3000, 0, None),
     (1, 3000, "start", 0, [(1, 225), (0, 205), (2, 88)], 0.04026475455046873, 240)),
    ((LEDUC, [0, 3], {}, 100_000, 3, None),  # regret matching from the start
     (1, 100_000, "start", 0, [(1, 12209), (2, 4453)], -0.08568091373277167, 936)),
    ((LEDUC, [0, 3, 1, 2, 1, 4], START, 5000, 1, 300),
     (1, 5000, "start", 0, [(1, 11), (2, 8)], -0.1740890688259109, 300)),
    ((LIMIT, [*DEAL, 0, 3, *FLOP, 1], {"information": "so_ismcts"}, 4000, 0, None),
     (0, 4000, "here", 0, [(0, 1902), (1, 1439), (2, 659)], 0.009250000000000149, 1524)),
    ((NOLIMIT, [*DEAL, 1, 1, *FLOP, 2, 1, *TURN, 1, 1, *RIVER], START, 4000, 5, None),  # falls back
     (2, 8000, "here", 4000, [(2, 1116), (1, 934), (3, 772), (4, 722), (0, 456)],
      0.0075225000000001, 2329)),
    ((LIMIT, DEAL, HERE, 70_000, 2, None),  # the table grows
     (0, 70_000, "here", 0, [(0, 35226), (1, 29319), (2, 5455)], 0.014406571428572513, 38100)),
    ((NOLIMIT, [*DEAL, 4], {**HERE, "final_move": "robust_max"}, 4000, 0, None),
     (1, 4000, "here", 0, [(1, 3968), (0, 32)], 0.62909, 1)),
]  # fmt: skip


@pytest.mark.parametrize(("case", "before"), BEFORE)
def test_the_same_seed_gives_the_search_it_gave_before_the_shared_core(
    case: tuple, before: tuple
) -> None:
    game, history, options, iterations, seed, max_nodes = case
    budget = Budget(iterations=iterations, max_nodes=max_nodes)
    searcher = make_searcher(game, budget, SearchConfig(**options), seed)
    assert isinstance(searcher, InformationSetSearch)
    result = searcher.search(game, game.apply(game.initial_state(), history))
    best, n, where, self_play, children, value, nodes = before
    assert (result.best_action, result.iterations, result.search_from) == (best, n, where)
    assert result.self_play_iterations == self_play
    assert [(c.action, c.visits) for c in result.children] == children
    assert result.root_value == pytest.approx(value, abs=1e-12)
    assert result.nodes == nodes


def test_both_searchers_are_one_python_side() -> None:
    """What they share is written once: neither overrides the search loop, the fallback, the
    stored policy or the result."""
    for searcher in (CompiledISMCTS, HoldemISMCTS):
        assert issubclass(searcher, InformationSetSearch)
        for name in ("search", "_fallback", "stored_policy", "_result", "_root_stats", "reset"):
            assert name not in vars(searcher), (searcher.__name__, name)


def test_options_are_a_record_of_typed_fields() -> None:
    """``options`` casts each field to its declared type: a kernel compiles once whatever
    numbers a caller gives."""
    from mcts_agents.compiled.ismcts_core import Options, options

    made = options(c=1, smooth=0, low=-2, high=np.int64(2), eta=0.9, decay=0.001, from_start=1,
                   single=np.bool_(False), player=np.int64(1), max_nodes=0)  # fmt: skip
    kinds = {"c": float, "smooth": float, "high": float, "from_start": bool, "single": bool,
             "player": int, "max_nodes": int, "matching": bool, "estimate": int}  # fmt: skip
    for name, kind in kinds.items():
        assert type(getattr(made, name)) is kind, name
    assert made.player == 1 and made.high == 2.0 and made.from_start is True
    with pytest.raises(TypeError):
        options(c=1.0, flavour=8)  # no such field: a record has named fields only
    assert "flavour" not in Options._fields


def test_the_kernels_compile_once_for_every_option() -> None:
    from mcts_agents.compiled import holdem_kernel, ismcts_kernel

    for game, history in ((LEDUC, [0, 3]), (KUHN, [0, 1]), (LIMIT, DEAL)):
        state = game.apply(game.initial_state(), history)
        for options in ({}, HERE, {**START, "smooth": 0.1, "c": 1}, {"information": "so_ismcts"}):
            budget = Budget(iterations=500, max_nodes=400)
            make_searcher(game, budget, SearchConfig(**options), 0).search(game, state)
    assert len(ismcts_kernel.simulate.signatures) == 1
    assert len(holdem_kernel.simulate.signatures) == 1


def _compiled_functions(path: Path) -> list[tuple[str, int]]:
    tree = ast.parse(path.read_text())
    return [
        (node.name, len(node.args.args) + len(node.args.kwonlyargs))
        for node in tree.body
        if isinstance(node, ast.FunctionDef)
        and any("njit" in ast.unparse(d) for d in node.decorator_list)
    ]


@pytest.mark.parametrize("module", ["ismcts_core", "ismcts_kernel", "holdem_kernel"])
def test_no_compiled_function_of_the_ismcts_kernels_takes_more_than_12_parameters(
    module: str,
) -> None:
    functions = _compiled_functions(COMPILED / f"{module}.py")
    assert functions
    assert [f for f in functions if f[1] > 12] == []


def test_the_planners_import_of_the_compiled_ismcts_loads_no_numba() -> None:
    """numba is an extra: the searchers' modules load it only with a kernel."""
    script = (
        "import sys\n"
        "import mcts_agents.planner.choice, mcts_agents.compiled.ismcts\n"
        "import mcts_agents.compiled.holdem_search\n"
        "assert 'numba' not in sys.modules, 'numba loaded'\n"
    )
    env: dict[str, Any] = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
