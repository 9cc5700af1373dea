"""Every example runs in its quick mode as a script and prints what it promises."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"


def run(script: str, *args: str, stdin: str = "", code: str | None = None) -> tuple[int, str]:
    """Run ``examples/<script>`` (or ``python -c code``) from the checkout; rc and output."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    command = [sys.executable, "-c", code] if code else [sys.executable, str(EXAMPLES / script)]
    done = subprocess.run(
        [*command, *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=120,
    )
    return done.returncode, done.stdout + done.stderr


def test_pettingzoo_loop_example_runs() -> None:
    rc, out = run("pettingzoo_loop.py", "--quick")
    assert rc == 0, out
    for name in ("connect_four_v0", "connect_four_v3"):
        assert re.search(rf"== {name}: MCTS \(\d+ iterations/move\) as X vs random as O", out)
    # seeded: MCTS beats the random agent on both envs
    assert len(re.findall(r"winner: player_0 \(MCTS\) after \d+ moves", out)) == 2, out
    assert "0123456" in out  # the final boards


def test_evaluate_policy_vs_mcts() -> None:
    rc, out = run("evaluate_policy_vs_mcts.py", "--quick")
    assert rc == 0, out
    assert "round robin, 4 games per pair, 24 games" in out
    assert "Elo anchored at 'random'" in out
    for name in ("heuristic", "mcts10", "mcts50", "random"):
        assert re.search(rf"^{name}\s+12\s", out, re.MULTILINE), out
    assert re.search(r"heuristic: Elo [+-]\d+ \(95% CI [+-]\d+ \.\. [+-]\d+\) vs random = 0", out)


def test_human_vs_mcts_re_asks_bad_moves() -> None:
    columns = "\n".join(str(c) for c in [0, 1, 2, 4, 5, 6] * 7)
    rc, out = run("human_vs_mcts.py", "--quick", stdin=f"abc\n9\n3\n3\n3\n3\n3\n3\n3\n{columns}\n")
    assert rc == 0, out
    assert "'abc' is not a number" in out
    assert "9 is not a legal move here" in out
    assert "3 is not a legal move here" in out  # column 3 filled up
    assert re.search(r"MCTS plays \d \(\d+ visits, value [+-]\d\.\d\d\)", out)
    assert re.search(r"^(you win!|MCTS wins|a draw)$", out, re.MULTILINE), out


def test_human_vs_mcts_end_of_input_quits() -> None:
    rc, out = run("human_vs_mcts.py", "--quick", "--game", "tic_tac_toe", stdin="4\n")
    assert rc == 1
    assert "end of input" in out and "you left the game" in out


def test_train_maskable_ppo_vs_mcts() -> None:
    pytest.importorskip("sb3_contrib")
    rc, out = run("train_maskable_ppo_vs_mcts.py", "--quick")
    assert rc == 0, out
    assert "-- trained 2048 steps" in out
    # not silent while it trains: a line per rollout (of 1024 steps)
    rollouts = re.findall(r"^rollout +(\d+): +(\d+)/2048 steps .* won \d+%", out, re.MULTILINE)
    assert rollouts == [("1", "1024"), ("2", "2048")], out
    rates = re.findall(r"win rate (before|after) training: +(\d\.\d+)", out)
    assert [r[0] for r in rates] == ["before", "after"], out
    assert all(0.0 <= float(r[1]) <= 1.0 for r in rates)


def test_train_maskable_ppo_without_the_rl_extra_says_so() -> None:
    code = (
        "import runpy, sys; sys.modules['sb3_contrib'] = None; "
        f"sys.argv = ['train', '--quick']; "
        f"runpy.run_path({str(EXAMPLES / 'train_maskable_ppo_vs_mcts.py')!r}, run_name='__main__')"
    )
    rc, out = run("", code=code)
    assert rc == 2
    assert "needs the 'rl' extra" in out and 'pip install ".[rl]"' in out


def test_alphazero_connect_four() -> None:
    pytest.importorskip("torch")
    rc, out = run("alphazero_connect_four.py", "--quick")
    assert rc == 0, out
    assert re.search(r"^iteration +2 +step +8 +loss \d\.\d{3}", out, re.MULTILINE), out
    assert "-- 8 training steps in all (2 iterations in" in out
    # the network as last trained against each yardstick (not best.pt, untrained before a gate)
    scores = re.findall(
        r"^score of the network: ([\d.]+) / 2 \(\d wins, \d draws, \d losses\) vs (\S+)$",
        out,
        re.MULTILINE,
    )
    assert [s[1] for s in scores] == ["random", "mcts:iterations=100"], out
    assert all(0 <= float(s[0]) <= 2 for s in scores)
    assert "checkpoint.pt" in out
    # what to expect, and the command of the documented result
    assert "85.1% against MCTS 1000 after 45 minutes" in out
    assert "python -m benchmarks.gumbel c4 --out runs/c4t --minutes 45" in out
