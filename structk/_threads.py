"""Threads: one BLAS/LAPACK thread for small dense linear algebra, and
chunked numba loops run on a few Python threads.

OpenBLAS hands every call above a tiny size to its thread pool. For the
matrices a kernel learner factorises (a few hundred to a thousand rows) the
hand-over costs more than the arithmetic, and when another process keeps a
core busy it costs far more (docs/performance.md). :func:`small_blas` runs
such calls on one thread; above ``_tuning.ONE_BLAS_THREAD_MAX_N`` rows the
thread pool is left as the user configured it (there several threads pay on
an idle machine).

The limits are set through threadpoolctl (a dependency of scikit-learn),
which knows OpenBLAS, MKL, BLIS and the OpenMP runtimes. Its controller
covers the libraries loaded when it is built: it is built on first use,
and again once SciPy's linear algebra is imported if it was built before
(SciPy's wheels bring an OpenBLAS of their own, which every module of
SciPy that calls BLAS or LAPACK loads through :mod:`scipy.linalg`). It
does not import SciPy itself: a NumPy product under the limit (a
spectrum model's prediction) needs NumPy's BLAS only, and importing
``scipy.linalg`` would cost that command 0.1-0.2 s of CPU.
"""

from __future__ import annotations

import contextvars
import sys
import threading
from contextlib import contextmanager, nullcontext

from . import _tuning

_controller = None
#: Whether :data:`_controller` was built with SciPy's linear algebra loaded.
_controller_sees_scipy = False


def _get_controller():
    global _controller, _controller_sees_scipy
    scipy_loaded = "scipy.linalg" in sys.modules
    if _controller is None or (scipy_loaded and not _controller_sees_scipy):
        from threadpoolctl import ThreadpoolController

        _controller = ThreadpoolController()
        _controller_sees_scipy = scipy_loaded
    return _controller


#: True inside a :func:`_one_thread` block of this thread or task: a nested
#: one keeps the limit already set (threadpoolctl's limit costs about
#: 0.1-0.3 ms a call, and a GP's fit nests a product's inside the fit's).
_LIMITED = contextvars.ContextVar("structk_one_blas_thread", default=False)


@contextmanager
def _one_thread():
    if _LIMITED.get():
        yield
        return
    token = _LIMITED.set(True)
    try:
        with _get_controller().limit(limits=1, user_api="blas"):
            yield
    finally:
        _LIMITED.reset(token)


def one_blas_thread():
    """Context manager: one BLAS thread, for runs of matrix-vector products.

    They are bound by memory traffic, which a second thread barely speeds
    up, and each is short: on a busy machine OpenBLAS's helper threads
    waiting for a core made a product with a 800 x 800 matrix take 19 ms
    instead of a fraction of one.
    """
    return _one_thread()


def small_blas(n):
    """Context manager: one BLAS thread when ``n <= ONE_BLAS_THREAD_MAX_N``
    (:mod:`structk._tuning`), else no change.

    ``n`` is the order of the matrix the enclosed calls factorise.
    """
    return _one_thread() if n <= _tuning.ONE_BLAS_THREAD_MAX_N else nullcontext()


def small_eigh_blas(n):
    """:func:`small_blas` for eigendecompositions of order ``n`` (the largest
    of a batch), but no limit below ``_tuning.THREADED_EIGH_MIN_N``, where
    none is needed and setting the first one would cost more than the call.
    After a threaded call OpenBLAS's helper threads keep spinning for a
    while, on the cores that the compiled loops which follow need."""
    return small_blas(n) if n >= _tuning.THREADED_EIGH_MIN_N else nullcontext()


def small_matmul(A, B, largest=None):
    """``A @ B``, on one BLAS thread when it is small: more than
    ``_tuning.THREADED_PRODUCT`` and at most ``_tuning.SMALL_PRODUCT``
    multiply-adds (``largest`` lowers that upper bound for a caller whose
    larger products gain from the threads on an idle machine).

    The products of a learner's fit and predict (``a^T K a``, test Gram
    times dual coefficients) and of the vector kernels take a few
    milliseconds. OpenBLAS's helper threads then spin for a while waiting
    for more work, on the cores the next fit's solver threads need, and on
    a busy machine a woken helper waits for a core. The choice depends on
    the shapes only; the result is the plain product.
    """
    work = A.size * (B.shape[-1] if B.ndim == 2 else 1)  # multiply-adds
    with product_threads(work, largest):
        return A @ B


def product_threads(work, largest=None):
    """Context manager for a BLAS product of ``work`` multiply-adds: one
    BLAS thread when :func:`small_matmul` would use one, else no change."""
    upper = _tuning.SMALL_PRODUCT if largest is None else largest
    return _one_thread() if _tuning.THREADED_PRODUCT < work <= upper else nullcontext()


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
    layer (milliseconds and a thread pool); until something has started it nobody
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


def cost_bounds(costs, parts, chunk_cost):
    """Bounds of contiguous chunks of items of the given ``costs``: a chunk
    holds the items whose running cost before them falls between two
    multiples of ``step = min(chunk_cost, total / parts)``. So a chunk costs
    less than ``step`` plus its last item (an item costlier than that is a
    chunk of its own), and there are ``parts`` chunks or more when no item
    costs more than ``total / parts`` (fewer when some do).

    Callers cut a long compiled loop this way so that :func:`run_chunks`
    answers a Ctrl-C between chunks, and balance its threads; the chunks
    depend on the costs, ``parts`` and ``chunk_cost`` only.
    """
    import numpy as np

    costs = np.asarray(costs, dtype=np.float64)
    n = costs.shape[0]
    running = np.cumsum(costs)
    total = float(running[-1]) if n else 0.0
    step = min(float(chunk_cost), total / max(1, int(parts)))
    if n <= 1 or not step > 0:
        return [0, n]
    chunk = np.floor((running - costs) / step)  # the chunk of each item
    return [0, *(np.flatnonzero(chunk[1:] != chunk[:-1]) + 1).tolist(), n]


def join_row_parts(parts):
    """Join the results of a compiled call made on consecutive groups of
    rows (see :func:`cost_bounds`), each ``(ptr, *values)`` with ``ptr``
    starting at 0: the ``(ptr, *values)`` one call over all the rows gives.
    For a call whose rows do not depend on each other."""
    import numpy as np

    if len(parts) == 1:
        return parts[0]
    ends = np.cumsum([0] + [part[0][-1] for part in parts[:-1]])
    ptr = np.concatenate([[0]] + [part[0][1:] + end for part, end in zip(parts, ends)])
    return (ptr, *(np.concatenate(values) for values in list(zip(*parts))[1:]))


def interrupt_from(exc):
    """``KeyboardInterrupt`` if ``exc`` is the ``SystemError`` by which an
    interrupt during a compiled call surfaces, else ``None``.

    numba boxes a returned array by calling into Python; a Ctrl-C that
    arrived during the compiled loop is handled there, and the interpreter
    reports ``SystemError: ... returned a result with an exception set``
    with the ``KeyboardInterrupt`` as its cause.
    """
    seen = set()
    while isinstance(exc, BaseException) and id(exc) not in seen:
        if isinstance(exc, KeyboardInterrupt):
            return KeyboardInterrupt()
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__
    return None


#: True while a tile of a larger matrix is computed.
_IN_TILE: contextvars.ContextVar[bool] = contextvars.ContextVar("structk_in_tile", default=False)


@contextmanager
def in_tile():
    """Mark the computation of one tile of a larger matrix (a tiled
    ``structk.gram``, a Dask task): the NumPy forms that spare a fresh
    process the loading of compiled code for a small input do not pay for
    themselves there, as the tiles repeat the work."""
    token = _IN_TILE.set(True)
    try:
        yield
    finally:
        _IN_TILE.reset(token)


def tiled():
    """Whether the caller computes a tile of a larger matrix (:func:`in_tile`)."""
    return _IN_TILE.get()


def compiled_call(fn, *args):
    """``fn(*args)`` for a compiled ``fn``: an interrupt during the call
    surfaces as ``KeyboardInterrupt`` (see :func:`interrupt_from`)."""
    try:
        return fn(*args)
    except SystemError as exc:
        interrupt = interrupt_from(exc)
        if interrupt is None:
            raise
        raise interrupt from None


_worker = threading.local()


def check_cancelled():
    """Raise ``KeyboardInterrupt`` in a chunk of :func:`run_chunks` whose
    caller was interrupted: long chunks call this between their compiled
    calls, so that the interrupt does not wait for them to finish."""
    event = getattr(_worker, "cancelled", None)
    if event is not None and event.is_set():
        raise KeyboardInterrupt


def stoppable(fn, *args):
    """``fn(*args, stop)`` for a compiled ``fn`` that ends early once
    ``stop[0]`` (an int64 array of one) is set, run on a thread of its own
    while this one waits, so that a Ctrl-C (or the cancelling of the chunk
    of :func:`run_chunks` that calls this, :func:`check_cancelled`) is
    answered at once: ``stop[0]`` is then set, the call ends at ``fn``'s
    next check and the interrupt is raised here. Uninterrupted, the result
    is that of the direct call. For a compiled loop whose calls cannot be
    cut into cheap chunks (each call sets up costly scratch)."""
    import numpy as np

    stop = np.zeros(1, dtype=np.int64)
    outcome = {}

    def target():
        try:
            outcome["value"] = fn(*args, stop)
        except BaseException as exc:  # noqa: BLE001 - re-raised by the caller
            outcome["error"] = exc

    worker = threading.Thread(target=target, name=f"structk {fn.__name__}", daemon=True)
    worker.start()
    try:
        while worker.is_alive():
            worker.join(0.05)
            check_cancelled()
    except BaseException:
        stop[0] = 1
        worker.join()
        raise
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


def _chunk(event, fn, lo, hi):
    _worker.cancelled = event
    try:
        return fn(lo, hi)
    finally:
        _worker.cancelled = None


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
        for lo, hi in chunks:  # a Ctrl-C is answered between chunks
            compiled_call(fn, lo, hi)
        return
    from concurrent.futures import ThreadPoolExecutor

    cancelled = threading.Event()
    with ThreadPoolExecutor(max_workers=min(threads, len(chunks))) as pool:
        futures = [pool.submit(_chunk, cancelled, fn, lo, hi) for lo, hi in chunks]
        try:
            for f in futures:
                f.result()
        except BaseException:
            cancelled.set()  # running chunks stop at their next check
            raise
        finally:
            for f in futures:
                f.cancel()
