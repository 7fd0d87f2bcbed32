"""One BLAS/LAPACK thread for small dense linear algebra.

OpenBLAS hands every call above a tiny size to its thread pool. For the
matrices a kernel learner factorises (a few hundred to a thousand rows) the
hand-over costs more than the arithmetic, and when another process keeps a
core busy it costs far more: a 500 x 500 Cholesky factorisation was
measured at 1.1 ms on one thread and 1.3 s on two, an eigendecomposition
of the same matrix at 0.14 s and 1.4 s. :func:`small_blas` runs such calls
on one thread; above :data:`SMALL_N` rows the thread pool is left as the
user configured it (there several threads pay on an idle machine).

The limits are set through threadpoolctl (a dependency of scikit-learn),
which knows OpenBLAS, MKL, BLIS and the OpenMP runtimes. Its controller is
built once per process, on first use, after SciPy's LAPACK is loaded.
"""

from __future__ import annotations

from contextlib import contextmanager, nullcontext

#: Matrices with at most this many rows are factorised on one BLAS thread.
SMALL_N = 1024

_controller = None


def _get_controller():
    global _controller
    if _controller is None:
        import scipy.linalg.lapack  # noqa: F401 - load SciPy's BLAS before looking
        from threadpoolctl import ThreadpoolController

        _controller = ThreadpoolController()
    return _controller


@contextmanager
def _one_thread():
    with _get_controller().limit(limits=1, user_api="blas"):
        yield


def small_blas(n):
    """Context manager: one BLAS thread when ``n <= SMALL_N``, else no change.

    ``n`` is the order of the matrix the enclosed calls factorise.
    """
    return _one_thread() if n <= SMALL_N else nullcontext()
