"""structk._threads: small dense linear algebra runs on one BLAS thread."""

import numpy as np
from threadpoolctl import threadpool_info, threadpool_limits

from structk._threads import SMALL_N, small_blas


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
