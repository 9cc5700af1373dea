"""One way to derive seeds: a game's seed from a match seed, an agent's from a game's, a worker's
from a search's. ``numpy.random.SeedSequence`` mixes the parts, so nearby inputs give unrelated
seeds, the same inputs the same seed on every platform and run."""

from __future__ import annotations

import numpy as np

__all__ = ["derive_seed"]


def derive_seed(*parts: int) -> int:
    """A 32-bit seed from integers (e.g. the match seed and a game index)."""
    return int(np.random.SeedSequence([int(p) for p in parts]).generate_state(1)[0])
