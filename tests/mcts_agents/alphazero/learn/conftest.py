"""The az tests run torch on one thread: its tiny networks gain nothing from more, and on a busy
machine (pytest-xdist's workers, CI's two cores) torch's spinning threads slow each step a
hundredfold."""

from __future__ import annotations

try:
    import torch
except ImportError:  # the tests skip themselves (pytest.importorskip)
    pass
else:
    torch.set_num_threads(1)
