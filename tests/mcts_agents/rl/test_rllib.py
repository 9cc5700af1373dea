"""RLlib's tests (``rllib_cases.py``) in a Python process of their own.

Ray and RLlib leave the process that ran them changed: run in the same process before the web
server's tests, a later test's read of pytest's captured stderr (``capfd``) met a closed file
and pytest lost ``sys.stderr`` for every test after it. In a process of their own they share
nothing with the other tests; the cases and their skips are ``rllib_cases.py``'s.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).parent
ROOT = HERE.parents[2]


def rllib_installed() -> bool:
    """Whether RLlib and torch import, asked of another process: importing ``ray.rllib`` here
    would already change this one (it sets up logging on the stderr of the moment)."""
    probe = [sys.executable, "-c", "import ray.rllib, torch"]
    return subprocess.run(probe, capture_output=True, timeout=300).returncode == 0


pytestmark = pytest.mark.skipif(
    not rllib_installed(), reason="Ray's RLlib or torch is not installed (the rllib extra)"
)


def test_the_rllib_cases_pass_in_a_process_of_their_own() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly",
         str(HERE / "rllib_cases.py")],
        capture_output=True, text=True, timeout=1200, cwd=ROOT,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-3000:]
    assert " passed" in done.stdout and " skipped" not in done.stdout, done.stdout[-2000:]
