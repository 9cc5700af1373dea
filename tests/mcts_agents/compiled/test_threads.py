"""``compiled.threads``: a caller's numba thread count, limited for a block and given back."""

from __future__ import annotations

import pytest

numba = pytest.importorskip("numba")

from mcts_agents.compiled.threads import limit_threads  # noqa: E402
from mcts_agents.errors import InvalidOptionError  # noqa: E402


def test_a_block_runs_on_the_threads_it_asks_for_and_gives_them_back() -> None:
    if numba.config.NUMBA_NUM_THREADS < 2:
        pytest.skip("one numba thread on this machine: nothing to limit")
    numba.set_num_threads(2)
    with limit_threads(1):
        assert numba.get_num_threads() == 1
    assert numba.get_num_threads() == 2
    with limit_threads(10_000):  # at most numba's threads
        assert numba.get_num_threads() == numba.config.NUMBA_NUM_THREADS
    with pytest.raises(RuntimeError), limit_threads(1):
        raise RuntimeError  # given back when the block raises too
    assert numba.get_num_threads() == 2
    with limit_threads(None):
        assert numba.get_num_threads() == 2
    # (the wait policy, set only before the threading layer starts: test_batch's
    # test_the_wait_policy_is_set_at_the_first_parallel_batch_not_at_import, in a fresh process)


@pytest.mark.parametrize("threads", [0, -1, 1.5, "2", True])
def test_a_bad_count_is_refused_naming_it(threads: object) -> None:
    with pytest.raises(InvalidOptionError, match="threads"), limit_threads(threads):  # type: ignore[arg-type]
        pass
