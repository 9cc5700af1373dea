"""The ladders' definition, as data: each game's levels (agent specs, L0 first) and, for the
games whose returns are chips, the hands of one rating unit. ``agents.ladder`` reads them (and
exports them); ``benchmarks/ladder.py`` calibrates them. Kept apart so that retuning a game's
levels touches this file only."""

from __future__ import annotations

__all__ = ["HANDS", "LEVEL_SPECS"]

_ISMCTS = ",information=mo_ismcts,backend=python"  # the calibrated levels: the Python ISMCTS

#: game -> its levels' agent specs, L0 first: the ladders' definition, for every game of the
#: ladder (calibrated or not). Iteration budgets roughly doubling (never time), fixed options;
#: the hidden-information games search information sets (MO-ISMCTS). A top level with a large
#: budget on a small game is a perfect player through MCTS-Solver (it stops once the root is
#: proven). ``benchmarks/ladder.py`` calibrates these; the exact lists follow its findings.
LEVEL_SPECS: dict[str, tuple[str, ...]] = {
    "tic_tac_toe": (
        "random",
        "mcts:iterations=2",
        "mcts:iterations=6",
        "mcts:iterations=16",
        "mcts:iterations=20000",
    ),
    "connect_four": (
        "random",
        *(f"mcts:iterations={n}" for n in (2, 4, 8, 16, 32, 64, 128, 256, 640, 1600, 4000)),
        "mcts:iterations=10000",
    ),
    # Othello: about 100-130 Elo per doubling of the budget at the low end, so the levels start
    # 2-2.5 times apart; 8,192 iterations scored 23/40 against 4,096 in a probe.
    "othello": (
        "random",
        *(f"mcts:iterations={n}" for n in (2, 5, 12, 26, 50, 100, 160, 256, 640, 1600)),
        "mcts:iterations=4096",
    ),
    # Ultimate tic-tac-toe: strength grows steadily with the budget (about 170 Elo a doubling
    # above 48 iterations), so the levels are about 1.8 times apart and the top is where the
    # calibration's CPU time ended, not where the search stops gaining strength.
    "ultimate_tic_tac_toe": (
        "random",
        *(f"mcts:iterations={n}" for n in (2, 5, 16, 48, 100, 180, 330, 600, 1100, 2000, 3600)),
        "mcts:iterations=6500",
        "mcts:iterations=12000",
        "mcts:iterations=24000",
        "mcts:iterations=48000",
        "mcts:iterations=96000",
    ),
    "mnk_5x5x4": (
        "random",
        *(f"mcts:iterations={n}" for n in (3, 10, 32, 80, 160, 360, 1000)),
        "mcts:iterations=4096",
    ),
    "nim": (
        "random",
        *(f"mcts:iterations={n}" for n in (2, 5, 10, 16, 24, 40)),
        "mcts:iterations=10000",
    ),
    # MO-ISMCTS on Kuhn poker has three tiers (duplicate chips, 300 deals a pair): 1 iteration
    # is random; 2 to 16 play alike; 32 to 256 alike, above the 2-16 tier; 1024 beats the
    # 2-16 tier by more but loses chips to 32-256 (not transitive), so the top is 64.
    "kuhn_poker": ("random", *(f"mcts:iterations={n}{_ISMCTS}" for n in (2, 64))),
    # On Leduc hold'em (duplicate chips, 300 deals a pair): 2-3 iterations are one tier, 6-30
    # the next, then 100, 300 (0.4 chips a deal above 100) and 1000 (1.1 above 100).
    "leduc_holdem": ("random", *(f"mcts:iterations={n}{_ISMCTS}" for n in (3, 30, 100, 1000))),
}

#: game -> hands per rating unit, for the games whose returns are chips (1 for the others: a
#: unit is one game, scored win 1 / draw 1/2 / loss 0). A chip game's unit is a duplicate match
#: of ``hands // 2`` deals, each dealt twice (the same env seed) with the seats swapped, scored
#: by the agent's summed chips over its ``hands`` hands: 1 above 0, 1/2 at 0, 0 below. A single
#: hand is mostly card luck; playing each deal from both seats cancels the luck of the cards,
#: and summing hands lets a small edge in chips show in the unit's score.
HANDS: dict[str, int] = {"kuhn_poker": 6, "leduc_holdem": 6}
