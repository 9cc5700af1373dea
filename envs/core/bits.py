"""Bitboards (Python ints) to numpy planes, without a Python loop over cells."""

from __future__ import annotations

import numpy as np


class BitPlanes:
    """Unpacks ``num_boards`` bitboards into int8 planes of shape ``bit_index.shape + (k,)``.

    ``planes(b0, b1, ...)[..., j]`` is bit ``bit_index[...]`` of board ``j`` (0 or 1). The
    boards are formatted as binary text in one C call and picked out with one fancy index,
    several times faster than testing cell by cell in Python.
    """

    def __init__(self, bit_index: np.ndarray, num_boards: int) -> None:
        self.nbits = int(bit_index.max()) + 1
        self._format = ("{:0" + str(self.nbits) + "b}") * num_boards
        self._index = np.stack(
            [(j + 1) * self.nbits - 1 - bit_index for j in range(num_boards)], axis=-1
        )

    def __call__(self, *boards: int) -> np.ndarray:
        text = self._format.format(*boards).encode()
        return np.frombuffer(text, dtype=np.int8)[self._index] - np.int8(48)
