"""structk._threads: small dense linear algebra runs on one BLAS thread; chunked
loops run on threads."""

import threading

import numba
import numpy as np
import pytest
from threadpoolctl import threadpool_info, threadpool_limits

from structk._threads import SMALL_N, even_bounds, num_threads, run_chunks, small_blas


def blas_threads():
    return {lib["filepath"]: lib["num_threads"] for lib in threadpool_info()
            if lib["user_api"] == "blas"}


def test_small_calls_run_on_one_thread_and_the_limit_is_restored():
    import scipy.linalg  # noqa: F401 - load SciPy's BLAS as the learners do

    with threadpool_limits(2, user_api="blas"):
        before = blas_threads()
        assert before
        with small_blas(SMALL_N):
            assert all(v == 1 for v in blas_threads().values())
            # the results are those of the default pool
            A = np.random.default_rng(0).normal(size=(50, 50))
            S = A @ A.T + 50 * np.eye(50)
            L = np.linalg.cholesky(S)
        assert blas_threads() == before
        np.testing.assert_allclose(L @ L.T, S, rtol=1e-12, atol=1e-10)


def test_large_calls_keep_the_users_thread_pool():
    import scipy.linalg  # noqa: F401

    with threadpool_limits(2, user_api="blas"):
        before = blas_threads()
        with small_blas(SMALL_N + 1):
            assert blas_threads() == before


def test_limit_is_restored_when_the_block_raises():
    import scipy.linalg  # noqa: F401

    with threadpool_limits(2, user_api="blas"):
        before = blas_threads()
        try:
            with small_blas(3):
                raise KeyError("boom")
        except KeyError:
            pass
        assert blas_threads() == before


def test_even_bounds_cover_the_range_without_empty_chunks():
    assert even_bounds(10, 3) == [0, 3, 6, 10]
    assert even_bounds(2, 8) == [0, 1, 2]
    assert even_bounds(0, 4) == [0, 0]


@pytest.mark.parametrize("threads", [1, 2, 4])
def test_run_chunks_calls_every_chunk_once(threads):
    seen, used = [], set()

    def fn(lo, hi):
        seen.append((lo, hi))
        used.add(threading.get_ident())

    run_chunks(fn, even_bounds(100, 7), threads)
    assert sorted(seen) == list(zip(even_bounds(100, 7)[:-1], even_bounds(100, 7)[1:]))
    if threads == 1:
        assert used == {threading.get_ident()}  # inline


def test_run_chunks_raises_the_chunks_error():
    def fn(lo, hi):
        if lo == 2:
            raise KeyError("chunk")

    with pytest.raises(KeyError, match="chunk"):
        run_chunks(fn, [0, 1, 2, 3, 4], 2)


def test_num_threads_follows_numba():
    """Without set_num_threads: NUMBA_NUM_THREADS; with it: the setting of
    the calling thread, as for numba's own parallel loops."""
    assert 1 <= num_threads() <= numba.config.NUMBA_NUM_THREADS
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        assert num_threads() == 1
    finally:
        numba.set_num_threads(before)
    assert num_threads() == before


def test_num_threads_does_not_start_numbas_threading_layer():
    import os
    import subprocess
    import sys

    code = ("from structk._threads import num_threads\n"
            "from numba.np.ufunc import parallel\n"
            "print(num_threads(), parallel._is_initialized)")
    env = dict(os.environ, NUMBA_NUM_THREADS="1")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, check=True).stdout.split()
    assert out == ["1", "False"]


@pytest.mark.parametrize("shape, limited", [((400, 400, 1), False), ((700, 700, 3), True),
                                            ((2, 10**6, 2), True), ((None, 800, 800), False),
                                            ((None, 1200, 1200), True)])
def test_small_products_run_on_one_blas_thread(shape, limited, monkeypatch):
    """Products between TINY_PRODUCT and SMALL_PRODUCT multiply-adds are
    computed under the one-thread limit; the result is the plain product."""
    import structk._threads as threads_module
    from structk._threads import small_matmul

    seen = []
    real = threads_module._one_thread

    def spy():
        seen.append(True)
        return real()

    monkeypatch.setattr(threads_module, "_one_thread", spy)
    m, k, cols = shape  # m None: a vector times a matrix
    rng = np.random.default_rng(0)
    A = rng.normal(size=k if m is None else (m, k))
    B = rng.normal(size=(k, cols)) if cols > 1 else rng.normal(size=k)
    np.testing.assert_allclose(small_matmul(A, B), A @ B, rtol=1e-12, atol=1e-12)
    assert bool(seen) is limited
    work = (m or 1) * k * cols
    assert (threads_module.TINY_PRODUCT < work <= threads_module.SMALL_PRODUCT) is limited
