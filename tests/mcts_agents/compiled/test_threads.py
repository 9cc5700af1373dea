"""``compiled.threads``: a caller's numba thread count, limited for a block and given back; the
kernels' chunk size, set for a call and given back."""

from __future__ import annotations

import pytest

numba = pytest.importorskip("numba")

from mcts_agents.compiled import threads as compiled_threads  # noqa: E402
from mcts_agents.compiled.threads import chunked, limit_threads  # noqa: E402
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


def test_a_kernel_call_runs_with_the_librarys_chunk_size_and_gives_the_callers_back(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    seen: list[int] = []

    def kernel(a: int, b: int) -> int:
        seen.append(numba.get_parallel_chunksize())
        return a + b

    before = numba.set_parallel_chunksize(7)  # the caller's own
    try:
        assert chunked(kernel, 2, 3) == 5
        monkeypatch.setattr(compiled_threads, "CHUNK_SIZE", 0)
        assert chunked(kernel, 1, 1) == 2
        assert seen == [1, 0]
        assert numba.get_parallel_chunksize() == 7

        def failing() -> None:
            raise RuntimeError

        with pytest.raises(RuntimeError):
            chunked(failing)
        assert numba.get_parallel_chunksize() == 7  # given back when the kernel raises too
    finally:
        numba.set_parallel_chunksize(before)
