"""Threads: one BLAS/LAPACK thread for small dense linear algebra, and
chunked numba loops run on a few Python threads.

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


#: Symmetric eigendecompositions of at most this order run on one OpenBLAS
#: thread by themselves (measured: NumPy's ``eigvalsh`` uses the threads from
#: about 80 rows).
THREADED_EIGH_MIN = 65


def small_eigh_blas(n):
    """:func:`small_blas` for eigendecompositions of order ``n`` (the largest
    of a batch), but no limit below :data:`THREADED_EIGH_MIN`, where none is
    needed and setting the first one would cost 5-7 ms. After a threaded call
    OpenBLAS's helper threads keep spinning for a while, on the cores that
    the compiled loops which follow need (random walks on ENZYMES: 210 ms
    with the threads, 155 ms without)."""
    return small_blas(n) if n >= THREADED_EIGH_MIN else nullcontext()


#: Matrix products of more multiply-adds than this, up to about the work of
#: factorising :data:`SMALL_N` rows, run on one BLAS thread. Smaller ones
#: (under a millisecond) are left alone: setting the first limit of a
#: process costs ~7 ms, more than a small fit.
TINY_PRODUCT = 2**20
SMALL_PRODUCT = 2**28


def small_matmul(A, B, largest=None):
    """``A @ B``, on one BLAS thread when it is small (see :data:`SMALL_PRODUCT`;
    ``largest`` lowers that bound for a caller whose larger products gain
    from the threads on an idle machine).

    The products of a learner's fit and predict (``a^T K a``, test Gram
    times dual coefficients) take a few milliseconds. OpenBLAS's helper
    threads then spin for a while waiting for more work, on the cores the
    next fit's solver threads need: on splice's 5 folds (2552 objects, 2
    cores) fit and predict took 0.35 s with the products threaded and
    0.26 s without.
    """
    work = A.size * (B.shape[-1] if B.ndim == 2 else 1)  # multiply-adds
    lower = TINY_PRODUCT if _controller is None else THREADED_PRODUCT
    if lower < work <= (SMALL_PRODUCT if largest is None else largest):
        with _one_thread():
            return A @ B
    return A @ B


#: Once this process has set a thread limit (the controller exists, so a
#: limit costs ~0.1 ms), products of more multiply-adds than this run on one
#: thread too: after a limit is lifted the next threaded call must wake a
#: sleeping helper thread, which on a busy machine waits for a core
#: (KernelRidgeCV at n = 800 with another process keeping a core busy:
#: 100 ms with its last product, 640,000 multiply-adds, threaded; 54 ms
#: without). Below it the limit would cost more than the product (a
#: KernelSVM fit at n = 500: 2.2 -> 2.3 ms with 2^13) and no such wait was
#: measured.
THREADED_PRODUCT = 2**18


# ------------------------------------------------------------ chunked loops
#
# The numba loops that can use several cores are compiled serial with
# ``nogil=True`` and take a range of items; :func:`run_chunks` calls them on
# a few Python threads, one contiguous chunk at a time. Compared with
# ``parallel=True`` this compiles and loads from the cache much faster and
# never starts numba's threading layer.


def num_threads():
    """Threads the library's own loops use: numba's setting.

    That is :func:`numba.get_num_threads` (set by ``numba.set_num_threads``
    in the calling thread, default the ``NUMBA_NUM_THREADS`` environment
    variable or the number of cores). Asking numba starts its threading
    layer (~7 ms and a thread pool); until something has started it nobody
    can have called ``set_num_threads``, so the configured number is read
    instead.
    """
    import numba
    from numba.np.ufunc import parallel

    if not getattr(parallel, "_is_initialized", True):
        return int(numba.config.NUMBA_NUM_THREADS)
    return int(numba.get_num_threads())


def threads_for(work, min_work):
    """:func:`num_threads` when ``work >= min_work``, else 1 (small jobs run
    inline: starting threads would cost more than they save)."""
    return num_threads() if work >= min_work else 1


def even_bounds(n, parts):
    """Bounds of ``parts`` contiguous chunks of ``range(n)`` of about equal
    length (no empty chunk): ``bounds[c]:bounds[c + 1]`` is chunk ``c``."""
    parts = max(1, min(int(n), int(parts)))
    return [c * n // parts for c in range(parts + 1)]


def run_chunks(fn, bounds, threads):
    """``fn(bounds[c], bounds[c + 1])`` for every non-empty chunk ``c``.

    Inline, in order, when ``threads`` is 1 or there is one chunk; else on
    ``min(threads, chunks)`` threads taking chunks in order as they free up
    (``fn`` must release the GIL to gain, and chunks must write disjoint
    memory). What ``fn`` computes must not depend on which thread runs it,
    so results are the same for every thread count. If chunks raise, the
    exception of the first such chunk (in chunk order) is raised here, after
    the running chunks finish and those not started are cancelled.
    """
    chunks = [(lo, hi) for lo, hi in zip(bounds[:-1], bounds[1:]) if hi > lo]
    if threads <= 1 or len(chunks) <= 1:
        for lo, hi in chunks:
            fn(lo, hi)
        return
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=min(threads, len(chunks))) as pool:
        futures = [pool.submit(fn, lo, hi) for lo, hi in chunks]
        try:
            for f in futures:
                f.result()
        finally:
            for f in futures:
                f.cancel()
